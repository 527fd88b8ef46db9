// Package loader fills a snapshot.Snapshot, either from a live cluster (FromCluster) or from
// manifest files (FromFiles). Both produce the same shape; checks never know which one ran.
package loader

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"

	"google.golang.org/protobuf/encoding/protojson"
	meshv1alpha1 "istio.io/api/mesh/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-egress/kubectl-egress/pkg/snapshot"
)

// DefaultIstioNamespace is used when Options.IstioNamespace is empty.
const DefaultIstioNamespace = "istio-system"

// meshConfigMapName is the name of the default-revision mesh ConfigMap; a revision "rev" uses
// meshConfigMapName + "-rev".
const meshConfigMapName = "istio"

// meshKey is the ConfigMap data key that holds the MeshConfig YAML.
const meshKey = "mesh"

// Options are shared by FromCluster and FromFiles.
type Options struct {
	// IstioNamespace is the namespace of istiod and of the mesh ConfigMap; "" means
	// "istio-system".
	IstioNamespace string
	// Revision is the istiod revision asked for; "" is the default revision. It is copied to
	// Snapshot.Revision; both the default and every revisioned mesh ConfigMap are loaded.
	Revision string
	// FilterGatewayClusters is the --filter-gateway-clusters flag (nil = not given). It is
	// copied to Snapshot.Assumptions.FilterGatewayClusters.
	FilterGatewayClusters *bool
	// DefaultNamespace is given to namespaced objects in files that have none, as
	// `kubectl apply -n` would; "" means "default".
	DefaultNamespace string
	// WorkloadNamespaces are namespaces whose every Deployment and Pod a live load reads (the
	// namespaces of --gateway, --pod and --from); elsewhere only the workloads the
	// configuration selects are read (FromCluster).
	WorkloadNamespaces []string
	// MaxBytes caps each input file and standard input (0: DefaultMaxBytes); larger input is
	// an error, not an unbounded read.
	MaxBytes int64
	// MaxObjects caps the objects read, from files or the API server (0: DefaultMaxObjects):
	// memory grows with objects, and input within the byte cap can still hold hundreds of
	// thousands of them. More is an error (--max-objects).
	MaxObjects int
	// Lenient downgrades the strict checks of manifest input (unknown kinds, apiVersions and
	// fields, duplicate objects, input without objects) to Snapshot.LoadWarnings.
	Lenient bool
}

// DefaultMaxBytes is the default cap of one input file (--max-input-size).
const DefaultMaxBytes int64 = 128 << 20

// DefaultMaxObjects is the default cap on the objects one run reads (--max-objects): about
// six times the 10,000-entry mesh of docs/performance.md.
const DefaultMaxObjects = 100_000

func (o Options) maxObjects() int {
	if o.MaxObjects <= 0 {
		return DefaultMaxObjects
	}
	return o.MaxObjects
}

// errTooManyObjects: the input holds more objects than Options.MaxObjects.
type errTooManyObjects struct{ max int }

func (e errTooManyObjects) Error() string {
	return fmt.Sprintf("more than %d objects (--max-objects)", e.max)
}

// objectBudget counts the objects a live load has read, across its parallel lists.
type objectBudget struct {
	n   atomic.Int64
	max int
}

type objectBudgetKey struct{}

// take counts one object read under ctx's budget; an error once the budget is spent.
func takeObject(ctx context.Context) error {
	if b, ok := ctx.Value(objectBudgetKey{}).(*objectBudget); ok && b.n.Add(1) > int64(b.max) {
		return errTooManyObjects{b.max}
	}
	return nil
}

func (o Options) maxBytes() int64 {
	if o.MaxBytes <= 0 {
		return DefaultMaxBytes
	}
	return o.MaxBytes
}

// scopeNamespaces are the namespaces a namespace-scoped user's lists fall back to: those the
// command names (--gateway, --from, --pod, -n) and the Istio namespace, each once.
func (o Options) scopeNamespaces() []string {
	var out []string
	for _, ns := range append(append([]string{o.DefaultNamespace}, o.WorkloadNamespaces...), o.istioNamespace()) {
		if ns != "" && !slices.Contains(out, ns) {
			out = append(out, ns)
		}
	}
	return out
}

func (o Options) istioNamespace() string {
	if o.IstioNamespace == "" {
		return DefaultIstioNamespace
	}
	return o.IstioNamespace
}

func newSnapshot(source string, opts Options) *snapshot.Snapshot {
	snap := snapshot.NewEmpty(source, opts.istioNamespace(), opts.Revision)
	if opts.FilterGatewayClusters != nil {
		v := *opts.FilterGatewayClusters
		snap.Assumptions.FilterGatewayClusters = &v
	}
	return snap
}

// FileError is a problem in one input file. Line is 1-based; 0 means the whole file.
type FileError struct {
	Path string
	Line int
	Msg  string
	// Strict: a strict-manifest problem (unknown kind, apiVersion or field, an object defined
	// twice, no objects) that Options.Lenient would have let through as a warning.
	Strict bool
}

// Error returns "path:line: msg", or "path: msg" when Line is 0.
func (e *FileError) Error() string {
	if e == nil {
		return "<nil>"
	}
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.Path, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.Path, e.Msg)
}

// meshRevision reports whether a ConfigMap named name holds a mesh config and for which
// revision: "istio" → ("", true), "istio-canary" → ("canary", true), anything else → false.
func meshRevision(name string) (string, bool) {
	if name == meshConfigMapName {
		return "", true
	}
	if rev, ok := strings.CutPrefix(name, meshConfigMapName+"-"); ok && rev != "" {
		return rev, true
	}
	return "", false
}

// meshConfigFromConfigMap parses the `mesh` key of a mesh ConfigMap. ok is false when cm is
// not a mesh ConfigMap (wrong name or no `mesh` key); err is set when the key does not parse.
// keepConfigMapData keeps the data of ConfigMap cm (one of IstioNamespace) in the snapshot, where
// the istiod flags set through valueFrom.configMapKeyRef are read (the mesh ConfigMaps included:
// their size is bounded by the input caps).
func keepConfigMapData(snap *snapshot.Snapshot, cm *corev1.ConfigMap) {
	if snap.ConfigMapData == nil {
		snap.ConfigMapData = map[string]map[string]string{}
	}
	snap.ConfigMapData[cm.Name] = cm.Data
}

func meshConfigFromConfigMap(cm *corev1.ConfigMap) (rev string, src *snapshot.MeshConfigSource, ok bool, err error) {
	if cm == nil {
		return "", nil, false, nil
	}
	rev, ok = meshRevision(cm.Name)
	if !ok {
		return "", nil, false, nil
	}
	text, has := cm.Data[meshKey]
	if !has {
		return "", nil, false, nil
	}
	mc, err := parseMeshConfig(text)
	if err != nil {
		return rev, nil, true, err
	}
	return rev, &snapshot.MeshConfigSource{Ref: cm.Namespace + "/" + cm.Name, Config: mc}, true, nil
}

// parseMeshConfig parses MeshConfig YAML (or JSON). Unknown fields are ignored; unset fields
// stay unset. An empty text gives an empty MeshConfig.
func parseMeshConfig(text string) (*meshv1alpha1.MeshConfig, error) {
	js, err := yaml.YAMLToJSON([]byte(text))
	if err != nil {
		return nil, fmt.Errorf("key %s: %s", meshKey, oneLine(strings.TrimPrefix(err.Error(), "error converting YAML to JSON: ")))
	}
	mc := &meshv1alpha1.MeshConfig{}
	trimmed := strings.TrimSpace(string(js))
	if trimmed == "null" || trimmed == "" {
		return mc, nil
	}
	if !strings.HasPrefix(trimmed, "{") {
		return nil, fmt.Errorf("key %s: not a mapping", meshKey)
	}
	if err := (protojson.UnmarshalOptions{DiscardUnknown: true}).Unmarshal(js, mc); err != nil {
		return nil, fmt.Errorf("key %s: %s", meshKey, oneLine(err.Error()))
	}
	return mc, nil
}

// meshUnknownField returns the first field of MeshConfig YAML that MeshConfig does not have
// ("" when none, or when the text does not parse): istiod ignores such fields
// (pkg/config/mesh/mesh.go ApplyMeshConfig reads with protomarshal.ApplyYAML, which allows
// unknown fields), so a misspelled setting silently has no effect.
func meshUnknownField(text string) string {
	js, err := yaml.YAMLToJSON([]byte(text))
	if err != nil {
		return ""
	}
	if t := strings.TrimSpace(string(js)); !strings.HasPrefix(t, "{") {
		return ""
	}
	err = (protojson.UnmarshalOptions{DiscardUnknown: false}).Unmarshal(js, &meshv1alpha1.MeshConfig{})
	if err == nil {
		return ""
	}
	msg := err.Error()
	i := strings.Index(msg, "unknown field")
	if i < 0 {
		return ""
	}
	return oneLine(msg[i:])
}

// meshUnknownProblem is what a mesh ConfigMap with a field MeshConfig does not have is told.
func meshUnknownProblem(cm *corev1.ConfigMap, unknown string) string {
	return fmt.Sprintf("ConfigMap %s/%s: key %s: %s (istiod ignores it: the setting has no effect)", cm.Namespace, cm.Name, meshKey, unknown)
}

// oneLine folds a possibly multi-line message into one line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
