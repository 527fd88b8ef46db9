package conformance

// Export-audit subset findings (DR_NOT_ON_LOOKUP_PATH, DR_NOT_EXPORTED_TO_CLIENT_NAMESPACE,
// SUBSET_NOT_DEFINED_ANYWHERE) against the
// CDS of a SIDECAR proxy in each client namespace, both directions, and the converse of
// SE_NOT_EXPORTED_TO_GATEWAY_NAMESPACE against the gateways' CDS with the filter flag off.

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	networkingv1 "istio.io/client-go/pkg/apis/networking/v1"

	"github.com/kubectl-egress/kubectl-egress/pkg/checks"
	"github.com/kubectl-egress/kubectl-egress/pkg/rules"
	"github.com/kubectl-egress/kubectl-egress/pkg/snapshot"
)

// sidecarNamespaces are the namespaces that get a sidecar proxy in the oracle: the client
// namespaces (istio-injection=enabled or istio.io/rev) and every MissingIn namespace of a
// DR_NOT_ON_LOOKUP_PATH or SUBSET_NOT_DEFINED_ANYWHERE finding.
func sidecarNamespaces(snap *snapshot.Snapshot) []string {
	set := map[string]bool{}
	for _, ns := range checks.ClientNamespaces(snap) {
		set[ns] = true
	}
	for _, f := range checks.ExportAudit(snap, checks.AuditOptions{}).Findings {
		if f.Code == checks.AuditDRNotOnLookupPath || f.Code == checks.AuditSubsetUndefined || f.Code == checks.AuditDRNotExportedToClient {
			for _, ns := range f.MissingIn {
				set[ns] = true
			}
		}
	}
	return sortedSet(set)
}

// auditView is what ExportAudit itself reads: the snapshot narrowed to the revision audited,
// the mesh defaults of that revision.
type auditView struct {
	snap     *snapshot.Snapshot
	svcOpt   rules.ServiceOptions
	vsExport []string
}

func newAuditView(snap *snapshot.Snapshot) auditView {
	mc := checks.ReadIstiodFlags(snap, snap.Revision).MeshConfig
	v := checks.RevisionView(snap, snap.Revision)
	return auditView{snap: v, svcOpt: checks.ServiceOptions(v, mc), vsExport: mc.GetDefaultVirtualServiceExportTo()}
}

// auditedRevision is the istiod revision ExportAudit judges ("default" for --revision "").
func auditedRevision(snap *snapshot.Snapshot) string {
	if snap.Revision == "" {
		return "default"
	}
	return snap.Revision
}

func nsRevision(snap *snapshot.Snapshot, ns string) string {
	for _, n := range snap.Namespaces {
		if n.Name == ns && n.Labels["istio.io/rev"] != "" {
			return n.Labels["istio.io/rev"]
		}
	}
	return "default"
}

// meshRoute: the route applies to sidecars judging by its match.gateways (no match, a match
// without gateways, or one naming mesh).
func meshRoute(d rules.Dest) bool {
	lists := rules.MatchGateways(d)
	if len(lists) == 0 {
		return true
	}
	for _, l := range lists {
		if len(l) == 0 || slices.Contains(l, rules.MeshGateway) {
			return true
		}
	}
	return false
}

// subsetFinding returns the DR_NOT_ON_LOOKUP_PATH / SUBSET_NOT_DEFINED_ANYWHERE finding that
// covers destination d (host h) for proxies in ns, nil when there is none.
func subsetFinding(rep *checks.AuditReport, ns string, d rules.Dest, h string) *checks.AuditFinding {
	what := fmt.Sprintf("subset %q of %s,", d.Subset, h)
	for i := range rep.Findings {
		f := &rep.Findings[i]
		if !slices.Contains(f.MissingIn, ns) || !strings.Contains(f.Message, what) {
			continue
		}
		switch f.Code {
		case checks.AuditSubsetUndefined:
			// about the route's VirtualService, or about the DestinationRule the proxy applies
			// (a rule of its own namespace hiding the one that defines the subset)
			if (f.Namespace == d.Declared.Namespace && f.Name == d.Declared.Name) || f.Kind == "DestinationRule" {
				return f
			}
		case checks.AuditDRNotOnLookupPath, checks.AuditDRNotExportedToClient:
			return f
		}
	}
	return nil
}

var neverBuiltRE = regexp.MustCompile(`(outbound\|\d+\|[^|\s]*\|[^\s,:;]+) is never built`)

func dnsKind(s *rules.Service) bool {
	return s.Kind == rules.KindServiceEntry && (s.Resolution == "DNS" || s.Resolution == "DNS_ROUND_ROBIN")
}

// compareSubsetAudit checks, for every client namespace N whose sidecar the oracle built and
// every mesh route visible in N with a subset destination, outbound|<port>|<subset>|<host> in
// the sidecar's CDS: absent when the audit reports DR_NOT_ON_LOOKUP_PATH or
// SUBSET_NOT_DEFINED_ANYWHERE for N, present otherwise. Findings whose (finding, namespace)
// no client route covers (gateway contexts) are checked on a sidecar in that namespace with
// the cluster their Impact names.
func compareSubsetAudit(snap *snapshot.Snapshot, rep *checks.AuditReport, out *istiodOut, filter, scope bool, unchecked map[string]int) []auditCheck {
	v := newAuditView(snap)
	audited := auditedRevision(snap)
	var res []auditCheck
	covered := map[string]bool{}
	done := map[string]bool{}
	add := func(c auditCheck, wantPresent bool, cds map[string]bool) {
		k := c.code + "|" + c.ref + "|" + c.ns + "|" + c.cluster
		if done[k] {
			return
		}
		done[k] = true
		has := cds[c.cluster]
		c.istiodAgrees = has == wantPresent
		switch {
		case has && c.istiodAgrees:
			c.detail = "has " + c.cluster
		case has:
			c.detail = "HAS " + c.cluster
		case c.istiodAgrees:
			c.detail = "lacks " + c.cluster
		default:
			c.detail = "LACKS " + c.cluster
		}
		res = append(res, c)
	}
	for _, ns := range checks.ClientNamespaces(v.snap) {
		cds, ok := out.sidecars[ns]
		if !ok {
			continue // built by another revision's run
		}
		if r := nsRevision(v.snap, ns); r != audited {
			unchecked["client namespace of revision "+r+" (audit judges "+audited+")"]++
			continue
		}
		for _, vs := range v.snap.VirtualServices {
			if len(vs.Spec.Hosts) == 0 || !slices.Contains(rules.VSGateways(vs), rules.MeshGateway) {
				continue
			}
			if !rules.VirtualServiceVisible(vs.Namespace, rules.EffectiveExportTo(vs.Spec.ExportTo, v.vsExport), ns) {
				continue
			}
			dests, _ := rules.MergedRoutes(vs, v.snap.VirtualServices, v.vsExport)
			for _, d := range dests {
				if d.Subset == "" || !meshRoute(d) {
					continue
				}
				h := strings.ToLower(d.Host)
				services := rules.ServicesForHost(v.snap.ServiceEntries, v.snap.Services, h, v.svcOpt)
				if len(services) == 0 {
					unchecked["subset route to an unknown host"]++
					continue
				}
				chosen, _ := rules.ServiceForProxy(services, ns)
				if chosen == nil {
					unchecked["subset route to a host not exported to the client namespace"]++
					continue
				}
				port := d.Port
				if port == 0 {
					if len(chosen.Ports) != 1 {
						unchecked["subset route without port to a multi-port service"]++
						continue
					}
					port = chosen.Ports[0].Number
				}
				if !slices.ContainsFunc(chosen.Ports, func(p rules.ServicePort) bool { return p.Number == port }) {
					unchecked["subset route to a port the service does not declare"]++
					continue
				}
				cluster := fmt.Sprintf("outbound|%d|%s|%s", port, d.Subset, h)
				if f := subsetFinding(rep, ns, d, h); f == nil && !l4RouteHeld(v, d, ns) {
					// a tls or tcp route applies only on the filter chains of the services the
					// sidecar holds (on the ports its matches name): where it holds none of the
					// route's hosts so, no chain takes the route and its subset cluster is
					// never used (istiod tls.go buildSidecarOutboundTLSFilterChainOpts)
					unchecked["no subset finding, tls/tcp route on no filter chain of the namespace"]++
					continue
				}
				if f := subsetFinding(rep, ns, d, h); f != nil {
					covered[f.Code+" "+f.Ref()+" "+ns] = true
					add(auditCheck{code: f.Code, ref: f.Ref(), ns: ns, filter: filter, scope: scope, cluster: cluster}, false, cds)
					continue
				}
				if dnsKind(chosen) {
					// DNS subset clusters also depend on endpoint labels, which the audit does not judge.
					unchecked["no finding, DNS entry (subset cluster depends on endpoints)"]++
					continue
				}
				ref := "VirtualService " + d.Declared.Namespace + "/" + d.Declared.Name
				if !sidecarImportsVS(v, ns, vs) {
					unchecked[uncheckedNarrowingSidecar]++
					continue
				}
				if !sidecarKeepsPort(v, ns, port) {
					unchecked[uncheckedPortedSidecar]++
					continue
				}
				add(auditCheck{code: auditSubsetVisible, ref: ref, ns: ns, filter: filter, scope: scope, cluster: cluster}, true, cds)
			}
		}
	}
	// Findings no client route covers (gateway contexts): a sidecar in the namespace lacks the
	// cluster the Impact names.
	for _, f := range rep.Findings {
		if f.Code != checks.AuditDRNotOnLookupPath && f.Code != checks.AuditSubsetUndefined && f.Code != checks.AuditDRNotExportedToClient {
			continue
		}
		for _, ns := range f.MissingIn {
			cds, ok := out.sidecars[ns]
			if !ok || covered[f.Code+" "+f.Ref()+" "+ns] {
				continue
			}
			if r := nsRevision(v.snap, ns); r != audited {
				unchecked["namespace of revision "+r]++
				continue
			}
			m := neverBuiltRE.FindStringSubmatch(f.Impact)
			if m == nil {
				unchecked["finding without a cluster in its impact"]++
				continue
			}
			cluster := m[1]
			if port, sub, host, ok := parseCluster(cluster); ok && port == 0 {
				chosen, _ := rules.ServiceForProxy(rules.ServicesForHost(v.snap.ServiceEntries, v.snap.Services, host, v.svcOpt), ns)
				if chosen == nil || len(chosen.Ports) != 1 {
					unchecked["finding for a route without port"]++
					continue
				}
				cluster = fmt.Sprintf("outbound|%d|%s|%s", chosen.Ports[0].Number, sub, host)
			}
			add(auditCheck{code: f.Code, ref: f.Ref(), ns: ns, filter: filter, scope: scope, cluster: cluster}, false, cds)
		}
	}
	return res
}

// compareSEExported is the converse of SE_NOT_EXPORTED_TO_GATEWAY_NAMESPACE: for every
// ServiceEntry the audit says a gateway namespace needs (AuditResource.NeededIn: a
// VirtualService bound to a gateway there routes to it) without reporting it as not exported
// there, every compared gateway workload of that namespace has outbound|<port>||<host> for
// every host and (non-UDP) port of the entry, with PILOT_FILTER_GATEWAY_CLUSTER_CONFIG off
// (with the flag on, presence also depends on bindings, which the cluster comparison covers).
func compareSEExported(sc *scenario, snap *snapshot.Snapshot, rep *checks.AuditReport, proxies []proxySpec, out *istiodOut, filter, scope bool, unchecked map[string]int) []auditCheck {
	if filter {
		return nil
	}
	v := newAuditView(snap)
	audited := auditedRevision(snap)
	var res []auditCheck
	for _, r := range rep.Resources {
		if r.Kind != "ServiceEntry" {
			continue
		}
		var se *networkingv1.ServiceEntry
		for _, x := range v.snap.ServiceEntries {
			if x.Namespace == r.Namespace && x.Name == r.Name {
				se = x
			}
		}
		if se == nil {
			continue
		}
		for _, ns := range r.NeededIn {
			var gws []proxySpec
			for _, p := range proxies {
				if p.ns == ns && out.cds[p.ref] != nil {
					gws = append(gws, p)
				}
			}
			if len(gws) == 0 {
				continue
			}
			// The audit reports a host no entry exports to the namespace once, on the host's
			// first entry: a finding on any entry for one of the hosts covers them all.
			reported := false
			for _, f := range rep.Findings {
				if f.Code != checks.AuditSENotExportedToGateway || !slices.Contains(f.MissingIn, ns) {
					continue
				}
				ns, name := f.Namespace, f.Name
				if f.Entry != "" {
					// a finding on the mesh ConfigMap about the entry (serviceEntryVisibility)
					ns, name, _ = strings.Cut(f.Entry, "/")
				}
				for _, x := range v.snap.ServiceEntries {
					if x.Namespace == ns && x.Name == name && sharesHost(x, se) {
						reported = true
					}
				}
			}
			if reported {
				continue // the finding direction (compareAudit)
			}
			res1 := se.Spec.GetResolution().String()
			if se.Spec.WorkloadSelector != nil && (res1 == "DNS" || res1 == "DNS_ROUND_ROBIN") {
				unchecked["no SE finding, DNS entry with workloadSelector (clusters depend on endpoints)"]++
				continue
			}
			var clusters []string
			skip := ""
			for _, h := range se.Spec.Hosts {
				h = rules.NormalizeHost(h)
				chosen, _ := rules.ServiceForProxy(rules.ServicesForHost(v.snap.ServiceEntries, v.snap.Services, h, v.svcOpt), ns)
				if chosen != nil && (chosen.Kind != rules.KindServiceEntry || chosen.Namespace != se.Namespace || chosen.Name != se.Name) {
					skip = "no SE finding, another entry chosen for the host in the namespace"
					break
				}
				ports := []uint32{}
				if chosen != nil {
					for _, p := range chosen.Ports {
						if !strings.EqualFold(p.Protocol, "UDP") {
							ports = append(ports, p.Number)
						}
					}
				} else {
					for _, p := range se.Spec.Ports {
						if !strings.EqualFold(p.GetProtocol(), "UDP") {
							ports = append(ports, p.GetNumber())
						}
					}
				}
				for _, p := range ports {
					clusters = append(clusters, "outbound|"+strconv.FormatUint(uint64(p), 10)+"||"+h)
				}
			}
			if skip != "" {
				unchecked[skip]++
				continue
			}
			for _, p := range gws {
				if p.rev != audited {
					unchecked["gateway of revision "+p.rev+" (audit judges "+audited+")"]++
					continue
				}
				role := ""
				if sc.ProxyRole != nil {
					role = sc.ProxyRole[p.ref]
				}
				var missing []string
				for _, n := range clusters {
					if !out.cds[p.ref][n] {
						missing = append(missing, n)
					}
				}
				c := auditCheck{code: auditSEExported, ref: "ServiceEntry " + se.Namespace + "/" + se.Name, ns: ns, gateway: p.ref, role: role,
					filter: filter, scope: scope, istiodAgrees: len(missing) == 0}
				if c.istiodAgrees {
					c.detail = "has " + strings.Join(clusters, ", ")
				} else {
					c.detail = "LACKS " + strings.Join(missing, ", ")
				}
				res = append(res, c)
			}
		}
	}
	return res
}

func sharesHost(a, b *networkingv1.ServiceEntry) bool {
	for _, x := range a.Spec.Hosts {
		for _, y := range b.Spec.Hosts {
			if rules.NormalizeHost(x) == rules.NormalizeHost(y) {
				return true
			}
		}
	}
	return false
}

// uncheckedNarrowingSidecar: the export audit judges a client namespace by exportTo alone; a
// Sidecar resource decides which VirtualServices its proxies import (egress hosts matched
// against the VirtualService's namespace and hosts: pilot/pkg/model/sidecar.go
// convertIstioListenerToWrapper → SelectVirtualServices), and only imported VirtualServices
// bring their destinations' subset clusters (collectImportedServices). The audit does not model
// Sidecar egress hosts (seed 7: gen-0061, gen-0685, listener.sidecar omit-se-ns: the
// VirtualService app/api-route is not imported by Sidecar team-a/default, so the sidecar lacks
// its subset cluster although no finding names team-a). The converse check is skipped for such
// routes; findings (the sidecar lacks the cluster) stay checked, a Sidecar only removes.
const uncheckedNarrowingSidecar = "no subset finding, route's VirtualService not imported by the namespace's Sidecar resource (the audit does not model Sidecar egress hosts)"

// sidecarImportsVS reports whether the sidecar of the synthesised client pod in ns imports vs:
// no Sidecar resource applies (rules.SelectSidecar), or one of its egress listeners selects it
// (rules.EgressListener.SelectVirtualServices).
// uncheckedPortedSidecar: the namespace's Sidecar has egress listeners with ports, none of them
// the route's port: istiod keeps only a listener's port of the services it imports
// (pilot/pkg/model/sidecar.go serviceMatchingListenerPort), so the sidecar lacks the subset
// cluster for another reason than exportTo (path.sidecar ported-call: the trace, explain-listener
// and why-missing --from name the Sidecar; the audit judges exportTo only).
const uncheckedPortedSidecar = "no subset finding, the namespace's Sidecar egress listeners have ports and none is the route's (the audit judges exportTo only)"

// sidecarKeepsPort: the Sidecar of ns (if any) keeps port of the services it imports: it has an
// egress listener without a port, or one on port.
func sidecarKeepsPort(v auditView, ns string, port uint32) bool {
	sc := rules.SelectSidecar(v.snap.Sidecars, v.snap.IstioNamespace, ns, map[string]string{"app": "conformance-client"})
	if sc == nil || len(sc.Spec.GetEgress()) == 0 {
		return true
	}
	for _, e := range sc.Spec.GetEgress() {
		if n := e.GetPort().GetNumber(); n == 0 || n == port {
			return true
		}
	}
	return false
}

func sidecarImportsVS(v auditView, ns string, vs *networkingv1.VirtualService) bool {
	sc := rules.SelectSidecar(v.snap.Sidecars, v.snap.IstioNamespace, ns, map[string]string{"app": "conformance-client"})
	if sc == nil {
		return true
	}
	for _, l := range rules.NewSidecarScope(sc, "").Egress {
		if slices.Contains(l.SelectVirtualServices(v.snap.VirtualServices, ns, v.vsExport), vs) {
			return true
		}
	}
	return false
}

// l4RouteHeld: route destination d is http, or a tls/tcp route some filter chain of namespace
// ns's sidecars takes: the namespace holds a service for one of its VirtualService's hosts
// (a wildcard counts) declaring a port one of its sidecar matches names (any, without one).
func l4RouteHeld(v auditView, d rules.Dest, ns string) bool {
	if d.TLS == nil && d.TCP == nil || d.Root == nil {
		return true
	}
	ports := map[uint32]bool{}
	any := false
	var gws [][]string
	for _, m := range d.TLS.GetMatch() {
		gws = append(gws, m.GetGateways())
		if m.GetPort() == 0 {
			any = true
		}
		ports[m.GetPort()] = true
	}
	for _, m := range d.TCP.GetMatch() {
		gws = append(gws, m.GetGateways())
		if m.GetPort() == 0 {
			any = true
		}
		ports[m.GetPort()] = true
	}
	if len(gws) == 0 {
		any = true
	}
	for _, h := range d.Root.Spec.GetHosts() {
		h = strings.ToLower(rules.ResolveShortname(h, d.Root.Namespace))
		if strings.HasPrefix(h, "*") {
			return true
		}
		chosen, _ := rules.ServiceForProxy(rules.ServicesForHost(v.snap.ServiceEntries, v.snap.Services, h, v.svcOpt), ns)
		if chosen == nil {
			continue
		}
		if any {
			return true
		}
		for _, p := range chosen.Ports {
			if ports[p.Number] {
				return true
			}
		}
	}
	return false
}
