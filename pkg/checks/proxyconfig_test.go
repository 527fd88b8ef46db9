package checks

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kubectl-egress/kubectl-egress/pkg/envoy"
	"github.com/kubectl-egress/kubectl-egress/pkg/loader"
	"github.com/kubectl-egress/kubectl-egress/pkg/rules"
	"github.com/kubectl-egress/kubectl-egress/pkg/snapshot"
)

func clusterNames(cs []Cluster) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Name+" "+c.Type)
	}
	return out
}

// The control mesh (pkg/checks/testdata/preflight/control.yaml): the gateway gets the external
// host and its own Service, its HTTP server's listener and route; team-a's sidecars get the
// same clusters, an HCM on port 80 whose route sends api.example.com to the gateway.
func TestProxyConfigControlMesh(t *testing.T) {
	snap := loadPreflight(t, "control.yaml")
	gw, err := ProxyConfig(snap, ProxyConfigOptions{Gateway: "istio-system/istio-egressgateway"})
	if err != nil {
		t.Fatal(err)
	}
	wantClusters := []string{"outbound|80||api.example.com STRICT_DNS",
		"outbound|80||istio-egressgateway.istio-system.svc.cluster.local EDS",
		"outbound|443||istio-egressgateway.istio-system.svc.cluster.local EDS"}
	if got := clusterNames(gw.Clusters); !slices.Equal(got, wantClusters) {
		t.Errorf("gateway clusters:\n got  %v\n want %v", got, wantClusters)
	}
	if len(gw.Listeners) != 1 || gw.Listeners[0].Name != "0.0.0.0_8080" || gw.Listeners[0].Chains[0].Destination != "Route: http.8080" {
		t.Errorf("gateway listeners: %+v", gw.Listeners)
	}
	if len(gw.Routes) != 1 || gw.Routes[0].Name != "http.8080" || len(gw.Routes[0].VirtualHosts) != 1 || gw.Routes[0].VirtualHosts[0].Routes[0].Cluster != "outbound|80||api.example.com" {
		t.Errorf("gateway routes: %+v", gw.Routes)
	}

	sc, err := ProxyConfig(snap, ProxyConfigOptions{From: "team-a"})
	if err != nil {
		t.Fatal(err)
	}
	if got := clusterNames(sc.Clusters); !slices.Equal(got, wantClusters) {
		t.Errorf("sidecar clusters:\n got  %v\n want %v", got, wantClusters)
	}
	var rows []string
	for _, l := range sc.Listeners {
		for _, c := range l.Chains {
			rows = append(rows, l.Name+" "+c.Match+" -> "+c.Destination)
		}
	}
	for _, want := range []string{"0.0.0.0_80 Trans: raw_buffer; App: http/1.1,h2c -> Route: 80", "0.0.0.0_80 ALL -> PassthroughCluster"} {
		if !slices.Contains(rows, want) {
			t.Errorf("sidecar listener row %q missing: %v", want, rows)
		}
	}
	var vh []string
	for _, rc := range sc.Routes {
		for _, v := range rc.VirtualHosts {
			vh = append(vh, rc.Name+" "+v.Name+" -> "+v.Routes[0].Cluster)
		}
	}
	if !slices.Contains(vh, "80 api.example.com:80 -> outbound|80||istio-egressgateway.istio-system.svc.cluster.local") {
		t.Errorf("sidecar route for api.example.com does not go to the gateway: %v", vh)
	}

	only, err := ProxyConfig(snap, ProxyConfigOptions{From: "team-a", Sections: []string{SectionRoutes}})
	if err != nil {
		t.Fatal(err)
	}
	if only.Clusters != nil || only.Listeners != nil || len(only.Routes) == 0 || !slices.Equal(only.Sections, []string{SectionRoutes}) {
		t.Errorf("routes only: sections %v, %d clusters, %d listeners, %d routes", only.Sections, len(only.Clusters), len(only.Listeners), len(only.Routes))
	}
	for _, bad := range []ProxyConfigOptions{{}, {From: "a", Gateway: "b/c"}, {Gateway: "istio-system/nosuch"}, {Pod: "team-a/nosuch"}} {
		if _, err := ProxyConfig(snap, bad); err == nil {
			t.Errorf("%+v: no error", bad)
		}
	}
}

// A sidecar that gets a DNS entry whose workloadSelector selects nothing has no cluster for it,
// and a DestinationRule subset whose labels match no endpoint adds none.
func TestProxyConfigDNSClustersNeedEndpoints(t *testing.T) {
	snap := loadPreflight(t, "control.yaml")
	extra := snapFromYAML(t, `apiVersion: networking.istio.io/v1
kind: ServiceEntry
metadata: {name: vm, namespace: team-a}
spec:
  hosts: [vm.example.com]
  resolution: DNS
  workloadSelector: {labels: {app: vm}}
  ports: [{number: 80, name: http, protocol: HTTP}]
---
apiVersion: networking.istio.io/v1
kind: ServiceEntry
metadata: {name: listed, namespace: team-a}
spec:
  hosts: [listed.example.com]
  resolution: DNS
  endpoints: [{address: a.example.com, labels: {version: v1}}]
  ports: [{number: 80, name: http, protocol: HTTP}]
---
apiVersion: networking.istio.io/v1
kind: DestinationRule
metadata: {name: listed, namespace: team-a}
spec:
  host: listed.example.com
  subsets: [{name: v1, labels: {version: v1}}, {name: v2, labels: {version: v2}}]
`)
	snap.ServiceEntries = append(snap.ServiceEntries, extra.ServiceEntries...)
	snap.DestinationRules = append(snap.DestinationRules, extra.DestinationRules...)
	rep, err := ProxyConfig(snap, ProxyConfigOptions{From: "team-a", Sections: []string{SectionClusters}})
	if err != nil {
		t.Fatal(err)
	}
	names := clusterNames(rep.Clusters)
	for _, want := range []string{"outbound|80||listed.example.com STRICT_DNS", "outbound|80|v1|listed.example.com STRICT_DNS"} {
		if !slices.Contains(names, want) {
			t.Errorf("%s missing: %v", want, names)
		}
	}
	for _, absent := range []string{"vm.example.com", "|v2|"} {
		for _, n := range names {
			if strings.Contains(n, absent) {
				t.Errorf("%s predicted, want none (no endpoints)", n)
			}
		}
	}
}

// DiffProxyConfig finds what only one side has and what differs, and leaves Envoy's static
// resources out.
func TestDiffProxyConfig(t *testing.T) {
	rep := &ProxyConfigReport{
		Clusters:  []Cluster{{Name: "outbound|80||a.example.com", Type: "STRICT_DNS"}, {Name: "outbound|443||b.example.com", Type: "EDS"}, {Name: "outbound|80||c.example.com", Type: "EDS"}},
		Listeners: []ListenerView{{Name: "0.0.0.0_8080", Port: 8080, Chains: []ChainView{{Match: "ALL", Destination: "Route: http.8080"}}}},
	}
	d := &envoy.Dump{
		Clusters: []envoy.Cluster{{Name: "outbound|80||a.example.com", Type: "STRICT_DNS"}, {Name: "outbound|443||b.example.com", Type: "LOGICAL_DNS"},
			{Name: "outbound|9090||x.example.com", Type: "EDS"}, {Name: "BlackHoleCluster", Type: "STATIC"}, {Name: "prometheus_stats", Type: "STATIC"}},
		Listeners: []envoy.Listener{{Name: "0.0.0.0_8080", Port: 8080, Chains: []envoy.Chain{{RDS: "http.9090"}}}, {Name: "0.0.0.0_15021", Port: 15021},
			{Name: "virtualOutbound", Port: 15001}, {Name: "0.0.0.0_8443", Port: 8443, Chains: []envoy.Chain{{Cluster: "outbound|443||b.example.com"}}}},
	}
	diff := DiffProxyConfig(rep, d, "test", []string{SectionClusters, SectionListeners})
	var got []string
	for _, x := range diff.Differences {
		got = append(got, x.Section+" "+x.Name+" "+x.State)
	}
	want := []string{
		"clusters outbound|443||b.example.com DIFFERENT",
		"clusters outbound|80||c.example.com MISSING",
		"clusters outbound|9090||x.example.com EXTRA",
		"listeners 0.0.0.0_8080 DIFFERENT",
		"listeners 0.0.0.0_8443 EXTRA",
	}
	if !slices.Equal(got, want) {
		t.Errorf("differences:\n got  %v\n want %v", got, want)
	}
	if diff.Compared[SectionClusters] != 3 || diff.Compared[SectionListeners] != 1 {
		t.Errorf("compared %v", diff.Compared)
	}
	if _, ok := diff.Compared[SectionRoutes]; ok {
		t.Errorf("routes compared although not asked for")
	}
}

// TestDiffProxyConfigWarmingAndRejected: a cluster still warming differs (it serves nothing
// yet), and a listener Envoy rejected is missing with Envoy's reason (blind audit 72 2.9).
func TestDiffProxyConfigWarmingAndRejected(t *testing.T) {
	rep := &ProxyConfigReport{
		Clusters:  []Cluster{{Name: "outbound|80||a.example.com", Type: "STRICT_DNS"}},
		Listeners: []ListenerView{{Name: "0.0.0.0_8080", Port: 8080, Chains: []ChainView{{Match: "ALL", Destination: "Route: http.8080"}}}},
	}
	d := &envoy.Dump{Clusters: []envoy.Cluster{{Name: "outbound|80||a.example.com", Type: "STRICT_DNS", Warming: true}},
		RejectedListeners: map[string]string{"0.0.0.0_8080": "duplicate listener"}}
	var got []string
	for _, x := range DiffProxyConfig(rep, d, "test", nil).Differences {
		got = append(got, x.Section+" "+x.State+" "+x.Detail)
	}
	want := []string{
		"clusters DIFFERENT warming: Envoy has not finished initialising it (no endpoints yet, or DNS not resolved), so it does not serve requests",
		"listeners MISSING 1 filter chain(s) predicted; Envoy rejected it: duplicate listener",
	}
	if !slices.Equal(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

// TestDiffProxyConfigUnknownClusterIP: a listener predicted on the placeholder of a cluster IP
// the input does not give is the proxy's listener on that port with the same chains, and the
// IP it learns is no extra virtual host domain (blind audit 72 2.8: every offline sidecar diff
// reported both); a listener with other chains still differs.
func TestDiffProxyConfigUnknownClusterIP(t *testing.T) {
	const gwCluster = "outbound|443||istio-egressgateway.istio-system.svc.cluster.local"
	rep := &ProxyConfigReport{
		Listeners: []ListenerView{{Name: "<clusterIP of istio-system/istio-egressgateway>_443", Port: 443, Chains: []ChainView{{Match: "ALL", Destination: "Cluster: " + gwCluster}}}},
		Routes:    []rules.RouteConfig{{Name: "80", VirtualHosts: []rules.VirtualHost{{Name: "gw:80", Domains: []string{"istio-egressgateway.istio-system.svc.cluster.local"}}}}},
	}
	dump := func(cluster string) *envoy.Dump {
		return &envoy.Dump{
			Listeners: []envoy.Listener{{Name: "10.96.12.34_443", Port: 443, Chains: []envoy.Chain{{Cluster: cluster}}}},
			Routes:    []envoy.RouteConfig{{Name: "80", VirtualHosts: []envoy.VirtualHost{{Name: "gw:80", Domains: []string{"istio-egressgateway.istio-system.svc.cluster.local", "10.96.12.34"}}}}},
		}
	}
	if diff := DiffProxyConfig(rep, dump(gwCluster), "test", nil); len(diff.Differences) != 0 {
		t.Errorf("same chains: %+v", diff.Differences)
	}
	var got []string
	for _, x := range DiffProxyConfig(rep, dump("outbound|443||other.example.com"), "test", nil).Differences {
		got = append(got, x.Section+" "+x.State)
	}
	if !slices.Contains(got, "listeners MISSING") || !slices.Contains(got, "listeners EXTRA") {
		t.Errorf("other chains: %v", got)
	}
}

// The whole-dump fixtures istiod's own generation wrote (hack/e2e/testdata/dumps, from the
// repository's seed §3.5 fixture): the gateway agrees with the prediction of its case; the dump
// without the cluster differs in that cluster.
func TestDiffProxyConfigIstiodDumps(t *testing.T) {
	snap, err := loader.FromFiles([]string{filepath.Join("..", "..", "testdata", "cases", "http-entry-bound-route-with-cluster-filter.yaml")}, nil, loader.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := ProxyConfig(snap, ProxyConfigOptions{Gateway: "istio-system/egress-alerts"})
	if err != nil {
		t.Fatal(err)
	}
	for dump, want := range map[string][]string{"bound-gateway.json": nil, "bound-gateway-dropped-cluster.json": {"clusters outbound|8080||pager.example.com MISSING"}} {
		data, err := os.ReadFile(filepath.Join("..", "..", "hack", "e2e", "testdata", "dumps", dump))
		if err != nil {
			t.Fatal(err)
		}
		d, err := envoy.ParseConfigDump(data)
		if err != nil {
			t.Fatal(err)
		}
		diff := DiffProxyConfig(rep, d, dump, nil)
		var got []string
		for _, x := range diff.Differences {
			got = append(got, x.Section+" "+x.Name+" "+x.State)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: differences %v, want %v", dump, got, want)
		}
	}
}

func snapFromYAML(t *testing.T, y string) *snapshot.Snapshot {
	t.Helper()
	s, err := loader.FromFiles([]string{"-"}, strings.NewReader(y), loader.Options{Lenient: true})
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	return s
}

// An unprivileged gateway pod behind a Service port that targets 80: istiod builds no listener
// 0.0.0.0_80 for it, and proxy-config and explain-listener say why instead of listing one.
func TestUnprivilegedGatewayHasNoLowListener(t *testing.T) {
	snap, err := loadPathFixture(filepath.Join("testdata", "paths", "gateway-unprivileged-pod-service-targets-port-80.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	rep, err := ProxyConfig(snap, ProxyConfigOptions{Gateway: "egress/egress-gw"})
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range rep.Listeners {
		if l.Port == 80 {
			t.Errorf("listener %s predicted for an unprivileged pod", l.Name)
		}
	}
	if !slices.ContainsFunc(rep.Notes, func(n string) bool {
		return strings.Contains(n, "No listener 0.0.0.0_80") && strings.Contains(n, MetaUnprivilegedPod)
	}) {
		t.Errorf("no note on the missing listener: %q", rep.Notes)
	}
	lr, err := ExplainListener(snap, ExplainListenerOptions{Gateway: "egress/egress-gw", Port: 80, Host: "api.example.com"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range lr.Findings {
		got = append(got, f.Code+" "+f.Resource)
	}
	if !slices.Contains(got, GatewayPrivilegedPort+" Service egress/egress-gw") {
		t.Errorf("explain-listener findings %q, want %s on Service egress/egress-gw", got, GatewayPrivilegedPort)
	}
	// The same gateway with the chart's targetPort (8080) listens there.
	text, err := os.ReadFile(filepath.Join("testdata", "paths", "gateway-unprivileged-pod-service-targets-port-80.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	fixed := filepath.Join(t.TempDir(), "fixed.yaml")
	if err := os.WriteFile(fixed, []byte(strings.Replace(string(text), "port: 80, targetPort: 80}", "port: 80, targetPort: 8080}", 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	if snap, err = loadPathFixture(fixed); err != nil {
		t.Fatal(err)
	}
	if rep, err = ProxyConfig(snap, ProxyConfigOptions{Gateway: "egress/egress-gw"}); err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(rep.Listeners, func(l ListenerView) bool { return l.Name == "0.0.0.0_8080" }) ||
		slices.ContainsFunc(rep.Notes, func(n string) bool { return strings.Contains(n, MetaUnprivilegedPod) }) {
		t.Errorf("with targetPort 8080: listeners %v, notes %q; want 0.0.0.0_8080 and no note on it", rep.Listeners, rep.Notes)
	}
}

// TestProxyConfigDanglingNotes: a route or listener sending to a cluster the proxy gets none for
// is said in a note, the failure the shared cases' gateways show (blind audit 72 1.23); a
// proxy whose references all resolve gets no such note.
func TestProxyConfigDanglingNotes(t *testing.T) {
	for _, c := range []struct {
		file, gateway, want string
	}{
		{"se-exportto-private-hidden-from-gateway.yaml", "istio-egress/egress-gateway", "route configuration http.8080 (virtual host rates.example.net:80) sends to outbound|8080||rates.example.net, which this proxy gets no cluster for: the requests it takes get 503 NC"},
		{"http-entry-bound-route-with-cluster-filter.yaml", "istio-system/egress-alerts", ""},
	} {
		snap, err := loader.FromFiles([]string{filepath.Join("..", "..", "testdata", "cases", c.file)}, nil, loader.Options{Lenient: true})
		if err != nil {
			t.Fatal(err)
		}
		rep, err := ProxyConfig(snap, ProxyConfigOptions{Gateway: c.gateway})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, n := range rep.Notes {
			if strings.Contains(n, "gets no cluster for") {
				got = append(got, n)
			}
		}
		if c.want == "" && len(got) > 0 || c.want != "" && (len(got) != 1 || !strings.HasPrefix(got[0], c.want)) {
			t.Errorf("%s: %q", c.file, got)
		}
	}
}
