package rules

import (
	"fmt"
	"slices"
	"sort"
	"strconv"

	networking "istio.io/api/networking/v1alpha3"
	networkingv1 "istio.io/client-go/pkg/apis/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// Kubernetes Gateway API TLSRoutes and TCPRoutes as istiod sees them: for every parent that
// accepts the route (a listener of a Gateway of an Istio class, or a Service or ServiceEntry for
// the mesh), one VirtualService per hostname, named "<route>~tls~<n>~<...>" or
// "<route>~tcp~<n>~<...>", with tls or tcp routes and no merging across routes.
//
// Mirrors istiod pilot/pkg/config/kube/gateway/route_collections.go TLSRouteCollection,
// TCPRouteCollection and computeRoute; conversion.go extractParentReferenceInfo,
// referenceAllowed, filteredReferences, convertTLSRoute, convertTCPRoute, buildTCPDestination,
// buildTLSMatch, augmentTLSPortMatch, augmentTCPPortMatch, compatibleRoutesForHost and
// constrainTLSRoutesToListenerHost.

// kubeL4Parent is one accepted parent of a TLS or TCP route (routeParentReference after
// filteredReferences): a Gateway listener or the mesh.
type kubeL4Parent struct {
	internalName string
	mesh         bool
	// hosts are a mesh parent's hosts (the Service's cluster-local name, the ServiceEntry's
	// hosts); port its parentRef's port (0: none).
	hosts []string
	port  uint32
	// hostname is a Gateway listener's hostname ("" when it has none).
	hostname string
}

// kubeL4Parents mirrors extractParentReferenceInfo (sorted by parentRefString) and
// filteredReferences (accepted parents, sorted by internal name) for a route of kind routeKind.
func kubeL4Parents(parents map[string][]*kubeParent, refs []gatewayv1.ParentReference, hostnames []gatewayv1.Hostname, routeNs, routeKind string, in KubeRouteInputs) []kubeL4Parent {
	type keyed struct {
		key string
		p   kubeL4Parent
	}
	var all []keyed
	for _, ref := range refs {
		group, kind, ns := KubeParentRefDefaults(ref, routeNs)
		key := fmt.Sprintf("%s/%s/%s/%s/%d.%s", group, kind, ref.Name, ptrStr(ref.SectionName), ptrPort(ref.Port), ns)
		switch {
		case group == gatewayAPIGroup && kind == "Gateway":
			for _, p := range parents[ns+"/"+string(ref.Name)] {
				if !kubeReferenceAllowed(p, ref, hostnames, routeNs, routeKind) {
					continue
				}
				all = append(all, keyed{key, kubeL4Parent{internalName: p.internalName, hostname: p.originalHostname}})
			}
		default:
			// a Service or ServiceEntry that exists (kubeMeshParents); the mesh accepts every
			// route kind
			for _, m := range kubeMeshParents([]gatewayv1.ParentReference{ref}, routeNs, in) {
				all = append(all, keyed{key, kubeL4Parent{internalName: "mesh", mesh: true, hosts: m.hosts, port: m.port}})
			}
		}
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].key < all[j].key })
	sort.SliceStable(all, func(i, j int) bool { return all[i].p.internalName < all[j].p.internalName })
	out := make([]kubeL4Parent, len(all))
	for i, k := range all {
		out[i] = k.p
	}
	return out
}

func ptrStr[T ~string](p *T) string {
	if p == nil {
		return ""
	}
	return string(*p)
}

func ptrPort(p *gatewayv1.PortNumber) int32 {
	if p == nil {
		return 0
	}
	return int32(*p)
}

// kubeL4Destinations mirrors buildTCPDestination: backends of weight 0 are left out, a single
// backend gets weight 0; ok false on a hard error (istiod then generates no route for the rule
// and none for the route).
func kubeL4Destinations(refs []gatewayv1.BackendRef, ns, routeKind string, in KubeRouteInputs, enforceGrants bool) ([]*networking.RouteDestination, bool) {
	var out []*networking.RouteDestination
	for _, r := range refs {
		w := int32(1)
		if r.Weight != nil {
			w = *r.Weight
		}
		if w == 0 {
			continue
		}
		dst, ok := kubeBackendDestination(r, ns, routeKind, in, enforceGrants)
		if !ok {
			return nil, false
		}
		out = append(out, &networking.RouteDestination{Destination: dst, Weight: w})
	}
	if len(out) == 1 {
		out[0].Weight = 0
	}
	return out, true
}

// kubeL4ZeroWeight is what istiod routes a rule whose backends all weigh 0 to (convertTCPRoute,
// convertTLSRoute: connections are to be refused).
func kubeL4ZeroWeight() []*networking.RouteDestination {
	return []*networking.RouteDestination{{Destination: &networking.Destination{Host: "internal.cluster.local", Subset: "zero-weight",
		Port: &networking.PortSelector{Number: 65535}}}}
}

func kubeL4WeightSum(refs []gatewayv1.BackendRef) int32 {
	var s int32
	for _, r := range refs {
		if r.Weight == nil {
			s++
		} else {
			s += *r.Weight
		}
	}
	return s
}

// kubeL4VirtualService is one generated VirtualService of a TLS or TCP route.
func kubeL4VirtualService(meta metav1.ObjectMeta, kind, name, host, gateway string) *networkingv1.VirtualService {
	vs := &networkingv1.VirtualService{
		TypeMeta: metav1.TypeMeta{APIVersion: "networking.istio.io/v1", Kind: "VirtualService"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: meta.Namespace, CreationTimestamp: meta.CreationTimestamp,
			Annotations: map[string]string{AnnotationRouteSemantics: "gateway", AnnotationParents: kind + "/" + meta.Name + "." + meta.Namespace}},
	}
	vs.Spec.Hosts = []string{host}
	vs.Spec.Gateways = []string{gateway}
	return vs
}

// ConvertTLSRoutes returns the VirtualServices istiod generates from TLSRoutes.
func ConvertTLSRoutes(routes []*gatewayv1.TLSRoute, in KubeRouteInputs) []*networkingv1.VirtualService {
	parents := kubeParents(in)
	var out []*networkingv1.VirtualService
	for _, obj := range routes {
		refs := kubeL4Parents(parents, obj.Spec.ParentRefs, obj.Spec.Hostnames, obj.Namespace, "TLSRoute", in)
		if len(refs) == 0 {
			continue
		}
		convert := func(mesh bool) []*networking.TLSRoute {
			var rs []*networking.TLSRoute
			for _, r := range obj.Spec.Rules {
				if kubeL4WeightSum(r.BackendRefs) == 0 {
					rs = append(rs, &networking.TLSRoute{Route: kubeL4ZeroWeight()})
					continue
				}
				dests, ok := kubeL4Destinations(r.BackendRefs, obj.Namespace, "TLSRoute", in, !mesh)
				if !ok {
					return nil
				}
				rs = append(rs, &networking.TLSRoute{Match: []*networking.TLSMatchAttributes{{SniHosts: kubeHostnames(obj.Spec.Hostnames)}}, Route: dests})
			}
			return rs
		}
		meshRoutes, gwRoutes := convert(true), convert(false)
		count := 0
		for _, p := range refs {
			rs := gwRoutes
			hosts := kubeHostnames(obj.Spec.Hostnames)
			switch {
			case p.mesh:
				hosts = p.hosts
				rs = kubeAugmentTLSPortMatch(meshRoutes, p.port, hosts)
			case p.hostname != "":
				hosts = kubeHostIntersection(hosts, []string{p.hostname})
				rs = kubeConstrainTLSRoutes(rs, p.hostname)
			}
			for _, h := range hosts {
				vs := kubeL4VirtualService(obj.ObjectMeta, "TLSRoute", obj.Name+"~tls~"+strconv.Itoa(count)+"~istio-autogenerated-k8s-gateway", h, p.internalName)
				filtered := rs
				if p.mesh {
					filtered = kubeCompatibleTLSRoutes(rs, h)
				}
				vs.Spec.Tls = filtered
				out = append(out, vs)
				count++
			}
		}
	}
	return out
}

// ConvertTCPRoutes returns the VirtualServices istiod generates from TCPRoutes.
func ConvertTCPRoutes(routes []*gatewayv1.TCPRoute, in KubeRouteInputs) []*networkingv1.VirtualService {
	parents := kubeParents(in)
	var out []*networkingv1.VirtualService
	for _, obj := range routes {
		refs := kubeL4Parents(parents, obj.Spec.ParentRefs, nil, obj.Namespace, "TCPRoute", in)
		if len(refs) == 0 {
			continue
		}
		convert := func(mesh bool) []*networking.TCPRoute {
			var rs []*networking.TCPRoute
			for _, r := range obj.Spec.Rules {
				if kubeL4WeightSum(r.BackendRefs) == 0 {
					rs = append(rs, &networking.TCPRoute{Route: kubeL4ZeroWeight()})
					continue
				}
				dests, ok := kubeL4Destinations(r.BackendRefs, obj.Namespace, "TCPRoute", in, !mesh)
				if !ok {
					return nil
				}
				rs = append(rs, &networking.TCPRoute{Route: dests})
			}
			return rs
		}
		meshRoutes, gwRoutes := convert(true), convert(false)
		count := 0
		for _, p := range refs {
			rs, hosts := gwRoutes, []string{"*"}
			if p.mesh {
				rs, hosts = meshRoutes, p.hosts
				if p.port != 0 {
					rs = kubeAugmentTCPPortMatch(rs, p.port)
				}
			}
			for _, h := range hosts {
				vs := kubeL4VirtualService(obj.ObjectMeta, "TCPRoute", obj.Name+"~tcp~"+strconv.Itoa(count)+"~istio-autogenerated-k8s-gateway", h, p.internalName)
				vs.Spec.Tcp = rs
				out = append(out, vs)
				count++
			}
		}
	}
	return out
}

// kubeHostnames mirrors hostnameToStringList: a route's hostnames, or "*" when it has none.
func kubeHostnames(hs []gatewayv1.Hostname) []string {
	if len(hs) == 0 {
		return []string{"*"}
	}
	out := make([]string, len(hs))
	for i, h := range hs {
		out[i] = string(h)
	}
	return out
}

// kubeHostIntersection mirrors host.Names.Intersection: for each pair, the narrower of the two
// when one is a subset of the other, without repeats.
func kubeHostIntersection(a, b []string) []string {
	out := []string{}
	for _, x := range a {
		for _, y := range b {
			var n string
			switch {
			case HostSubsetOf(x, y):
				n = x
			case HostSubsetOf(y, x):
				n = y
			default:
				continue
			}
			if !slices.Contains(out, n) {
				out = append(out, n)
			}
		}
	}
	return out
}

// kubeAugmentTLSPortMatch mirrors augmentTLSPortMatch: for a mesh parent, a route matching any
// SNI matches the parent's hosts instead, and every match requires the parentRef's port.
func kubeAugmentTLSPortMatch(routes []*networking.TLSRoute, port uint32, parentHosts []string) []*networking.TLSRoute {
	out := make([]*networking.TLSRoute, 0, len(routes))
	for _, r := range routes {
		r = r.DeepCopy()
		if len(r.Match) == 1 && slices.Equal(r.Match[0].SniHosts, []string{"*"}) {
			r.Match[0].SniHosts = slices.Clone(parentHosts)
		}
		for _, m := range r.Match {
			if port != 0 {
				m.Port = port
			}
		}
		out = append(out, r)
	}
	return out
}

// kubeCompatibleTLSRoutes mirrors compatibleRoutesForHost: in the VirtualService of one mesh
// host, a match of several SNI hosts keeps those the host matches.
func kubeCompatibleTLSRoutes(routes []*networking.TLSRoute, host string) []*networking.TLSRoute {
	out := make([]*networking.TLSRoute, 0, len(routes))
	for _, r := range routes {
		if len(r.Match) == 1 && len(r.Match[0].SniHosts) > 1 {
			r = r.DeepCopy()
			snis := []string{}
			for _, h := range r.Match[0].SniHosts {
				if HostMatches(host, h) {
					snis = append(snis, h)
				}
			}
			r.Match[0].SniHosts = snis
		}
		out = append(out, r)
	}
	return out
}

// kubeConstrainTLSRoutes mirrors constrainTLSRoutesToListenerHost: each match's SNI hosts
// narrowed to the listener's hostname; a route keeps only if a match still has hosts (or it has
// no match).
func kubeConstrainTLSRoutes(routes []*networking.TLSRoute, listenerHost string) []*networking.TLSRoute {
	out := make([]*networking.TLSRoute, 0, len(routes))
	for _, r := range routes {
		r = r.DeepCopy()
		has := false
		for _, m := range r.Match {
			m.SniHosts = kubeHostIntersection(m.SniHosts, []string{listenerHost})
			has = has || len(m.SniHosts) > 0
		}
		if has || len(r.Match) == 0 {
			out = append(out, r)
		}
	}
	return out
}

// kubeAugmentTCPPortMatch mirrors augmentTCPPortMatch: every match (or a match of its own)
// requires the parentRef's port.
func kubeAugmentTCPPortMatch(routes []*networking.TCPRoute, port uint32) []*networking.TCPRoute {
	out := make([]*networking.TCPRoute, 0, len(routes))
	for _, r := range routes {
		r = r.DeepCopy()
		for _, m := range r.Match {
			m.Port = port
		}
		if len(r.Match) == 0 {
			r.Match = []*networking.L4MatchAttributes{{Port: port}}
		}
		out = append(out, r)
	}
	return out
}
