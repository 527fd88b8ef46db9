package conformance

// Kubernetes Gateway API TLSRoutes and TCPRoutes: the VirtualServices the plugin predicts
// (rules.ConvertTLSRoutes, rules.ConvertTCPRoutes over the loader's snapshot) against those
// istiod's Gateway API controller generates from the same objects. Compared for every
// generated VirtualService: namespace and name, hosts, gateways, and each tls or tcp route's
// matches (SNI hosts, port) and destinations (host, subset, port, weight). Generated
// dimensions: listeners (protocol TLS passthrough or terminate, TCP, HTTP; port; hostname;
// allowedRoutes kinds and namespaces), parentRefs (a Gateway with or without sectionName or
// port, from another namespace; mesh parents: a ServiceEntry of two hosts, one of one host, a Service, one that
// does not exist, with or without a port), route hostnames, rules and backends (Service,
// Hostname, another namespace with and without a ReferenceGrant for the route's kind, weights,
// all weights 0, a missing port, an unsupported kind).

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	networking "istio.io/api/networking/v1alpha3"
	"istio.io/istio/pkg/config"
	"istio.io/istio/pkg/config/schema/gvk"

	"github.com/kubectl-egress/kubectl-egress/pkg/rules"
	"github.com/kubectl-egress/kubectl-egress/pkg/snapshot"
)

// generateKubeL4Routes builds n TLSRoute and TCPRoute scenarios from seed.
func generateKubeL4Routes(seed int64, n int) []kubeGatewayScenario {
	rng := rand.New(rand.NewSource(seed ^ 0x6c34726f757465)) // "l4route"
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
spec: {ports: [{name: tls, port: 443}, {name: tcp, port: 5432}]}
---
apiVersion: v1
kind: Service
metadata: {name: svc-b, namespace: team-b}
spec: {ports: [{name: tls, port: 443}]}
---
apiVersion: networking.istio.io/v1
kind: ServiceEntry
metadata: {name: api, namespace: egress}
spec:
  hosts: [api.example.com, api2.example.com]
  location: MESH_EXTERNAL
  resolution: DNS
  ports: [{number: 443, name: tls, protocol: TLS}]
---
apiVersion: networking.istio.io/v1
kind: ServiceEntry
metadata: {name: db, namespace: egress}
spec:
  hosts: [db.example.com]
  location: MESH_EXTERNAL
  resolution: DNS
  ports: [{number: 5432, name: tcp, protocol: TCP}]
---
`)
		b.WriteString("apiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: egw, namespace: egress, creationTimestamp: \"2024-01-01T00:00:00Z\"}\nspec:\n  gatewayClassName: istio\n  listeners:\n")
		listeners := []string{}
		for l, nl := 0, 1+rng.Intn(3); l < nl; l++ {
			name := fmt.Sprintf("l%d", l)
			listeners = append(listeners, name)
			proto := pick("TLS", "TLS", "TLS-terminate", "TCP", "TCP", "HTTP")
			port := []int{443, 443, 5432, 8443}[rng.Intn(4)]
			if proto == "HTTP" {
				port = 80
			}
			fmt.Fprintf(&b, "  - name: %s\n    port: %d\n    protocol: %s\n", name, port, strings.TrimSuffix(proto, "-terminate"))
			if proto != "TCP" {
				switch rng.Intn(4) {
				case 1:
					b.WriteString("    hostname: api.example.com\n")
				case 2:
					b.WriteString("    hostname: \"*.example.com\"\n")
				case 3:
					b.WriteString("    hostname: www.example.com\n")
				}
			}
			switch proto {
			case "TLS":
				b.WriteString("    tls: {mode: Passthrough}\n")
			case "TLS-terminate":
				b.WriteString("    tls: {mode: Terminate, certificateRefs: [{name: egress-cert}]}\n")
			}
			switch rng.Intn(5) {
			case 1:
				b.WriteString("    allowedRoutes: {namespaces: {from: All}}\n")
			case 2:
				b.WriteString("    allowedRoutes: {namespaces: {from: Selector, selector: {matchLabels: {team: a}}}}\n")
			case 3:
				fmt.Fprintf(&b, "    allowedRoutes: {namespaces: {from: All}, kinds: [{kind: %s}]}\n", pick("TLSRoute", "TCPRoute"))
			}
		}
		b.WriteString("---\n" + egressCertSecret())
		switch rng.Intn(4) {
		case 1:
			b.WriteString("---\napiVersion: gateway.networking.k8s.io/v1beta1\nkind: ReferenceGrant\nmetadata: {name: from-routes, namespace: team-b}\nspec:\n  from: [{group: gateway.networking.k8s.io, kind: TLSRoute, namespace: egress}, {group: gateway.networking.k8s.io, kind: TCPRoute, namespace: egress}, {group: gateway.networking.k8s.io, kind: TLSRoute, namespace: apps}]\n  to: [{group: \"\", kind: Service}]\n")
		case 2:
			b.WriteString("---\napiVersion: gateway.networking.k8s.io/v1beta1\nkind: ReferenceGrant\nmetadata: {name: http-only, namespace: team-b}\nspec:\n  from: [{group: gateway.networking.k8s.io, kind: HTTPRoute, namespace: egress}]\n  to: [{group: \"\", kind: Service}]\n")
		}
		for r, nr := 0, 1+rng.Intn(3); r < nr; r++ {
			ns := pick("egress", "egress", "apps")
			kind := pick("TLSRoute", "TLSRoute", "TCPRoute")
			version := pick("v1", "v1alpha2")
			fmt.Fprintf(&b, "---\napiVersion: gateway.networking.k8s.io/%s\nkind: %s\nmetadata: {name: r%d, namespace: %s, creationTimestamp: \"2024-01-01T00:0%d:00Z\"}\nspec:\n", version, kind, r, ns, 1+rng.Intn(3))
			b.WriteString("  parentRefs:\n")
			for p, np := 0, 1+rng.Intn(2); p < np; p++ {
				if mesh := rng.Intn(5); mesh > 0 && rng.Intn(3) == 0 {
					switch mesh {
					case 1:
						b.WriteString("  - {group: networking.istio.io, kind: ServiceEntry, name: api, namespace: egress")
					case 4:
						b.WriteString("  - {group: networking.istio.io, kind: ServiceEntry, name: db, namespace: egress")
					case 2:
						b.WriteString("  - {group: \"\", kind: Service, name: svc-a, namespace: apps")
					default:
						b.WriteString("  - {group: networking.istio.io, kind: ServiceEntry, name: missing")
					}
					if rng.Intn(2) == 0 {
						fmt.Fprintf(&b, ", port: %s", pick("443", "5432"))
					}
					b.WriteString("}\n")
					continue
				}
				b.WriteString("  - name: egw\n")
				if ns != "egress" || rng.Intn(4) == 0 {
					b.WriteString("    namespace: egress\n")
				}
				switch rng.Intn(5) {
				case 1:
					fmt.Fprintf(&b, "    sectionName: %s\n", listeners[rng.Intn(len(listeners))])
				case 2:
					b.WriteString("    sectionName: nope\n")
				case 3:
					fmt.Fprintf(&b, "    port: %s\n", pick("443", "5432", "8443"))
				}
			}
			if kind == "TLSRoute" {
				switch rng.Intn(5) {
				case 1:
					b.WriteString("  hostnames: [api.example.com]\n")
				case 2:
					b.WriteString("  hostnames: [\"*.example.com\"]\n")
				case 3:
					b.WriteString("  hostnames: [other.example.org]\n")
				case 4:
					b.WriteString("  hostnames: [api.example.com, api2.example.com, www.example.com]\n")
				default:
					if version == "v1alpha2" {
						break // v1 requires hostnames; v1alpha2 does not
					}
					b.WriteString("  hostnames: [api.example.com]\n")
				}
			}
			b.WriteString("  rules:\n")
			for k, nk := 0, 1+rng.Intn(2); k < nk; k++ {
				b.WriteString("  - ")
				switch rng.Intn(9) {
				case 0:
					b.WriteString("backendRefs: [{name: svc-a, namespace: apps, port: 443}]\n")
				case 1:
					b.WriteString("backendRefs: [{name: svc-b, namespace: team-b, port: 443}]\n")
				case 2:
					b.WriteString("backendRefs: [{group: networking.istio.io, kind: Hostname, name: api.example.com, port: 443}]\n")
				case 3:
					b.WriteString("backendRefs: [{name: svc-a, namespace: apps, port: 5432, weight: 1}, {group: networking.istio.io, kind: Hostname, name: api.example.com, port: 5432, weight: 3}]\n")
				case 4:
					b.WriteString("backendRefs: [{name: svc-a, namespace: apps, port: 443, weight: 0}]\n")
				case 5:
					b.WriteString("backendRefs: [{name: svc-a, namespace: apps}]\n")
				case 6:
					b.WriteString("backendRefs: [{group: example.com, kind: Bucket, name: b1, port: 443}, {name: svc-a, namespace: apps, port: 443, weight: 2}]\n")
				case 7:
					b.WriteString("backendRefs: [{group: networking.istio.io, kind: Hostname, name: api.example.com, namespace: team-b, port: 443}]\n")
				default:
					b.WriteString("backendRefs: [{name: svc-b, namespace: team-b, port: 443, weight: 0}, {name: svc-a, namespace: apps, port: 443}]\n")
				}
			}
		}
		out = append(out, kubeGatewayScenario{fmt.Sprintf("kl4route-%04d", i), b.String()})
	}
	return out
}

// l4Shape adds a VirtualService's tls and tcp routes to its vsShape.
func l4Shape(ns, name string, spec *networking.VirtualService) string {
	var b strings.Builder
	b.WriteString(vsShape(ns, name, spec))
	dests := func(rs []*networking.RouteDestination) {
		for _, d := range rs {
			fmt.Fprintf(&b, " dest{%s|%s:%d w=%d}", d.GetDestination().GetHost(), d.GetDestination().GetSubset(), d.GetDestination().GetPort().GetNumber(), d.GetWeight())
		}
	}
	for _, r := range spec.GetTls() {
		b.WriteString("\n    tls")
		for _, m := range r.GetMatch() {
			fmt.Fprintf(&b, " match{sni=%v port=%d}", m.GetSniHosts(), m.GetPort())
		}
		dests(r.GetRoute())
	}
	for _, r := range spec.GetTcp() {
		b.WriteString("\n    tcp")
		for _, m := range r.GetMatch() {
			fmt.Fprintf(&b, " match{port=%d}", m.GetPort())
		}
		dests(r.GetRoute())
	}
	return b.String()
}

func TestConformanceGatewayAPIL4Routes(t *testing.T) {
	r := compareKubeConversion(t, generateKubeL4Routes(*seedFlag, max(*countFlag/3, 20)), gvk.VirtualService,
		func(snap *snapshot.Snapshot) []string {
			in := rules.KubeRouteInputs{Gateways: snap.KubeGateways, Classes: snap.GatewayClasses, Namespaces: snap.Namespaces, Grants: snap.ReferenceGrants,
				Services: snap.Services, ServiceEntries: snap.ServiceEntries}
			var out []string
			for _, v := range rules.ConvertTLSRoutes(snap.TLSRoutes, in) {
				out = append(out, l4Shape(v.Namespace, v.Name, &v.Spec))
			}
			for _, v := range rules.ConvertTCPRoutes(snap.TCPRoutes, in) {
				out = append(out, l4Shape(v.Namespace, v.Name, &v.Spec))
			}
			return out
		},
		func(c config.Config) string { return l4Shape(c.Namespace, c.Name, c.Spec.(*networking.VirtualService)) })
	tls, tcp, mesh := 0, 0, 0
	for _, shapes := range r.istiod {
		for _, sh := range shapes {
			switch {
			case strings.Contains(sh, "\n    tls"):
				tls++
			case strings.Contains(sh, "\n    tcp"):
				tcp++
			}
			if strings.Contains(sh, "gateways=[mesh]") {
				mesh++
			}
		}
	}
	r.report(t, "summary-gatewayapi-l4routes.txt", fmt.Sprintf("Gateway API TLSRoutes and TCPRoutes → VirtualServices: %d/%d scenarios agree (%d VirtualServices generated by istiod: %d with tls routes, %d with tcp routes, %d for mesh parents)\n", r.agree, r.total, r.generated, tls, tcp, mesh), 3)
	if tls == 0 || tcp == 0 || mesh == 0 {
		t.Error("istiod generated no VirtualService of some kind (tls, tcp or mesh): the harness compared too little")
	}
}
