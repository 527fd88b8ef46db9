package checks

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/kubectl-egress/kubectl-egress/pkg/model"
	"github.com/kubectl-egress/kubectl-egress/pkg/rules"
	"github.com/kubectl-egress/kubectl-egress/pkg/snapshot"
)

// GatewayRoute is a mesh route that sends the host's calls from client sidecars to a Kubernetes
// Service of gateway pods: a path why-missing traces hop by hop only when asked (--from, --pod).
type GatewayRoute struct {
	// VirtualService is "namespace/name" of the mesh-bound VirtualService; Route, when istiod
	// generates it from a Kubernetes Gateway API route, that route ("TLSRoute namespace/name").
	VirtualService string `json:"virtualService"`
	Route          string `json:"route,omitempty"`
	// ExportTo is the VirtualService's declared exportTo (empty: the mesh default).
	ExportTo []string `json:"exportTo,omitempty"`
	// Service is the gateway Service the route sends to ("namespace/name"), Gateways the gateway
	// workloads it selects.
	Service  string   `json:"service"`
	Gateways []string `json:"gateways"`
	// Trace is the command that traces one such path.
	Trace string `json:"trace"`
}

// MeshRoutesThroughGateways lists the mesh-bound VirtualServices for host (exact or wildcard,
// delegates merged as istiod merges them) with a destination that is a Kubernetes Service
// selecting gateway workloads, with a why-missing --from command for each (the VirtualService's
// namespace when sidecars run there and the route is visible there, else the first client
// namespace it is exported to; routes exported to no client namespace are left out).
// defaultVSExport is meshConfig.defaultVirtualServiceExportTo.
func MeshRoutesThroughGateways(snap *snapshot.Snapshot, host string, port uint32, defaultVSExport []string) []GatewayRoute {
	svcByHost := map[string]rules.Service{}
	for _, svc := range snap.Services {
		svcByHost[rules.KubeServiceHost(svc)] = rules.KubeService(svc, nil)
	}
	clients := ClientNamespaces(snap)
	// the revision's view: it holds the VirtualServices istiod generates from Gateway API
	// routes too
	idx := model.VirtualServices(RevisionView(snap, snap.Revision), nil)
	var out []GatewayRoute
	seen := map[string]bool{}
	// A call to an entry's address takes the routes of the entry's hosts (the sidecar's virtual
	// hosts list the address as a domain).
	hosts := []string{host}
	if rules.IsIP(host) {
		for _, se := range snap.ServiceEntries {
			if slices.Contains(se.Spec.Addresses, host) {
				for _, h := range se.Spec.Hosts {
					hosts = append(hosts, strings.ToLower(h))
				}
			}
		}
	}
	// A call to an ExternalName Service takes the routes of its external name (the sidecar's
	// virtual host for it lists the alias's domains).
	if s, ok := svcByHost[host]; ok && s.ExternalName != "" {
		hosts = append(hosts, s.ExternalName)
	}
	for _, vs := range idx.WithGateway(rules.MeshGateway) {
		match := false
		for _, h := range vs.Spec.Hosts {
			for _, called := range hosts {
				if h != "*" && rules.HostMatches(called, strings.ToLower(rules.ResolveShortname(h, vs.Namespace))) {
					match = true
				}
			}
		}
		if !match {
			continue
		}
		dests, _ := idx.Merged(vs)
		for _, d := range dests {
			s, ok := svcByHost[strings.ToLower(d.Host)]
			if ok && s.ExternalName != "" {
				// an ExternalName Service: istiod routes to its external name's cluster
				// (route.go GetDestinationCluster)
				s, ok = svcByHost[s.ExternalName]
			}
			if !ok || d.Mirror {
				continue
			}
			gws := gatewayPodsOf(snap, s)
			if len(gws) == 0 || seen[vs.Namespace+"/"+vs.Name+"|"+s.Ref()] {
				continue
			}
			seen[vs.Namespace+"/"+vs.Name+"|"+s.Ref()] = true
			r := GatewayRoute{VirtualService: vs.Namespace + "/" + vs.Name, ExportTo: vs.Spec.ExportTo, Service: s.Namespace + "/" + s.Name}
			if from := rules.GeneratedFrom(vs.Annotations, vs.Namespace); len(from) > 0 {
				r.Route = from[0].String()
			}
			for _, g := range gws {
				r.Gateways = append(r.Gateways, g.Ref())
			}
			// A client namespace the route applies to: the VirtualService's own when sidecars
			// run there and it sees it, else the first client namespace it is exported to.
			export := vs.Spec.ExportTo
			if len(export) == 0 {
				export = defaultVSExport
			}
			if len(export) == 0 {
				export = []string{"*"} // istiod's default when meshConfig sets none
			}
			from := ""
			for _, ns := range append([]string{vs.Namespace}, clients...) {
				if slices.Contains(clients, ns) && rules.VirtualServiceVisible(vs.Namespace, export, ns) {
					from = ns
					break
				}
			}
			if from == "" {
				continue // exported to no namespace where sidecars run: no client takes this path
			}
			r.Trace = "kubectl egress why-missing " + host
			if port != 0 {
				r.Trace += " --port " + strconv.Itoa(int(port))
			}
			r.Trace += " --from " + from
			out = append(out, r)
		}
	}
	return out
}

// MarkUnroutedMeshCalls: in a report without a traced client, a gateway whose cluster for the
// host is present but where no route binds the host (its verdict OK, with the
// NO_ROUTE_THROUGH_GATEWAY note), while a mesh route sends the host's calls there (the report's
// UntracedPaths): the calls that reach the gateway get 404 NR (an HTTP listener's route
// configuration without a virtual host for the host; no filter chain for TLS and TCP). The
// verdict says so, as the traced path does (GATEWAY_NO_ROUTE_FOR_HOST, the Gateway serving the
// host on the workload to blame when there is one; blind audit 102 c12, where it said OK).
//
// Mirrors istiod pilot/pkg/networking/core/gateway.go buildGatewayHTTPRouteConfig (no virtual
// host for a host no bound VirtualService names: the blackhole virtual host answers 404).
func (r *Report) MarkUnroutedMeshCalls(snap *snapshot.Snapshot) {
	for i := range r.Gateways {
		g := &r.Gateways[i]
		if g.Cause != CauseOK || !g.Present || !slices.ContainsFunc(g.Warnings, func(f Finding) bool { return f.Code == "NO_ROUTE_THROUGH_GATEWAY" }) {
			continue
		}
		var mr *GatewayRoute
		for j, p := range r.UntracedPaths {
			if slices.Contains(p.Gateways, g.Gateway) {
				mr = &r.UntracedPaths[j]
				break
			}
		}
		if mr == nil {
			continue
		}
		via := "VirtualService " + mr.VirtualService
		if mr.Route != "" {
			via = mr.Route
		}
		culprit := via
		fix := fmt.Sprintf("Add a Gateway server for %s on %s and bind a VirtualService for %s to it with a route to %s, as Istio's egress gateway task does (https://istio.io/latest/docs/tasks/traffic-management/egress/egress-gateway/); or send the calls elsewhere from %s.", r.Host, g.Gateway, r.Host, r.Host, via)
		if w, err := FindWorkload(snap, g.Gateway); err == nil {
			view := RevisionView(snap, w.Revision)
			var serving []string
			for _, ms := range rules.MergeGatewayServers(gatewaysFor(view, w, ReadIstiodFlags(view, w.Revision).ScopeGWToNs.Value), gatewayTargetPorts(snap, w)) {
				if n := rules.GatewayName(ms.Gateway); ms.Dropped == "" && serverCovers(ms, r.Host) && !slices.Contains(serving, n) {
					serving = append(serving, n)
				}
			}
			if len(serving) == 1 {
				culprit = "Gateway " + serving[0]
				fix = fmt.Sprintf("Bind a VirtualService for %s to Gateway %s (gateways: [%s]) with a route to %s, as Istio's egress gateway task does (https://istio.io/latest/docs/tasks/traffic-management/egress/egress-gateway/).", r.Host, serving[0], serving[0], r.Host)
			}
		}
		g.Warnings = slices.DeleteFunc(g.Warnings, func(f Finding) bool { return f.Code == "NO_ROUTE_THROUGH_GATEWAY" })
		g.Cause, g.Culprit, g.Fix, g.Patch = PathGatewayNoRoute, culprit, fix, nil
		g.Message = fmt.Sprintf("%s sends %s from sidecars to this gateway (Service %s), but no VirtualService bound to a Gateway of %s routes it: the calls that reach the gateway get 404 NR (or, for TLS and TCP, no filter chain takes them).", via, r.Host, mr.Service, g.Gateway)
	}
}
