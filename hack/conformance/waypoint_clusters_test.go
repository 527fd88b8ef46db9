package conformance

// Waypoint clusters: every cluster istiod builds for a waypoint proxy (its CDS), by name and
// type, against the plugin's prediction (`proxy-config clusters --gateway NS/WAYPOINT`,
// checks.ProxyConfig). istiod's side is the fake discovery server with PILOT_ENABLE_AMBIENT, a
// waypoint proxy set up for the waypoint's pod (node type waypoint; its Service's cluster IP is
// the Gateway's status address, so istiod's ambient index finds the services bound to it).
//
// Generated on top of the ambient scenarios (TestConformanceAmbient's bindings, resolutions,
// visibility policies): entries with ports of every protocol kind (HTTP, HTTP2, GRPC, TCP, TLS,
// HTTPS, MONGO, UDP, none), location MESH_INTERNAL or MESH_EXTERNAL; DestinationRules with
// subsets in the waypoint's namespace, the entry's, the root namespace or a third one, with
// exportTo or a workloadSelector; mesh VirtualServices whose host is a bound entry's, routing to
// bound, unbound, internal and external hosts (subsets too).

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	listenerv3 "github.com/envoyproxy/go-control-plane/envoy/config/listener/v3"
	hcmv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/http_connection_manager/v3"
	tcpv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/tcp_proxy/v3"
	"istio.io/istio/pilot/pkg/config/kube/crd"
	"istio.io/istio/pilot/pkg/features"
	"istio.io/istio/pilot/pkg/model"
	"istio.io/istio/pilot/test/xds"
	"istio.io/istio/pkg/config/mesh"
	istiolog "istio.io/istio/pkg/log"
	"istio.io/istio/pkg/test"

	"github.com/kubectl-egress/kubectl-egress/pkg/checks"
	"github.com/kubectl-egress/kubectl-egress/pkg/loader"
)

// waypointScenario is an ambient scenario with the waypoints to compare.
type waypointScenario struct {
	ambientScenario
	// waypoints: "ns/name" → pod IP of the waypoint proxy.
	waypoints map[string]string
}

// generateWaypointClusters extends the ambient scenarios with what a waypoint's clusters
// depend on.
func generateWaypointClusters(seed int64, n int) []waypointScenario {
	rng := rand.New(rand.NewSource(seed ^ 0x7770636c7573)) // "wpclus"
	pick := func(v ...string) string { return v[rng.Intn(len(v))] }
	var out []waypointScenario
	for i, base := range generateAmbient(seed, n) {
		sc := waypointScenario{ambientScenario: base, waypoints: map[string]string{}}
		// Documents istiod's validation rejects (a CIDR on a DNS entry) are left out: a
		// cluster would not hold them, and the registry reads only valid ones.
		var kept []string
		for _, doc := range strings.Split(strings.TrimSuffix(base.yaml, "\n"), "\n---\n") {
			if _, _, err := crd.ParseInputs(doc); err == nil {
				kept = append(kept, doc)
			}
		}
		base.yaml = strings.Join(kept, "\n---\n") + "\n"
		var b strings.Builder
		b.WriteString(strings.TrimSuffix(base.yaml, "\n"))
		add := func(format string, a ...any) {
			b.WriteString("\n---\n")
			fmt.Fprintf(&b, format, a...)
		}
		ts := time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)
		next := func() string { ts = ts.Add(time.Minute); return ts.Format(time.RFC3339) }

		// The waypoints' Services and pods (istiod's deployment controller makes them): the
		// Service's cluster IP is the Gateway's status address.
		for _, doc := range strings.Split(base.yaml, "\n---\n") {
			if !strings.Contains(doc, "kind: Gateway\n") || !strings.Contains(doc, "addresses:") {
				continue
			}
			// a waypoint proxy runs only for a waypoint class: istio-waypoint, or a
			// GatewayClass of istiod's mesh controller (a Gateway of class istio is a gateway)
			if class := field(doc, "gatewayClassName: "); class != "istio-waypoint" && (class != "custom-waypoint" || !strings.Contains(base.yaml, "kind: GatewayClass")) {
				continue
			}
			name, ns, addr := field(doc, "  name: "), field(doc, "  namespace: "), field(doc, "value: ")
			addr = strings.TrimSuffix(addr, "}")
			ip := fmt.Sprintf("10.244.%d.%d", len(sc.waypoints)+1, i%250+1)
			sc.waypoints[ns+"/"+name] = ip
			add("apiVersion: v1\nkind: Service\nmetadata:\n  name: %s\n  namespace: %s\n  labels: {gateway.networking.k8s.io/gateway-name: %s, gateway.istio.io/managed: istio.io-mesh-controller}\nspec:\n  clusterIP: %s\n  selector: {gateway.networking.k8s.io/gateway-name: %s}\n  ports:\n  - {name: mesh, port: 15008, protocol: TCP}", name, ns, name, addr, name)
			add("apiVersion: v1\nkind: Pod\nmetadata:\n  name: %s-pod\n  namespace: %s\n  labels: {gateway.networking.k8s.io/gateway-name: %s}\nspec:\n  containers:\n  - {name: istio-proxy, image: istio/proxyv2}\nstatus:\n  podIP: %s\n  podIPs: [{ip: %s}]\n  phase: Running", name, ns, name, ip, ip)
		}

		// Entries with ports of every kind, bound to wp1 (right namespace label) or not.
		protos := []string{"HTTP", "HTTP2", "GRPC", "TCP", "TLS", "HTTPS", "MONGO", "UDP", ""}
		var hosts []string
		for k := 0; k < 1+rng.Intn(3); k++ {
			ns := pick("ext", "other")
			host := fmt.Sprintf("x%d.corp.example", k)
			hosts = append(hosts, host)
			var ports []string
			for p := 0; p < 1+rng.Intn(3); p++ {
				proto := protos[rng.Intn(len(protos))]
				pf := ""
				if proto != "" {
					pf = ", protocol: " + proto
				}
				ports = append(ports, fmt.Sprintf("  - {number: %d, name: p%d%s}", 8000+p*10+rng.Intn(5), p, pf))
			}
			labels := ""
			if rng.Intn(4) != 0 {
				wpNs := "wp"
				for ref := range sc.waypoints {
					if strings.HasSuffix(ref, "/wp1") {
						wpNs = strings.TrimSuffix(ref, "/wp1")
					}
				}
				labels = "\n  labels: {istio.io/use-waypoint: wp1, istio.io/use-waypoint-namespace: " + wpNs + "}"
			}
			res := pick("DNS", "STATIC", "NONE")
			spec := fmt.Sprintf("  hosts: [%s]\n  location: %s\n  resolution: %s\n  ports:\n%s", host, pick("MESH_EXTERNAL", "MESH_INTERNAL"), res, strings.Join(ports, "\n"))
			if res == "STATIC" {
				spec += "\n  endpoints:\n  - address: 203.0.113.20"
			}
			if rng.Intn(2) == 0 {
				spec += fmt.Sprintf("\n  addresses: [240.2.%d.%d]", k, i%250+1)
			}
			if rng.Intn(5) == 0 {
				spec += "\n  exportTo: [\".\"]"
			}
			add("apiVersion: networking.istio.io/v1\nkind: ServiceEntry\nmetadata:\n  name: xse%d\n  namespace: %s\n  creationTimestamp: %s%s\nspec:\n%s", k, ns, next(), labels, spec)
		}
		for _, e := range base.entries {
			hosts = append(hosts, e...)
		}
		sort.Strings(hosts)

		// DestinationRules with subsets (no labels: a DNS entry's endpoints carry none).
		for k := 0; k < rng.Intn(4); k++ {
			host := hosts[rng.Intn(len(hosts))]
			ns := pick("wp", "ext", "other", "istio-system", "third")
			extra := ""
			switch pick("none", "none", "dot", "star", "selector") {
			case "dot":
				extra = "\n  exportTo: [\".\"]"
			case "star":
				extra = "\n  exportTo: [\"*\"]"
			case "selector":
				extra = "\n  workloadSelector: {matchLabels: {gateway.networking.k8s.io/gateway-name: wp1}}"
			}
			// a load balancer PASSTHROUGH (top-level, port-level or on a subset) makes the
			// clusters it applies to ORIGINAL_DST (applyLoadBalancer)
			policy, subPolicy := "", ""
			switch pick("none", "none", "none", "lb-passthrough", "lb-round-robin", "port-passthrough", "subset-passthrough") {
			case "lb-passthrough":
				policy = "\n  trafficPolicy: {loadBalancer: {simple: PASSTHROUGH}}"
			case "lb-round-robin":
				policy = "\n  trafficPolicy: {loadBalancer: {simple: ROUND_ROBIN}}"
			case "port-passthrough":
				policy = fmt.Sprintf("\n  trafficPolicy: {portLevelSettings: [{port: {number: %s}, loadBalancer: {simple: PASSTHROUGH}}]}", pick("80", "443", "8001"))
			case "subset-passthrough":
				subPolicy = ", trafficPolicy: {loadBalancer: {simple: PASSTHROUGH}}"
			}
			add("apiVersion: networking.istio.io/v1\nkind: DestinationRule\nmetadata:\n  name: dr%d\n  namespace: %s\n  creationTimestamp: %s\nspec:\n  host: %q%s%s\n  subsets:\n  - {name: s%d%s}\n  - name: t%d", k, ns, next(), host, extra, policy, k, subPolicy, k)
		}
		if strings.Contains(b.String(), "namespace: third") {
			add("apiVersion: v1\nkind: Namespace\nmetadata: {name: third}")
		}

		// Mesh VirtualServices from one host to others.
		for k := 0; k < 1+rng.Intn(4); k++ {
			from := hosts[rng.Intn(len(hosts))]
			to := hosts[rng.Intn(len(hosts))]
			if strings.HasPrefix(from, "*") || strings.HasPrefix(to, "*") {
				continue
			}
			subset := ""
			if rng.Intn(3) == 0 {
				subset = ", subset: s0"
			}
			gws := pick("", "", "\n  gateways: [mesh]", "\n  gateways: [wp/wp1]")
			var body string
			switch pick("http", "http", "http-port", "http-two", "tcp", "tls", "split", "tcp-source", "tls-source") {
			case "tcp-source":
				// a source match never applies to a waypoint's tcp route (matchTCP without
				// source labels or namespace)
				body = fmt.Sprintf("  tcp:\n  - match: [%s]\n    route:\n    - destination: {host: %s}", pick("{sourceLabels: {app: a}}", "{sourceNamespace: ext}", "{port: 443, sourceNamespace: wp}"), to)
			case "tls-source":
				body = fmt.Sprintf("  tls:\n  - match: [{sniHosts: [%s], sourceNamespace: %s}]\n    route:\n    - destination: {host: %s, port: {number: 443}}", from, pick("ext", "wp"), to)
			case "http":
				body = fmt.Sprintf("  http:\n  - route:\n    - destination: {host: %s%s}", to, subset)
			case "http-port":
				body = fmt.Sprintf("  http:\n  - match: [{port: %s, uri: {prefix: /v2}}]\n    route:\n    - destination: {host: %s%s, port: {number: %s}}", pick("80", "443", "8000"), to, subset, pick("80", "443", "8001"))
			case "http-two":
				body = fmt.Sprintf("  http:\n  - match: [{headers: {x-canary: {exact: \"1\"}}}, {uri: {prefix: /}}]\n    route:\n    - destination: {host: %s%s}\n  - route:\n    - destination: {host: %s}", to, subset, from)
			case "tcp":
				body = fmt.Sprintf("  tcp:\n  - match: [{port: %s}]\n    route:\n    - destination: {host: %s%s}", pick("443", "8001", "8010"), to, subset)
			case "tls":
				body = fmt.Sprintf("  tls:\n  - match: [{sniHosts: [%s]}]\n    route:\n    - destination: {host: %s, port: {number: 443}}", from, to)
			case "split":
				body = fmt.Sprintf("  http:\n  - route:\n    - destination: {host: %s}\n      weight: 80\n    - destination: {host: %s}\n      weight: 20", to, from)
			}
			add("apiVersion: networking.istio.io/v1\nkind: VirtualService\nmetadata:\n  name: vs%d\n  namespace: %s\n  creationTimestamp: %s\nspec:\n  hosts: [%s]%s\n%s", k, pick("ext", "other", "wp"), next(), from, gws, body)
		}
		sc.name = strings.Replace(base.name, "ambient-", "waypoint-", 1)
		sc.yaml = b.String() + "\n"
		out = append(out, sc)
	}
	return out
}

// field is the value after prefix on its first line in doc ("" when absent).
func field(doc, prefix string) string {
	i := strings.Index(doc, prefix)
	if i < 0 {
		return ""
	}
	v, _, _ := strings.Cut(doc[i+len(prefix):], "\n")
	return strings.TrimSpace(v)
}

// clusterShape is one cluster as the comparison prints it.
func clusterShape(name, typ string) string { return name + " " + typ }

// pluginWaypointClusters is the plugin's prediction for one waypoint.
func pluginWaypointClusters(t *testing.T, sc waypointScenario, ref string) []string {
	snap, err := loader.FromFiles([]string{"-"}, strings.NewReader(sc.yaml), loader.Options{Lenient: true})
	if err != nil {
		t.Fatalf("%s: plugin loader: %v", sc.name, err)
	}
	rep, err := checks.ProxyConfig(snap, checks.ProxyConfigOptions{Gateway: ref, Sections: []string{checks.SectionClusters}})
	if err != nil {
		t.Fatalf("%s: plugin: %v", sc.name, err)
	}
	var out []string
	for _, c := range rep.Clusters {
		out = append(out, clusterShape(c.Name, c.Type))
	}
	return out
}

// istiodWaypointClusters is istiod's CDS for each waypoint of the scenario.
func istiodWaypointClusters(t *testing.T, sc waypointScenario) (map[string][]string, map[string][]string, error) {
	out, lds := map[string][]string{}, map[string][]string{}
	err := test.Wrap(func(tt test.Failer) {
		m := mesh.DefaultMeshConfig()
		if sc.meshText != "" {
			var err error
			if m, err = mesh.ApplyMeshConfigDefaults(sc.meshText); err != nil {
				tt.Fatalf("mesh config: %v", err)
			}
		}
		test.SetForTest(tt, &features.EnableAmbient, true)
		// (its default follows PILOT_ENABLE_AMBIENT when the process starts: true in an ambient
		// istiod, false in this test binary)
		test.SetForTest(tt, &features.EnableAmbientWaypoints, true)
		test.SetForTest(tt, &features.EnableIPAutoallocate, sc.autoallocate)
		// Istio's kinds reach the service registry and push context as configs, and the
		// ambient index from the Kubernetes client (both, as gatewayapi_status_test.go does).
		configs, _, err := crd.ParseInputs(sc.yaml)
		if err != nil {
			tt.Fatalf("parse: %v", err)
		}
		s := xds.NewFakeDiscoveryServer(tt, xds.FakeOptions{Configs: configs, KubernetesObjectString: sc.yaml, MeshConfig: m, KubeClientModifier: gatewayAPIBundleVersion})
		idx := s.Env().AmbientIndexes
		if synced, ok := idx.(interface{ HasSynced() bool }); ok {
			deadline := time.Now().Add(10 * time.Second)
			for !synced.HasSynced() && time.Now().Before(deadline) {
				time.Sleep(10 * time.Millisecond)
			}
		}
		// The first push may predate the entries' informers: push again once the ambient index
		// has synced, and wait for it.
		deadline := time.Now().Add(10 * time.Second)
		s.Discovery.ConfigUpdate(&model.PushRequest{Forced: true, Reason: model.NewReasonStats(model.GlobalUpdate)})
		for s.Discovery.CommittedUpdates.Load() < s.Discovery.InboundUpdates.Load() && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
		for ref, ip := range sc.waypoints {
			ns, name, _ := strings.Cut(ref, "/")
			p := newProxy(s, model.Waypoint, proxySpec{ns: ns, pod: name + "-pod", ip: ip, labels: map[string]string{"gateway.networking.k8s.io/gateway-name": name}})
			var cs []string
			for _, c := range s.Clusters(p) {
				typ := c.GetType().String()
				if c.GetClusterType() != nil {
					typ = "DYNAMIC_FORWARD_PROXY"
				}
				cs = append(cs, clusterShape(c.Name, typ))
			}
			out[ref] = cs
			lds[ref] = istiodWaypointListeners(tt, s.Listeners(p))
		}
	})
	return out, lds, err
}

// TestConformanceWaypointClusters compares every waypoint's clusters with istiod's.
func TestConformanceWaypointClusters(t *testing.T) {
	for _, s := range istiolog.Scopes() {
		s.SetOutputLevel(istiolog.NoneLevel)
		s.SetStackTraceLevel(istiolog.NoneLevel)
	}
	scenarios := generateWaypointClusters(*seedFlag, max(*countFlag/4, 20))
	var bad []string
	agree, proxies, clusters, vip, outbound, subsets := 0, 0, 0, 0, 0, 0
	agreeL, chains, routeLines, routed, originalDst := 0, 0, 0, 0, 0
	var badL []string
	for _, sc := range scenarios {
		if *onlyFlag != "" && !regexp.MustCompile(*onlyFlag).MatchString(sc.name) {
			continue
		}
		theirs, theirLDS, err := istiodWaypointClusters(t, sc)
		if err != nil {
			t.Fatalf("%s: istiod: %v\n%s", sc.name, err, sc.yaml)
		}
		refs := make([]string, 0, len(theirs))
		for ref := range theirs {
			refs = append(refs, ref)
		}
		sort.Strings(refs)
		for _, ref := range refs {
			proxies++
			mine := pluginWaypointClusters(t, sc, ref)
			sort.Strings(mine)
			sort.Strings(theirs[ref])
			clusters += len(theirs[ref])
			for _, c := range theirs[ref] {
				switch {
				case strings.HasPrefix(c, "inbound-vip|"):
					vip++
					if strings.HasSuffix(c, " ORIGINAL_DST") {
						originalDst++
					}
					if strings.Contains(c, "|http/") || strings.Contains(c, "|tcp/") {
						subsets++
					}
				case strings.HasPrefix(c, "outbound|"):
					outbound++
				}
			}
			mineL, theirL := pluginWaypointListeners(t, sc, ref), theirLDS[ref]
			sort.Strings(mineL)
			sort.Strings(theirL)
			for _, l := range theirL {
				switch {
				case strings.HasPrefix(l, "chain "):
					chains++
				case strings.HasPrefix(l, "route "):
					routeLines++
					if !strings.Contains(l, "inbound|http|0") && !strings.HasSuffix(l, ": "+strings.Fields(l)[1]) {
						routed++
					}
				}
			}
			if strings.Join(mineL, "\n") == strings.Join(theirL, "\n") {
				agreeL++
			} else {
				badL = append(badL, fmt.Sprintf("%s waypoint %s listeners:\n  plugin: %s\n  istiod: %s\n%s", sc.name, ref, strings.Join(mineL, "\n          "), strings.Join(theirL, "\n          "), sc.yaml))
			}
			if strings.Join(mine, "\n") == strings.Join(theirs[ref], "\n") {
				agree++
				continue
			}
			bad = append(bad, fmt.Sprintf("%s waypoint %s:\n  plugin: %s\n  istiod: %s\n%s", sc.name, ref, strings.Join(mine, "\n          "), strings.Join(theirs[ref], "\n          "), sc.yaml))
		}
	}
	summary := fmt.Sprintf("Waypoint clusters: %d/%d waypoints agree (%d scenarios, %d clusters: %d inbound-vip of which %d subsets and %d ORIGINAL_DST, %d outbound)\n", agree, proxies, len(scenarios), clusters, vip, subsets, originalDst, outbound)
	summary += fmt.Sprintf("Waypoint listeners and routes: %d/%d waypoints agree (%d main_internal chains, %d route lines, %d of them routed elsewhere than the chain's own cluster)\n", agreeL, proxies, chains, routeLines, routed)
	bad = append(bad, badL...)
	t.Log(summary)
	_ = os.MkdirAll(*outFlag, 0o755)
	_ = os.WriteFile(filepath.Join(*outFlag, "summary-waypoint-clusters.txt"), []byte(summary+strings.Join(bad, "\n")), 0o644)
	for i, b := range bad {
		if i == 5 {
			t.Errorf("... and %d more (%s)", len(bad)-5, filepath.Join(*outFlag, "summary-waypoint-clusters.txt"))
			break
		}
		t.Errorf("disagreement: %s", b)
	}
	if vip == 0 || subsets == 0 || outbound == 0 || routed == 0 {
		t.Errorf("the generated waypoints had no inbound-vip (%d), subset (%d) or outbound (%d) cluster: the comparison tested nothing", vip, subsets, outbound)
	}
}

// listenerShape renders a waypoint's listeners for the comparison: each listener's name; for
// main_internal each chain with its destination (a tcp_proxy's cluster or weighted clusters, an
// HTTP connection manager's inline route configuration) and each route configuration's virtual
// hosts with their domains and route destinations, in order.
func listenerShape(listener string) string { return "listener " + listener }

func chainShape(chain, dest string) string { return "chain " + chain + " -> " + dest }

func routeShape(rc, vh string, domains, dests []string) string {
	return fmt.Sprintf("route %s vhost %s [%s]: %s", rc, vh, strings.Join(domains, " "), strings.Join(dests, " | "))
}

// istiodWaypointListeners is listenerShape over istiod's listeners.
func istiodWaypointListeners(t test.Failer, ls []*listenerv3.Listener) []string {
	var out []string
	for _, l := range ls {
		out = append(out, listenerShape(l.GetName()))
		if l.GetName() != checks.WaypointMainInternal {
			continue
		}
		for _, c := range l.GetFilterChains() {
			dest := "?"
			for _, f := range c.GetFilters() {
				tp := &tcpv3.TcpProxy{}
				if f.GetTypedConfig() != nil && f.GetTypedConfig().UnmarshalTo(tp) == nil {
					if w := tp.GetWeightedClusters(); w != nil {
						var ns []string
						for _, x := range w.GetClusters() {
							ns = append(ns, x.GetName())
						}
						dest = "clusters " + strings.Join(ns, ",")
					} else {
						dest = "cluster " + tp.GetCluster()
					}
				}
				h := &hcmv3.HttpConnectionManager{}
				if f.GetTypedConfig() != nil && f.GetTypedConfig().UnmarshalTo(h) == nil {
					rc := h.GetRouteConfig()
					dest = "route " + rc.GetName()
					for _, vh := range rc.GetVirtualHosts() {
						var dests []string
						for _, r := range vh.GetRoutes() {
							switch {
							case r.GetDirectResponse() != nil:
								dests = append(dests, fmt.Sprintf("direct %d", r.GetDirectResponse().GetStatus()))
							case r.GetRedirect() != nil:
								dests = append(dests, "redirect")
							case r.GetRoute().GetWeightedClusters() != nil:
								var ns []string
								for _, x := range r.GetRoute().GetWeightedClusters().GetClusters() {
									ns = append(ns, x.GetName())
								}
								dests = append(dests, "weighted "+strings.Join(ns, ","))
							default:
								dests = append(dests, r.GetRoute().GetCluster())
							}
						}
						out = append(out, routeShape(rc.GetName(), vh.GetName(), vh.GetDomains(), dests))
					}
				}
			}
			out = append(out, chainShape(c.GetName(), dest))
		}
	}
	return out
}

// pluginWaypointListeners is listenerShape over the plugin's prediction.
func pluginWaypointListeners(t *testing.T, sc waypointScenario, ref string) []string {
	snap, err := loader.FromFiles([]string{"-"}, strings.NewReader(sc.yaml), loader.Options{Lenient: true})
	if err != nil {
		t.Fatalf("%s: plugin loader: %v", sc.name, err)
	}
	rep, err := checks.ProxyConfig(snap, checks.ProxyConfigOptions{Gateway: ref, Sections: []string{checks.SectionListeners, checks.SectionRoutes}})
	if err != nil {
		t.Fatalf("%s: plugin: %v", sc.name, err)
	}
	var out []string
	for _, l := range rep.Listeners {
		out = append(out, listenerShape(l.Name))
		if l.Name != checks.WaypointMainInternal {
			continue
		}
		for _, c := range l.Chains {
			dest := strings.TrimSuffix(strings.Replace(strings.Replace(c.Destination, "Cluster: ", "cluster ", 1), "Route: ", "route ", 1), " (inline)")
			if len(c.Weighted) > 0 {
				dest = "clusters " + strings.Join(c.Weighted, ",")
			}
			out = append(out, chainShape(c.Match, dest))
		}
	}
	for _, rc := range rep.Routes {
		for _, vh := range rc.VirtualHosts {
			var dests []string
			for _, r := range vh.Routes {
				switch {
				case r.DirectResponse == 1:
					dests = append(dests, "redirect")
				case r.DirectResponse != 0:
					dests = append(dests, fmt.Sprintf("direct %d", r.DirectResponse))
				case len(r.Weighted) > 0:
					dests = append(dests, "weighted "+strings.Join(r.Weighted, ","))
				default:
					dests = append(dests, r.Cluster)
				}
			}
			out = append(out, routeShape(rc.Name, vh.Name, vh.Domains, dests))
		}
	}
	return out
}
