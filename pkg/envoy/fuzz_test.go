package envoy

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzParseConfigDump: an Envoy config dump (from a port-forward or --config-dump) never
// panics the parser. Seeds: the committed dumps.
func FuzzParseConfigDump(f *testing.F) {
	for _, g := range []string{"testdata/*.json", "../../hack/e2e/testdata/dumps/*.json"} {
		files, _ := filepath.Glob(g)
		for _, p := range files {
			if data, err := os.ReadFile(p); err == nil {
				f.Add(data)
			}
		}
	}
	f.Add([]byte(`{"configs":[{"@type":"type.googleapis.com/envoy.admin.v3.ClustersConfigDump","dynamic_active_clusters":[{"cluster":{"@type":"type.googleapis.com/envoy.config.cluster.v3.Cluster","name":"outbound|80||a"}}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _ = ParseConfigDump(data)
	})
}

// FuzzParseSyncz: istiod's /debug/syncz JSON never panics the parser.
func FuzzParseSyncz(f *testing.F) {
	f.Add([]byte(`[{"proxy":"istio-egressgateway-1.istio-system","istio_version":"1.31.0","cluster_sent":"abc","cluster_acked":"abc"}]`))
	f.Add([]byte(`[{"@type":"type.googleapis.com/envoy.service.status.v3.ClientConfig","node":{"id":"router~10.0.0.1~gw-1.istio-system~istio-system.svc.cluster.local"}}]`))
	f.Add([]byte(`{"resources":[]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _ = ParseSyncz(data)
	})
}
