package conformance

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/kubectl-egress/kubectl-egress/pkg/checks"
	"github.com/kubectl-egress/kubectl-egress/pkg/rules"
	"github.com/kubectl-egress/kubectl-egress/pkg/snapshot"
	networkingv1 "istio.io/client-go/pkg/apis/networking/v1"
)

// The fourth comparison kind: meshConfig.serviceEntryVisibility. For every scenario whose mesh
// config (of the revision the plugin judges) sets serviceEntryVisibility, every ServiceEntry
// and every namespace N with a sidecar proxy in the oracle, the plugin's
// checks.Visibility(snap, {AsNamespace: N}).SidecarSees is compared with whether istiod's
// sidecar in N (model.SidecarProxy, ConfigNamespace N) has outbound|<port>||<host> for every
// host and non-UDP port of the entry.

// visCheck is one (ServiceEntry, namespace) pair.
type visCheck struct {
	seNs, seName string
	hosts        []string
	asNs         string
	role         string // own-ns, gateway-ns, client-ns
	exportTo     string // the entry's declared exportTo, classified
	visibility   string // resolved by the plugin
	policy       string
	sidecarExp   []string
	probe        bool
	sidecarCR    bool // a Sidecar resource exists in the namespace or the root namespace
	plugin       bool
	istiod       bool // the sidecar has every cluster
	partial      bool // the sidecar has some of the clusters, not all
	missing      []string
	// ports: the entry's ports the plugin says the sidecar keeps (SidecarPorts, a Sidecar
	// with ported egress listeners; nil: all); extra: clusters of the other ports istiod has.
	ports []uint32
	extra []string
}

func (c visCheck) agree() bool { return !c.partial && len(c.extra) == 0 && c.plugin == c.istiod }

func (c visCheck) class() string {
	if len(c.extra) > 0 {
		return fmt.Sprintf("%s entry, sidecar in %s: plugin some ports, istiod more", c.visibility, c.role)
	}
	if c.partial {
		return fmt.Sprintf("%s entry, sidecar in %s: plugin %s, istiod partial", c.visibility, c.role, seesWord(c.plugin))
	}
	return fmt.Sprintf("%s entry, sidecar in %s: plugin %s, istiod %s", c.visibility, c.role, seesWord(c.plugin), seesWord(c.istiod))
}

func (c visCheck) String() string {
	ist := seesWord(c.istiod)
	if c.partial {
		ist = "PARTIAL (missing " + strings.Join(c.missing, ",") + ")"
	} else if !c.istiod && len(c.missing) > 0 {
		ist += " (no " + c.missing[0] + ")"
	}
	if len(c.extra) > 0 {
		ist += " (also " + strings.Join(c.extra, ",") + ")"
	}
	return fmt.Sprintf("ServiceEntry %s/%s (hosts %s, exportTo %s, %s via %s, sidecar exportTo %v) sidecar in %s (%s): plugin %s%s vs istiod %s",
		c.seNs, c.seName, strings.Join(c.hosts, ","), c.exportTo, c.visibility, c.policy, c.sidecarExp, c.asNs, c.role, seesWord(c.plugin), portsWord(c.ports), ist)
}

func portsWord(ps []uint32) string {
	if len(ps) == 0 {
		return ""
	}
	return fmt.Sprintf(" (ports %v only)", ps)
}

func seesWord(b bool) string {
	if b {
		return "sees"
	}
	return "hidden"
}

// visibilityConfigured: the mesh config the plugin judges sets serviceEntryVisibility.
func visibilityConfigured(snap *snapshot.Snapshot) bool {
	return checks.ReadIstiodFlags(snap, snap.Revision).MeshConfig.GetServiceEntryVisibility() != nil
}

// withVisibilityNamespaces adds, when serviceEntryVisibility is configured, every namespace of
// the scenario (Namespace objects, ServiceEntry namespaces) to the sidecar namespaces.
func withVisibilityNamespaces(snap *snapshot.Snapshot, ns []string) []string {
	if !visibilityConfigured(snap) {
		return ns
	}
	set := map[string]bool{}
	for _, n := range ns {
		set[n] = true
	}
	for _, n := range snap.Namespaces {
		set[n.Name] = true
	}
	for _, se := range snap.ServiceEntries {
		set[se.Namespace] = true
	}
	return sortedSet(set)
}

func exportToClass(exp []string, own string) string {
	switch {
	case len(exp) == 0:
		return "unset"
	case len(exp) == 1 && (exp[0] == "." || exp[0] == "*" || exp[0] == "~"):
		return exp[0]
	case len(exp) == 1 && exp[0] == own:
		return "own-ns"
	case !slices.Contains(exp, ".") && !slices.Contains(exp, own):
		return "other-ns"
	default:
		return "own+other"
	}
}

func compareVisibility(sc *scenario, snap *snapshot.Snapshot, out *istiodOut, unchecked map[string]int) []visCheck {
	if !visibilityConfigured(snap) {
		return nil
	}
	view := checks.RevisionView(snap, snap.Revision)
	gwNs := map[string]bool{}
	for _, w := range checks.GatewayWorkloads(snap) {
		gwNs[w.Namespace] = true
	}
	hostCount := map[string]int{}
	for _, se := range view.ServiceEntries {
		for _, h := range se.Spec.Hosts {
			hostCount[strings.ToLower(h)]++
		}
	}
	for _, s := range view.Services {
		hostCount[s.Name+"."+s.Namespace+".svc.cluster.local"]++
	}
	sidecarNs := map[string]bool{}
	for _, sc := range view.Sidecars {
		sidecarNs[sc.Namespace] = true
	}
	var res []visCheck
	for _, ns := range sortedKeysAnyBool(out.sidecars) {
		cds := out.sidecars[ns]
		// Namespaces with a Sidecar resource (the listener.sidecar dimension) are compared too:
		// checks.Visibility honours the namespace's Sidecar egress hosts (SidecarSees false and
		// NOT_IMPORTED_BY_SIDECAR_EGRESS_HOSTS when they do not import the entry).
		withSidecar := sidecarNs[ns] || sidecarNs["istio-system"]
		rep := checks.Visibility(snap, checks.VisibilityOptions{AsNamespace: ns})
		for _, e := range rep.Entries {
			var se = findSE(view, e.Namespace, e.Name)
			if se == nil || e.SidecarSees == nil {
				unchecked["entry without a plugin answer"]++
				continue
			}
			skip := ""
			for _, h := range se.Spec.Hosts {
				if strings.Contains(h, "*") {
					skip = "wildcard host"
				} else if hostCount[strings.ToLower(h)] > 1 {
					skip = "host declared by another entry or Service"
				}
			}
			res0 := se.Spec.GetResolution().String()
			if skip == "" && strings.HasPrefix(res0, "DNS") && se.Spec.GetWorkloadSelector() != nil {
				skip = "DNS entry with a workloadSelector (cluster depends on selected workloads)"
			}
			// With SidecarPorts (a Sidecar whose egress listeners each have a port keeps only
			// those ports of the entry) the other ports' clusters must be absent.
			var clusters, trimmed []string
			for _, p := range se.Spec.Ports {
				if strings.EqualFold(p.GetProtocol(), "UDP") {
					continue
				}
				for _, h := range se.Spec.Hosts {
					name := fmt.Sprintf("outbound|%d||%s", p.GetNumber(), h)
					if len(e.SidecarPorts) > 0 && !slices.Contains(e.SidecarPorts, p.GetNumber()) {
						trimmed = append(trimmed, name)
						continue
					}
					clusters = append(clusters, name)
				}
			}
			if skip == "" && len(clusters) == 0 {
				skip = "no non-UDP port"
			}
			if skip != "" {
				unchecked[skip]++
				continue
			}
			if *e.SidecarSees && !importedByEgressHosts(snap, ns, se) && !meshDestinationsCoverPorts(snap, se, ns) {
				// The namespace's sidecar does not import the entry through its egress hosts
				// (exportTo, capped by visibility, or the Sidecar resource's hosts) but a
				// VirtualService it imports routes to it: istiod then imports only the ports
				// the destinations name when every destination names one
				// (pilot/pkg/model/sidecar.go collectImportedServices →
				// serviceMatchingVirtualServicePorts), so the other ports have no cluster. The
				// plugin's per-entry sidecarSees cannot say "some ports": not compared (found
				// with the listener.meshVS dimension: app/api-mesh-l4 names one port; in the
				// entry's own namespace, checks.meshRoutesTo, or under a Sidecar whose hosts omit
				// the entry's namespace).
				unchecked["entry imported only through VirtualService destinations naming some of its ports"]++
				continue
			}
			c := visCheck{seNs: se.Namespace, seName: se.Name, hosts: se.Spec.Hosts, asNs: ns, exportTo: exportToClass(se.Spec.ExportTo, se.Namespace),
				visibility: e.Visibility, policy: e.Policy, sidecarExp: e.SidecarExportTo, plugin: *e.SidecarSees,
				probe: strings.HasSuffix(se.Spec.Hosts[0], ".probe.example"), sidecarCR: withSidecar}
			switch {
			case ns == se.Namespace:
				c.role = "own-ns"
			case gwNs[ns]:
				c.role = "gateway-ns"
			default:
				c.role = "client-ns"
			}
			have := 0
			for _, cl := range clusters {
				if cds[cl] {
					have++
				} else {
					c.missing = append(c.missing, cl)
				}
			}
			c.istiod = have == len(clusters)
			c.partial = have > 0 && have < len(clusters)
			for _, cl := range trimmed {
				if cds[cl] {
					c.extra = append(c.extra, cl)
				}
			}
			c.ports = e.SidecarPorts
			res = append(res, c)
		}
	}
	return res
}

func findSE(snap *snapshot.Snapshot, ns, name string) *networkingv1.ServiceEntry {
	for _, se := range snap.ServiceEntries {
		if se.Namespace == ns && se.Name == name {
			return se
		}
	}
	return nil
}

func sortedKeysAnyBool(m map[string]map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// writeVisibilityTables prints the visibility comparison: totals for the case files and the
// generated matrix, one agreement table per dimension value (matrix dimensions of the
// scenarios compared, and properties of the pair), and what was not checked.
func writeVisibilityTables(w *strings.Builder, cases, gen []*result) {
	total := func(rs []*result) (agree, n, scAgree, scN int, conf [2][2]int, unchecked map[string]int) {
		unchecked = map[string]int{}
		for _, r := range rs {
			for k, v := range r.visUnchecked {
				unchecked[k] += v
			}
			if len(r.visChecks) == 0 {
				continue
			}
			scN++
			if r.visDisagreement == 0 {
				scAgree++
			}
			for _, c := range r.visChecks {
				n++
				if c.agree() {
					agree++
				}
				conf[b2i(c.plugin)][b2i(c.istiod)]++
			}
		}
		return
	}
	w.WriteString("\nSERVICEENTRY VISIBILITY (plugin checks.Visibility SidecarSees vs istiod sidecar in N has outbound|<port>||<host>)\n")
	for _, part := range []struct {
		name string
		rs   []*result
	}{{"case files", cases}, {"generated", gen}} {
		a, n, sa, sn, conf, un := total(part.rs)
		fmt.Fprintf(w, "%s: (entry, namespace) pairs agreeing %d/%d; scenarios agreeing %d/%d; sees/sees %d, hidden/hidden %d, sees/hidden %d, hidden/sees %d\n",
			part.name, a, n, sa, sn, conf[1][1], conf[0][0], conf[1][0], conf[0][1])
		if len(un) > 0 {
			var ks []string
			for k := range un {
				ks = append(ks, k)
			}
			sort.Strings(ks)
			var parts []string
			for _, k := range ks {
				parts = append(parts, fmt.Sprintf("%s %d", k, un[k]))
			}
			fmt.Fprintf(w, "  not checked (pairs): %s\n", strings.Join(parts, "; "))
		}
	}
	if len(gen) == 0 {
		return
	}
	w.WriteString("\n")
	type col struct {
		name   string
		values []string
		get    func(r *result, c visCheck) string
	}
	var cols []col
	for _, d := range dimensions {
		d := d
		cols = append(cols, col{d.name, d.values, func(r *result, c visCheck) string { return r.sc.Dims[d.name] }})
	}
	cols = append(cols,
		col{"vis.entry", []string{"probe", "api/noise/duplicate"}, func(r *result, c visCheck) string {
			if c.probe {
				return "probe"
			}
			return "api/noise/duplicate"
		}},
		col{"vis.entry.exportTo", []string{".", "*", "other-ns", "unset", "~", "own-ns", "own+other"}, func(r *result, c visCheck) string { return c.exportTo }},
		col{"vis.resolved", []string{"PUBLIC", "NAMESPACE", "NONE"}, func(r *result, c visCheck) string { return c.visibility }},
		col{"vis.policy", []string{"defaultVisibility", "policies[0]", "policies[1]"}, func(r *result, c visCheck) string { return c.policy }},
		col{"vis.namespace", []string{"own-ns", "client-ns", "gateway-ns"}, func(r *result, c visCheck) string { return c.role }},
		col{"vis.plugin", []string{"sees", "hidden"}, func(r *result, c visCheck) string { return seesWord(c.plugin) }},
		col{"vis.sidecarResource", []string{"none", "Sidecar"}, func(r *result, c visCheck) string {
			if c.sidecarCR {
				return "Sidecar"
			}
			return "none"
		}},
	)
	fmt.Fprintf(w, "%-26s %-32s %-12s %s\n", "VISIBILITY BY", "VALUE", "PAIRS", "SCENARIOS")
	for _, cl := range cols {
		tal := map[string]*tally{}
		var order []string
		for _, v := range cl.values {
			if _, ok := tal[v]; !ok {
				tal[v] = &tally{}
				order = append(order, v)
			}
		}
		for _, r := range gen {
			scVals := map[string]bool{}
			for _, c := range r.visChecks {
				v := cl.get(r, c)
				tl := tal[v]
				if tl == nil {
					tl = &tally{}
					tal[v] = tl
					order = append(order, v)
				}
				tl.total++
				if c.agree() {
					tl.agree++
				}
				scVals[v] = true
			}
			for v := range scVals {
				tal[v].scTotal++
				if r.visDisagreement == 0 {
					tal[v].scAgree++
				}
			}
		}
		first := true
		for _, v := range order {
			tl := tal[v]
			if tl.total == 0 {
				continue
			}
			name := ""
			if first {
				name, first = cl.name, false
			}
			fmt.Fprintf(w, "%-26s %-32s %-12s %s\n", name, v, fmt.Sprintf("%d/%d", tl.agree, tl.total), fmt.Sprintf("%d/%d", tl.scAgree, tl.scTotal))
		}
	}
	w.WriteString("\n")
}

// clientLabels are the labels of the synthesised client Pod of every sidecar namespace.
var clientLabels = map[string]string{"app": "conformance-client"}

// importedByEgressHosts reports whether an egress listener of the sidecar in ns imports se
// through its hosts (rules.EgressListener.SelectServices: exportTo, capped by
// serviceEntryVisibility, and the Sidecar resource's egress hosts), as opposed to istiod's
// VirtualService-destination import.
func importedByEgressHosts(snap *snapshot.Snapshot, ns string, se *networkingv1.ServiceEntry) bool {
	v := checks.BuildSidecarView(snap, ns, clientLabels)
	all := checks.AllServices(checks.RevisionView(snap, v.Revision), v.Flags)
	for _, l := range v.Scope.Egress {
		for _, s := range l.SelectServices(l.Candidates(all, ns), ns) {
			if s.Kind == rules.KindServiceEntry && s.Namespace == se.Namespace && s.Name == se.Name {
				return true
			}
		}
	}
	return false
}

// meshDestinationsCoverPorts reports whether the VirtualServices the sidecar in ns imports
// (rules.EgressListener.SelectVirtualServices of its egress listeners) route to every non-UDP
// port of se's hosts (a destination without port counts as every port), i.e. whether istiod's
// VirtualService-destination import of se in ns brings all its ports
// (pilot/pkg/model/sidecar.go serviceMatchingVirtualServicePorts).
func meshDestinationsCoverPorts(snap *snapshot.Snapshot, se *networkingv1.ServiceEntry, ns string) bool {
	v := checks.BuildSidecarView(snap, ns, clientLabels)
	view := checks.RevisionView(snap, v.Revision)
	vsExport := v.Flags.MeshConfig.GetDefaultVirtualServiceExportTo()
	named := map[uint32]bool{}
	var vses []*networkingv1.VirtualService
	for _, l := range v.Scope.Egress {
		for _, vs := range l.SelectVirtualServices(view.VirtualServices, ns, vsExport) {
			if !slices.Contains(vses, vs) {
				vses = append(vses, vs)
			}
		}
	}
	for _, vs := range vses {
		dests, _ := rules.MergedRoutes(vs, view.VirtualServices, vsExport)
		for _, d := range dests {
			for _, h := range se.Spec.Hosts {
				if strings.EqualFold(d.Host, h) {
					if d.Port == 0 {
						return true
					}
					named[d.Port] = true
				}
			}
		}
	}
	for _, p := range se.Spec.Ports {
		if !strings.EqualFold(p.GetProtocol(), "UDP") && !named[p.GetNumber()] {
			return false
		}
	}
	return true
}
