package rules

import (
	"slices"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	meshv1alpha1 "istio.io/api/mesh/v1alpha1"
	networking "istio.io/api/networking/v1alpha3"
	networkingv1 "istio.io/client-go/pkg/apis/networking/v1"
)

func TestResolveGatewayName(t *testing.T) {
	for _, c := range []struct{ in, ns, want string }{
		{"egress", "team-a", "team-a/egress"},
		{"istio-system/egress", "team-a", "istio-system/egress"},
		{"./egress", "team-a", "team-a/egress"},
		{"egress.istio-system.svc.cluster.local", "team-a", "istio-system/egress"},
		{"egress.istio-system", "team-a", "istio-system/egress"},
		{"mesh", "team-a", "mesh"},
	} {
		if got := ResolveGatewayName(c.in, c.ns); got != c.want {
			t.Errorf("ResolveGatewayName(%q, %q) = %q, want %q", c.in, c.ns, got, c.want)
		}
	}
}

func TestResolveShortname(t *testing.T) {
	for _, c := range []struct{ in, ns, want string }{
		{"reviews", "app", "reviews.app.svc.cluster.local"},
		{"api.example.com", "app", "api.example.com"},
		{"*", "app", "*"},
		{"10.0.0.1", "app", "10.0.0.1"},
		{"*.example.com", "app", "*.example.com"},
	} {
		if got := ResolveShortname(c.in, c.ns); got != c.want {
			t.Errorf("ResolveShortname(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestHostMatchingAndIntersection(t *testing.T) {
	if !HostMatches("*.example.com", "api.example.com") || !HostMatches("api.example.com", "*") || HostMatches("a.example.com", "b.example.com") {
		t.Error("HostMatches wrong")
	}
	if !HostSubsetOf("api.example.com", "*.example.com") || HostSubsetOf("*.example.com", "api.example.com") || !HostSubsetOf("*.a.example.com", "*.example.com") {
		t.Error("HostSubsetOf wrong")
	}
	got := HostIntersection([]string{"*"}, []string{"legacy-app.egress"})
	if !slices.Equal(got, []string{"legacy-app.egress"}) {
		t.Errorf("intersection(*, legacy-app.egress) = %v", got)
	}
	if got := HostIntersection([]string{"api.example.com"}, []string{"other.example.com"}); len(got) != 0 {
		t.Errorf("disjoint hosts intersect: %v", got)
	}
	if got := ServerHostsForNamespace(SanitizeServerHosts([]string{"./a.com", "team-a/b.com", "*/c.com", "d.com"}, "istio-system"), "team-a"); !slices.Equal(got, []string{"b.com", "c.com", "d.com"}) {
		t.Errorf("ServerHostsForNamespace = %v", got)
	}
	if got := SanitizeServerHosts([]string{"a.com", "*/*"}, "x"); !slices.Equal(got, []string{"*"}) {
		t.Errorf("*/* = %v", got)
	}
}

func TestServiceVisible(t *testing.T) {
	for _, c := range []struct {
		exportTo []string
		proxy    string
		want     bool
	}{
		{[]string{"*"}, "istio-system", true},
		{[]string{"."}, "istio-system", false},
		{[]string{"."}, "team-a", true},
		{[]string{".", "istio-system"}, "istio-system", true},
		{[]string{"istio-system"}, "team-a", false}, // not visible in its own namespace
		{[]string{"~"}, "team-a", false},
		{[]string{"team-a"}, "team-a", true},
	} {
		if got := ServiceVisible("team-a", c.exportTo, c.proxy); got != c.want {
			t.Errorf("ServiceVisible(team-a, %v, %s) = %v, want %v", c.exportTo, c.proxy, got, c.want)
		}
	}
	if got := EffectiveExportTo(nil, []string{"."}); !slices.Equal(got, []string{"."}) {
		t.Errorf("mesh default not applied: %v", got)
	}
	if !VirtualServiceVisible("team-a", []string{"."}, "team-a") || VirtualServiceVisible("team-a", []string{"."}, "istio-system") {
		t.Error("VirtualServiceVisible wrong for .")
	}
}

func dr(ns, name, host string, created int, exportTo []string, subsets ...string) *networkingv1.DestinationRule {
	d := &networkingv1.DestinationRule{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, CreationTimestamp: metav1.NewTime(time.Unix(int64(created), 0))}}
	d.Spec.Host = host
	d.Spec.ExportTo = exportTo
	for _, s := range subsets {
		d.Spec.Subsets = append(d.Spec.Subsets, &networking.Subset{Name: s})
	}
	return d
}

func TestDestinationRuleLookupOrder(t *testing.T) {
	const h = "istio-egressgateway.istio-system.svc.cluster.local"
	rules := []*networkingv1.DestinationRule{
		dr("team-a", "a", h, 1, nil, "api-egress"),
		dr("istio-system", "root", h, 2, nil, "root-subset"),
	}
	l := NewDRLookup(rules, "istio-system", nil)
	// team-a proxy: its own namespace's rule wins.
	if c := l.For("team-a", nil, h, "istio-system"); c.Ref() != "team-a/a" || !c.HasSubset("api-egress") {
		t.Errorf("team-a: got %v", c.Ref())
	}
	// team-b proxy: team-a's rule is not on its path (case 02), the service namespace's is.
	if c := l.For("team-b", nil, h, "istio-system"); c.Ref() != "istio-system/root" || c.HasSubset("api-egress") {
		t.Errorf("team-b: got %v", c.Ref())
	}
	// A private rule in the service namespace is not exported to team-b.
	l2 := NewDRLookup([]*networkingv1.DestinationRule{dr("svc", "p", "x.svc.svc.cluster.local", 1, []string{"."}, "s")}, "istio-system", nil)
	if c := l2.For("team-b", nil, "x.svc.svc.cluster.local", "svc"); c != nil {
		t.Errorf("private rule leaked: %v", c.Ref())
	}
	// Wildcard in the proxy namespace shadows an exact rule in the service namespace.
	l3 := NewDRLookup([]*networkingv1.DestinationRule{dr("p", "wild", "*.example.com", 1, nil), dr("svc", "exact", "api.example.com", 1, nil, "v1")}, "istio-system", nil)
	if c := l3.For("p", nil, "api.example.com", "svc"); c.Ref() != "p/wild" {
		t.Errorf("shadowing: got %v", c.Ref())
	}
	// Same bucket, equal exportTo: subsets merge, first rule names the cluster's DR.
	l4 := NewDRLookup([]*networkingv1.DestinationRule{dr("p", "one", "api.example.com", 1, nil, "v1"), dr("p", "two", "api.example.com", 2, nil, "v2")}, "istio-system", nil)
	if c := l4.For("p", nil, "api.example.com", "svc"); c.Ref() != "p/one" || !c.HasSubset("v1") || !c.HasSubset("v2") {
		t.Errorf("merge: got %v %v", c.Ref(), c.Subsets)
	}
}

func gateway(ns, name string, sel map[string]string, servers ...*networking.Server) *networkingv1.Gateway {
	g := &networkingv1.Gateway{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	g.Spec.Selector = sel
	g.Spec.Servers = servers
	return g
}

func vs(ns, name string, hosts, gateways []string) *networkingv1.VirtualService {
	v := &networkingv1.VirtualService{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	v.Spec.Hosts = hosts
	v.Spec.Gateways = gateways
	return v
}

func httpRoute(port uint32, host string) *networking.HTTPRoute {
	r := &networking.HTTPRoute{Route: []*networking.HTTPRouteDestination{{Destination: &networking.Destination{Host: host, Port: &networking.PortSelector{Number: 80}}}}}
	if port != 0 {
		r.Match = []*networking.HTTPMatchRequest{{Port: port}}
	}
	return r
}

func TestBind(t *testing.T) {
	httpServer := &networking.Server{Port: &networking.Port{Number: 80, Protocol: "HTTP", Name: "http"}, Hosts: []string{"api.example.com"}}
	tlsServer := &networking.Server{Port: &networking.Port{Number: 443, Protocol: "TLS", Name: "tls"}, Hosts: []string{"api.example.com"}, Tls: &networking.ServerTLSSettings{Mode: networking.ServerTLSSettings_PASSTHROUGH}}
	gw := gateway("istio-system", "egress", map[string]string{"istio": "egressgateway"}, httpServer, tlsServer)
	opt := BindOptions{ProxyNamespace: "istio-system", ProxyLabels: map[string]string{"istio": "egressgateway"}}

	ok := vs("team-a", "ok", []string{"api.example.com"}, []string{"istio-system/egress"})
	ok.Spec.Http = []*networking.HTTPRoute{httpRoute(80, "api.example.com")}
	if b := Bind(gw, 0, ok, opt); !b.Bound() || !slices.Equal(b.Hosts, []string{"api.example.com"}) {
		t.Errorf("http bind: %s %v", b.Reason, b.Hosts)
	}
	// HTTP routes on a TLS passthrough server (case 08): route type mismatch.
	if b := Bind(gw, 1, ok, opt); b.Reason != BindRouteType || b.RouteType != RouteTLS {
		t.Errorf("tls server with http routes: %s %s", b.Reason, b.RouteType)
	}
	wrongPort := vs("team-a", "port", []string{"api.example.com"}, []string{"istio-system/egress"})
	wrongPort.Spec.Http = []*networking.HTTPRoute{httpRoute(8080, "api.example.com")}
	if b := Bind(gw, 0, wrongPort, opt); b.Reason != BindNoMatchingRoute {
		t.Errorf("match.port 8080 on server 80: %s", b.Reason)
	}
	disjoint := vs("team-a", "disjoint", []string{"other.example.com"}, []string{"istio-system/egress"})
	disjoint.Spec.Http = []*networking.HTTPRoute{httpRoute(0, "other.example.com")}
	if b := Bind(gw, 0, disjoint, opt); b.Reason != BindHostsDisjoint {
		t.Errorf("disjoint: %s", b.Reason)
	}
	private := vs("team-a", "private", []string{"api.example.com"}, []string{"istio-system/egress"})
	private.Spec.ExportTo = []string{"."}
	private.Spec.Http = []*networking.HTTPRoute{httpRoute(0, "api.example.com")}
	if b := Bind(gw, 0, private, opt); b.Reason != BindNotVisible {
		t.Errorf("exportTo .: %s", b.Reason)
	}
	short := vs("team-a", "short", []string{"api.example.com"}, []string{"egress"})
	short.Spec.Http = []*networking.HTTPRoute{httpRoute(0, "api.example.com")}
	if b := Bind(gw, 0, short, opt); b.Reason != BindNotReferenced {
		t.Errorf("short name in another namespace: %s", b.Reason)
	}
}

func TestGatewayDestinationsDelegateAndExportToIgnored(t *testing.T) {
	root := vs("istio-system", "root", []string{"api.example.com"}, []string{"egress"})
	root.Spec.Http = []*networking.HTTPRoute{{Delegate: &networking.Delegate{Name: "routes", Namespace: "team-a"}}}
	del := vs("team-a", "routes", nil, nil)
	del.Spec.Http = []*networking.HTTPRoute{httpRoute(0, "api.example.com")}
	private := vs("team-b", "private", []string{"b.example.com"}, []string{"istio-system/egress"})
	private.Spec.ExportTo = []string{"."}
	private.Spec.Tcp = []*networking.TCPRoute{{Route: []*networking.RouteDestination{{Destination: &networking.Destination{Host: "b.example.com"}}}}}
	all := []*networkingv1.VirtualService{root, del, private}
	var hosts []string
	for _, d := range GatewayDestinations(all, "istio-system/egress", nil, false) {
		hosts = append(hosts, d.Host)
	}
	slices.Sort(hosts)
	if !slices.Equal(hosts, []string{"api.example.com", "b.example.com"}) {
		t.Errorf("destinations = %v", hosts)
	}
	// A delegate not exported to the root's namespace contributes nothing.
	del.Spec.ExportTo = []string{"."}
	if ds := GatewayDestinations([]*networkingv1.VirtualService{root, del}, "istio-system/egress", nil, false); len(ds) != 0 {
		t.Errorf("unexported delegate counted: %v", ds)
	}
}

func TestServerRouteType(t *testing.T) {
	for _, c := range []struct {
		proto string
		tls   *networking.ServerTLSSettings
		want  string
	}{
		{"HTTP", nil, RouteHTTP},
		{"GRPC", nil, RouteHTTP},
		{"HTTPS", &networking.ServerTLSSettings{Mode: networking.ServerTLSSettings_SIMPLE}, RouteHTTP},
		{"HTTPS", &networking.ServerTLSSettings{}, RouteTLS}, // omitted mode is PASSTHROUGH
		{"TLS", &networking.ServerTLSSettings{Mode: networking.ServerTLSSettings_ISTIO_MUTUAL}, RouteTCP},
		{"TLS", &networking.ServerTLSSettings{Mode: networking.ServerTLSSettings_AUTO_PASSTHROUGH}, ""},
		{"TCP", nil, RouteTCP},
	} {
		s := &networking.Server{Port: &networking.Port{Number: 1, Protocol: c.proto}, Tls: c.tls}
		if got := ServerRouteType(s); got != c.want {
			t.Errorf("%s %v: %q want %q", c.proto, c.tls, got, c.want)
		}
	}
}

func TestResolveSEVisibility(t *testing.T) {
	if v := ResolveSEVisibility(nil, nil); v.Configured || v.Visibility != VisibilityPublic {
		t.Errorf("unconfigured: %+v", v)
	}
	cfg := &meshv1alpha1.ServiceEntryVisibility{
		DefaultVisibility: meshv1alpha1.ServiceEntryVisibility_NAMESPACE,
		ApplyToSidecars:   true,
		Policies: []*meshv1alpha1.ServiceEntryVisibility_Policy{
			{Visibility: meshv1alpha1.ServiceEntryVisibility_NONE, MatchingRules: []*meshv1alpha1.ServiceEntryVisibility_MatchRule{{}}}, // no matcher: never matches
			{Visibility: meshv1alpha1.ServiceEntryVisibility_NONE, MatchingRules: []*meshv1alpha1.ServiceEntryVisibility_MatchRule{{Matcher: &meshv1alpha1.ServiceEntryVisibility_MatchRule_NamespaceSelector{
				NamespaceSelector: &meshv1alpha1.LabelSelector{MatchExpressions: []*meshv1alpha1.LabelSelectorRequirement{{Key: "x", Operator: "Bogus"}}}}}}},
			{Visibility: meshv1alpha1.ServiceEntryVisibility_PUBLIC, MatchingRules: []*meshv1alpha1.ServiceEntryVisibility_MatchRule{{Matcher: &meshv1alpha1.ServiceEntryVisibility_MatchRule_NamespaceSelector{
				NamespaceSelector: &meshv1alpha1.LabelSelector{MatchLabels: map[string]string{"trusted": "true"}}}}}},
		},
	}
	v := ResolveSEVisibility(cfg, map[string]string{"trusted": "true"})
	if v.Visibility != VisibilityPublic || v.Policy != 2 || len(v.Problems) != 2 {
		t.Errorf("trusted: %+v", v)
	}
	v = ResolveSEVisibility(cfg, nil)
	if v.Visibility != VisibilityNamespace || v.Policy != -1 {
		t.Errorf("default: %+v", v)
	}
	if got := CapExportTo([]string{"*"}, "team-a", v); !slices.Equal(got, []string{"."}) {
		t.Errorf("NAMESPACE cap of *: %v", got)
	}
	if got := CapExportTo([]string{"istio-system"}, "team-a", v); !slices.Equal(got, []string{"~"}) {
		t.Errorf("NAMESPACE cap of another namespace: %v", got)
	}
	v.ApplyToSidecars = false
	if got := CapExportTo([]string{"*"}, "team-a", v); !slices.Equal(got, []string{"*"}) {
		t.Errorf("no applyToSidecars: %v", got)
	}
}

// TestGatewayHTTPRouteMatch: a gateway route's uri match (and, for a delegated route, the root
// route's) decides whether a plain GET / takes it; the path shown is the delegate's when it has
// one. Before, every gateway route was shown as /* and taken by GET /, so a gateway whose only
// route matched /assets/v2 was predicted to route GET / (istiod: 404 NR).
func TestGatewayHTTPRouteMatch(t *testing.T) {
	server := &networking.Server{Port: &networking.Port{Number: 80, Protocol: "HTTP", Name: "http"}, Hosts: []string{"cdn.example.org"}}
	gw := gateway("egress", "cdn-gateway", map[string]string{"istio": "egress"}, server)
	opt := BindOptions{ProxyNamespace: "egress", ProxyLabels: map[string]string{"istio": "egress"}}
	prefix := func(p string) *networking.HTTPMatchRequest {
		return &networking.HTTPMatchRequest{Uri: &networking.StringMatch{MatchType: &networking.StringMatch_Prefix{Prefix: p}}}
	}
	type want struct {
		match string
		plain bool
	}
	for _, c := range []struct {
		name       string
		root, dele []*networking.HTTPMatchRequest // dele nil: no delegation
		delegated  bool
		want       want
	}{
		{"no match", nil, nil, false, want{"/*", true}},
		{"prefix /", []*networking.HTTPMatchRequest{prefix("/")}, nil, false, want{"/*", true}},
		{"prefix /v1", []*networking.HTTPMatchRequest{prefix("/v1")}, nil, false, want{"/v1*", false}},
		{"one of two matches is /", []*networking.HTTPMatchRequest{prefix("/v1"), prefix("/")}, nil, false, want{"/*", true}},
		{"header match", []*networking.HTTPMatchRequest{{Headers: map[string]*networking.StringMatch{"x-team": {MatchType: &networking.StringMatch_Exact{Exact: "a"}}}}}, nil, false, want{"/* (header x-team=a)", false}},
		{"match for another port only", []*networking.HTTPMatchRequest{{Port: 8080}}, nil, false, want{"/*", false}},
		{"delegate /assets/v2 under root /assets", []*networking.HTTPMatchRequest{prefix("/assets")}, []*networking.HTTPMatchRequest{prefix("/assets/v2")}, true, want{"/assets/v2*", false}},
		{"delegate without match under root /assets", []*networking.HTTPMatchRequest{prefix("/assets")}, nil, true, want{"/assets*", false}},
		{"delegate without match under root /", []*networking.HTTPMatchRequest{prefix("/")}, nil, true, want{"/*", true}},
		{"delegate /x under root without match", nil, []*networking.HTTPMatchRequest{prefix("/x")}, true, want{"/x*", false}},
	} {
		root := vs("egress", "root", []string{"cdn.example.org"}, []string{"cdn-gateway"})
		all := []*networkingv1.VirtualService{root}
		if c.delegated {
			root.Spec.Http = []*networking.HTTPRoute{{Match: c.root, Delegate: &networking.Delegate{Name: "assets", Namespace: "docs"}}}
			del := vs("docs", "assets", nil, nil)
			r := httpRoute(0, "cdn.example.org")
			r.Match = c.dele
			del.Spec.Http = []*networking.HTTPRoute{r}
			all = append(all, del)
		} else {
			r := httpRoute(0, "cdn.example.org")
			r.Match = c.root
			root.Spec.Http = []*networking.HTTPRoute{r}
		}
		opt.AllVS = all
		b := Bind(gw, 0, root, opt)
		if c.want.match == "/*" && !c.want.plain && len(c.root) == 1 && c.root[0].GetPort() == 8080 {
			// A match for another port leaves the server without a route at all.
			if b.Reason != BindNoMatchingRoute {
				t.Errorf("%s: bind %s", c.name, b.Reason)
			}
			continue
		}
		if !b.Bound() || len(b.Dests) != 1 {
			t.Fatalf("%s: bind %s, %d dests", c.name, b.Reason, len(b.Dests))
		}
		m, plain := GatewayHTTPRouteMatch(b.Dests[0], 80, GatewayName(gw), opt)
		if (want{m, plain}) != c.want {
			t.Errorf("%s: match %q plain %v, want %q %v", c.name, m, plain, c.want.match, c.want.plain)
		}
	}
}

// UnjoinedWildcard: a virtual host without a catch-all route, beside wildcard virtual hosts
// covering its name, names the most specific of them; a catch-all route of its own, or no
// wildcard covering it, says nothing.
func TestUnjoinedWildcard(t *testing.T) {
	vh := func(name string, catchAll bool, domains ...string) VirtualHost {
		return VirtualHost{Name: name, Domains: domains, Routes: []RouteAction{{Match: "/v2*", CatchAll: catchAll}}}
	}
	rc := &RouteConfig{Name: "http.8080", VirtualHosts: []VirtualHost{
		vh("*:80", true, "*"),
		vh("*.example.com:80", true, "*.example.com"),
		vh("*.eu.example.com:80", true, "*.eu.example.com"),
		vh("api.eu.example.com:80", false, "api.eu.example.com"),
		vh("www.example.com:80", true, "www.example.com"),
		vh("api.other.org:80", false, "api.other.org"),
	}}
	for _, c := range []struct {
		vh, want string
	}{
		{"api.eu.example.com:80", "*.eu.example.com:80"},
		{"www.example.com:80", ""},   // its own catch-all route
		{"api.other.org:80", "*:80"}, // only "*" covers it
		{"*.eu.example.com:80", ""},  // a catch-all of its own
	} {
		i := slices.IndexFunc(rc.VirtualHosts, func(v VirtualHost) bool { return v.Name == c.vh })
		w, _, ok := UnjoinedWildcard(rc, &rc.VirtualHosts[i])
		got := ""
		if ok {
			got = w.Name
		}
		if got != c.want {
			t.Errorf("%s: wildcard %q, want %q", c.vh, got, c.want)
		}
	}
}
