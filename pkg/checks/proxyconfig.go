package checks

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/kubectl-egress/kubectl-egress/pkg/envoy"
	"github.com/kubectl-egress/kubectl-egress/pkg/model"
	"github.com/kubectl-egress/kubectl-egress/pkg/rules"
	"github.com/kubectl-egress/kubectl-egress/pkg/snapshot"
)

// ProxyConfigSchemaVersion is the schema of `kubectl egress proxy-config -o json|yaml`.
const ProxyConfigSchemaVersion = "kubectl-egress.io/proxy-config/v1"

// Proxy-config sections.
const (
	SectionClusters  = "clusters"
	SectionListeners = "listeners"
	SectionRoutes    = "routes"
)

// ProxyConfigOptions name one proxy (exactly one of From, Pod, Gateway, as for
// explain-listener) and the sections wanted (nil: all).
type ProxyConfigOptions struct {
	From, Pod, Gateway string
	Sections           []string
}

// ProxyConfigReport is the predicted outbound configuration of one proxy: what `istioctl
// proxy-config clusters|listeners|routes` would show for its outbound side.
type ProxyConfigReport struct {
	SchemaVersion string    `json:"schemaVersion"`
	Source        string    `json:"source"`
	Proxy         ProxyInfo `json:"proxy"`
	// Sections lists the sections predicted (clusters, listeners, routes); a section not
	// listed was not asked for, one listed with no entries is empty.
	Sections []string `json:"sections"`
	// Clusters, Listeners and Routes: [] for a section asked for and empty, null for one not
	// asked for (blind audit 72 1.25: an empty section was left out).
	Clusters  []Cluster           `json:"clusters"`
	Listeners []ListenerView      `json:"listeners"`
	Routes    []rules.RouteConfig `json:"routes"`
	Notes     []string            `json:"notes,omitempty"`
	// Diff is the comparison with the proxy's actual configuration (--diff).
	Diff *ProxyConfigDiff `json:"diff,omitempty"`
}

func (r *ProxyConfigReport) wants(opt ProxyConfigOptions, section string) bool {
	return len(opt.Sections) == 0 || slices.Contains(opt.Sections, section)
}

// ProxyConfig predicts the outbound clusters (CDS), listeners with their filter chains (LDS) and
// route configurations (RDS) of one proxy. A sidecar's come from its sidecar scope
// (BuildSidecarView: the services and VirtualServices it imports); a gateway's clusters are the
// ones why-missing predicts for every host visible in its namespace, its listeners and routes
// those of its Gateway servers (explain-listener for each server port). Envoy's static and
// inbound configuration (virtualOutbound, virtualInbound, admin, BlackHoleCluster,
// PassthroughCluster, inbound clusters) is not predicted.
//
// Mirrors istiod pilot/pkg/networking/core (ConfigGenerator BuildClusters, BuildListeners,
// BuildHTTPRoutes) for the outbound side, through the rules each command already uses.
func ProxyConfig(snap *snapshot.Snapshot, opt ProxyConfigOptions) (*ProxyConfigReport, error) {
	n := 0
	for _, s := range []string{opt.From, opt.Pod, opt.Gateway} {
		if s != "" {
			n++
		}
	}
	if n != 1 {
		return nil, fmt.Errorf("name exactly one proxy: --from NAMESPACE, --pod NAMESPACE/NAME or --gateway NAMESPACE/NAME")
	}
	rep := &ProxyConfigReport{SchemaVersion: ProxyConfigSchemaVersion, Source: snap.Source}
	for _, s := range []string{SectionClusters, SectionListeners, SectionRoutes} {
		if rep.wants(opt, s) {
			rep.Sections = append(rep.Sections, s)
		}
	}
	if opt.Gateway != "" {
		if g := WaypointGateway(snap, opt.Gateway); g != nil {
			waypointConfig(snap, g, opt, rep)
			rep.emptySections()
			return rep, nil
		}
		w, err := FindWorkload(snap, opt.Gateway)
		if err != nil {
			return nil, err
		}
		gatewayConfig(snap, w, opt, rep)
		rep.Notes = append(rep.Notes, gatewayAPINotes(snap)...)
		rep.danglingNotes()
		rep.emptySections()
		return rep, nil
	}
	ns, labels, workload, err := sidecarProxy(snap, opt.From, opt.Pod)
	if err != nil {
		return nil, err
	}
	sidecarConfig(snap, ns, labels, workload, opt, rep)
	rep.Notes = append(rep.Notes, gatewayAPINotes(snap)...)
	rep.danglingNotes()
	rep.emptySections()
	return rep, nil
}

// danglingNotes: a note for each outbound cluster a listener or route sends to that the proxy
// gets no cluster for (predicted with every section): the requests or connections it takes fail
// with 503 NC there (blind audit 72 1.23: the failure of several cases, shown nowhere).
func (r *ProxyConfigReport) danglingNotes() {
	if len(r.Sections) != 3 {
		return
	}
	have := map[string]bool{}
	for _, c := range r.Clusters {
		if c.Present {
			have[c.Name] = true
		}
	}
	seen := map[string]bool{}
	note := func(cluster, where, fails string) {
		if !strings.HasPrefix(cluster, "outbound|") || have[cluster] || seen[cluster+where] {
			return
		}
		seen[cluster+where] = true
		r.Notes = append(r.Notes, fmt.Sprintf("%s sends to %s, which this proxy gets no cluster for: %s; `kubectl egress why-missing` on the host says why", where, cluster, fails))
	}
	const closed = "the connections it takes are closed (response flag NC)"
	const answered = "the requests it takes get 503 NC (500 from a route of the Gateway API)"
	for _, l := range r.Listeners {
		for _, c := range l.Chains {
			if d, ok := strings.CutPrefix(c.Destination, "Cluster: "); ok {
				note(d, "listener "+l.Name, closed)
			}
		}
	}
	for _, rc := range r.Routes {
		for _, vh := range rc.VirtualHosts {
			for _, rt := range vh.Routes {
				if rt.DirectResponse != 0 {
					continue
				}
				where := fmt.Sprintf("route configuration %s (virtual host %s)", rc.Name, vh.Name)
				note(rt.Cluster, where, answered)
				for _, w := range rt.Weighted {
					note(w, where, answered)
				}
			}
		}
	}
}

// emptySections makes every section asked for a list, empty when nothing is predicted.
func (r *ProxyConfigReport) emptySections() {
	for _, s := range r.Sections {
		switch {
		case s == SectionClusters && r.Clusters == nil:
			r.Clusters = []Cluster{}
		case s == SectionListeners && r.Listeners == nil:
			r.Listeners = []ListenerView{}
		case s == SectionRoutes && r.Routes == nil:
			r.Routes = []rules.RouteConfig{}
		}
	}
}

// sentRoutes is rc without the routes istiod does not send (those after a catch-all route of
// their VirtualService: rules.RouteAction.Unsent), as the proxy holds it.
func sentRoutes(rc rules.RouteConfig) rules.RouteConfig {
	out := rules.RouteConfig{Name: rc.Name}
	for _, vh := range rc.VirtualHosts {
		if slices.ContainsFunc(vh.Routes, func(r rules.RouteAction) bool { return r.Unsent }) {
			vh.Routes = slices.DeleteFunc(slices.Clone(vh.Routes), func(r rules.RouteAction) bool { return r.Unsent })
		}
		out.VirtualHosts = append(out.VirtualHosts, vh)
	}
	return out
}

// SidecarProxyConfig is ProxyConfig for the sidecar of a pod in ns with the given labels (nil:
// unknown, as --from), every section.
func SidecarProxyConfig(snap *snapshot.Snapshot, ns string, labels map[string]string) *ProxyConfigReport {
	rep := &ProxyConfigReport{SchemaVersion: ProxyConfigSchemaVersion, Source: snap.Source, Sections: []string{SectionClusters, SectionListeners, SectionRoutes}}
	sidecarConfig(snap, ns, labels, "", ProxyConfigOptions{}, rep)
	return rep
}

// sidecarProxy resolves --from NS or --pod NS/NAME to the proxy's namespace, pod labels (nil
// for --from) and workload name.
func sidecarProxy(snap *snapshot.Snapshot, from, pod string) (ns string, labels map[string]string, workload string, err error) {
	if pod == "" {
		return from, nil, "", nil
	}
	pns, name, ok := strings.Cut(pod, "/")
	if !ok || pns == "" || name == "" {
		return "", nil, "", fmt.Errorf("--pod %q: want NAMESPACE/NAME", pod)
	}
	for _, p := range snap.Pods {
		if p.Namespace == pns && p.Name == name {
			return pns, p.Labels, pod, nil
		}
	}
	if why, ok := snap.Unknown[snapshot.KindPod]; ok {
		return "", nil, "", fmt.Errorf("pod %s: pods could not be read (%s)", pod, why)
	}
	return "", nil, "", podNotFound(snap, pod)
}

// podAnnotations returns the annotations of pod "namespace/name" ("" or not found: nil).
func podAnnotations(snap *snapshot.Snapshot, pod string) map[string]string {
	ns, name, ok := strings.Cut(pod, "/")
	if !ok {
		return nil
	}
	for _, p := range snap.Pods {
		if p.Namespace == ns && p.Name == name {
			return p.Annotations
		}
	}
	return nil
}

func sidecarConfig(snap *snapshot.Snapshot, ns string, labels map[string]string, workload string, opt ProxyConfigOptions, rep *ProxyConfigReport) {
	v := BuildSidecarViewFor(snap, ns, labels, podAnnotations(snap, workload))
	out := v.Outbound
	rep.Proxy = ProxyInfo{Type: "SIDECAR", Namespace: ns, Workload: workload, Revision: v.Revision, Sidecar: v.Scope.Ref(),
		OutboundTrafficPolicy: v.Scope.OutboundTrafficPolicy, PolicyFrom: v.Scope.PolicyFrom}
	if labels == nil {
		rep.Notes = append(rep.Notes, "pod labels unknown (--from): Sidecars and routes with workload selectors or sourceLabels are matched as for a pod they do not select; use --pod for an exact answer")
	}
	if amb, why := ambientClientFor(snap, ns, labels, podAnnotations(snap, workload)); amb {
		rep.Notes = append(rep.Notes, "ambient workloads: "+why+"; ztunnel carries their calls, so no proxy holds this configuration: it is what a sidecar there would get (`kubectl egress why-missing HOST --from "+ns+"` traces an ambient call)")
	}
	rep.Notes = append(rep.Notes, v.DNSNote())
	var rds []string
	for _, l := range out.Listeners {
		lv := ListenerView{Name: l.Name, Port: l.Port, Raw: l}
		for _, c := range l.Chains {
			lv.Chains = append(lv.Chains, chainView(c, false))
			if c.RDS != "" && !slices.Contains(rds, c.RDS) {
				rds = append(rds, c.RDS)
			}
		}
		if l.Default != nil {
			lv.Chains = append(lv.Chains, chainView(*l.Default, true))
			if c := l.Default; c.RDS != "" && !slices.Contains(rds, c.RDS) {
				rds = append(rds, c.RDS)
			}
		}
		if rep.wants(opt, SectionListeners) {
			rep.Listeners = append(rep.Listeners, lv)
		}
	}
	if rep.wants(opt, SectionRoutes) {
		for _, name := range rds {
			if rc := out.Route(name); rc != nil {
				rep.Routes = append(rep.Routes, sentRoutes(*rc))
			}
		}
	}
	if rep.wants(opt, SectionClusters) {
		rep.Clusters = sidecarCDS(snap, v)
	}
}

// sidecarCDS lists the outbound clusters istiod builds for a sidecar: for every service of its
// sidecar scope and every port (not UDP), outbound|<port>||<host> and one cluster per subset of
// the DestinationRule the proxy applies to the host; a DNS cluster (or subset) without endpoints
// is not built; an ExternalName Service builds none.
//
// Mirrors istiod pilot/pkg/networking/core/cluster.go buildOutboundClusters (services of the
// sidecar scope, UDP skipped), cluster_builder.go buildCluster (DNS clusters without endpoints
// skipped) and buildSubsetCluster.
func sidecarCDS(snap *snapshot.Snapshot, v SidecarView) []Cluster {
	view := RevisionView(snap, v.Revision)
	mc := v.Flags.MeshConfig
	root := mc.GetRootNamespace()
	if root == "" {
		root = snap.IstioNamespace
	}
	drs := model.DestinationRules(view, root, mc.GetDefaultDestinationRuleExportTo())
	reg := model.Services(view, mc)
	var out []Cluster
	for _, s := range v.Outbound.ScopeServices() {
		dr := drs.For(v.Namespace, v.Labels, s.Hostname, s.Namespace)
		for _, p := range s.Ports {
			if c := sidecarCluster(snap, v, drs, reg, s.Hostname, p.Number, ""); c.Present {
				out = append(out, c)
			}
			if dr == nil {
				continue
			}
			for _, sub := range dr.Subsets {
				if c := sidecarCluster(snap, v, drs, reg, s.Hostname, p.Number, sub); c.Present {
					c.Needed = false
					out = append(out, c)
				}
			}
		}
	}
	sortClusters(out)
	return out
}

// hostEndpoints returns the label sets of the endpoints a DNS cluster of s on port gets: the
// endpoints of every entry for the host name in the service's namespace that declares the port.
//
// Mirrors istiod pilot/pkg/model/push_context.go ServiceEndpointsByPort (instances are indexed by
// host name and namespace, ServiceIndex.instancesByPort) with serviceentry/conversion.go
// convertServiceEntryToInstances.
func hostEndpoints(snap *snapshot.Snapshot, reg *model.Registry, s rules.Service, port uint32) []map[string]string {
	var out []map[string]string
	for _, e := range reg.Shared(s.Hostname) {
		if e.Namespace != s.Namespace || e.Kind != s.Kind || !hasPort(e, port) {
			continue
		}
		out = append(out, rules.DNSEndpointLabels(e, selectedWorkloads(snap, e))...)
	}
	return out
}

func sortClusters(cs []Cluster) {
	sort.SliceStable(cs, func(i, j int) bool {
		a, b := cs[i], cs[j]
		if a.FQDN != b.FQDN {
			return a.FQDN < b.FQDN
		}
		if a.Port != b.Port {
			return a.Port < b.Port
		}
		return a.Subset < b.Subset
	})
}

func gatewayConfig(snap *snapshot.Snapshot, w Workload, opt ProxyConfigOptions, rep *ProxyConfigReport) {
	view := RevisionView(snap, w.Revision)
	flags := ReadIstiodFlags(view, w.Revision)
	rep.Proxy = ProxyInfo{Type: "ROUTER", Namespace: w.Namespace, Workload: w.Ref(), Revision: w.Revision}
	if !flags.FilterGW.Known {
		rep.Notes = append(rep.Notes, fmt.Sprintf("%s is unknown (%s): clusters are predicted with istiod's default, false; --filter-gateway-clusters=true shows the other list", EnvFilterGatewayClusterConfig, flags.FilterGW.Why))
	}
	if rep.wants(opt, SectionListeners) || rep.wants(opt, SectionRoutes) {
		var ports []uint32
		for _, ms := range rules.MergeGatewayServers(gatewaysFor(view, w, flags.ScopeGWToNs.Value), gatewayTargetPorts(snap, w)) {
			if p := ms.Port; p != 0 && ms.Dropped != rules.DropNoServicePort && !slices.Contains(ports, p) {
				ports = append(ports, p)
			}
		}
		slices.Sort(ports)
		seenL, seenR := map[string]bool{}, map[string]bool{}
		for _, p := range ports {
			lr, err := ExplainListener(snap, ExplainListenerOptions{Gateway: w.Ref(), Port: p})
			if err != nil {
				rep.Notes = append(rep.Notes, fmt.Sprintf("port %d: %v", p, err))
				continue
			}
			for _, f := range lr.Findings {
				if f.Code == GatewayPrivilegedPort && !slices.Contains(rep.Notes, f.Message) {
					// istiod builds no listener there: say why the port is missing
					rep.Notes = append(rep.Notes, f.Message)
				}
			}
			for _, l := range lr.Listeners {
				if !seenL[l.Name] && len(l.Chains) > 0 && rep.wants(opt, SectionListeners) {
					seenL[l.Name] = true
					rep.Listeners = append(rep.Listeners, l)
				}
			}
			for _, rc := range lr.Routes {
				if !seenR[rc.Name] && rep.wants(opt, SectionRoutes) {
					seenR[rc.Name] = true
					rep.Routes = append(rep.Routes, rc)
				}
			}
		}
	}
	if rep.wants(opt, SectionClusters) {
		rep.Clusters = gatewayCDS(snap, w)
	}
}

// gatewayCDS lists the outbound clusters istiod builds for a gateway: why-missing's prediction
// (exportTo to the gateway's namespace, PILOT_FILTER_GATEWAY_CLUSTER_CONFIG, DNS endpoints,
// DestinationRule subsets) for every host name visible in the gateway's namespace.
//
// Mirrors istiod pilot/pkg/model/sidecar.go DefaultSidecarScopeForGateway and
// pilot/pkg/networking/core/cluster.go buildOutboundClusters for ROUTER proxies.
func gatewayCDS(snap *snapshot.Snapshot, w Workload) []Cluster {
	view := RevisionView(snap, w.Revision)
	flags := ReadIstiodFlags(view, w.Revision)
	reg := model.Services(view, flags.MeshConfig)
	var hosts []string
	seen := map[string]bool{}
	for _, s := range reg.ExportedTo(w.Namespace) {
		if !seen[s.Hostname] {
			seen[s.Hostname] = true
			hosts = append(hosts, s.Hostname)
		}
	}
	sort.Strings(hosts)
	var out []Cluster
	for _, h := range hosts {
		r, err := WhyMissing(snap, WhyMissingOptions{Host: h, Gateway: w.Ref()})
		if err != nil || len(r.Gateways) == 0 {
			continue
		}
		for _, c := range r.Gateways[0].Clusters {
			if c.Present {
				c.Needed, c.Reason = true, ""
				out = append(out, c)
			}
		}
	}
	sortClusters(out)
	return out
}

// ProxyConfigDiff compares a prediction with the proxy's actual configuration.
type ProxyConfigDiff struct {
	// Source says where the actual configuration came from.
	Source string `json:"source"`
	// Differences lists every resource that is missing from the proxy, extra in it, or
	// different; empty when both agree on every section compared.
	Differences []ResourceDiff `json:"differences"`
	// Compared counts the resources compared per section.
	Compared map[string]int `json:"compared"`
}

// ResourceDiff is one resource that differs.
type ResourceDiff struct {
	Section string `json:"section"` // clusters, listeners or routes
	Name    string `json:"name"`
	// State is MISSING (predicted, not in the proxy), EXTRA (in the proxy, not predicted) or
	// DIFFERENT.
	State  string `json:"state"`
	Detail string `json:"detail,omitempty"`
}

// Diff states.
const (
	DiffMissing   = "MISSING"
	DiffExtra     = "EXTRA"
	DiffDifferent = "DIFFERENT"
)

// staticListener reports whether a dump listener is one of Envoy's static or inbound ones,
// which the prediction leaves out.
func staticListener(name string, port uint32) bool {
	switch {
	case name == "virtualOutbound" || name == "virtualInbound":
		return true
	case strings.HasPrefix(name, "0.0.0.0_") && (port == 15001 || port == 15006 || port == 15021 || port == 15090 || port == 15000):
		return true
	}
	return port >= 15000 && port <= 15099
}

// DiffProxyConfig compares the report's predicted sections with a config dump: outbound
// clusters by name and type; listeners by name and their filter chain destinations; route
// configurations by name and their virtual hosts' domains. Static and inbound resources of
// the dump are left out. The result is stored in rep.Diff and returned.
func DiffProxyConfig(rep *ProxyConfigReport, d *envoy.Dump, source string, sections []string) *ProxyConfigDiff {
	want := func(s string) bool { return len(sections) == 0 || slices.Contains(sections, s) }
	diff := &ProxyConfigDiff{Source: source, Differences: []ResourceDiff{}, Compared: map[string]int{}}
	for _, s := range []string{SectionClusters, SectionListeners, SectionRoutes} {
		if want(s) {
			diff.Compared[s] = 0
		}
	}
	add := func(section, name, state, detail string) {
		diff.Differences = append(diff.Differences, ResourceDiff{Section: section, Name: name, State: state, Detail: detail})
	}
	if want(SectionClusters) {
		actual := map[string]envoy.Cluster{}
		waypoint := rep.Proxy.Type == "WAYPOINT"
		for _, c := range d.Clusters {
			// a waypoint's prediction holds its inbound-vip and internal clusters too
			if strings.HasPrefix(c.Name, "outbound|") || waypoint && (strings.HasPrefix(c.Name, "inbound-vip|") ||
				c.Name == WaypointMainInternal || c.Name == WaypointEncap || c.Name == WaypointConnectOriginate) {
				actual[c.Name] = c
			}
		}
		predicted := map[string]bool{}
		for _, c := range rep.Clusters {
			predicted[c.Name] = true
			diff.Compared[SectionClusters]++
			a, ok := actual[c.Name]
			switch {
			case !ok:
				add(SectionClusters, c.Name, DiffMissing, "predicted "+c.Type)
			case a.Warming:
				// (blind audit 72 2.9: a warming cluster counted as present)
				add(SectionClusters, c.Name, DiffDifferent, "warming: Envoy has not finished initialising it (no endpoints yet, or DNS not resolved), so it does not serve requests")
			case a.Type != "" && c.Type != "" && !sameClusterType(a.Type, c.Type):
				add(SectionClusters, c.Name, DiffDifferent, fmt.Sprintf("type: predicted %s, proxy %s", c.Type, a.Type))
			}
		}
		for _, n := range sortedKeysOf(actual) {
			if !predicted[n] {
				add(SectionClusters, n, DiffExtra, actual[n].Type)
			}
		}
	}
	clusterIPs := map[string]string{} // "<clusterIP of ns/name>" -> the proxy's address for it
	if rep.Proxy.Type == "WAYPOINT" {
		diffWaypointListeners(rep, d, diff, want(SectionListeners), add)
		return diff
	}
	if want(SectionListeners) {
		// Static and inbound listeners are only left out when nothing predicted has their name:
		// a Service port in Envoy's range (a gateway Service's status port 15021) gives sidecars
		// an outbound listener "<VIP>_15021".
		actual := map[string]envoy.Listener{}
		for _, l := range d.Listeners {
			actual[l.Name] = l
		}
		predicted := map[string]bool{}
		for _, l := range rep.Listeners {
			if len(l.Chains) > 0 {
				predicted[l.Name] = true
			}
		}
		for _, l := range rep.Listeners {
			if len(l.Chains) == 0 {
				continue
			}
			diff.Compared[SectionListeners]++
			a, ok := actual[l.Name]
			if !ok && strings.HasPrefix(l.Name, "<clusterIP of ") {
				// a Service without a cluster IP in the input: its listener is the proxy's
				// listener on the same port, not predicted by name, with the same chains
				// (blind audit 72 2.8: every offline diff of a sidecar reported it)
				if name, found := placeholderListener(l, actual, predicted); found {
					predicted[name] = true
					placeholder := strings.TrimSuffix(l.Name, fmt.Sprintf("_%d", l.Port))
					if ip := strings.TrimSuffix(name, fmt.Sprintf("_%d", l.Port)); ip != name {
						clusterIPs[placeholder] = ip
					}
					a, ok = actual[name], true
				}
			}
			if !ok {
				detail := fmt.Sprintf("%d filter chain(s) predicted", len(l.Chains))
				if why, rejected := d.RejectedListeners[l.Name]; rejected {
					// (blind audit 72 2.9: the reason in the dump was not shown)
					detail += "; Envoy rejected it: " + why
				}
				add(SectionListeners, l.Name, DiffMissing, detail)
				continue
			}
			var pd, ad []string
			for _, c := range l.Chains {
				d := strings.TrimPrefix(c.Destination, "Cluster: ")
				if len(c.Weighted) > 0 {
					// a tcp_proxy splitting the connections (weighted_clusters), written as the
					// actual side writes it
					d = "Clusters: " + strings.Join(c.Weighted, ",")
				}
				pd = append(pd, d+chainSNI(c.SNI, len(c.SNI) > 0))
			}
			for _, c := range a.Chains {
				ad = append(ad, chainDestination(c)+chainSNI(c.SNI, len(c.SNI) > 0))
			}
			if missing, extra := setDiff(pd, ad); len(missing)+len(extra) > 0 {
				add(SectionListeners, l.Name, DiffDifferent, describeSetDiff("filter chains", missing, extra))
			}
		}
		for _, n := range sortedKeysOf(actual) {
			if !predicted[n] && !staticListener(n, actual[n].Port) {
				add(SectionListeners, n, DiffExtra, fmt.Sprintf("%d filter chain(s)", len(actual[n].Chains)))
			}
		}
	}
	if want(SectionRoutes) {
		actual := map[string]envoy.RouteConfig{}
		for _, r := range d.Routes {
			actual[r.Name] = r
		}
		predicted := map[string]bool{}
		for _, rc := range rep.Routes {
			predicted[rc.Name] = true
			diff.Compared[SectionRoutes]++
			a, ok := actual[rc.Name]
			if !ok {
				add(SectionRoutes, rc.Name, DiffMissing, fmt.Sprintf("%d virtual host(s) predicted", len(rc.VirtualHosts)))
				continue
			}
			var pd, ad []string
			for _, vh := range rc.VirtualHosts {
				for _, dom := range vh.Domains {
					for ph, ip := range clusterIPs {
						dom = strings.ReplaceAll(dom, ph, ip)
					}
					pd = append(pd, dom)
				}
			}
			for _, vh := range a.VirtualHosts {
				ad = append(ad, vh.Domains...)
			}
			missing, extra := setDiff(pd, ad)
			// the cluster IP of a Service the input gives none for, learnt from its listener:
			// istiod adds it to the Service's virtual host domains (httproute.go
			// generateVirtualHostDomains), which the prediction cannot
			extra = slices.DeleteFunc(extra, func(dom string) bool {
				host, _, _ := strings.Cut(dom, ":")
				for _, ip := range clusterIPs {
					if host == ip {
						return true
					}
				}
				return false
			})
			if len(missing)+len(extra) > 0 {
				add(SectionRoutes, rc.Name, DiffDifferent, describeSetDiff("virtual host domains", missing, extra))
			}
			// the outbound clusters each virtual host's routes send to (blind audit 72 2.4: a
			// route retargeted to another cluster was no difference)
			actualVH := map[string][]string{}
			for _, vh := range a.VirtualHosts {
				actualVH[vh.Name] = outboundOnly(vh.Clusters)
			}
			for _, vh := range rc.VirtualHosts {
				got, ok := actualVH[vh.Name]
				if !ok {
					continue
				}
				var pc []string
				for _, rt := range vh.Routes {
					if rt.DirectResponse != 0 {
						continue
					}
					pc = append(pc, rt.Weighted...)
					if rt.Cluster != "" {
						pc = append(pc, rt.Cluster)
					}
				}
				if missing, extra := setDiff(outboundOnly(pc), got); len(missing)+len(extra) > 0 {
					add(SectionRoutes, rc.Name, DiffDifferent, describeSetDiff("clusters of virtual host "+vh.Name, missing, extra))
				}
			}
		}
		for _, n := range sortedKeysOf(actual) {
			if !predicted[n] && isOutboundRouteName(n) {
				add(SectionRoutes, n, DiffExtra, fmt.Sprintf("%d virtual host(s)", len(actual[n].VirtualHosts)))
			}
		}
	}
	sort.SliceStable(diff.Differences, func(i, j int) bool {
		a, b := diff.Differences[i], diff.Differences[j]
		if a.Section != b.Section {
			return a.Section < b.Section
		}
		return a.Name < b.Name
	})
	rep.Diff = diff
	return diff
}

// outboundOnly: the outbound|… cluster names of cs, sorted, each once.
func outboundOnly(cs []string) []string {
	var out []string
	for _, c := range cs {
		if strings.HasPrefix(c, "outbound|") {
			out = append(out, c)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// placeholderListener: the proxy's listener that predicted listener l stands for when l's
// address is a cluster IP the input does not give: on l's port, not predicted by name, not
// 0.0.0.0, and with the same chain destinations; found false when there is not exactly one.
func placeholderListener(l ListenerView, actual map[string]envoy.Listener, predicted map[string]bool) (string, bool) {
	var want []string
	for _, c := range l.Chains {
		want = append(want, strings.TrimPrefix(c.Destination, "Cluster: "))
	}
	var found []string
	for name, a := range actual {
		if predicted[name] || a.Port != l.Port || strings.HasPrefix(name, "0.0.0.0_") {
			continue
		}
		var got []string
		for _, c := range a.Chains {
			got = append(got, chainDestination(c))
		}
		if missing, extra := setDiff(want, got); len(missing)+len(extra) == 0 {
			found = append(found, name)
		}
	}
	if len(found) != 1 {
		return "", false
	}
	return found[0], true
}

// isOutboundRouteName: a route configuration istiod builds for outbound traffic ("80",
// "host:port", "http.8080", "https.443.name.gw.ns"), not Envoy's inline or inbound ones.
func isOutboundRouteName(n string) bool {
	if n == "" || strings.HasPrefix(n, "inbound|") {
		return false
	}
	return n[0] >= '0' && n[0] <= '9' || strings.HasPrefix(n, "http.") || strings.HasPrefix(n, "https.") || strings.Contains(n, ":")
}

// sameClusterType compares a predicted cluster type with a dump's ("EDS" and "EDS
// (ads)" alike; case and separators ignored; the dynamic forward proxy's custom cluster type
// envoy.clusters.dynamic_forward_proxy is DYNAMIC_FORWARD_PROXY).
func sameClusterType(actual, predicted string) bool {
	norm := func(s string) string {
		if s == "envoy.clusters.dynamic_forward_proxy" { // a custom cluster type's name
			return "DYNAMIC_FORWARD_PROXY"
		}
		s = strings.ToUpper(s)
		s = strings.ReplaceAll(s, "-", "_")
		if i := strings.IndexAny(s, " ("); i > 0 {
			s = s[:i]
		}
		return s
	}
	return norm(actual) == norm(predicted)
}

// chainSNI renders a filter chain's server names for comparison (" [SNI a,b]", "" without).
func chainSNI(sni []string, has bool) string {
	if !has {
		return ""
	}
	s := slices.Clone(sni)
	slices.Sort(s)
	return " [SNI " + strings.Join(slices.Compact(s), ",") + "]"
}

func chainDestination(c envoy.Chain) string {
	switch {
	case c.RDS != "":
		return "Route: " + c.RDS
	case c.Cluster != "":
		return c.Cluster
	}
	return "Non-HTTP/Non-TCP"
}

func setDiff(predicted, actual []string) (missing, extra []string) {
	for _, p := range predicted {
		if !slices.Contains(actual, p) && !slices.Contains(missing, p) {
			missing = append(missing, p)
		}
	}
	for _, a := range actual {
		if !slices.Contains(predicted, a) && !slices.Contains(extra, a) {
			extra = append(extra, a)
		}
	}
	sort.Strings(missing)
	sort.Strings(extra)
	return missing, extra
}

func describeSetDiff(what string, missing, extra []string) string {
	var parts []string
	if len(missing) > 0 {
		parts = append(parts, "predicted only: "+strings.Join(missing, ", "))
	}
	if len(extra) > 0 {
		parts = append(parts, "proxy only: "+strings.Join(extra, ", "))
	}
	return what + ": " + strings.Join(parts, "; ")
}

func sortedKeysOf[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// diffWaypointListeners compares a waypoint's listeners by name and main_internal's filter
// chains by name and, for a tcp chain, its cluster. Its routes are inline in the chains (not
// RDS), so none are compared.
func diffWaypointListeners(rep *ProxyConfigReport, d *envoy.Dump, diff *ProxyConfigDiff, listeners bool, add func(section, name, state, detail string)) {
	delete(diff.Compared, SectionRoutes)
	if !listeners {
		return
	}
	actual := map[string]envoy.Listener{}
	for _, l := range d.Listeners {
		actual[l.Name] = l
	}
	predicted := map[string]bool{}
	for _, l := range rep.Listeners {
		predicted[l.Name] = true
		diff.Compared[SectionListeners]++
		a, ok := actual[l.Name]
		if !ok {
			add(SectionListeners, l.Name, DiffMissing, fmt.Sprintf("%d filter chain(s) predicted", len(l.Chains)))
			continue
		}
		if l.Name != WaypointMainInternal {
			continue
		}
		var pd, ad []string
		for _, c := range l.Chains {
			x := c.Match
			if cl, ok := strings.CutPrefix(c.Destination, "Cluster: "); ok && len(c.Weighted) == 0 {
				x += " → " + cl
			}
			pd = append(pd, x)
		}
		for _, c := range a.Chains {
			x := c.Name
			if c.Cluster != "" && !strings.Contains(c.Cluster, ",") {
				x += " → " + c.Cluster
			}
			ad = append(ad, x)
		}
		if missing, extra := setDiff(pd, ad); len(missing)+len(extra) > 0 {
			add(SectionListeners, l.Name, DiffDifferent, describeSetDiff("filter chains", missing, extra))
		}
	}
	for _, n := range sortedKeysOf(actual) {
		if !predicted[n] && !staticListener(n, actual[n].Port) {
			add(SectionListeners, n, DiffExtra, fmt.Sprintf("%d filter chain(s)", len(actual[n].Chains)))
		}
	}
}
