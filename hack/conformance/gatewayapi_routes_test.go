package conformance

// Kubernetes Gateway API HTTPRoutes and GRPCRoutes bound to Gateway listeners: the VirtualServices the plugin
// predicts (rules.ConvertHTTPAndGRPCRoutes over the loader's snapshot) against those istiod's Gateway
// API controller generates from the same objects (as TestConformanceGatewayAPIGateways does for
// Gateways). Compared for every generated VirtualService: namespace and name, hosts, gateways,
// and each http route's name, match (path, headers, method, query parameters), destinations
// (host, port, weight) or direct response. Generated dimensions: listeners (port, hostname,
// allowedRoutes namespaces and kinds), parentRefs (namespace, sectionName, port), route
// hostnames, rules and matches, backends (Service, Hostname, other namespaces with and without
// a ReferenceGrant, weights, unsupported kinds, missing ports, a Hostname with a namespace, a
// Service named by its hostname), several routes merged on one
// listener and hostname, mesh parents (a ServiceEntry, a Service, one that does not exist), and
// GRPCRoutes among the HTTPRoutes (method and header matches, a rejected match, a header
// filter), merged with them as istiod merges both kinds.

import (
	"fmt"
	"math/rand"
	"sort"
	"strings"
	"testing"

	networking "istio.io/api/networking/v1alpha3"
	"istio.io/istio/pkg/config"
	"istio.io/istio/pkg/config/schema/gvk"

	"github.com/kubectl-egress/kubectl-egress/pkg/rules"
	"github.com/kubectl-egress/kubectl-egress/pkg/snapshot"
)

// generateKubeRoutes builds n route scenarios from seed.
func generateKubeRoutes(seed int64, n int) []kubeGatewayScenario {
	rng := rand.New(rand.NewSource(seed ^ 0x6874747072)) // "httpr"
	pick := func(v ...string) string { return v[rng.Intn(len(v))] }
	var out []kubeGatewayScenario
	for i := 0; i < n; i++ {
		var b strings.Builder
		b.WriteString(`apiVersion: v1
kind: Namespace
metadata: {name: egress, labels: {team: ops}}
---
apiVersion: v1
kind: Namespace
metadata: {name: apps, labels: {team: a}}
---
apiVersion: v1
kind: Namespace
metadata: {name: team-b, labels: {team: b}}
---
apiVersion: v1
kind: Service
metadata: {name: svc-a, namespace: apps}
spec: {ports: [{name: http, port: 80}]}
---
apiVersion: v1
kind: Service
metadata: {name: svc-b, namespace: team-b}
spec: {ports: [{name: http, port: 80}]}
---
apiVersion: networking.istio.io/v1
kind: ServiceEntry
metadata: {name: api, namespace: egress}
spec:
  hosts: [api.example.com, api2.example.com]
  location: MESH_EXTERNAL
  resolution: DNS
  ports: [{number: 443, name: tls, protocol: TLS}, {number: 80, name: http, protocol: HTTP}]
---
`)
		b.WriteString("apiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: egw, namespace: egress, creationTimestamp: \"2024-01-01T00:00:00Z\"}\nspec:\n  gatewayClassName: istio\n  listeners:\n")
		listeners := []string{}
		for l, nl := 0, 1+rng.Intn(3); l < nl; l++ {
			name := fmt.Sprintf("l%d", l)
			listeners = append(listeners, name)
			proto := pick("HTTP", "HTTP", "HTTP", "TCP")
			port := []int{80, 80, 8080}[rng.Intn(3)]
			fmt.Fprintf(&b, "  - name: %s\n    port: %d\n    protocol: %s\n", name, port, proto)
			switch rng.Intn(4) {
			case 1:
				b.WriteString("    hostname: api.example.com\n")
			case 2:
				b.WriteString("    hostname: \"*.example.com\"\n")
			case 3:
				b.WriteString("    hostname: www.example.com\n")
			}
			switch rng.Intn(5) {
			case 1:
				b.WriteString("    allowedRoutes: {namespaces: {from: All}}\n")
			case 2:
				b.WriteString("    allowedRoutes: {namespaces: {from: Selector, selector: {matchLabels: {team: a}}}}\n")
			case 3:
				b.WriteString("    allowedRoutes: {namespaces: {from: All}, kinds: [{kind: GRPCRoute}]}\n")
			}
		}
		if rng.Intn(3) == 0 {
			b.WriteString("---\napiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: foreign, namespace: egress}\nspec:\n  gatewayClassName: other-class\n  listeners: [{name: http, port: 80, protocol: HTTP}]\n")
		}
		switch rng.Intn(4) {
		case 1:
			b.WriteString("---\napiVersion: gateway.networking.k8s.io/v1beta1\nkind: ReferenceGrant\nmetadata: {name: from-routes, namespace: team-b}\nspec:\n  from: [{group: gateway.networking.k8s.io, kind: HTTPRoute, namespace: egress}, {group: gateway.networking.k8s.io, kind: HTTPRoute, namespace: apps}]\n  to: [{group: \"\", kind: Service}]\n")
		case 2:
			b.WriteString("---\napiVersion: gateway.networking.k8s.io/v1beta1\nkind: ReferenceGrant\nmetadata: {name: only-c, namespace: team-b}\nspec:\n  from: [{group: gateway.networking.k8s.io, kind: HTTPRoute, namespace: egress}]\n  to: [{group: \"\", kind: Service, name: svc-c}]\n")
		}
		if rng.Intn(4) == 0 {
			b.WriteString("---\napiVersion: gateway.networking.k8s.io/v1beta1\nkind: ReferenceGrant\nmetadata: {name: grpc-routes, namespace: team-b}\nspec:\n  from: [{group: gateway.networking.k8s.io, kind: GRPCRoute, namespace: egress}]\n  to: [{group: \"\", kind: Service}]\n")
		}
		for r, nr := 0, 1+rng.Intn(3); r < nr; r++ {
			ns := pick("egress", "egress", "apps")
			// GRPCRoutes: merged with the HTTPRoutes of the same listener (or mesh parent) and
			// hostname, their method matches written as path matches.
			kind := "HTTPRoute"
			if rng.Intn(3) == 0 {
				kind = "GRPCRoute"
			}
			fmt.Fprintf(&b, "---\napiVersion: gateway.networking.k8s.io/v1\nkind: %s\nmetadata: {name: r%d, namespace: %s, creationTimestamp: \"2024-01-01T00:0%d:00Z\"}\nspec:\n", kind, r, ns, 1+rng.Intn(3))
			b.WriteString("  parentRefs:\n")
			for p, np := 0, 1+rng.Intn(2); p < np; p++ {
				// Mesh parents: the ServiceEntry (its two hosts), a Service, one that does not
				// exist, with or without a port.
				if mesh := rng.Intn(4); mesh > 0 && rng.Intn(3) == 0 {
					switch mesh {
					case 1:
						b.WriteString("  - {group: networking.istio.io, kind: ServiceEntry, name: api, namespace: egress")
					case 2:
						b.WriteString("  - {group: \"\", kind: Service, name: svc-a, namespace: apps")
					default:
						b.WriteString("  - {group: networking.istio.io, kind: ServiceEntry, name: missing")
					}
					if rng.Intn(2) == 0 {
						fmt.Fprintf(&b, ", port: %s", pick("80", "443"))
					}
					b.WriteString("}\n")
					continue
				}
				gw := "egw"
				if rng.Intn(6) == 0 {
					gw = "foreign"
				}
				fmt.Fprintf(&b, "  - name: %s\n", gw)
				if ns != "egress" || rng.Intn(4) == 0 {
					b.WriteString("    namespace: egress\n")
				}
				switch rng.Intn(5) {
				case 1:
					fmt.Fprintf(&b, "    sectionName: %s\n", listeners[rng.Intn(len(listeners))])
				case 2:
					b.WriteString("    sectionName: nope\n")
				case 3:
					fmt.Fprintf(&b, "    port: %s\n", pick("80", "8080"))
				}
			}
			switch rng.Intn(6) {
			case 1:
				b.WriteString("  hostnames: [api.example.com]\n")
			case 2:
				b.WriteString("  hostnames: [\"*.example.com\"]\n")
			case 3:
				b.WriteString("  hostnames: [other.example.org]\n")
			case 4:
				b.WriteString("  hostnames: [api.example.com, www.example.com]\n")
			}
			b.WriteString("  rules:\n")
			for k, nk := 0, 1+rng.Intn(2); k < nk; k++ {
				b.WriteString("  - ")
				if rng.Intn(5) == 0 {
					fmt.Fprintf(&b, "name: named-%d\n    ", k)
				}
				switch m := rng.Intn(5); {
				case kind == "GRPCRoute":
					switch rng.Intn(8) {
					case 1:
						b.WriteString("matches: [{method: {service: pkg.Svc, method: Get}}]\n    ")
					case 2:
						b.WriteString("matches: [{method: {service: pkg.Svc}}, {method: {method: List}}]\n    ")
					case 3:
						b.WriteString("matches: [{method: {type: RegularExpression, service: \"pkg\\\\..*\"}}]\n    ")
					case 4:
						b.WriteString("matches: [{method: {type: RegularExpression, service: pkg.Svc, method: \"G.*\"}, headers: [{name: x-team, value: a}]}]\n    ")
					case 5:
						b.WriteString("matches: [{headers: [{name: x-env, type: RegularExpression, value: \"pr.*\"}, {name: x-team, value: b}]}]\n    ")
					case 6:
						b.WriteString("matches: [{method: {type: Exact}}]\n    ") // neither service nor method: rejected
					case 7:
						b.WriteString("filters: [{type: RequestHeaderModifier, requestHeaderModifier: {set: [{name: x-via, value: egw}]}}]\n    ")
					}
				case m == 1:
					b.WriteString("matches: [{path: {type: PathPrefix, value: /v1/}}]\n    ")
				case m == 2:
					b.WriteString("matches: [{path: {type: Exact, value: /x}}, {path: {type: PathPrefix, value: /}}]\n    ")
				case m == 3:
					b.WriteString("matches: [{path: {type: PathPrefix, value: /api}, headers: [{name: x-team, value: a}], method: GET}]\n    ")
				case m == 4:
					b.WriteString("matches: [{path: {type: RegularExpression, value: \"/r.*\"}, queryParams: [{name: q, value: \"1\"}]}]\n    ")
				}
				switch rng.Intn(11) {
				case 9: // a Hostname with a namespace: the route's own (not convertible) or another (refused)
					b.WriteString("backendRefs: [{group: networking.istio.io, kind: Hostname, name: api.example.com, namespace: " + pick("egress", "apps") + ", port: 80}]\n")
				case 10: // a Service backend written as its hostname: not convertible
					b.WriteString("backendRefs: [{name: svc-a.apps.svc.cluster.local, port: 80}]\n")
				case 0:
					b.WriteString("backendRefs: [{name: svc-a, namespace: apps, port: 80}]\n")
				case 1:
					b.WriteString("backendRefs: [{name: svc-b, namespace: team-b, port: 80}]\n")
				case 2:
					b.WriteString("backendRefs: [{group: networking.istio.io, kind: Hostname, name: api.example.com, port: 443}]\n")
				case 3:
					b.WriteString("backendRefs: [{name: svc-a, namespace: apps, port: 80, weight: 1}, {group: networking.istio.io, kind: Hostname, name: api.example.com, port: 80, weight: 3}]\n")
				case 4:
					b.WriteString("backendRefs: [{name: svc-a, namespace: apps, port: 80, weight: 0}]\n")
				case 5:
					b.WriteString("backendRefs: []\n")
				case 6:
					b.WriteString("backendRefs: [{name: svc-a, namespace: apps}]\n")
				case 7:
					b.WriteString("backendRefs: [{group: example.com, kind: Bucket, name: b1, port: 80}, {name: svc-a, namespace: apps, port: 80, weight: 2}]\n")
				default:
					b.WriteString("backendRefs: [{name: svc-b, namespace: team-b, port: 80, weight: 0}, {name: svc-a, namespace: apps, port: 80}]\n")
				}
			}
		}
		out = append(out, kubeGatewayScenario{fmt.Sprintf("kroute-%04d", i), b.String()})
	}
	return out
}

// vsShape is what is compared of one generated VirtualService.
func vsShape(ns, name string, spec *networking.VirtualService) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s/%s hosts=%v gateways=%v", ns, name, spec.GetHosts(), spec.GetGateways())
	for _, r := range spec.GetHttp() {
		fmt.Fprintf(&b, "\n    route %q", r.GetName())
		for _, m := range r.GetMatch() {
			fmt.Fprintf(&b, " match{port=%d uri=%s", m.GetPort(), strMatch(m.GetUri()))
			var hs []string
			for k, v := range m.GetHeaders() {
				hs = append(hs, k+"="+strMatch(v))
			}
			sort.Strings(hs)
			var qs []string
			for k, v := range m.GetQueryParams() {
				qs = append(qs, k+"="+strMatch(v))
			}
			sort.Strings(qs)
			fmt.Fprintf(&b, " headers=%v method=%s query=%v}", hs, strMatch(m.GetMethod()), qs)
		}
		for _, d := range r.GetRoute() {
			fmt.Fprintf(&b, " dest{%s:%d w=%d}", d.GetDestination().GetHost(), d.GetDestination().GetPort().GetNumber(), d.GetWeight())
		}
		if dr := r.GetDirectResponse(); dr != nil {
			fmt.Fprintf(&b, " direct=%d", dr.GetStatus())
		}
	}
	return b.String()
}

func strMatch(m *networking.StringMatch) string {
	switch {
	case m == nil:
		return "-"
	case m.GetExact() != "":
		return "exact:" + m.GetExact()
	case m.GetPrefix() != "":
		return "prefix:" + m.GetPrefix()
	case m.GetRegex() != "":
		return "regex:" + m.GetRegex()
	}
	return "?"
}

func TestConformanceGatewayAPIRoutes(t *testing.T) {
	r := compareKubeConversion(t, generateKubeRoutes(*seedFlag, max(*countFlag/3, 20)), gvk.VirtualService,
		func(snap *snapshot.Snapshot) []string {
			in := rules.KubeRouteInputs{Gateways: snap.KubeGateways, Classes: snap.GatewayClasses, Namespaces: snap.Namespaces, Grants: snap.ReferenceGrants,
				Services: snap.Services, ServiceEntries: snap.ServiceEntries}
			var out []string
			for _, v := range rules.ConvertHTTPAndGRPCRoutes(snap.HTTPRoutes, snap.GRPCRoutes, in) {
				out = append(out, vsShape(v.Namespace, v.Name, &v.Spec))
			}
			return out
		},
		func(c config.Config) string { return vsShape(c.Namespace, c.Name, c.Spec.(*networking.VirtualService)) })
	mesh, grpc := 0, 0
	for _, shapes := range r.istiod {
		for _, sh := range shapes {
			if strings.Contains(sh, "gateways=[mesh]") {
				mesh++
			}
			if strings.Contains(sh, "pkg.Svc") || strings.Contains(sh, "/[^/]+/List") {
				grpc++
			}
		}
	}
	r.report(t, "summary-gatewayapi-routes.txt", fmt.Sprintf("Gateway API HTTPRoutes and GRPCRoutes → VirtualServices: %d/%d scenarios agree (%d VirtualServices generated by istiod, %d of them for mesh parents, %d with routes from GRPCRoutes)\n", r.agree, r.total, r.generated, mesh, grpc), 3)
	if r.generated == 0 {
		t.Error("istiod generated no VirtualService: the harness compared nothing")
	}
}
