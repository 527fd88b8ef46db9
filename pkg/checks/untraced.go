package checks

import (
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
