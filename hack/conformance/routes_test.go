package conformance

// Route calls: a request for a ServiceEntry host sent through a gateway workload, simulated on
// istiod's own listeners, routes and clusters (pilot/pkg/simulation: listener → filter chain →
// virtual host → route → cluster), against the plugin's route bindings (why-missing Routes).

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	route "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"

	networkingapi "istio.io/api/networking/v1alpha3"
	"istio.io/istio/pilot/pkg/simulation"
	"istio.io/istio/pilot/test/xdstest"
	"istio.io/istio/pkg/config/protocol"

	"github.com/kubectl-egress/kubectl-egress/pkg/checks"
	"github.com/kubectl-egress/kubectl-egress/pkg/rules"
	"github.com/kubectl-egress/kubectl-egress/pkg/snapshot"
)

// Outcomes of a route call.
const (
	outcomeNR     = "NR"     // not routed: no listener, filter chain, virtual host or route
	outcomeRouted = "ROUTED" // routed to a cluster the gateway has
	outcomeNC     = "NC"     // routed to a cluster the gateway lacks
	outcomeRouteX = "ROUTED?"
	outcomeDirect = "DIRECT" // a route that answers itself (directResponse, redirect)
)

// routeCheck is one simulated call (workload, host, listener port, call kind).
type routeCheck struct {
	scenario *scenario
	gateway  string
	role     string
	filter   bool
	scope    bool
	host     string
	// servers are the Gateway servers ("ns/name#index port PROTO") behind the listener port.
	servers      []string
	serverPort   uint32
	listenerPort uint32
	kind         string // http, tls, tcp
	flagKnown    bool

	// plugin side
	pRouted    bool
	pCluster   string // Destinations[0] of the first covering binding ("" = none)
	pPresent   bool
	pDerivable bool // the destination is the asked host: presence comes from the plugin's clusters
	pBinding   string

	// explain-listener's gateway prediction for the call (http calls the plugin routes): the
	// listener, its HCM route configuration and the virtual host the authority matches.
	pListener, pRDS, pVHost string
	explained               bool
	// pPlain: a route of that virtual host takes a plain GET / (the simulated request).
	pPlain bool
	// pFirstCluster: the cluster of the route GET / takes (its first weighted cluster).
	pFirstCluster string
	// pDirect, iDirect: the route GET / takes answers itself with this status (1: a redirect).
	pDirect, iDirect int

	// istiod side
	iListener, iRDS string
	iRouted         bool
	iCluster        string
	iPresent        bool
	iErr            string
	iVHost          string
}

func (c routeCheck) pluginOutcome() string {
	switch {
	case !c.pRouted:
		return outcomeNR
	case c.pDirect != 0:
		return outcomeDirect
	case !c.pDerivable:
		return outcomeRouteX
	case c.pPresent:
		return outcomeRouted
	}
	return outcomeNC
}

func (c routeCheck) istiodOutcome() string {
	switch {
	case c.iDirect != 0:
		return outcomeDirect
	case !c.iRouted:
		return outcomeNR
	case c.iPresent:
		return outcomeRouted
	}
	return outcomeNC
}

// agree: routed vs not routed; for calls both route, the destination cluster (when both name
// one) and, when the plugin's destination is the asked host, its presence.
func (c routeCheck) agree() bool {
	if c.pDirect != 0 || c.iDirect != 0 {
		// both answer the request themselves, with the same status, from the same virtual host
		return c.pRouted && c.pDirect == c.iDirect && (!c.explained || c.pVHost == c.iVHost)
	}
	if c.pRouted != c.iRouted {
		return false
	}
	if !c.pRouted || !c.pDerivable {
		return true
	}
	if c.pCluster != "" && c.iCluster != "" && c.pCluster != c.iCluster {
		return false
	}
	if c.explained && (c.pListener != c.iListener || c.pRDS != c.iRDS || c.pVHost != c.iVHost) {
		return false
	}
	return c.pPresent == c.iPresent
}

func (c routeCheck) class() string {
	return fmt.Sprintf("%s call: plugin %s, istiod %s", c.kind, c.pluginOutcome(), c.istiodOutcome())
}

func (c routeCheck) String() string {
	expl := ""
	if c.explained {
		expl = fmt.Sprintf(" {explain-listener %s %s %s vs istiod %s %s %s}", c.pListener, c.pRDS, c.pVHost, c.iListener, c.iRDS, c.iVHost)
	}
	return fmt.Sprintf("gateway %s (%s) PILOT_FILTER_GATEWAY_CLUSTER_CONFIG=%t PILOT_SCOPE_GATEWAY_TO_NAMESPACE=%t %s call host %s server port %d → listener %d (%s): plugin %s %s [%s] vs istiod %s %s%s%s",
		c.gateway, c.role, c.filter, c.scope, c.kind, c.host, c.serverPort, c.listenerPort, strings.Join(c.servers, ", "),
		c.pluginOutcome(), c.pCluster, c.pBinding, c.istiodOutcome(), c.iCluster, expl, func() string {
			if c.iErr != "" {
				return " (" + c.iErr + ")"
			}
			if c.iVHost != "" {
				return " (vhost " + c.iVHost + ")"
			}
			return ""
		}())
}

// serverKind says which call a Gateway server takes, or why it is not checkable.
func serverKind(s *networkingapi.Server) (kind, notCheckable string) {
	p := protocol.Parse(s.GetPort().GetProtocol())
	mode := s.GetTls().GetMode()
	switch {
	case p.IsHTTP():
		return "http", ""
	case p == protocol.HTTPS || p == protocol.TLS:
		switch mode {
		case networkingapi.ServerTLSSettings_PASSTHROUGH:
			return "tls", ""
		case networkingapi.ServerTLSSettings_AUTO_PASSTHROUGH:
			return "", "AUTO_PASSTHROUGH server (SNI-DNAT, no routes)"
		}
		return "", "server terminates TLS (" + mode.String() + ": needs a credential)"
	case p.IsTCP():
		return "tcp", ""
	}
	return "", "server protocol " + s.GetPort().GetProtocol()
}

func findServer(snap *snapshot.Snapshot, gw string, idx int) *networkingapi.Server {
	// The Gateways of the revision views (the generator's revisions): they hold the internal
	// Gateways generated from the Kubernetes Gateway API (model.View).
	all := checks.RevisionView(snap, "").Gateways
	all = append(slices.Clone(all), checks.RevisionView(snap, "canary").Gateways...)
	for _, g := range all {
		if rules.GatewayName(g) == gw && idx >= 0 && idx < len(g.Spec.Servers) {
			return g.Spec.Servers[idx]
		}
	}
	return nil
}

// compareRoutes sends, for every ServiceEntry host and gateway workload, one call per listener
// port (and call kind) behind the Gateway servers that the plugin's Routes for the host
// mention. notCheckable counts servers skipped, by reason.
func compareRoutes(t *testing.T, sc *scenario, snap *snapshot.Snapshot, proxies []proxySpec, out *istiodOut, filter, scope, known bool, notCheckable map[string]int) []routeCheck {
	var res []routeCheck
	hosts := map[string]bool{}
	for _, se := range snap.ServiceEntries {
		for _, h := range se.Spec.Hosts {
			hosts[rules.NormalizeHost(h)] = true
		}
	}
	for _, h := range sortedSet(hosts) {
		if strings.HasPrefix(h, "*") {
			continue // no single Host header / SNI to send
		}
		for _, p := range proxies {
			ps := out.sims[p.ref]
			if ps == nil {
				continue
			}
			rep, err := checks.WhyMissing(snap, checks.WhyMissingOptions{Host: h, Gateway: p.ref})
			if err != nil {
				t.Errorf("%s: plugin: %v", sc.Name, err)
				continue
			}
			gv := rep.Gateways[0]
			present := map[string]bool{}
			for _, c := range gv.Clusters {
				if c.Present {
					present[c.Name] = true
				}
			}
			type callKey struct {
				port uint32
				kind string
			}
			calls := map[callKey]*routeCheck{}
			var order []callKey
			// terminating: listener ports where a server that terminates TLS (not checkable)
			// serves the host too: Envoy gives the host's server name to its chain, so a plain
			// TLS call there meets that chain, not a passthrough server's (not compared)
			terminating := map[uint32]bool{}
			seenServer := map[string]bool{}
			for _, rb := range gv.Routes {
				srv := findServer(snap, rb.Gateway, rb.Server)
				if srv == nil {
					t.Errorf("%s: plugin route names unknown server %s#%d", sc.Name, rb.Gateway, rb.Server)
					continue
				}
				sid := fmt.Sprintf("%s#%d %d %s", rb.Gateway, rb.Server, rb.Port, rb.Protocol)
				kind, why := serverKind(srv)
				if strings.HasPrefix(why, "server terminates TLS") && rb.CoversHost {
					lp := rb.Port
					if tp, ok := ps.targetPorts[rb.Port]; ok {
						lp = tp
					}
					terminating[lp] = true
				}
				if why != "" {
					if !seenServer[sid] {
						notCheckable[why]++
					}
					seenServer[sid] = true
					continue
				}
				lp := rb.Port
				if tp, ok := ps.targetPorts[rb.Port]; ok {
					lp = tp
				}
				k := callKey{lp, kind}
				c := calls[k]
				if c == nil {
					role := ""
					if sc.ProxyRole != nil {
						role = sc.ProxyRole[p.ref]
					}
					c = &routeCheck{scenario: sc, gateway: p.ref, role: role, filter: filter, scope: scope, host: h,
						serverPort: rb.Port, listenerPort: lp, kind: kind, flagKnown: known}
					calls[k] = c
					order = append(order, k)
				}
				if !seenServer[sid] {
					c.servers = append(c.servers, sid)
				}
				seenServer[sid] = true
				if rb.CoversHost && !c.pRouted {
					c.pRouted = true
					c.pBinding = rb.VirtualService + " " + rb.Result
					if len(rb.Destinations) > 0 {
						c.pCluster = rb.Destinations[0]
						_, _, dh, ok := parseCluster(c.pCluster)
						c.pDerivable = ok && dh == h
						c.pPresent = present[c.pCluster]
					}
				}
			}
			for _, k := range order {
				c := calls[k]
				if k.kind == "tls" && terminating[k.port] {
					notCheckable["passthrough server beside a server terminating TLS for the host (the call meets its chain)"]++
					continue
				}
				simulate(ps, c, out.cds[p.ref])
				if c.pRouted && !pluginListens(t, sc, snap, p.ref, c) {
					// The route binds, but the gateway gets no listener on the port (an
					// unprivileged pod below 1024): nothing routes the call.
					c.pRouted = false
					c.pBinding += " (no listener)"
				}
				if c.kind == "http" && c.pRouted {
					// The simulated request is GET /: the plugin routes it only when a route
					// of the virtual host meets it (uri, headers, ...; a delegating root
					// route's match too), and to that route's cluster (the virtual host's
					// routes in istiod's order: another VirtualService's route may come first).
					explainGatewayCall(t, sc, snap, p.ref, c)
					if c.pFirstCluster != "" && c.pFirstCluster != c.pCluster {
						c.pCluster = c.pFirstCluster
						_, _, dh, ok := parseCluster(c.pCluster)
						c.pDerivable = ok && dh == h
						c.pPresent = present[c.pCluster]
					}
					if c.pVHost != "" && !c.pPlain {
						c.pRouted = false
						c.pBinding += " (no route matches GET /)"
					}
				}
				res = append(res, *c)
			}
		}
	}
	return res
}

// simulate sends the call through istiod's listeners and records where it ends.
func simulate(ps *proxySim, c *routeCheck, cds map[string]bool) {
	call := simulation.Call{Address: ps.ip, Port: int(c.listenerPort), CallMode: simulation.CallModeGateway}
	switch c.kind {
	case "http":
		call.Protocol, call.HostHeader = simulation.HTTP, c.host
	case "tls":
		call.Protocol, call.TLS, call.Sni = simulation.TCP, simulation.TLS, c.host
	case "tcp":
		call.Protocol = simulation.TCP
	}
	r := ps.sim.Run(call)
	c.iVHost, c.iListener, c.iRDS = r.VirtualHostMatched, r.ListenerMatched, r.RouteConfigMatched
	if r.Error != nil {
		c.iErr = r.Error.Error()
		return
	}
	cl := r.ClusterMatched
	if cl == "" && r.RouteConfigMatched != "" {
		// The simulation names only a route's single cluster; weighted clusters and direct
		// responses (the 404 of the blackhole virtual host) are read from the route itself.
		cl, c.iErr = routeAction(ps.sim, r)
		if cl == "" {
			// a route that answers itself (not the blackhole virtual host's 404)
			if !strings.HasPrefix(c.iVHost, "blackhole:") {
				if c.iErr == "redirect" {
					c.iDirect = 1
				} else if n, ok := strings.CutPrefix(c.iErr, "direct response "); ok {
					c.iDirect, _ = strconv.Atoi(n)
				}
			}
			return
		}
	}
	if cl == "" && r.RouteConfigMatched == "" {
		// a tcp_proxy splitting the connections by weight: its first cluster, as for routes
		if w := chainWeightedClusters(ps.sim, r.ListenerMatched, r.FilterChainMatched, call.Sni); len(w) > 0 {
			cl = w[0]
		}
	}
	if cl == "" || cl == "BlackHoleCluster" {
		if c.iErr == "" {
			c.iErr = "no cluster (" + cl + ")"
		}
		return
	}
	c.iRouted, c.iCluster, c.iPresent = true, cl, cds[cl]
}

// pluginListens: explain-listener (checks.ExplainListener --gateway) predicts a listener with a
// filter chain on the call's listener port.
func pluginListens(t *testing.T, sc *scenario, snap *snapshot.Snapshot, gw string, c *routeCheck) bool {
	rep, err := checks.ExplainListener(snap, checks.ExplainListenerOptions{Host: c.host, Port: c.serverPort, Gateway: gw})
	if err != nil {
		t.Errorf("%s: explain-listener: %v", sc.Name, err)
		return true
	}
	for _, l := range rep.Listeners {
		if l.Port == c.listenerPort && len(l.Chains) > 0 {
			return true
		}
	}
	return false
}

// explainGatewayCall asks explain-listener (checks.ExplainListener --gateway) for the call's
// server port and records the listener, the route configuration of its HCM chain and the virtual
// host the host matches there.
func explainGatewayCall(t *testing.T, sc *scenario, snap *snapshot.Snapshot, gw string, c *routeCheck) {
	rep, err := checks.ExplainListener(snap, checks.ExplainListenerOptions{Host: c.host, Port: c.serverPort, Gateway: gw})
	if err != nil {
		t.Errorf("%s: explain-listener: %v", sc.Name, err)
		return
	}
	c.explained = true
	for _, l := range rep.Listeners {
		if l.Port != c.listenerPort {
			continue
		}
		for _, ch := range l.Chains {
			if rds, ok := strings.CutPrefix(ch.Destination, "Route: "); ok && c.pRDS == "" {
				c.pListener, c.pRDS = l.Name, rds
			}
		}
	}
	for i := range rep.Routes {
		if rep.Routes[i].Name != c.pRDS {
			continue
		}
		if vh := rules.MatchVirtualHost(&rep.Routes[i], c.host); vh != nil {
			c.pVHost = vh.Name
			for _, r := range vh.Routes {
				if r.Plain && !c.pPlain {
					c.pDirect = r.DirectResponse
					c.pFirstCluster = r.Cluster
				}
				c.pPlain = c.pPlain || r.Plain
			}
		}
	}
}

// matchedRoute returns the route the simulation matched: the first route of the matched virtual
// host whose path matches "/", as simulation.matchRoute does (nil when there is none).
func matchedRoute(sim *simulation.Simulation, r simulation.Result) *route.Route {
	rc := xdstest.ExtractRouteConfigurations(sim.Routes)[r.RouteConfigMatched]
	for _, vh := range rc.GetVirtualHosts() {
		if vh.GetName() != r.VirtualHostMatched {
			continue
		}
		for _, rt := range vh.GetRoutes() {
			if pathMatchesRoot(rt.GetMatch()) {
				return rt
			}
		}
	}
	return nil
}

// routeAction returns the first weighted cluster of the matched route, or why it routes nowhere.
func routeAction(sim *simulation.Simulation, r simulation.Result) (string, string) {
	rt := matchedRoute(sim, r)
	if rt == nil {
		return "", "matched route not found"
	}
	switch a := rt.GetAction().(type) {
	case *route.Route_Route:
		if w := a.Route.GetWeightedClusters().GetClusters(); len(w) > 0 {
			return w[0].GetName(), ""
		}
		return "", "route without cluster"
	case *route.Route_DirectResponse:
		return "", fmt.Sprintf("direct response %d", a.DirectResponse.GetStatus())
	case *route.Route_Redirect:
		return "", "redirect"
	}
	return "", fmt.Sprintf("route action %T", rt.GetAction())
}

func pathMatchesRoot(m *route.RouteMatch) bool {
	switch pt := m.GetPathSpecifier().(type) {
	case *route.RouteMatch_Prefix:
		return strings.HasPrefix("/", pt.Prefix)
	case *route.RouteMatch_PathSeparatedPrefix:
		return strings.HasPrefix("/", pt.PathSeparatedPrefix)
	case *route.RouteMatch_Path:
		return pt.Path == "/"
	case *route.RouteMatch_SafeRegex:
		re, err := regexp.Compile(pt.SafeRegex.GetRegex())
		return err == nil && re.MatchString("/")
	}
	return false
}

// writeRouteTables writes the route-call agreement tables of the generated matrix.
func writeRouteTables(w *strings.Builder, rs []*result) {
	if len(rs) == 0 {
		return
	}
	agree, total, scAgree, scTotal := 0, 0, 0, 0
	explained, explainedAgree := 0, 0
	conf := map[string]int{}
	skipped := map[string]int{}
	for _, r := range rs {
		if r.status != "compared" {
			continue
		}
		for k, v := range r.routeSkipped {
			skipped[k] += v
		}
		if len(r.routeChecks) == 0 {
			continue
		}
		scTotal++
		if r.routeDisagreement == 0 {
			scAgree++
		}
		for _, c := range r.routeChecks {
			total++
			if c.agree() {
				agree++
			}
			conf[c.pluginOutcome()+"/"+c.istiodOutcome()]++
			if c.explained {
				explained++
				if c.pListener == c.iListener && c.pRDS == c.iRDS && c.pVHost == c.iVHost {
					explainedAgree++
				}
			}
		}
	}
	fmt.Fprintf(w, "ROUTE CALLS (simulated through istiod's listeners/routes, pilot/pkg/simulation)\n")
	fmt.Fprintf(w, "route calls agreeing: %d/%d; scenarios agreeing on every call: %d/%d\n", agree, total, scAgree, scTotal)
	fmt.Fprintf(w, "of which explain-listener --gateway (listener, route configuration, virtual host) for routed http calls: %d/%d\n", explainedAgree, explained)
	var ks []string
	for k := range conf {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	var parts []string
	for _, k := range ks {
		parts = append(parts, fmt.Sprintf("%s %d", k, conf[k]))
	}
	fmt.Fprintf(w, "outcomes (plugin/istiod; ROUTED? = routed to another host, presence not compared): %s\n", strings.Join(parts, ", "))
	fmt.Fprintf(w, "servers not checkable: %s\n\n", fmtCounts(skipped))
	extra := []dimension{{"proxy", []string{"gateway-ns", "other-ns"}}, {"call", []string{"http", "tls", "tcp"}}}
	tables := tallyDimensions(rs, extra, func(r *result) []dimCheck {
		var out []dimCheck
		for _, c := range r.routeChecks {
			out = append(out, dimCheck{extra: map[string]string{"proxy": c.role, "call": c.kind}, agree: c.agree()})
		}
		return out
	}, func(r *result) bool { return r.routeDisagreement == 0 })
	for _, t := range tables {
		d, order, tal := t, t.values, t.tal
		fmt.Fprintf(w, "%-22s %-28s %-12s %s\n", strings.ToUpper(d.name), "VALUE", "CALLS", "SCENARIOS")
		for _, v := range order {
			tl := tal[v]
			fmt.Fprintf(w, "%-22s %-28s %-12s %s\n", "", v, fmt.Sprintf("%d/%d", tl.agree, tl.total), fmt.Sprintf("%d/%d", tl.scAgree, tl.scTotal))
		}
		w.WriteString("\n")
	}
}

func fmtCounts(m map[string]int) string {
	if len(m) == 0 {
		return "none"
	}
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	var parts []string
	for _, k := range ks {
		parts = append(parts, fmt.Sprintf("%d %s", m[k], k))
	}
	return strings.Join(parts, ", ")
}
