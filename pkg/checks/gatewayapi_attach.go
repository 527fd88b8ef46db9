package checks

import (
	"fmt"
	"slices"
	"strings"

	networkingv1 "istio.io/client-go/pkg/apis/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/kubectl-egress/kubectl-egress/pkg/model"
	"github.com/kubectl-egress/kubectl-egress/pkg/rules"
	"github.com/kubectl-egress/kubectl-egress/pkg/snapshot"
)

// Why a route (HTTPRoute, TLSRoute, TCPRoute) does not attach to its Gateway (issue #17): istiod
// accepts a route's Gateway
// parentRef when one listener of the Gateway takes it (port and sectionName, hostnames and the
// namespaces the listener allows, the route kind), and otherwise writes the reason in the route's
// status.parents (rules.KubeRouteParentStatuses mirrors it). A route that attaches nowhere
// changes nothing at the gateway, which users see as 404 NR there, as connections it refuses
// (a TLS or TCP listener without a filter chain), or as traffic that never reaches it. The prediction is also set beside the status istiod wrote, when the input has it.

const (
	// PreflightRouteNotAccepted: a Gateway parentRef of a route attaches to no listener.
	PreflightRouteNotAccepted = "GATEWAY_API_ROUTE_NOT_ACCEPTED"
	// PreflightMeshPortUndeclared: a route's Service or ServiceEntry parentRef names a port the
	// parent does not declare.
	PreflightMeshPortUndeclared = "GATEWAY_API_MESH_PORT_UNDECLARED"
	// PreflightRouteStatusDiffers: istiod's status for the parentRef says otherwise than the
	// prediction from the same generation of the route (Gateway and mesh parents, and status
	// entries for parents the spec does not list).
	PreflightRouteStatusDiffers = "GATEWAY_API_STATUS_DISAGREES"
	// PreflightHostnameStatusHarmless: a Hostname backendRef whose host is declared, but not in
	// the route's namespace: istiod reports BackendNotFound and routes the traffic all the same.
	PreflightHostnameStatusHarmless = "GATEWAY_API_BACKEND_STATUS_MISLEADS"
	// PreflightGatewayNotProgrammed: istiod's status for a Gateway of Istio's class, written for
	// its current generation, says Programmed=False: the data plane behind it is not ready.
	PreflightGatewayNotProgrammed = "GATEWAY_API_GATEWAY_NOT_PROGRAMMED"
)

func init() {
	Catalog = append(Catalog,
		CatalogEntry{Code: PreflightRouteNotAccepted, Level: LevelError,
			Description: "An HTTPRoute, TLSRoute or TCPRoute names a Gateway of Istio's class in spec.parentRefs, but no listener of that Gateway accepts it (no listener with that sectionName or port, no listener hostname matching the route's hostnames, a namespace or route kind the listener does not allow). istiod reports Accepted=False in the route's status and the route does nothing at that gateway: HTTP requests get 404 NR there, and a TLS or TCP listener no other route serves is left out, so connections to it are refused (503 UF for HTTP calls at the client's sidecar; TLS and TCP clients see the connection closed)."},
		CatalogEntry{Code: PreflightMeshPortUndeclared, Level: LevelWarning,
			Description: "A route (HTTPRoute, TLSRoute, TCPRoute) names a ServiceEntry or Service in spec.parentRefs with a port that the parent does not declare. istiod accepts it and makes every rule match that port only, so calls on the ports the parent does declare are not routed by it (they leave through the parent's own cluster, bypassing an egress gateway the route sends to)."},
		CatalogEntry{Code: PreflightHostnameStatusHarmless, Level: LevelInfo,
			Description: "A route's backendRef of kind Hostname names a host that a ServiceEntry declares, but in another namespace than the route's. istiod looks a Hostname backend up in the route's own namespace only, so the route's status says ResolvedRefs=False (BackendNotFound); it keeps the destination all the same, and traffic reaches the host wherever the proxy sees the entry. The condition is not the fault: do not \"fix\" a working route because of it."},
		CatalogEntry{Code: PreflightGatewayNotProgrammed, Level: LevelWarning,
			Description: "istiod's status for a Gateway of Istio's class, written for the Gateway's current generation, says Programmed=False: the gateway's Service has no usable address or no ready pod serves it (for example AddressNotAssigned). istiod still generates the listeners and routes this tool predicts from the configuration, but no proxy may serve them: calls sent to the gateway fail whatever the routes say. The status is the live state: check the Service and pods istiod deploys for the Gateway."},
		CatalogEntry{Code: PreflightRouteStatusDiffers, Level: LevelWarning,
			Description: "The status istiod wrote for a route's parentRef (Accepted, or ResolvedRefs for its backends), for the route's current generation, or for a Gateway listener (attachedRoutes, and its Conflicted condition), for the Gateway's current generation, is not what kubectl-egress predicts from the same configuration. This covers Gateway parents and mesh parents (a Service or ServiceEntry: Accepted exactly when it exists), a status entry for a parent the route's spec.parentRefs does not list, and Accepted=True for a Gateway that does not exist: istiod writes status only for the spec's parentRefs and removes the rest. istiod's status is what it programmed: trust it, and check what the input lacks or holds differently from the cluster (a Namespace whose labels an allowedRoutes selector reads, the Gateway or parent itself, the route's spec). When the status agrees, the traced path says so in a note."},
	)
}

type routeAttachmentsKey struct{}

// routeAttachments lists every Gateway parentRef of every HTTPRoute, TLSRoute and TCPRoute of the
// snapshot with its
// predicted status, once per snapshot. Revisions are not told apart (a route labelled for
// another revision is judged against the same Gateways).
func routeAttachments(snap *snapshot.Snapshot) []rules.KubeRouteParentStatus {
	return snap.Derived(routeAttachmentsKey{}, func() any {
		in := rules.KubeRouteInputs{Gateways: snap.KubeGateways, Classes: snap.GatewayClasses, Namespaces: snap.Namespaces, Grants: snap.ReferenceGrants}
		return rules.KubeRouteParentStatuses(model.KubeRoutes(snap), in)
	}).([]rules.KubeRouteParentStatus)
}

// otherListenerTakes: route attachment a names a listener (sectionName) of a Gateway that refuses
// the route, and another listener of that Gateway would accept it with the route unchanged but
// for the sectionName (and its port, if it sets one): that listener's name.
//
// Mirrors istiod pilot/pkg/config/kube/gateway/conversion.go referenceAllowed through
// rules.KubeRouteParentStatuses, evaluated with the other sectionName.
func otherListenerTakes(snap *snapshot.Snapshot, a rules.KubeRouteParentStatus) (string, bool) {
	ref := a.Route.ParentRefs[a.Index]
	g := kubeGatewayOf(snap, a.Gateway)
	if ref.SectionName == nil || g == nil || len(g.Spec.Listeners) < 2 {
		return "", false
	}
	in := rules.KubeRouteInputs{Gateways: snap.KubeGateways, Classes: snap.GatewayClasses, Namespaces: snap.Namespaces, Grants: snap.ReferenceGrants}
	for _, l := range g.Spec.Listeners {
		if l.Name == *ref.SectionName {
			continue
		}
		r := a.Route
		r.ParentRefs = slices.Clone(r.ParentRefs)
		alt := r.ParentRefs[a.Index]
		name := l.Name
		alt.SectionName = &name
		if alt.Port != nil {
			port := l.Port
			alt.Port = &port
		}
		r.ParentRefs[a.Index] = alt
		for _, st := range rules.KubeRouteParentStatuses([]rules.KubeRoute{r}, in) {
			if st.Index == a.Index && st.Accepted {
				return string(l.Name), true
			}
		}
	}
	return "", false
}

// kubeGatewayOf returns the Gateway API Gateway "namespace/name" (nil when absent).
func kubeGatewayOf(snap *snapshot.Snapshot, ref string) *gatewayv1.Gateway {
	for _, g := range snap.KubeGateways {
		if g.Namespace+"/"+g.Name == ref {
			return g
		}
	}
	return nil
}

// passthroughBackend: the external host a route on TLS Passthrough listener l is for (the
// route's one exact hostname, else the listener's exact hostname) and the TLS port an entry
// declares for it; ok false when either is not known.
func passthroughBackend(snap *snapshot.Snapshot, r rules.KubeRoute, l gatewayv1.Listener) (string, uint32, bool) {
	host := ""
	if len(r.Hostnames) == 1 && !strings.Contains(string(r.Hostnames[0]), "*") {
		host = string(r.Hostnames[0])
	} else if len(r.Hostnames) == 0 && l.Hostname != nil && !strings.Contains(string(*l.Hostname), "*") {
		host = string(*l.Hostname)
	}
	if host == "" {
		return "", 0, false
	}
	for _, svc := range model.Services(snap, ReadIstiodFlags(snap, "").MeshConfig).Shared(strings.ToLower(host)) {
		for _, p := range svc.Ports {
			if rules.IsTLSProtocol(p.Protocol) {
				return host, p.Number, true
			}
		}
	}
	return "", 0, false
}

// meshHTTPRoutesTo: the HTTPRoutes and GRPCRoutes attached to a ServiceEntry or Service (the
// sidecars' routes) with a backendRef to the Service of Gateway g ("Kind namespace/name").
func meshHTTPRoutesTo(snap *snapshot.Snapshot, g *gatewayv1.Gateway) []string {
	if g == nil {
		return nil
	}
	svcs := rules.KubeGatewayServices(g)
	var out []string
	for _, r := range model.KubeRoutes(snap) {
		if r.Kind != "HTTPRoute" && r.Kind != "GRPCRoute" {
			continue
		}
		mesh := slices.ContainsFunc(r.ParentRefs, func(pr gatewayv1.ParentReference) bool {
			kind, _ := rules.KubeParentKind(pr, r.Namespace)
			return kind == rules.KubeParentServiceEntry || kind == rules.KubeParentService
		})
		toGateway := slices.ContainsFunc(r.BackendRefs, func(b gatewayv1.BackendRef) bool {
			if group, kind := rules.KubeBackendGroupKind(b); group != "" || kind != "Service" {
				return false
			}
			ns := r.Namespace
			if b.Namespace != nil {
				ns = string(*b.Namespace)
			}
			return slices.Contains(svcs, string(b.Name)+"."+ns+".svc.cluster.local")
		})
		if mesh && toGateway {
			out = append(out, r.Ref())
		}
	}
	return out
}

// parentListenersHTTP: every listener of g that parentRef ref can name (by sectionName or port,
// else all) has protocol HTTP or HTTPS.
func parentListenersHTTP(g *gatewayv1.Gateway, ref gatewayv1.ParentReference) bool {
	n := 0
	for _, l := range g.Spec.Listeners {
		if ref.SectionName != nil && string(*ref.SectionName) != string(l.Name) || ref.Port != nil && *ref.Port != l.Port {
			continue
		}
		if l.Protocol != gatewayv1.HTTPProtocolType && l.Protocol != gatewayv1.HTTPSProtocolType {
			return false
		}
		n++
	}
	return n > 0
}

// notAcceptedText is the message and fix for a parentRef no listener accepts.
func notAcceptedText(snap *snapshot.Snapshot, a rules.KubeRouteParentStatus) (msg, fix string) {
	ref := a.Route.ParentRefs[a.Index]
	route := a.Route.Ref()
	symptom := "requests for its hostnames get 404 NR there, or the gateway is never used"
	if a.Route.Kind != "HTTPRoute" && a.Route.Kind != "GRPCRoute" {
		symptom = "a listener no other route serves gets no filter chain, so istiod leaves it out and connections to it are refused (503 UF for HTTP calls at the client's sidecar; TLS and TCP clients see the connection closed), or the gateway is never used"
		if g := kubeGatewayOf(snap, a.Gateway); g != nil && parentListenersHTTP(g, ref) {
			// an HTTP listener keeps its HTTP connection manager whatever routes attach
			// (gateway.go buildGatewayListeners: one chain per HTTP server, routes by RDS):
			// the route's TLS or TCP clients meet it (blind audit 73 g07)
			symptom = "the listeners it targets speak HTTP and keep their HTTP connection manager, which cannot read TLS or TCP bytes: those connections are closed (the client sees a TLS handshake error or a reset, no HTTP status), or the gateway is never used"
		}
	}
	msg = fmt.Sprintf("%s does not attach to Gateway %s (spec.parentRefs[%d]): %s (%s). Its rules never reach that gateway: %s.",
		route, a.Gateway, a.Index, attachMessage(a), a.Reason, symptom)
	var names, ports []string
	listenerOf := map[string]gatewayv1.Listener{}
	g := kubeGatewayOf(snap, a.Gateway)
	if g != nil {
		for _, l := range g.Spec.Listeners {
			names = append(names, string(l.Name))
			if p := fmt.Sprint(l.Port); !slices.Contains(ports, p) {
				ports = append(ports, p)
			}
			listenerOf[string(l.Name)] = l
		}
	}
	var skipped *rules.SkippedKubeListener
	if g != nil && ref.SectionName != nil && a.Reason == rules.KubeRouteNoMatchingParent {
		for _, sk := range rules.KubeGatewaySkippedListeners(g, snap.Namespaces, snap.ReferenceGrants, snap.SecretKnownMissing) {
			if string(sk.Listener.Name) == string(*ref.SectionName) {
				skipped = &sk
			}
		}
	}
	if l, ok := otherListenerTakes(snap, a); ok && skipped == nil {
		// the route names a listener that refuses it, and another listener of the Gateway
		// accepts it as it is: the sectionName is the slip (blind audit 104 c37, c59, where
		// the fix widened the refusing listener)
		return msg, fmt.Sprintf("In %s, set spec.parentRefs[%d].sectionName to %s: that listener of Gateway %s takes the route as it is (its protocol, hostname and allowedRoutes admit it).", route, a.Index, l, a.Gateway)
	}
	switch {
	case skipped != nil:
		// the listener named exists, but istiod makes no server of it, so it is no parent
		// (blind audit 43 F04, where the fix proposed the very listener that is missing)
		why, lfix := skippedKubeListenerText(g, *skipped)
		msg += " " + upperFirst(why) + "."
		fix = lfix
	case a.Reason == rules.KubeRouteNoMatchingParent && ref.SectionName == nil && ref.Port != nil:
		// the port alone is wrong
		fix = fmt.Sprintf("In %s, set spec.parentRefs[%d].port to a listener port of Gateway %s (%s), or remove it to attach to every listener that allows the route.",
			route, a.Index, a.Gateway, strings.Join(ports, ", "))
	case a.Reason == rules.KubeRouteNoMatchingParent && ref.Port == nil:
		fix = fmt.Sprintf("In %s, set spec.parentRefs[%d].sectionName to a listener of Gateway %s (%s), or remove it to attach to every listener that allows the route.",
			route, a.Index, a.Gateway, strings.Join(names, ", "))
	case a.Reason == rules.KubeRouteNoMatchingParent:
		fix = fmt.Sprintf("In %s, set spec.parentRefs[%d].sectionName to a listener of Gateway %s (%s) and its port to that listener's port (%s), or remove them to attach to every listener that allows the route.",
			route, a.Index, a.Gateway, strings.Join(names, ", "), strings.Join(ports, ", "))
	case a.Reason == rules.KubeRouteNoMatchingListenerHostname:
		fix = fmt.Sprintf("Make %s's spec.hostnames include a name the listener's hostname matches, or change the hostname of the listener of Gateway %s it is meant for.", route, a.Gateway)
		if l, ok := listenerMeantFor(snap, a); ok && len(a.Route.Hostnames) > 0 && hostnamesDeclared(snap, a.Route.Hostnames) {
			// every name of the route is a host the mesh declares: the route is written for
			// them, and the listener's hostname is what leaves them out (the why-missing
			// --gateway verdict of blind audit 53 t-f3d, for preflight)
			var hs []string
			for _, h := range a.Route.Hostnames {
				hs = append(hs, string(h))
			}
			fix = kubeListenerHostFix(route, l, strings.Join(hs, ", "), uint32(kubeListenerPort(snap, l)))
		}
	case strings.Contains(a.Message, "is not allowed by the parent"):
		l := "the listener"
		// Whether the listeners the route may mean admit namespaces by selector: then moving
		// the route to the Gateway's namespace does not help unless that namespace matches.
		selector := len(listenerOf) > 0
		for name, x := range listenerOf {
			if ref.SectionName != nil && string(*ref.SectionName) != name {
				continue
			}
			if x.AllowedRoutes == nil || x.AllowedRoutes.Namespaces == nil || x.AllowedRoutes.Namespaces.From == nil || *x.AllowedRoutes.Namespaces.From != gatewayv1.NamespacesFromSelector {
				selector = false
			}
		}
		if ref.SectionName != nil {
			l = fmt.Sprintf("listener %s", *ref.SectionName)
		}
		if selector {
			if _, _, detail, ok := selectorRefusal(snap, a); ok {
				msg += " " + upperFirst(detail) + "."
			}
			fix = fmt.Sprintf("%s of Gateway %s admits namespaces by label (allowedRoutes.namespaces.from: Selector): give namespace %s labels its selector matches, or widen the selector (or from: All).",
				upperFirst(l), a.Gateway, a.Route.Namespace)
		} else {
			fix = fmt.Sprintf("On %s of Gateway %s, let routes from namespace %s attach (spec.listeners[].allowedRoutes.namespaces.from: All, or Selector with labels namespace %s carries), or move %s to namespace %s.",
				l, a.Gateway, a.Route.Namespace, a.Route.Namespace, route, strings.SplitN(a.Gateway, "/", 2)[0])
		}
	default:
		takes := map[string]string{"HTTPRoute": "HTTP or HTTPS", "GRPCRoute": "HTTP or HTTPS", "TLSRoute": "TLS, with tls.mode Passthrough or Terminate", "TCPRoute": "TCP, or TLS with tls.mode Terminate"}[a.Route.Kind]
		fix = fmt.Sprintf("Attach %s to a listener whose protocol takes %ss (%s) and whose allowedRoutes.kinds, if set, list %s.", route, a.Route.Kind, takes, a.Route.Kind)
		// A listener the route means whose protocol takes the kind but whose allowedRoutes.kinds
		// leaves it out: that list is what to change.
		var narrowed []string
		for _, name := range names {
			l := listenerOf[name]
			if ref.SectionName != nil && string(*ref.SectionName) != name {
				continue
			}
			if l.AllowedRoutes == nil || len(l.AllowedRoutes.Kinds) == 0 || !kindTakes(l, a.Route.Kind) {
				continue
			}
			narrowed = append(narrowed, name)
		}
		if a.Route.Kind == "TCPRoute" {
			// A TCPRoute meant for a TLS Passthrough listener: the route kind is the slip. A
			// TLSRoute routes by SNI and keeps the client's TLS end to end; Terminate would end
			// it at the gateway (blind audit 32 #08).
			for _, name := range names {
				l := listenerOf[name]
				if ref.SectionName != nil && string(*ref.SectionName) != name {
					continue
				}
				if l.Protocol == gatewayv1.TLSProtocolType && (l.TLS == nil || l.TLS.Mode == nil || *l.TLS.Mode == gatewayv1.TLSModePassthrough) {
					fix = fmt.Sprintf("Listener %s of Gateway %s passes TLS through (protocol TLS, mode Passthrough), which takes TLSRoutes only. If the clients speak TLS with SNI, replace %s with a TLSRoute on the same parentRef, with hostnames [the names they send as SNI] and the same backendRefs; otherwise attach %s to a listener of protocol TCP. (tls.mode Terminate would end the clients' TLS at the gateway.)", name, a.Gateway, route, route)
					return msg, fix
				}
			}
		}
		if a.Route.Kind == "TLSRoute" {
			// A TLSRoute meant for a TCP listener, which takes TCPRoutes only (gatewaycommon
			// GenerateGatewaySupportedKinds): the route kind is the slip. Turning the listener
			// into a TLS one instead fails the clients that send no TLS (blind audit 68 G1).
			for _, name := range names {
				l := listenerOf[name]
				if ref.SectionName != nil && string(*ref.SectionName) != name {
					continue
				}
				if l.Protocol == gatewayv1.TCPProtocolType {
					fix = fmt.Sprintf("Listener %s of Gateway %s is of protocol TCP, which takes TCPRoutes only: replace %s with a TCPRoute on the same parentRef with the same backendRefs (it forwards the connection as it comes, TLS or not). Make the listener protocol TLS, mode Passthrough, instead only if every client sends TLS with an SNI the route's hostnames match.", name, a.Gateway, route)
					return msg, fix
				}
			}
		}
		if a.Route.Kind == "HTTPRoute" || a.Route.Kind == "GRPCRoute" {
			// An HTTPRoute meant for a TLS Passthrough listener: the clients' TLS is not
			// terminated there, so no http rule can read it; a TLSRoute routes it by SNI (the
			// classic twin: a tls block with sniHosts; blind audit 35 T08).
			for _, name := range names {
				l := listenerOf[name]
				if ref.SectionName != nil && string(*ref.SectionName) != name {
					continue
				}
				if l.Protocol == gatewayv1.TLSProtocolType && (l.TLS == nil || l.TLS.Mode == nil || *l.TLS.Mode == gatewayv1.TLSModePassthrough) {
					names, backend := "the names the clients send as SNI", "<the external host>, port: <its TLS port>"
					if h, p, ok := passthroughBackend(snap, a.Route, l); ok {
						// (the host the route or the listener names, and the TLS port its
						// entry declares: blind audit 63 b6-01, where these were placeholders)
						names, backend = h, fmt.Sprintf("%s, port: %d", h, p)
					}
					fix = fmt.Sprintf("Listener %s of Gateway %s passes TLS through (protocol TLS, mode Passthrough), which takes TLSRoutes only: the gateway never reads the clients' HTTP inside their TLS. Replace %s with a TLSRoute on the same parentRef, with hostnames [%s] and backendRefs [{group: networking.istio.io, kind: Hostname, name: %s}]; or, to route HTTP at the gateway, have the clients send plain HTTP to an HTTP listener and originate TLS there.", name, a.Gateway, route, names, backend)
					if mesh := meshHTTPRoutesTo(snap, g); len(mesh) > 0 {
						// the sidecars' hop of the same setup is an HTTPRoute too: on a TLS
						// port the sidecar ignores it, so the gateway-side fix alone sends
						// the call straight out (blind audit 61 case 08)
						fix += fmt.Sprintf(" Replace %s, which sends the sidecars' calls to this Gateway, with a TLSRoute on the same parentRef and backendRef as well: the clients' TLS reaches the sidecar on a TLS port, where only TLSRoutes apply, so without it the call leaves directly and bypasses the gateway.", strings.Join(mesh, " and "))
					}
					return msg, fix
				}
			}
		}
		if len(narrowed) > 0 {
			fix = fmt.Sprintf("Add {kind: %s} to spec.listeners[].allowedRoutes.kinds of listener %s of Gateway %s (its protocol takes %ss; its kinds list leaves them out), or attach %s to another listener.",
				a.Route.Kind, strings.Join(narrowed, ", "), a.Gateway, a.Route.Kind, route)
		}
	}
	return msg, fix
}

// routeAttachFindings: GATEWAY_API_ROUTE_NOT_ACCEPTED for every Gateway parentRef no listener
// accepts, and GATEWAY_API_STATUS_DISAGREES where istiod's status for the same generation says
// otherwise (preflight). Parents that are not Gateways of Istio's class are left alone: another
// controller may own them.
func routeAttachFindings(snap *snapshot.Snapshot) []PreflightFinding {
	var out []PreflightFinding
	for _, a := range routeAttachments(snap) {
		if !a.Found || crdIgnoredKind(snap, a.Route.Kind) {
			continue // not istiod's parent, or a route istiod ignores (GATEWAY_API_CRD_TOO_OLD)
		}
		res := ResourceRef{Kind: a.Route.Kind, Namespace: a.Route.Namespace, Name: a.Route.Name}
		field := fmt.Sprintf("spec.parentRefs[%d]", a.Index)
		if !a.Accepted {
			msg, fix := notAcceptedText(snap, a)
			out = append(out, NewPreflightFinding(PreflightRouteNotAccepted, CheckPreflight, res, field, msg, fix))
		}
		if accepted, cond, ok := statusAccepted(a.Route, a.Index); ok && accepted != a.Accepted {
			predicted := "Accepted=True"
			if !a.Accepted {
				predicted = fmt.Sprintf("Accepted=False (%s: %s)", a.Reason, attachMessage(a))
			}
			consequence := "in the cluster the route attaches to that Gateway, so a failure traced here for its hostnames comes from how this input differs from what istiod saw"
			if !accepted {
				consequence = "in the cluster the route does not attach to that Gateway (requests for its hostnames get 404 NR there), though this input says it would"
			}
			out = append(out, NewPreflightFinding(PreflightRouteStatusDiffers, CheckPreflight, res, "status.parents",
				fmt.Sprintf("For spec.parentRefs[%d] (Gateway %s) istiod's status says %s, but from the same configuration kubectl-egress predicts %s. istiod's status is what it programmed: %s.", a.Index, a.Gateway, cond, predicted, consequence),
				"Trust the status for what the gateway does, and check what this input may lack or hold differently from the cluster: the Gateway, its GatewayClass, the Namespaces whose labels an allowedRoutes selector reads."))
		}
	}
	return append(out, routeStatusUnownedFindings(snap)...)
}

// routeStatusUnownedFindings: GATEWAY_API_STATUS_DISAGREES where a route's status holds an
// Accepted condition istiod wrote for the route's current generation that this configuration
// does not explain (issue #17; blind audit 67 ST2, ST2c, ST10):
//   - for a mesh parentRef (a Service or a ServiceEntry), Accepted differs from the prediction
//     (accepted exactly when the parent exists);
//   - for a Gateway parentRef istiod finds no parent for (no such Gateway of Istio's class):
//     istiod writes no status for it, and removes what it wrote before;
//   - for a parent spec.parentRefs does not list: istiod writes status only for the spec's
//     parentRefs (under their spelling, section and port included) and removes the others.
//
// Mirrors istiod conditions.go createRouteStatus (ParentRef is the spec's OriginalReference;
// its own entries no result names are deleted) and conversion.go referenceAllowed.
func routeStatusUnownedFindings(snap *snapshot.Snapshot) []PreflightFinding {
	var out []PreflightFinding
	var routes []rules.KubeRoute
	for _, r := range model.KubeRoutes(snap) {
		if len(r.StatusParents) > 0 && !crdIgnoredKind(snap, r.Kind) {
			routes = append(routes, r)
		}
	}
	if len(routes) == 0 {
		return nil
	}
	ref := func(r rules.KubeRoute) ResourceRef {
		return ResourceRef{Kind: r.Kind, Namespace: r.Namespace, Name: r.Name}
	}
	in := rules.KubeRouteInputs{Gateways: snap.KubeGateways, Classes: snap.GatewayClasses, Namespaces: snap.Namespaces, Services: snap.Services, ServiceEntries: snap.ServiceEntries}
	for _, a := range rules.KubeMeshParentStatuses(routes, in) {
		accepted, cond, ok := statusAccepted(a.Route, a.Index)
		if !ok || !a.Found || accepted == a.Accepted {
			continue
		}
		predicted := fmt.Sprintf("Accepted=True (%s %s exists)", a.ParentKind, a.Gateway)
		if !a.Accepted {
			predicted = fmt.Sprintf("Accepted=False (%s: %s)", a.Reason, a.Message)
		}
		consequence := "in the cluster the parent exists and the sidecars get this route for its hosts"
		if !accepted {
			consequence = "in the cluster the sidecars do not get this route, so calls for the parent's hosts go where they would without it, not to the backends it names (such as an egress gateway)"
		}
		out = append(out, NewPreflightFinding(PreflightRouteStatusDiffers, CheckPreflight, ref(a.Route), "status.parents",
			fmt.Sprintf("For spec.parentRefs[%d] (%s %s) istiod's status says %s, but from the same configuration kubectl-egress predicts %s. istiod's status is what it programmed: %s.", a.Index, a.ParentKind, a.Gateway, cond, predicted, consequence),
			fmt.Sprintf("Trust the status for what the sidecars do, and check what this input may lack or hold differently from the cluster: the %s %s the parentRef names (its name and namespace).", a.ParentKind, a.Gateway)))
	}
	unfound := map[string]bool{} // "Kind namespace/name#index": a Gateway parentRef istiod finds no parent for
	for _, a := range routeAttachments(snap) {
		if !a.Found {
			unfound[fmt.Sprintf("%s#%d", a.Route.Ref(), a.Index)] = true
		}
	}
	for _, r := range routes {
		for i := range r.ParentRefs {
			if !unfound[fmt.Sprintf("%s#%d", r.Ref(), i)] {
				continue
			}
			if _, cond, ok := statusAccepted(r, i); ok {
				out = append(out, NewPreflightFinding(PreflightRouteStatusDiffers, CheckPreflight, ref(r), "status.parents",
					fmt.Sprintf("For spec.parentRefs[%d] (%s) istiod's status says %s, but in this configuration there is no such Gateway of Istio's class with a listener istiod programs: istiod would attach the route to nothing and keep no status for that parentRef. The status was written for a configuration other than this input.", i, kubeParentText(r.ParentRefs[i], r.Namespace), cond),
					"Trust the status for what the gateway does, and check what this input may lack or hold differently from the cluster: the Gateway the parentRef names (its name and namespace) and its GatewayClass."))
			}
		}
		for _, p := range r.StatusParents {
			if !strings.HasPrefix(string(p.ControllerName), "istio.io/") || !statusCurrent(p.Conditions, r.Generation) {
				continue
			}
			if slices.ContainsFunc(r.ParentRefs, func(spec gatewayv1.ParentReference) bool { return sameParentRef(p.ParentRef, spec, r.Namespace) }) {
				continue
			}
			out = append(out, NewPreflightFinding(PreflightRouteStatusDiffers, CheckPreflight, ref(r), "status.parents",
				fmt.Sprintf("istiod's status holds an entry for parent %s, which spec.parentRefs does not list as written%s: istiod writes status only for the spec's parentRefs and removes the others, so this status was written for another version of the route than this input holds, and says nothing about the parentRefs listed.", kubeParentText(p.ParentRef, r.Namespace), parentRefDifference(p.ParentRef, r.ParentRefs, r.Namespace)),
				fmt.Sprintf("Compare this input with %s in the cluster (kubectl get %s -n %s %s -o yaml): trust the cluster's spec and status together, or apply this input and read the status istiod writes for it.", r.Ref(), strings.ToLower(r.Kind), r.Namespace, r.Name)))
		}
	}
	return out
}

// statusCurrent: some condition was observed at generation gen or later.
func statusCurrent(conds []metav1.Condition, gen int64) bool {
	return slices.ContainsFunc(conds, func(c metav1.Condition) bool { return c.ObservedGeneration >= gen })
}

// resolvedRefsFindings: GATEWAY_API_STATUS_DISAGREES for every route whose ResolvedRefs
// condition, written by istiod for a parentRef and the route's current generation, says True
// where a backendRef is predicted refused or not found, or False with reason BackendNotFound,
// RefNotPermitted or InvalidKind where every backendRef is predicted resolved (issue #17; blind
// audit 65 ST6). Other reasons are left alone (not modelled).
//
// Mirrors istiod conditions.go createRouteStatus (ResolvedRefs from the conversion's route
// error) and conversion.go buildDestination: a grant for a cross-namespace Service backend of
// a route attached to a Gateway, the kind, and the lookup of the Service (by name and
// namespace) or of a Hostname (in the route's namespace: ServiceIndex.HostnameAndNamespace).
func resolvedRefsFindings(snap *snapshot.Snapshot) []PreflightFinding {
	var out []PreflightFinding
	var services map[string]bool // "namespace/name", built on first use
	for _, r := range model.KubeRoutes(snap) {
		if len(r.StatusParents) == 0 || crdIgnoredKind(snap, r.Kind) {
			continue
		}
		for _, p := range r.StatusParents {
			if !strings.HasPrefix(string(p.ControllerName), "istio.io/") {
				continue
			}
			var cond *metav1.Condition
			for i := range p.Conditions {
				if c := &p.Conditions[i]; c.Type == string(gatewayv1.RouteConditionResolvedRefs) && c.ObservedGeneration >= r.Generation {
					cond = c
				}
			}
			if cond == nil {
				continue
			}
			if services == nil {
				services = map[string]bool{}
				for _, svc := range snap.Services {
					services[svc.Namespace+"/"+svc.Name] = true
				}
			}
			kind, _ := rules.KubeParentKind(p.ParentRef, r.Namespace)
			unresolved := unresolvedBackend(snap, services, r, kind == rules.KubeParentGateway)
			var predicted string
			switch {
			case cond.Status == metav1.ConditionTrue && unresolved != "":
				predicted = "ResolvedRefs=False: " + unresolved
			case cond.Status == metav1.ConditionFalse && unresolved == "" && (cond.Reason == string(gatewayv1.RouteReasonBackendNotFound) || cond.Reason == string(gatewayv1.RouteReasonRefNotPermitted) || cond.Reason == string(gatewayv1.RouteReasonInvalidKind)):
				predicted = "ResolvedRefs=True (every backendRef of a weight other than 0 resolves; istiod skips those of weight 0)"
			default:
				continue
			}
			out = append(out, NewPreflightFinding(PreflightRouteStatusDiffers, CheckPreflight, ResourceRef{Kind: r.Kind, Namespace: r.Namespace, Name: r.Name}, "status.parents",
				fmt.Sprintf("For parent %s istiod's status says ResolvedRefs=%s (%s: %s), but from the same configuration kubectl-egress predicts %s. istiod's status is what it programmed.", kubeParentText(p.ParentRef, r.Namespace), cond.Status, cond.Reason, cond.Message, predicted),
				"Trust the status for what the route does, and check what this input may lack or hold differently from the cluster: the backend Services and ServiceEntries, the ReferenceGrants in the backends' namespaces."))
			break // (the same backends for every parent: once per route)
		}
	}
	return out
}

// unresolvedBackend: the first backendRef of route r of a weight other than 0 istiod refuses or
// does not find, as text ("" when every one resolves). services holds the Services' "namespace/name"; enforceGrants:
// the parent is a Gateway.
func unresolvedBackend(snap *snapshot.Snapshot, services map[string]bool, r rules.KubeRoute, enforceGrants bool) string {
	for _, b := range r.BackendRefs {
		if b.Weight != nil && *b.Weight == 0 {
			// istiod skips a backendRef of weight 0 before resolving it (conversion.go
			// buildHTTPDestination, buildTCPDestination): it never makes ResolvedRefs False
			// (found by the status conformance test)
			continue
		}
		ns := r.Namespace
		if b.Namespace != nil && *b.Namespace != "" {
			ns = string(*b.Namespace)
		}
		if why := rules.KubeBackendRefusal(b, r.Namespace, r.Kind, snap.ReferenceGrants, enforceGrants); why != "" {
			return fmt.Sprintf("backendRef %s is refused (%s)", b.Name, why)
		}
		group, kind := rules.KubeBackendGroupKind(b)
		switch {
		case group == "" && kind == "Service":
			if !services[ns+"/"+string(b.Name)] {
				return fmt.Sprintf("backendRef Service %s/%s does not exist (BackendNotFound)", ns, b.Name)
			}
		case group == "networking.istio.io" && kind == "Hostname":
			host := rules.NormalizeHost(string(b.Name))
			if !slices.ContainsFunc(model.ServiceEntriesByHost(snap)[host], func(se *networkingv1.ServiceEntry) bool { return se.Namespace == r.Namespace }) {
				return fmt.Sprintf("no ServiceEntry in namespace %s declares Hostname %s (BackendNotFound)", r.Namespace, host)
			}
		}
	}
	return ""
}

// kubeParentText names a parentRef ("Gateway ns/name", "ServiceEntry ns/name", with its section
// and port).
func kubeParentText(ref gatewayv1.ParentReference, routeNs string) string {
	_, kind, ns := rules.KubeParentRefDefaults(ref, routeNs)
	out := kind + " " + ns + "/" + string(ref.Name)
	if ref.SectionName != nil && *ref.SectionName != "" {
		out += " (" + string(*ref.SectionName) + ")"
	}
	if ref.Port != nil {
		out += fmt.Sprintf(" port %d", *ref.Port)
	}
	return out
}

// parentRefDifference says how status parentRef st differs from the spec parentRef of the same
// name closest to it (" (spec.parentRefs[1] names it with port 5432, the entry with 6432)"), or
// "" when the spec names no parent of that name (blind audit 71 C04, C21: the message named a
// parent the spec lists, without the field that differs).
func parentRefDifference(st gatewayv1.ParentReference, spec []gatewayv1.ParentReference, routeNs string) string {
	field := func(r gatewayv1.ParentReference) map[string]string {
		g, k, ns := rules.KubeParentRefDefaults(r, routeNs)
		m := map[string]string{"group": fmt.Sprintf("%q", g), "kind": k, "namespace": ns, "sectionName": "none", "port": "none"}
		if r.SectionName != nil && *r.SectionName != "" {
			m["sectionName"] = string(*r.SectionName)
		}
		if r.Port != nil {
			m["port"] = fmt.Sprint(*r.Port)
		}
		return m
	}
	want := field(st)
	best, bestIdx := []string(nil), -1
	for i, r := range spec {
		if r.Name != st.Name {
			continue
		}
		got := field(r)
		var diffs []string
		for _, k := range []string{"group", "kind", "namespace", "sectionName", "port"} {
			if got[k] != want[k] {
				diffs = append(diffs, fmt.Sprintf("%s %s where the entry has %s", k, got[k], want[k]))
			}
		}
		if bestIdx < 0 || len(diffs) < len(best) {
			best, bestIdx = diffs, i
		}
	}
	if bestIdx < 0 || len(best) == 0 {
		return ""
	}
	return fmt.Sprintf(" (spec.parentRefs[%d] names %s with %s)", bestIdx, st.Name, strings.Join(best, ", "))
}

// attachedRoutesFindings: GATEWAY_API_STATUS_DISAGREES for every listener of a Gateway of
// Istio's class whose status.listeners[].attachedRoutes, written for the Gateway's current
// generation, is not the number of routes predicted to attach to it (preflight; issue #17: the
// status next to the prediction, and which to trust). Routes istiod ignores for their CRD are
// not counted.
//
// Mirrors istiod gateway_collection.go FinalGatewayStatusCollection and route_collections.go
// gatewayRouteAttachmentCountCollection (rules.KubeListenerAttachedRoutes).
func attachedRoutesFindings(snap *snapshot.Snapshot) []PreflightFinding {
	var out []PreflightFinding
	var attached map[string]map[string][]string
	for _, g := range snap.KubeGateways {
		if g == nil || len(g.Status.Listeners) == 0 || !rules.KubeGatewayIstioClass(string(g.Spec.GatewayClassName), snap.GatewayClasses) || !gatewayStatusCurrent(g) {
			continue
		}
		if attached == nil {
			var routes []rules.KubeRoute
			for _, r := range model.KubeRoutes(snap) {
				if !crdIgnoredKind(snap, r.Kind) {
					routes = append(routes, r)
				}
			}
			attached = rules.KubeListenerAttachedRoutes(routes, rules.KubeRouteInputs{Gateways: snap.KubeGateways, Classes: snap.GatewayClasses, Namespaces: snap.Namespaces, Grants: snap.ReferenceGrants})
		}
		ref := g.Namespace + "/" + g.Name
		conds := rules.KubeListenerConditions(g, snap.Namespaces, snap.ReferenceGrants, snap.SecretKnownMissing)
		for _, l := range g.Status.Listeners {
			want := attached[ref][string(l.Name)]
			which := "none"
			if len(want) > 0 {
				which = strings.Join(want, ", ")
			}
			out = append(out, listenerConflictStatus(g, l)...)
			if c, ok := conds[string(l.Name)]; ok {
				out = append(out, listenerConditionStatus(g, l, "ResolvedRefs", c.ResolvedRefs)...)
				out = append(out, listenerConditionStatus(g, l, "Programmed", c.Programmed)...)
			}
			if int(l.AttachedRoutes) == len(want) {
				continue
			}
			out = append(out, NewPreflightFinding(PreflightRouteStatusDiffers, CheckPreflight, ResourceRef{Kind: "Gateway", Namespace: g.Namespace, Name: g.Name}, "status.listeners["+string(l.Name)+"].attachedRoutes",
				fmt.Sprintf("For listener %s of Gateway %s istiod's status says attachedRoutes %d, but from the same configuration kubectl-egress predicts %d (%s). istiod's status is what it programmed.", l.Name, ref, l.AttachedRoutes, len(want), which),
				"Trust the status for what the gateway does, and check what this input may lack or hold differently from the cluster: the routes and their parentRefs, the Namespaces whose labels an allowedRoutes selector reads, the route kinds' CRDs."))
		}
	}
	return out
}

// listenerConflictStatus: GATEWAY_API_STATUS_DISAGREES when the Conflicted condition istiod wrote
// for listener l of Gateway g (its current generation) is not what kubectl-egress predicts: a
// conflict with an earlier listener (same port, protocols that cannot share it, or one hostname
// twice), for which istiod generates nothing, or none.
//
// Mirrors istiod pilot/pkg/config/kube/gatewaycommon/listener_conflict.go
// ComputeGatewayListenerConflicts (rules.KubeListenerConflicts) and the Conflicted condition it
// sets (ProtocolConflict, HostnameConflict; NoConflicts).
func listenerConflictStatus(g *gatewayv1.Gateway, l gatewayv1.ListenerStatus) []PreflightFinding {
	var status *metav1.Condition
	for i, c := range l.Conditions {
		if c.Type == string(gatewayv1.ListenerConditionConflicted) && c.ObservedGeneration >= g.Generation {
			status = &l.Conditions[i]
		}
	}
	if status == nil {
		return nil
	}
	prior, predicted := rules.KubeListenerConflicts(g)[string(l.Name)]
	if (status.Status == metav1.ConditionTrue) == predicted {
		return nil
	}
	ref := g.Namespace + "/" + g.Name
	said := fmt.Sprintf("Conflicted=%s (%s)", status.Status, status.Reason)
	var msg string
	if predicted {
		msg = fmt.Sprintf("For listener %s of Gateway %s istiod's status says %s, but from the same configuration kubectl-egress predicts a conflict with the earlier listener %s (same port), for which istiod generates nothing. istiod's status is what it programmed.", l.Name, ref, said, prior)
	} else {
		msg = fmt.Sprintf("For listener %s of Gateway %s istiod's status says %s, but from the same configuration kubectl-egress predicts no conflict with another listener of the Gateway. istiod's status is what it programmed.", l.Name, ref, said)
	}
	return []PreflightFinding{NewPreflightFinding(PreflightRouteStatusDiffers, CheckPreflight, ResourceRef{Kind: "Gateway", Namespace: g.Namespace, Name: g.Name}, "status.listeners["+string(l.Name)+"].conditions[Conflicted]", msg,
		"Trust the status for what the gateway does, and check whether the input holds the Gateway as the cluster does (its listeners' ports, protocols and hostnames, in order).")}
}

// listenerConditionStatus: GATEWAY_API_STATUS_DISAGREES when condition typ (ResolvedRefs or
// Programmed) istiod wrote for listener l of Gateway g (its current generation) is not what
// kubectl-egress predicts (rules.KubeListenerConditions): refused certificateRefs (a Secret
// missing, or in another namespace without a ReferenceGrant), route kinds the listener cannot
// carry, a conflict or a protocol Istio does not serve.
func listenerConditionStatus(g *gatewayv1.Gateway, l gatewayv1.ListenerStatus, typ string, predicted bool) []PreflightFinding {
	var status *metav1.Condition
	for i, c := range l.Conditions {
		if c.Type == typ && c.ObservedGeneration >= g.Generation {
			status = &l.Conditions[i]
		}
	}
	if status == nil || (status.Status == metav1.ConditionTrue) == predicted {
		return nil
	}
	ref := g.Namespace + "/" + g.Name
	want := "True"
	if !predicted {
		want = "False"
	}
	msg := fmt.Sprintf("For listener %s of Gateway %s istiod's status says %s=%s (%s), but from the same configuration kubectl-egress predicts %s=%s. istiod's status is what it programmed.", l.Name, ref, typ, status.Status, status.Reason, typ, want)
	return []PreflightFinding{NewPreflightFinding(PreflightRouteStatusDiffers, CheckPreflight, ResourceRef{Kind: "Gateway", Namespace: g.Namespace, Name: g.Name}, "status.listeners["+string(l.Name)+"].conditions["+typ+"]", msg,
		"Trust the status for what the gateway does, and check whether the input holds what the listener refers to as the cluster does: the Secrets its tls.certificateRefs name (Secrets are read by name only), ReferenceGrants in their namespaces, its allowedRoutes.kinds and protocol.")}
}

// gatewayStatusCurrent: Gateway g's status was written for its current generation (a condition
// observed at it).
func gatewayStatusCurrent(g *gatewayv1.Gateway) bool {
	for _, c := range g.Status.Conditions {
		if c.ObservedGeneration >= g.Generation {
			return true
		}
	}
	return false
}

// routeStatusWarnings: the GATEWAY_API_STATUS_DISAGREES findings of the routes that name host
// (in spec.hostnames, or as a Hostname backendRef), as warnings for a verdict about host: the
// status istiod wrote beside the prediction (issue #17; blind audit 65 ST3, where why-missing
// said OK without the condition preflight reported).
func routeStatusWarnings(snap *snapshot.Snapshot, host string) []Finding {
	if len(snap.HTTPRoutes)+len(snap.GRPCRoutes)+len(snap.TLSRoutes)+len(snap.TCPRoutes) == 0 {
		return nil
	}
	// the disagreements are worked out once per snapshot (few, mostly none); each verdict
	// then filters them by host
	differs := snap.Derived(routeStatusDiffersKey{}, func() any {
		var fs []PreflightFinding
		for _, f := range routeAttachFindings(snap) {
			if f.Code == PreflightRouteStatusDiffers {
				fs = append(fs, f)
			}
		}
		// ... and the ResolvedRefs ones (blind audit 67 ST6: why-missing stated the predicted
		// condition next to a stored one that says otherwise), and the Gateway listeners'
		// attachedRoutes (blind audit 71 C20)
		fs = append(fs, resolvedRefsFindings(snap)...)
		return append(fs, attachedRoutesFindings(snap)...)
	}).([]PreflightFinding)
	var out []Finding
	var naming []rules.KubeRoute // the routes that name host, on first use
	for _, f := range differs {
		if f.Resource.Kind == "Gateway" {
			// a Gateway's listener count: about host when a route naming host has it as parent
			if naming == nil {
				naming = []rules.KubeRoute{}
				for _, r := range model.KubeRoutes(snap) {
					if kubeRouteNames(r, host) {
						naming = append(naming, r)
					}
				}
			}
			if !slices.ContainsFunc(naming, func(r rules.KubeRoute) bool {
				return slices.ContainsFunc(r.ParentRefs, func(ref gatewayv1.ParentReference) bool {
					kind, ns := rules.KubeParentKind(ref, r.Namespace)
					return kind == rules.KubeParentGateway && ns == f.Resource.Namespace && string(ref.Name) == f.Resource.Name
				})
			}) {
				continue
			}
		} else if r, ok := model.KubeRoute(snap, f.Resource.Kind, f.Resource.Namespace, f.Resource.Name); !ok || !(kubeRouteNames(r, host) || kubeRouteParentDeclares(snap, r, host)) {
			continue
		}
		out = append(out, Finding{Code: f.Code, Level: LevelWarning, Resource: f.Resource.String(), Message: f.Message, Fix: f.Fix})
	}
	return out
}

type routeStatusDiffersKey struct{}

// routeStatusAgreeNotes: for every route that names host (as routeStatusWarnings reads it) and
// holds status istiod wrote for its current generation, with no GATEWAY_API_STATUS_DISAGREES
// among warnings, one note that the status was compared and agrees, with the conditions
// compared (issue #17; blind audit 67 ST1: agreement was never stated, so "checked and agrees"
// read like "not checked").
func routeStatusAgreeNotes(snap *snapshot.Snapshot, host string, warnings []Finding) []string {
	withStatus := snap.Derived(routesWithStatusKey{}, func() any {
		var out []rules.KubeRoute
		for _, r := range model.KubeRoutes(snap) {
			if slices.ContainsFunc(r.StatusParents, func(p gatewayv1.RouteParentStatus) bool {
				return strings.HasPrefix(string(p.ControllerName), "istio.io/") && statusCurrent(p.Conditions, r.Generation)
			}) && !crdIgnoredKind(snap, r.Kind) {
				out = append(out, r)
			}
		}
		return out
	}).([]rules.KubeRoute)
	var out []string
	for _, r := range withStatus {
		if !(kubeRouteNames(r, host) || kubeRouteParentDeclares(snap, r, host)) ||
			slices.ContainsFunc(warnings, func(f Finding) bool {
				return f.Code == PreflightRouteStatusDiffers && f.Resource == r.Kind+" "+r.Namespace+"/"+r.Name
			}) {
			continue
		}
		var parts []string
		for _, p := range r.StatusParents {
			if !strings.HasPrefix(string(p.ControllerName), "istio.io/") || !statusCurrent(p.Conditions, r.Generation) {
				continue
			}
			var conds []string
			for _, c := range p.Conditions {
				if c.Type == string(gatewayv1.RouteConditionAccepted) || c.Type == string(gatewayv1.RouteConditionResolvedRefs) {
					conds = append(conds, c.Type+"="+string(c.Status))
				}
			}
			if len(conds) > 0 {
				parts = append(parts, strings.Join(conds, " ")+" for "+kubeParentText(p.ParentRef, r.Namespace))
			}
		}
		if len(parts) > 0 {
			out = append(out, fmt.Sprintf("istiod's status of %s (%s) agrees with this prediction", r.Ref(), strings.Join(parts, "; ")))
		}
	}
	return out
}

type routesWithStatusKey struct{}

// kubeRouteParentDeclares: a mesh parentRef of route r (a ServiceEntry or a Service) declares
// host: a mesh route routes its parent's hosts (blind audit 67 ST6, a mesh HTTPRoute without
// hostnames).
func kubeRouteParentDeclares(snap *snapshot.Snapshot, r rules.KubeRoute, host string) bool {
	for _, ref := range r.ParentRefs {
		kind, ns := rules.KubeParentKind(ref, r.Namespace)
		switch kind {
		case rules.KubeParentService:
			if host == string(ref.Name)+"."+ns+".svc.cluster.local" {
				return true
			}
		case rules.KubeParentServiceEntry:
			if se, _ := findObject(snap, snapshot.KindServiceEntry, ns, string(ref.Name)).(*networkingv1.ServiceEntry); se != nil && slices.Contains(se.Spec.Hosts, host) {
				return true
			}
		}
	}
	return false
}

// kubeRouteNames: route r names host in its hostnames or as a Hostname backendRef.
func kubeRouteNames(r rules.KubeRoute, host string) bool {
	for _, h := range r.Hostnames {
		if rules.HostMatches(host, rules.NormalizeHost(string(h))) {
			return true
		}
	}
	for _, b := range r.BackendRefs {
		if b.Kind != nil && string(*b.Kind) == "Hostname" && rules.NormalizeHost(string(b.Name)) == host {
			return true
		}
	}
	return false
}

// gatewayNotProgrammed: the Programmed=False condition istiod (its gateway controller) wrote
// for Gateway g's current generation, as "Programmed=False (reason: message)"; "" when there is
// none (no status, True, or written for an older generation). Mirrors istiod
// pilot/pkg/config/kube/gateway/conversion.go setProgrammedCondition and
// gatewaycommon.SetProgrammedCondition (Programmed is the data plane's readiness: an address
// for the Gateway's Service, usable addresses), blind audit 45 G9b.
func gatewayNotProgrammed(g *gatewayv1.Gateway) string {
	for _, c := range g.Status.Conditions {
		if c.Type == string(gatewayv1.GatewayConditionProgrammed) && c.Status == metav1.ConditionFalse && c.ObservedGeneration >= g.Generation {
			return fmt.Sprintf("Programmed=False (%s: %s)", c.Reason, c.Message)
		}
	}
	return ""
}

// gatewayStatusFindings: GATEWAY_API_GATEWAY_NOT_PROGRAMMED for every Gateway of Istio's
// gateway class whose status, for its current generation, says Programmed=False (preflight).
// Waypoints are left to the ambient checks (a waypoint without addresses binds nothing).
func gatewayStatusFindings(snap *snapshot.Snapshot) []PreflightFinding {
	var out []PreflightFinding
	for _, g := range snap.KubeGateways {
		if g == nil || !rules.KubeGatewayIstioClass(string(g.Spec.GatewayClassName), snap.GatewayClasses) {
			continue
		}
		cond := gatewayNotProgrammed(g)
		if cond == "" {
			continue
		}
		out = append(out, NewPreflightFinding(PreflightGatewayNotProgrammed, CheckPreflight, ResourceRef{Kind: "Gateway", Namespace: g.Namespace, Name: g.Name}, "status.conditions",
			gatewayNotProgrammedText(g, cond), gatewayNotProgrammedFix(g)))
	}
	return out
}

func gatewayNotProgrammedText(g *gatewayv1.Gateway, cond string) string {
	return fmt.Sprintf("istiod's status for Gateway %s/%s, written for its current generation, says %s. istiod generates the listeners and routes predicted here from the configuration whatever this condition says; the condition is about the data plane: the addresses of the Service istiod deploys for the Gateway, or its pods. If calls through this gateway fail while the prediction is OK, look there first.", g.Namespace, g.Name, cond)
}

func gatewayNotProgrammedFix(g *gatewayv1.Gateway) string {
	return fmt.Sprintf("Read the condition's message and check the Service and pods istiod deploys for the Gateway (kubectl get service,deployment,pods -n %s -l %s=%s): a Service of type LoadBalancer waiting for an external address keeps the condition False (an egress gateway needs none: annotate the Gateway networking.istio.io/service-type: ClusterIP), and pods that do not start serve nothing.", g.Namespace, rules.KubeGatewayNameLabel, g.Name)
}

// hostnameStatusFindings: GATEWAY_API_BACKEND_STATUS_MISLEADS for every Hostname backendRef of
// a route whose host no ServiceEntry of the route's namespace declares while one elsewhere does
// (preflight). istiod's buildDestination looks the host up by host and namespace
// (gatewaycommon/context.go GetService: ServiceIndex.HostnameAndNamespace[host][routeNs]), sets
// InvalidDestinationNotFound (ResolvedRefs False, BackendNotFound) and keeps the destination
// (conversion.go buildDestination, the Hostname case): the status reads as a fault where the
// traffic works (blind audit 32 #23).
func hostnameStatusFindings(snap *snapshot.Snapshot) []PreflightFinding {
	var out []PreflightFinding
	var byHost map[string][]string // host -> namespaces of the entries declaring it
	var reg *model.Registry
	for _, r := range model.KubeRoutes(snap) {
		if crdIgnoredKind(snap, r.Kind) {
			continue
		}
		for _, b := range r.BackendRefs {
			if b.Kind == nil || string(*b.Kind) != "Hostname" || b.Group == nil || string(*b.Group) != "networking.istio.io" || b.Namespace != nil {
				continue
			}
			if byHost == nil {
				byHost = map[string][]string{}
				for _, se := range snap.ServiceEntries {
					for _, h := range se.Spec.Hosts {
						h = rules.NormalizeHost(h)
						if !slices.Contains(byHost[h], se.Namespace) {
							byHost[h] = append(byHost[h], se.Namespace)
						}
					}
				}
			}
			host := rules.NormalizeHost(string(b.Name))
			nss := byHost[host]
			if len(nss) == 0 || slices.Contains(nss, r.Namespace) {
				continue
			}
			// Only where the traffic does work: an entry visible to the namespace of a Gateway
			// the route names (the gateway's pods run there); otherwise the route's failure is
			// reported elsewhere and this condition is no false alarm (blind audit 36 N05d).
			if reg == nil {
				reg = model.Services(snap, ReadIstiodFlags(snap, snap.Revision).MeshConfig)
			}
			visible := false
			for _, ref := range r.ParentRefs {
				kind, pns := rules.KubeParentKind(ref, r.Namespace)
				if kind != rules.KubeParentGateway {
					continue
				}
				if slices.ContainsFunc(reg.Shared(host), func(x rules.Service) bool {
					return x.Kind == rules.KindServiceEntry && rules.ServiceVisible(x.Namespace, x.ExportTo, pns)
				}) {
					visible = true
				}
			}
			if !visible {
				continue
			}
			res := ResourceRef{Kind: r.Kind, Namespace: r.Namespace, Name: r.Name}
			out = append(out, NewPreflightFinding(PreflightHostnameStatusHarmless, CheckPreflight, res, fmt.Sprintf("backendRefs (Hostname %s)", host),
				fmt.Sprintf("%s's backendRef to Hostname %s will show ResolvedRefs=False, reason BackendNotFound, in the route's status: istiod looks a Hostname backend up in the route's namespace %s only, and the ServiceEntry declaring %s is in %s. istiod keeps the destination all the same, so the condition is no fault: traffic reaches %s wherever the proxy sees that entry.", r.Ref(), host, r.Namespace, host, strings.Join(nss, ", "), host),
				fmt.Sprintf("Nothing to change: the traffic works. The condition clears only if the route lives where the entry does (%s), and the listener's allowedRoutes admit that namespace.", nss[0])))
		}
	}
	return out
}

// statusAccepted reads the Accepted condition istiod (controller istio.io/gateway-controller)
// wrote for parentRefs[i] of the route, for the route's current generation: whether it is True,
// the condition as text, and whether there is one.
func statusAccepted(r rules.KubeRoute, i int) (bool, string, bool) {
	ref := r.ParentRefs[i]
	for _, p := range r.StatusParents {
		if !strings.HasPrefix(string(p.ControllerName), "istio.io/") || !sameParentRef(p.ParentRef, ref, r.Namespace) {
			continue
		}
		for _, c := range p.Conditions {
			if c.Type != string(gatewayv1.RouteConditionAccepted) || c.ObservedGeneration < r.Generation {
				continue
			}
			return c.Status == "True", fmt.Sprintf("Accepted=%s (%s: %s)", c.Status, c.Reason, c.Message), true
		}
	}
	return false, "", false
}

// sameParentRef: two parentRefs name the same parent and section (defaults applied).
func sameParentRef(a, b gatewayv1.ParentReference, routeNs string) bool {
	ga, ka, na := rules.KubeParentRefDefaults(a, routeNs)
	gb, kb, nb := rules.KubeParentRefDefaults(b, routeNs)
	sec := func(r gatewayv1.ParentReference) string {
		if r.SectionName == nil {
			return ""
		}
		return string(*r.SectionName)
	}
	port := func(r gatewayv1.ParentReference) int32 {
		if r.Port == nil {
			return 0
		}
		return int32(*r.Port)
	}
	return ga == gb && ka == kb && na == nb && a.Name == b.Name && sec(a) == sec(b) && port(a) == port(b)
}

// attachMessage is istiod's status message for a refused parentRef, each distinct part once
// (istiod joins the message of every listener that refuses it for the same reason, repeats
// included).
func attachMessage(a rules.KubeRouteParentStatus) string {
	var parts []string
	for _, p := range strings.Split(a.Message, "; ") {
		if !slices.Contains(parts, p) {
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, "; ")
}

// selectorRefusal: when parentRef a is refused because the listeners it means admit
// namespaces by label (allowedRoutes.namespaces.from: Selector) and the route's namespace does
// not carry matching labels, the Gateway (its listener's allowedRoutes decides, not the route)
// with the field, and a sentence with the selector and the namespace's labels; ok false
// otherwise.
func selectorRefusal(snap *snapshot.Snapshot, a rules.KubeRouteParentStatus) (culprit, field, detail string, ok bool) {
	if a.Reason != rules.KubeRouteNotAllowedByListeners || !strings.Contains(a.Message, "is not allowed by the parent") {
		return "", "", "", false
	}
	g := kubeGatewayOf(snap, a.Gateway)
	if g == nil {
		return "", "", "", false
	}
	ref := a.Route.ParentRefs[a.Index]
	var sels []string
	for i, l := range g.Spec.Listeners {
		if ref.SectionName != nil && string(*ref.SectionName) != string(l.Name) {
			continue
		}
		if l.AllowedRoutes == nil || l.AllowedRoutes.Namespaces == nil || l.AllowedRoutes.Namespaces.From == nil || *l.AllowedRoutes.Namespaces.From != gatewayv1.NamespacesFromSelector {
			return "", "", "", false
		}
		if field == "" {
			field = fmt.Sprintf("spec.listeners[%d].allowedRoutes.namespaces.selector", i)
		}
		sels = append(sels, fmt.Sprintf("listener %s admits namespaces whose labels match %s", l.Name, metav1.FormatLabelSelector(l.AllowedRoutes.Namespaces.Selector)))
	}
	if len(sels) == 0 {
		return "", "", "", false
	}
	have := "(the input does not hold Namespace " + a.Route.Namespace + ", so its labels are unknown)"
	for _, n := range snap.Namespaces {
		if n.Name == a.Route.Namespace {
			have = "namespace " + n.Name + " has labels " + labels.Set(n.Labels).String()
			if len(n.Labels) == 0 {
				have = "namespace " + n.Name + " has no labels"
			}
		}
	}
	return "Gateway " + a.Gateway, field, strings.Join(sels, "; ") + ", and " + have, true
}

// routeAttachNote says, for why-missing's verdict on the gateway pods of Gateway API Gateway
// "ns/name", which routes for host name that Gateway but do not attach to it, and why.
func routeAttachNote(snap *snapshot.Snapshot, gateway, host string) string {
	var out []string
	for _, a := range refusedRoutes(snap, host, routeConcerns, func(a rules.KubeRouteParentStatus) bool { return a.Gateway == gateway && a.Found }) {
		out = append(out, fmt.Sprintf("%s does not attach to Gateway %s (spec.parentRefs[%d]): %s (%s)", a.Route.Ref(), gateway, a.Index, attachMessage(a), a.Reason))
	}
	if len(out) == 0 {
		return ""
	}
	return strings.Join(out, "; ") + ": its rules never reach this gateway (preflight's GATEWAY_API_ROUTE_NOT_ACCEPTED says how to attach it)"
}

// refusedKubeRoute: the first route that names host (in its hostnames or as a backendRef) and
// names Gateway gateway ("ns/name") in a parentRef the Gateway refuses. A route without
// hostnames counts only through its backendRefs: it does not single out this host.
func refusedKubeRoute(snap *snapshot.Snapshot, gateway, host string) (rules.KubeRouteParentStatus, bool) {
	if rs := refusedRoutes(snap, host, routeNamesHost, func(a rules.KubeRouteParentStatus) bool { return a.Gateway == gateway && a.Found }); len(rs) > 0 {
		return rs[0], true
	}
	return rules.KubeRouteParentStatus{}, false
}

// listenerMeantFor: the listener of the refused parentRef a's Gateway the route is meant for:
// the one its sectionName names, else the first whose protocol takes the route's kind.
// hostnamesDeclared: every name is declared by a ServiceEntry or Service of the default
// revision (a wildcard name counts when it is declared as written).
func hostnamesDeclared(snap *snapshot.Snapshot, names []gatewayv1.Hostname) bool {
	view := RevisionView(snap, "")
	reg := model.Services(view, ReadIstiodFlags(view, "").MeshConfig)
	for _, n := range names {
		if len(reg.Shared(strings.ToLower(string(n)))) == 0 {
			return false
		}
	}
	return true
}

func listenerMeantFor(snap *snapshot.Snapshot, a rules.KubeRouteParentStatus) (rules.ObjectRef, bool) {
	g := kubeGatewayOf(snap, a.Gateway)
	if g == nil {
		return rules.ObjectRef{}, false
	}
	ref := a.Route.ParentRefs[a.Index]
	for _, l := range g.Spec.Listeners {
		if ref.SectionName != nil && string(*ref.SectionName) == string(l.Name) || ref.SectionName == nil && kindTakes(l, a.Route.Kind) {
			return rules.ObjectRef{Kind: "Gateway", Namespace: g.Namespace, Name: g.Name, Section: string(l.Name)}, true
		}
	}
	return rules.ObjectRef{}, false
}

// kubeListenerPort: the port of listener l (an ObjectRef with Section), 0 when unknown.
func kubeListenerPort(snap *snapshot.Snapshot, l rules.ObjectRef) int32 {
	if g := kubeGatewayOf(snap, l.Namespace+"/"+l.Name); g != nil {
		for _, x := range g.Spec.Listeners {
			if string(x.Name) == l.Section {
				return int32(x.Port)
			}
		}
	}
	return 0
}

// refusedRoutes: the parentRefs (routeAttachments, in its order) that their parent does not
// accept, of routes of kinds istiod reads (crdIgnoredKind) that concern host by for (routeConcerns
// or routeNamesHost), for which keep is true. The one query behind the gateway verdict's refused
// route, its note, and a parentRef naming the Gateway in the wrong namespace.
func refusedRoutes(snap *snapshot.Snapshot, host string, concerns func(rules.KubeRoute, string) bool, keep func(rules.KubeRouteParentStatus) bool) []rules.KubeRouteParentStatus {
	var out []rules.KubeRouteParentStatus
	for _, a := range routeAttachments(snap) {
		if !a.Accepted && keep(a) && concerns(a.Route, host) && !crdIgnoredKind(snap, a.Route.Kind) {
			out = append(out, a)
		}
	}
	return out
}

// routeConcerns: the route's hostnames match host (none: every host) or a backendRef names it.
func routeConcerns(r rules.KubeRoute, host string) bool {
	return len(r.Hostnames) == 0 || routeNamesHost(r, host)
}

// routeNamesHost: a hostname of the route matches host, or a backendRef names it (a route
// without hostnames does not single out a host).
func routeNamesHost(r rules.KubeRoute, host string) bool {
	return slices.ContainsFunc(r.Hostnames, func(h gatewayv1.Hostname) bool { return rules.HostMatches(string(h), host) }) ||
		slices.ContainsFunc(r.BackendRefs, func(b gatewayv1.BackendRef) bool { return strings.EqualFold(string(b.Name), host) })
}

// meshPortFindings: GATEWAY_API_MESH_PORT_UNDECLARED for every Service or ServiceEntry parentRef
// of a route whose port the parent does not declare (istiod route_collections.go: the port is
// added to every match, augmentPortMatch, augmentTLSPortMatch, augmentTCPPortMatch).
func meshPortFindings(snap *snapshot.Snapshot) []PreflightFinding {
	declared := func(kind, ns, name string) ([]string, bool) {
		switch kind {
		case rules.KubeParentServiceEntry:
			for _, se := range snap.ServiceEntries {
				if se.Namespace == ns && se.Name == name {
					var ps []string
					for _, p := range se.Spec.GetPorts() {
						ps = append(ps, fmt.Sprint(p.GetNumber()))
					}
					return ps, true
				}
			}
		case rules.KubeParentService:
			for _, svc := range snap.Services {
				if svc.Namespace == ns && svc.Name == name {
					var ps []string
					for _, p := range svc.Spec.Ports {
						ps = append(ps, fmt.Sprint(p.Port))
					}
					return ps, true
				}
			}
		}
		return nil, false
	}
	var out []PreflightFinding
	for _, r := range model.KubeRoutes(snap) {
		if crdIgnoredKind(snap, r.Kind) {
			continue
		}
		for i, ref := range r.ParentRefs {
			if ref.Port == nil {
				continue
			}
			kind, ns := rules.KubeParentKind(ref, r.Namespace)
			ports, ok := declared(kind, ns, string(ref.Name))
			if !ok || slices.Contains(ports, fmt.Sprint(*ref.Port)) {
				continue
			}
			out = append(out, NewPreflightFinding(PreflightMeshPortUndeclared, CheckPreflight, ResourceRef{Kind: r.Kind, Namespace: r.Namespace, Name: r.Name},
				fmt.Sprintf("spec.parentRefs[%d].port", i),
				fmt.Sprintf("%s names %s %s/%s port %d, which it does not declare (its ports: %s): istiod makes every rule of the route match port %d only, so calls on the declared ports are not routed by it.", r.Ref(), kind, ns, ref.Name, *ref.Port, strings.Join(ports, ", "), *ref.Port),
				fmt.Sprintf("Set spec.parentRefs[%d].port of %s to a port %s/%s declares (%s), or leave it out to route every port.", i, r.Ref(), ns, ref.Name, strings.Join(ports, ", "))))
		}
	}
	return out
}

// kindTakes says whether a Gateway API listener's protocol takes routes of kind (before
// allowedRoutes.kinds narrows it; gatewaycommon GenerateGatewaySupportedKinds).
func kindTakes(l gatewayv1.Listener, kind string) bool {
	switch l.Protocol {
	case gatewayv1.HTTPProtocolType, gatewayv1.HTTPSProtocolType:
		return kind == "HTTPRoute" || kind == "GRPCRoute"
	case gatewayv1.TCPProtocolType:
		return kind == "TCPRoute"
	case gatewayv1.TLSProtocolType:
		return kind == "TLSRoute" || kind == "TCPRoute" && l.TLS != nil && l.TLS.Mode != nil && *l.TLS.Mode == gatewayv1.TLSModeTerminate
	}
	return false
}

// kubeListenerTLSFindings: the listeners of Gateway API Gateways of an Istio class whose
// certificates istiod refuses, so that it generates no server for them (conversion.go buildTLS,
// buildSecretReference): SERVER_CREDENTIAL_NOT_FOUND for a Secret that does not exist, and
// GATEWAY_LISTENER_WITHOUT_CHAINS for references it does not permit (another namespace without
// a ReferenceGrant) or cannot use (blind audit 92 c34, c35: why-missing said so, preflight did
// not).
func kubeListenerTLSFindings(snap *snapshot.Snapshot) []PreflightFinding {
	var out []PreflightFinding
	for _, g := range snap.KubeGateways {
		if !rules.KubeGatewayIstioClass(string(g.Spec.GatewayClassName), snap.GatewayClasses) || len(rules.KubeGatewayServices(g)) == 0 {
			continue
		}
		for _, sk := range rules.KubeGatewaySkippedListeners(g, snap.Namespaces, snap.ReferenceGrants, snap.SecretKnownMissing) {
			code := ListenerNoChains
			switch sk.Reason {
			case rules.ListenerSkipTLSRefMissing:
				code = ListenerCredentialMissing
			case rules.ListenerSkipTLSRefNotPermitted, rules.ListenerSkipTLSRefs:
			default:
				continue
			}
			why, fix := skippedKubeListenerText(g, sk)
			out = append(out, NewPreflightFinding(code, CheckPreflight, ResourceRef{Kind: "Gateway", Namespace: g.Namespace, Name: g.Name}, "spec.listeners["+string(sk.Listener.Name)+"].tls.certificateRefs",
				upperFirst(why)+": the gateway has no listener for it, and calls sent there are refused.", fix))
		}
	}
	return out
}
