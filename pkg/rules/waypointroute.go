package rules

import (
	"fmt"
	"slices"
	"strings"

	networking "istio.io/api/networking/v1alpha3"
	networkingv1 "istio.io/client-go/pkg/apis/networking/v1"
)

// A waypoint's inbound side: the filter chains of its main_internal listener and the routes of
// their HTTP connection managers.
//
// Mirrors istiod pilot/pkg/networking/core/listener_waypoint.go buildWaypointInternal,
// getVirtualServiceForWaypoint, buildWaypointInboundHTTPRouteConfig, waypointInboundRoute,
// translateWaypointRoute, getWaypointDestinationCluster, portToSubset, getWaypointTCPRoutes,
// getTLSRouteMatch and getTCPRouteMatch.

// WaypointVirtualServices returns the mesh VirtualServices a waypoint in namespace wpNs applies
// to service host svcHost of namespace svcNs: those its namespace sees for the mesh gateway
// (private to wpNs, exported to it by name, public; each oldest first), written in wpNs or
// svcNs, with a host that matches svcHost.
func WaypointVirtualServices(all []*networkingv1.VirtualService, wpNs, svcHost, svcNs string, defaultExportTo []string) []*networkingv1.VirtualService {
	var out []*networkingv1.VirtualService
	for _, vs := range all {
		if len(vs.Spec.GetHosts()) == 0 || !slices.Contains(VSGateways(vs), MeshGateway) {
			continue
		}
		exp := EffectiveExportTo(vs.Spec.GetExportTo(), defaultExportTo)
		if slices.Contains(exp, ExportNone) || !VirtualServiceVisible(vs.Namespace, exp, wpNs) {
			continue
		}
		if vs.Namespace != wpNs && vs.Namespace != svcNs {
			continue
		}
		if slices.ContainsFunc(vs.Spec.GetHosts(), func(h string) bool { return HostMatches(strings.ToLower(ResolveShortname(h, vs.Namespace)), svcHost) }) {
			out = append(out, vs)
		}
	}
	SortGatewayVirtualServices(out, wpNs, defaultExportTo)
	return out
}

// WaypointMatchApplies: istiod's route translation keeps match m on the waypoint's listener
// port (sourceMatchHTTP with gateways {mesh} and the waypoint's namespace; route.go
// TranslateRoute drops a match for another port).
func WaypointMatchApplies(m *networking.HTTPMatchRequest, port uint32, wpNs string) bool {
	if m == nil {
		return true
	}
	if m.GetPort() != 0 && m.GetPort() != port {
		return false
	}
	if len(m.GetGateways()) > 0 {
		return slices.Contains(m.GetGateways(), MeshGateway)
	}
	return m.GetSourceNamespace() == "" || m.GetSourceNamespace() == wpNs
}

// WaypointHTTPRoutes are the routes of VirtualService vs on a waypoint's HTTP chain for port:
// a route without match ends the list; a match with sourceLabels is dropped (ambient has no
// source labels); a catch-all route ends the list. cluster names a destination's cluster.
func WaypointHTTPRoutes(vs *networkingv1.VirtualService, port uint32, wpNs string, cluster func(*networking.Destination) string) []RouteAction {
	var out []RouteAction
	ref := vs.Namespace + "/" + vs.Name
	action := func(r *networking.HTTPRoute, m *networking.HTTPMatchRequest) RouteAction {
		act := RouteAction{VirtualService: ref, Match: "/*", Plain: true, Name: r.GetName()}
		if m != nil {
			act.Match, act.Plain = matchString(m), plainMatch(m)
		}
		switch {
		case r.GetDirectResponse() != nil:
			act.DirectResponse = int(r.GetDirectResponse().GetStatus())
		case r.GetRedirect() != nil:
			act.DirectResponse = 1
		case len(r.GetRoute()) == 1:
			act.Cluster = cluster(r.GetRoute()[0].GetDestination())
		default:
			for _, w := range r.GetRoute() {
				if w.GetWeight() == 0 {
					continue
				}
				act.Weighted = append(act.Weighted, cluster(w.GetDestination()))
			}
		}
		return act
	}
	for _, r := range vs.Spec.GetHttp() {
		if r == nil {
			continue
		}
		if len(r.GetMatch()) == 0 {
			out = append(out, action(r, nil))
			break
		}
		done := false
		for _, m := range r.GetMatch() {
			if len(m.GetSourceLabels()) > 0 || !WaypointMatchApplies(m, port, wpNs) {
				continue
			}
			out = append(out, action(r, m))
			if catchAllMatch(m) {
				done = true
				break
			}
		}
		if done {
			break
		}
	}
	return out
}

// WaypointL4Route returns the destinations a waypoint's TCP chain for host:port takes from vss
// (WaypointVirtualServices): the first tls route whose match has exactly sniHosts [host] on the
// port (or no match), else the first tcp route matching the port (or without match); nil when
// none. A match naming sourceLabels or a sourceNamespace never applies: istiod matches these
// routes with no source labels and no source namespace (blind audit 85 c21, c24).
func WaypointL4Route(vss []*networkingv1.VirtualService, host string, port uint32) []*networking.RouteDestination {
	for _, vs := range vss {
		for _, r := range vs.Spec.GetTls() {
			if len(r.GetMatch()) == 0 {
				return r.GetRoute()
			}
			for _, m := range r.GetMatch() {
				if len(m.GetSniHosts()) != 1 || m.GetSniHosts()[0] != host {
					continue
				}
				if len(m.GetSourceLabels()) == 0 && m.GetSourceNamespace() == "" && l4MatchApplies(m.GetPort(), m.GetGateways(), port) {
					return r.GetRoute()
				}
			}
		}
	}
	for _, vs := range vss {
		for _, r := range vs.Spec.GetTcp() {
			if len(r.GetMatch()) == 0 {
				return r.GetRoute()
			}
			for _, m := range r.GetMatch() {
				if len(m.GetSourceLabels()) == 0 && m.GetSourceNamespace() == "" && l4MatchApplies(m.GetPort(), m.GetGateways(), port) {
					return r.GetRoute()
				}
			}
		}
	}
	return nil
}

// l4MatchApplies mirrors istiod matchTLS / matchTCP without source labels or namespace: the
// gateways (when set) include mesh, and the port (when set) is the listener's.
func l4MatchApplies(mport uint32, gws []string, port uint32) bool {
	if len(gws) > 0 && !slices.Contains(gws, MeshGateway) {
		return false
	}
	return mport == 0 || mport == port
}

// WaypointDestinationCluster names the cluster a waypoint route sends destination d to, from
// its listener port: an empty host is UnknownService; the port is the destination's, else the
// service's only port, else the listener's; svc is the service the waypoint's scope holds for the
// host (nil when none), bound whether it is bound to this waypoint. A bound (or unknown) host
// takes inbound-vip|<port>|http or tcp[/subset]|<host> (http for an HTTP or undeclared-protocol
// port, and for a port the service does not declare); any other host outbound|<port>|<subset>|<host>.
func WaypointDestinationCluster(d *networking.Destination, svc *Service, bound bool, listenerPort uint32) string {
	if d.GetHost() == "" {
		return UnknownServiceCluster
	}
	port := listenerPort
	switch {
	case d.GetPort().GetNumber() != 0:
		port = d.GetPort().GetNumber()
	case svc != nil && len(svc.Ports) == 1:
		port = svc.Ports[0].Number
	}
	if svc != nil && !bound {
		return ClusterName(port, d.GetSubset(), d.GetHost())
	}
	kind := "http"
	if svc != nil {
		if i := slices.IndexFunc(svc.Ports, func(p ServicePort) bool { return p.Number == port }); i >= 0 {
			if p := svc.Ports[i].Protocol; p != ProtoUnsupported && ListenerClass(p) != ClassHTTP {
				kind = "tcp"
			}
		}
	}
	if d.GetSubset() != "" {
		kind += "/" + d.GetSubset()
	}
	return fmt.Sprintf("inbound-vip|%d|%s|%s", port, kind, d.GetHost())
}
