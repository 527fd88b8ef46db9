package conformance

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kubectl-egress/kubectl-egress/pkg/checks"
	"github.com/kubectl-egress/kubectl-egress/pkg/model"
	"github.com/kubectl-egress/kubectl-egress/pkg/rules"
	"github.com/kubectl-egress/kubectl-egress/pkg/snapshot"
)

// Misroutes: a TCP or TLS call that a sidecar's listener hands to the cluster of another
// service (another entry's chain on a shared port caught it: a chain istiod dropped, a match-all
// tcp_proxy chain, another host's VirtualService route carried by that chain) reaches the wrong
// endpoints, and the plugin's traced path (why-missing --from) must fail on it; a call istiod
// sends to its own host's cluster, or down a chain that a VirtualService listing the called
// host built (its author meant it), must not fail as a misroute. istiod's side is read from its
// sidecar simulation: the cluster the call reaches and the VirtualService in the matched
// chain's metadata (tls.go buildSidecarOutboundTCPTLSFilterChainOpts, BuildConfigInfoMetadata).
// Calls to a resolution NONE service's cluster are left out: an ORIGINAL_DST cluster still
// reaches the address the client dialled.
//
// Only the ports where some call is misrouted on either side are traced (each trace costs a
// path search), with every TCP and TLS call on them as the controls.

// misrouteCheck is one traced call.
type misrouteCheck struct {
	ns, host, kind string
	port           uint32
	istiodCluster  string
	// misrouted: istiod sends the call to another service's cluster, not down a chain a
	// VirtualService for the host built. pluginCause is the plugin path's cause.
	misrouted   bool
	pluginCause string
}

// misrouteCauses are the path causes that say a call reached another service's cluster.
var misrouteCauses = map[string]bool{
	checks.PathWrongService:        true,
	checks.ListenerChainDropped:    true,
	checks.ListenerCatchAllTLSPort: true,
	checks.ListenerWellKnownPort:   true,
}

func (c misrouteCheck) agree() bool {
	if c.misrouted {
		return c.pluginCause != checks.PathOK
	}
	return !misrouteCauses[c.pluginCause]
}

func (c misrouteCheck) String() string {
	return fmt.Sprintf("from %s %s %s:%d: istiod %s (misrouted %t), plugin path %s", c.ns, c.kind, c.host, c.port, c.istiodCluster, c.misrouted, c.pluginCause)
}

// otherService: the call reaches the cluster of a service other than its host (and not a
// resolution NONE one).
func otherService(snap *snapshot.Snapshot, cluster, host string) bool {
	_, _, h, ok := parseCluster(cluster)
	if !ok || rules.HostMatches(h, host) {
		return false
	}
	for _, se := range snap.ServiceEntries {
		if se.Spec.GetResolution().String() != "NONE" {
			continue
		}
		for _, sh := range se.Spec.Hosts {
			if rules.NormalizeHost(sh) == h {
				return false
			}
		}
	}
	return true
}

// vsListsHost: the VirtualService "ns/name" lists a host matching host.
func vsListsHost(snap *snapshot.Snapshot, ref, host string) bool {
	// the revision's view: it also holds the VirtualServices generated from Gateway API routes
	for _, vs := range model.View(snap, snap.Revision).VirtualServices {
		if vs.Namespace+"/"+vs.Name != ref {
			continue
		}
		for _, h := range vs.Spec.Hosts {
			if rules.HostMatches(rules.ResolveShortname(h, vs.Namespace), host) {
				return true
			}
		}
	}
	return false
}

func compareMisroutes(t *testing.T, snap *snapshot.Snapshot, clients []proxySpec, lcs []listenerCheck) []misrouteCheck {
	labels := map[string]map[string]string{}
	for _, p := range clients {
		if _, ok := labels[p.ns]; !ok && len(p.annotations) == 0 {
			labels[p.ns] = p.labels
		}
	}
	type nsPort struct {
		ns   string
		port uint32
	}
	candidate := func(c listenerCheck) bool {
		return c.source != "unknown" && (c.kind == rules.CallTCP || c.kind == rules.CallTLS) && c.istiod.err == "" && c.plugin.err == ""
	}
	ports := map[nsPort]bool{}
	for _, c := range lcs {
		if _, ok := labels[c.ns]; ok && candidate(c) && (otherService(snap, c.istiod.cluster, c.host) || otherService(snap, c.plugin.cluster, c.host)) {
			ports[nsPort{c.ns, c.port}] = true
		}
	}
	var out []misrouteCheck
	seen := map[string]bool{}
	for _, c := range lcs {
		if !ports[nsPort{c.ns, c.port}] || !candidate(c) || c.dnsCompared {
			continue
		}
		if _, _, _, ok := parseCluster(c.istiod.cluster); !ok {
			continue // BlackHoleCluster, PassthroughCluster, weighted: not one service's
		}
		k := c.ns + "|" + c.host + "|" + c.kind + "|" + fmt.Sprint(c.port)
		if seen[k] {
			continue
		}
		seen[k] = true
		mc := misrouteCheck{ns: c.ns, host: c.host, kind: c.kind, port: c.port, istiodCluster: c.istiod.cluster,
			misrouted: otherService(snap, c.istiod.cluster, c.host) && !vsListsHost(snap, c.istiodChainVS, c.host)}
		_, _, h, _ := parseCluster(c.istiod.cluster)
		if !mc.misrouted && !rules.HostMatches(h, c.host) && !vsListsHost(snap, c.istiodChainVS, c.host) {
			continue // a resolution NONE service's cluster: neither side's verdict is checked
		}
		tr, err := checks.TracePath(snap, checks.PathOptions{Host: c.host, Port: c.port, From: c.ns, Call: c.kind, Labels: labels[c.ns], Annotations: injected(nil)})
		if err != nil {
			mc.pluginCause = "error: " + strings.SplitN(err.Error(), "\n", 2)[0]
		} else {
			mc.pluginCause = tr.Cause
		}
		out = append(out, mc)
	}
	return out
}

// writeMisrouteTables writes the misroute agreement of the generated matrix.
func writeMisrouteTables(w *strings.Builder, label string, rs []*result) {
	agree, total, wrong, wrongAgree := 0, 0, 0, 0
	for _, r := range rs {
		for _, c := range r.misrouteChecks {
			total++
			if c.misrouted {
				wrong++
			}
			if c.agree() {
				agree++
				if c.misrouted {
					wrongAgree++
				}
			}
		}
	}
	fmt.Fprintf(w, "misrouted calls, %s (a sidecar hands the call to another service's cluster): path verdicts agreeing %d/%d (misrouted by istiod %d/%d, controls %d/%d)\n",
		label, agree, total, wrongAgree, wrong, agree-wrongAgree, total-wrong)
}
