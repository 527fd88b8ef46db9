package checks

import (
	"fmt"

	networking "istio.io/api/networking/v1alpha3"
	networkingv1 "istio.io/client-go/pkg/apis/networking/v1"

	"github.com/kubectl-egress/kubectl-egress/pkg/model"
	"github.com/kubectl-egress/kubectl-egress/pkg/rules"
	"github.com/kubectl-egress/kubectl-egress/pkg/snapshot"
)

// plainPort80: port of entry svc is declared plain HTTP (HTTP, HTTP2, GRPC) and the server
// behind it listens on port 80 (the port itself, else its targetPort, else the one port every
// inline endpoint serves it on): the well-known plaintext HTTP port, where no server answers a
// TLS handshake. A port whose targetPort moves it elsewhere (Istio's TLS origination task:
// port 80, targetPort 443), or whose endpoints serve it on different ports, is not judged.
func plainPort80(svc rules.Service, port uint32) (rules.ServicePort, bool) {
	if svc.Kind != rules.KindServiceEntry {
		return rules.ServicePort{}, false
	}
	p, ok := portDeclared(svc, port)
	if !ok || !rules.IsHTTPProtocol(p.Protocol) {
		return rules.ServicePort{}, false
	}
	server := p.Number
	if p.TargetPort != 0 {
		server = p.TargetPort
	}
	if svc.Endpoints > 0 {
		if p.EndpointPort == 0 {
			return rules.ServicePort{}, false
		}
		server = p.EndpointPort
	}
	return p, server == 80
}

// originatesTLS: t originates TLS to the upstream itself (SIMPLE or MUTUAL).
func originatesTLS(t *networking.ClientTLSSettings) bool {
	return t.GetMode() == networking.ClientTLSSettings_SIMPLE || t.GetMode() == networking.ClientTLSSettings_MUTUAL
}

// tlsToPort80Text is the message and fix of TLS originated to port 80 by proxy (a client
// sidecar or a waypoint) under DestinationRule dr, and the fix as a change (the fix is its
// rendering): targetPort 443 on the entry's port, as Istio's egress TLS origination task
// writes it.
func tlsToPort80Text(snap *snapshot.Snapshot, proxy string, svc rules.Service, p rules.ServicePort, host, dr string, mode networking.ClientTLSSettings_TLSmode) (msg, fix string, patch *Patch) {
	served := "with no targetPort"
	switch {
	case svc.Endpoints > 0 && p.EndpointPort != 0 && p.EndpointPort != p.Number:
		served = fmt.Sprintf("served on port %d by its endpoints", p.EndpointPort)
	case p.TargetPort != 0:
		served = fmt.Sprintf("with targetPort %d", p.TargetPort)
	}
	msg = fmt.Sprintf("%s originates TLS to %s, whose server listens on port 80 (%s sets tls.mode %s for it), but %s declares port %d %s %s: servers on port 80 speak plain HTTP, so the TLS handshake fails (503 UF).", proxy, host, dr, mode, svc.Ref(), p.Number, p.Protocol, served)
	fix = fmt.Sprintf("If the TLS origination is meant (Istio's egress TLS origination task), give port %d of %s targetPort: 443, so the proxy sends the TLS to the server's TLS port; otherwise remove tls for port %d from %s.", p.Number, svc.Ref(), p.Number, dr)
	if se, _ := findObject(snap, snapshot.KindServiceEntry, svc.Namespace, svc.Name).(*networkingv1.ServiceEntry); se != nil {
		ports := asList(specOf(se, "spec")["ports"])
		for _, x := range ports {
			if m, ok := x.(map[string]any); ok && fmt.Sprint(m["number"]) == fmt.Sprint(p.Number) {
				m["targetPort"] = 443
			}
		}
		patch = newPatch("networking.istio.io/v1", snapshot.KindServiceEntry, se.Namespace, se.Name, fields{{"spec", fields{{"ports", ports}}}})
		patch.note = fmt.Sprintf(" (port %d sends to the server's TLS port 443, as Istio's egress TLS origination task does)", p.Number)
		fix = patch.Text()
		msg += fmt.Sprintf(" If the TLS origination is not meant, remove tls for port %d from %s instead of the change below.", p.Number, dr)
	}
	return msg, fix, patch
}

// sidecarTLSToPort80 fails the path when the client's sidecar sends an HTTP call straight to
// the host's own cluster on a port whose server listens on 80 (plainPort80) and the
// DestinationRule the sidecar applies originates TLS for it: the server answers the handshake
// with plain HTTP (blind audit 68 k7c, whose sidecar variant said OK as well).
//
// Mirrors istiod pilot/pkg/networking/core/cluster_tls.go buildUpstreamTLSSettings (SIMPLE or
// MUTUAL is applied whatever the port's protocol), cluster_builder.go applyUpstreamTLSSettings,
// push_context.go destinationRule (the lookup path).
func (tr *tracer) sidecarTLSToPort80(v SidecarView, proxy string, drs *rules.DRLookup, host string, cport uint32, subset, kind string) bool {
	if kind != rules.CallHTTP && kind != rules.CallHTTP2 {
		return false
	}
	s, ok := v.Outbound.ScopeService(host)
	if !ok {
		return false
	}
	p, ok := plainPort80(s, cport)
	if !ok {
		return false
	}
	ch := drs.For(v.Namespace, v.Labels, s.Hostname, s.Namespace)
	if ch == nil {
		return false
	}
	t := ch.ClusterTLS(cport, subset)
	if !originatesTLS(t) || rules.SidecarDropsCredential(ch, t) {
		return false
	}
	dr := "DestinationRule " + ch.Ref()
	tr.hop(proxy, "upstream tls", Fail, fmt.Sprintf("outbound|%d|%s|%s originates TLS (%s tls.mode %s) to %s port 80 (port %d of %s, declared %s)", cport, subset, host, dr, t.GetMode(), host, p.Number, s.Ref(), p.Protocol))
	msg, fix, patch := tlsToPort80Text(tr.snap, "The client's sidecar", s, p, host, dr, t.GetMode())
	tr.failFix(PathTLSToPlaintext, "UF", dr, msg, fix, patch)
	return true
}

// waypointTLSToPort80 is sidecarTLSToPort80 at waypoint b: an HTTP call to a port of the bound
// entry whose server listens on 80, under a DestinationRule the waypoint applies that
// originates TLS (blind audit 62 k7c, OK before).
//
// Mirrors istiod cluster_waypoint.go buildWaypointInboundVIP and buildWaypointTLSContext (the
// waypoint's inbound-vip cluster takes the DestinationRule's tls), push_context.go
// destinationRule.
func waypointTLSToPort80(snap, view *snapshot.Snapshot, flags IstiodFlags, b rules.WaypointBinding, svc rules.Service, host string, port uint32) (hop, culprit, msg, fix string, patch *Patch, ok bool) {
	p, ok := plainPort80(svc, port)
	if !ok {
		return "", "", "", "", nil, false
	}
	root := flags.MeshConfig.GetRootNamespace()
	if root == "" {
		root = view.IstioNamespace
	}
	ch := model.DestinationRules(view, root, flags.MeshConfig.GetDefaultDestinationRuleExportTo()).For(b.Waypoint.Namespace, nil, host, svc.Namespace)
	if ch == nil {
		return "", "", "", "", nil, false
	}
	t := ch.ClusterTLS(port, "")
	if !originatesTLS(t) {
		return "", "", "", "", nil, false
	}
	dr := "DestinationRule " + ch.Ref()
	msg, fix, patch = tlsToPort80Text(snap, "Waypoint "+b.Waypoint.String(), svc, p, host, dr, t.GetMode())
	return fmt.Sprintf("the waypoint originates TLS (%s tls.mode %s) to %s port 80 (port %d of %s, declared %s)", dr, t.GetMode(), host, p.Number, svc.Ref(), p.Protocol), dr, msg, fix, patch, true
}
