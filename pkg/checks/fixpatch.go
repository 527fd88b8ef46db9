package checks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	networkingv1 "istio.io/client-go/pkg/apis/networking/v1"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-egress/kubectl-egress/pkg/loader"
	"github.com/kubectl-egress/kubectl-egress/pkg/snapshot"
)

// Patch is a fix in machine form: the fields a fix writes into one object (a JSON merge patch,
// RFC 7386, of that object), or a whole object to create. The fix's printed YAML is rendered
// from it (Patch.Text), so the two cannot drift; a fix that is advice rather than a manifest
// change has no Patch.
type Patch struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Namespace  string `json:"namespace"`
	Name       string `json:"name"`
	// Create: Merge is the whole object to create (apiVersion, kind, metadata, spec); else it is
	// a merge patch of the existing object (lists are replaced whole, as RFC 7386 does).
	Create bool `json:"create,omitempty"`
	// Merge is the patch (or the object) as JSON.
	Merge json.RawMessage `json:"merge"`

	// note follows the resource in the printed header ("# Kind ns/name<note>").
	note string
	// set is Merge as an ordered tree (fields, []any, string, int, bool, nil), rendered by Text.
	set fields
	// derived is the change istiod makes from this one to an object the input holds (the
	// Service it deploys for a Gateway API Gateway): what proveFix applies.
	derived *Patch
}

// field is one key of an ordered mapping.
type field struct {
	Key   string
	Value any
}

// fields is an ordered mapping: JSON and YAML keep its key order.
type fields []field

// MarshalJSON writes the mapping with its keys in order.
func (f fields) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, kv := range f {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(kv.Key)
		v, err := json.Marshal(kv.Value)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// newPatch makes a merge patch of the object kind ns/name writing set.
func newPatch(apiVersion, kind, ns, name string, set fields) *Patch {
	p := &Patch{APIVersion: apiVersion, Kind: kind, Namespace: ns, Name: name, set: set}
	p.Merge, _ = json.Marshal(set)
	return p
}

// newObject makes a patch that creates a whole object.
func newObject(apiVersion, kind, ns, name string, spec fields) *Patch {
	obj := fields{{"apiVersion", apiVersion}, {"kind", kind}, {"metadata", fields{{"name", name}, {"namespace", ns}}}, {"spec", spec}}
	p := newPatch(apiVersion, kind, ns, name, obj)
	p.Create = true
	return p
}

// Derived is the change istiod itself makes from this one to an object the input holds: for a
// Gateway API Gateway's annotations, the Service its deployment controller deploys and rewrites
// from them. nil for most patches. Whoever proves the fix on manifests that hold the derived
// object written out (the conformance harness, which runs no deployment controller) applies it
// as well.
func (p *Patch) Derived() *Patch { return p.derived }

// Ref is "Kind namespace/name".
func (p *Patch) Ref() string {
	if p.Namespace == "" {
		return p.Kind + " " + p.Name // cluster-scoped (a Namespace)
	}
	return p.Kind + " " + p.Namespace + "/" + p.Name
}

// Text is the fix as printed: a new object as it is, a change headed by "# Kind ns/name".
func (p *Patch) Text() string {
	if p == nil {
		return ""
	}
	body := strings.TrimRight(renderYAML(p.set, 0), "\n")
	if p.Create {
		return body
	}
	return "# " + p.Ref() + p.note + "\n" + body
}

// apiVersionOf is the apiVersion a fix writes for a kind.
func apiVersionOf(kind string) string {
	switch kind {
	case snapshot.KindService, snapshot.KindNamespace, snapshot.KindConfigMap, snapshot.KindPod:
		return "v1"
	case snapshot.KindDeployment:
		return "apps/v1"
	}
	return "networking.istio.io/v1"
}

// refPatch is newPatch for a resource named "Kind ns/name".
func refPatch(ref string, set fields) *Patch {
	kind, nn, _ := strings.Cut(ref, " ")
	ns, name, _ := strings.Cut(nn, "/")
	return newPatch(apiVersionOf(kind), kind, ns, name, set)
}

// renderYAML writes v as block YAML at indent: mappings in their order (fields) or sorted
// (map[string]any), list items quoted, other strings quoted only when YAML would not read
// them back as the same string.
func renderYAML(v any, indent int) string {
	var b strings.Builder
	writeYAML(&b, v, indent)
	return b.String()
}

func writeYAML(b *strings.Builder, v any, indent int) {
	pad := strings.Repeat(" ", indent)
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var f fields
		for _, k := range keys {
			f = append(f, field{k, x[k]})
		}
		writeYAML(b, f, indent)
	case fields:
		for _, kv := range x {
			b.WriteString(pad + yamlKey(kv.Key) + ":")
			writeValue(b, kv.Value, indent, false)
		}
	case []any:
		for _, it := range x {
			b.WriteString(pad + "-")
			switch it.(type) {
			case fields, map[string]any:
				if empty(it) {
					b.WriteString(" {}\n")
					continue
				}
				// the first key on the dash's line, the others under it
				s := renderYAML(it, indent+2)
				b.WriteString(" " + strings.TrimPrefix(s, strings.Repeat(" ", indent+2)))
			default:
				writeValue(b, it, indent, true)
			}
		}
	}
}

func empty(v any) bool {
	switch x := v.(type) {
	case fields:
		return len(x) == 0
	case map[string]any:
		return len(x) == 0
	case []any:
		return len(x) == 0
	}
	return false
}

// writeValue writes the value of a key (or a list item) after its "key:" or "-".
func writeValue(b *strings.Builder, v any, indent int, item bool) {
	switch x := v.(type) {
	case fields, map[string]any:
		if empty(x) {
			b.WriteString(" {}\n")
			return
		}
		b.WriteString("\n")
		writeYAML(b, x, indent+2)
	case []any:
		if len(x) == 0 {
			b.WriteString(" []\n")
			return
		}
		b.WriteString("\n")
		writeYAML(b, x, indent)
	case []string:
		writeValue(b, strList(x), indent, item)
	case string:
		if item || !plainSafe(x) {
			b.WriteString(" " + strconv.Quote(x) + "\n")
		} else {
			b.WriteString(" " + x + "\n")
		}
	case nil:
		b.WriteString(" null\n")
	default:
		js, _ := json.Marshal(x)
		b.WriteString(" " + string(js) + "\n")
	}
}

func yamlKey(k string) string {
	if plainSafe(k) {
		return k
	}
	return strconv.Quote(k)
}

// plainSafe: s reads back as the same string when written unquoted.
func plainSafe(s string) bool {
	if s == "" {
		return false
	}
	switch strings.ToLower(s) {
	case "true", "false", "yes", "no", "on", "off", "null", "~", "y", "n":
		return false
	}
	if _, err := strconv.ParseFloat(s, 64); err == nil {
		return false
	}
	for i, r := range s {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || (i > 0 && strings.ContainsRune("-_./", r))
		if !ok {
			return false
		}
	}
	return true
}

func strList(xs []string) []any {
	out := make([]any, len(xs))
	for i, x := range xs {
		out[i] = x
	}
	return out
}

// specOf is an object's spec (or, with key "", the whole object) as generic JSON: a map of
// what the manifest would hold, for patches that must write a whole list back.
func specOf(obj any, key string) map[string]any {
	js, err := json.Marshal(obj)
	if err != nil {
		return nil
	}
	var m map[string]any
	if json.Unmarshal(js, &m) != nil {
		return nil
	}
	if key == "" {
		return m
	}
	s, _ := m[key].(map[string]any)
	if s == nil {
		s = map[string]any{}
	}
	if _, ok := obj.(*networkingv1.Gateway); ok && key == "spec" {
		// tls.mode PASSTHROUGH is the zero value and the JSON form omits it: a fix that
		// writes the servers back says it, as the manifest did (an unset mode reads the same)
		for _, x := range asList(s["servers"]) {
			srv, _ := x.(map[string]any)
			port, _ := srv["port"].(map[string]any)
			tls, _ := srv["tls"].(map[string]any)
			proto, _ := port["protocol"].(string)
			if tls != nil && tls["mode"] == nil && (strings.EqualFold(proto, "TLS") || strings.EqualFold(proto, "HTTPS")) {
				tls["mode"] = "PASSTHROUGH"
			}
		}
	}
	return s
}

// ApplyPatch returns snap with p applied, as `kubectl apply` of the patched object would leave
// it (snapshot.Overlay): the object is merged with the patch (RFC 7386), decoded strictly, as
// the manifest loader decodes every input, and checked against Istio's validation
// (patchRejections; a Service against the API server's port rules, validatePatched): a fix that
// would be refused is an error. snap is not changed.
func ApplyPatch(snap *snapshot.Snapshot, p *Patch) (*snapshot.Snapshot, error) {
	doc := []byte(p.Merge)
	if !p.Create {
		obj := findObject(snap, p.Kind, p.Namespace, p.Name)
		if obj == nil {
			return nil, fmt.Errorf("%s is not in the input", p.Ref())
		}
		base, err := json.Marshal(obj)
		if err != nil {
			return nil, err
		}
		if doc, err = jsonpatch.MergePatch(base, p.Merge); err != nil {
			return nil, fmt.Errorf("merge patch of %s: %w", p.Ref(), err)
		}
		// typed objects read from a cluster may carry no apiVersion and kind
		head, _ := json.Marshal(map[string]string{"apiVersion": p.APIVersion, "kind": p.Kind})
		if doc, err = jsonpatch.MergePatch(doc, head); err != nil {
			return nil, err
		}
	}
	var m map[string]any
	if err := json.Unmarshal(doc, &m); err != nil {
		return nil, err
	}
	delete(m, "status")
	if md, ok := m["metadata"].(map[string]any); ok {
		delete(md, "managedFields")
		delete(md, "resourceVersion")
	}
	if err := validatePatched(p.Kind, p.Namespace, m); err != nil {
		return nil, fmt.Errorf("%s after the change: %w", p.Ref(), err)
	}
	y, err := yaml.Marshal(m)
	if err != nil {
		return nil, err
	}
	over, err := loader.FromFiles([]string{"-"}, bytes.NewReader(y), loader.Options{IstioNamespace: snap.IstioNamespace, Revision: snap.Revision})
	if err != nil {
		return nil, fmt.Errorf("%s after the change does not decode: %w", p.Ref(), err)
	}
	out := snapshot.Overlay(snap, over)
	out.Source = snap.Source
	if err := patchRejections(snap, out, p.Ref()); err != nil {
		return nil, fmt.Errorf("%s after the change breaks Istio's validation: %w", p.Ref(), err)
	}
	return out, nil
}

// findObject is the object kind ns/name of snap (nil when absent).
func findObject(snap *snapshot.Snapshot, kind, ns, name string) any {
	find := func(n int, at func(int) (string, string, any)) any {
		for i := 0; i < n; i++ {
			if ons, oname, o := at(i); ons == ns && oname == name {
				return o
			}
		}
		return nil
	}
	switch kind {
	case snapshot.KindServiceEntry:
		return find(len(snap.ServiceEntries), func(i int) (string, string, any) {
			o := snap.ServiceEntries[i]
			return o.Namespace, o.Name, o
		})
	case snapshot.KindVirtualService:
		return find(len(snap.VirtualServices), func(i int) (string, string, any) {
			o := snap.VirtualServices[i]
			return o.Namespace, o.Name, o
		})
	case snapshot.KindDestinationRule:
		return find(len(snap.DestinationRules), func(i int) (string, string, any) {
			o := snap.DestinationRules[i]
			return o.Namespace, o.Name, o
		})
	case snapshot.KindGateway:
		return find(len(snap.Gateways), func(i int) (string, string, any) {
			o := snap.Gateways[i]
			return o.Namespace, o.Name, o
		})
	case snapshot.KindSidecar:
		return find(len(snap.Sidecars), func(i int) (string, string, any) {
			o := snap.Sidecars[i]
			return o.Namespace, o.Name, o
		})
	case snapshot.KindService:
		return find(len(snap.Services), func(i int) (string, string, any) {
			o := snap.Services[i]
			return o.Namespace, o.Name, o
		})
	case snapshot.KindNamespace:
		return find(len(snap.Namespaces), func(i int) (string, string, any) {
			o := snap.Namespaces[i]
			return "", o.Name, o
		})
	}
	return nil
}

// Outcomes of re-tracing a call with its fix applied (FixCheck.Result).
const (
	// FixProven: with the patch applied the call works (no Error on the path).
	FixProven = "proven"
	// FixInsufficient: with the patch applied the call still fails (at another hop, or the same).
	FixInsufficient = "insufficient"
	// FixInvalid: the patched object fails Istio's validation or does not decode.
	FixInvalid = "invalid"
)

// FixCheck is what tracing a failing call again, with its fix's patch applied to the input,
// gives.
type FixCheck struct {
	Result string `json:"result"`
	// Cause is the path's cause after the change (PATH_OK when proven, or a Warning's code);
	// At the hop that fails then ("gateway ns/name listener").
	Cause   string `json:"cause,omitempty"`
	At      string `json:"at,omitempty"`
	Message string `json:"message,omitempty"`
	// Culprit and Then, when the change is not enough: the culprit and fix of the next
	// failure (blind audit 69 D4: two faults on one call, the second named only once the
	// first was fixed). ThenProven: with both changes applied, the call works.
	Culprit    string `json:"culprit,omitempty"`
	Then       string `json:"then,omitempty"`
	ThenProven bool   `json:"thenProven,omitempty"`
	// ThenPatch is Then as a manifest change (nil when it is advice); the conformance suite
	// applies it on top of the first and regenerates with istiod.
	ThenPatch *Patch `json:"thenPatch,omitempty"`
}

// proveFix applies p's patch to snap, traces the same call once more and records the outcome
// in p.FixCheck. A fix is proven only when the call then works: an operator reads a fix as
// "this makes the call work", so a change after which the path fails further on is reported as
// not enough on its own (with the next failure), not as the fix.
func proveFix(snap *snapshot.Snapshot, opt PathOptions, p *PathTrace) {
	patch := p.Patch
	if patch.derived != nil {
		// a Gateway API Gateway's change: the input holds what istiod derives from it (the
		// Service it deploys), so that change is applied
		patch = patch.derived
	} else if patch.Kind == "Gateway" && strings.HasPrefix(patch.APIVersion, "gateway.networking.k8s.io/") {
		// ApplyPatch edits Istio's kinds: the fix stays unchecked rather than called invalid
		return
	}
	after, err := ApplyPatch(snap, patch)
	if err != nil {
		p.FixCheck = &FixCheck{Result: FixInvalid, Message: err.Error()}
		return
	}
	outer := !opt.probe // the check of the trace's own fix, not of the next one
	opt.Port, opt.Call, opt.probe = p.Port, p.Call, true
	q, err := tracePath(after, opt)
	if err != nil {
		p.FixCheck = &FixCheck{Result: FixInsufficient, Message: err.Error()}
		return
	}
	if !q.Failed() {
		p.FixCheck = &FixCheck{Result: FixProven, Cause: q.Cause}
		if i := slices.IndexFunc(q.Warnings, func(f Finding) bool { return f.Code == PathCredentialUnchecked }); i >= 0 {
			// the changed path reads a credential whose Secret the input does not show: the
			// call works only once it is there (blind audit 101 c33, where "the call works"
			// left the gateway's client certificate out)
			p.FixCheck.Message = q.Warnings[i].Message
		}
		return
	}
	at := ""
	for _, h := range q.Hops {
		if h.Result == Fail {
			at = h.Proxy + " " + h.Step
		}
	}
	fc := &FixCheck{Result: FixInsufficient, Cause: q.Cause, At: at, Message: q.Message, Culprit: q.Culprit, Then: q.Fix, ThenPatch: q.Patch}
	if q.Patch != nil && outer {
		// one step further, and no more: the next change applied on top of this one (two
		// fixes that undo each other must not chain forever)
		proveFix(after, opt, q)
		fc.ThenProven = q.FixCheck != nil && q.FixCheck.Result == FixProven
	}
	p.FixCheck = fc
}
