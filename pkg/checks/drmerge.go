package checks

import (
	"fmt"
	"slices"
	"strings"

	networking "istio.io/api/networking/v1alpha3"
	networkingv1 "istio.io/client-go/pkg/apis/networking/v1"

	"github.com/kubectl-egress/kubectl-egress/pkg/model"
	"github.com/kubectl-egress/kubectl-egress/pkg/rules"
	"github.com/kubectl-egress/kubectl-egress/pkg/snapshot"
)

// PreflightDRMergeDrops: two DestinationRules for one host in one namespace (same exportTo and
// workload selector) are merged by istiod into the older one, which keeps its own subsets and
// top-level traffic policy: a later rule's subset of the same name, and its top-level traffic
// policy when the older rule has one, are silently ignored. Found by blind audit 97 c35: the
// newer rule's subset set tls ISTIO_MUTUAL for the hop to the egress gateway, and nothing said
// why the sidecar sent plaintext.
const PreflightDRMergeDrops = "DESTINATION_RULE_MERGE_DROPS_SETTINGS"

func init() {
	Catalog = append(Catalog,
		CatalogEntry{Code: PreflightDRMergeDrops, Level: LevelWarning,
			Description: "Two DestinationRules for the same host in the same namespace (with the same exportTo and workload selector) are merged into the older one. The older rule's subsets and top-level trafficPolicy win: a newer rule's subset with a name the older rule already uses, and its top-level trafficPolicy when the older rule has one, are ignored (TLS, load balancing or connection limits written there do nothing)."},
	)
}

// drMergeFindings: PreflightDRMergeDrops for every DestinationRule that istiod merges into an
// older one and takes subsets or a traffic policy from (rules.DRLookup.MergeDrops), read in the
// revision view of the snapshot's istiod.
//
// Mirrors istiod pilot/pkg/model/destination_rule.go mergeDestinationRule (duplicate subsets
// dropped, the first top-level traffic policy kept), as push_context.go setDestinationRules
// calls it on rules sorted by creation time.
func drMergeFindings(snap *snapshot.Snapshot) []PreflightFinding {
	if len(snap.DestinationRules) < 2 {
		return nil
	}
	flags := ReadIstiodFlags(snap, snap.Revision)
	view := RevisionView(snap, snap.Revision)
	root := flags.MeshConfig.GetRootNamespace()
	if root == "" {
		root = view.IstioNamespace
	}
	drs := model.DestinationRules(view, root, flags.MeshConfig.GetDefaultDestinationRuleExportTo())
	var out []PreflightFinding
	for _, d := range drs.MergeDrops() {
		if len(d.Subsets) == 0 && d.PolicyFrom == nil {
			continue // only subsets written the same way: nothing is lost
		}
		ref := ResourceRef{Kind: "DestinationRule", Namespace: d.Rule.Namespace, Name: d.Rule.Name}
		field := "spec.trafficPolicy"
		if len(d.Subsets) > 0 {
			field = fmt.Sprintf("spec.subsets[%d]", slices.IndexFunc(d.Rule.Spec.GetSubsets(), func(s *networking.Subset) bool { return s.GetName() == d.Subsets[0] }))
		}
		msg, fix := mergeDropText(d, drs.Host(d.Rule))
		out = append(out, NewPreflightFinding(PreflightDRMergeDrops, CheckPreflight, ref, field, msg, fix))
	}
	return out
}

// mergeDropText: what istiod ignores of d.Rule and how to keep it.
func mergeDropText(d rules.MergeDrop, host string) (msg, fix string) {
	ref := func(dr *networkingv1.DestinationRule) string {
		return "DestinationRule " + dr.Namespace + "/" + dr.Name
	}
	var lost []string
	for i, s := range d.Subsets {
		lost = append(lost, fmt.Sprintf("its subset %s (%s defines it first)", s, ref(d.SubsetFrom[i])))
	}
	if d.PolicyFrom != nil {
		lost = append(lost, fmt.Sprintf("its top-level trafficPolicy (%s sets one)", ref(d.PolicyFrom)))
	}
	msg = fmt.Sprintf("%s is merged into the older %s (both for %s, in the same namespace, with the same exportTo and workload selector). istiod keeps the older rules' definitions and ignores %s, so the settings written there never apply.",
		ref(d.Rule), ref(d.Into), host, strings.Join(lost, " and "))
	switch {
	case d.PolicyFrom == nil:
		fix = fmt.Sprintf("Put the settings of subset %s into %s and remove it from %s (or give %s's subset a name of its own and route to that name).", strings.Join(d.Subsets, ", "), ref(d.SubsetFrom[0]), ref(d.Rule), d.Rule.Name)
	default:
		fix = fmt.Sprintf("Keep one DestinationRule for %s in namespace %s: move what %s sets into %s and delete %s.", host, d.Rule.Namespace, ref(d.Rule), ref(d.Into), ref(d.Rule))
	}
	return msg, fix
}

// mergeDropNote: a sentence saying that the definition of subset (or, with subset "", the
// top-level traffic policy) of the rules ch that decides the cluster is the older one, because a
// newer rule's own was dropped in the merge; "" when nothing was.
func mergeDropNote(ch *rules.DRChoice, subset string) string {
	for _, d := range ch.Drops() {
		if subset != "" {
			if i := slices.Index(d.Subsets, subset); i >= 0 {
				return fmt.Sprintf(" DestinationRule %s/%s also defines subset %s, but istiod merges the rules for the host of one namespace into the older DestinationRule %s/%s and keeps the first definition of a subset, so %s's is ignored.", d.Rule.Namespace, d.Rule.Name, subset, d.SubsetFrom[i].Namespace, d.SubsetFrom[i].Name, d.Rule.Name)
			}
			continue
		}
		if d.PolicyFrom != nil {
			return fmt.Sprintf(" DestinationRule %s/%s also sets a top-level trafficPolicy, but istiod merges the rules for the host of one namespace into the older DestinationRule %s/%s and keeps its policy, so %s's is ignored.", d.Rule.Namespace, d.Rule.Name, d.PolicyFrom.Namespace, d.PolicyFrom.Name, d.Rule.Name)
		}
	}
	return ""
}
