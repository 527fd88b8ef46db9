package rules

import (
	"fmt"
	"net"
	"slices"
	"sort"
	"strconv"
	"strings"

	networking "istio.io/api/networking/v1alpha3"
	networkingv1 "istio.io/client-go/pkg/apis/networking/v1"
)

// Catch-all virtual hosts of sidecar route configurations (httproute.go buildCatchAllVirtualHost).
const (
	VHostAllowAny           = "allow_any"
	VHostBlockAll           = "block_all"
	VHostAllowAnyDynamicDNS = "allow_any_dynamic_dns"
)

// RouteAction is where an HTTP route sends a request: a cluster, weighted clusters, or a direct
// response (DirectResponse: its status, 502 for block_all, 500 for a Gateway API rule whose
// backends all weigh 0; 1 for a redirect).
type RouteAction struct {
	Match    string   `json:"match"`
	Cluster  string   `json:"cluster,omitempty"`
	Weighted []string `json:"weightedClusters,omitempty"`
	// Weights are the weights of Weighted, when known (a gateway's routes; Cluster is then the
	// first of them, the one a trace follows).
	Weights        []int32 `json:"weights,omitempty"`
	DirectResponse int     `json:"directResponse,omitempty"`
	// Abort is the answer a fault abort of the route gives every request ("HTTP 503", "gRPC
	// status 14"; FaultAbortsAll), "" when the route aborts none or only a share of them.
	Abort          string `json:"abort,omitempty"`
	VirtualService string `json:"virtualService,omitempty"`
	// Authority is the Host the route rewrites requests to (rewrite.authority, or a request
	// header set or added for :authority or host), "" when it keeps the client's.
	Authority string `json:"authority,omitempty"`
	// Mirrors are the clusters the route mirrors requests to (request_mirror_policies: clusters,
	// not routes).
	Mirrors []string `json:"mirrors,omitempty"`
	// Plain is false for routes a plain "GET /" request would not take (header, method,
	// authority or query matches, non-"/" paths).
	Plain bool `json:"-"`
	// Unsent marks a sidecar route that follows a catch-all route of its VirtualService: istiod
	// does not send it (route.go BuildHTTPRoutesForVirtualService), and no request could take
	// it. Kept for the checks that say what it meant to do; left out of proxy-config.
	Unsent bool `json:"-"`
	// CatchAll marks a gateway route that matches every request (path prefix "/" or regex
	// ".*", no header, method, authority, scheme or query match): istiod moves such routes
	// after the others of their virtual host (route.go SortVHostRoutes, IsCatchAllRoute).
	CatchAll bool `json:"-"`
	// TakesAll describes the condition of a gateway route that matches every request (a uri
	// regex "/.*"), or every request carrying a header any value matches (regex ".*"), without
	// being a catch-all for istiod: it is not moved last, and the routes after it do not match
	// those requests. "" for other routes.
	TakesAll string `json:"-"`
	// Name is the http route's name in its VirtualService (for one generated from a Gateway
	// API route, "namespace.name.index" or the rule's name), "" when unnamed.
	Name string `json:"-"`
}

// VirtualHost is one virtual host of a route configuration.
type VirtualHost struct {
	Name    string        `json:"name"`
	Domains []string      `json:"domains"`
	Routes  []RouteAction `json:"routes"`
	// Service is the registry entry the virtual host was built for ("" for VirtualService-only
	// hosts and catch-alls).
	Service string `json:"service,omitempty"`
}

// RouteConfig is one RDS route configuration of a sidecar.
type RouteConfig struct {
	Name         string        `json:"name"`
	VirtualHosts []VirtualHost `json:"virtualHosts"`
	// exact maps each exact domain to the first virtual host that lists it; set by the sidecar
	// model once the configuration is complete (nil: MatchVirtualHost scans).
	exact map[string]int
}

// indexDomains fills rc.exact; rc must not change afterwards.
func (rc *RouteConfig) indexDomains() {
	rc.exact = map[string]int{}
	for i, vh := range rc.VirtualHosts {
		for _, d := range vh.Domains {
			if _, ok := rc.exact[d]; !ok {
				rc.exact[d] = i
			}
		}
	}
}

// Route returns the sidecar route configuration named name ("<port>", or "<host>:<port>" for a
// sniffed service bound to its own address): a virtual host per VirtualService host and per
// HTTP or sniffed service on the port (VirtualService routes replace a service's default route
// to outbound|<port>||<host>), then the catch-all (allow_any → PassthroughCluster, or block_all →
// 502 under REGISTRY_ONLY). A "<host>:<port>" configuration holds only that service's virtual
// host, with domains ["*"], and no catch-all. On ports other than 80, VirtualServices whose
// hosts match no service on the port are ignored; on port 80 their hosts get virtual hosts.
//
// Mirrors istiod pilot/pkg/networking/core/httproute.go buildSidecarOutboundHTTPRouteConfig,
// BuildSidecarOutboundVirtualHosts, getVirtualHostsForSniffedServicePort and
// route/route.go BuildSidecarVirtualHostWrapper (istio-semantics.md R4.7, R8.3).
func (o *SidecarOutbound) Route(name string) *RouteConfig { return o.index().routes.Get(name) }

// routeIndexed builds a route configuration with its domain index (kept by Route).
func (o *SidecarOutbound) routeIndexed(name string) *RouteConfig {
	rc := o.buildRoute(name)
	if rc != nil {
		rc.indexDomains()
	}
	return rc
}

// buildRoute builds the route configuration Route returns (and caches).
func (o *SidecarOutbound) buildRoute(name string) *RouteConfig {
	portStr, sniffHost := name, ""
	if h, p, err := net.SplitHostPort(name); err == nil {
		portStr, sniffHost = p, h
	}
	n, err := strconv.Atoi(portStr)
	if err != nil || n <= 0 {
		return nil
	}
	port := uint32(n)
	v := o.viewForPort(port)
	if v == nil {
		return nil
	}
	vhosts := o.virtualHosts(*v, port)
	rc := &RouteConfig{Name: name}
	if sniffHost != "" {
		for _, vh := range vhosts {
			if slices.Contains(vh.Domains, sniffHost) || slices.Contains(vh.Domains, name) {
				vh.Domains = []string{"*"}
				rc.VirtualHosts = append(rc.VirtualHosts, vh)
			}
		}
		return rc
	}
	rc.VirtualHosts = append(vhosts, catchAll(o.Proxy.Scope))
	return rc
}

// catchAll mirrors httproute.go buildCatchAllVirtualHost: block_all under REGISTRY_ONLY, the
// dynamic forward proxy under ALLOW_ANY_DYNAMIC_DNS, else allow_any to the Sidecar's egressProxy
// cluster or PassthroughCluster.
func catchAll(scope SidecarScope) VirtualHost {
	switch scope.OutboundTrafficPolicy {
	case RegistryOnly:
		return VirtualHost{Name: VHostBlockAll, Domains: []string{"*"}, Routes: []RouteAction{{Match: "/*", DirectResponse: 502, Plain: true}}}
	case AllowAnyDynamicDNS:
		return VirtualHost{Name: VHostAllowAnyDynamicDNS, Domains: []string{"*"}, Routes: []RouteAction{{Match: "/*", Cluster: AllowAnyDynamicDNSCluster, Plain: true}}}
	}
	cluster := PassthroughCluster
	if scope.EgressProxy != "" {
		cluster = scope.EgressProxy
	}
	return VirtualHost{Name: VHostAllowAny, Domains: []string{"*"}, Routes: []RouteAction{{Match: "/*", Cluster: cluster, Plain: true}}}
}

// viewForPort mirrors SidecarScope.GetEgressListenerForRDS: the egress listener with that port,
// else the catch-all one.
func (o *SidecarOutbound) viewForPort(port uint32) *egressView {
	for i := range o.views {
		if p := o.views[i].l.Port; p != nil && p.Number == port {
			return &o.views[i]
		}
	}
	for i := range o.views {
		if o.views[i].l.Port == nil {
			return &o.views[i]
		}
	}
	return nil
}

func (o *SidecarOutbound) virtualHosts(v egressView, port uint32) []VirtualHost {
	byName := map[string]Service{}
	var names []string
	for _, s := range v.services {
		for _, p := range s.Ports {
			if p.Number == port {
				c := s
				c.Ports = []ServicePort{p}
				if _, ok := byName[s.Hostname]; !ok {
					names = append(names, s.Hostname)
				}
				byName[s.Hostname] = c
			}
		}
	}
	httpOrSniffed := func(s Service) bool {
		c := ListenerClass(s.Ports[0].Protocol)
		return c == ClassHTTP || c == ClassAuto
	}
	vses := v.vses
	if port != 80 {
		var wildNames []string
		for _, n := range names {
			if isWildcard(n) {
				wildNames = append(wildNames, n)
			}
		}
		vses = slices.DeleteFunc(slices.Clone(vses), func(vs *networkingv1.VirtualService) bool {
			for _, h := range vs.Spec.GetHosts() {
				h = ResolveShortname(h, vs.Namespace)
				if _, ok := byName[h]; ok {
					return false
				}
				scan := wildNames
				if isWildcard(h) {
					scan = names
				}
				for _, n := range scan {
					if HostMatches(h, n) {
						return false
					}
				}
			}
			return true
		})
	}
	var out []VirtualHost
	seenName := map[string]bool{}
	seenDomain := map[string]bool{}
	add := func(vh VirtualHost) {
		if seenName[vh.Name] {
			return
		}
		seenName[vh.Name] = true
		var d []string
		for _, x := range vh.Domains {
			if !seenDomain[x] {
				seenDomain[x] = true
				d = append(d, x)
			}
		}
		if len(d) == 0 {
			return
		}
		vh.Domains = d
		out = append(out, vh)
	}
	withVS := map[string]bool{}
	suffix := ":" + strconv.Itoa(int(port))
	for _, vs := range vses {
		routes := o.httpRoutes(vs, port, byName)
		if len(routes) == 0 {
			continue
		}
		var hosts []string
		var svcs []Service
		gwSemantics := GatewaySemantics(vs)
		for _, h := range vs.Spec.GetHosts() {
			h = strings.ToLower(ResolveShortname(h, vs.Namespace))
			if isWildcard(h) && gwSemantics {
				// Gateway API routes do not expand wildcard hosts to services
				// (separateVSHostsAndServices).
				hosts = append(hosts, h)
				continue
			}
			if !isWildcard(h) {
				if s, ok := byName[h]; ok {
					svcs = append(svcs, s)
				} else {
					hosts = append(hosts, h)
				}
				continue
			}
			found := false
			for _, n := range names {
				if HostMatches(n, h) {
					found = true
					if o.mostSpecificVS(v, n) == vs {
						svcs = append(svcs, byName[n])
					}
				}
			}
			if !found {
				hosts = append(hosts, h)
			}
		}
		// A Gateway API route applies only when one of its services is in its namespace, or the
		// proxy is (BuildSidecarVirtualHostWrapper).
		if gwSemantics && !slices.ContainsFunc(svcs, func(s Service) bool { return s.Namespace == vs.Namespace || o.Proxy.Namespace == vs.Namespace }) {
			continue
		}
		var httpSvcs []Service
		for _, s := range svcs {
			if httpOrSniffed(s) {
				httpSvcs = append(httpSvcs, s)
			}
		}
		if len(httpSvcs) == 0 && port != 80 {
			continue
		}
		for _, h := range hosts {
			add(VirtualHost{Name: h + suffix, Domains: []string{h}, Routes: routes})
		}
		for _, s := range httpSvcs {
			withVS[s.Hostname] = true
			add(VirtualHost{Name: s.Hostname + suffix, Domains: serviceDomains(s, o.Proxy), Routes: routes, Service: s.Ref()})
		}
	}
	for _, n := range names {
		s := byName[n]
		if withVS[n] || !httpOrSniffed(s) || s.Resolution == "ExternalName" {
			continue
		}
		add(VirtualHost{Name: n + suffix, Domains: serviceDomains(s, o.Proxy), Service: s.Ref(),
			Routes: []RouteAction{{Match: "/*", Cluster: ClusterName(port, "", n), Plain: true}}})
	}
	return out
}

// mostSpecificVS mirrors computeWildcardHostVirtualServiceIndex: the first VirtualService with
// the host exactly, else the one with the most specific wildcard host matching it.
func (o *SidecarOutbound) mostSpecificVS(v egressView, h string) *networkingv1.VirtualService {
	var best *networkingv1.VirtualService
	bestLen := -1
	for _, i := range v.vsIdx.exactOrWildcard(h) {
		vs := v.vses[i]
		for _, x := range vs.Spec.GetHosts() {
			x = strings.ToLower(ResolveShortname(x, vs.Namespace))
			if x == h {
				return vs
			}
			if isWildcard(x) && HostMatches(h, x) && len(x) > bestLen {
				best, bestLen = vs, len(x)
			}
		}
	}
	return best
}

// serviceDomains mirrors generateVirtualHostDomains without ports (IgnorePortInHostMatching):
// the host name and its absolute form "<host>."; for Kubernetes Services the short forms (name, name.ns, name.ns.svc in the same
// namespace; name.ns and name.ns.svc elsewhere); the service addresses as the proxy sees them
// (GetAllAddressesForProxy: an address auto-allocated to an entry without addresses when the
// proxy uses those, SidecarProxy.ServiceAddresses).
func serviceDomains(s Service, p SidecarProxy) []string {
	d := nameDomains(s, p.Namespace)
	// The ExternalName Services aliasing the host add their names (generateVirtualHostDomains
	// over Attributes.Aliases).
	for _, a := range p.Aliases[s.Hostname] {
		d = append(d, nameDomains(a, p.Namespace)...)
	}
	if s.Kind == KindService && s.Resolution == "Headless" {
		// A headless Kubernetes Service also answers "*.<name>" for each of them (its pods'
		// own DNS names, StatefulSets): generateVirtualHostDomains, wildcardDomainPrefix.
		for _, x := range slices.Clone(d) {
			d = append(d, "*."+x)
		}
	}
	for _, a := range p.ServiceAddresses(s) {
		if a != WildcardAddress && !strings.Contains(a, "/") {
			d = append(d, a)
		}
	}
	return d
}

// nameDomains: the host name, its absolute form "<host>." and, for a Kubernetes Service, its
// short forms (name, name.ns, name.ns.svc in the proxy's namespace; name.ns and name.ns.svc
// elsewhere). Mirrors GenerateAltVirtualHosts.
func nameDomains(s Service, proxyNs string) []string {
	d := []string{s.Hostname}
	if !IsIP(s.Hostname) {
		// PILOT_ENABLE_ABSOLUTE_FQDN_VHOST_DOMAIN (default true): the absolute name "<host>."
		// (httproute.go GenerateAltVirtualHosts, istio/istio#56007).
		d = append(d, s.Hostname+".")
	}
	if s.Kind == KindService {
		if s.Namespace == proxyNs {
			d = append(d, s.Name)
		}
		d = append(d, s.Name+"."+s.Namespace, s.Name+"."+s.Namespace+".svc")
	}
	return d
}

// AliasIndex maps each host name to the Kubernetes ExternalName Services that alias it,
// following chains of aliases (a loop aliases nothing), sorted by namespace and host name.
//
// Mirrors istiod pilot/pkg/model/push_context.go resolveServiceAliases (Attributes.Aliases of
// every service with the concrete host name).
func AliasIndex(services []Service) map[string][]Service {
	raw := map[string]string{} // alias host -> its external name
	var aliases []Service
	for _, s := range services {
		if s.Kind == KindService && s.ExternalName != "" {
			raw[s.Hostname] = s.ExternalName
			aliases = append(aliases, s)
		}
	}
	if len(aliases) == 0 {
		return map[string][]Service{}
	}
	out := map[string][]Service{}
	for _, a := range aliases {
		target, seen, ok := raw[a.Hostname], map[string]bool{a.Hostname: true}, true
		for {
			next, isAlias := raw[target]
			if !isAlias {
				break
			}
			if seen[target] {
				ok = false // a loop: Kubernetes answers NXDOMAIN, nothing is aliased
				break
			}
			seen[target] = true
			target = next
		}
		if ok {
			out[target] = append(out[target], a)
		}
	}
	for _, v := range out {
		sort.Slice(v, func(i, j int) bool {
			if v[i].Namespace != v[j].Namespace {
				return v[i].Namespace < v[j].Namespace
			}
			return v[i].Hostname < v[j].Hostname
		})
	}
	return out
}

// sidecarSourceMatch mirrors route.go sourceMatchHTTP for a sidecar (gateway names {mesh}): a
// match that lists gateways applies when they include "mesh", whatever its sourceLabels and
// sourceNamespace say; otherwise its sourceLabels must select the proxy and its sourceNamespace
// (when set) be the proxy's.
func sidecarSourceMatch(m *networking.HTTPMatchRequest, labels map[string]string, ns string) bool {
	if len(m.GetGateways()) > 0 {
		return slices.Contains(m.GetGateways(), MeshGateway)
	}
	if len(m.GetSourceLabels()) > 0 && !LabelsSubsetOf(m.GetSourceLabels(), labels) {
		return false
	}
	return m.GetSourceNamespace() == "" || m.GetSourceNamespace() == ns
}

// httpRoutes mirrors BuildHTTPRoutesForVirtualService on a sidecar (gateways {mesh}): a match is
// kept when its port is unset or the listener port and sidecarSourceMatch accepts it; a route
// whose matches are all dropped is skipped. Destinations use the destination port, else the listener port.
func (o *SidecarOutbound) httpRoutes(vs *networkingv1.VirtualService, port uint32, byName map[string]Service) []RouteAction {
	var out []RouteAction
	ref := vs.Namespace + "/" + vs.Name
	caughtAll := false
	for _, r := range vs.Spec.GetHttp() {
		var kept []*networking.HTTPMatchRequest
		for _, m := range r.GetMatch() {
			if m.GetPort() != 0 && m.GetPort() != port {
				continue
			}
			if !sidecarSourceMatch(m, o.Proxy.Labels, o.Proxy.Namespace) {
				continue
			}
			kept = append(kept, m)
		}
		if len(r.GetMatch()) > 0 && len(kept) == 0 {
			continue
		}
		act := RouteAction{VirtualService: ref, Match: "/*", Plain: len(kept) == 0, Name: r.GetName()}
		for _, m := range kept {
			if plainMatch(m) {
				act.Plain = true
				act.Match = matchString(m)
				break
			}
		}
		if len(kept) > 0 && !act.Plain {
			act.Match = matchString(kept[0])
		}
		act.Abort = FaultAbortsAll(r)
		act.Authority = AuthorityRewrite(r)
		switch {
		case r.GetDirectResponse() != nil:
			act.DirectResponse = int(r.GetDirectResponse().GetStatus())
		case r.GetRedirect() != nil:
			act.DirectResponse = 1 // a redirect
		case len(r.GetRoute()) == 1:
			act.Cluster = routeCluster(r.GetRoute()[0].GetDestination(), port, vs.Namespace, byName)
		default:
			// Destinations with weight 0 are left out when there are several (route.go
			// translateRoute: "Ignore 0 weighted clusters").
			for _, w := range r.GetRoute() {
				if w.GetWeight() == 0 {
					continue
				}
				act.Weighted = append(act.Weighted, routeCluster(w.GetDestination(), port, vs.Namespace, byName))
			}
		}
		act.Unsent = caughtAll
		out = append(out, act)
		// istiod stops at a catch-all route: no match, or a match Envoy takes for every
		// request; the routes after it are never sent (route.go BuildHTTPRoutesForVirtualService,
		// IsCatchAllRoute; found by the conformance suite's comparison of each virtual host's
		// clusters). They are kept, marked, for the checks that name what they meant to do.
		if len(r.GetMatch()) == 0 || slices.ContainsFunc(kept, catchAllMatch) {
			caughtAll = true
		}
	}
	return out
}

// catchAllMatch: Envoy's route for match m takes every request (route.go IsCatchAllRoute: path
// prefix "/" or regex ".*", no header or query condition; a match without uri is prefix "/").
func catchAllMatch(m *networking.HTTPMatchRequest) bool {
	if !plainMatch(m) {
		return false
	}
	switch x := m.GetUri().GetMatchType().(type) {
	case nil:
		return true
	case *networking.StringMatch_Prefix:
		return x.Prefix == "/"
	case *networking.StringMatch_Regex:
		return x.Regex == ".*"
	}
	return false
}

// FaultAbortsAll is the answer the fault abort of route r gives every request ("HTTP 503",
// "gRPC status 14"), "" when r has none or its percentage is under 100. An abort without a
// percentage is left out: istiod then sets none, and Envoy's fault filter reads the unset
// percentage as 0%.
//
// Mirrors istiod pilot/pkg/networking/core/route/route.go TranslateFault (abort.percentage →
// the filter's FaultAbort.percentage; httpStatus or grpcStatus).
func FaultAbortsAll(r *networking.HTTPRoute) string {
	a := r.GetFault().GetAbort()
	if a == nil || a.GetPercentage() == nil || a.GetPercentage().GetValue() < 100 {
		return ""
	}
	switch {
	case a.GetHttpStatus() != 0:
		return fmt.Sprintf("HTTP %d", a.GetHttpStatus())
	case a.GetGrpcStatus() != "":
		return "gRPC status " + a.GetGrpcStatus()
	}
	return ""
}

// UnknownServiceCluster is the cluster istiod routes an empty destination to: a Kubernetes
// Gateway API backendRef it refused (another namespace without a ReferenceGrant, an
// unsupported kind). No such cluster exists; Gateway API routes answer 500 for it.
const UnknownServiceCluster = "UnknownService"

// routeCluster mirrors route.go GetDestinationCluster for a sidecar route on port: byName are
// the listener's services that declare port (httproute.go servicesByName); a destination that
// is an ExternalName Service among them is routed to its external name's cluster, written as
// the Service has it.
func routeCluster(d *networking.Destination, port uint32, vsNs string, byName map[string]Service) string {
	if d.GetHost() == "" {
		return UnknownServiceCluster
	}
	h := strings.ToLower(ResolveShortname(d.GetHost(), vsNs))
	if s, ok := byName[h]; ok && s.ExternalName != "" {
		h = s.ExternalName
	}
	return ClusterName(orPort(d.GetPort().GetNumber(), port), d.GetSubset(), h)
}

func orPort(p, def uint32) uint32 {
	if p != 0 {
		return p
	}
	return def
}

// plainMatch: a match a plain "GET /" request without extra headers satisfies.
func plainMatch(m *networking.HTTPMatchRequest) bool {
	if len(m.GetHeaders()) > 0 || len(m.GetQueryParams()) > 0 || m.GetMethod() != nil || m.GetAuthority() != nil || m.GetScheme() != nil || len(m.GetWithoutHeaders()) > 0 {
		return false
	}
	u := m.GetUri()
	if u == nil {
		return true
	}
	switch x := u.GetMatchType().(type) {
	case *networking.StringMatch_Prefix:
		return x.Prefix == "/" || x.Prefix == ""
	case *networking.StringMatch_Exact:
		return x.Exact == "/"
	case *networking.StringMatch_Regex:
		return x.Regex == ".*" || x.Regex == "/.*"
	}
	return false
}

func matchString(m *networking.HTTPMatchRequest) string {
	path := "/*"
	switch x := m.GetUri().GetMatchType().(type) {
	case *networking.StringMatch_Prefix:
		path = x.Prefix + "*"
	case *networking.StringMatch_Exact:
		path = x.Exact
	case *networking.StringMatch_Regex:
		path = "regex " + x.Regex
	}
	// the other conditions, so that a header route does not read as a catch-all "/*"
	var conds []string
	str := func(sm *networking.StringMatch) string {
		switch x := sm.GetMatchType().(type) {
		case *networking.StringMatch_Exact:
			return "=" + x.Exact
		case *networking.StringMatch_Prefix:
			return "=" + x.Prefix + "*"
		case *networking.StringMatch_Regex:
			return "~" + x.Regex
		}
		return ""
	}
	for _, k := range sortedKeys(m.GetHeaders()) {
		conds = append(conds, "header "+k+str(m.GetHeaders()[k]))
	}
	for _, k := range sortedKeys(m.GetWithoutHeaders()) {
		conds = append(conds, "without header "+k)
	}
	for _, k := range sortedKeys(m.GetQueryParams()) {
		conds = append(conds, "query "+k+str(m.GetQueryParams()[k]))
	}
	if m.GetMethod() != nil {
		conds = append(conds, "method"+str(m.GetMethod()))
	}
	if m.GetAuthority() != nil {
		conds = append(conds, "authority"+str(m.GetAuthority()))
	}
	if m.GetScheme() != nil {
		conds = append(conds, "scheme"+str(m.GetScheme()))
	}
	if len(conds) == 0 {
		return path
	}
	return path + " (" + strings.Join(conds, ", ") + ")"
}

// MatchVirtualHost picks the virtual host for an authority the way Envoy does: an exact domain,
// else the longest "*.suffix" domain, else the longest "prefix*" domain, else "*"; nil when
// none (404 NR). A ":port" suffix is ignored (IgnorePortInHostMatching).
func MatchVirtualHost(rc *RouteConfig, authority string) *VirtualHost {
	authority = authorityHost(authority)
	if rc.exact != nil {
		if i, ok := rc.exact[authority]; ok {
			return &rc.VirtualHosts[i]
		}
	}
	var best *VirtualHost
	bestRank, bestLen := 0, 0
	for i := range rc.VirtualHosts {
		for _, d := range rc.VirtualHosts[i].Domains {
			if r, l := domainMatch(d, authority); r > bestRank || (r == bestRank && r > 0 && l > bestLen) {
				best, bestRank, bestLen = &rc.VirtualHosts[i], r, l
			}
		}
	}
	return best
}

// MostSpecificDomain is the domain of domains a request for authority takes, in
// MatchVirtualHost's order; "" when none matches. A gateway's route configuration takes its
// virtual hosts from several VirtualServices, and a request takes only the most specific one.
func MostSpecificDomain(domains []string, authority string) string {
	authority = authorityHost(authority)
	best, bestRank, bestLen := "", 0, 0
	for _, d := range domains {
		if r, l := domainMatch(d, authority); r > bestRank || (r == bestRank && r > 0 && l > bestLen) {
			best, bestRank, bestLen = d, r, l
		}
	}
	return best
}

// authorityHost is the lower-cased host of an authority, without a ":port" suffix.
func authorityHost(authority string) string {
	if h, _, err := net.SplitHostPort(authority); err == nil {
		authority = h
	}
	return strings.ToLower(authority)
}

// domainMatch says how specifically virtual host domain d matches host in Envoy's order (4 an
// exact domain, 3 a "*.suffix", 2 a "prefix*", 1 "*", 0 no match) and its length, which breaks
// ties between wildcards (the longest wins).
func domainMatch(d, host string) (rank, length int) {
	switch {
	case d == host:
		return 4, len(d)
	case d == "*":
		return 1, 1
	case len(d) > 1 && d[0] == '*' && len(host) >= len(d) && strings.HasSuffix(host, d[1:]):
		return 3, len(d)
	case len(d) > 1 && d[len(d)-1] == '*' && len(host) >= len(d) && strings.HasPrefix(host, d[:len(d)-1]):
		return 2, len(d)
	}
	return 0, 0
}

// AuthorityRewrite is the Host an HTTP route rewrites requests to: rewrite.authority, else a
// request header :authority or host the route sets or adds; "" when none.
//
// Mirrors istiod pilot/pkg/networking/core/route/route.go applyHTTPRouteDestination
// (HostRewriteLiteral from rewrite.authority) and translateHeadersOperations (an :authority or
// host header becomes the host rewrite; validation allows one of them).
func AuthorityRewrite(r *networking.HTTPRoute) string {
	if a := r.GetRewrite().GetAuthority(); a != "" {
		return a
	}
	for _, m := range []map[string]string{r.GetHeaders().GetRequest().GetSet(), r.GetHeaders().GetRequest().GetAdd()} {
		for k, v := range m {
			if strings.EqualFold(k, ":authority") || strings.EqualFold(k, "host") {
				return v
			}
		}
	}
	return ""
}
