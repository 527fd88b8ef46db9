package checks

// A random generator of multi-namespace meshes aimed at what a client namespace's own
// configuration can change for hosts of the public layer (written for a blind audit of
// preflight's shared client layers, which found the eight kinds now in testdata/sharing):
// wildcard and exact entries of every exportTo, resolution, address (colliding, CIDR) and port
// protocol; Kubernetes Services (ClusterIP, headless, ExternalName, the exportTo annotation);
// mesh defaults; REGISTRY_ONLY; DNS capture; root and namespace Sidecars; a canary revision;
// VirtualServices (mesh to the egress gateway with subsets, HTTP, TCP, TLS, delegates,
// sourceNamespace) and DestinationRules (wildcards, TLS modes, subsets, TLS origination).

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand"
	"strconv"
	"strings"
	"testing"

	"github.com/kubectl-egress/kubectl-egress/pkg/loader"
)

// TestPreflightSharingGenerated: preflight with and without the shared layers gives the same
// report on generated meshes (300 of each generator).
func TestPreflightSharingGenerated(t *testing.T) {
	differ := 0
	for i := 0; i < 600; i++ {
		var doc string
		if i%2 == 0 {
			doc, _ = sgScenario(int64(i))
		} else {
			doc = sgScenarioGateway(int64(i))
		}
		report := func(unshared bool) []byte {
			snap, err := loader.FromFiles([]string{"-"}, strings.NewReader(doc), loader.Options{Lenient: true})
			if err != nil {
				t.Fatalf("scenario %d: %v", i, err)
			}
			b, err := json.Marshal(preflight(snap, unshared))
			if err != nil {
				t.Fatal(err)
			}
			return b
		}
		if !bytes.Equal(report(false), report(true)) {
			differ++
			if differ <= 3 {
				t.Errorf("scenario %d: preflight's report differs with and without shared layers\n%s", i, doc)
			}
		}
	}
	if differ > 0 {
		t.Errorf("%d of 600 generated scenarios differ", differ)
	}
}

// sgBase: istio-system with istiod and an egress gateway; client namespaces given.
func sgBase(mesh string, clients ...string) string {
	var b strings.Builder
	b.WriteString(`apiVersion: v1
kind: Namespace
metadata: {name: istio-system}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: istiod, namespace: istio-system, labels: {app: istiod}}
spec:
  selector: {matchLabels: {app: istiod}}
  template:
    metadata: {labels: {app: istiod}}
    spec: {containers: [{name: discovery, image: pilot}]}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: istio-egressgateway, namespace: istio-system}
spec:
  selector: {matchLabels: {istio: egressgateway}}
  template:
    metadata: {labels: {istio: egressgateway, app: istio-egressgateway}}
    spec: {containers: [{name: istio-proxy, image: auto}]}
---
apiVersion: v1
kind: Service
metadata: {name: istio-egressgateway, namespace: istio-system}
spec:
  selector: {istio: egressgateway}
  ports:
  - {name: http2, port: 80, targetPort: 8080}
  - {name: https, port: 443, targetPort: 8443}
---
apiVersion: v1
kind: Namespace
metadata: {name: shared}
`)
	if mesh != "" {
		b.WriteString("---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: istio, namespace: istio-system}\ndata:\n  mesh: |\n")
		for _, l := range strings.Split(strings.TrimRight(mesh, "\n"), "\n") {
			b.WriteString("    " + l + "\n")
		}
	}
	for _, c := range clients {
		fmt.Fprintf(&b, "---\napiVersion: v1\nkind: Namespace\nmetadata: {name: %s, labels: {istio-injection: enabled}}\n", c)
	}
	return b.String()
}

var sgHosts = []string{"api.example.com", "h.example.com", "g.example.com", "*.example.com", "db.internal", "*.internal"}
var sgExact = []string{"api.example.com", "h.example.com", "g.example.com", "db.internal"}
var sgDates = []string{"2024-01-01T00:00:00Z", "2024-02-01T00:00:00Z", "2024-03-01T00:00:00Z", "2024-04-01T00:00:00Z"}

func sgPick[T any](r *rand.Rand, xs []T) T { return xs[r.Intn(len(xs))] }

func sgExportTo(e string) string {
	if e == "" {
		return ""
	}
	var q []string
	for _, x := range strings.Split(e, ",") {
		q = append(q, strconv.Quote(x))
	}
	return "  exportTo: [" + strings.Join(q, ", ") + "]\n"
}

func sgScenario(seed int64) (string, []string) {
	r := rand.New(rand.NewSource(seed))
	var dims []string
	clients := []string{"team-a", "team-b"}
	var mesh []string
	if r.Intn(5) == 0 {
		mesh = append(mesh, `defaultServiceExportTo: ["."]`)
		dims = append(dims, "mesh.svc.")
	}
	if r.Intn(5) == 0 {
		mesh = append(mesh, `defaultVirtualServiceExportTo: ["."]`)
		dims = append(dims, "mesh.vs.")
	}
	if r.Intn(5) == 0 {
		mesh = append(mesh, `defaultDestinationRuleExportTo: ["."]`)
		dims = append(dims, "mesh.dr.")
	}
	if r.Intn(6) == 0 {
		mesh = append(mesh, `outboundTrafficPolicy: {mode: REGISTRY_ONLY}`)
		dims = append(dims, "registry-only")
	}
	if r.Intn(12) == 0 {
		mesh = append(mesh, "defaultConfig:\n  proxyMetadata: {ISTIO_META_DNS_CAPTURE: \"true\"}")
		dims = append(dims, "dns-capture")
	}
	if r.Intn(12) == 0 {
		mesh = append(mesh, "serviceEntryVisibility: {defaultVisibility: NAMESPACE, applyToSidecars: true}")
		dims = append(dims, "se-visibility")
	}
	var b strings.Builder
	b.WriteString(sgBase(strings.Join(mesh, "\n"), clients...))
	if r.Intn(4) == 0 {
		dims = append(dims, "team-c")
		if r.Intn(2) == 0 {
			dims = append(dims, "canary")
			b.WriteString("---\napiVersion: v1\nkind: Namespace\nmetadata: {name: team-c, labels: {istio.io/rev: canary}}\n")
			b.WriteString(`---
apiVersion: apps/v1
kind: Deployment
metadata: {name: istiod-canary, namespace: istio-system, labels: {app: istiod, istio.io/rev: canary}}
spec:
  selector: {matchLabels: {app: istiod, istio.io/rev: canary}}
  template:
    metadata: {labels: {app: istiod, istio.io/rev: canary}}
    spec: {containers: [{name: discovery, image: pilot}]}
`)
		} else {
			b.WriteString("---\napiVersion: v1\nkind: Namespace\nmetadata: {name: team-c, labels: {istio-injection: enabled}}\n")
		}
		clients = append(clients, "team-c")
	}
	b.WriteString("---\napiVersion: v1\nkind: Namespace\nmetadata: {name: other}\n")
	nss := append([]string{"shared", "shared", "other"}, clients...)
	exports := []string{"", "", "*", ".", "team-a", "team-b", "team-a,team-b", "~", "istio-system", ".,istio-system"}
	if r.Intn(10) == 0 {
		dims = append(dims, "root-sidecar")
		hosts := sgPick(r, []string{`["*/*"]`, `["./*", "istio-system/*"]`, `["./*", "shared/*", "istio-system/*"]`})
		fmt.Fprintf(&b, "---\napiVersion: networking.istio.io/v1\nkind: Sidecar\nmetadata: {name: default, namespace: istio-system}\nspec:\n  egress: [{hosts: %s}]\n", hosts)
	}
	if r.Intn(10) == 0 {
		dims = append(dims, "ns-sidecar")
		fmt.Fprintf(&b, "---\napiVersion: networking.istio.io/v1\nkind: Sidecar\nmetadata: {name: default, namespace: %s}\nspec:\n  egress: [{hosts: [\"*/*\"]}]\n", sgPick(r, clients))
	}
	// ServiceEntries
	nse := 2 + r.Intn(6)
	for i := 0; i < nse; i++ {
		host := sgPick(r, sgHosts)
		ns := sgPick(r, nss)
		exp := sgPick(r, exports)
		res := sgPick(r, []string{"DNS", "DNS", "STATIC", "NONE"})
		if strings.HasPrefix(host, "*") && res == "STATIC" {
			res = "NONE"
		}
		var addrs []string
		if r.Intn(2) == 0 {
			addrs = append(addrs, sgPick(r, []string{"240.0.0.1", "240.0.0.2", "10.1.0.5", "10.1.0.0/24", "240.0.0.1"}))
		}
		fmt.Fprintf(&b, "---\napiVersion: networking.istio.io/v1\nkind: ServiceEntry\nmetadata: {name: se%d, namespace: %s, creationTimestamp: %q}\nspec:\n  hosts: [%q]\n", i, ns, sgPick(r, sgDates), host)
		b.WriteString(sgExportTo(exp))
		if len(addrs) > 0 {
			fmt.Fprintf(&b, "  addresses: [%s]\n", strings.Join(addrs, ","))
		}
		fmt.Fprintf(&b, "  location: MESH_EXTERNAL\n  resolution: %s\n  ports:\n", res)
		np := 1 + r.Intn(2)
		used := map[int]bool{}
		for j := 0; j < np; j++ {
			num := sgPick(r, []int{80, 443, 9000, 9000})
			if used[num] {
				continue
			}
			used[num] = true
			proto := sgPick(r, []string{"HTTP", "TCP", "TLS", "HTTPS", "", "GRPC", "HTTP"})
			if proto == "" {
				fmt.Fprintf(&b, "  - {number: %d, name: p%d}\n", num, num)
			} else {
				fmt.Fprintf(&b, "  - {number: %d, name: %s-%d, protocol: %s}\n", num, strings.ToLower(proto), num, proto)
			}
		}
		if res == "STATIC" {
			b.WriteString("  endpoints: [{address: 1.1.1.1}]\n")
		}
		dims = append(dims, "se")
	}
	// Kubernetes Services
	nk := r.Intn(3)
	for i := 0; i < nk; i++ {
		ns := sgPick(r, []string{"team-a", "team-b", "shared"})
		name := sgPick(r, []string{"web", "alias", "api"})
		ann := ""
		if r.Intn(3) == 0 {
			ann = fmt.Sprintf(", annotations: {networking.istio.io/exportTo: %q}", sgPick(r, []string{".", "team-a", "team-b", "~", "team-a,team-b"}))
		}
		fmt.Fprintf(&b, "---\napiVersion: v1\nkind: Service\nmetadata: {name: %s%d, namespace: %s%s}\nspec:\n", name, i, ns, ann)
		switch r.Intn(4) {
		case 0:
			fmt.Fprintf(&b, "  type: ExternalName\n  externalName: %s\n", sgPick(r, sgExact))
			dims = append(dims, "svc-externalname")
		case 1:
			b.WriteString("  clusterIP: None\n  selector: {app: x}\n")
			dims = append(dims, "svc-headless")
		default:
			fmt.Fprintf(&b, "  clusterIP: %s\n  selector: {app: x}\n", sgPick(r, []string{"10.96.0.10", "240.0.0.1", "10.1.0.5"}))
			dims = append(dims, "svc")
		}
		b.WriteString("  ports:\n")
		for _, p := range []string{"{name: http, port: 80}", "{name: tcp, port: 9000}", "{name: https, port: 443}"} {
			if r.Intn(2) == 0 {
				b.WriteString("  - " + p + "\n")
			}
		}
		b.WriteString("  - {name: http-alt, port: 8080}\n")
	}
	// Gateway
	if r.Intn(3) != 0 {
		b.WriteString(`---
apiVersion: networking.istio.io/v1
kind: Gateway
metadata: {name: egress, namespace: istio-system}
spec:
  selector: {istio: egressgateway}
  servers:
  - port: {number: 80, name: http, protocol: HTTP}
    hosts: ["*"]
  - port: {number: 443, name: tls, protocol: TLS}
    hosts: ["*"]
    tls: {mode: PASSTHROUGH}
`)
	}
	// VirtualServices
	gw := "istio-egressgateway.istio-system.svc.cluster.local"
	nvs := r.Intn(4)
	for i := 0; i < nvs; i++ {
		ns := sgPick(r, nss)
		host := sgPick(r, sgHosts)
		exp := sgPick(r, []string{"", "", "*", ".", "team-a", "team-b"})
		src := ""
		if r.Intn(6) == 0 {
			src = ", sourceNamespace: " + sgPick(r, clients)
			dims = append(dims, "vs-sourceNamespace")
		}
		fmt.Fprintf(&b, "---\napiVersion: networking.istio.io/v1\nkind: VirtualService\nmetadata: {name: vs%d, namespace: %s, creationTimestamp: %q}\nspec:\n  hosts: [%q]\n", i, ns, sgPick(r, sgDates), host)
		b.WriteString(sgExportTo(exp))
		switch r.Intn(6) {
		case 0, 1: // HTTP via the egress gateway
			dims = append(dims, "vs-http-egress")
			fmt.Fprintf(&b, `  gateways: [istio-system/egress, mesh]
  http:
  - match: [{gateways: [mesh], port: 80%s}]
    route: [{destination: {host: %s, port: {number: 80}}}]
  - match: [{gateways: [istio-system/egress], port: 80}]
    route: [{destination: {host: %s, port: {number: 80}}}]
`, src, sgPick(r, []string{gw, gw, "istio-egressgateway.istio-system"}), strings.Replace(host, "*", "x", 1))
		case 2: // HTTP to another host
			dims = append(dims, "vs-http-dest")
			sub := ""
			if r.Intn(3) == 0 {
				sub = ", subset: v1"
			}
			m := ""
			if src != "" {
				m = "  - match: [{" + src[2:] + "}]\n    route: [{destination: {host: " + sgPick(r, sgExact) + sub + "}}]\n"
			}
			fmt.Fprintf(&b, "  http:\n%s  - route: [{destination: {host: %s%s}}]\n", m, sgPick(r, append(sgExact, "web0", "alias0."+sgPick(r, nss)+".svc.cluster.local")), sub)
		case 3: // TCP
			dims = append(dims, "vs-tcp")
			m := ""
			if src != "" {
				m = "  - match: [{" + src[2:] + "}]\n    route: [{destination: {host: " + gw + ", port: {number: 443}}}]\n"
			}
			fmt.Fprintf(&b, "  tcp:\n%s  - route: [{destination: {host: %s, port: {number: %d}}}]\n", m, sgPick(r, append(sgExact, gw)), sgPick(r, []int{443, 9000}))
		case 4: // TLS via the egress gateway
			dims = append(dims, "vs-tls-egress")
			sni := strings.Replace(host, "*", "x", 1)
			fmt.Fprintf(&b, `  gateways: [istio-system/egress, mesh]
  tls:
  - match: [{gateways: [mesh], port: 443, sniHosts: [%q]%s}]
    route: [{destination: {host: %s, port: {number: 443}}}]
  - match: [{gateways: [istio-system/egress], port: 443, sniHosts: [%q]}]
    route: [{destination: {host: %s, port: {number: 443}}}]
`, sni, src, gw, sni, sni)
		case 5: // delegate
			dims = append(dims, "vs-delegate")
			fmt.Fprintf(&b, "  http:\n  - delegate: {name: d%d, namespace: %s}\n", i, ns)
			fmt.Fprintf(&b, "---\napiVersion: networking.istio.io/v1\nkind: VirtualService\nmetadata: {name: d%d, namespace: %s}\nspec:\n%s  http:\n  - route: [{destination: {host: %s}}]\n", i, ns, sgExportTo(sgPick(r, []string{"", ".", "team-a"})), sgPick(r, append(sgExact, gw)))
		}
	}
	// DestinationRules
	ndr := r.Intn(4)
	for i := 0; i < ndr; i++ {
		ns := sgPick(r, append(nss, "istio-system"))
		host := sgPick(r, append(sgHosts, gw, gw, "*", "web0"))
		exp := sgPick(r, []string{"", "", "*", ".", "team-a", "team-b"})
		fmt.Fprintf(&b, "---\napiVersion: networking.istio.io/v1\nkind: DestinationRule\nmetadata: {name: dr%d, namespace: %s}\nspec:\n  host: %q\n", i, ns, host)
		b.WriteString(sgExportTo(exp))
		switch r.Intn(4) {
		case 0:
			b.WriteString("  trafficPolicy: {tls: {mode: SIMPLE}}\n")
		case 1:
			b.WriteString("  trafficPolicy: {tls: {mode: ISTIO_MUTUAL}}\n")
		case 2:
			b.WriteString("  trafficPolicy: {portLevelSettings: [{port: {number: 443}, tls: {mode: SIMPLE}}]}\n")
		}
		if r.Intn(2) == 0 {
			b.WriteString("  subsets: [{name: v1, labels: {v: \"1\"}}]\n")
		}
		dims = append(dims, "dr")
	}
	return b.String(), dims
}

// sgScenarioGateway adds gateway-routed calls on top of sgScenario: mesh VirtualServices sending
// exact hosts to the egress gateway (with subsets), DestinationRules for the gateway Service,
// an exportTo annotation on the gateway Service, sourceNamespace routes.
func sgScenarioGateway(seed int64) string {
	y, _ := sgScenario(seed)
	r := rand.New(rand.NewSource(seed*7919 + 17))
	var b strings.Builder
	b.WriteString(y)
	gw := "istio-egressgateway.istio-system.svc.cluster.local"
	nss := []string{"shared", "team-a", "team-b", "istio-system", "other"}
	if r.Intn(6) == 0 {
		// replace the gateway Service with one carrying an exportTo annotation
		ann := sgPick(r, []string{".", "team-a", "istio-system,team-b", "team-a,team-b"})
		old := "metadata: {name: istio-egressgateway, namespace: istio-system}\nspec:\n  selector"
		s := b.String()
		s = strings.Replace(s, old, fmt.Sprintf("metadata: {name: istio-egressgateway, namespace: istio-system, annotations: {networking.istio.io/exportTo: %q}}\nspec:\n  selector", ann), 1)
		b.Reset()
		b.WriteString(s)
	}
	nroute := 1 + r.Intn(3)
	for i := 0; i < nroute; i++ {
		host := sgPick(r, sgExact)
		ns := sgPick(r, nss)
		exp := sgPick(r, []string{"", "", "*", ".", "team-a", "team-b", "team-a,istio-system"})
		sub := ""
		if r.Intn(3) == 0 {
			sub = ", subset: egress"
		}
		src := ""
		if r.Intn(8) == 0 {
			src = ", sourceNamespace: " + sgPick(r, []string{"team-a", "team-b"})
		}
		proto := sgPick(r, []string{"http", "http", "tls"})
		fmt.Fprintf(&b, "---\napiVersion: networking.istio.io/v1\nkind: VirtualService\nmetadata: {name: gw%d, namespace: %s, creationTimestamp: %q}\nspec:\n  hosts: [%q]\n", i, ns, sgPick(r, sgDates), host)
		b.WriteString(sgExportTo(exp))
		if proto == "http" {
			fmt.Fprintf(&b, `  gateways: [istio-system/egress, mesh]
  http:
  - match: [{gateways: [mesh], port: 80%s}]
    route: [{destination: {host: %s, port: {number: 80}%s}}]
  - match: [{gateways: [istio-system/egress], port: 80}]
    route: [{destination: {host: %s, port: {number: %d}}}]
`, src, gw, sub, host, sgPick(r, []int{80, 443}))
		} else {
			fmt.Fprintf(&b, `  gateways: [istio-system/egress, mesh]
  tls:
  - match: [{gateways: [mesh], port: 443, sniHosts: [%q]%s}]
    route: [{destination: {host: %s, port: {number: 443}%s}}]
  - match: [{gateways: [istio-system/egress], port: 443, sniHosts: [%q]}]
    route: [{destination: {host: %s, port: {number: 443}}}]
`, host, src, gw, sub, host, host)
		}
		// an entry for the host, sometimes
		if r.Intn(2) == 0 {
			ens := sgPick(r, nss)
			eexp := sgPick(r, []string{"", "*", ".", "team-a", "istio-system", ".,istio-system"})
			fmt.Fprintf(&b, "---\napiVersion: networking.istio.io/v1\nkind: ServiceEntry\nmetadata: {name: gwse%d, namespace: %s, creationTimestamp: %q}\nspec:\n  hosts: [%q]\n%s  location: MESH_EXTERNAL\n  resolution: DNS\n  ports:\n  - {number: 80, name: http, protocol: HTTP}\n  - {number: 443, name: %s, protocol: %s}\n",
				i, ens, sgPick(r, sgDates), host, sgExportTo(eexp), strings.ToLower(sgPick(r, []string{"tls", "https"})), sgPick(r, []string{"TLS", "HTTPS"}))
		}
	}
	ndr := r.Intn(3)
	for i := 0; i < ndr; i++ {
		ns := sgPick(r, nss)
		exp := sgPick(r, []string{"", "", "*", ".", "team-a", "team-b"})
		host := sgPick(r, []string{gw, gw, "istio-egressgateway", "*.istio-system.svc.cluster.local", "*"})
		fmt.Fprintf(&b, "---\napiVersion: networking.istio.io/v1\nkind: DestinationRule\nmetadata: {name: gwdr%d, namespace: %s}\nspec:\n  host: %q\n%s", i, ns, host, sgExportTo(exp))
		switch r.Intn(3) {
		case 0:
			b.WriteString("  trafficPolicy: {tls: {mode: ISTIO_MUTUAL}}\n")
		case 1:
			b.WriteString("  trafficPolicy: {tls: {mode: SIMPLE}}\n")
		}
		if r.Intn(2) == 0 {
			b.WriteString("  subsets: [{name: egress, labels: {istio: egressgateway}}]\n")
		}
	}
	// TLS origination at the gateway for a host, sometimes
	if r.Intn(3) == 0 {
		fmt.Fprintf(&b, "---\napiVersion: networking.istio.io/v1\nkind: DestinationRule\nmetadata: {name: orig, namespace: %s}\nspec:\n  host: %q\n%s  trafficPolicy: {portLevelSettings: [{port: {number: 443}, tls: {mode: SIMPLE}}]}\n",
			sgPick(r, nss), sgPick(r, sgExact), sgExportTo(sgPick(r, []string{"", ".", "istio-system", "team-a"})))
	}
	return b.String()
}
