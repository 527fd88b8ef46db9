package checks

import (
	"fmt"
	"slices"

	networkingv1 "istio.io/client-go/pkg/apis/networking/v1"

	"github.com/kubectl-egress/kubectl-egress/pkg/model"
	"github.com/kubectl-egress/kubectl-egress/pkg/rules"
	"github.com/kubectl-egress/kubectl-egress/pkg/snapshot"
)

// CauseGatewayNotApplied: a VirtualService routes the host through a Gateway that exists but
// applies to no gateway workload, this one included (selector, namespace scope, revision).
const CauseGatewayNotApplied = "GATEWAY_DOES_NOT_APPLY"

func init() {
	Catalog = append(Catalog, CatalogEntry{CauseGatewayNotApplied, LevelError, "UF/NR",
		"A VirtualService routes the host through a Gateway that applies to no gateway workload: its selector matches no gateway pod's labels, PILOT_SCOPE_GATEWAY_TO_NAMESPACE keeps it to its own namespace, or it is labelled for another istiod revision. The gateway has no listener or route for it."})
}

// stepGatewayApplies explains why the Gateway a VirtualService routes the host through does not
// apply to this workload, when it applies to no other gateway workload either (so this one is
// the evident target). It decides the verdict when nothing else failed, and replaces an
// unresolved-reference verdict whose Gateway exists but is outside this workload's revision.
//
// Mirrors istiod's Gateway selection for a proxy: pilot/pkg/model/push_context.go
// gatewayWithInstances / mergeGateways input (the Gateway's selector against the proxy's labels,
// PILOT_SCOPE_GATEWAY_TO_NAMESPACE restricting to the proxy's namespace) and the revision filter
// of the config istiod watches (pilot/pkg/config/kube/crdclient, LabelsInRevision).
func (e *evaluation) stepGatewayApplies(full *snapshot.Snapshot) {
	if e.cause != "" && e.cause != CauseGatewayRefUnresolve {
		return
	}
	if e.cause == "" && !slices.ContainsFunc(e.v.Warnings, func(f Finding) bool { return f.Code == "NO_ROUTE_THROUGH_GATEWAY" }) {
		return // the host is routed through this workload
	}
	x := model.VirtualServices(full, e.vsExport)
	mine := gatewaysFor(e.snap, e.w, e.scopeOn)
	for _, vs := range x.Relevant(rules.NormalizeHost(e.host), nil) {
		for _, ref := range rules.VSGateways(vs) {
			if ref == rules.MeshGateway {
				continue
			}
			g := findGateway(full, ref)
			if g != nil && e.cause == CauseGatewayRefUnresolve && findGateway(e.snap, ref) == nil && meantForOther(full, g, e.w) {
				// The reference this workload's revision cannot resolve is to a Gateway of
				// another gateway workload (outside this revision): the route is not this
				// workload's at all, and nothing here is to fix.
				e.notRoutedHere(ref)
				return
			}
			if g == nil || slices.Contains(mine, g) || appliesElsewhere(full, g, e.w) || meantForOther(full, g, e.w) {
				continue
			}
			why, fix := e.whyNotApplied(full, g)
			if why == "" {
				continue
			}
			e.cause = ""
			// "no VirtualService routes the host through this gateway" (the route step's Info)
			// is what this failure explains: the route names a Gateway that applies nowhere
			// (blind audit 37 #05/#06, where the Info sat beside the Error contradicting it)
			e.v.Warnings = slices.DeleteFunc(e.v.Warnings, func(f Finding) bool { return f.Code == "NO_ROUTE_THROUGH_GATEWAY" })
			e.step("gateway-applies", "the Gateway the route names applies to the workload", Fail, why,
				gatewaySelectionEvidence(g),
				Evidence{Resource: e.w.Kind + " " + e.w.Ref(), Field: "labels", Value: fmtLabels(e.w.Labels)})
			e.fail(CauseGatewayNotApplied, "Gateway "+ref,
				fmt.Sprintf("VirtualService %s/%s routes %s through Gateway %s, which applies to no gateway workload: %s. The gateway workload %s gets no listener or route for the host from it, so calls sent there fail (connection refused, or 404 NR).", vs.Namespace, vs.Name, e.host, ref, why, e.w.Ref()),
				fix)
			return
		}
	}
}

// notRoutedHere withdraws an unresolved-reference verdict: the Gateway the route names (ref)
// belongs to another gateway workload, so no route sends the host through this one.
func (e *evaluation) notRoutedHere(ref string) {
	e.cause = ""
	e.v.Cause, e.v.Culprit, e.v.Message, e.v.Fix, e.v.Patch = "", "", "", "", nil
	for i := range e.v.Steps {
		if e.v.Steps[i].ID == "route-binding" && e.v.Steps[i].Result == Fail {
			e.v.Steps[i].Result = Skipped
			e.v.Steps[i].Summary = fmt.Sprintf("the VirtualService for %s names Gateway %s, which selects another gateway workload (outside the istiod revision of %s)", e.host, ref, e.w.Ref())
		}
	}
	e.warn("NO_ROUTE_THROUGH_GATEWAY", "", fmt.Sprintf("No VirtualService routes %s through gateway %s; the cluster alone carries no traffic.", e.host, e.w.Ref()), "")
}

// appliesElsewhere: the Gateway selects some other gateway workload (then it was meant for that
// one, not this).
func appliesElsewhere(full *snapshot.Snapshot, g *networkingv1.Gateway, self Workload) bool {
	_, ok := otherWorkloadSelected(full, g, self)
	return ok
}

// meantForOther: the Gateway's selector matches the labels of another gateway workload and not
// self's: whatever keeps it off that workload (the namespace scope, a revision), self is not
// its target, and making it select self would send the route's traffic to the wrong pods.
func meantForOther(full *snapshot.Snapshot, g *networkingv1.Gateway, self Workload) bool {
	if len(g.Spec.Selector) == 0 || rules.LabelsSubsetOf(g.Spec.Selector, self.Labels) {
		return false
	}
	for _, w := range GatewayWorkloads(full) {
		if w.Ref() != self.Ref() && !w.Synthetic && rules.LabelsSubsetOf(g.Spec.Selector, w.Labels) {
			return true
		}
	}
	return false
}

// otherWorkloadSelected returns a real gateway workload other than self that Gateway g applies to
// (its selector, namespace scope and revision, as istiod selects a proxy's Gateways).
func otherWorkloadSelected(full *snapshot.Snapshot, g *networkingv1.Gateway, self Workload) (Workload, bool) {
	for _, w := range GatewayWorkloads(full) {
		if w.Ref() == self.Ref() || w.Synthetic {
			continue
		}
		view := RevisionView(full, w.Revision)
		flags := ReadIstiodFlags(view, w.Revision)
		if slices.Contains(gatewaysFor(view, w, flags.ScopeGWToNs.Value), g) {
			return w, true
		}
	}
	return Workload{}, false
}

// whyNotApplied names the first reason the Gateway does not apply to e.w: revision, namespace
// scope, selector.
func (e *evaluation) whyNotApplied(full *snapshot.Snapshot, g *networkingv1.Gateway) (why, fix string) {
	ref := g.Namespace + "/" + g.Name
	if findGateway(e.snap, ref) == nil {
		rev := g.Labels["istio.io/rev"]
		serving := e.w.Revision
		if serving == "" {
			serving = "default"
		}
		if rev == "" {
			rev = "another revision (its namespace's istio.io/rev label)"
		}
		fix = fmt.Sprintf("# Gateway %s\nmetadata:\n  labels:\n    istio.io/rev: %s", ref, serving)
		if e.w.Revision == "" {
			fix = fmt.Sprintf("Remove the istio.io/rev label from Gateway %s (kubectl label gateway -n %s %s istio.io/rev-): the default istiod serves %s.", ref, g.Namespace, g.Name, e.w.Ref())
		}
		return fmt.Sprintf("it is labelled istio.io/rev=%s, but %s is served by istiod revision %s, which ignores config of other revisions", rev, e.w.Ref(), serving), fix
	}
	if e.scopeOn && g.Namespace != e.w.Namespace && rules.LabelsSubsetOf(g.Spec.Selector, e.w.Labels) {
		return fmt.Sprintf("istiod runs with PILOT_SCOPE_GATEWAY_TO_NAMESPACE=true, so a Gateway in %s applies only to gateway pods in %s, and %s runs in %s", g.Namespace, g.Namespace, e.w.Ref(), e.w.Namespace),
			fmt.Sprintf("Create the Gateway in %s (the gateway pods' namespace) and point the VirtualService at %s/%s.", e.w.Namespace, e.w.Namespace, g.Name)
	}
	if !rules.LabelsSubsetOf(g.Spec.Selector, e.w.Labels) {
		return fmt.Sprintf("its selector %s does not match the labels of %s (%s)", fmtLabels(g.Spec.Selector), e.w.Ref(), fmtLabels(e.w.Labels)),
			fmt.Sprintf("# Gateway %s\nspec:\n  selector:\n    %s", ref, selectorYAML(gatewaySelectorFor(e.w.Labels)))
	}
	return "", ""
}

// gatewaySelectorFor picks the label a Gateway should select a gateway workload by: istio=...
// when the pods carry it, else app=..., else every label.
func gatewaySelectorFor(l map[string]string) map[string]string {
	for _, k := range []string{"istio", "app"} {
		if v, ok := l[k]; ok {
			return map[string]string{k: v}
		}
	}
	return l
}
