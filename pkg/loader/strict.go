package loader

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	istioscheme "istio.io/client-go/pkg/clientset/versioned/scheme"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kubescheme "k8s.io/client-go/kubernetes/scheme"
	gwscheme "sigs.k8s.io/gateway-api/pkg/client/clientset/versioned/scheme"

	"github.com/kubectl-egress/kubectl-egress/pkg/snapshot"
)

// Strict manifests (offline and what-if input): a CI gate must not pass what it could not read.
// In the groups whose objects the checks read — Kubernetes core v1 and apps, and Istio's
// networking, security, telemetry and extensions groups — a kind the API server would not know,
// an apiVersion no Istio release serves and a field the type does not have are errors
// ("file:line: what is wrong", exit 2), as is an object defined twice and input without any
// object. Options.Lenient turns them into warnings (Snapshot.LoadWarnings). Kinds the checks do
// not read are counted in Snapshot.Ignored.

// strictGroups are the API groups whose kinds and versions are checked against the schemes of
// client-go (Kubernetes) and istio.io/client-go (Istio).
var strictGroups = map[string]bool{
	"": true, "apps": true,
	"networking.istio.io": true, "security.istio.io": true, "telemetry.istio.io": true, "extensions.istio.io": true,
	snapshot.GatewayAPIGroup: true,
}

func isIstioGroup(g string) bool { return strings.HasSuffix(g, ".istio.io") }

// schemeFor is the scheme that knows group's kinds: istio.io/client-go's for Istio's groups,
// sigs.k8s.io/gateway-api's for the Kubernetes Gateway API, client-go's otherwise.
func schemeFor(group string) *runtime.Scheme {
	switch {
	case isIstioGroup(group):
		return istioscheme.Scheme
	case group == snapshot.GatewayAPIGroup:
		return gwscheme.Scheme
	}
	return kubescheme.Scheme
}

// checkKind returns what is wrong with apiVersion+kind in a strict group ("" when the kind is
// served): an unknown kind (with the nearest known kind of the group) or a version that does not
// serve it (with the versions that do).
func checkKind(gv schema.GroupVersion, kind string) string {
	if !strictGroups[gv.Group] {
		return ""
	}
	scheme := schemeFor(gv.Group)
	if scheme.Recognizes(gv.WithKind(kind)) {
		return ""
	}
	var versions []string
	kinds := map[string]bool{}
	for gvk := range scheme.AllKnownTypes() {
		if gvk.Group != gv.Group || strings.HasSuffix(gvk.Kind, "List") || strings.HasSuffix(gvk.Kind, "Options") || gvk.Kind == "WatchEvent" || gvk.Kind == "Status" {
			continue
		}
		kinds[gvk.Kind] = true
		if gvk.Kind == kind {
			versions = append(versions, gvk.Version)
		}
	}
	groupName := gv.Group
	if groupName == "" {
		groupName = "core"
	}
	if len(versions) > 0 {
		sort.Strings(versions)
		prefix := gv.Group + "/"
		if gv.Group == "" {
			prefix = ""
		}
		var served []string
		for _, v := range versions {
			served = append(served, prefix+v)
		}
		return fmt.Sprintf("apiVersion %s does not serve %s (served: %s)", gv.String(), kind, strings.Join(served, ", "))
	}
	if len(kinds) == 0 {
		return fmt.Sprintf("apiVersion %s is not served", gv.String())
	}
	msg := fmt.Sprintf("unknown kind %q in the %s API group", kind, groupName)
	if near := nearest(kind, kinds); near != "" {
		msg += fmt.Sprintf(" (did you mean %s?)", near)
	}
	return msg
}

// nearest returns the known kind closest to k by edit distance (case-insensitive), if close.
func nearest(k string, kinds map[string]bool) string {
	best, bestD := "", 4
	for c := range kinds {
		d := editDistance(strings.ToLower(k), strings.ToLower(c))
		if d < bestD || (d == bestD && c < best) {
			best, bestD = c, d
		}
	}
	return best
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

// strictDecode decodes js into obj rejecting fields the type does not have. For Istio objects
// (a Kubernetes envelope around a protobuf spec) spec is checked with protojson, which knows the
// proto field names; unknown is "unknown field \"x\"" (first one found).
func strictDecode(js []byte, obj any, spec proto.Message) (unknown string) {
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.DisallowUnknownFields()
	if spec == nil {
		if err := dec.Decode(obj); err != nil && strings.Contains(err.Error(), "unknown field") {
			return strings.TrimPrefix(err.Error(), "json: ")
		}
		return ""
	}
	var env struct {
		APIVersion string          `json:"apiVersion"`
		Kind       string          `json:"kind"`
		Metadata   json.RawMessage `json:"metadata"`
		Spec       json.RawMessage `json:"spec"`
		Status     json.RawMessage `json:"status"`
	}
	if err := dec.Decode(&env); err != nil && strings.Contains(err.Error(), "unknown field") {
		return strings.TrimPrefix(err.Error(), "json: ")
	}
	if len(env.Metadata) > 0 {
		md := json.NewDecoder(bytes.NewReader(env.Metadata))
		md.DisallowUnknownFields()
		var m struct {
			Name              string            `json:"name"`
			GenerateName      string            `json:"generateName"`
			Namespace         string            `json:"namespace"`
			UID               string            `json:"uid"`
			ResourceVersion   string            `json:"resourceVersion"`
			Generation        int64             `json:"generation"`
			CreationTimestamp json.RawMessage   `json:"creationTimestamp"`
			DeletionTimestamp json.RawMessage   `json:"deletionTimestamp"`
			Labels            map[string]string `json:"labels"`
			Annotations       map[string]string `json:"annotations"`
			OwnerReferences   json.RawMessage   `json:"ownerReferences"`
			Finalizers        []string          `json:"finalizers"`
			ManagedFields     json.RawMessage   `json:"managedFields"`
			SelfLink          string            `json:"selfLink"`
			DeletionGrace     *int64            `json:"deletionGracePeriodSeconds"`
		}
		if err := md.Decode(&m); err != nil && strings.Contains(err.Error(), "unknown field") {
			return "metadata: " + strings.TrimPrefix(err.Error(), "json: ")
		}
	}
	if len(env.Spec) > 0 && !bytes.Equal(bytes.TrimSpace(env.Spec), []byte("null")) {
		fresh := spec.ProtoReflect().New().Interface()
		err := (protojson.UnmarshalOptions{DiscardUnknown: false}).Unmarshal(env.Spec, fresh)
		if err != nil && strings.Contains(err.Error(), "unknown field") {
			msg := err.Error()
			if i := strings.Index(msg, "unknown field"); i >= 0 {
				msg = msg[i:]
			}
			return "spec: " + msg
		} else if err != nil && strings.Contains(err.Error(), "invalid value for enum field") {
			// a misspelt enum value (resolution: DNSS): the CRD's schema lists the values and
			// the API server refuses the object; decoded leniently it would read as the
			// enum's first value (NONE, for a resolution)
			msg := err.Error()
			msg = msg[strings.Index(msg, "invalid value for enum field"):]
			return "spec: " + strings.Replace(msg, "invalid value for enum field ", "invalid value for field ", 1)
		}
		if p := specTypeProblem(env.Spec, fresh.ProtoReflect().Descriptor()); p != "" && err == nil {
			// what protojson reads but the API server's schema refuses ("443" for a port):
			// strict; what protojson refuses too is a decoding error (decodeIstio)
			return p
		}
	}
	return ""
}
