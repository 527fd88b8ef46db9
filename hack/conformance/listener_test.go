package conformance

// Listener calls (fifth comparison kind): a connection from a client sidecar to a registry host
// and port, followed through istiod's own outbound listeners, filter chains, route
// configurations, virtual hosts and clusters of that sidecar (pilot/pkg/simulation), against
// the plugin's prediction of the same sidecar (checks.BuildSidecarView → Outbound.Resolve).

import (
	"errors"
	"fmt"
	"net/netip"
	"strings"
	"testing"

	listenerv3 "github.com/envoyproxy/go-control-plane/envoy/config/listener/v3"
	route "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	faultv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/fault/v3"
	typev3 "github.com/envoyproxy/go-control-plane/envoy/type/v3"

	"istio.io/istio/pilot/pkg/simulation"
	"istio.io/istio/pilot/test/xdstest"
	"istio.io/istio/pkg/wellknown"

	"github.com/kubectl-egress/kubectl-egress/pkg/checks"
	"github.com/kubectl-egress/kubectl-egress/pkg/rules"
	"github.com/kubectl-egress/kubectl-egress/pkg/snapshot"
)

// unknownHost is the host of the catch-all calls: declared by no registry entry.
const unknownHost = "unknown.example.org"

// defaultCallAddress is the destination IP of calls to hosts without an address (the address
// simulation.Call.FillDefaults picks): an external IP no listener binds.
const defaultCallAddress = "1.3.3.7"

// Call kinds of the listener comparison.
var listenerCallKinds = []string{rules.CallHTTP, rules.CallHTTP2, rules.CallTLS, rules.CallTCP}

// listenerPath is where a call ends on one side. chain is the filter chain's name when it has
// one (PassthroughFilterChain, virtualOutbound-catchall-tcp), else its destination ("rds:<name>",
// "cluster:<name>", "weighted:<a>,<b>"); cluster is the route's or tcp_proxy's target (a
// cluster, "weighted:…", "direct:<status>", "redirect").
type listenerPath struct {
	listener, chain, routeConfig, vhost, cluster, err string
	// hostRewrite: the matched route's host_rewrite_literal ("" when none)
	hostRewrite string
}

func (p listenerPath) String() string {
	s := "listener " + orDash(p.listener) + " chain " + orDash(p.chain)
	if p.routeConfig != "" {
		s += " rds " + p.routeConfig
	}
	if p.vhost != "" {
		s += " vhost " + p.vhost
	}
	if p.cluster != "" {
		s += " → " + p.cluster
	}
	if p.hostRewrite != "" {
		s += " (host rewritten to " + p.hostRewrite + ")"
	}
	if p.err != "" {
		s += " [" + p.err + "]"
	}
	return s
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// listenerCheck is one call (sidecar namespace, host, port, call kind).
type listenerCheck struct {
	ns      string // the sidecar's namespace
	source  string // "service-entry", "service-entry-cross" (a call of another kind than the port declares), "kube-service", "unknown"
	ref     string // the registry entry the host comes from ("" for the unknown host)
	host    string
	port    uint32
	proto   string // the declared port protocol ("" = unset, sniffed)
	kind    string
	address string
	sidecar string // the Sidecar resource the plugin applies ("(none)" or ns/name)
	// For ServiceEntry calls from a sidecar with DNS capture (dnsCompared, dns_test.go):
	// dnsAddr is istiod's DNS name table answer for the host (then also the call's address)
	// and pluginAddr the plugin's prediction of it ("" = no answer: the upstream resolver's).
	// dnsProxy is the sidecar's DNS state as istiod sees it.
	dnsCompared                   bool
	dnsAddr, pluginAddr, dnsProxy string

	plugin, istiod listenerPath
	// istiodChainVS is the VirtualService that built istiod's matched chain (misroute_test.go).
	istiodChainVS string
}

// agree: same listener, filter chain, route configuration, virtual host, target and error
// class, and (DNS capture) the same call address.
func (c listenerCheck) agree() bool {
	return c.plugin == c.istiod && c.pluginAddr == c.dnsAddr
}

// diffFields names the fields that differ.
func (c listenerCheck) diffFields() []string {
	var out []string
	p, i := c.plugin, c.istiod
	if p.listener != i.listener {
		out = append(out, "listener")
	}
	if p.chain != i.chain {
		out = append(out, "chain")
	}
	if p.routeConfig != i.routeConfig {
		out = append(out, "routeConfig")
	}
	if p.vhost != i.vhost {
		out = append(out, "vhost")
	}
	if p.cluster != i.cluster {
		out = append(out, "cluster")
	}
	if p.err != i.err {
		out = append(out, "error")
	}
	if c.pluginAddr != c.dnsAddr {
		out = append(out, "address")
	}
	return out
}

// class groups disagreements by call kind, host source, what differs and the istiod outcome.
func (c listenerCheck) class() string {
	return fmt.Sprintf("%s call to %s host (%s port): %s differ; istiod %s",
		c.kind, c.source, protoWord(c.proto), strings.Join(c.diffFields(), "+"), outcomeWord(c.istiod))
}

func protoWord(p string) string {
	if p == "" {
		return "unset"
	}
	return p
}

func outcomeWord(p listenerPath) string {
	switch {
	case p.err != "":
		return "error " + p.err
	case p.listener == rules.VirtualOutbound:
		return "virtualOutbound " + p.cluster
	case p.chain == rules.PassthroughFilterChain:
		return "PassthroughFilterChain " + p.cluster
	case p.vhost == rules.VHostAllowAny || p.vhost == rules.VHostBlockAll:
		return p.vhost
	case p.routeConfig != "":
		return "HTTP route"
	}
	return "tcp_proxy"
}

func (c listenerCheck) String() string {
	addr := c.address
	if c.dnsCompared {
		addr = fmt.Sprintf("%s; DNS answer: istiod's name table %s, plugin %s; %s", c.address, orDash(c.dnsAddr), orDash(c.pluginAddr), c.dnsProxy)
	}
	return fmt.Sprintf("sidecar in %s (Sidecar %s) %s call %s:%d (%s %s port, address %s): plugin %s vs istiod %s",
		c.ns, c.sidecar, c.kind, c.host, c.port, c.source, protoWord(c.proto), addr, c.plugin, c.istiod)
}

// callKindsFor returns the call kinds a client uses for a port protocol: HTTP → http; HTTP2,
// GRPC, GRPC-WEB → http2; HTTPS, TLS → tls; TCP, MONGO, MYSQL, REDIS → tcp; unset (sniffed) →
// http and tcp; UDP → none.
func callKindsFor(proto string) []string {
	switch proto {
	case rules.ProtoHTTP, rules.ProtoHTTPProxy:
		return []string{rules.CallHTTP}
	case rules.ProtoHTTP2, rules.ProtoGRPC, rules.ProtoGRPCWeb:
		return []string{rules.CallHTTP2}
	case rules.ProtoHTTPS, rules.ProtoTLS:
		return []string{rules.CallTLS}
	case rules.ProtoTCP, rules.ProtoMongo, rules.ProtoMySQL, rules.ProtoRedis:
		return []string{rules.CallTCP}
	case rules.ProtoUnsupported:
		return []string{rules.CallHTTP, rules.CallTCP}
	}
	return nil
}

// crossCallKinds are the calls of a kind other than a port's protocol says: TCP on an HTTP-family
// port, HTTP on a TCP or TLS one.
func crossCallKinds(proto string) []string {
	switch proto {
	case rules.ProtoHTTP, rules.ProtoHTTPProxy, rules.ProtoHTTP2, rules.ProtoGRPC, rules.ProtoGRPCWeb:
		return []string{rules.CallTCP}
	case rules.ProtoHTTPS, rules.ProtoTLS, rules.ProtoTCP, rules.ProtoMongo, rules.ProtoMySQL, rules.ProtoRedis:
		return []string{rules.CallHTTP}
	}
	return nil
}

// callAddress is the destination IP for an entry's addresses: the first one (a CIDR → its first
// usable address, a /32 → that IP), else defaultCallAddress.
func callAddress(addrs []string) string {
	for _, a := range addrs {
		if p, err := netip.ParsePrefix(a); err == nil {
			if p.IsSingleIP() {
				return p.Addr().String()
			}
			return p.Masked().Addr().Next().String()
		}
		if x, err := netip.ParseAddr(a); err == nil {
			return x.String()
		}
	}
	return defaultCallAddress
}

// listenerCall is one planned call.
type listenerCall struct {
	source, ref, host, proto, kind, address string
	port                                    uint32
}

// plannedCalls lists the calls for one sidecar: every ServiceEntry host × declared port, every
// Kubernetes Service host × port, and unknownHost on every port with a listener (ports from both
// sides) with the call kinds of the protocols declared on that port plus http and tcp.
func plannedCalls(snap *snapshot.Snapshot, listenerPorts map[uint32]bool) []listenerCall {
	var out []listenerCall
	seen := map[string]bool{}
	kindsOnPort := map[uint32]map[string]bool{}
	add := func(c listenerCall) {
		k := fmt.Sprintf("%s|%d|%s|%s", c.host, c.port, c.kind, c.address)
		if seen[k] {
			return
		}
		seen[k] = true
		out = append(out, c)
	}
	note := func(port uint32, kinds []string) {
		if kindsOnPort[port] == nil {
			kindsOnPort[port] = map[string]bool{}
		}
		for _, k := range kinds {
			kindsOnPort[port][k] = true
		}
	}
	for _, se := range snap.ServiceEntries {
		addr := callAddress(se.Spec.Addresses)
		for _, h := range se.Spec.Hosts {
			h = rules.NormalizeHost(h)
			if strings.HasPrefix(h, "*") {
				h = "wildcard-probe" + h[1:]
			}
			for _, p := range se.Spec.Ports {
				proto := rules.ParseProtocol(p.GetProtocol())
				if strings.EqualFold(p.GetProtocol(), "UDP") {
					continue
				}
				kinds := callKindsFor(proto)
				note(p.GetNumber(), kinds)
				for _, k := range kinds {
					add(listenerCall{source: "service-entry", ref: "ServiceEntry " + se.Namespace + "/" + se.Name, host: h, proto: proto, kind: k, address: addr, port: p.GetNumber()})
				}
				// The traffic the port's protocol does not say: a database client on a port
				// declared HTTP, plaintext HTTP on a port declared TCP or TLS (what the client
				// sends is not what the entry declares; the listener istiod builds for the
				// declared protocol decides).
				for _, k := range crossCallKinds(proto) {
					add(listenerCall{source: "service-entry-cross", ref: "ServiceEntry " + se.Namespace + "/" + se.Name, host: h, proto: proto, kind: k, address: addr, port: p.GetNumber()})
				}
			}
		}
	}
	for _, svc := range snap.Services {
		s := rules.KubeService(svc, nil)
		if s.Resolution == "ExternalName" {
			continue
		}
		addr := callAddress(s.Addresses)
		for _, p := range s.Ports {
			kinds := callKindsFor(p.Protocol)
			if p.Protocol == rules.ProtoUDP {
				continue
			}
			note(p.Number, kinds)
			for _, k := range kinds {
				add(listenerCall{source: "kube-service", ref: "Service " + svc.Namespace + "/" + svc.Name, host: s.Hostname, proto: p.Protocol, kind: k, address: addr, port: p.Number})
			}
		}
	}
	for _, port := range sortedPorts(listenerPorts) {
		kinds := map[string]bool{rules.CallHTTP: true, rules.CallTCP: true}
		for k := range kindsOnPort[port] {
			kinds[k] = true
		}
		for _, k := range listenerCallKinds {
			if kinds[k] {
				add(listenerCall{source: "unknown", host: unknownHost, proto: "", kind: k, address: defaultCallAddress, port: port})
			}
		}
	}
	return out
}

// compareListeners sends every planned call through every client sidecar of the revision
// (team-a/team-b and the visibility namespaces: every sidecar the harness builds) on both sides.
func compareListeners(t *testing.T, snap *snapshot.Snapshot, clients []proxySpec, out *istiodOut) []listenerCheck {
	var res []listenerCheck
	for _, p := range clients {
		ps := out.sidecarSims[p.ns]
		if ps == nil {
			continue
		}
		view := checks.BuildSidecarViewFor(snap, p.ns, p.labels, p.annotations)
		ports := map[uint32]bool{}
		for _, l := range view.Outbound.Listeners {
			ports[l.Port] = true
		}
		for _, l := range ps.sim.Listeners {
			if a := l.GetAddress().GetSocketAddress(); a != nil && l.GetName() != rules.VirtualOutbound && l.GetName() != "virtualInbound" {
				ports[a.GetPortValue()] = true
			}
		}
		dns := out.sidecarDNS[p.ns]
		for _, call := range plannedCalls(snap, ports) {
			call, iaddr, paddr, cmp := dnsCall(dns, view, call)
			c := listenerCheck{ns: p.ns, source: call.source, ref: call.ref, host: call.host, port: call.port, proto: call.proto,
				kind: call.kind, address: call.address, sidecar: view.Scope.Ref(), dnsCompared: cmp, dnsAddr: iaddr, pluginAddr: paddr, dnsProxy: dns.word()}
			pr := view.Outbound.Resolve(rules.Call{Host: call.host, Port: call.port, Kind: call.kind, Address: call.address})
			c.plugin = pluginPath(pr)
			c.istiod, c.istiodChainVS = istiodPathChain(t, ps.sim, call)
			res = append(res, c)
		}
	}
	return res
}

// pluginPath reads the plugin's CallResult.
func pluginPath(r rules.CallResult) listenerPath {
	p := listenerPath{listener: r.Listener, routeConfig: r.RouteConfig, vhost: r.VirtualHost, err: r.Error}
	if r.Chain != nil {
		p.chain = pluginChainID(*r.Chain)
	}
	if r.Route != nil {
		p.hostRewrite = r.Route.Authority // compared with istiod's host_rewrite_literal
	}
	if r.Error != "" {
		return p
	}
	switch {
	case r.Route != nil:
		switch {
		case r.Route.Abort != "":
			// (the fault filter aborts before the router picks a cluster, weighted or not)
			p.cluster = faultAbortTarget
		case len(r.Route.Weighted) > 0:
			p.cluster = "weighted:" + strings.Join(r.Route.Weighted, ",")
		case r.Route.DirectResponse > 0:
			p.cluster = fmt.Sprintf("direct:%d", r.Route.DirectResponse)
		default:
			p.cluster = r.Route.Cluster
		}
	case r.Chain != nil && len(r.Chain.Weighted) > 0:
		p.cluster = "weighted:" + strings.Join(r.Chain.Weighted, ",")
	case r.Chain != nil:
		p.cluster = r.Chain.Cluster
	}
	return p
}

func pluginChainID(ch rules.FilterChain) string {
	switch {
	case ch.Name != "":
		return ch.Name
	case ch.RDS != "":
		return "rds:" + ch.RDS
	case len(ch.Weighted) > 0:
		return "weighted:" + strings.Join(ch.Weighted, ",")
	}
	return "cluster:" + ch.Cluster
}

// simErrors maps the simulation's errors to the plugin's error classes.
var simErrors = []struct {
	err   error
	class string
}{
	{simulation.ErrNoListener, "no listener"},
	{simulation.ErrNoFilterChain, rules.CallErrNoFilterChain},
	{simulation.ErrMultipleFilterChain, rules.CallErrMultiple},
	{simulation.ErrProtocolError, rules.CallErrProtocol},
	{simulation.ErrNoVirtualHost, rules.CallErrNoVirtualHost},
	{simulation.ErrNoRoute, rules.CallErrNoRoute},
	{simulation.ErrTLSRedirect, "tls redirect"},
	{simulation.ErrTLSError, "tls error"},
	{simulation.ErrMTLSError, "mtls error"},
}

// istiodPath runs the call through the simulation. The matched filter chain is captured with
// a CustomListenerValidation (called with the chain the simulation selected) so that unnamed
// chains can be compared by destination.
func istiodPath(t *testing.T, sim *simulation.Simulation, c listenerCall) listenerPath {
	p, _ := istiodPathChain(t, sim, c)
	return p
}

// istiodPathChain is istiodPath and the VirtualService ("namespace/name") that built the filter
// chain the call matched, from the chain's metadata ("" when none: tls.go sets it on the tcp
// and tls chains a VirtualService builds, util.BuildConfigInfoMetadata).
func istiodPathChain(t *testing.T, sim *simulation.Simulation, c listenerCall) (listenerPath, string) {
	var fc *listenerv3.FilterChain
	call := simulation.Call{Address: c.address, Port: int(c.port), CallMode: simulation.CallModeOutbound,
		CustomListenerValidations: []simulation.CustomFilterChainValidation{func(x *listenerv3.FilterChain) error { fc = x; return nil }}}
	switch c.kind {
	case rules.CallHTTP:
		call.Protocol, call.HostHeader = simulation.HTTP, c.host
	case rules.CallHTTP2:
		call.Protocol, call.HostHeader = simulation.HTTP2, c.host
	case rules.CallTLS:
		call.Protocol, call.TLS, call.Sni = simulation.TCP, simulation.TLS, c.host
	case rules.CallTCP:
		call.Protocol = simulation.TCP
	}
	r := sim.Run(call)
	p := listenerPath{listener: r.ListenerMatched, routeConfig: r.RouteConfigMatched, vhost: r.VirtualHostMatched}
	if fc != nil {
		p.chain = istiodChainID(t, fc)
	}
	if r.Error != nil {
		p.err = r.Error.Error()
		for _, e := range simErrors {
			if errors.Is(r.Error, e.err) {
				p.err = e.class
			}
		}
		return p, ""
	}
	vs := chainVirtualService(fc)
	if r.RouteConfigMatched != "" || r.VirtualHostMatched != "" {
		p.cluster = matchedRouteTarget(sim, r)
		if rt := matchedRoute(sim, r); rt != nil {
			p.hostRewrite = rt.GetRoute().GetHostRewriteLiteral()
		}
		return p, vs
	}
	if fc != nil {
		if tcp := xdstest.ExtractTCPProxy(t, fc); tcp != nil {
			p.cluster = tcpTarget(tcp.GetCluster(), tcp.GetWeightedClusters().GetClusters())
		}
	}
	return p, vs
}

// chainVirtualService reads the "istio" filter metadata's config of a filter chain
// ("/apis/networking.istio.io/v1/namespaces/NS/virtual-service/NAME") as "NS/NAME".
func chainVirtualService(fc *listenerv3.FilterChain) string {
	cfg := fc.GetMetadata().GetFilterMetadata()["istio"].GetFields()["config"].GetStringValue()
	parts := strings.Split(cfg, "/")
	if len(parts) < 4 || parts[len(parts)-2] != "virtual-service" || parts[len(parts)-4] != "namespaces" {
		return ""
	}
	return parts[len(parts)-3] + "/" + parts[len(parts)-1]
}

func istiodChainID(t *testing.T, fc *listenerv3.FilterChain) string {
	if fc.GetName() != "" {
		return fc.GetName()
	}
	if hcm := xdstest.ExtractHTTPConnectionManager(t, fc); hcm != nil {
		if n := hcm.GetRds().GetRouteConfigName(); n != "" {
			return "rds:" + n
		}
		return "rds:(inline)"
	}
	if tcp := xdstest.ExtractTCPProxy(t, fc); tcp != nil {
		w := tcp.GetWeightedClusters().GetClusters()
		if len(w) > 0 {
			return tcpTarget("", w)
		}
		return "cluster:" + tcp.GetCluster()
	}
	return "(no hcm or tcp_proxy)"
}

type weighted interface{ GetName() string }

func tcpTarget[W weighted](cluster string, w []W) string {
	if len(w) > 0 {
		var names []string
		for _, x := range w {
			names = append(names, x.GetName())
		}
		return "weighted:" + strings.Join(names, ",")
	}
	return cluster
}

// matchedRouteTarget finds the route the simulation matched (the first route of the matched
// virtual host whose path matches "/", as simulation.matchRoute does) and returns its target.
func matchedRouteTarget(sim *simulation.Simulation, r simulation.Result) string {
	rt := matchedRoute(sim, r)
	if rt == nil {
		return "(matched route not found)"
	}
	if faultAbortsAll(rt) {
		return faultAbortTarget
	}
	switch a := rt.GetAction().(type) {
	case *route.Route_Route:
		if w := a.Route.GetWeightedClusters().GetClusters(); len(w) > 0 {
			return tcpTarget("", w)
		}
		return a.Route.GetCluster()
	case *route.Route_DirectResponse:
		return fmt.Sprintf("direct:%d", a.DirectResponse.GetStatus())
	case *route.Route_Redirect:
		return "redirect"
	}
	return fmt.Sprintf("action %T", rt.GetAction())
}

// faultAbortTarget is where a route whose fault filter aborts every request sends the call.
const faultAbortTarget = "fault-abort"

// faultAbortsAll: the route's per-route config of the HTTP fault filter (envoy.filters.http.fault,
// route.go TranslateFault) aborts every request: an abort whose percentage is 100% (an abort
// without a percentage aborts none: Envoy reads it as 0%).
func faultAbortsAll(rt *route.Route) bool {
	a, ok := rt.GetTypedPerFilterConfig()[wellknown.Fault]
	if !ok {
		return false
	}
	f := &faultv3.HTTPFault{}
	if err := a.UnmarshalTo(f); err != nil {
		return false
	}
	p := f.GetAbort().GetPercentage()
	if f.GetAbort() == nil || p == nil {
		return false
	}
	den := map[typev3.FractionalPercent_DenominatorType]uint32{typev3.FractionalPercent_HUNDRED: 100, typev3.FractionalPercent_TEN_THOUSAND: 10000, typev3.FractionalPercent_MILLION: 1000000}[p.GetDenominator()]
	return den > 0 && p.GetNumerator() >= den
}

// writeListenerTables writes the listener-call agreement tables of the generated matrix.
func writeListenerTables(w *strings.Builder, rs []*result) {
	if len(rs) == 0 {
		return
	}
	agree, total, scAgree, scTotal := 0, 0, 0, 0
	outcomes := map[string]int{}
	sidecars := map[string]int{}
	for _, r := range rs {
		if r.status != "compared" || len(r.listenerChecks) == 0 {
			continue
		}
		scTotal++
		if r.listenerDisagreement == 0 {
			scAgree++
		}
		for _, c := range r.listenerChecks {
			total++
			if c.agree() {
				agree++
			}
			outcomes[outcomeWord(c.istiod)]++
			sidecars[c.sidecar]++
		}
	}
	fmt.Fprintf(w, "LISTENER CALLS (client sidecars: plugin checks.BuildSidecarView → Outbound.Resolve vs pilot/pkg/simulation on the sidecar's LDS/RDS)\n")
	fmt.Fprintf(w, "listener calls agreeing: %d/%d; scenarios agreeing on every call: %d/%d\n", agree, total, scAgree, scTotal)
	fmt.Fprintf(w, "istiod outcomes: %s\n", fmtCounts(outcomes))
	fmt.Fprintf(w, "calls by Sidecar resource: %s\n\n", fmtCounts(sidecars))
	extra := []dimension{
		{"listener.namespace", []string{"team-a", "team-b", "app", "other", "egress", "istio-system"}},
		{"listener.host", []string{"service-entry", "service-entry-cross", "kube-service", "unknown"}},
		{"listener.call", listenerCallKinds},
		{"listener.protocol", []string{"HTTP", "HTTP2", "GRPC", "HTTPS", "TLS", "TCP", "MYSQL", "MONGO", "REDIS", "unset"}},
	}
	tables := tallyDimensions(rs, extra, func(r *result) []dimCheck {
		var out []dimCheck
		for _, c := range r.listenerChecks {
			out = append(out, dimCheck{extra: map[string]string{"listener.namespace": c.ns, "listener.host": c.source,
				"listener.call": c.kind, "listener.protocol": protoWord(c.proto)}, agree: c.agree()})
		}
		return out
	}, func(r *result) bool { return r.listenerDisagreement == 0 })
	for _, t := range tables {
		fmt.Fprintf(w, "%-22s %-28s %-12s %s\n", strings.ToUpper(t.name), "VALUE", "CALLS", "SCENARIOS")
		for _, v := range t.values {
			tl := t.tal[v]
			if tl.total == 0 && strings.HasPrefix(t.name, "listener.") {
				continue
			}
			fmt.Fprintf(w, "%-22s %-28s %-12s %s\n", "", v, fmt.Sprintf("%d/%d", tl.agree, tl.total), fmt.Sprintf("%d/%d", tl.scAgree, tl.scTotal))
		}
		w.WriteString("\n")
	}
}

// listenerTotals sums a set of results' listener calls.
func listenerTotals(rs []*result) (agree, total int) {
	for _, r := range rs {
		for _, c := range r.listenerChecks {
			total++
			if c.agree() {
				agree++
			}
		}
	}
	return
}
