package model

import (
	"maps"
	"slices"
	"strings"

	networkingv1 "istio.io/client-go/pkg/apis/networking/v1"

	"github.com/kubectl-egress/kubectl-egress/pkg/rules"
	"github.com/kubectl-egress/kubectl-egress/pkg/snapshot"
)

type kubeRoutesKey struct{}

// KubeRoutes returns the snapshot's Gateway API routes (HTTPRoute, GRPCRoute, TLSRoute,
// TCPRoute) in rules.KubeRoutes' order, built once per snapshot. Callers must not modify it.
func KubeRoutes(snap *snapshot.Snapshot) []rules.KubeRoute {
	return memo(snap, kubeRoutesKey{}, func() []rules.KubeRoute {
		return rules.KubeRoutes(snap.HTTPRoutes, snap.GRPCRoutes, snap.TLSRoutes, snap.TCPRoutes)
	})
}

type kubeRouteByRefKey struct{}

// KubeRoute returns the Gateway API route of kind (HTTPRoute, GRPCRoute, TLSRoute or TCPRoute),
// namespace and name, from an index built once per snapshot; ok is false when there is none.
func KubeRoute(snap *snapshot.Snapshot, kind, namespace, name string) (rules.KubeRoute, bool) {
	byRef := memo(snap, kubeRouteByRefKey{}, func() map[string]rules.KubeRoute {
		m := map[string]rules.KubeRoute{}
		for _, r := range KubeRoutes(snap) {
			k := r.Kind + "/" + r.Namespace + "/" + r.Name
			if _, dup := m[k]; !dup {
				m[k] = r
			}
		}
		return m
	})
	r, ok := byRef[kind+"/"+namespace+"/"+name]
	return r, ok
}

type entryRoutesKey struct{}

// RoutesOnEntries indexes the Gateway API routes by the ServiceEntries their parentRefs name
// (rules.KubeParentKind: group networking.istio.io, kind ServiceEntry), so the question "which
// routes attach to this entry" is answered without scanning every route (istiod's route
// collections key mesh routes by parent the same way: route_collections.go). A route naming
// the entry more than once is listed once; routes keep KubeRoutes' order.
type RoutesOnEntries struct {
	byEntry map[string][]rules.KubeRoute
}

// RoutesByEntry returns the index of snap, built once per snapshot.
func RoutesByEntry(snap *snapshot.Snapshot) *RoutesOnEntries {
	return memo(snap, entryRoutesKey{}, func() *RoutesOnEntries {
		x := &RoutesOnEntries{byEntry: map[string][]rules.KubeRoute{}}
		for _, r := range KubeRoutes(snap) {
			var seen []string
			for _, pr := range r.ParentRefs {
				kind, ns := rules.KubeParentKind(pr, r.Namespace)
				if kind != rules.KubeParentServiceEntry {
					continue
				}
				key := ns + "/" + string(pr.Name)
				if !slices.Contains(seen, key) {
					seen = append(seen, key)
					x.byEntry[key] = append(x.byEntry[key], r)
				}
			}
		}
		return x
	})
}

// Attached returns the routes with a parentRef naming ServiceEntry se.
func (x *RoutesOnEntries) Attached(se *networkingv1.ServiceEntry) []rules.KubeRoute {
	return x.byEntry[se.Namespace+"/"+se.Name]
}

type meshVSHostsKey struct{}

// MeshVirtualServiceHosts indexes the snapshot's VirtualServices bound to the mesh (rules.VSGateways
// names "mesh") by their hosts, resolved (rules.ResolveShortname) and lower-cased: exact hosts
// in a map, wildcard hosts in a list. Every revision's VirtualServices are in it.
type MeshVirtualServiceHosts struct {
	all      []*networkingv1.VirtualService
	exact    map[string][]int
	wildcard []int
}

// MeshVirtualServicesByHost returns the index of snap, built once per snapshot.
func MeshVirtualServicesByHost(snap *snapshot.Snapshot) *MeshVirtualServiceHosts {
	return memo(snap, meshVSHostsKey{}, func() *MeshVirtualServiceHosts {
		x := &MeshVirtualServiceHosts{all: snap.VirtualServices, exact: map[string][]int{}}
		for i, vs := range snap.VirtualServices {
			if !slices.Contains(rules.VSGateways(vs), rules.MeshGateway) {
				continue
			}
			for _, h := range vs.Spec.GetHosts() {
				h = strings.ToLower(rules.ResolveShortname(h, vs.Namespace))
				if strings.HasPrefix(h, "*") {
					x.wildcard = appendOnce(x.wildcard, i)
				} else {
					x.exact[h] = appendOnce(x.exact[h], i)
				}
			}
		}
		return x
	})
}

// Matching returns the mesh VirtualServices with a host that rules.HostMatches one of hosts
// (lower-cased), in the snapshot's order, each once.
func (x *MeshVirtualServiceHosts) Matching(hosts []string) []*networkingv1.VirtualService {
	hit := map[int]bool{}
	for _, want := range hosts {
		want = strings.ToLower(want)
		if strings.HasPrefix(want, "*") {
			// A wildcard entry host: any VirtualService host under it (rare; scan them).
			for h, idx := range x.exact {
				if rules.HostMatches(h, want) {
					for _, i := range idx {
						hit[i] = true
					}
				}
			}
		} else {
			for _, i := range x.exact[want] {
				hit[i] = true
			}
		}
		for _, i := range x.wildcard {
			if hit[i] {
				continue
			}
			for _, h := range x.all[i].Spec.GetHosts() {
				if h = strings.ToLower(rules.ResolveShortname(h, x.all[i].Namespace)); strings.HasPrefix(h, "*") && rules.HostMatches(h, want) {
					hit[i] = true
					break
				}
			}
		}
	}
	idx := slices.Sorted(maps.Keys(hit))
	out := make([]*networkingv1.VirtualService, len(idx))
	for j, i := range idx {
		out[j] = x.all[i]
	}
	return out
}
