package checks

import (
	"slices"
	"strings"
	"testing"

	"github.com/kubectl-egress/kubectl-egress/pkg/envoy"
)

// waypointMesh: waypoint exit/exit-wp with entries bound to it (one exported everywhere with a
// root-namespace DestinationRule of two subsets, one exported to its own namespace only), an
// entry not bound, a mesh VirtualService from a bound host to that entry, and the waypoint's
// Deployment.
const waypointMesh = `apiVersion: v1
kind: Namespace
metadata: {name: exit}
---
apiVersion: v1
kind: Namespace
metadata: {name: shop, labels: {istio.io/dataplane-mode: ambient}}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: exit-wp, namespace: exit}
spec:
  gatewayClassName: istio-waypoint
  listeners: [{name: mesh, port: 15008, protocol: HBONE, allowedRoutes: {namespaces: {from: All}}}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: exit-wp, namespace: exit}
spec:
  selector: {matchLabels: {gateway.networking.k8s.io/gateway-name: exit-wp}}
  template:
    metadata: {labels: {gateway.networking.k8s.io/gateway-name: exit-wp}}
    spec: {containers: [{name: istio-proxy, image: proxyv2}]}
---
apiVersion: networking.istio.io/v1
kind: ServiceEntry
metadata: {name: pay, namespace: shop, labels: {istio.io/use-waypoint: exit-wp, istio.io/use-waypoint-namespace: exit}}
spec:
  hosts: [pay.example.com]
  resolution: DNS
  ports:
  - {number: 80, name: http, protocol: HTTP}
  - {number: 443, name: tls, protocol: TLS}
  - {number: 9000, name: other}
  - {number: 53, name: dns, protocol: UDP}
---
apiVersion: networking.istio.io/v1
kind: DestinationRule
metadata: {name: pay, namespace: istio-system}
spec:
  host: pay.example.com
  subsets: [{name: blue}, {name: green}]
---
apiVersion: networking.istio.io/v1
kind: ServiceEntry
metadata: {name: ledger, namespace: shop, labels: {istio.io/use-waypoint: exit-wp, istio.io/use-waypoint-namespace: exit}}
spec:
  hosts: [ledger.example.com]
  exportTo: ["."]
  resolution: STATIC
  endpoints: [{address: 192.0.2.7}]
  ports: [{number: 5432, name: pg, protocol: TCP}]
---
apiVersion: networking.istio.io/v1
kind: DestinationRule
metadata: {name: ledger, namespace: istio-system}
spec:
  host: ledger.example.com
  subsets: [{name: primary}]
---
apiVersion: networking.istio.io/v1
kind: ServiceEntry
metadata: {name: fallback, namespace: shop}
spec:
  hosts: [fallback.example.com]
  resolution: NONE
  ports: [{number: 80, name: http, protocol: HTTP}]
---
apiVersion: networking.istio.io/v1
kind: VirtualService
metadata: {name: pay-fallback, namespace: shop}
spec:
  hosts: [pay.example.com]
  http:
  - route:
    - destination: {host: fallback.example.com}
`

// TestWaypointProxyConfig: a waypoint's predicted clusters are its three internal clusters, an
// inbound-vip cluster per bound entry's port and kind (HTTP ports http, TLS and TCP ports tcp, a
// port without a protocol both, UDP none) and per subset of the rule its namespace applies (none
// for an entry hidden from the waypoint's namespace), and the outbound clusters of an unbound
// host a mesh route of a bound one sends to (ORIGINAL_DST for NONE: a waypoint is no ROUTER).
// istiod's own generation agrees on generated meshes (hack/conformance
// TestConformanceWaypointClusters).
func TestWaypointProxyConfig(t *testing.T) {
	snap := loadYAML(t, strings.Split(waypointMesh, "\n---\n")...)
	for _, ref := range []string{"exit/exit-wp"} {
		rep, err := ProxyConfig(snap, ProxyConfigOptions{Gateway: ref, Sections: []string{SectionClusters}})
		if err != nil {
			t.Fatal(err)
		}
		if rep.Proxy.Type != "WAYPOINT" || rep.Proxy.Workload != "exit/exit-wp" {
			t.Errorf("proxy %+v", rep.Proxy)
		}
		var got []string
		for _, c := range rep.Clusters {
			got = append(got, c.Name+" "+c.Type)
		}
		for _, w := range []string{
			"main_internal STATIC", "encap STATIC", "connect_originate ORIGINAL_DST",
			"inbound-vip|80|http|pay.example.com STRICT_DNS", "inbound-vip|80|http/blue|pay.example.com STRICT_DNS", "inbound-vip|80|http/green|pay.example.com STRICT_DNS",
			"inbound-vip|443|tcp|pay.example.com STRICT_DNS", "inbound-vip|443|tcp/blue|pay.example.com STRICT_DNS",
			"inbound-vip|9000|tcp|pay.example.com STRICT_DNS", "inbound-vip|9000|http|pay.example.com STRICT_DNS", "inbound-vip|9000|http/green|pay.example.com STRICT_DNS",
			"inbound-vip|5432|tcp|ledger.example.com EDS",
			"outbound|80||fallback.example.com ORIGINAL_DST",
		} {
			if !slices.Contains(got, w) {
				t.Errorf("missing %q in\n%s", w, strings.Join(got, "\n"))
			}
		}
		for _, g := range got {
			if strings.Contains(g, "|53|") || strings.Contains(g, "|443|http") || strings.Contains(g, "|80|tcp") ||
				strings.Contains(g, "primary") || strings.HasPrefix(g, "outbound|80||pay.example.com") {
				t.Errorf("unexpected cluster %q", g)
			}
		}
		if len(got) != 3+9+3+1+1 {
			t.Errorf("%d clusters:\n%s", len(got), strings.Join(got, "\n"))
		}
	}
	// --gateway naming the waypoint's Deployment is the same proxy
	rep, err := ProxyConfig(snap, ProxyConfigOptions{Gateway: "exit/exit-wp", Sections: []string{SectionListeners}})
	if err != nil || len(rep.Listeners) != 0 || len(rep.Notes) == 0 || !strings.Contains(rep.Notes[0], "listeners and routes are not predicted") {
		t.Errorf("listeners of a waypoint: %v %+v", err, rep)
	}
}

// TestDiffWaypointProxyConfig: a waypoint's dump is compared on its inbound-vip and internal
// clusters too, not only the outbound ones.
func TestDiffWaypointProxyConfig(t *testing.T) {
	snap := loadYAML(t, strings.Split(waypointMesh, "\n---\n")...)
	rep, err := ProxyConfig(snap, ProxyConfigOptions{Gateway: "exit/exit-wp", Sections: []string{SectionClusters}})
	if err != nil {
		t.Fatal(err)
	}
	d := &envoy.Dump{}
	for _, c := range rep.Clusters {
		if c.Name != "inbound-vip|5432|tcp|ledger.example.com" {
			d.Clusters = append(d.Clusters, envoy.Cluster{Name: c.Name, Type: c.Type})
		}
	}
	d.Clusters = append(d.Clusters, envoy.Cluster{Name: "inbound-vip|8080|http|stale.example.com", Type: "EDS"}, envoy.Cluster{Name: "prometheus_stats", Type: "STATIC"})
	diff := DiffProxyConfig(rep, d, "test", []string{SectionClusters})
	var got []string
	for _, x := range diff.Differences {
		got = append(got, x.Name+" "+x.State)
	}
	want := []string{"inbound-vip|5432|tcp|ledger.example.com MISSING", "inbound-vip|8080|http|stale.example.com EXTRA"}
	if !slices.Equal(got, want) {
		t.Errorf("differences %v, want %v", got, want)
	}
}
