package checks

import (
	"fmt"

	"github.com/kubectl-egress/kubectl-egress/pkg/rules"
	"github.com/kubectl-egress/kubectl-egress/pkg/snapshot"
)

// headlessEndpointCall: a call by name to a TCP or sniffed port of a headless Kubernetes Service
// the sidecar of v holds, when the input has none of its endpoints (its pods are not in the
// manifests, and a live run reads gateway pods only): the name resolves to an endpoint's
// address, and istiod gives every endpoint of such a port a listener of its own, bound to that
// address, whose chain goes to the Service's cluster. The result of the call there, whether the
// endpoint's listener is assumed (none in the input), and true. With endpoints in the input, the
// call is resolved at the first one's address (the model built their listeners).
// Without endpoints in the input the model builds no such listener, and the call would seem to
// take virtualOutbound (BlackHoleCluster under REGISTRY_ONLY: blind audit 112 c54, c55, where
// the fix asked for a ServiceEntry for the Service).
//
// Mirrors istiod pilot/pkg/networking/core/listener.go buildSidecarOutboundListeners (a listener
// per endpoint address for Passthrough services on TCP or unsupported ports,
// ServiceEndpointsByPort) and pilot/pkg/serviceregistry/kube/conversion.go (headless: resolution
// Passthrough). A name the cluster's DNS resolves has endpoints, so the call has its listener.
func headlessEndpointCall(snap *snapshot.Snapshot, v SidecarView, host string, port uint32, kind string, res rules.CallResult) (out rules.CallResult, assumed, ok bool) {
	if v.Outbound == nil || rules.IsIP(host) || (res.Listener != rules.VirtualOutbound && !res.Default) {
		return res, false, false
	}
	s, ok := v.Outbound.ScopeService(host)
	if !ok || s.Kind != rules.KindService || s.Resolution != "Headless" || len(s.WorkloadSelector) == 0 {
		return res, false, false
	}
	var sp *rules.ServicePort
	for i, p := range s.Ports {
		if p.Number == port {
			sp = &s.Ports[i]
		}
	}
	if sp == nil {
		return res, false, false
	}
	if c := rules.ListenerClass(sp.Protocol); c != rules.ClassTCP && c != rules.ClassAuto {
		return res, false, false
	}
	if eps := endpointAddresses(RevisionView(snap, v.Revision), nil, s, port); len(eps) > 0 {
		// its endpoints are in the input: the model has their listeners, and the call goes to
		// the first one's address (any of them: each has the same chain)
		return v.Outbound.Resolve(rules.Call{Host: host, Port: port, Kind: kind, Address: eps[0]}), false, true
	}
	cluster := rules.ClusterName(port, "", host)
	return rules.CallResult{Listener: fmt.Sprintf("<endpoint>_%d", port), Cluster: cluster,
		Chain: &rules.FilterChain{Service: s.Ref(), Host: host, Protocol: sp.Protocol, Cluster: cluster}}, true, true
}

// headlessEndpointNote says what headlessEndpointCall assumed.
func headlessEndpointNote(host string, port uint32) string {
	return fmt.Sprintf("%s is a headless Service: a call by name goes to one of its endpoints' addresses, and istiod builds a listener for each endpoint on port %d (<endpoint>_%d) that sends it to the Service's cluster. The input holds none of its endpoints (pods; EndpointSlices are not read), so those listeners are not listed.", host, port, port)
}
