package conformance

import (
	"slices"
	"strings"

	"github.com/kubectl-egress/kubectl-egress/pkg/checks"
	"github.com/kubectl-egress/kubectl-egress/pkg/model"
	"github.com/kubectl-egress/kubectl-egress/pkg/snapshot"
)

// drMergeProxy names the configCheck of the DestinationRule merge comparison (not a proxy:
// writeConfigTables reports it apart).
const drMergeProxy = "DestinationRule merges"

// compareDRMerges compares the hosts for which istiod dropped a duplicate subset while merging
// DestinationRules (out.duplicateSubsetHosts, its pilot_destrule_subsets metric) with the hosts
// of the plugin's rules.DRLookup.MergeDrops that drop a subset (changed or written the same), in
// the revision view rev of snap: the merge preflight's DESTINATION_RULE_MERGE_DROPS_SETTINGS
// and the hop's TLS explanation rest on.
func compareDRMerges(snap *snapshot.Snapshot, rev string, out *istiodOut) configCheck {
	view := checks.RevisionView(snap, rev)
	mc := checks.ReadIstiodFlags(snap, rev).MeshConfig
	root := mc.GetRootNamespace()
	if root == "" {
		root = view.IstioNamespace
	}
	drs := model.DestinationRules(view, root, mc.GetDefaultDestinationRuleExportTo())
	var plugin []string
	for _, d := range drs.MergeDrops() {
		if len(d.Subsets)+len(d.Identical) > 0 {
			plugin = append(plugin, strings.ToLower(drs.Host(d.Rule)))
		}
	}
	slices.Sort(plugin)
	plugin = slices.Compact(plugin)
	c := configCheck{proxy: drMergeProxy, compared: map[string]int{"duplicate subsets": 0}}
	for _, h := range plugin {
		c.compared["duplicate subsets"]++
		if !slices.Contains(out.duplicateSubsetHosts, h) {
			c.diffs = append(c.diffs, checks.ResourceDiff{Section: "duplicate subsets", Name: h, State: checks.DiffMissing, Detail: "the plugin drops a duplicate subset of this host in a merge; istiod does not"})
		}
	}
	for _, h := range out.duplicateSubsetHosts {
		if !slices.Contains(plugin, h) {
			c.compared["duplicate subsets"]++
			c.diffs = append(c.diffs, checks.ResourceDiff{Section: "duplicate subsets", Name: h, State: checks.DiffExtra, Detail: "istiod drops a duplicate subset of this host while merging DestinationRules; the plugin does not"})
		}
	}
	return c
}
