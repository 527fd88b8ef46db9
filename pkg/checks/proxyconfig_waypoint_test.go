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
	// listeners: main_internal's chains, named after their clusters; the http chains' routes
	// (pay-fallback, in the entry's namespace, sends port 80 to the unbound fallback host)
	rep, err := ProxyConfig(snap, ProxyConfigOptions{Gateway: "exit/exit-wp", Sections: []string{SectionListeners, SectionRoutes}})
	if err != nil {
		t.Fatal(err)
	}
	var names, chains, routes []string
	for _, l := range rep.Listeners {
		names = append(names, l.Name)
		if l.Name == WaypointMainInternal {
			for _, c := range l.Chains {
				chains = append(chains, c.Match+" -> "+c.Destination)
			}
		}
	}
	for _, rc := range rep.Routes {
		for _, vh := range rc.VirtualHosts {
			for _, r := range vh.Routes {
				routes = append(routes, rc.Name+" "+vh.Name+" "+strings.Join(vh.Domains, ",")+" -> "+r.Cluster)
			}
		}
	}
	if !slices.Equal(names, []string{"connect_terminate", "main_internal", "connect_originate"}) {
		t.Errorf("listeners %v", names)
	}
	wantChains := []string{
		"inbound-vip|80|http|pay.example.com -> Route: inbound-vip|80|http|pay.example.com (inline)",
		"inbound-vip|443|tcp|pay.example.com -> Cluster: inbound-vip|443|tcp|pay.example.com",
		"inbound-vip|9000|tcp|pay.example.com -> Cluster: inbound-vip|9000|tcp|pay.example.com",
		"inbound-vip|9000|http|pay.example.com -> Route: inbound-vip|9000|http|pay.example.com (inline)",
		"inbound-vip|5432|tcp|ledger.example.com -> Cluster: inbound-vip|5432|tcp|ledger.example.com",
		"direct-tcp -> Cluster: encap", "direct-http -> Route: encap (inline)",
	}
	if !slices.Equal(chains, wantChains) {
		t.Errorf("main_internal chains:\n got  %v\n want %v", chains, wantChains)
	}
	wantRoutes := []string{
		"inbound-vip|80|http|pay.example.com inbound|http|80 * -> outbound|80||fallback.example.com",
		"inbound-vip|9000|http|pay.example.com inbound|http|9000 * -> outbound|80||fallback.example.com", // its only port
		"encap inbound|http|0 * -> encap",
	}
	if !slices.Equal(routes, wantRoutes) {
		t.Errorf("routes:\n got  %v\n want %v", routes, wantRoutes)
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

// TestDiffWaypointListeners: a waypoint's listeners are compared by name and main_internal's
// chains by name and tcp cluster; its inline routes are not compared as RDS.
func TestDiffWaypointListeners(t *testing.T) {
	snap := loadYAML(t, strings.Split(waypointMesh, "\n---\n")...)
	rep, err := ProxyConfig(snap, ProxyConfigOptions{Gateway: "exit/exit-wp"})
	if err != nil {
		t.Fatal(err)
	}
	d := &envoy.Dump{}
	for _, l := range rep.Listeners {
		al := envoy.Listener{Name: l.Name}
		for _, c := range l.Chains {
			ac := envoy.Chain{Name: c.Match}
			if cl, ok := strings.CutPrefix(c.Destination, "Cluster: "); ok {
				ac.Cluster = cl
			}
			if l.Name == WaypointMainInternal && c.Match == "inbound-vip|443|tcp|pay.example.com" {
				ac.Cluster = "outbound|443||elsewhere.example.com" // a tcp route the prediction lacks
			}
			al.Chains = append(al.Chains, ac)
		}
		d.Listeners = append(d.Listeners, al)
	}
	diff := DiffProxyConfig(rep, d, "test", []string{SectionListeners, SectionRoutes})
	if len(diff.Differences) != 1 || diff.Differences[0].Name != WaypointMainInternal || diff.Differences[0].State != DiffDifferent ||
		!strings.Contains(diff.Differences[0].Detail, "elsewhere.example.com") {
		t.Errorf("differences %+v", diff.Differences)
	}
	if _, ok := diff.Compared[SectionRoutes]; ok {
		t.Errorf("a waypoint's inline routes compared as RDS: %v", diff.Compared)
	}
}
