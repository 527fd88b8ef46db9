package plugin

import (
	"strings"
	"testing"

	"github.com/kubectl-egress/kubectl-egress/pkg/envoy"
)

// TestOtherProxyDump: a saved dump whose node id names another proxy than the one asked for is
// refused with a one-line error naming both (blind audit 72 3.3, where a sidecar's dump diffed
// as the gateway's read as a change not pushed yet); one of the proxy asked for, or without an
// Istio node id, is read.
func TestOtherProxyDump(t *testing.T) {
	const gw = "router~10.0.0.9~istio-egressgateway-7d9c-x2.istio-system~istio-system.svc.cluster.local"
	const sc = "sidecar~10.0.1.7~sleep-5d8f7-xyz.team-a~team-a.svc.cluster.local"
	for _, c := range []struct {
		node, typ, ns, prefix, pod string
		refused                    bool
	}{
		{gw, "router", "istio-system", "istio-egressgateway", "", false},
		{gw, "router", "istio-system", "other-gateway", "", true},
		{sc, "router", "istio-system", "istio-egressgateway", "", true},
		{sc, "sidecar", "team-a", "", "sleep-5d8f7-xyz", false},
		{sc, "sidecar", "team-b", "", "", true},
		{"", "router", "istio-system", "istio-egressgateway", "", false},
	} {
		err := otherProxyDump(&envoy.Dump{Node: c.node}, "d.json", c.typ, c.ns, c.prefix, c.pod)
		if (err != nil) != c.refused {
			t.Errorf("%q as %s %s: err %v, want refused %v", c.node, c.typ, c.ns, err, c.refused)
		}
		if err != nil && (!strings.Contains(err.Error(), "d.json is the dump of ") || strings.Contains(err.Error(), "\n")) {
			t.Errorf("error %q", err)
		}
	}
}
