package rules

import (
	"testing"

	networking "istio.io/api/networking/v1alpha3"
	networkingv1 "istio.io/client-go/pkg/apis/networking/v1"
)

// Regression tests for the disagreements the listener-call conformance comparison found
// (docs/conformance.md, listener calls).

// An egress listener importing only exact "ns/host" names orders its candidates oldest first
// (istiod servicesForExactHosts), so an older public entry keeps a shared TCP listener that a
// newer entry exported by name wins otherwise (servicesExportedToNamespace lists it first).
func TestExactHostImportsOrderByCreation(t *testing.T) {
	a := svc("other", "db-a", "db-a.example.net", 1, []string{"*"}, ServicePort{Number: 5432, Protocol: ProtoTCP})
	b := svc("other", "db-b", "db-b.example.net", 2, []string{"team-a"}, ServicePort{Number: 5432, Protocol: ProtoTCP})
	for _, c := range []struct {
		hosts []string
		exact bool
		want  string
	}{
		{[]string{"*/*"}, false, "outbound|5432||db-b.example.net"},
		{[]string{"other/*"}, false, "outbound|5432||db-b.example.net"},
		{[]string{"other/db-a.example.net", "other/db-b.example.net", "~other/nothing.example.net"}, true, "outbound|5432||db-a.example.net"},
	} {
		scope := NewSidecarScope(sidecarCR("team-a", "default", nil, c.hosts...), "")
		if got := scope.Egress[0].AllExactHosts(); got != c.exact {
			t.Errorf("%v: AllExactHosts = %t", c.hosts, got)
		}
		o := BuildSidecarOutbound(SidecarProxy{Namespace: "team-a", Scope: scope, Services: []Service{b, a}})
		if r := o.Resolve(Call{Host: "db-a.example.net", Port: 5432, Kind: CallTCP}); r.Cluster != c.want {
			t.Errorf("%v: db-a traffic goes to %q, want %q", c.hosts, r.Cluster, c.want)
		}
	}
}

// A tcp route destination without port takes the only port of the sidecar scope's service for
// the host: the proxy namespace's entry (selectServices), not the gateway-style choice of an
// entry exported to the namespace by name.
func TestTCPRouteDestinationPortFromScopeService(t *testing.T) {
	own := svc("egress", "api", "api.example.com", 1, []string{"*"}, ServicePort{Number: 5432, Protocol: ProtoTCP})
	own.Addresses = []string{"240.240.10.1"}
	other := svc("other", "api-other", "api.example.com", 2, []string{"egress"}, ServicePort{Number: 8000, Protocol: ProtoHTTP})
	route := &networkingv1.VirtualService{Spec: networking.VirtualService{Hosts: []string{"api.example.com"}, Gateways: []string{"mesh"},
		Tcp: []*networking.TCPRoute{{Route: []*networking.RouteDestination{{Destination: &networking.Destination{Host: "api.example.com"}}}}}}}
	route.Namespace, route.Name = "app", "api-mesh-l4"
	o := BuildSidecarOutbound(SidecarProxy{Namespace: "egress", Scope: NewSidecarScope(nil, ""), Services: []Service{own, other}, VirtualServices: []*networkingv1.VirtualService{route}})
	if s, ok := o.ScopeService("api.example.com"); !ok || s.Name != "api" {
		t.Fatalf("scope service: %+v %t", s, ok)
	}
	r := o.Resolve(Call{Host: "api.example.com", Port: 5432, Kind: CallTCP, Address: "240.240.10.1"})
	if r.Listener != "240.240.10.1_5432" || r.Cluster != "outbound|5432||api.example.com" {
		t.Errorf("got listener %q cluster %q", r.Listener, r.Cluster)
	}
}

// TestExcludedEverywhere: an exclusion removes a host only in the listener that lists it, for
// the service's namespace ("~ns/host", "." being the proxy's) or every namespace ("~/host"), by
// host subset (istiod sidecar.go selectServices, hostClassification.Excluded).
func TestExcludedEverywhere(t *testing.T) {
	scope := func(listeners ...[]string) SidecarScope {
		s := SidecarScope{Sidecar: &networkingv1.Sidecar{}}
		for _, hosts := range listeners {
			s.Egress = append(s.Egress, EgressListener{Hosts: hosts})
		}
		return s
	}
	for _, c := range []struct {
		name     string
		s        SidecarScope
		svcNs    string
		excluded bool
	}{
		{"namespace exclusion", scope([]string{"*/*", "~billing/api.example.com"}), "billing", true},
		{"another namespace's", scope([]string{"*/*", "~billing/api.example.com"}), "support", false},
		{"every namespace", scope([]string{"*/*", "~/api.example.com"}), "support", true},
		{"dot is the proxy's namespace", scope([]string{"*/*", "~./api.example.com"}), "web", true},
		{"wildcard exclusion", scope([]string{"*/*", "~billing/*.example.com"}), "billing", true},
		{"another host", scope([]string{"*/*", "~billing/other.example.com"}), "billing", false},
		{"one listener of two", scope([]string{"~billing/api.example.com"}, []string{"*/*"}), "billing", false},
		{"both listeners", scope([]string{"~billing/api.example.com"}, []string{"*/*", "~/api.example.com"}), "billing", true},
		{"no listeners", SidecarScope{}, "billing", false},
	} {
		if got := c.s.ExcludedEverywhere("web", c.svcNs, "api.example.com"); got != c.excluded {
			t.Errorf("%s: excluded %v, want %v", c.name, got, c.excluded)
		}
	}
}
