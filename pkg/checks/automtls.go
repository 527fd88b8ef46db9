package checks

import (
	"fmt"
	"strings"

	networking "istio.io/api/networking/v1alpha3"
	networkingv1 "istio.io/client-go/pkg/apis/networking/v1"

	"github.com/kubectl-egress/kubectl-egress/pkg/model"
	"github.com/kubectl-egress/kubectl-egress/pkg/rules"
	"github.com/kubectl-egress/kubectl-egress/pkg/snapshot"
)

// Istio mTLS towards what is not a proxy of the mesh.
const (
	// PathIstioMTLSToExternal: a DestinationRule sets tls.mode ISTIO_MUTUAL for a host its
	// ServiceEntry declares MESH_EXTERNAL: the proxy offers the mesh's workload certificate and
	// expects the server to present one, which no server outside the mesh does.
	PathIstioMTLSToExternal = "ISTIO_MTLS_TO_EXTERNAL_HOST"
	// PathAutoMTLSToEntry: auto mTLS sends Istio mTLS to the endpoints of a MESH_INTERNAL entry
	// that are labelled security.istio.io/tlsMode=istio (or name a serviceAccount): right for a
	// VM running Istio's proxy, a failed handshake for an external server.
	PathAutoMTLSToEntry = "AUTO_MTLS_TO_ENTRY_ENDPOINTS"
	// EgressProxyHTTPOnly: a Sidecar's egressProxy is a gateway port whose servers are all
	// HTTP: the TCP catch-all sends unknown hosts' raw TCP there too, and the gateway closes it.
	EgressProxyHTTPOnly = "EGRESS_PROXY_TAKES_TCP_TO_HTTP_PORT"
)

func init() {
	Catalog = append(Catalog,
		CatalogEntry{PathIstioMTLSToExternal, LevelError, "UF", "A DestinationRule sets tls.mode ISTIO_MUTUAL for a host whose ServiceEntry says location MESH_EXTERNAL: the proxy (the client's sidecar, or the egress gateway) starts Istio mutual TLS with the mesh's certificates, which a server outside the mesh neither asks for nor answers with a certificate the mesh trusts: the handshake fails, 503 UF. ISTIO_MUTUAL belongs on the hop to the egress gateway; towards the external host use SIMPLE (to its TLS port) or no tls."},
		CatalogEntry{EgressProxyHTTPOnly, LevelWarning, "", "A Sidecar's outboundTrafficPolicy.egressProxy names an egress gateway port whose servers are all HTTP. The sidecar's catch-alls send every unknown host there, TCP as well as HTTP: the gateway reads a TCP connection as HTTP and closes it. Declare the hosts reached over TCP (and route them to a TCP server), or accept that only HTTP leaves through the egressProxy."},
		CatalogEntry{PathAutoMTLSToEntry, LevelWarning, "", "A ServiceEntry with location MESH_INTERNAL lists endpoints labelled security.istio.io/tlsMode: istio (or naming a serviceAccount), and no DestinationRule sets tls for the host: auto mTLS sends those endpoints Istio mutual TLS. That is right when they run Istio's proxy (a VM in the mesh); for an external server the handshake fails, 503 UF."},
	)
}

// istioMTLSToExternal: the cluster a proxy uses for host port port (entry s, DestinationRule dr
// setting tls t) originates Istio mTLS to a MESH_EXTERNAL host. The words say what happens at
// proxy (its "sidecar NS" or "gateway NS/NAME").
//
// Mirrors istiod pilot/pkg/networking/core/cluster_tls.go buildUpstreamTLSSettings: an explicit
// tls.mode ISTIO_MUTUAL gets the mesh's certificates and SANs whatever the service's location
// (only auto mTLS skips MESH_EXTERNAL services).
func istioMTLSToExternal(s *rules.Service, t *networking.ClientTLSSettings, dr, proxy, cluster, host string, port uint32) (hop, msg, fix string, ok bool) {
	if s == nil || t.GetMode() != networking.ClientTLSSettings_ISTIO_MUTUAL || s.Kind != rules.KindServiceEntry || !strings.EqualFold(s.Location, "MESH_EXTERNAL") {
		return "", "", "", false
	}
	hop = fmt.Sprintf("%s originates Istio mTLS (DestinationRule %s tls.mode ISTIO_MUTUAL) to %s, which %s declares MESH_EXTERNAL", cluster, dr, host, s.Ref())
	msg = fmt.Sprintf("DestinationRule %s sets tls.mode ISTIO_MUTUAL for %s, so %s starts Istio mutual TLS with the mesh's workload certificate towards %s port %d; %s declares the host MESH_EXTERNAL, and a server outside the mesh neither answers that handshake nor presents a certificate the mesh trusts: the handshake fails (503 UF at %s).", dr, host, proxy, host, port, s.Ref(), proxy)
	plain := true
	for _, p := range s.Ports {
		if p.Number == port {
			switch strings.ToUpper(p.Protocol) {
			case "HTTPS", "TLS":
				plain = false
			}
		}
	}
	if plain {
		fix = fmt.Sprintf("Remove the tls settings for %s port %d from DestinationRule %s (the host speaks plain %s there); keep ISTIO_MUTUAL for the hop to the egress gateway, in a DestinationRule for the gateway's Service. If the server is in fact a proxy of this mesh, declare the entry location MESH_INTERNAL.", host, port, dr, "traffic")
	} else {
		fix = fmt.Sprintf("Set tls.mode SIMPLE for %s port %d in DestinationRule %s (the host's own TLS, verified against its CA), or remove the tls settings if the client speaks TLS itself; keep ISTIO_MUTUAL for the hop to the egress gateway. If the server is in fact a proxy of this mesh, declare the entry location MESH_INTERNAL.", host, port, dr)
	}
	return hop, msg, fix, true
}

// autoMTLSEndpoints lists the endpoints of entry s (MESH_INTERNAL, no tls set for the cluster)
// to which auto mTLS sends Istio mTLS: those labelled security.istio.io/tlsMode=istio, or,
// without the label, naming a serviceAccount (getTLSModeFromWorkloadEntry).
func autoMTLSEndpoints(snap *snapshot.Snapshot, s *rules.Service) []string {
	if s == nil || s.Kind != rules.KindServiceEntry || strings.EqualFold(s.Location, "MESH_EXTERNAL") {
		return nil
	}
	se, _ := findObject(snap, snapshot.KindServiceEntry, s.Namespace, s.Name).(*networkingv1.ServiceEntry)
	if se == nil {
		return nil
	}
	var out []string
	for _, ep := range se.Spec.GetEndpoints() {
		mode, labelled := ep.GetLabels()[rules.LabelTLSMode]
		if mode == "istio" || !labelled && ep.GetServiceAccount() != "" {
			out = append(out, ep.GetAddress())
		}
	}
	return out
}

// autoMTLSToEntryWarning is the PathAutoMTLSToEntry warning for proxy's cluster to host, when
// auto mTLS applies (mesh setting on, no tls for the cluster: t nil).
func autoMTLSToEntryWarning(snap *snapshot.Snapshot, s *rules.Service, t *networking.ClientTLSSettings, autoOn bool, proxy, cluster, host string) (Finding, bool) {
	if t != nil || !autoOn {
		return Finding{}, false
	}
	eps := autoMTLSEndpoints(snap, s)
	if len(eps) == 0 {
		return Finding{}, false
	}
	msg := fmt.Sprintf("%s declares %s MESH_INTERNAL and its endpoint %s is labelled %s=istio (or names a serviceAccount), and no DestinationRule sets tls for %s: auto mTLS makes %s send Istio mutual TLS there. That works only if the endpoint runs Istio's proxy; an external server fails the handshake (503 UF at %s).", s.Ref(), host, strings.Join(eps, ", "), rules.LabelTLSMode, cluster, proxy, proxy)
	fix := fmt.Sprintf("If %s is outside the mesh, set location MESH_EXTERNAL on %s and drop the %s label (and serviceAccount) from its endpoints; if it runs Istio's proxy, nothing to change.", host, s.Ref(), rules.LabelTLSMode)
	return finding(PathAutoMTLSToEntry, "ServiceEntry "+s.Namespace+"/"+s.Name, msg, fix), true
}

// sidecarMTLSToEntry: the client's sidecar calls host's entry s straight (its own cluster),
// with Istio mTLS towards a MESH_EXTERNAL host (a failure, PathIstioMTLSToExternal) or auto mTLS
// towards endpoints of a MESH_INTERNAL entry labelled for it (a warning, PathAutoMTLSToEntry).
func (tr *tracer) sidecarMTLSToEntry(v SidecarView, proxy string, drs *rules.DRLookup, s rules.Service, cluster, host string, cport uint32, subset string) bool {
	if s.Kind != rules.KindServiceEntry {
		return false
	}
	var t *networking.ClientTLSSettings
	dr := ""
	ch := drs.For(v.Namespace, v.Labels, s.Hostname, s.Namespace)
	if ch != nil {
		dr, t = ch.Ref(), ch.ClusterTLS(cport, subset)
	}
	if hop, msg, fix, ok := istioMTLSToExternal(&s, t, dr, proxy, cluster, host, cport); ok {
		tr.hop(proxy, "upstream tls", Fail, hop)
		tr.fail(PathIstioMTLSToExternal, "UF", "DestinationRule "+dr, msg, fix)
		return true
	}
	if code, msg, fix, ok := sidecarCredential(tr.snap, v, ch, t, cluster, host); ok {
		if code == PathCredentialUnchecked {
			tr.t.Warnings = append(tr.t.Warnings, finding(code, "DestinationRule "+dr, msg, fix))
		} else {
			tr.hop(proxy, "upstream tls", Fail, msg)
			tr.fail(code, "UF", "DestinationRule "+dr, msg, fix)
			return true
		}
	}
	autoOn, _ := autoMTLSFor(tr.snap, v.Flags.MeshConfig, s.Namespace)
	if f, ok := autoMTLSToEntryWarning(tr.snap, &s, t, autoOn, proxy, cluster, host); ok {
		tr.t.Warnings = append(tr.t.Warnings, f)
	}
	return false
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

// sidecarCredential: the TLS a client's sidecar originates for cluster (DestinationRule choice
// ch, tls t) reads a credentialName (a rule with a workloadSelector; without one istiod drops the
// credential for sidecars, rules.SidecarDropsCredential) whose Secret is not in the sidecar's
// namespace (PathCredentialMissing), or was not read there (PathCredentialUnchecked).
// Mirrors istiod pilot/pkg/model/credentials/resource.go ParseResourceName and xds/sds.go (the
// proxy's own namespace), as credentialCheck does for gateways.
func sidecarCredential(snap *snapshot.Snapshot, v SidecarView, ch *rules.DRChoice, t *networking.ClientTLSSettings, cluster, host string) (code, msg, fix string, ok bool) {
	if ch == nil || t == nil || rules.SidecarDropsCredential(ch, t) {
		return "", "", "", false
	}
	if m := t.GetMode(); m != networking.ClientTLSSettings_SIMPLE && m != networking.ClientTLSSettings_MUTUAL {
		return "", "", "", false
	}
	cred := originationCredential(t)
	if cred == "" {
		return "", "", "", false
	}
	_, cd := credentialCheck(snap, cred, v.Namespace, originationNeedsCert(t))
	if cd == nil {
		return "", "", "", false
	}
	msg = fmt.Sprintf("DestinationRule %s makes the client's sidecars in %s originate TLS (tls.mode %s) for %s with credentialName %s, but %s", ch.Ref(), v.Namespace, t.GetMode(), cluster, cred, cd.problem)
	if cd.unchecked {
		return PathCredentialUnchecked, msg + ".", cd.fix, true
	}
	return PathCredentialMissing, msg + fmt.Sprintf(": the sidecar has no credential for the TLS handshake with %s, which fails (503 UF).", host), cd.fix, true
}
