package checks

import (
	"fmt"

	networkingv1 "istio.io/client-go/pkg/apis/networking/v1"

	"github.com/kubectl-egress/kubectl-egress/pkg/model"
	"github.com/kubectl-egress/kubectl-egress/pkg/rules"
	"github.com/kubectl-egress/kubectl-egress/pkg/snapshot"
)

// EgressProxyHTTPOnly: a Sidecar's egressProxy is a gateway port whose servers are all HTTP: the
// TCP catch-all sends unknown hosts' raw TCP there too, and the gateway closes it.
const EgressProxyHTTPOnly = "EGRESS_PROXY_TAKES_TCP_TO_HTTP_PORT"

func init() {
	Catalog = append(Catalog,
		CatalogEntry{EgressProxyHTTPOnly, LevelWarning, "", "A Sidecar's outboundTrafficPolicy.egressProxy names an egress gateway port whose servers are all HTTP. The sidecar's catch-alls send every unknown host there, TCP as well as HTTP: the gateway reads a TCP connection as HTTP and closes it. Declare the hosts reached over TCP (and route them to a TCP server), or accept that only HTTP leaves through the egressProxy."},
	)
}

// egressProxyFix is the fix when the cluster of Sidecar's egressProxy (host chost) is absent
// from the sidecar: import the host, or name one that exists.
func egressProxyFix(snap *snapshot.Snapshot, v SidecarView, chost string) string {
	sc := "Sidecar " + v.Scope.Ref()
	if s, ok := v.Outbound.ScopeService(chost); ok {
		// imported: the port or the subset is what the cluster lacks (blind audit 92 c18, c20)
		port, subset, _, _ := parseClusterName(v.Scope.EgressProxy)
		if !hasPort(s, port) {
			return fmt.Sprintf("Set outboundTrafficPolicy.egressProxy.port.number of %s to a port %s declares (%s).", sc, s.Ref(), portList(s.Ports))
		}
		if subset != "" {
			return fmt.Sprintf("Define subset %s in a DestinationRule for %s that the sidecars of %s apply (their namespace, the Service's or the root namespace, exported to them), or remove the subset from the egressProxy of %s.", subset, chost, v.Namespace, sc)
		}
	}
	if svcs := model.Services(RevisionView(snap, v.Revision), v.Flags.MeshConfig).Shared(chost); len(svcs) > 0 {
		return fmt.Sprintf("Import the egressProxy host in %s: add \"%s/%s\" to spec.egress[].hosts (istiod does not import it by itself).", sc, svcs[0].Namespace, chost)
	}
	return fmt.Sprintf("Point outboundTrafficPolicy.egressProxy.host of %s at the full name of the egress gateway's Service (no Service or ServiceEntry declares %s; istiod uses the name as written), and import that host in spec.egress[].hosts.", sc, chost)
}

// egressProxyFindings: ROUTE_CLUSTER_ABSENT for each Sidecar whose outboundTrafficPolicy sends
// unknown hosts to an egressProxy whose cluster its sidecars do not have (istiod imports the
// egressProxy host like any other: only through spec.egress[].hosts). Checked for the Sidecar's
// namespace, with its workloadSelector's labels as the pod's (a root-namespace Sidecar: for the
// root namespace). Mirrors istiod httproute.go buildCatchAllVirtualHost and listener_builder.go
// buildOutboundCatchAllNetworkFiltersOnly (route.go GetDestinationCluster names the cluster).
func egressProxyFindings(snap *snapshot.Snapshot) []PreflightFinding {
	var out []PreflightFinding
	for _, sc := range snap.Sidecars {
		p := sc.Spec.GetOutboundTrafficPolicy()
		if p.GetEgressProxy().GetHost() == "" || p.GetMode().String() == rules.RegistryOnly {
			continue
		}
		v, proxy := sidecarHeader(snap, sc.Namespace, sc.Spec.GetWorkloadSelector().GetLabels(), nil)
		if v.Scope.Sidecar == nil || v.Scope.Sidecar.Namespace != sc.Namespace || v.Scope.Sidecar.Name != sc.Name || v.Scope.EgressProxy == "" {
			continue // another Sidecar applies there (checked on its own)
		}
		v.Outbound = rules.BuildSidecarOutbound(proxy)
		port, subset, host, ok := parseClusterName(v.Scope.EgressProxy)
		if !ok {
			continue
		}
		view, drs, _ := sidecarDRs(snap, v)
		reg := model.Services(view, v.Flags.MeshConfig)
		c := sidecarCluster(snap, v, drs, reg, host, port, subset)
		if c.Present {
			if f, ok := egressProxyHTTPOnly(snap, sc, reg, host, port, v.Scope.EgressProxy); ok {
				out = append(out, f)
			}
			continue
		}
		out = append(out, NewPreflightFinding(ListenerClusterAbsent, CheckPreflight, ResourceRef{Kind: "Sidecar", Namespace: sc.Namespace, Name: sc.Name}, "spec.outboundTrafficPolicy.egressProxy",
			fmt.Sprintf("Sidecar %s/%s sends every call to a host its sidecars do not know to its egressProxy, cluster %s, which those sidecars do not have (%s): such calls get 503 NC.", sc.Namespace, sc.Name, v.Scope.EgressProxy, c.Reason),
			egressProxyFix(snap, v, host)))
	}
	return out
}

// egressProxyHTTPOnly: the egressProxy (host port, cluster) is a Service of gateway pods with no
// server on the port's target (GATEWAY_NOT_LISTENING_ON_TARGET_PORT, an Error), or whose servers
// there are all HTTP (gateway.go: an HCM chain only), so the catch-all's TCP connections get
// closed there (the path's GATEWAY_NO_FILTER_CHAIN_FOR_CALL for such a call; a Warning).
func egressProxyHTTPOnly(snap *snapshot.Snapshot, sc *networkingv1.Sidecar, reg *model.Registry, host string, port uint32, cluster string) (PreflightFinding, bool) {
	for _, svc := range reg.Shared(host) {
		if svc.Kind != rules.KindService {
			continue
		}
		for _, w := range gatewayPodsOf(snap, svc) {
			target := port
			for _, k := range snap.Services {
				if k.Namespace != svc.Namespace || rules.KubeServiceHost(k) != svc.Hostname {
					continue
				}
				for _, p := range k.Spec.Ports {
					if uint32(p.Port) == port {
						if t, ok := targetPort(snap, w, p); ok && t != 0 {
							target = t
						}
					}
				}
			}
			view := RevisionView(snap, w.Revision)
			flags := ReadIstiodFlags(view, w.Revision)
			n, http := 0, 0
			for _, ms := range rules.MergeGatewayServers(gatewaysFor(view, w, flags.ScopeGWToNs.Value), gatewayTargetPorts(snap, w)) {
				if ms.Port != target || ms.Dropped != "" {
					continue
				}
				n++
				if ms.RouteName != "" && ms.Server.GetTls() == nil {
					http++
				}
			}
			if n == 0 {
				// no server on the port at all: every call the catch-all takes is refused
				// (blind audit 92 c24, where CI passed)
				return NewPreflightFinding(PathGatewayNotListen, CheckPreflight, ResourceRef{Kind: "Sidecar", Namespace: sc.Namespace, Name: sc.Name}, "spec.outboundTrafficPolicy.egressProxy",
					fmt.Sprintf("Sidecar %s/%s sends every call to a host its sidecars do not know to its egressProxy, cluster %s, but no Gateway server of %s uses port %d (its target port %d): the gateway has no listener there, and such calls fail (503 UF).", sc.Namespace, sc.Name, cluster, w.Ref(), port, target),
					fmt.Sprintf("Give %s a Gateway server on port %d (with routes for the hosts the egressProxy carries), or point the egressProxy at a port the gateway serves.", w.Ref(), port)), true
			}
			if n > 0 && n == http {
				return NewPreflightFinding(EgressProxyHTTPOnly, CheckPreflight, ResourceRef{Kind: "Sidecar", Namespace: sc.Namespace, Name: sc.Name}, "spec.outboundTrafficPolicy.egressProxy",
					fmt.Sprintf("Sidecar %s/%s sends every call to a host its sidecars do not know to its egressProxy, cluster %s, whose gateway %s has only HTTP servers on port %d (listener 0.0.0.0_%d): HTTP calls go through, but a TCP connection to an unknown host is read as HTTP and closed there.", sc.Namespace, sc.Name, cluster, w.Ref(), port, target),
					fmt.Sprintf("Declare the hosts the namespace reaches over TCP (ServiceEntries its sidecars import) and route them to a TCP or TLS server of the gateway; the egressProxy then carries only HTTP to unknown hosts.")), true
			}
		}
	}
	return PreflightFinding{}, false
}
