package envoy

import (
	"os"
	"testing"
)

// The fixture is istiod's gateway configuration for seed scenario S5, written by
// hack/conformance/dumps_test.go in the shape of Envoy's admin /config_dump.
func TestParseConfigDump(t *testing.T) {
	data, err := os.ReadFile("testdata/s5-gateway.json")
	if err != nil {
		t.Fatal(err)
	}
	d, err := ParseConfigDump(data)
	if err != nil {
		t.Fatal(err)
	}
	if !d.HasCluster("outbound|80||httpbin.org") || !d.HasCluster("BlackHoleCluster") || d.HasCluster("outbound|443||httpbin.org") {
		t.Errorf("clusters: %v", d.ClusterNames())
	}
	var found bool
	for _, l := range d.Listeners {
		for _, c := range l.Chains {
			if l.Name == "0.0.0.0_8080" && c.RDS == "http.8080" {
				found = true
			}
		}
	}
	if !found {
		t.Errorf("listener 0.0.0.0_8080 with RDS http.8080 not found: %+v", d.Listeners)
	}
	if len(d.Routes) != 1 || d.Routes[0].Name != "http.8080" || len(d.Routes[0].VirtualHosts) == 0 {
		t.Errorf("routes: %+v", d.Routes)
	}
	for _, bad := range []string{`[]`, `{"clusters": []}`, `not json`} {
		if _, err := ParseConfigDump([]byte(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
	// Unknown typed configs (Istio's own filters) are tolerated.
	unknown := `{"configs":[{"@type":"type.googleapis.com/envoy.admin.v3.ClustersConfigDump","dynamicActiveClusters":[{"cluster":{"@type":"type.googleapis.com/envoy.config.cluster.v3.Cluster","name":"x","typedExtensionProtocolOptions":{"istio.example":{"@type":"type.googleapis.com/istio.example.Unknown","foo":1}}}}]}]}`
	if d, err := ParseConfigDump([]byte(unknown)); err != nil || !d.HasCluster("x") {
		t.Errorf("unknown typed config: %v %v", d, err)
	}
}

func TestSyncState(t *testing.T) {
	s := SyncStatus{ClusterSent: "n7", ClusterAcked: "n6", ListenerSent: "n3", ListenerAcked: "n3",
		Resources: map[string]ResourceSync{typeURLs["RDS"]: {Sent: "r1", Acked: "r0", LastError: "NACK: bad route"}}}
	for typ, want := range map[string]string{"CDS": Stale, "LDS": Synced, "RDS": Error, "EDS": NotSent} {
		if got := s.State(typ); got != want {
			t.Errorf("%s: %s, want %s", typ, got, want)
		}
	}
	all, err := ParseSyncz([]byte(`[{"proxy":"istio-egressgateway-5d8f.istio-system","istio_version":"1.31.0","cluster_sent":"a","cluster_acked":"a"}]`))
	if err != nil {
		t.Fatal(err)
	}
	if got := FindSync(all, "istio-egressgateway-5d8f", "istio-system"); got == nil || got.State("CDS") != Synced {
		t.Errorf("FindSync: %+v", got)
	}
}
