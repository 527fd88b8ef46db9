package model

import (
	"slices"
	"strings"

	networkingv1 "istio.io/client-go/pkg/apis/networking/v1"

	"github.com/kubectl-egress/kubectl-egress/internal/lazy"
	"github.com/kubectl-egress/kubectl-egress/pkg/rules"
	"github.com/kubectl-egress/kubectl-egress/pkg/snapshot"
)

// VirtualServiceIndex is the VirtualService index of one revision view under one
// defaultVirtualServiceExportTo: every root VirtualService's merged routes (delegates inlined,
// rules.MergedRoutes) computed once, and the VirtualServices by host, by destination host and
// by gateway. Lists keep the view's order.
//
// Mirrors istiod pilot/pkg/model/push_context.go initVirtualServices (per-gateway indexes,
// destinationsByGateway) and virtualservice.go mergeVirtualServices.
type VirtualServiceIndex struct {
	view   *snapshot.Snapshot
	export []string
	pos    map[*networkingv1.VirtualService]int
	merged []merged
	// byHost: exact (resolved, lower-case) hosts; wildcardHosts: VirtualServices with a
	// wildcard host (other than "*", which never makes one relevant to a host).
	byHost        map[string][]int
	wildcardHosts []int
	byDestHost    map[string][]int
	byGateway     map[string][]int
	// byGatewayAll: per gateway, the VirtualServices among byGateway's with the host "*".
	byGatewayAll map[string][]int
	// gwDests: GatewayDestinations of a gateway (and scope flag) grouped by lower-case
	// destination host, built on first use.
	gwDests *lazy.Map[gwDestKey, map[string][]rules.Dest]
}

type gwDestKey struct {
	gw    string
	scope bool
}

type merged struct {
	dests    []rules.Dest
	problems []rules.DelegateProblem
}

type vsKey struct{ export string }

// VirtualServices returns the VirtualService index of a revision view, built once per
// defaultVirtualServiceExportTo.
func VirtualServices(view *snapshot.Snapshot, defaultExportTo []string) *VirtualServiceIndex {
	return memo(view, vsKey{strings.Join(defaultExportTo, ",")}, func() *VirtualServiceIndex {
		x := &VirtualServiceIndex{view: view, export: defaultExportTo, pos: map[*networkingv1.VirtualService]int{},
			merged: make([]merged, len(view.VirtualServices)), byHost: map[string][]int{}, byDestHost: map[string][]int{}, byGateway: map[string][]int{}, byGatewayAll: map[string][]int{}}
		x.gwDests = lazy.New(func(k gwDestKey) map[string][]rules.Dest {
			by := map[string][]rules.Dest{}
			for _, d := range x.GatewayDestinations(k.gw, k.scope) {
				h := strings.ToLower(d.Host)
				by[h] = append(by[h], d)
			}
			return by
		})
		for i, vs := range view.VirtualServices {
			x.pos[vs] = i
			if len(vs.Spec.Hosts) == 0 {
				continue
			}
			d, p := rules.MergedRoutes(vs, view.VirtualServices, defaultExportTo)
			x.merged[i] = merged{d, p}
			wild := false
			for _, h := range vs.Spec.Hosts {
				if h == "*" {
					continue
				}
				r := strings.ToLower(rules.ResolveShortname(h, vs.Namespace))
				if strings.HasPrefix(r, "*") {
					wild = true
					continue
				}
				x.byHost[r] = appendOnce(x.byHost[r], i)
			}
			if wild {
				x.wildcardHosts = append(x.wildcardHosts, i)
			}
			for _, dd := range d {
				h := strings.ToLower(dd.Host)
				x.byDestHost[h] = appendOnce(x.byDestHost[h], i)
			}
			all := slices.Contains(vs.Spec.Hosts, "*")
			for _, g := range rules.VSGateways(vs) {
				x.byGateway[g] = appendOnce(x.byGateway[g], i)
				if all {
					x.byGatewayAll[g] = appendOnce(x.byGatewayAll[g], i)
				}
			}
		}
		return x
	})
}

func appendOnce(s []int, i int) []int {
	if n := len(s); n > 0 && s[n-1] == i {
		return s
	}
	return append(s, i)
}

// Merged returns the merged routes of a root VirtualService of the view, as rules.MergedRoutes
// does; for other objects it computes them.
func (x *VirtualServiceIndex) Merged(vs *networkingv1.VirtualService) ([]rules.Dest, []rules.DelegateProblem) {
	if i, ok := x.pos[vs]; ok && len(vs.Spec.Hosts) > 0 {
		return x.merged[i].dests, x.merged[i].problems
	}
	return rules.MergedRoutes(vs, x.view.VirtualServices, x.export)
}

// DefaultExportTo is the defaultVirtualServiceExportTo the index was built with.
func (x *VirtualServiceIndex) DefaultExportTo() []string { return x.export }

func (x *VirtualServiceIndex) list(idx []int) []*networkingv1.VirtualService {
	out := make([]*networkingv1.VirtualService, len(idx))
	for i, j := range idx {
		out[i] = x.view.VirtualServices[j]
	}
	return out
}

// WithGateway returns the root VirtualServices whose resolved gateways list gw
// ("namespace/name", or "mesh" for those that list it or none), in view order.
func (x *VirtualServiceIndex) WithGateway(gw string) []*networkingv1.VirtualService {
	return x.list(x.byGateway[gw])
}

// WithGatewayForAllHosts returns WithGateway's VirtualServices whose hosts include "*", in view
// order.
func (x *VirtualServiceIndex) WithGatewayForAllHosts(gw string) []*networkingv1.VirtualService {
	return x.list(x.byGatewayAll[gw])
}

// RoutingTo returns the root VirtualServices with a (merged) route destination whose host is h
// (case-insensitive), in view order.
func (x *VirtualServiceIndex) RoutingTo(h string) []*networkingv1.VirtualService {
	return x.list(x.byDestHost[strings.ToLower(h)])
}

// Relevant returns, in view order, the root VirtualServices one of whose hosts (other than
// "*") matches host (rules.HostMatches) or that route to one of destHosts (lower-case).
func (x *VirtualServiceIndex) Relevant(host string, destHosts []string) []*networkingv1.VirtualService {
	var idx []int
	if strings.HasPrefix(host, "*") {
		for i, vs := range x.view.VirtualServices {
			if len(vs.Spec.Hosts) == 0 {
				continue
			}
			for _, h := range vs.Spec.Hosts {
				if h != "*" && rules.HostMatches(strings.ToLower(rules.ResolveShortname(h, vs.Namespace)), host) {
					idx = append(idx, i)
					break
				}
			}
		}
	} else {
		idx = append(idx, x.byHost[host]...)
		for _, i := range x.wildcardHosts {
			vs := x.view.VirtualServices[i]
			for _, h := range vs.Spec.Hosts {
				if h != "*" && rules.HostMatches(strings.ToLower(rules.ResolveShortname(h, vs.Namespace)), host) {
					idx = append(idx, i)
					break
				}
			}
		}
	}
	for _, h := range destHosts {
		idx = append(idx, x.byDestHost[h]...)
	}
	slices.Sort(idx)
	return x.list(slices.Compact(idx))
}

// GatewayDestinationsTo returns the destinations of GatewayDestinations(gw, scopeToNamespace)
// whose host is host (case-insensitive), in the same order, from an index built once per gateway:
// a per-host question does not walk every route bound to the gateway. The slice is shared: do
// not modify it.
func (x *VirtualServiceIndex) GatewayDestinationsTo(gw string, scopeToNamespace bool, host string) []rules.Dest {
	return x.gwDests.Get(gwDestKey{gw, scopeToNamespace})[strings.ToLower(host)]
}

// GatewayDestinations returns what rules.GatewayDestinations returns for gateway gw, from the
// index.
func (x *VirtualServiceIndex) GatewayDestinations(gw string, scopeToNamespace bool) []rules.Dest {
	gwNs, _, _ := strings.Cut(gw, "/")
	var out []rules.Dest
	for _, i := range x.byGateway[gw] {
		for _, d := range x.merged[i].dests {
			if scopeToNamespace && d.HTTP != nil && !rules.HTTPRouteInSourceNamespace(d.HTTP, gwNs) {
				continue
			}
			out = append(out, d)
		}
	}
	return out
}
