package conformance

// Config dump fixtures for why-missing's live-evidence path (issue #7): istiod's real config
// generation for a gateway proxy, serialised in the shape of Envoy's admin /config_dump
// (envoy.admin.v3.ConfigDump with ClustersConfigDump, ListenersConfigDump, RoutesConfigDump).
//
//	go test -run TestWriteConfigDumps . -args -write-dumps ../e2e/testdata/dumps
//
// writes, for the repository's seed §3.4/§3.5 pair of case fixtures (testdata/cases: the same
// mesh with PILOT_FILTER_GATEWAY_CLUSTER_CONFIG=true before and after a route is bound to the
// gateway), the gateway's dump, and for the bound one also a copy with
// outbound|8080||pager.example.com removed: the shape of istio/istio#44439 (a cluster the
// configuration references that the proxy does not have).

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	adminv3 "github.com/envoyproxy/go-control-plane/envoy/admin/v3"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
	"istio.io/istio/pilot/pkg/simulation"

	"github.com/kubectl-egress/kubectl-egress/pkg/checks"
)

var writeDumps = flag.String("write-dumps", "", "write config dump fixtures into this directory (TestWriteConfigDumps)")

func TestWriteConfigDumps(t *testing.T) {
	if *writeDumps == "" {
		t.Skip("-write-dumps not given")
	}
	quietIstio()
	for _, c := range []struct {
		file, out, drop string
	}{
		{"http-entry-unreferenced-with-cluster-filter.yaml", "unreferenced-gateway.json", ""},
		{"http-entry-bound-route-with-cluster-filter.yaml", "bound-gateway.json", ""},
		{"http-entry-bound-route-with-cluster-filter.yaml", "bound-gateway-dropped-cluster.json", "outbound|8080||pager.example.com"},
	} {
		data, err := os.ReadFile(filepath.Join(repoCasesDir, c.file))
		if err != nil {
			t.Fatal(err)
		}
		yaml := string(data)
		snap, err := pluginSnapshot(yaml, nil)
		if err != nil {
			t.Fatal(err)
		}
		var wls []workloadRef
		for _, w := range checks.GatewayWorkloads(snap) {
			wls = append(wls, workloadRef{ns: w.Namespace, name: w.Name, labels: w.Labels})
		}
		in, err := prepareOracle(yaml, snap, wls, withVisibilityNamespaces(snap, sidecarNamespaces(snap)))
		if err != nil {
			t.Fatal(err)
		}
		rin, err := in.forRevision(in.revisions()[0])
		if err != nil {
			t.Fatal(err)
		}
		filter := rin.filterFlag != nil && *rin.filterFlag
		iout, err := runIstiod(t, in.kubeYAML, rin, filter, rin.scopeFlag != nil && *rin.scopeFlag)
		if err != nil {
			t.Fatal(err)
		}
		for ref, ps := range iout.sims {
			b, n := simDump(t, ps.sim, c.drop)
			if c.drop != "" && n.dropped == 0 {
				t.Fatalf("%s: istiod built no %s for %s", c.file, c.drop, ref)
			}
			if err := os.MkdirAll(*writeDumps, 0o755); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(*writeDumps, c.out)
			if err := os.WriteFile(out, append(b, '\n'), 0o644); err != nil {
				t.Fatal(err)
			}
			t.Logf("%s (%s, PILOT_FILTER_GATEWAY_CLUSTER_CONFIG=%t): %d clusters, %d listeners, %d routes -> %s", c.file, ref, filter, n.clusters, n.listeners, n.routes, out)
		}
	}
}

// dumpCounts says what simDump wrote.
type dumpCounts struct{ clusters, listeners, routes, dropped int }

// simDump serialises istiod's generated clusters, listeners and routes for one proxy as an
// Envoy admin config dump (envoy.admin.v3.ConfigDump JSON), leaving out the cluster named drop.
func simDump(t *testing.T, sim *simulation.Simulation, drop string) ([]byte, dumpCounts) {
	t.Helper()
	var n dumpCounts
	cd := &adminv3.ConfigDump{}
	clusters := &adminv3.ClustersConfigDump{}
	for _, cl := range sim.Clusters {
		if drop != "" && cl.GetName() == drop {
			n.dropped++
			continue
		}
		clusters.DynamicActiveClusters = append(clusters.DynamicActiveClusters, &adminv3.ClustersConfigDump_DynamicCluster{VersionInfo: "fixture", Cluster: mustAny(t, cl)})
	}
	listeners := &adminv3.ListenersConfigDump{}
	for _, l := range sim.Listeners {
		listeners.DynamicListeners = append(listeners.DynamicListeners, &adminv3.ListenersConfigDump_DynamicListener{Name: l.GetName(),
			ActiveState: &adminv3.ListenersConfigDump_DynamicListenerState{VersionInfo: "fixture", Listener: mustAny(t, l)}})
	}
	routes := &adminv3.RoutesConfigDump{}
	for _, r := range sim.Routes {
		routes.DynamicRouteConfigs = append(routes.DynamicRouteConfigs, &adminv3.RoutesConfigDump_DynamicRouteConfig{VersionInfo: "fixture", RouteConfig: mustAny(t, r)})
	}
	n.clusters, n.listeners, n.routes = len(clusters.DynamicActiveClusters), len(listeners.DynamicListeners), len(routes.DynamicRouteConfigs)
	cd.Configs = []*anypb.Any{mustAny(t, clusters), mustAny(t, listeners), mustAny(t, routes)}
	b, err := protojson.MarshalOptions{Multiline: true, Indent: "  "}.Marshal(cd)
	if err != nil {
		t.Fatal(err)
	}
	return b, n
}

func mustAny(t *testing.T, m proto.Message) *anypb.Any {
	t.Helper()
	a, err := anypb.New(m)
	if err != nil {
		t.Fatal(err)
	}
	return a
}
