package rules

import (
	"slices"

	networking "istio.io/api/networking/v1alpha3"
	networkingv1 "istio.io/client-go/pkg/apis/networking/v1"
)

// Route kinds: the VirtualService section a route comes from (seed §4.1 route type).
const (
	RouteHTTP = "http"
	RouteTLS  = "tls"
	RouteTCP  = "tcp"
)

// VSGateways returns the VirtualService's `gateways` resolved to "namespace/name" (or "mesh");
// an empty list means ["mesh"].
//
// Mirrors istiod pilot/pkg/model/push_context.go getGatewayNames and
// pilot/pkg/model/virtualservice.go resolveVirtualServiceShortnames.
func VSGateways(vs *networkingv1.VirtualService) []string {
	if len(vs.Spec.Gateways) == 0 {
		return []string{MeshGateway}
	}
	out := make([]string, 0, len(vs.Spec.Gateways))
	for _, g := range vs.Spec.Gateways {
		out = append(out, ResolveGatewayName(g, vs.Namespace))
	}
	return out
}

// Dest is one route destination of a (merged) VirtualService.
type Dest struct {
	Kind   string // RouteHTTP, RouteTLS or RouteTCP; mirrors are RouteHTTP with Mirror set
	Mirror bool
	// Host is the destination host resolved relative to the namespace of the VirtualService
	// that declared the route (the delegate's, for delegated routes).
	Host   string
	Subset string
	Port   uint32
	// RouteIndex is the index of the route in its section of the declaring VirtualService.
	RouteIndex int
	// Declared is the VirtualService that declared the route; Root the one bound to gateways
	// (the same object unless the route was delegated).
	Declared *networkingv1.VirtualService
	Root     *networkingv1.VirtualService
	// HTTP is the route for http destinations (nil otherwise) and TLS/TCP likewise.
	HTTP *networking.HTTPRoute
	TLS  *networking.TLSRoute
	TCP  *networking.TCPRoute
	// Idle: the destination takes no traffic, weight 0 in a route with several destinations
	// (istiod leaves it out of the weighted clusters: route.go applyHTTPRouteDestination,
	// networkfilter.go buildOutboundNetworkFiltersWithWeightedClusters). Its cluster is still a
	// destination the gateway's cluster filter keeps (GatewayDestinations).
	Idle bool
	// Direct is set for an http route that answers itself (no destination, Host ""): the
	// status of its directResponse (500 for a Gateway API rule whose backends all weigh 0), or 1
	// for a redirect. Only gateway bindings carry such routes (Bind).
	Direct int
}

// DelegateProblem explains why a delegated route was dropped.
type DelegateProblem struct {
	Root     *networkingv1.VirtualService
	Name     string // "namespace/name" of the delegate
	Missing  bool   // no such VirtualService, or one with hosts (HasHosts)
	HasHosts bool   // the VirtualService exists but has hosts: it is no delegate
	// Delegate is the delegate VirtualService when it exists.
	Delegate *networkingv1.VirtualService
	Exported bool // false: its exportTo excludes the root's namespace
}

// MergedRoutes returns the destinations of a root VirtualService (one with hosts), with
// delegated HTTP routes inlined from their delegate VirtualService. A delegate is used only if
// it exists, has no hosts, and its exportTo (or defaultVirtualServiceExportTo) contains "*" or
// the root's namespace; otherwise the delegating route yields nothing and a DelegateProblem is
// returned. Delegation is one level deep.
//
// Mirrors istiod pilot/pkg/model/virtualservice.go mergeVirtualServices and
// virtualServiceDestinations (seed case 24: delegate destinations count as referenced).
func MergedRoutes(root *networkingv1.VirtualService, all []*networkingv1.VirtualService, defaultVSExportTo []string) ([]Dest, []DelegateProblem) {
	var out []Dest
	var problems []DelegateProblem
	for i, r := range root.Spec.Http {
		if r == nil {
			continue
		}
		if d := r.GetDelegate(); d != nil {
			ns := d.GetNamespace()
			if ns == "" {
				ns = root.Namespace
			}
			del := findVS(all, ns, d.GetName())
			if del == nil || len(del.Spec.Hosts) > 0 {
				problems = append(problems, DelegateProblem{Root: root, Name: ns + "/" + d.GetName(), Missing: true, HasHosts: del != nil, Delegate: del})
				continue
			}
			exp := EffectiveExportTo(del.Spec.ExportTo, defaultVSExportTo)
			if !slices.Contains(exp, ExportPublic) && !VirtualServiceVisible(del.Namespace, exp, root.Namespace) {
				problems = append(problems, DelegateProblem{Root: root, Name: ns + "/" + d.GetName(), Exported: false, Delegate: del})
				continue
			}
			for j, dr := range del.Spec.Http {
				out = append(out, httpDests(dr, j, del, root)...)
			}
			continue
		}
		out = append(out, httpDests(r, i, root, root)...)
	}
	for i, r := range root.Spec.Tls {
		for _, rd := range r.GetRoute() {
			out = append(out, dest(RouteTLS, rd.GetDestination(), i, root, root, func(d *Dest) { d.TLS, d.Idle = r, idle(rd, len(r.GetRoute())) }))
		}
	}
	for i, r := range root.Spec.Tcp {
		for _, rd := range r.GetRoute() {
			out = append(out, dest(RouteTCP, rd.GetDestination(), i, root, root, func(d *Dest) { d.TCP, d.Idle = r, idle(rd, len(r.GetRoute())) }))
		}
	}
	return out, problems
}

func httpDests(r *networking.HTTPRoute, idx int, declared, root *networkingv1.VirtualService) []Dest {
	if r == nil {
		return nil
	}
	set := func(d *Dest) { d.HTTP = r }
	var out []Dest
	for _, rd := range r.GetRoute() {
		d := dest(RouteHTTP, rd.GetDestination(), idx, declared, root, set)
		d.Idle = idle(rd, len(r.GetRoute()))
		out = append(out, d)
	}
	if m := r.GetMirror(); m != nil {
		d := dest(RouteHTTP, m, idx, declared, root, set)
		d.Mirror = true
		out = append(out, d)
	}
	for _, m := range r.GetMirrors() {
		d := dest(RouteHTTP, m.GetDestination(), idx, declared, root, set)
		d.Mirror = true
		out = append(out, d)
	}
	return out
}

// idle: a destination of weight 0 among n > 1 takes no traffic (Dest.Idle).
func idle(rd interface{ GetWeight() int32 }, n int) bool {
	return n > 1 && rd.GetWeight() == 0
}

func dest(kind string, d *networking.Destination, idx int, declared, root *networkingv1.VirtualService, set func(*Dest)) Dest {
	out := Dest{Kind: kind, RouteIndex: idx, Declared: declared, Root: root}
	if d != nil {
		out.Host = ResolveShortname(d.GetHost(), declared.Namespace)
		out.Subset = d.GetSubset()
		out.Port = d.GetPort().GetNumber()
	}
	set(&out)
	return out
}

func findVS(all []*networkingv1.VirtualService, ns, name string) *networkingv1.VirtualService {
	for _, vs := range all {
		if vs.Namespace == ns && vs.Name == name {
			return vs
		}
	}
	return nil
}

// GatewayDestinations returns, for the gateway "namespace/name" gw, every destination of every
// VirtualService that lists gw in its (resolved) gateways — the index istiod filters a
// gateway's clusters with when PILOT_FILTER_GATEWAY_CLUSTER_CONFIG=true. VirtualService
// exportTo, host intersection with the Gateway's servers, match.port and match.gateways are all
// ignored by istiod here. With scopeToNamespace (PILOT_SCOPE_GATEWAY_TO_NAMESPACE), an HTTP route
// whose matches all set a sourceNamespace other than the gateway's namespace is skipped.
//
// Mirrors istiod pilot/pkg/model/push_context.go initVirtualServices (destinationsByGateway)
// and virtualServiceDestinationsFilteredBySourceNamespace (seed §2.4 gate (2)).
func GatewayDestinations(all []*networkingv1.VirtualService, gw string, defaultVSExportTo []string, scopeToNamespace bool) []Dest {
	gwNs, _, _ := cutGatewayName(gw)
	var out []Dest
	for _, vs := range all {
		if len(vs.Spec.Hosts) == 0 { // delegates are never indexed directly
			continue
		}
		if !slices.Contains(VSGateways(vs), gw) {
			continue
		}
		dests, _ := MergedRoutes(vs, all, defaultVSExportTo)
		for _, d := range dests {
			if scopeToNamespace && d.HTTP != nil && !HTTPRouteInSourceNamespace(d.HTTP, gwNs) {
				continue
			}
			out = append(out, d)
		}
	}
	return out
}

// HTTPRouteInSourceNamespace reports whether an http route applies to proxies in ns: one of its
// matches names ns as sourceNamespace, or none names any.
func HTTPRouteInSourceNamespace(r *networking.HTTPRoute, ns string) bool {
	withNs := 0
	for _, m := range r.GetMatch() {
		if m.GetSourceNamespace() == "" {
			continue
		}
		withNs++
		if m.GetSourceNamespace() == ns {
			return true
		}
	}
	return withNs == 0
}

func cutGatewayName(gw string) (ns, name string, ok bool) {
	for i := 0; i < len(gw); i++ {
		if gw[i] == '/' {
			return gw[:i], gw[i+1:], true
		}
	}
	return "", gw, false
}

// MatchGateways returns the match.gateways list of each match of the destination's route (one
// list per match; none when the route has no match). Names are as written, not resolved.
func MatchGateways(d Dest) [][]string {
	var lists [][]string
	switch {
	case d.HTTP != nil:
		for _, m := range d.HTTP.GetMatch() {
			lists = append(lists, m.GetGateways())
		}
	case d.TLS != nil:
		for _, m := range d.TLS.GetMatch() {
			lists = append(lists, m.GetGateways())
		}
	case d.TCP != nil:
		for _, m := range d.TCP.GetMatch() {
			lists = append(lists, m.GetGateways())
		}
	}
	return lists
}

// MirrorApplies reports whether a mirror destination (Dest.Mirror) yields a request mirror policy:
// mirror (with mirrorPercentage, else the deprecated mirrorPercent, else 100%) or an entry of
// mirrors (its percentage, else 100%) whose percentage is not 0.
//
// Mirrors istiod pilot/pkg/networking/core/route/route.go translateRoute (MirrorPercent,
// MirrorPercentByPolicy).
func MirrorApplies(d Dest) bool {
	r := d.HTTP
	if !d.Mirror || r == nil {
		return false
	}
	same := func(m *networking.Destination) bool {
		return m != nil && ResolveShortname(m.GetHost(), d.Declared.Namespace) == d.Host && m.GetSubset() == d.Subset && m.GetPort().GetNumber() == d.Port
	}
	if same(r.GetMirror()) {
		switch {
		case r.GetMirrorPercentage() != nil:
			return r.GetMirrorPercentage().GetValue() > 0
		case r.GetMirrorPercent() != nil: //nolint:staticcheck // the deprecated field istiod still reads
			return r.GetMirrorPercent().GetValue() > 0 //nolint:staticcheck
		}
		return true
	}
	for _, m := range r.GetMirrors() {
		if same(m.GetDestination()) {
			return m.GetPercentage() == nil || m.GetPercentage().GetValue() > 0
		}
	}
	return false
}
