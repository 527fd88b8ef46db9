package loader

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// addSeeds adds every manifest of the repository's fixtures as a seed (the committed corpus:
// pkg/checks/testdata, pkg/loader/testdata).
func addSeeds(f *testing.F, globs ...string) {
	for _, g := range globs {
		files, _ := filepath.Glob(g)
		for _, p := range files {
			if data, err := os.ReadFile(p); err == nil {
				f.Add(data)
			}
		}
	}
}

// FuzzFromFiles: manifest loading never panics, and every failure is a one-line *FileError.
func FuzzFromFiles(f *testing.F) {
	addSeeds(f, "testdata/*", "../checks/testdata/paths/*.yaml", "../checks/testdata/preflight/*.yaml")
	f.Add([]byte("apiVersion: v1\nkind: List\nitems: [{apiVersion: v1, kind: Namespace, metadata: {name: a}}]\n"))
	f.Add([]byte("{\"apiVersion\":\"networking.istio.io/v1\",\"kind\":\"ServiceEntry\",\"metadata\":{\"name\":\"a\"},\"spec\":{\"hosts\":[\"a\"]}}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, lenient := range []bool{false, true} {
			_, err := FromFiles([]string{"-"}, bytes.NewReader(data), Options{Lenient: lenient, MaxBytes: 1 << 20})
			if err == nil {
				continue
			}
			if _, ok := err.(*FileError); !ok {
				t.Fatalf("error of type %T: %v", err, err)
			}
			if bytes.ContainsAny([]byte(err.Error()), "\n") {
				t.Fatalf("multi-line error: %q", err.Error())
			}
		}
	})
}

// FuzzMeshConfig: the mesh ConfigMap's `mesh` key (YAML of istio.io/api MeshConfig) never
// panics the parser.
func FuzzMeshConfig(f *testing.F) {
	f.Add("defaultServiceExportTo: [\".\"]\n")
	f.Add("serviceEntryVisibility:\n  defaultVisibility: NONE\n  applyToSidecars: true\n  policies:\n  - visibility: PUBLIC\n    matchingRules:\n    - namespaceSelector: {matchLabels: {a: b}}\n")
	f.Add("outboundTrafficPolicy: {mode: REGISTRY_ONLY}\nrootNamespace: istio-config\n")
	f.Add("extensionProviders:\n- name: authz\n  envoyExtAuthzHttp: {service: a.b.svc.cluster.local, port: 80}\n")
	f.Add("defaultConfig:\n  proxyMetadata: {ISTIO_META_DNS_CAPTURE: \"true\"}\n")
	f.Fuzz(func(t *testing.T, mesh string) {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "istio", Namespace: "istio-system"}, Data: map[string]string{"mesh": mesh}}
		_, _, _, _ = meshConfigFromConfigMap(cm)
	})
}
