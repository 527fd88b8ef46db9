package checks

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/kubectl-egress/kubectl-egress/pkg/snapshot"
)

// validatePatched checks a Service a fix wrote against the API server's Service port rules
// (unique names and numbers, names that are DNS labels) and the networking.istio.io/exportTo
// annotation against Istio's exportTo rules; the Istio kinds are checked after decoding
// (patchRejections). Strict decoding (unknown fields, enum values) is the loader's.
//
// Mirrors istio.io/istio pkg/config/validation/validation.go validateExportTo (the annotation,
// as pilot/pkg/serviceregistry/kube/conversion.go reads it) and the API server's Service port
// rules.
func validatePatched(kind, ns string, obj map[string]any) error {
	if kind != "Service" {
		return nil
	}
	spec, _ := obj["spec"].(map[string]any)
	var errs []error
	md, _ := obj["metadata"].(map[string]any)
	ann, _ := md["annotations"].(map[string]any)
	if v, ok := ann["networking.istio.io/exportTo"].(string); ok {
		var xs []string
		for _, x := range strings.Split(v, ",") {
			xs = append(xs, strings.TrimSpace(x))
		}
		errs = append(errs, validateExportTo(ns, xs, true))
	}
	names, numbers := map[string]bool{}, map[string]bool{}
	ports, _ := spec["ports"].([]any)
	for _, p := range ports {
		pm, _ := p.(map[string]any)
		name, _ := pm["name"].(string)
		num, _ := pm["port"].(float64)
		proto, _ := pm["protocol"].(string)
		key := fmt.Sprintf("%v/%s", num, proto)
		if num < 1 || num > 65535 {
			errs = append(errs, fmt.Errorf("spec.ports: port %v out of range", num))
		}
		if len(ports) > 1 && name == "" {
			errs = append(errs, errors.New("spec.ports: every port needs a name when there are several"))
		}
		if name != "" {
			for _, m := range validation.IsDNS1123Label(name) {
				errs = append(errs, fmt.Errorf("spec.ports: name %q: %s", name, m))
			}
		}
		if names[name] && name != "" {
			errs = append(errs, fmt.Errorf("spec.ports: duplicate name %q", name))
		}
		if numbers[key] {
			errs = append(errs, fmt.Errorf("spec.ports: duplicate port %v", num))
		}
		names[name], numbers[key] = true, true
	}
	return errors.Join(errs...)
}

// patchRejections: the rules of Istio's validation (objectRejections: the same mirrors the
// findings and verdicts use) that the object ref ("Kind namespace/name") breaks in after, the
// input with a fix applied, and did not break in before. A fix is refused for what it breaks,
// not for what the object already broke (a verdict about a refused object names that first).
func patchRejections(before, after *snapshot.Snapshot, ref string) error {
	was := objectRejections(before, ref)
	var errs []error
	for _, r := range objectRejections(after, ref) {
		if slices.ContainsFunc(was, func(w seRejection) bool { return w.field == r.field && w.why == r.why }) {
			continue
		}
		errs = append(errs, fmt.Errorf("%s: %s", r.field, r.why))
	}
	return errors.Join(errs...)
}

// validateExportTo mirrors istiod's validateExportTo: ".", "*", "~" (entries and Services only)
// or a namespace name; no duplicates ("." counts as the object's own namespace); "*" and "~"
// alone.
func validateExportTo(ns string, xs []string, allowNone bool) error {
	seen := map[string]bool{}
	var errs []error
	for _, x := range xs {
		key := x
		if x == "." {
			key = ns
		}
		if seen[key] {
			errs = append(errs, fmt.Errorf("duplicate entries in exportTo: %s", x))
			continue
		}
		seen[key] = true
		switch {
		case x == "." || x == "*":
		case x == "~":
			if !allowNone {
				errs = append(errs, errors.New("exportTo: ~ is only valid for a ServiceEntry"))
			}
		default:
			if bad := validation.IsDNS1123Label(x); len(bad) > 0 {
				errs = append(errs, fmt.Errorf("exportTo: %q is not a namespace name", x))
			}
		}
	}
	if seen["*"] && len(xs) > 1 {
		errs = append(errs, errors.New("cannot have both public (*) and non-public exportTo values for a resource"))
	}
	if seen["~"] && len(xs) > 1 {
		errs = append(errs, errors.New("cannot export service entry to no one (~) and someone"))
	}
	return errors.Join(errs...)
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}

func anyStrings(xs []any) []string {
	var out []string
	for _, x := range xs {
		s, _ := x.(string)
		out = append(out, s)
	}
	return out
}
