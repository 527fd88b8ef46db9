package checks

import (
	"fmt"
	"strings"

	networking "istio.io/api/networking/v1alpha3"
	networkingv1 "istio.io/client-go/pkg/apis/networking/v1"

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
)

func init() {
	Catalog = append(Catalog,
		CatalogEntry{PathIstioMTLSToExternal, LevelError, "UF", "A DestinationRule sets tls.mode ISTIO_MUTUAL for a host whose ServiceEntry says location MESH_EXTERNAL: the proxy (the client's sidecar, or the egress gateway) starts Istio mutual TLS with the mesh's certificates, which a server outside the mesh neither asks for nor answers with a certificate the mesh trusts: the handshake fails, 503 UF. ISTIO_MUTUAL belongs on the hop to the egress gateway; towards the external host use SIMPLE (to its TLS port) or no tls."},
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

// sidecarMTLSToEntry: the client's sidecar calls host's entry s straight (its own cluster): the
// path fails on sidecarEntryTLS's fault and carries its warnings.
func (tr *tracer) sidecarMTLSToEntry(v SidecarView, proxy string, drs *rules.DRLookup, s rules.Service, cluster, host string, cport uint32, subset string) bool {
	fault, hop, warnings := sidecarEntryTLS(tr.snap, v, drs, &s, cluster, host, cport, subset, proxy)
	tr.t.Warnings = append(tr.t.Warnings, warnings...)
	if fault != nil {
		tr.hop(proxy, "upstream tls", Fail, hop)
		tr.fail(fault.Code, "UF", fault.Resource, fault.Message, fault.Fix)
		return true
	}
	return false
}

// sidecarEntryTLS is what the TLS the client's sidecar (proxy, in words) originates on its own
// cluster for entry s (host port cport, subset) comes to: a fault that fails the call, with the
// hop's summary (Istio mTLS towards a MESH_EXTERNAL host, PathIstioMTLSToExternal; a credential
// Secret missing, PathCredentialMissing), and warnings (the credential not checked; auto mTLS
// towards labelled endpoints of a MESH_INTERNAL entry, PathAutoMTLSToEntry). The traced path and
// explain-listener read this one account.
func sidecarEntryTLS(snap *snapshot.Snapshot, v SidecarView, drs *rules.DRLookup, s *rules.Service, cluster, host string, cport uint32, subset, proxy string) (fault *Finding, hop string, warnings []Finding) {
	if s.Kind != rules.KindServiceEntry {
		return nil, "", nil
	}
	var t *networking.ClientTLSSettings
	dr := ""
	ch := drs.For(v.Namespace, v.Labels, s.Hostname, s.Namespace)
	if ch != nil {
		dr, t = ch.Ref(), ch.ClusterTLS(cport, subset)
	}
	if hop, msg, fix, ok := istioMTLSToExternal(s, t, dr, proxy, cluster, host, cport); ok {
		f := finding(PathIstioMTLSToExternal, "DestinationRule "+dr, msg, fix)
		return &f, hop, nil
	}
	if code, msg, fix, ok := sidecarCredential(snap, v, ch, t, cluster, host); ok {
		f := finding(code, "DestinationRule "+dr, msg, fix)
		if code != PathCredentialUnchecked {
			return &f, msg, nil
		}
		warnings = append(warnings, f)
	}
	autoOn, _ := autoMTLSFor(snap, v.Flags.MeshConfig, s.Namespace)
	if f, ok := autoMTLSToEntryWarning(snap, s, t, autoOn, proxy, cluster, host); ok {
		warnings = append(warnings, f)
	}
	return nil, "", warnings
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
