package checks

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/kubectl-egress/kubectl-egress/pkg/rules"
	"github.com/kubectl-egress/kubectl-egress/pkg/snapshot"
)

// Gateways of another controller: a Kubernetes Gateway API Gateway whose GatewayClass names a
// controller that is not Istio's (Envoy Gateway, a cloud load balancer...) is served by that
// controller. istiod ignores it: it generates no configuration from it and writes no status,
// neither for it nor for the parentRefs of routes that name it (rules.KubeGatewayOtherController
// cites the istiod functions). A route whose parents are all such Gateways is therefore ignored
// too, whatever it holds (filters, GRPCRoute), and a route with other parents is judged by them
// alone. kubectl-egress does the same, and says so plainly where such an object names the host
// (a note on the verdict, GATEWAY_API_OTHER_CLASS at Info level in preflight), since an operator
// may expect the Istio proxies to follow it.

// PreflightGatewayAPIOtherClass: a Gateway API object that routes an egress host belongs to
// another controller (preflight, informational).
const PreflightGatewayAPIOtherClass = "GATEWAY_API_OTHER_CLASS"

func init() {
	Catalog = append(Catalog, CatalogEntry{Code: PreflightGatewayAPIOtherClass, Level: LevelInfo,
		Description: "A Kubernetes Gateway API Gateway whose GatewayClass names a controller that is not Istio's (or a route attached only to such Gateways) names a host a ServiceEntry declares. Istio does not serve that Gateway: traffic sent to it is handled by the other controller, istiod generates no configuration and writes no status for it, and kubectl-egress ignores it the same way, so verdicts about the host rest on the Istio configuration alone. Informational: nothing is wrong unless you meant Istio's proxies to follow it."})
}

// otherGateway is a Gateway of a class no Istio controller serves.
type otherGateway struct{ class, controller string }

type otherClassKey struct{}

// otherClassGateways maps the Gateway API Gateways of the snapshot that no Istio controller
// serves ("namespace/name") to their class and its controller, once per snapshot.
func otherClassGateways(snap *snapshot.Snapshot) map[string]otherGateway {
	if len(snap.KubeGateways) == 0 || len(snap.GatewayClasses) == 0 {
		return nil
	}
	return snap.Derived(otherClassKey{}, func() any {
		out := map[string]otherGateway{}
		for _, g := range snap.KubeGateways {
			if ctl, ok := rules.KubeGatewayOtherController(string(g.Spec.GatewayClassName), snap.GatewayClasses); ok {
				out[g.Namespace+"/"+g.Name] = otherGateway{class: string(g.Spec.GatewayClassName), controller: ctl}
			}
		}
		return out
	}).(map[string]otherGateway)
}

// servedParentRefs: a route's parentRefs without the Gateways of other controllers.
func servedParentRefs(others map[string]otherGateway, refs []gatewayv1.ParentReference, routeNs string) []gatewayv1.ParentReference {
	if len(others) == 0 {
		return refs
	}
	var out []gatewayv1.ParentReference
	for _, r := range refs {
		group, kind, ns := rules.KubeParentRefDefaults(r, routeNs)
		if _, other := others[ns+"/"+string(r.Name)]; other && group == snapshot.GatewayAPIGroup && kind == "Gateway" {
			continue
		}
		out = append(out, r)
	}
	return out
}

// otherParents: the parentRefs of a route (as the snapshot's summary holds them) that are
// Gateways of other controllers, as "Gateway ns/name (class X)", in order, once each.
func otherParents(others map[string]otherGateway, o snapshot.GatewayAPIObject) []string {
	var out []string
	for _, r := range o.ParentRefs {
		if r.Kind != "Gateway" || r.Group != snapshot.GatewayAPIGroup {
			continue
		}
		if g, ok := others[r.Namespace+"/"+r.Name]; ok {
			if d := fmt.Sprintf("Gateway %s/%s (class %s)", r.Namespace, r.Name, g.class); !slices.Contains(out, d) {
				out = append(out, d)
			}
		}
	}
	return out
}

// ignoredAsOtherClass: istiod ignores the object because it is a Gateway of another
// controller, or a route whose parents all are.
func ignoredAsOtherClass(others map[string]otherGateway, o snapshot.GatewayAPIObject) bool {
	if len(others) == 0 {
		return false
	}
	if o.Kind == "Gateway" {
		_, ok := others[o.Namespace+"/"+o.Name]
		return ok
	}
	return len(o.ParentRefs) > 0 && len(otherParents(others, o)) > 0 && !slices.ContainsFunc(o.ParentRefs, func(r snapshot.GatewayAPIRef) bool {
		_, ok := others[r.Namespace+"/"+r.Name]
		return !ok || r.Kind != "Gateway" || r.Group != snapshot.GatewayAPIGroup
	})
}

// otherClassObject is a Gateway API object another controller's Gateways concern, with the
// plain words that say so.
type otherClassObject struct {
	obj   snapshot.GatewayAPIObject
	hosts []string
	note  string
	field string
}

type otherClassObjectsKey struct{}

// otherClassObjects lists the Gateways of other controllers and the routes attached to one
// (only, or beside other parents), with the hosts each names (gatewayAPIHosts), once per
// snapshot. Routes of a kind istiod ignores for its CRD are left to GATEWAY_API_CRD_TOO_OLD.
func otherClassObjects(snap *snapshot.Snapshot) []otherClassObject {
	others := otherClassGateways(snap)
	if len(others) == 0 || len(snap.GatewayAPI) == 0 {
		return nil
	}
	return snap.Derived(otherClassObjectsKey{}, func() any {
		entries := entryHosts(snap)
		var out []otherClassObject
		for _, o := range snap.GatewayAPI {
			if crdIgnoredKind(snap, o.Kind) {
				continue
			}
			x := otherClassObject{obj: o}
			switch {
			case o.Kind == "Gateway":
				g, ok := others[o.Namespace+"/"+o.Name]
				if !ok {
					continue
				}
				x.field = "spec.gatewayClassName"
				x.note = fmt.Sprintf("Gateway %s/%s (class %s) is not served by Istio: traffic sent to it is handled by another controller (%s); kubectl-egress, like istiod, ignores it", o.Namespace, o.Name, g.class, g.controller)
			case ignoredAsOtherClass(others, o):
				x.field = "spec.parentRefs"
				x.note = fmt.Sprintf("%s is attached only to %s, not served by Istio: traffic through it is handled by another controller; kubectl-egress, like istiod, ignores the route", o.Ref(), strings.Join(otherParents(others, o), " and "))
			default:
				ps := otherParents(others, o)
				if len(ps) == 0 {
					continue
				}
				x.field = "spec.parentRefs"
				x.note = fmt.Sprintf("%s is also attached to %s, not served by Istio: what the route does there is handled by another controller; kubectl-egress, like istiod, ignores that parent and follows the route's other parents", o.Ref(), strings.Join(ps, " and "))
			}
			x.hosts = gatewayAPIHosts(o, entries)
			out = append(out, x)
		}
		sort.SliceStable(out, func(i, j int) bool { return out[i].obj.Ref() < out[j].obj.Ref() })
		return out
	}).([]otherClassObject)
}

// otherClassNotes: the notes for a verdict about host, one per Gateway of another controller,
// or route attached to one, that names the host.
func otherClassNotes(snap *snapshot.Snapshot, host string) []string {
	host = rules.NormalizeHost(host)
	var out []string
	for _, x := range otherClassObjects(snap) {
		if slices.ContainsFunc(x.hosts, func(h string) bool { return h == host || strings.HasPrefix(h, "*") && rules.HostSubsetOf(host, h) }) {
			out = append(out, x.note)
		}
	}
	return out
}

// otherClassFix is the advice of GATEWAY_API_OTHER_CLASS.
const otherClassFix = "Nothing to change if that controller is meant to carry this traffic. For Istio's proxies to route it (an egress gateway), use a Gateway of Istio's class (gatewayClassName: istio) and attach the route to it: https://istio.io/latest/docs/tasks/traffic-management/egress/egress-gateway/ (Gateway API tab)."

// otherClassFindings: GATEWAY_API_OTHER_CLASS (Info) for every Gateway of another controller, or
// route attached to one, that names a host some ServiceEntry declares (preflight).
func otherClassFindings(snap *snapshot.Snapshot) []PreflightFinding {
	objs := otherClassObjects(snap)
	if len(objs) == 0 {
		return nil
	}
	var declared []string
	for _, hs := range entryHosts(snap) {
		declared = append(declared, hs...)
	}
	sort.Strings(declared)
	declared = slices.Compact(declared)
	var out []PreflightFinding
	for _, x := range objs {
		var routed []string
		for _, h := range x.hosts {
			for _, d := range declared {
				if d == h || strings.HasPrefix(h, "*") && rules.HostSubsetOf(d, h) {
					routed = append(routed, d)
				}
			}
		}
		sort.Strings(routed)
		routed = slices.Compact(routed)
		if len(routed) == 0 {
			continue
		}
		if len(routed) > 5 {
			routed = append(routed[:5:5], fmt.Sprintf("and %d more", len(routed)-5))
		}
		out = append(out, NewPreflightFinding(PreflightGatewayAPIOtherClass, CheckPreflight,
			ResourceRef{Kind: x.obj.Kind, Namespace: x.obj.Namespace, Name: x.obj.Name}, x.field,
			upperFirst(x.note)+fmt.Sprintf(". It names egress host(s) %s; checks of that traffic rest on the Istio configuration alone.", strings.Join(routed, ", ")),
			otherClassFix))
	}
	return out
}

// takenClassNotes: a note per Gateway whose class is one of istiod's built-in names (istio, say)
// while the GatewayClass object of that name names another controller: istiod generates the
// Gateway's configuration but deploys no gateway for it (rules.KubeGatewayClassTaken), so its
// <name>-<class> Service and pods exist only if that controller makes them.
func takenClassNotes(snap *snapshot.Snapshot) []string {
	var out []string
	for _, g := range snap.KubeGateways {
		class := string(g.Spec.GatewayClassName)
		if ctl, ok := rules.KubeGatewayClassTaken(class, snap.GatewayClasses); ok {
			out = append(out, fmt.Sprintf("GatewayClass %s names controller %s, not Istio's: istiod still generates the configuration of Gateway %s/%s (class %s is one of its own names), but deploys no gateway for it, so Service %s/%s and its pods exist only if that other controller creates them; give the GatewayClass Istio's controllerName (istio.io/gateway-controller) or the Gateway another class.",
				class, ctl, g.Namespace, g.Name, class, g.Namespace, rules.KubeGatewayServiceName(g)))
		}
	}
	return out
}
