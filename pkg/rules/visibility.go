package rules

import (
	"fmt"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	meshv1alpha1 "istio.io/api/mesh/v1alpha1"
)

// Visibility values of meshConfig.serviceEntryVisibility (seed 002).
const (
	VisibilityPublic    = "PUBLIC"
	VisibilityNamespace = "NAMESPACE"
	VisibilityNone      = "NONE"
)

// SEVisibility is the resolved serviceEntryVisibility of one ServiceEntry.
type SEVisibility struct {
	// Configured is false when meshConfig.serviceEntryVisibility is absent (every entry PUBLIC).
	Configured bool
	Visibility string
	// Policy is the index of the first policy whose matchingRules all matched, -1 for
	// defaultVisibility.
	Policy int
	// ApplyToSidecars: the visibility also caps exportTo for sidecars and gateways.
	ApplyToSidecars bool
	// Problems lists rules that cannot match (no matcher, invalid selector).
	Problems []string
}

// ResolveSEVisibility returns the visibility of a ServiceEntry whose namespace carries
// nsLabels: the first policy all of whose matchingRules match (a policy without rules matches
// everything; a rule without a matcher never matches; `namespaceSelector: {}` matches every
// namespace; an invalid selector never matches), else defaultVisibility; UNSPECIFIED is PUBLIC.
//
// Mirrors istiod pilot/pkg/model/serviceentry_visibility.go (compilation of the policies) and
// serviceentry/conversion.go (Attributes.Visibility) — seed 002.
func ResolveSEVisibility(cfg *meshv1alpha1.ServiceEntryVisibility, nsLabels map[string]string) SEVisibility {
	if cfg == nil {
		return SEVisibility{Visibility: VisibilityPublic, Policy: -1}
	}
	out := SEVisibility{Configured: true, Policy: -1, ApplyToSidecars: cfg.GetApplyToSidecars()}
	for i, p := range cfg.GetPolicies() {
		all := true
		for j, r := range p.GetMatchingRules() {
			ok, problem := matchRule(r, nsLabels)
			if problem != "" {
				out.Problems = append(out.Problems, fmt.Sprintf("policies[%d].matchingRules[%d]: %s", i, j, problem))
			}
			if !ok {
				all = false
				break
			}
		}
		if all {
			out.Policy = i
			out.Visibility = visibilityName(p.GetVisibility())
			return out
		}
	}
	out.Visibility = visibilityName(cfg.GetDefaultVisibility())
	return out
}

func matchRule(r *meshv1alpha1.ServiceEntryVisibility_MatchRule, nsLabels map[string]string) (bool, string) {
	ns := r.GetNamespaceSelector()
	if ns == nil {
		return false, "no matcher: never matches"
	}
	sel := &metav1.LabelSelector{MatchLabels: ns.GetMatchLabels()}
	for _, e := range ns.GetMatchExpressions() {
		sel.MatchExpressions = append(sel.MatchExpressions, metav1.LabelSelectorRequirement{
			Key: e.GetKey(), Operator: metav1.LabelSelectorOperator(e.GetOperator()), Values: e.GetValues()})
	}
	s, err := metav1.LabelSelectorAsSelector(sel)
	if err != nil {
		return false, "invalid namespaceSelector (" + err.Error() + "): never matches"
	}
	return s.Matches(labels.Set(nsLabels)), ""
}

func visibilityName(v meshv1alpha1.ServiceEntryVisibility_Visibility) string {
	switch v {
	case meshv1alpha1.ServiceEntryVisibility_NONE:
		return VisibilityNone
	case meshv1alpha1.ServiceEntryVisibility_NAMESPACE:
		return VisibilityNamespace
	}
	return VisibilityPublic
}

// CapExportTo applies a resolved visibility to a ServiceEntry's effective exportTo when
// applyToSidecars is set: NAMESPACE keeps only the own namespace (["."] if the set contained
// "*", "." or seNs, else ["~"]); NONE hides it (["~"]); PUBLIC changes nothing. The cap never
// widens the set.
//
// Mirrors istiod pilot/pkg/model/push_context.go serviceExportTo (seed 002).
func CapExportTo(exportTo []string, seNs string, v SEVisibility) []string {
	if !v.Configured || !v.ApplyToSidecars {
		return exportTo
	}
	switch v.Visibility {
	case VisibilityNone:
		return []string{ExportNone}
	case VisibilityNamespace:
		if slices.Contains(exportTo, ExportPublic) || slices.Contains(exportTo, ExportPrivate) || slices.Contains(exportTo, seNs) {
			return []string{ExportPrivate}
		}
		return []string{ExportNone}
	}
	return exportTo
}
