package rules

import (
	"cmp"
	"fmt"
	"slices"
	"sort"
	"strings"

	networking "istio.io/api/networking/v1alpha3"
	networkingv1 "istio.io/client-go/pkg/apis/networking/v1"
)

// LabelsSubsetOf reports whether every key/value of sel is in labels; an empty sel matches.
//
// Mirrors istiod pkg/config/labels/instance.go Instance.SubsetOf.
func LabelsSubsetOf(sel, labels map[string]string) bool {
	for k, v := range sel {
		if lv, ok := labels[k]; !ok || lv != v {
			return false
		}
	}
	return true
}

// GatewaysForWorkload returns the Gateway resources that apply to a gateway pod in podNs with
// podLabels and no Service selecting it (GatewaysForProxy).
func GatewaysForWorkload(all []*networkingv1.Gateway, podNs string, podLabels map[string]string, scopeToNamespace bool) []*networkingv1.Gateway {
	return GatewaysForProxy(all, GatewayProxy{Namespace: podNs, Labels: podLabels}, scopeToNamespace)
}

// GatewayProxy is a gateway pod as istiod's gateway merging sees it: its namespace, its labels,
// and the Services selecting it (its service targets, oldest first).
type GatewayProxy struct {
	Namespace string
	Labels    map[string]string
	Services  []ServicePorts
}

// GatewaysForProxy returns the Gateway resources that apply to a gateway proxy, oldest first:
// every Gateway whose selector is empty or a subset of the pod's labels, and every Gateway
// generated from the Kubernetes Gateway API that names a Service selecting the pod (in the
// Gateway API object's namespace); restricted to Gateways in the pod's namespace when
// scopeToNamespace (PILOT_SCOPE_GATEWAY_TO_NAMESPACE). When one of them comes from a managed
// Gateway API Gateway, Gateways of other namespaces that do not come from the Gateway API are
// left out (PILOT_ENABLE_STRICT_GATEWAY_MERGING, on by default).
//
// Mirrors istiod pilot/pkg/model/push_context.go mergeGateways (candidate selection,
// InternalGatewayServiceAnnotation) and filterStrictGatewayMerging (seed §2.3).
func GatewaysForProxy(all []*networkingv1.Gateway, p GatewayProxy, scopeToNamespace bool) []*networkingv1.Gateway {
	var out []*networkingv1.Gateway
	managedNs := map[string]bool{}
	for _, g := range all {
		if scopeToNamespace && g.Namespace != p.Namespace {
			continue
		}
		if hosts, internal := g.Annotations[AnnotationGatewayService]; internal {
			known := strings.Split(hosts, ",")
			ns := gatewayParentNamespace(g)
			if !slices.ContainsFunc(p.Services, func(sp ServicePorts) bool { return sp.Namespace == ns && slices.Contains(known, sp.Host) }) {
				continue
			}
			if g.Annotations[AnnotationGatewaySemantics] == "gateway" && g.Annotations[AnnotationServiceAccount] != "" {
				managedNs[g.Namespace] = true
			}
		} else if !LabelsSubsetOf(g.Spec.Selector, p.Labels) {
			continue
		}
		out = append(out, g)
	}
	if len(managedNs) > 0 {
		out = slices.DeleteFunc(out, func(g *networkingv1.Gateway) bool {
			return g.Annotations[AnnotationGatewaySemantics] != "gateway" && !managedNs[g.Namespace]
		})
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if !a.CreationTimestamp.Equal(&b.CreationTimestamp) {
			return a.CreationTimestamp.Before(&b.CreationTimestamp)
		}
		if a.Name != b.Name {
			return a.Name < b.Name
		}
		return a.Namespace < b.Namespace
	})
	return out
}

// GatewayName returns "namespace/name" of a Gateway, the key VirtualService references resolve
// to (istiod pilot/pkg/model/gateway.go mergeGateways).
func GatewayName(g *networkingv1.Gateway) string { return g.Namespace + "/" + g.Name }

// IsHTTPProtocol reports whether a Gateway server or service port protocol is HTTP-family
// (HTTP, HTTP2, GRPC, GRPC-WEB, HTTP_PROXY), case-insensitively.
//
// Mirrors istiod pkg/config/protocol Instance.IsHTTP.
func IsHTTPProtocol(p string) bool {
	return ListenerClass(ParseProtocol(p)) == ClassHTTP
}

// ServerRouteType returns the VirtualService section a Gateway server uses (seed §4.3 table):
// RouteHTTP for HTTP-family servers and HTTPS with TLS termination, RouteTLS for TLS/HTTPS
// PASSTHROUGH (an omitted tls.mode is PASSTHROUGH), RouteTCP for TCP-like servers, servers
// without a tls block, and TLS servers that terminate; "" for AUTO_PASSTHROUGH (no routes).
//
// Mirrors istiod pilot/pkg/model/gateway.go IsHTTPServer / IsPassThroughServer and
// pilot/pkg/networking/core/gateway.go createGatewayTCPFilterChainOpts.
func ServerRouteType(s *networking.Server) string {
	proto := strings.ToUpper(s.GetPort().GetProtocol())
	passthrough := s.GetTls() != nil && (s.GetTls().GetMode() == networking.ServerTLSSettings_PASSTHROUGH ||
		s.GetTls().GetMode() == networking.ServerTLSSettings_AUTO_PASSTHROUGH)
	switch {
	case IsHTTPProtocol(proto):
		return RouteHTTP
	case proto == "HTTPS" && s.GetTls() != nil && !passthrough:
		return RouteHTTP
	case s.GetTls() == nil:
		return RouteTCP
	case s.GetTls().GetMode() == networking.ServerTLSSettings_AUTO_PASSTHROUGH:
		return ""
	case passthrough:
		return RouteTLS
	default:
		return RouteTCP
	}
}

// Binding reasons: why a VirtualService does not attach to a Gateway server (seed §2.3's three
// binding conditions, plus exportTo from §4.2 and match.port).
const (
	BindOK              = "BOUND"
	BindNotReferenced   = "GATEWAY_NOT_LISTED"
	BindNotVisible      = "VS_NOT_EXPORTED_TO_GATEWAY_NAMESPACE"
	BindHostsDisjoint   = "HOSTS_DISJOINT"
	BindRouteType       = "ROUTE_TYPE_MISMATCH"
	BindNoMatchingRoute = "NO_ROUTE_MATCHES_SERVER"
	BindAutoPassthrough = "AUTO_PASSTHROUGH_SERVER"
	// BindServerSkipped: istiod skips the server when it merges the gateway's servers
	// (MergeGatewayServers), so nothing binds to it.
	BindServerSkipped = "SERVER_SKIPPED"
)

// Binding is the result of attaching one VirtualService to one Gateway server.
type Binding struct {
	Gateway     *networkingv1.Gateway
	ServerIndex int
	Server      *networking.Server
	VS          *networkingv1.VirtualService
	// RouteType is the section the server needs (RouteHTTP, RouteTLS, RouteTCP).
	RouteType string
	// Reason is BindOK or one of the Bind* codes.
	Reason string
	// Hosts are the virtual host domains (HTTP) or matched host names (TLS/TCP) the VS gets on
	// this server.
	Hosts []string
	// Dests are the destinations of the routes that apply on this server.
	Dests []Dest
	// SNIHosts are the sniHosts of the TLS matches that apply (TLS passthrough servers).
	SNIHosts []string
	// Dropped are the problems of the delegated http routes whose delegating route applies on
	// this server but yields nothing (the delegate is missing, has hosts, or is not exported to
	// the root's namespace: virtualservice.go mergeVirtualServices drops the route).
	Dropped []DelegateProblem
}

// Bound reports whether the VirtualService yields routes on the server.
func (b Binding) Bound() bool { return b.Reason == BindOK }

// BindOptions carries the proxy and mesh values binding depends on.
type BindOptions struct {
	ProxyNamespace    string
	ProxyLabels       map[string]string
	DefaultVSExportTo []string
	AllVS             []*networkingv1.VirtualService
}

// Bind evaluates whether VirtualService vs attaches to server serverIdx of Gateway gw for a
// gateway pod described by opt. Order of checks: the VS lists the Gateway; the VS is exported
// to the pod's namespace; the server's route type has a section in the VS; hosts intersect
// (HTTP: server hosts usable from the VS namespace ∩ VS hosts; TLS/TCP: bidirectional match);
// at least one route's match passes port (against the untranslated server port), gateways,
// and for HTTP sourceLabels/sourceNamespace against the gateway pod.
//
// Mirrors istiod pilot/pkg/networking/core/gateway.go buildGatewayHTTPRouteConfig (HTTP),
// buildGatewayNetworkFiltersFromTLSRoutes / buildGatewayNetworkFiltersFromTCPRoutes with
// pickMatchingGatewayHosts (TLS/TCP), route/route.go TranslateRoute and sourceMatchHTTP, and
// l4SingleMatch (seed §2.3, §4.1, §4.3).
func Bind(gw *networkingv1.Gateway, serverIdx int, vs *networkingv1.VirtualService, opt BindOptions) Binding {
	s := gw.Spec.Servers[serverIdx]
	gwName := GatewayName(gw)
	b := Binding{Gateway: gw, ServerIndex: serverIdx, Server: s, VS: vs, RouteType: ServerRouteType(s)}
	if !slices.Contains(VSGateways(vs), gwName) {
		b.Reason = BindNotReferenced
		return b
	}
	if !VirtualServiceVisible(vs.Namespace, EffectiveExportTo(vs.Spec.ExportTo, opt.DefaultVSExportTo), opt.ProxyNamespace) {
		b.Reason = BindNotVisible
		return b
	}
	if b.RouteType == "" {
		b.Reason = BindAutoPassthrough
		return b
	}
	// A server of tcp routes (plain TCP, or terminating TLS) takes the tls routes of a
	// VirtualService generated from a TLSRoute when none of its tcp routes applies
	// (buildGatewayNetworkFiltersFromTCPRoutes' fallback for TLSRoutes on terminating listeners).
	tlsFallback := b.RouteType == RouteTCP && strings.HasPrefix(vs.Annotations[AnnotationParents], "TLSRoute/")
	if !hasSection(vs, b.RouteType) && !(tlsFallback && len(vs.Spec.Tls) > 0) {
		b.Reason = BindRouteType
		return b
	}
	vsHosts := make([]string, 0, len(vs.Spec.Hosts))
	for _, h := range vs.Spec.Hosts {
		vsHosts = append(vsHosts, strings.ToLower(ResolveShortname(h, vs.Namespace)))
	}
	serverHosts := ServerHostsForNamespace(SanitizeServerHosts(s.GetHosts(), gw.Namespace), vs.Namespace)
	if b.RouteType == RouteHTTP {
		b.Hosts = HostIntersection(serverHosts, vsHosts)
	} else {
		for _, sh := range serverHosts {
			for _, vh := range vsHosts {
				if HostMatches(sh, vh) && !slices.Contains(b.Hosts, vh) {
					b.Hosts = append(b.Hosts, vh)
				}
			}
		}
	}
	if len(b.Hosts) == 0 {
		b.Reason = BindHostsDisjoint
		return b
	}
	port := s.GetPort().GetNumber()
	dests, problems := MergedRoutes(vs, opt.AllVS, opt.DefaultVSExportTo)
	for _, d := range dests {
		if d.Kind != b.RouteType {
			continue
		}
		switch d.Kind {
		case RouteHTTP:
			if httpRouteApplies(d, port, gwName, opt) {
				b.Dests = append(b.Dests, d)
			}
		case RouteTLS:
			if sni, ok := tlsRouteApplies(d.TLS, port, gwName, d.Root.Namespace); ok {
				b.Dests = append(b.Dests, d)
				for _, h := range sni {
					if !slices.Contains(b.SNIHosts, h) {
						b.SNIHosts = append(b.SNIHosts, h)
					}
				}
			}
		case RouteTCP:
			if tcpRouteApplies(d.TCP, port, gwName, d.Root.Namespace) {
				b.Dests = append(b.Dests, d)
			}
		}
	}
	if b.RouteType == RouteHTTP {
		// Routes that answer themselves (directResponse, redirect) bind like the others: the
		// gateway's virtual host gets them (route.go translateRoute: a direct_response or
		// redirect action), in their place among the VirtualService's routes.
		for i, r := range vs.Spec.Http {
			if len(r.GetRoute()) > 0 || r.GetDelegate() != nil || (r.GetDirectResponse() == nil && r.GetRedirect() == nil) {
				continue
			}
			d := Dest{Kind: RouteHTTP, HTTP: r, RouteIndex: i, Declared: vs, Root: vs, Direct: 1}
			if dr := r.GetDirectResponse(); dr != nil {
				d.Direct = int(dr.GetStatus())
			}
			if !httpRouteApplies(d, port, gwName, opt) {
				continue
			}
			at := slices.IndexFunc(b.Dests, func(x Dest) bool { return x.Declared == vs && x.RouteIndex > i })
			if at < 0 {
				at = len(b.Dests)
			}
			b.Dests = slices.Insert(b.Dests, at, d)
		}
	}
	if len(b.Dests) == 0 && tlsFallback {
		// every match of the tls route is tried as an L4 match (port, gateways; the SNI hosts
		// are not: the server terminated TLS), and a route without a match applies nowhere
		for _, d := range dests {
			if d.Kind == RouteTLS && slices.ContainsFunc(d.TLS.GetMatch(), func(m *networking.TLSMatchAttributes) bool {
				return (m.GetPort() == 0 || m.GetPort() == port) && (len(m.GetGateways()) == 0 || containsResolvedGateway(m.GetGateways(), d.Root.Namespace, gwName))
			}) {
				d.Kind = RouteTCP
				b.Dests = append(b.Dests, d)
			}
		}
	}
	if len(b.Dests) == 0 {
		b.Reason = BindNoMatchingRoute
		if b.RouteType == RouteHTTP {
			for _, p := range problems {
				for i, r := range vs.Spec.Http {
					if dg := r.GetDelegate(); dg != nil && cmp.Or(dg.GetNamespace(), vs.Namespace)+"/"+dg.GetName() == p.Name &&
						httpRouteApplies(Dest{Kind: RouteHTTP, HTTP: r, RouteIndex: i, Declared: vs, Root: vs}, port, gwName, opt) {
						b.Dropped = append(b.Dropped, p)
						break
					}
				}
			}
		}
		return b
	}
	b.Reason = BindOK
	return b
}

func hasSection(vs *networkingv1.VirtualService, kind string) bool {
	switch kind {
	case RouteHTTP:
		return len(vs.Spec.Http) > 0
	case RouteTLS:
		return len(vs.Spec.Tls) > 0
	case RouteTCP:
		return len(vs.Spec.Tcp) > 0
	}
	return false
}

// httpRouteApplies checks the match conditions of the route (and, for delegated routes, of the
// delegating root route) against a gateway server.
func httpRouteApplies(d Dest, port uint32, gwName string, opt BindOptions) bool {
	if !httpMatchesApply(d.HTTP.GetMatch(), d.Root.Namespace, port, gwName, opt) {
		return false
	}
	if r := delegatingRoute(d); r != nil {
		return httpMatchesApply(r.GetMatch(), d.Root.Namespace, port, gwName, opt)
	}
	return true
}

// delegatingRoute is the root's http route that delegates to d's VirtualService, nil for a
// route declared in the root itself.
func delegatingRoute(d Dest) *networking.HTTPRoute {
	if d.Declared == d.Root {
		return nil
	}
	for _, r := range d.Root.Spec.Http {
		if dl := r.GetDelegate(); dl != nil && dl.GetName() == d.Declared.Name {
			return r
		}
	}
	return nil
}

func httpMatchesApply(ms []*networking.HTTPMatchRequest, vsNs string, port uint32, gwName string, opt BindOptions) bool {
	if len(ms) == 0 {
		return true
	}
	for _, m := range ms {
		if httpMatchApplies(m, vsNs, port, gwName, opt) {
			return true
		}
	}
	return false
}

// httpMatchApplies: the match's port, gateways (else sourceLabels and sourceNamespace, which
// istiod ignores when a match names gateways) admit the gateway server.
func httpMatchApplies(m *networking.HTTPMatchRequest, vsNs string, port uint32, gwName string, opt BindOptions) bool {
	if m.GetPort() != 0 && m.GetPort() != port {
		return false
	}
	if len(m.GetGateways()) > 0 {
		return containsResolvedGateway(m.GetGateways(), vsNs, gwName)
	}
	if !LabelsSubsetOf(m.GetSourceLabels(), opt.ProxyLabels) {
		return false
	}
	return m.GetSourceNamespace() == "" || m.GetSourceNamespace() == opt.ProxyNamespace
}

// GatewayHTTPRouteMatch describes the request match of an http route destination bound to a
// gateway server: the path it matches ("/*" without a uri match) and whether a plain "GET /"
// request takes it. A route applies when one of its matches that admits the server does (or it
// has none); for a delegated route, the delegating root route's match must admit the request
// too, and the path shown is the delegate's when it has one (istiod merges the root's match
// into each delegate match, which must lie within it).
//
// Mirrors istiod pilot/pkg/networking/core/route/route.go translateRouteMatch (uri, headers,
// method, authority, query parameters) and pilot/pkg/model/virtualservice.go
// mergeHTTPMatchRequests.
func GatewayHTTPRouteMatch(d Dest, port uint32, gwName string, opt BindOptions) (match string, plain bool) {
	match, plain = gatewayMatch(d.HTTP.GetMatch(), d.Root.Namespace, port, gwName, opt)
	if r := delegatingRoute(d); r != nil {
		rm, rp := gatewayMatch(r.GetMatch(), d.Root.Namespace, port, gwName, opt)
		if len(d.HTTP.GetMatch()) == 0 {
			match = rm
		}
		plain = plain && rp
	}
	return match, plain
}

// GatewayHTTPRouteCatchAll: the http route destination d bound to a gateway server becomes a
// catch-all Envoy route (route.go IsCatchAllRoute): no match, or an applying match whose uri is
// unset, prefix "/" or regex ".*" with no header, method, authority, scheme or query condition;
// for a delegated route the delegating root route's match must be one too (istiod merges them).
func GatewayHTTPRouteCatchAll(d Dest, port uint32, gwName string, opt BindOptions) bool {
	if !catchAllMatches(d.HTTP.GetMatch(), d.Root.Namespace, port, gwName, opt) {
		return false
	}
	if r := delegatingRoute(d); r != nil {
		return catchAllMatches(r.GetMatch(), d.Root.Namespace, port, gwName, opt)
	}
	return true
}

func catchAllMatches(ms []*networking.HTTPMatchRequest, vsNs string, port uint32, gwName string, opt BindOptions) bool {
	if len(ms) == 0 {
		return true
	}
	for _, m := range ms {
		if !httpMatchApplies(m, vsNs, port, gwName, opt) || !plainMatch(m) {
			continue
		}
		switch x := m.GetUri().GetMatchType().(type) {
		case nil:
			return true
		case *networking.StringMatch_Prefix:
			if x.Prefix == "/" {
				return true
			}
		case *networking.StringMatch_Regex:
			if x.Regex == ".*" {
				return true
			}
		}
	}
	return false
}

// GatewayHTTPRouteTakesAll: what makes the gateway http route of d match every request without
// istiod counting it as a catch-all (IsCatchAllRoute accepts prefix "/" and regex ".*" with no
// header or query condition only): a uri regex "/.*", or header conditions that any value meets
// (regex ".*", prefix "") on a path that matches everything, which take every request carrying
// those headers (a User-Agent, say). Such a route keeps its place in the virtual host (route.go
// SortVHostRoutes), and Envoy tries no route after it for those requests. "" otherwise (a
// delegating root route's match must take everything too).
func GatewayHTTPRouteTakesAll(d Dest, port uint32, gwName string, opt BindOptions) string {
	takes := func(ms []*networking.HTTPMatchRequest) string {
		for _, m := range ms {
			if !httpMatchApplies(m, d.Root.Namespace, port, gwName, opt) {
				continue
			}
			if plainMatch(m) && m.GetUri().GetRegex() == "/.*" {
				return `uri regex "/.*"`
			}
			if c := anyValueHeaders(m); c != "" {
				return c
			}
		}
		return ""
	}
	c := takes(d.HTTP.GetMatch())
	if c == "" {
		return ""
	}
	if r := delegatingRoute(d); r != nil && takes(r.GetMatch()) == "" && !catchAllMatches(r.GetMatch(), d.Root.Namespace, port, gwName, opt) {
		return ""
	}
	return c
}

// anyValueHeaders: for a match whose path matches everything and whose only other conditions
// are headers that any value meets, "header NAME (regex ".*")"; "" otherwise.
func anyValueHeaders(m *networking.HTTPMatchRequest) string {
	if len(m.GetHeaders()) == 0 || len(m.GetQueryParams()) > 0 || m.GetMethod() != nil || m.GetAuthority() != nil || m.GetScheme() != nil || len(m.GetWithoutHeaders()) > 0 {
		return ""
	}
	switch x := m.GetUri().GetMatchType().(type) {
	case nil:
	case *networking.StringMatch_Prefix:
		if x.Prefix != "/" && x.Prefix != "" {
			return ""
		}
	case *networking.StringMatch_Regex:
		if x.Regex != ".*" && x.Regex != "/.*" {
			return ""
		}
	default:
		return ""
	}
	var names []string
	for _, k := range sortedKeys(m.GetHeaders()) {
		v := m.GetHeaders()[k]
		switch x := v.GetMatchType().(type) {
		case *networking.StringMatch_Regex:
			if x.Regex != ".*" {
				return ""
			}
		case *networking.StringMatch_Prefix:
			if x.Prefix != "" {
				return ""
			}
		default:
			return ""
		}
		names = append(names, k)
	}
	return fmt.Sprintf("header %s (any value)", strings.Join(names, ", "))
}

// SortCatchAllLast moves the catch-all routes of a gateway's virtual host after the others,
// keeping the order within each group (route.go SortVHostRoutes, applied to every virtual host
// of a gateway route configuration: gateway.go buildGatewayHTTPRouteConfig).
func SortCatchAllLast(routes []RouteAction) {
	slices.SortStableFunc(routes, func(a, b RouteAction) int {
		switch {
		case a.CatchAll == b.CatchAll:
			return 0
		case b.CatchAll:
			return -1
		}
		return 1
	})
}

// ShadowedRoute: the catch-all routes of VirtualService Shadowed in a gateway's virtual host
// come after a catch-all route of VirtualService By, which takes every request first.
type ShadowedRoute struct {
	By, Shadowed string
	// Cond is the condition of By's route when that route takes every request (or every one
	// with some header) without being a catch-all (GatewayHTTPRouteTakesAll): then the later
	// routes of Shadowed do not match those requests, not only its catch-all ones.
	Cond string
	// Prefix is set when By's route matches uri prefix Prefix only (no other condition) and
	// comes before a route of Shadowed whose path it covers (ShadowedMatch, Shadowed's match):
	// those requests never reach Shadowed's route.
	Prefix, ShadowedMatch string
}

// ShadowedRoutes lists, for a gateway virtual host whose routes are in istiod's order
// (SortCatchAllLast), the VirtualServices whose catch-all routes follow another
// VirtualService's catch-all route: Envoy takes the first route that matches, so they never
// match (route.go SortVHostRoutes keeps the VirtualServices' order among catch-all routes).
func ShadowedRoutes(vh VirtualHost) []ShadowedRoute {
	var out []ShadowedRoute
	first := ""
	for i, r := range vh.Routes {
		if r.TakesAll != "" && r.VirtualService != "" && first == "" {
			// every later route, of whichever kind, is unreachable
			for _, later := range vh.Routes[i+1:] {
				if later.VirtualService != "" && later.VirtualService != r.VirtualService && !slices.ContainsFunc(out, func(x ShadowedRoute) bool { return x.Shadowed == later.VirtualService }) {
					out = append(out, ShadowedRoute{By: r.VirtualService, Shadowed: later.VirtualService, Cond: r.TakesAll})
				}
			}
			return out
		}
		if r.VirtualService != "" && !r.CatchAll {
			if p, ok := prefixOnly(r.Match); ok {
				// A route on a uri prefix and nothing else keeps its place (it is no
				// catch-all) and takes every later route's requests whose path starts with it.
				for _, later := range vh.Routes[i+1:] {
					if later.VirtualService == "" || later.VirtualService == r.VirtualService || later.CatchAll || !pathCoveredBy(later.Match, p) ||
						slices.ContainsFunc(out, func(x ShadowedRoute) bool { return x.Shadowed == later.VirtualService }) {
						continue
					}
					out = append(out, ShadowedRoute{By: r.VirtualService, Shadowed: later.VirtualService, Prefix: p, ShadowedMatch: later.Match})
				}
			}
		}
		if !r.CatchAll || r.VirtualService == "" {
			continue
		}
		if first == "" {
			first = r.VirtualService
			continue
		}
		if r.VirtualService != first && !slices.ContainsFunc(out, func(x ShadowedRoute) bool { return x.Shadowed == r.VirtualService }) {
			out = append(out, ShadowedRoute{By: first, Shadowed: r.VirtualService})
		}
	}
	return out
}

// prefixOnly: a route match string (matchString) that is a uri prefix without other conditions,
// and the prefix.
func prefixOnly(match string) (string, bool) {
	if strings.ContainsRune(match, ' ') || !strings.HasSuffix(match, "*") || match == "/*" {
		return "", false
	}
	return strings.TrimSuffix(match, "*"), true
}

// pathCoveredBy: every request a route match string (matchString) takes has a path that starts
// with prefix p (a uri prefix or exact path starting with p; a regex is not judged).
func pathCoveredBy(match, p string) bool {
	path, _, _ := strings.Cut(match, " ")
	if strings.HasPrefix(match, "regex ") || path == "/*" {
		return false
	}
	return strings.HasPrefix(strings.TrimSuffix(path, "*"), p)
}

// UnjoinedWildcard: virtual host vh of a gateway route configuration has no catch-all route, and
// another virtual host of rc has a wildcard domain covering one of vh's domains. istiod builds one
// virtual host per host name the bound VirtualServices list and never joins a wildcard's routes
// into a more specific name's (gateway.go buildGatewayHTTPRouteConfig, vHostDedupMap keyed by
// each intersecting host), and Envoy picks the most specific domain, so the wildcard's routes
// never serve that name: its requests that vh's routes do not match get 404 NR. It returns the
// wildcard virtual host, the most specific one when several cover the name.
func UnjoinedWildcard(rc *RouteConfig, vh *VirtualHost) (*VirtualHost, string, bool) {
	if len(vh.Routes) == 0 || slices.ContainsFunc(vh.Routes, func(r RouteAction) bool { return r.CatchAll }) {
		return nil, "", false
	}
	var best *VirtualHost
	bestDomain, name := "", ""
	for _, d := range vh.Domains {
		for i := range rc.VirtualHosts {
			w := &rc.VirtualHosts[i]
			if w.Name == vh.Name || len(w.Routes) == 0 {
				continue
			}
			for _, wd := range w.Domains {
				if wd == d || !strings.HasPrefix(wd, "*") || !HostMatches(wd, d) {
					continue
				}
				if best == nil || len(wd) > len(bestDomain) {
					best, bestDomain, name = w, wd, d
				}
			}
		}
	}
	return best, name, best != nil
}

// gatewayMatch: the first applying match a plain request meets, else the first applying match;
// "/*" and plain when there are no matches.
func gatewayMatch(ms []*networking.HTTPMatchRequest, vsNs string, port uint32, gwName string, opt BindOptions) (string, bool) {
	if len(ms) == 0 {
		return "/*", true
	}
	first := ""
	for _, m := range ms {
		if !httpMatchApplies(m, vsNs, port, gwName, opt) {
			continue
		}
		if plainMatch(m) {
			return matchString(m), true
		}
		if first == "" {
			first = matchString(m)
		}
	}
	if first == "" {
		first = "/*"
	}
	return first, false
}

func tlsRouteApplies(r *networking.TLSRoute, port uint32, gwName, vsNs string) ([]string, bool) {
	var sni []string
	ok := false
	for _, m := range r.GetMatch() {
		if m.GetPort() != 0 && m.GetPort() != port {
			continue
		}
		if len(m.GetGateways()) > 0 && !containsResolvedGateway(m.GetGateways(), vsNs, gwName) {
			continue
		}
		ok = true
		sni = append(sni, m.GetSniHosts()...)
	}
	return sni, ok
}

func tcpRouteApplies(r *networking.TCPRoute, port uint32, gwName, vsNs string) bool {
	if len(r.GetMatch()) == 0 {
		return true
	}
	for _, m := range r.GetMatch() {
		if m.GetPort() != 0 && m.GetPort() != port {
			continue
		}
		if len(m.GetGateways()) > 0 && !containsResolvedGateway(m.GetGateways(), vsNs, gwName) {
			continue
		}
		return true
	}
	return false
}

func containsResolvedGateway(gws []string, vsNs, gwName string) bool {
	for _, g := range gws {
		if ResolveGatewayName(g, vsNs) == gwName {
			return true
		}
	}
	return false
}

// GatewayVSGroup ranks a VirtualService in the order istiod takes the VirtualServices bound to
// a gateway whose pod runs in proxyNs: 0 private to proxyNs (its own namespace, exportTo "." or
// that namespace's name), 1 exported to proxyNs by name, 2 public ("*") and generated from a
// Gateway API route in proxyNs (the "consumer override"), 3 the other public ones; within a
// group, oldest first (SortGatewayVirtualServices). defaultExportTo is
// meshConfig.defaultVirtualServiceExportTo.
//
// Mirrors istiod pilot/pkg/model/push_context.go initVirtualServices (privateByNamespaceAndGateway,
// exportedToNamespaceByGateway, publicByGateway) and VirtualServicesForGateway (public routes
// with gateway semantics in the proxy's namespace first).
func GatewayVSGroup(vs *networkingv1.VirtualService, proxyNs string, defaultExportTo []string) int {
	exp := EffectiveExportTo(vs.Spec.GetExportTo(), defaultExportTo)
	if slices.Contains(exp, ExportPublic) {
		if vs.Namespace == proxyNs && GatewaySemantics(vs) {
			return 2
		}
		return 3
	}
	if vs.Namespace == proxyNs && (slices.Contains(exp, ExportPrivate) || slices.Contains(exp, proxyNs)) {
		return 0
	}
	return 1
}

// SortGatewayVirtualServices orders VirtualServices bound to a gateway whose pod runs in proxyNs
// as istiod does: by GatewayVSGroup, then oldest first, then name, then namespace.
func SortGatewayVirtualServices(x []*networkingv1.VirtualService, proxyNs string, defaultExportTo []string) {
	sort.SliceStable(x, func(i, j int) bool {
		gi, gj := GatewayVSGroup(x[i], proxyNs, defaultExportTo), GatewayVSGroup(x[j], proxyNs, defaultExportTo)
		if gi != gj {
			return gi < gj
		}
		if !x[i].CreationTimestamp.Equal(&x[j].CreationTimestamp) {
			return x[i].CreationTimestamp.Before(&x[j].CreationTimestamp)
		}
		if x[i].Name != x[j].Name {
			return x[i].Name < x[j].Name
		}
		return x[i].Namespace < x[j].Namespace
	})
}
