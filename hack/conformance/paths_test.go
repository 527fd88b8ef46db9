package conformance

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"testing"

	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	listenerv3 "github.com/envoyproxy/go-control-plane/envoy/config/listener/v3"
	tcpv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/tcp_proxy/v3"
	tlsv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/transport_sockets/tls/v3"
	upstreamhttp "github.com/envoyproxy/go-control-plane/envoy/extensions/upstreams/http/v3"

	"istio.io/istio/pilot/pkg/simulation"

	"github.com/kubectl-egress/kubectl-egress/pkg/checks"
	"github.com/kubectl-egress/kubectl-egress/pkg/rules"
	"github.com/kubectl-egress/kubectl-egress/pkg/snapshot"
)

// pathCheck is one call traced from a client sidecar through an egress gateway: the plugin's
// checks.TracePath against istiod's simulation of the sidecar's call, continued at the gateway
// workload on the Service's target port with the TLS the sidecar's cluster originates (read from
// istiod's own cluster for the gateway Service: its transport socket's UpstreamTlsContext).
type pathCheck struct {
	ns, host, kind, gateway string
	port                    uint32
	plugin, istiod          string
	// trace is the plugin's trace (its fix, patch and fix check).
	trace *checks.PathTrace
}

func (c pathCheck) agree() bool { return c.plugin == c.istiod }

func (c pathCheck) String() string {
	return fmt.Sprintf("path from sidecar in %s, %s %s:%d via gateway %s: plugin %s vs istiod %s", c.ns, c.kind, c.host, c.port, c.gateway, c.plugin, c.istiod)
}

// comparePaths traces every planned call of every client sidecar whose sidecar cluster (on
// either side) is a Kubernetes Service selecting a gateway workload.
func comparePaths(t *testing.T, snap *snapshot.Snapshot, gateways, clients []proxySpec, out *istiodOut) []pathCheck {
	// Service host -> the first gateway workload it selects, and all of them (gwAll).
	gwSvc, gwAll := map[string]string{}, map[string][]string{}
	for _, svc := range snap.Services {
		for _, g := range gateways {
			if svc.Namespace == g.ns && len(svc.Spec.Selector) > 0 && rules.LabelsSubsetOf(svc.Spec.Selector, g.labels) {
				if _, seen := gwSvc[rules.KubeServiceHost(svc)]; !seen {
					gwSvc[rules.KubeServiceHost(svc)] = g.ref
				}
				gwAll[rules.KubeServiceHost(svc)] = append(gwAll[rules.KubeServiceHost(svc)], g.ref)
			}
		}
	}
	if len(gwSvc) == 0 {
		return nil
	}
	var res []pathCheck
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
		for _, call := range plannedCalls(snap, ports) {
			call, _, _, _ = dnsCall(out.sidecarDNS[p.ns], view, call)
			if _, isGateway := gwSvc[call.host]; call.host == unknownHost || isGateway {
				continue // calls to the gateway Service itself are not egress paths
			}
			ip := istiodPath(t, ps.sim, call)
			pr := view.Outbound.Resolve(rules.Call{Host: call.host, Port: call.port, Kind: call.kind, Address: call.address})
			_, _, ihost, iok := parseCluster(ip.cluster)
			_, _, phost, pok := parseCluster(pr.Cluster)
			gw, viaI := gwSvc[ihost]
			if g, viaP := gwSvc[phost]; viaP && pok {
				gw = g
			} else if !viaI || !iok {
				continue
			}
			popt := checks.PathOptions{Host: call.host, Port: call.port, From: p.ns, Labels: p.labels, Annotations: injected(p.annotations), Call: call.kind}
			if p.podRef != "" {
				popt.From, popt.Labels, popt.Pod = "", nil, p.podRef
			}
			tr, err := checks.TracePath(snap, popt)
			if err != nil {
				t.Errorf("TracePath %s %s:%d from %s: %v", call.kind, call.host, call.port, p.ns, err)
				continue
			}
			if tr.Gateway != "" {
				gw = tr.Gateway
			}
			if out.sims[gw] == nil {
				// the gateway is served by another revision's istiod: crossRevisionPaths
				// compares this call with every revision's output
				continue
			}
			c := pathCheck{ns: p.ns, host: call.host, port: call.port, kind: call.kind, gateway: gw, trace: tr}
			c.plugin = pluginPathOutcome(tr)
			c.istiod = istiodPathOutcome(ps.sim, ip, out, gw, call)
			if c.istiod != "" && ip.cluster != faultAbortTarget && !out.sidecars[p.ns][ip.cluster] {
				c.istiod = "sidecar " + ip.cluster + ": sidecar cluster absent"
			} else if n, ok := out.sidecarEndpoints[p.ns][ip.cluster]; c.istiod != "" && ok && n == 0 {
				c.istiod = "sidecar " + ip.cluster + ": sidecar cluster without endpoints" // 503 UH at the client
			}
			if c.istiod == "" {
				continue // not checkable (the client's TLS inside TLS to the gateway)
			}
			// A Service selecting several gateway workloads: the client's calls are balanced
			// over all their pods. When the call works through the one followed and fails
			// through another, that share fails (the plugin: GATEWAY_SERVICE_SELECTS_OTHER_GATEWAY).
			_, _, chost, _ := parseCluster(ip.cluster)
			if others := gwAll[chost]; len(others) > 1 && istiodPathWorks(c.istiod) && !strings.HasSuffix(c.istiod, ": original destination") {
				for _, o := range others {
					if o == gw {
						continue
					}
					if oc := istiodPathOutcome(ps.sim, ip, out, o, call); oc != "" && !istiodPathWorks(oc) {
						c.istiod += " | through " + o + ": fails"
						break
					}
				}
			}
			res = append(res, c)
		}
	}
	return res
}

// crossRevisionPaths compares the paths from client sidecars of one istiod revision to gateway
// pods served by another (each revision is its own fake istiod, forRevision): the outputs of
// every revision are merged (gateway refs and client namespaces are each served by exactly one
// revision) and only the paths whose client and gateway revisions differ are kept (the others
// were compared within their revision). Only with every revision's flags known (one istiod run
// per revision).
func crossRevisionPaths(t *testing.T, snap *snapshot.Snapshot, in *oracleInput, outs map[string]*istiodOut) []pathCheck {
	merged := &istiodOut{cds: map[string]map[string]bool{}, sims: map[string]*proxySim{}, sidecars: map[string]map[string]bool{},
		sidecarSims: map[string]*proxySim{}, endpoints: map[string]map[string]int{}, sidecarEndpoints: map[string]map[string]int{}, sidecarDNS: map[string]*sidecarDNS{}}
	for _, o := range outs {
		maps.Copy(merged.cds, o.cds)
		maps.Copy(merged.sims, o.sims)
		maps.Copy(merged.sidecars, o.sidecars)
		maps.Copy(merged.sidecarSims, o.sidecarSims)
		maps.Copy(merged.endpoints, o.endpoints)
		maps.Copy(merged.sidecarEndpoints, o.sidecarEndpoints)
		maps.Copy(merged.sidecarDNS, o.sidecarDNS)
	}
	gwRev, clientRev := map[string]string{}, map[string]string{}
	for _, p := range in.proxies {
		gwRev[p.ref] = p.rev
	}
	for _, p := range in.clients {
		clientRev[p.ns] = p.rev
	}
	var out []pathCheck
	for _, c := range comparePaths(t, snap, in.proxies, in.clients, merged) {
		if gr, ok := gwRev[c.gateway]; ok && gr != clientRev[c.ns] {
			out = append(out, c)
		}
	}
	return out
}

// pluginPathOutcome: "sidecar <cluster>, gateway <listener> → <cluster>|<failure>", and
// " | through <workload>: fails" when the call also goes to another gateway workload's pods
// where it fails (GATEWAY_SERVICE_SELECTS_OTHER_GATEWAY: the followed workload's hops decide the
// rest).
func pluginPathOutcome(tr *checks.PathTrace) string {
	if tr.Cause == checks.GatewayServiceSpans {
		own := *tr
		own.Cause, own.Level = checks.PathOK, ""
		own.Hops = nil
		other := ""
		for _, h := range tr.Hops {
			if g, ok := strings.CutPrefix(h.Proxy, "gateway "); ok && g != tr.Gateway {
				other = g
				continue
			}
			own.Hops = append(own.Hops, h)
		}
		return pluginPathOutcome(&own) + " | through " + other + ": fails"
	}
	side := "sidecar " + orDash(tr.SidecarCluster)
	switch tr.Cause {
	case checks.ListenerClusterAbsent, checks.ListenerGatewayServiceLack:
		// The same code at the gateway (a route's destination the gateway lacks) is the
		// gateway's absent cluster, below.
		if tr.Gateway == "" || !slices.ContainsFunc(tr.Hops, func(h checks.Hop) bool {
			return strings.HasPrefix(h.Proxy, "gateway ") && h.Step == "cluster" && h.Result == checks.Fail
		}) {
			return side + ": sidecar cluster absent"
		}
	case checks.CauseNoEndpoints:
		if tr.Gateway == "" {
			return side + ": sidecar cluster without endpoints"
		}
	case checks.PathGatewayNotListen, checks.GatewayPrivilegedPort:
		return side + ", gateway: no listener"
	case checks.CauseRouteNotBound, checks.ListenerServerDropped:
		// the server for the host skipped (another protocol holds the port): the call meets
		// the kept server's listener
		if slices.ContainsFunc(tr.Hops, func(h checks.Hop) bool {
			return strings.HasPrefix(h.Proxy, "gateway ") && h.Step == "listener" && h.Result == checks.Fail
		}) {
			if tr.Flag == "NR" {
				return side + ", gateway " + orDash(tr.GatewayListener) + ": no route"
			}
			return side + ", gateway " + orDash(tr.GatewayListener) + ": no filter chain accepts the call"
		}
	case checks.PathFaultAbort:
		if tr.Gateway == "" {
			return "sidecar " + faultAbortTarget + ": fault abort"
		}
		return side + ", gateway " + orDash(tr.GatewayListener) + ": fault abort"
	case checks.PathTLSMismatch, checks.PathGatewayNoChain:
		return side + ", gateway " + orDash(tr.GatewayListener) + ": no filter chain accepts the call"
	case checks.PathGatewayNoRoute:
		return side + ", gateway " + orDash(tr.GatewayListener) + ": no route"
	case checks.PathRouteMatchAssumed:
		// every route of the gateway's virtual host has conditions GET / does not meet: the
		// simulated GET / gets no route there (what other requests get is not compared)
		if slices.ContainsFunc(tr.Hops, func(h checks.Hop) bool {
			return strings.HasPrefix(h.Proxy, "gateway ") && h.Step == "route" && h.Result == checks.Warn
		}) {
			return side + ", gateway " + orDash(tr.GatewayListener) + ": no route"
		}
	}
	if tr.OriginalDestination {
		return side + ": original destination"
	}
	if tr.Gateway == "" {
		return side + ": " + tr.Cause
	}
	for _, h := range tr.Hops {
		if strings.HasPrefix(h.Proxy, "gateway ") && h.Step == "cluster" && h.Result == checks.Fail {
			return side + ", gateway " + orDash(tr.GatewayListener) + " → " + tr.GatewayCluster + " (absent)"
		}
	}
	out := side + ", gateway " + orDash(tr.GatewayListener) + " → " + orDash(tr.GatewayCluster)
	if tr.GatewayUpstreamTLS != "" {
		out += " [" + tr.GatewayUpstreamTLS + "]"
	}
	if tr.Cause == checks.ListenerDoubleTLS {
		out += " (TLS originated twice)"
	}
	if tr.Cause == checks.PathNotOriginated {
		out += " (plaintext to a TLS port)"
	}
	if tr.Cause == checks.CauseNoEndpoints {
		out += " (no endpoints)"
	}
	if slices.ContainsFunc(tr.Warnings, func(f checks.Finding) bool { return f.Code == checks.PathHTTP2ThroughTCP }) {
		out += " (HTTP/2 into a TCP chain)"
	}
	for _, m := range tr.GatewayMirrors {
		out += ", mirror " + m
	}
	return out
}

// istiodPathOutcome continues the sidecar's call at the gateway workload gw: on the Service's
// target port, with the TLS the sidecar's cluster for the gateway Service originates. "" when the
// call is not checkable.
func istiodPathOutcome(sidecar *simulation.Simulation, ip listenerPath, out *istiodOut, gw string, c listenerCall) string {
	side := "sidecar " + orDash(ip.cluster)
	if ip.err != "" {
		return side + ": sidecar error " + ip.err
	}
	if ip.cluster == faultAbortTarget {
		return side + ": fault abort" // the client's own sidecar answers
	}
	svcPort, _, svcHost, ok := parseCluster(ip.cluster)
	if !ok {
		return side + ": no gateway Service cluster"
	}
	for _, x := range sidecar.Clusters {
		if x.GetName() == ip.cluster && x.GetType() == clusterv3.Cluster_ORIGINAL_DST {
			// a headless Service: Envoy sends the call to the address the client dialed
			return side + ": original destination"
		}
	}
	ps := out.sims[gw]
	if ps == nil {
		return side + ": gateway " + gw + " not simulated"
	}
	// The call lands on the pod at the target port of the Service it was sent to (not the
	// port istiod translates Gateway servers through, which may come from another Service).
	target := svcPort
	if tp, ok := ps.serviceTargetPorts[svcHost][svcPort]; ok && tp != 0 {
		target = tp
	}
	mode, sni := clusterTLSTo(sidecar, ip.cluster, ps.tlsMode)
	call := simulation.Call{Address: ps.ip, Port: int(target), CallMode: simulation.CallModeGateway}
	host := c.host
	if ip.hostRewrite != "" {
		host = ip.hostRewrite // the sidecar's route rewrote the Host (host_rewrite_literal)
	}
	switch c.kind {
	case rules.CallHTTP:
		call.Protocol, call.HostHeader = simulation.HTTP, host
	case rules.CallHTTP2:
		call.Protocol, call.HostHeader = simulation.HTTP2, host
	case rules.CallTLS:
		// With TLS from the sidecar's cluster (below) the client's TLS travels inside it: the
		// simulation has one TLS layer, the outer one; what is inside is opaque bytes.
		call.Protocol, call.TLS, call.Sni = simulation.TCP, simulation.TLS, c.host
	case rules.CallTCP:
		call.Protocol = simulation.TCP
	}
	if mode != simulation.Plaintext {
		call.TLS, call.Sni = mode, sni
		if sni == "" {
			call.Sni = ip.cluster // Envoy sends no SNI; istiod sets the cluster name for ISTIO_MUTUAL
		}
	}
	r := ps.sim.Run(call)
	lname := fmt.Sprintf("0.0.0.0_%d", target)
	if r.Error != nil {
		switch {
		case errors.Is(r.Error, simulation.ErrNoListener):
			return side + ", gateway: no listener"
		case errors.Is(r.Error, simulation.ErrNoFilterChain), errors.Is(r.Error, simulation.ErrTLSError), errors.Is(r.Error, simulation.ErrMTLSError),
			errors.Is(r.Error, simulation.ErrProtocolError), errors.Is(r.Error, simulation.ErrMultipleFilterChain):
			return side + ", gateway " + lname + ": no filter chain accepts the call"
		case errors.Is(r.Error, simulation.ErrNoVirtualHost), errors.Is(r.Error, simulation.ErrNoRoute):
			return side + ", gateway " + lname + ": no route"
		}
		return side + ", gateway " + lname + ": " + r.Error.Error()
	}
	cl := r.ClusterMatched
	if r.RouteConfigMatched != "" {
		// the route's target, unless its fault filter aborts every request (the simulation
		// names the route's cluster all the same)
		if t := matchedRouteTarget(ps.sim, r); cl == "" || t == faultAbortTarget {
			cl = t
		}
	}
	if cl == "" && r.RouteConfigMatched == "" {
		if w := chainWeightedClusters(ps.sim, r.ListenerMatched, r.FilterChainMatched, call.Sni); len(w) > 0 {
			cl = "weighted:" + strings.Join(w, ",")
		}
	}
	if ws, ok := strings.CutPrefix(cl, "weighted:"); ok {
		// A weighted split: Envoy picks a cluster per request or connection; the outcome is the
		// first cluster the gateway lacks (that share fails), else the first one (as the
		// plugin's trace follows it). Refused Gateway API backends (UnknownService) are their
		// own failure, reported apart.
		names := strings.Split(ws, ",")
		cl = names[0]
		for _, n := range names {
			if n != rules.UnknownServiceCluster && !out.cds[gw][n] {
				cl = n
				break
			}
		}
	}
	if cl == faultAbortTarget {
		return side + ", gateway " + lname + ": fault abort"
	}
	if strings.HasPrefix(cl, "direct:") || cl == "BlackHoleCluster" || cl == "" {
		return side + ", gateway " + lname + ": no route"
	}
	if !out.cds[gw][cl] {
		return side + ", gateway " + lname + " → " + cl + " (absent)"
	}
	res := side + ", gateway " + lname + " → " + cl
	// What the gateway's cluster originates upstream (its transport socket); a passthrough chain
	// (no downstream TLS context) forwards the client's own TLS into it: TLS inside TLS.
	terminates := chainTerminatesTLS(ps.sim, r.ListenerMatched, r.FilterChainMatched, call.Sni)
	innerTLS := c.kind == rules.CallTLS && mode != simulation.Plaintext
	if innerTLS && !terminates {
		return "" // the sidecar's own TLS passed through: not checkable (what the host gets is two layers)
	}
	plaintextToTLS := false
	if up, _ := clusterTLS(ps.sim, cl); up != simulation.Plaintext {
		res += " [" + tlsWord(up) + "]"
		if c.kind == rules.CallTLS && (!terminates || innerTLS) {
			// the client's TLS passed through, or carried inside a session the gateway
			// terminates and forwarded by a tcp route: it meets the cluster's TLS
			return res + " (TLS originated twice)"
		}
	} else if c.kind != rules.CallTLS {
		// A plaintext call (HTTP or TCP from the client) that the gateway sends on as plaintext
		// to a port the entry declares HTTPS or TLS: the server expects TLS.
		if cport, _, chost, ok := parseCluster(cl); ok && ps.tlsPorts[fmt.Sprintf("%s:%d", chost, cport)] {
			res += " (plaintext to a TLS port)" // the mirrors below still follow, as in the plugin's outcome
			plaintextToTLS = true
		}
	}
	if n, ok := out.endpoints[gw][cl]; ok && n == 0 && !plaintextToTLS { // the first failure only, as the plugin's trace
		res += " (no endpoints)" // 503 UH at the gateway
	}
	if c.kind == rules.CallHTTP && r.RouteConfigMatched == "" && clusterHTTP2(sidecar, ip.cluster) {
		// an HTTP/1.1 call the sidecar sends as HTTP/2 into a tcp_proxy: the host receives h2c
		res += " (HTTP/2 into a TCP chain)"
	}
	// The clusters the matched route mirrors to (request_mirror_policies), each present or not.
	if r.RouteConfigMatched != "" {
		if rt := matchedRoute(ps.sim, r); rt != nil {
			for _, m := range rt.GetRoute().GetRequestMirrorPolicies() {
				res += ", mirror " + m.GetCluster()
				if !out.cds[gw][m.GetCluster()] {
					res += " (absent)"
				}
			}
		}
	}
	return res
}

// chainWeightedClusters: the clusters the tcp_proxy of a matched filter chain splits the
// connections among (nil when it names one cluster).
func chainWeightedClusters(sim *simulation.Simulation, listener, chain, sni string) []string {
	fc := matchedChain(sim, listener, chain, sni)
	for _, f := range fc.GetFilters() {
		tp := &tcpv3.TcpProxy{}
		if f.GetTypedConfig() == nil || f.GetTypedConfig().UnmarshalTo(tp) != nil {
			continue
		}
		var out []string
		for _, w := range tp.GetWeightedClusters().GetClusters() {
			out = append(out, w.GetName())
		}
		return out
	}
	return nil
}

// matchedChain is the filter chain a call matched: the simulation names it, and gateway chains
// have no names, so among unnamed ones the chain is the one Envoy picks by server name (an
// exact name, else the longest wildcard covering it, else a chain without names).
func matchedChain(sim *simulation.Simulation, listener, chain, sni string) *listenerv3.FilterChain {
	var best *listenerv3.FilterChain
	bestScore := -1
	for _, l := range sim.Listeners {
		if l.GetName() != listener {
			continue
		}
		for _, fc := range l.GetFilterChains() {
			if chain != "" {
				if fc.GetName() == chain {
					return fc
				}
				continue
			}
			if fc.GetName() != "" {
				continue
			}
			score := -1
			names := fc.GetFilterChainMatch().GetServerNames()
			if len(names) == 0 {
				score = 0
			}
			for _, n := range names {
				switch {
				case strings.EqualFold(n, sni):
					score = max(score, 1<<20)
				case strings.HasPrefix(n, "*.") && strings.HasSuffix(strings.ToLower(sni), strings.ToLower(n[1:])):
					score = max(score, len(n))
				}
			}
			if score > bestScore {
				best, bestScore = fc, score
			}
		}
	}
	return best
}

// clusterHTTP2: istiod's cluster name of the simulated proxy speaks HTTP/2 upstream (explicit
// HTTP/2 protocol options in its envoy.extensions.upstreams.http.v3.HttpProtocolOptions).
func clusterHTTP2(sim *simulation.Simulation, name string) bool {
	for _, x := range sim.Clusters {
		if x.GetName() != name {
			continue
		}
		a := x.GetTypedExtensionProtocolOptions()["envoy.extensions.upstreams.http.v3.HttpProtocolOptions"]
		if a == nil {
			return false
		}
		var o upstreamhttp.HttpProtocolOptions
		if err := a.UnmarshalTo(&o); err != nil {
			return false
		}
		return o.GetExplicitHttpConfig().GetHttp2ProtocolOptions() != nil
	}
	return false
}

// tlsWord names a simulation TLS mode as the plugin's trace does.
func tlsWord(m simulation.TLSMode) string {
	if m == simulation.MTLS {
		return "Istio mTLS"
	}
	return "TLS"
}

// chainTerminatesTLS reports whether the filter chain a call matched has a downstream TLS
// context (the gateway terminates the client's TLS) rather than passing it through.
func chainTerminatesTLS(sim *simulation.Simulation, listener, chain, sni string) bool {
	return matchedChain(sim, listener, chain, sni).GetTransportSocket() != nil
}

// clusterTLS reads what istiod's sidecar cluster originates: plaintext (no transport socket, or
// auto mTLS matches only, which gateway pods do not select), Istio mTLS (the "default" SDS
// certificate) or TLS, and the SNI it sets.
func clusterTLS(sim *simulation.Simulation, name string) (simulation.TLSMode, string) {
	return clusterTLSTo(sim, name, "")
}

// clusterTLSTo is clusterTLS towards an endpoint labelled security.istio.io/tlsMode=tlsMode:
// with auto mTLS the cluster has no transport socket of its own but transport socket matches,
// the one matching {tlsMode: istio} for endpoints that carry the label and the default one
// (plaintext) for the others (cluster_builder.go applyUpstreamTLSSettings).
func clusterTLSTo(sim *simulation.Simulation, name, tlsMode string) (simulation.TLSMode, string) {
	var c *clusterv3.Cluster
	for _, x := range sim.Clusters {
		if x.GetName() == name {
			c = x
		}
	}
	ts := c.GetTransportSocket()
	if ts == nil {
		for _, m := range c.GetTransportSocketMatches() {
			want := m.GetMatch().GetFields()["tlsMode"].GetStringValue()
			if want == "" || want == tlsMode {
				ts = m.GetTransportSocket()
				break
			}
		}
	}
	if ts == nil {
		return simulation.Plaintext, ""
	}
	var ctx tlsv3.UpstreamTlsContext
	if err := ts.GetTypedConfig().UnmarshalTo(&ctx); err != nil {
		return simulation.Plaintext, ""
	}
	for _, sds := range ctx.GetCommonTlsContext().GetTlsCertificateSdsSecretConfigs() {
		if sds.GetName() == "default" {
			return simulation.MTLS, ctx.GetSni()
		}
	}
	return simulation.TLS, ctx.GetSni()
}

// writePathTables writes the path agreement of the generated matrix.
func writePathTables(w *strings.Builder, label string, rs []*result) {
	agree, total := 0, 0
	outcomes := map[string]int{}
	for _, r := range rs {
		for _, c := range r.pathChecks {
			total++
			if c.agree() {
				agree++
			}
			o, mirror, _ := strings.Cut(c.istiod, ", mirror ")
			main := o
			if i := strings.Index(o, ", gateway"); i >= 0 {
				o = o[i+2:]
			}
			if strings.Contains(o, " | through ") {
				o = "works through one gateway workload of the Service, fails through another"
			} else if j := strings.Index(o, " → "); j >= 0 {
				o = "reaches a cluster"
				if strings.HasSuffix(main, "(absent)") {
					o = "cluster absent"
				} else if strings.HasSuffix(main, "(no endpoints)") {
					o = "cluster without endpoints"
				} else if strings.HasSuffix(main, "(TLS originated twice)") {
					o = "TLS originated twice"
				} else if strings.HasSuffix(main, "(plaintext to a TLS port)") {
					o = "plaintext to a TLS port"
				} else if strings.HasSuffix(main, "(HTTP/2 into a TCP chain)") {
					o = "HTTP/2 into a TCP chain"
				}
				if mirror != "" {
					o += " (mirrored)"
				}
			} else if k := strings.Index(o, ": "); k >= 0 {
				o = o[k+2:]
			}
			outcomes[o]++
		}
	}
	if total == 0 {
		return
	}
	fmt.Fprintf(w, "PATHS, %s (checks.TracePath vs istiod's sidecar simulation continued at the gateway on the target port, with the TLS of istiod's sidecar cluster)\n", label)
	fmt.Fprintf(w, "paths agreeing hop by hop: %d/%d; istiod outcomes:", agree, total)
	keys := make([]string, 0, len(outcomes))
	for k := range outcomes {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(w, " %s %d;", k, outcomes[k])
	}
	w.WriteString("\n")
	// The path dimensions' own client (team-p), by path.service × path.tls: what istiod says.
	byDim := map[string]map[string]int{}
	for _, r := range rs {
		for _, c := range r.pathChecks {
			if c.ns != "team-p" || c.host != pathHost {
				continue
			}
			k := fmt.Sprintf("%-16s %-22s %-20s %-18s %-13s %-14s %-9s %-4s", r.sc.Dims[dimPService], r.sc.Dims[dimPTLS], r.sc.Dims[dimPUpRes], r.sc.Dims[dimPOrig], r.sc.Dims[dimPMirror], r.sc.Dims[dimPRev], r.sc.Dims[dimPSel], "s:"+r.sc.Dims[dimScope])
			if byDim[k] == nil {
				byDim[k] = map[string]int{}
			}
			o := c.istiod
			if i := strings.Index(o, ", gateway"); i >= 0 {
				o = o[i+2:]
			} else if k := strings.Index(o, ": "); k >= 0 {
				o = o[k+2:]
			}
			if !c.agree() {
				o += " (DISAGREE)"
			}
			byDim[k][o]++
		}
	}
	if len(byDim) > 0 {
		fmt.Fprintf(w, "%-16s %-22s %-20s %-18s %-13s %-14s %-9s %-4s %s\n", "PATH.SERVICE", "PATH.TLS", "PATH.UPSTREAM", "PATH.ORIGINATION", "PATH.MIRROR", "PATH.REVISION", "SELECTOR", "SCOPE", "ISTIOD OUTCOMES OF team-p → "+pathHost)
		keys := make([]string, 0, len(byDim))
		for k := range byDim {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			var os []string
			for o, n := range byDim[k] {
				os = append(os, fmt.Sprintf("%s ×%d", o, n))
			}
			sort.Strings(os)
			fmt.Fprintf(w, "%s %s\n", k, strings.Join(os, "; "))
		}
	}
	w.WriteString("\n")
}

// injected returns the client pod's annotations with sidecar.istio.io/status, which the
// injector writes on a pod it gives a sidecar: istiod simulates a sidecar for every client of a
// scenario, whatever its namespace's labels say, and the plugin must trace the same proxy (a
// namespace without an injection label otherwise runs no proxy for it).
func injected(a map[string]string) map[string]string {
	out := map[string]string{"sidecar.istio.io/status": `{"containers":["istio-proxy"]}`}
	for k, v := range a {
		out[k] = v
	}
	return out
}
