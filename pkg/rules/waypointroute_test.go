package rules

import (
	"testing"

	networking "istio.io/api/networking/v1alpha3"
	networkingv1 "istio.io/client-go/pkg/apis/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestWaypointL4Route: a waypoint's tcp chain takes the first tls route whose match names
// exactly the host's SNI, else the first tcp route on the port; a match with source labels or a
// source namespace never applies there (istiod matches with neither), and a route without match
// always does.
func TestWaypointL4Route(t *testing.T) {
	dest := func(h string) []*networking.RouteDestination {
		return []*networking.RouteDestination{{Destination: &networking.Destination{Host: h}}}
	}
	vs := func(tls []*networking.TLSRoute, tcp []*networking.TCPRoute) *networkingv1.VirtualService {
		return &networkingv1.VirtualService{ObjectMeta: metav1.ObjectMeta{Name: "v", Namespace: "ns"}, Spec: networking.VirtualService{Hosts: []string{"a.example"}, Tls: tls, Tcp: tcp}}
	}
	for _, c := range []struct {
		name string
		vs   *networkingv1.VirtualService
		want string
	}{
		{"tcp on the port", vs(nil, []*networking.TCPRoute{{Match: []*networking.L4MatchAttributes{{Port: 5432}}, Route: dest("db.example")}}), "db.example"},
		{"tcp on another port", vs(nil, []*networking.TCPRoute{{Match: []*networking.L4MatchAttributes{{Port: 6432}}, Route: dest("db.example")}}), ""},
		{"tcp with source labels", vs(nil, []*networking.TCPRoute{{Match: []*networking.L4MatchAttributes{{SourceLabels: map[string]string{"app": "x"}}}, Route: dest("db.example")}}), ""},
		{"tcp with a source namespace", vs(nil, []*networking.TCPRoute{{Match: []*networking.L4MatchAttributes{{SourceNamespace: "ns"}}, Route: dest("db.example")}}), ""},
		{"tcp without match", vs(nil, []*networking.TCPRoute{{Route: dest("db.example")}}), "db.example"},
		{"tls on the host's SNI first", vs([]*networking.TLSRoute{{Match: []*networking.TLSMatchAttributes{{SniHosts: []string{"a.example"}}}, Route: dest("tls.example")}}, []*networking.TCPRoute{{Route: dest("db.example")}}), "tls.example"},
		{"tls on another SNI, tcp after", vs([]*networking.TLSRoute{{Match: []*networking.TLSMatchAttributes{{SniHosts: []string{"b.example"}}}, Route: dest("tls.example")}}, []*networking.TCPRoute{{Route: dest("db.example")}}), "db.example"},
		{"tls with a source namespace", vs([]*networking.TLSRoute{{Match: []*networking.TLSMatchAttributes{{SniHosts: []string{"a.example"}, SourceNamespace: "ns"}}, Route: dest("tls.example")}}, nil), ""},
	} {
		got := ""
		if rs := WaypointL4Route([]*networkingv1.VirtualService{c.vs}, "a.example", 5432); len(rs) > 0 {
			got = rs[0].GetDestination().GetHost()
		}
		if got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}
