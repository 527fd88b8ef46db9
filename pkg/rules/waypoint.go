package rules

import (
	"fmt"
	"net/netip"
	"sort"
	"strings"

	networking "istio.io/api/networking/v1alpha3"
	networkingv1 "istio.io/client-go/pkg/apis/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// Ambient (ztunnel and waypoint) view of ServiceEntries: which waypoint an entry asks for, whether
// istiod binds it, the address ambient clients dial, and which entry a client's hostname lookup
// finds when several namespaces declare the host.
//
// Mirrors istiod pilot/pkg/serviceregistry/ambient (1.31 line): waypoints.go GetUseWaypoint,
// fetchWaypointForTarget, fetchWaypointForService, gatewayToWaypointTransform, makeAllowedRoutes,
// AllowsAttachmentFromNamespace; services.go serviceEntriesInfo, constructServiceEntries,
// selectWorkloadServices; status.go (the WaypointBound reasons); seed 002 (R6.3, R6.5).

// Labels and values istiod reads for waypoints (istio.io/api label).
const (
	LabelUseWaypoint          = "istio.io/use-waypoint"
	LabelUseWaypointNamespace = "istio.io/use-waypoint-namespace"
	LabelUseWaypointCanary    = "istio.io/use-waypoint-canary"
	LabelWaypointFor          = "istio.io/waypoint-for"
	LabelDataplaneMode        = "istio.io/dataplane-mode"
	LabelGatewayManaged       = "gateway.istio.io/managed"
	// WaypointClass is istiod's built-in GatewayClass for waypoints (constants.WaypointGatewayClassName).
	WaypointClass = "istio-waypoint"
	// Waypoint traffic types (constants.ServiceTraffic, WorkloadTraffic, AllTraffic, NoTraffic).
	WaypointForService  = "service"
	WaypointForWorkload = "workload"
	WaypointForAll      = "all"
	WaypointForNone     = "none"
)

// Reasons of the istio.io/WaypointBound condition istiod writes when it refuses a binding
// (ambient/status.go).
const (
	WaypointNotReady           = "WaypointIsNotReady"
	WaypointAttachmentDenied   = "AttachmentDenied"
	WaypointUnsupportedTraffic = "UnsupportedTrafficType"
	WaypointCrossNamespace     = "CrossNamespaceWaypointForbidden"
)

// AllowedFromSelectorNone is WaypointBinding.AllowedFrom for allowedRoutes.namespaces.from:
// Selector without a selector, which admits no namespace (makeWaypointSelector).
const AllowedFromSelectorNone = "Selector (none set)"

// WaypointRef names a waypoint: a Gateway API Gateway.
type WaypointRef struct {
	Namespace, Name string
}

// String is "namespace/name", as istiod's messages write it (Waypoint.ResourceName).
func (r WaypointRef) String() string { return r.Namespace + "/" + r.Name }

// UseWaypoint parses the istio.io/use-waypoint label (and istio.io/use-waypoint-namespace) of an
// object: the waypoint it names, or isNone when the label is "none" (an explicit opt-out; istiod
// reserves the name). defaultNamespace is used when no namespace label is set.
//
// Mirrors istiod ambient/waypoints.go GetUseWaypoint.
func UseWaypoint(l map[string]string, defaultNamespace string) (ref *WaypointRef, isNone bool) {
	v, ok := l[LabelUseWaypoint]
	if !ok {
		return nil, false
	}
	if v == "none" {
		return nil, true
	}
	ns := defaultNamespace
	if o, f := l[LabelUseWaypointNamespace]; f {
		ns = o
	}
	return &WaypointRef{Namespace: ns, Name: v}, false
}

// WaypointInput is what istiod reads to bind one ServiceEntry to a waypoint.
type WaypointInput struct {
	Entry *networkingv1.ServiceEntry
	// Namespace is the entry's Namespace object (nil: not in the input; istiod then reads no
	// namespace label and no namespace labels for allowedRoutes selectors).
	Namespace *metav1.ObjectMeta
	// Visibility is the entry's resolved serviceEntryVisibility (VisibilityPublic, ...).
	Visibility string
	// Gateways and GatewayClasses are the Gateway API objects read.
	Gateways       []*gatewayv1.Gateway
	GatewayClasses []*gatewayv1.GatewayClass
	// Live: the objects were read from a cluster, so a Gateway's status is what its controllers
	// wrote. Otherwise (manifest files) a Gateway's status counts only when the file carries
	// some of it (conditions or listeners).
	Live bool
}

// WaypointBinding is istiod's answer for one ServiceEntry.
type WaypointBinding struct {
	// Asked: the entry or its namespace names a waypoint; From is where the label was read
	// ("ServiceEntry" or "Namespace"). OptedOut: the entry's label is "none" (a namespace
	// waypoint is then ignored). Managed: the entry is itself a waypoint's or an east-west
	// gateway's (gateway.istio.io/managed), which istiod never binds to a waypoint.
	Asked, OptedOut, Managed bool
	From                     string
	Waypoint                 WaypointRef
	// Gateway is the waypoint's Gateway (nil: not in the input).
	Gateway *gatewayv1.Gateway
	// Class is the Gateway's class name; ClassKnown whether the GatewayClass is in the input.
	Class      string
	ClassKnown bool
	// TrafficType is the waypoint's istio.io/waypoint-for ("service" by default) and
	// TrafficTypeFrom where it came from ("Gateway", "GatewayClass", "default").
	TrafficType, TrafficTypeFrom string
	// AllowedFrom is the waypoint's allowedRoutes namespaces.from of its HBONE listener (or of
	// the listener its inbound-binding annotation names): "All", "Same" or "Selector".
	AllowedFrom string
	// Listener names the listener AllowedFrom is read from ("HBONE listener (port 15008)", or
	// the one the inbound-binding annotation names), "" when there is none.
	Listener string
	// NoStatusAddress: the Gateway has no status.addresses. istiod makes a waypoint of a
	// Gateway only once they are written (the waypoint has a ready pod); before that the
	// binding is refused with WaypointIsNotReady.
	NoStatusAddress bool
	// NotReady: the Gateway's status is known (Live, or the input carries some of it) and has
	// no addresses. istiod makes no waypoint of it and refuses every binding as
	// WaypointIsNotReady, before it looks at allowedRoutes, the traffic type or the entry's
	// visibility; BindWaypoint then stops there, with Accepted set (the binding rules have
	// nothing against it) and no Reason, and callers report the refusal as not ready.
	NotReady bool
	// Accepted: istiod binds the entry to the waypoint (when NotReady is false).
	// Reason is istiod's WaypointBound reason when it does not, Message its message.
	Accepted        bool
	Reason, Message string
	// SameNameIn: when the waypoint is missing, the namespaces that hold a Gateway of its name
	// (a likely fix: point the istio.io/use-waypoint-namespace label there).
	SameNameIn []string
	// WaypointsThere: when the waypoint is missing, the names of the waypoints (Gateways of
	// class istio-waypoint) in the namespace it was looked for in (a likely fix: a typo).
	WaypointsThere []string
}

// BindWaypoint decides, as istiod does for the WDS Service of a ServiceEntry, whether the entry
// asks for a waypoint and whether istiod binds it: the entry's own istio.io/use-waypoint label
// ("none" opts out), else its namespace's; the waypoint must exist (a Gateway, whatever its
// class, with status addresses), admit the entry's namespace (the allowedRoutes of its HBONE
// listener, Same when absent), serve service traffic (istio.io/waypoint-for service or all, on
// the Gateway, else its GatewayClass, default service), and a NAMESPACE-visibility entry may not
// bind to a waypoint in another namespace.
//
// Mirrors istiod ambient/waypoints.go fetchWaypointForService and fetchWaypointForTarget (in that
// order of checks), gatewayToWaypointTransform (traffic type, status addresses),
// makeAllowedRoutes / findBoundListener / makeWaypointSelector and
// AllowsAttachmentFromNamespace(OrLookup); messages from ambient/status.go. A canary waypoint
// (istio.io/use-waypoint-canary) is not modelled: its errors never unbind the primary.
func BindWaypoint(in WaypointInput) WaypointBinding {
	var b WaypointBinding
	se := in.Entry
	switch se.Labels[LabelGatewayManaged] {
	case "istio.io-mesh-controller", "istio.io-eastwest-controller":
		b.Managed = true
		return b
	}
	ref, none := UseWaypoint(se.Labels, se.Namespace)
	b.From = "ServiceEntry"
	if none {
		b.OptedOut = true
		return b
	}
	if ref == nil && in.Namespace != nil {
		// The namespace's "none" is not an opt-out of anything: it just names no waypoint.
		ref, _ = UseWaypoint(in.Namespace.Labels, se.Namespace)
		b.From = "Namespace"
	}
	if ref == nil {
		b.From = ""
		return b
	}
	b.Asked, b.Waypoint = true, *ref
	for _, g := range in.Gateways {
		if g.Namespace == ref.Namespace && g.Name == ref.Name {
			b.Gateway = g
			break
		}
	}
	if b.Gateway == nil {
		b.Reason, b.Message = WaypointNotReady, `waypoint "`+ref.String()+`" is not ready`
		for _, g := range in.Gateways {
			if g.Name == ref.Name && g.Namespace != ref.Namespace {
				b.SameNameIn = append(b.SameNameIn, g.Namespace)
			}
			if g.Namespace == ref.Namespace && string(g.Spec.GatewayClassName) == WaypointClass {
				b.WaypointsThere = append(b.WaypointsThere, g.Name)
			}
		}
		return b
	}
	g := b.Gateway
	b.NoStatusAddress = len(g.Status.Addresses) == 0
	st := g.Status
	b.NotReady = b.NoStatusAddress && (in.Live || len(st.Conditions) > 0 || len(st.Listeners) > 0)
	b.Class = string(g.Spec.GatewayClassName)
	b.TrafficType, b.TrafficTypeFrom = WaypointForService, "default"
	for _, c := range in.GatewayClasses {
		if c.Name == b.Class {
			b.ClassKnown = true
			if tt, ok := c.Labels[LabelWaypointFor]; ok {
				b.TrafficType, b.TrafficTypeFrom = tt, "GatewayClass"
			}
		}
	}
	if tt, ok := g.Labels[LabelWaypointFor]; ok {
		b.TrafficType, b.TrafficTypeFrom = tt, "Gateway"
	}
	from, sel, listener := waypointAllowedRoutes(g, in.GatewayClasses)
	b.AllowedFrom, b.Listener = string(from), listener
	if from == gatewayv1.NamespacesFromSelector && sel == nil {
		b.AllowedFrom = AllowedFromSelectorNone
	}
	var nsLabels map[string]string
	if in.Namespace != nil {
		nsLabels = in.Namespace.Labels
	}
	allowed := false
	switch from {
	case gatewayv1.NamespacesFromAll:
		allowed = true
	case gatewayv1.NamespacesFromSelector:
		allowed = sel != nil && sel.Matches(labels.Set(nsLabels))
	default:
		allowed = g.Namespace == se.Namespace
	}
	if b.NotReady {
		// gatewayToWaypointTransform makes no waypoint of the Gateway, so
		// fetchWaypointForTarget reports it not ready before any other check (found by
		// hack/conformance TestConformanceAmbient).
		b.Accepted = true
		return b
	}
	if !allowed {
		b.Reason, b.Message = WaypointAttachmentDenied, `we are not permitted to attach to waypoint "`+ref.String()+`" (missing allowedRoutes?)`
		return b
	}
	if b.TrafficType != WaypointForService && b.TrafficType != WaypointForAll {
		b.Reason, b.Message = WaypointUnsupportedTraffic, `attempting to bind to traffic type "service" which the waypoint "`+ref.String()+`" does not support`
		return b
	}
	if g.Namespace != se.Namespace && in.Visibility == VisibilityNamespace {
		b.Reason, b.Message = WaypointCrossNamespace, `cannot bind to waypoint "`+ref.String()+`" in another namespace: cross-namespace waypoint binding is not permitted for a ServiceEntry with NAMESPACE visibility`
		return b
	}
	b.Accepted = true
	return b
}

// inboundBindingAnnotation is annotation.AmbientWaypointInboundBinding.
const inboundBindingAnnotation = "ambient.istio.io/waypoint-inbound-binding"

// waypointAllowedRoutes returns the namespaces.from and selector of the listener istiod reads
// for attachment: the one the inbound-binding annotation (Gateway, else GatewayClass) names by
// port or, for "PROXY", by the istio.io/PROXY protocol; else the HBONE listener on 15008; Same
// when neither exists or it has no allowedRoutes.namespaces.
//
// Mirrors istiod ambient/waypoints.go makeInboundBinding, makeAllowedRoutes, findBoundListener,
// makeWaypointSelector.
func waypointAllowedRoutes(g *gatewayv1.Gateway, classes []*gatewayv1.GatewayClass) (gatewayv1.FromNamespaces, labels.Selector, string) {
	ann, ok := g.Annotations[inboundBindingAnnotation]
	on := "the Gateway's"
	if !ok {
		for _, c := range classes {
			if c.Name == string(g.Spec.GatewayClassName) {
				ann, ok = c.Annotations[inboundBindingAnnotation]
				on = "GatewayClass " + c.Name + "'s"
			}
		}
	}
	var match func(l gatewayv1.Listener) bool
	if ok {
		parts := strings.Split(ann, "/")
		proto := parts[0]
		if len(parts) <= 2 && (proto == "NONE" || proto == "PROXY") {
			port := 0
			if len(parts) == 2 {
				for _, ch := range parts[1] {
					if ch < '0' || ch > '9' {
						port = 0
						break
					}
					port = port*10 + int(ch-'0')
				}
			}
			switch {
			case port != 0:
				match = func(l gatewayv1.Listener) bool { return int(l.Port) == port }
			case proto == "PROXY":
				match = func(l gatewayv1.Listener) bool { return l.Protocol == "istio.io/PROXY" }
			}
		}
	}
	selector := func(l gatewayv1.Listener) (gatewayv1.FromNamespaces, labels.Selector) {
		if l.AllowedRoutes == nil || l.AllowedRoutes.Namespaces == nil {
			return gatewayv1.NamespacesFromSame, nil
		}
		from := gatewayv1.NamespacesFromSame
		if l.AllowedRoutes.Namespaces.From != nil {
			from = *l.AllowedRoutes.Namespaces.From
		}
		if l.AllowedRoutes.Namespaces.Selector == nil {
			return from, nil // Selector without one matches nothing
		}
		sel, err := metav1.LabelSelectorAsSelector(l.AllowedRoutes.Namespaces.Selector)
		if err != nil {
			sel = nil
		}
		return from, sel
	}
	if l, ok := boundListener(g, match); ok {
		from, sel := selector(l)
		what := fmt.Sprintf("HBONE listener (port %d)", l.Port)
		if l.Protocol != "HBONE" || l.Port != 15008 {
			what = fmt.Sprintf("listener %s (port %d, named by %s annotation %s: %s)", l.Name, l.Port, on, inboundBindingAnnotation, ann)
		}
		return from, sel, what
	}
	return gatewayv1.NamespacesFromSame, nil, ""
}

// boundListener is the listener waypointAllowedRoutes reads: the first that match (from the
// inbound-binding annotation, nil without one) selects, else the HBONE listener on 15008.
func boundListener(g *gatewayv1.Gateway, match func(gatewayv1.Listener) bool) (gatewayv1.Listener, bool) {
	if match != nil {
		for _, l := range g.Spec.Listeners {
			if match(l) {
				return l, true
			}
		}
	}
	for _, l := range g.Spec.Listeners {
		if l.Protocol == "HBONE" && l.Port == 15008 {
			return l, true
		}
	}
	return gatewayv1.Listener{}, false
}

// AmbientAddresses returns the addresses ztunnel knows the entry's host by, which clients must
// dial for ztunnel to treat the call as one to the entry (and send it to its waypoint): the
// entry's spec.addresses; else, unless resolution is NONE, the addresses istiod's IP allocator
// wrote to the entry's status for the host (IPv4 and IPv6), when automatic allocation applies
// (ipAutoallocate, PILOT_ENABLE_IP_AUTOALLOCATE; no opt-out label; a wildcard host only with
// DYNAMIC_DNS). why says, when there is none, why.
//
// Mirrors istiod ambient/services.go constructServiceEntries and
// networking/serviceentry/ip_autoallocation.go ShouldV2AutoAllocateIP,
// GetHostAddressesFromServiceEntry.
func AmbientAddresses(se *networkingv1.ServiceEntry, host string, ipAutoallocate bool) (addrs []string, auto bool, why string) {
	if len(se.Spec.Addresses) > 0 {
		return se.Spec.Addresses, false, ""
	}
	if se.Spec.Resolution == networking.ServiceEntry_NONE {
		return nil, false, "resolution NONE: istiod gives the entry no address"
	}
	if isWildcard(host) && se.Spec.Resolution != networking.ServiceEntry_DYNAMIC_DNS {
		return nil, false, "a wildcard host gets an allocated address only with resolution DYNAMIC_DNS"
	}
	if !ipAutoallocate {
		return nil, false, "automatic address allocation is off in istiod (PILOT_ENABLE_IP_AUTOALLOCATE=false)"
	}
	if strings.EqualFold(se.Labels[AutoAllocateLabel], "false") {
		return nil, false, "the entry opts out of automatic address allocation (" + AutoAllocateLabel + "=false)"
	}
	for _, a := range se.Status.GetAddresses() {
		if a.GetHost() != host {
			continue
		}
		if _, err := netip.ParseAddr(a.GetValue()); err == nil {
			addrs = append(addrs, a.GetValue())
		}
	}
	if len(addrs) == 0 {
		return nil, true, "no address allocated in the entry's status for the host yet"
	}
	return addrs, true, ""
}

// AmbientService is one declaration of a host as istiod's ambient index sees it.
type AmbientService struct {
	// Ref is "Kind namespace/name"; Kubernetes is true for a Kubernetes Service.
	Ref        string
	Namespace  string
	Kubernetes bool
	// Visibility is VisibilityPublic or VisibilityNamespace (NONE entries are not published).
	Visibility string
	Created    metav1.Time
}

// AmbientSelection is istiod's choice among the declarations of one host.
type AmbientSelection struct {
	// ByNamespace is the declaration kept per namespace; Canonical the one marked canonical
	// ("" when none: every kept one is NAMESPACE-visibility).
	ByNamespace map[string]string
	Canonical   string
	// Tied lists, by namespace (and "" for the canonical choice), the declarations that tie on
	// creation time (second granularity) for that choice, when there are several:
	// istiod's choice among them depends on its index order. ByNamespace and Canonical then
	// hold the first by name.
	Tied map[string][]string
}

// SelectAmbientServices picks, among the declarations of one host, the one istiod keeps in each
// namespace (a Kubernetes Service, else the oldest entry) and the single canonical one (a
// Kubernetes Service, else the oldest kept PUBLIC entry; NAMESPACE entries are never canonical).
// A client's hostname lookup finds its own namespace's, else the canonical one (workloadapi
// Service.canonical).
//
// Mirrors istiod ambient/services.go selectWorkloadServices.
func SelectAmbientServices(in []AmbientService) AmbientSelection {
	out := AmbientSelection{ByNamespace: map[string]string{}, Tied: map[string][]string{}}
	byNs := map[string][]AmbientService{}
	for _, s := range in {
		byNs[s.Namespace] = append(byNs[s.Namespace], s)
	}
	// oldest returns the declarations with the earliest creation time, sorted by Ref.
	oldest := func(xs []AmbientService) []AmbientService {
		var best []AmbientService
		for _, x := range xs {
			switch {
			case len(best) == 0 || x.Created.Before(&best[0].Created):
				best = []AmbientService{x}
			case x.Created.Equal(&best[0].Created):
				best = append(best, x)
			}
		}
		sort.Slice(best, func(i, j int) bool { return best[i].Ref < best[j].Ref })
		return best
	}
	refs := func(xs []AmbientService) []string {
		var r []string
		for _, x := range xs {
			r = append(r, x.Ref)
		}
		return r
	}
	var kept []AmbientService
	var kube *AmbientService
	for ns, xs := range byNs {
		var w []AmbientService
		for _, x := range xs {
			if x.Kubernetes {
				w = []AmbientService{x}
				k := x
				kube = &k
				break
			}
		}
		if w == nil {
			w = oldest(xs)
		}
		out.ByNamespace[ns] = w[0].Ref
		if len(w) > 1 {
			out.Tied[ns] = refs(w)
		}
		kept = append(kept, w...)
	}
	if kube != nil {
		out.Canonical = kube.Ref
		return out
	}
	var public []AmbientService
	for _, x := range kept {
		if x.Visibility != VisibilityNamespace {
			public = append(public, x)
		}
	}
	if c := oldest(public); len(c) > 0 {
		out.Canonical = c[0].Ref
		if len(c) > 1 {
			out.Tied[""] = refs(c)
		}
	}
	return out
}

// For returns the declaration a client in ns finds: its namespace's, else the canonical one
// ("" when none), and the declarations istiod may pick instead (tied with it; nil when the choice
// is decided).
func (s AmbientSelection) For(ns string) (ref string, tied []string) {
	if r, ok := s.ByNamespace[ns]; ok {
		return r, s.Tied[ns]
	}
	return s.Canonical, s.Tied[""]
}
