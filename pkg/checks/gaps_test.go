package checks

import (
	"slices"
	"strings"
	"testing"

	"github.com/kubectl-egress/kubectl-egress/pkg/rules"
)

// Rules an independent generator found missing (../shared/conformance-gaps), each shown here on
// scenarios written anew, with a control that differs only in the rule's trigger.

const gapsBase = `apiVersion: v1
kind: Namespace
metadata: {name: shop, labels: {istio-injection: enabled}}
---
apiVersion: v1
kind: Pod
metadata: {name: cart-0, namespace: shop, labels: {app: cart}}
spec: {containers: [{name: app, image: cart}]}
---
`

// sourceLabels are not checked when an http match names gateways (route.go sourceMatchHTTP): the
// first route applies to pod shop/cart-0 although it selects app=checkout; without gateways in
// the match it does not.
func TestGapSourceLabelsIgnoredWithGateways(t *testing.T) {
	for _, c := range []struct {
		gateways, want string
	}{
		{"\n      gateways: [mesh]", "outbound|8080||audit.shop.internal"},
		{"", "outbound|8080||payments.example.org"},
	} {
		snap := snapFromYAML(t, gapsBase+`apiVersion: networking.istio.io/v1
kind: ServiceEntry
metadata: {name: payments, namespace: shop}
spec:
  hosts: [payments.example.org]
  resolution: DNS
  ports: [{number: 8080, name: http-api, protocol: HTTP}]
---
apiVersion: networking.istio.io/v1
kind: VirtualService
metadata: {name: payments, namespace: shop}
spec:
  hosts: [payments.example.org]
  http:
  - match:
    - sourceLabels: {app: checkout}`+c.gateways+`
    route:
    - destination: {host: audit.shop.internal, port: {number: 8080}}
  - route:
    - destination: {host: payments.example.org, port: {number: 8080}}
`)
		rep, err := ExplainListener(snap, ExplainListenerOptions{Host: "payments.example.org", Port: 8080, Pod: "shop/cart-0"})
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Calls) == 0 || rep.Calls[0].Result.Cluster != c.want {
			t.Errorf("gateways %q: call ends at %+v, want %s", c.gateways, rep.Calls, c.want)
		}
	}
}

// A wildcard DYNAMIC_DNS entry gets a dynamic forward proxy cluster on each HTTP, TLS, GRPC or
// HTTP2 port, none on TCP ports and no subset clusters; the same entry with a single host is an
// ordinary EDS service with its subsets.
func TestGapDynamicDNSClusters(t *testing.T) {
	entry := func(host string) string {
		return gapsBase + `apiVersion: networking.istio.io/v1
kind: ServiceEntry
metadata: {name: cdn, namespace: shop}
spec:
  hosts: ["` + host + `"]
  resolution: DYNAMIC_DNS
  ports:
  - {number: 443, name: tls, protocol: TLS}
  - {number: 7070, name: grpc, protocol: GRPC}
  - {number: 5000, name: tcp, protocol: TCP}
---
apiVersion: networking.istio.io/v1
kind: DestinationRule
metadata: {name: cdn, namespace: shop}
spec:
  host: "` + host + `"
  subsets: [{name: blue, labels: {color: blue}}]
`
	}
	rep, err := ProxyConfig(snapFromYAML(t, entry("*.cdn.example.net")), ProxyConfigOptions{From: "shop", Sections: []string{SectionClusters}})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"outbound|443||*.cdn.example.net DYNAMIC_FORWARD_PROXY", "outbound|7070||*.cdn.example.net DYNAMIC_FORWARD_PROXY"}
	if got := clusterNames(rep.Clusters); !slices.Equal(got, want) {
		t.Errorf("wildcard DYNAMIC_DNS clusters:\n got  %v\n want %v", got, want)
	}
	rep, err = ProxyConfig(snapFromYAML(t, entry("edge.cdn.example.net")), ProxyConfigOptions{From: "shop", Sections: []string{SectionClusters}})
	if err != nil {
		t.Fatal(err)
	}
	names := clusterNames(rep.Clusters)
	for _, w := range []string{"outbound|5000||edge.cdn.example.net EDS", "outbound|443|blue|edge.cdn.example.net EDS"} {
		if !slices.Contains(names, w) {
			t.Errorf("single-host DYNAMIC_DNS: %s missing: %v", w, names)
		}
	}
}

// Services of equal creation time are ordered by host name, then namespace
// (SortServicesByCreationTime): of two TCP entries without addresses on one port created in the
// same second, the one whose host sorts first takes the catch-all chain, whatever the resource
// names; one second apart, the older one does.
func TestGapEqualAgeOrder(t *testing.T) {
	entry := func(name, host, ts string) string {
		return `apiVersion: networking.istio.io/v1
kind: ServiceEntry
metadata: {name: ` + name + `, namespace: shop, creationTimestamp: "` + ts + `"}
spec:
  hosts: [` + host + `]
  resolution: DNS
  ports: [{number: 6379, name: tcp-cache, protocol: TCP}]
`
	}
	for _, c := range []struct {
		ts2, want string
	}{
		{"2026-03-01T10:00:00Z", "outbound|6379||alpha-cache.example.com"},
		{"2026-03-01T10:00:01Z", "outbound|6379||omega-cache.example.com"},
	} {
		snap := snapFromYAML(t, gapsBase+entry("a-first", "omega-cache.example.com", "2026-03-01T10:00:00Z")+"---\n"+entry("z-last", "alpha-cache.example.com", c.ts2))
		v := BuildSidecarView(snap, "shop", nil)
		res := v.Outbound.Resolve(rules.Call{Host: "anything.example.com", Port: 6379, Kind: rules.CallTCP, Address: "203.0.113.9"})
		if res.Cluster != c.want {
			t.Errorf("second entry at %s: catch-all goes to %s, want %s", c.ts2, res.Cluster, c.want)
		}
	}
	// Two hosts of one entry share an address: the host that sorts first owns the listener.
	snap := snapFromYAML(t, gapsBase+`apiVersion: networking.istio.io/v1
kind: ServiceEntry
metadata: {name: pair, namespace: shop}
spec:
  hosts: [zulu.example.com, bravo.example.com]
  addresses: [240.9.9.9]
  resolution: DNS
  ports: [{number: 9443, name: tls, protocol: TLS}]
`)
	v := BuildSidecarView(snap, "shop", nil)
	res := v.Outbound.Resolve(rules.Call{Host: "zulu.example.com", Port: 9443, Kind: rules.CallTLS, Address: "240.9.9.9"})
	if !strings.HasSuffix(res.Cluster, "||bravo.example.com") {
		t.Errorf("shared address: %s, want bravo.example.com's cluster", res.Cluster)
	}
}

// The destinations of the mesh VirtualServices a sidecar imports join its scope, without an
// import or an exportTo check (sidecar.go collectImportedServices): a Sidecar importing "./*"
// still gets the cluster of the gateway Service its route names, and an entry exported only to
// another namespace still serves a route of a VirtualService in its own namespace. Without the
// VirtualService the host stays unknown.
func TestGapVirtualServiceDestinationsJoinScope(t *testing.T) {
	entry := gapsBase + `apiVersion: networking.istio.io/v1
kind: ServiceEntry
metadata: {name: ledger, namespace: shop}
spec:
  hosts: [ledger.example.io]
  exportTo: [billing]
  resolution: DNS
  ports: [{number: 80, name: http, protocol: HTTP}]
---
# Another HTTP entry on port 80 the sidecar does import: it gives the port its listener.
apiVersion: networking.istio.io/v1
kind: ServiceEntry
metadata: {name: catalog, namespace: shop}
spec:
  hosts: [catalog.example.io]
  resolution: DNS
  ports: [{number: 80, name: http, protocol: HTTP}]
`
	vs := `---
apiVersion: networking.istio.io/v1
kind: VirtualService
metadata: {name: ledger, namespace: shop}
spec:
  hosts: [ledger.example.io]
  http:
  - route:
    - destination: {host: ledger.example.io, port: {number: 80}}
`
	for _, c := range []struct {
		yaml      string
		reach     bool
		wantCodes []string
	}{
		{entry + vs, true, nil},
		{entry, false, []string{ListenerHiddenPassthrough}}, // ALLOW_ANY: the call leaves as passthrough
	} {
		rep, err := ExplainListener(snapFromYAML(t, c.yaml), ExplainListenerOptions{Host: "ledger.example.io", Port: 80, From: "shop"})
		if err != nil {
			t.Fatal(err)
		}
		got := len(rep.Calls) > 0 && rep.Calls[0].Result.Cluster == "outbound|80||ledger.example.io"
		if got != c.reach {
			t.Errorf("with VirtualService %t: call %+v", c.reach, rep.Calls)
		}
		var codes []string
		for _, f := range rep.Findings {
			if f.Code != ListenerStrictDNS {
				codes = append(codes, f.Code)
			}
		}
		if !slices.Equal(codes, c.wantCodes) {
			t.Errorf("with VirtualService %t: findings %v, want %v", c.reach, codes, c.wantCodes)
		}
	}
	// A Sidecar importing only its own namespace: the mesh route to the egress gateway Service
	// (in istio-system) still has its cluster.
	snap := snapFromYAML(t, gapsBase+`apiVersion: v1
kind: Service
metadata: {name: egress, namespace: istio-system}
spec:
  clusterIP: 10.96.7.7
  ports: [{name: http, port: 80}]
---
apiVersion: networking.istio.io/v1
kind: Sidecar
metadata: {name: default, namespace: shop}
spec:
  egress: [{hosts: ["./*"]}]
---
apiVersion: networking.istio.io/v1
kind: ServiceEntry
metadata: {name: maps, namespace: shop}
spec:
  hosts: [maps.example.io]
  resolution: DNS
  ports: [{number: 80, name: http, protocol: HTTP}]
---
apiVersion: networking.istio.io/v1
kind: VirtualService
metadata: {name: maps, namespace: shop}
spec:
  hosts: [maps.example.io]
  http:
  - route:
    - destination: {host: egress.istio-system.svc.cluster.local, port: {number: 80}}
`)
	rep, err := ExplainListener(snap, ExplainListenerOptions{Host: "maps.example.io", Port: 80, From: "shop"})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range rep.Findings {
		if f.Code == ListenerClusterAbsent {
			t.Errorf("the gateway Service's cluster is reported absent: %s", f.Message)
		}
	}
	pc, err := ProxyConfig(snap, ProxyConfigOptions{From: "shop", Sections: []string{SectionClusters}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(clusterNames(pc.Clusters), "outbound|80||egress.istio-system.svc.cluster.local EDS") {
		t.Errorf("sidecar CDS lacks the gateway Service: %v", clusterNames(pc.Clusters))
	}
}

const gapsGateway = `apiVersion: apps/v1
kind: Deployment
metadata: {name: edge, namespace: edge-system}
spec:
  selector: {matchLabels: {app: edge}}
  template:
    metadata: {labels: {app: edge}}
    spec: {containers: [{name: istio-proxy, image: auto}]}
---
apiVersion: networking.istio.io/v1
kind: Gateway
metadata: {name: out, namespace: edge-system}
spec:
  selector: {app: edge}
  servers: [{port: {number: 8000, name: http, protocol: HTTP}, hosts: ["*"]}]
---
`

// A gateway takes the VirtualServices bound to it private to its pod's namespace first, then
// those exported to that namespace by name, then public ones; age orders only within a group.
// The first route for the host wins: the newer private VirtualService's, unless it is public too.
func TestGapGatewayVirtualServiceOrder(t *testing.T) {
	vs := func(name, ns, ts, exportTo, dest string) string {
		return `---
apiVersion: networking.istio.io/v1
kind: VirtualService
metadata: {name: ` + name + `, namespace: ` + ns + `, creationTimestamp: "` + ts + `"}
spec:
  hosts: [reports.example.com]
  gateways: [edge-system/out]
  exportTo: ` + exportTo + `
  http:
  - route:
    - destination: {host: ` + dest + `, port: {number: 80}}
`
	}
	entries := `apiVersion: networking.istio.io/v1
kind: ServiceEntry
metadata: {name: reports, namespace: shop}
spec:
  hosts: [reports.example.com, archive.example.com]
  resolution: DNS
  ports: [{number: 80, name: http, protocol: HTTP}]
`
	for _, c := range []struct {
		newerExport, want string
	}{
		{`["."]`, "outbound|80||archive.example.com"},
		{`["edge-system"]`, "outbound|80||archive.example.com"},
		{`["*"]`, "outbound|80||reports.example.com"},
	} {
		snap := snapFromYAML(t, gapsGateway+entries+vs("old-public", "shop", "2026-01-01T00:00:00Z", `["*"]`, "reports.example.com")+
			vs("new", "edge-system", "2026-02-01T00:00:00Z", c.newerExport, "archive.example.com"))
		rep, err := ExplainListener(snap, ExplainListenerOptions{Host: "reports.example.com", Port: 8000, Gateway: "edge-system/edge"})
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		for _, rc := range rep.Routes {
			if vh := rules.MatchVirtualHost(&rc, "reports.example.com"); vh != nil && len(vh.Routes) > 0 {
				got = vh.Routes[0].Cluster
				if len(rc.VirtualHosts) != 1 || len(vh.Routes) != 2 {
					t.Errorf("exportTo %s: want one virtual host with both routes, have %+v", c.newerExport, rc.VirtualHosts)
				}
			}
		}
		if got != c.want {
			t.Errorf("newer VirtualService exportTo %s: first route to %s, want %s", c.newerExport, got, c.want)
		}
	}
}

// A gateway http route destination without a port takes the only port of the host's entry in the
// VirtualService's namespace when the gateway's namespace sees that entry, else of the entry the
// gateway sees.
func TestGapGatewayDestinationPortFromVirtualServiceNamespace(t *testing.T) {
	for _, c := range []struct {
		shopExport, want string
	}{
		{`["*"]`, "outbound|7001||inventory.example.com"},
		{`["."]`, "outbound|7002||inventory.example.com"},
	} {
		snap := snapFromYAML(t, gapsGateway+`apiVersion: networking.istio.io/v1
kind: ServiceEntry
metadata: {name: inventory, namespace: shop}
spec:
  hosts: [inventory.example.com]
  exportTo: `+c.shopExport+`
  resolution: DNS
  ports: [{number: 7001, name: http, protocol: HTTP}]
---
apiVersion: networking.istio.io/v1
kind: ServiceEntry
metadata: {name: inventory, namespace: edge-system}
spec:
  hosts: [inventory.example.com]
  exportTo: ["."]
  resolution: DNS
  ports: [{number: 7002, name: http, protocol: HTTP}]
---
apiVersion: networking.istio.io/v1
kind: VirtualService
metadata: {name: inventory, namespace: shop}
spec:
  hosts: [inventory.example.com]
  gateways: [edge-system/out]
  http:
  - route:
    - destination: {host: inventory.example.com}
`)
		rep, err := ExplainListener(snap, ExplainListenerOptions{Host: "inventory.example.com", Port: 8000, Gateway: "edge-system/edge"})
		if err != nil {
			t.Fatal(err)
		}
		var dests []string
		for _, b := range rep.Bindings {
			dests = append(dests, b.Destinations...)
		}
		if !slices.Equal(dests, []string{c.want}) {
			t.Errorf("shop entry exportTo %s: destinations %v, want %s", c.shopExport, dests, c.want)
		}
		absent := false
		for _, f := range rep.Findings {
			absent = absent || f.Code == ListenerClusterAbsent
		}
		// The gateway's own view is edge-system's entry (port 7002): a route to 7001 has no cluster.
		if wantAbsent := c.want == "outbound|7001||inventory.example.com"; absent != wantAbsent {
			t.Errorf("shop entry exportTo %s: ROUTE_CLUSTER_ABSENT %t, want %t", c.shopExport, absent, wantAbsent)
		}
	}
}

// DestinationRules for one host in one namespace are consolidated as istiod does: a rule with
// another export set in between makes the next rule both merge into the first and stand alone,
// and a proxy elsewhere applies the last entry (the third rule alone); the rule's own namespace
// sees the merge; without the rule in between, everyone sees the merge.
func TestGapDestinationRuleMergeAndAppend(t *testing.T) {
	dr := func(name, exportTo, subset string) string {
		exp := ""
		if exportTo != "" {
			exp = "\n  exportTo: " + exportTo
		}
		return `---
apiVersion: networking.istio.io/v1
kind: DestinationRule
metadata: {name: ` + name + `, namespace: shop}
spec:
  host: search.example.com` + exp + `
  subsets: [{name: ` + subset + `}]
`
	}
	base := gapsBase + `apiVersion: v1
kind: Namespace
metadata: {name: web, labels: {istio-injection: enabled}}
---
apiVersion: networking.istio.io/v1
kind: ServiceEntry
metadata: {name: search, namespace: shop}
spec:
  hosts: [search.example.com]
  resolution: DNS
  ports: [{number: 80, name: http, protocol: HTTP}]
`
	subsets := func(yaml, ns string) []string {
		rep, err := ProxyConfig(snapFromYAML(t, yaml), ProxyConfigOptions{From: ns, Sections: []string{SectionClusters}})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, c := range rep.Clusters {
			if c.FQDN == "search.example.com" && c.Subset != "" {
				out = append(out, c.Subset)
			}
		}
		return out
	}
	with := base + dr("first", "", "blue") + dr("between", `["billing"]`, "green") + dr("third", "", "red")
	if got := subsets(with, "web"); !slices.Equal(got, []string{"red"}) {
		t.Errorf("web, rule in between: subsets %v, want [red]", got)
	}
	if got := subsets(with, "shop"); !slices.Equal(got, []string{"blue", "red"}) {
		t.Errorf("shop, rule in between: subsets %v, want [blue red]", got)
	}
	without := base + dr("first", "", "blue") + dr("third", "", "red")
	if got := subsets(without, "web"); !slices.Equal(got, []string{"blue", "red"}) {
		t.Errorf("web, no rule in between: subsets %v, want [blue red]", got)
	}
}

// A resolution-NONE entry without addresses takes its endpoints from every entry for its host in
// its namespace (istiod indexes endpoints by host and namespace), even one private to that
// namespace: seen from shop, the public entry of web alone gets the wildcard listener; with a DNS
// sibling (whose endpoint is a host name) no listener at all; with a STATIC sibling a listener on
// the sibling's endpoint IP; a sibling in a third namespace changes nothing.
func TestGapNoneEntryEndpointsFromSiblings(t *testing.T) {
	none := gapsBase + `apiVersion: networking.istio.io/v1
kind: ServiceEntry
metadata: {name: mq, namespace: web}
spec:
  hosts: [mq.example.org]
  resolution: NONE
  ports: [{number: 5671, name: tls-amqp, protocol: TLS}]
`
	sibling := func(rest string) string {
		return `---
apiVersion: networking.istio.io/v1
kind: ServiceEntry
metadata: {name: mq-sibling, namespace: web}
spec:
  hosts: [mq.example.org]
  exportTo: ["."]
  ports: [{number: 5671, name: tls-amqp, protocol: TLS}]
` + rest
	}
	for _, c := range []struct {
		name, yaml string
		want       []string
	}{
		{"alone", none, []string{"0.0.0.0_5671"}},
		{"dns sibling", none + sibling("  resolution: DNS\n"), nil},
		{"static sibling", none + sibling("  resolution: STATIC\n  endpoints: [{address: 198.51.100.20}]\n"), []string{"198.51.100.20_5671"}},
		{"sibling in another namespace", none + strings.Replace(sibling("  resolution: DNS\n"), "namespace: web", "namespace: ops", 1), []string{"0.0.0.0_5671"}},
	} {
		v := BuildSidecarView(snapFromYAML(t, c.yaml), "shop", nil)
		var got []string
		for _, l := range v.Outbound.ListenersOnPort(5671) {
			got = append(got, l.Name)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: listeners on 5671 %v, want %v", c.name, got, c.want)
		}
	}
}

// Gateway servers merged as istiod does: of two TLS servers on one port sharing a host (after
// "*/" is dropped), the newer Gateway's is skipped whole; a second TCP server on a plaintext port
// is skipped, and the port keeps no listener when the first has no route; two HTTP servers on one
// port merge. A server terminating TLS for tcp routes matches its own hosts' SNIs.
func TestGapGatewayServerMerge(t *testing.T) {
	gw := func(name, ts, servers string) string {
		return `---
apiVersion: networking.istio.io/v1
kind: Gateway
metadata: {name: ` + name + `, namespace: edge-system, creationTimestamp: "` + ts + `"}
spec:
  selector: {app: edge}
  servers:
` + servers
	}
	vs := func(name, g, hosts, section string) string {
		return `---
apiVersion: networking.istio.io/v1
kind: VirtualService
metadata: {name: ` + name + `, namespace: edge-system}
spec:
  hosts: ` + hosts + `
  gateways: [edge-system/` + g + `]
  ` + section + `:
  - route:
    - destination: {host: backend.example.com, port: {number: 80}}
`
	}
	listen := func(yaml string, port uint32) (*ListenerReport, []string) {
		t.Helper()
		rep, err := ExplainListener(snapFromYAML(t, gapsGateway+yaml), ExplainListenerOptions{Port: port, Gateway: "edge-system/edge"})
		if err != nil {
			t.Fatal(err)
		}
		var rows []string
		for _, l := range rep.Listeners {
			for _, c := range l.Chains {
				rows = append(rows, l.Name+" "+c.Match+" -> "+c.Destination)
			}
		}
		return rep, rows
	}
	skipped := func(rep *ListenerReport) []string {
		var out []string
		for _, f := range rep.Findings {
			if f.Code == ListenerServerDropped {
				out = append(out, f.Resource)
			}
		}
		return out
	}
	// Duplicate TLS host: the newer Gateway's server is skipped, its other host included.
	tls := func(name, hosts string) string {
		return "  - port: {number: 8443, name: https-" + name + ", protocol: HTTPS}\n    hosts: " + hosts + "\n    tls: {mode: SIMPLE, credentialName: cert}\n"
	}
	rep, rows := listen(gw("old", "2026-01-01T00:00:00Z", tls("old", "[pay.example.com]"))+gw("new", "2026-01-02T00:00:00Z", tls("new", `["*/pay.example.com", refund.example.com]`))+
		vs("old", "old", "[pay.example.com]", "http")+vs("new", "new", "[refund.example.com]", "http"), 8443)
	if !slices.Equal(skipped(rep), []string{"edge-system/new"}) || len(rows) != 1 || !strings.Contains(rows[0], "SNI: pay.example.com") {
		t.Errorf("duplicate TLS host: skipped %v, chains %v", skipped(rep), rows)
	}
	// Distinct hosts: both kept.
	rep, rows = listen(gw("old", "2026-01-01T00:00:00Z", tls("old", "[pay.example.com]"))+gw("new", "2026-01-02T00:00:00Z", tls("new", "[refund.example.com]"))+
		vs("old", "old", "[pay.example.com]", "http")+vs("new", "new", "[refund.example.com]", "http"), 8443)
	if len(skipped(rep)) != 0 || len(rows) != 2 {
		t.Errorf("distinct TLS hosts: skipped %v, chains %v", skipped(rep), rows)
	}
	// Second TCP server on a plaintext port: skipped; the first has no route, so no listener.
	tcp := func(name string) string {
		return "  - port: {number: 7000, name: tcp-" + name + ", protocol: TCP}\n    hosts: [" + name + ".example.com]\n"
	}
	rep, rows = listen(gw("a", "2026-01-01T00:00:00Z", tcp("a"))+gw("b", "2026-01-02T00:00:00Z", tcp("b"))+vs("b", "b", "[b.example.com]", "tcp"), 7000)
	if !slices.Equal(skipped(rep), []string{"edge-system/b"}) || len(rows) != 0 {
		t.Errorf("second TCP server: skipped %v, chains %v", skipped(rep), rows)
	}
	// Two HTTP servers on one port share the listener and its route configuration.
	httpSrv := func(name string) string {
		return "  - port: {number: 7080, name: http-" + name + ", protocol: HTTP}\n    hosts: [" + name + ".example.com]\n"
	}
	rep, rows = listen(gw("a", "2026-01-01T00:00:00Z", httpSrv("a"))+gw("b", "2026-01-02T00:00:00Z", httpSrv("b"))+
		vs("a", "a", "[a.example.com]", "http")+vs("b", "b", "[b.example.com]", "http"), 7080)
	if len(skipped(rep)) != 0 || !slices.Equal(rows, []string{"0.0.0.0_7080 ALL -> Route: http.7080"}) || len(rep.Routes) != 1 || len(rep.Routes[0].VirtualHosts) != 2 {
		t.Errorf("two HTTP servers: skipped %v, chains %v, routes %+v", skipped(rep), rows, rep.Routes)
	}
	// TLS termination for tcp routes: the chain matches the server's hosts.
	_, rows = listen(gw("term", "2026-01-01T00:00:00Z", "  - port: {number: 7443, name: tls-term, protocol: TLS}\n    hosts: [\"*/ledger.example.com\"]\n    tls: {mode: SIMPLE, credentialName: cert}\n")+
		vs("term", "term", "[ledger.example.com]", "tcp"), 7443)
	if len(rows) != 1 || !strings.HasPrefix(rows[0], "0.0.0.0_7443 SNI: ledger.example.com -> ") {
		t.Errorf("terminating TLS server: chains %v", rows)
	}
}

// "*/*" before a host with a namespace part makes istiod 1.31 panic; alone, or after the others, it
// does not.
func TestGapHostsCrashIstiod(t *testing.T) {
	for hosts, want := range map[string]bool{`["*/*", "./db.example.com"]`: true, `["*/*"]`: false, `["./db.example.com", "*/*"]`: false, `["*/*", "db.example.com"]`: false} {
		rep, err := ExplainListener(snapFromYAML(t, gapsGateway+`---
apiVersion: networking.istio.io/v1
kind: Gateway
metadata: {name: wide, namespace: edge-system}
spec:
  selector: {app: edge}
  servers: [{port: {number: 9000, name: http, protocol: HTTP}, hosts: `+hosts+`}]
`), ExplainListenerOptions{Port: 9000, Gateway: "edge-system/edge"})
		if err != nil {
			t.Fatal(err)
		}
		got := slices.ContainsFunc(rep.Findings, func(f Finding) bool { return f.Code == ListenerHostsCrashIstiod })
		if got != want {
			t.Errorf("hosts %s: crash finding %t, want %t", hosts, got, want)
		}
	}
}
