// Package meshgen writes large synthetic meshes as YAML manifests for benchmarks and the live
// benchmark script (hack/bench-live.sh). The shape follows the anchor mesh the performance
// figures are quoted on: N namespaces × PerNamespace ServiceEntries (mixed HTTP, HTTPS, TLS and
// TCP ports, mixed exportTo, TCP entries with an address), a VirtualService for every other
// entry (HTTP ones bound to the Gateway istio-system/egress-gw and to the mesh, the others
// tcp routes for the mesh), a DestinationRule with a subset for every fifth entry, and one
// Gateway. With Control set it also writes istio-system, an istiod Deployment running with
// PILOT_FILTER_GATEWAY_CLUSTER_CONFIG=true and an egress gateway Deployment and Service, so
// live runs diagnose a real gateway workload.
//
// Output is deterministic for a given Options (math/rand/v2 PCG seeded with Seed); nothing it
// writes is committed — meshes are made at benchmark time.
package meshgen

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
)

// Options size the mesh.
type Options struct {
	Namespaces   int
	PerNamespace int
	Seed         uint64
	// Control adds istio-system, istiod and the egress gateway workload.
	Control bool
	// Ambient makes every odd namespace an ambient one (istio.io/dataplane-mode=ambient instead
	// of sidecar injection) with a waypoint of its own; every third entry there is bound to it
	// (istio.io/use-waypoint) and every sixth, if HTTP, has an HTTPRoute attached to the entry
	// (parentRef kind ServiceEntry, a Hostname backend) in place of its VirtualService, and every tenth ambient namespace
	// also attaches a route to the previous namespace's first bound entry (a route the waypoint
	// ignores). Off, the output is the anchor mesh byte for byte.
	Ambient bool
}

// Entries returns the number of ServiceEntries the options produce.
func (o Options) Entries() int { return o.Namespaces * o.PerNamespace }

// ForEntries returns options for about n entries in namespaces of 50 (the anchor's shape).
func ForEntries(n int) Options {
	per := 50
	if n < per {
		per = n
	}
	return Options{Namespaces: (n + per - 1) / per, PerNamespace: per, Seed: 7, Control: true}
}

// Write writes the mesh as a multi-document YAML stream.
func Write(w io.Writer, o Options) error {
	b := bufio.NewWriterSize(w, 1<<16)
	r := rand.New(rand.NewPCG(o.Seed, o.Seed^0x9e3779b97f4a7c15))
	doc := func(format string, a ...any) {
		fmt.Fprintf(b, format, a...)
		b.WriteString("\n---\n")
	}
	if o.Control {
		doc(controlPlane)
	}
	ambient := func(n int) bool { return o.Ambient && n%2 == 1 }
	for n := 0; n < o.Namespaces; n++ {
		if ambient(n) {
			doc("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ns-%03d\n  labels:\n    istio.io/dataplane-mode: ambient\n    team: t%d", n, n%10)
			doc("apiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata:\n  name: waypoint\n  namespace: ns-%03d\n  labels: {istio.io/waypoint-for: service}\nspec:\n  gatewayClassName: istio-waypoint\n  listeners:\n  - {name: mesh, port: 15008, protocol: HBONE}", n)
			continue
		}
		doc("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ns-%03d\n  labels:\n    istio-injection: enabled\n    team: t%d", n, n%10)
	}
	protos := []string{"HTTP", "HTTPS", "TLS", "TCP", "HTTP"}
	ports := map[string]int{"HTTP": 80, "HTTPS": 443, "TLS": 443, "TCP": 5432}
	exports := []string{`["*"]`, `["."]`, `[".", "istio-system"]`, `["*"]`}
	for n := 0; n < o.Namespaces; n++ {
		ns := fmt.Sprintf("ns-%03d", n)
		for i := 0; i < o.PerNamespace; i++ {
			h := fmt.Sprintf("svc%d.ns%d.example.com", i, n)
			proto := protos[r.IntN(len(protos))]
			port := ports[proto]
			exp := exports[r.IntN(len(exports))]
			addr := ""
			if proto == "TCP" {
				addr = fmt.Sprintf("\n  addresses: [\"240.%d.%d.%d\"]", n%250, i%250, 1+r.IntN(250))
			}
			labels := ""
			bound := ambient(n) && i%3 == 0
			if bound {
				labels = "\n  labels: {istio.io/use-waypoint: waypoint}"
			}
			doc("apiVersion: networking.istio.io/v1\nkind: ServiceEntry\nmetadata:\n  name: se-%d\n  namespace: %s%s\nspec:\n  hosts: [%s]%s\n  exportTo: %s\n  location: MESH_EXTERNAL\n  resolution: DNS\n  ports:\n  - number: %d\n    name: p-%s\n    protocol: %s",
				i, ns, labels, h, addr, exp, port, lower(proto), proto)
			routed := bound && i%6 == 0 && proto == "HTTP"
			if routed {
				doc("apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata:\n  name: route-%d\n  namespace: %s\nspec:\n  parentRefs:\n  - {group: networking.istio.io, kind: ServiceEntry, name: se-%d}\n  rules:\n  - backendRefs:\n    - {group: networking.istio.io, kind: Hostname, name: %s, port: %d}",
					i, ns, i, h, port)
			}
			if bound && i == 0 && n%10 == 1 && n > 1 {
				// Attached from another namespace: ignored by the waypoint.
				doc("apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata:\n  name: foreign-route\n  namespace: ns-%03d\nspec:\n  parentRefs:\n  - {group: networking.istio.io, kind: ServiceEntry, name: se-0, namespace: %s}\n  rules:\n  - backendRefs:\n    - {group: networking.istio.io, kind: Hostname, name: %s, port: %d}",
					n-1, ns, h, port)
			}
			if i%2 == 0 && !routed {
				if proto == "HTTP" {
					doc("apiVersion: networking.istio.io/v1\nkind: VirtualService\nmetadata:\n  name: vs-%d\n  namespace: %s\nspec:\n  hosts: [%s]\n  gateways: [istio-system/egress-gw, mesh]\n  http:\n  - route:\n    - destination:\n        host: %s\n        port: {number: %d}",
						i, ns, h, h, port)
				} else {
					doc("apiVersion: networking.istio.io/v1\nkind: VirtualService\nmetadata:\n  name: vs-%d\n  namespace: %s\nspec:\n  hosts: [%s]\n  tcp:\n  - route:\n    - destination:\n        host: %s\n        port: {number: %d}",
						i, ns, h, h, port)
				}
			}
			if i%5 == 0 {
				doc("apiVersion: networking.istio.io/v1\nkind: DestinationRule\nmetadata:\n  name: dr-%d\n  namespace: %s\nspec:\n  host: %s\n  trafficPolicy:\n    connectionPool:\n      tcp: {maxConnections: 100}\n  subsets:\n  - name: v1\n    labels: {version: v1}",
					i, ns, h)
			}
		}
	}
	doc("apiVersion: networking.istio.io/v1\nkind: Gateway\nmetadata:\n  name: egress-gw\n  namespace: istio-system\nspec:\n  selector: {istio: egressgateway}\n  servers:\n  - port: {number: 80, name: http, protocol: HTTP}\n    hosts: ['*']")
	return b.Flush()
}

func lower(s string) string {
	out := []byte(s)
	for i, c := range out {
		if c >= 'A' && c <= 'Z' {
			out[i] = c + 'a' - 'A'
		}
	}
	return string(out)
}

const controlPlane = `apiVersion: v1
kind: Namespace
metadata:
  name: istio-system
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: istiod
  namespace: istio-system
  labels: {app: istiod}
spec:
  selector: {matchLabels: {app: istiod}}
  template:
    metadata:
      labels: {app: istiod, istio: pilot}
    spec:
      containers:
      - name: discovery
        image: docker.io/istio/pilot:1.31.0
        env:
        - {name: PILOT_FILTER_GATEWAY_CLUSTER_CONFIG, value: "true"}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: istio-egressgateway
  namespace: istio-system
spec:
  selector: {matchLabels: {istio: egressgateway}}
  template:
    metadata:
      labels: {istio: egressgateway, app: istio-egressgateway}
    spec:
      containers:
      - name: istio-proxy
        image: docker.io/istio/proxyv2:1.31.0
---
apiVersion: v1
kind: Service
metadata:
  name: istio-egressgateway
  namespace: istio-system
spec:
  selector: {istio: egressgateway}
  ports:
  - {name: http2, port: 80, targetPort: 8080}
  - {name: https, port: 443, targetPort: 8443}`
