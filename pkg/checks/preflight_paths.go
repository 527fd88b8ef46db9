package checks

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kubectl-egress/kubectl-egress/pkg/model"
	"github.com/kubectl-egress/kubectl-egress/pkg/rules"
)

// tracePaths follows, from the sidecar of client namespace ns (view v), each call to an external
// host the sidecar's mesh routes send to an egress gateway Service, through the gateway (the
// path why-missing --from traces). A failing path is a finding with its cause; the path's
// warnings are findings too. Gateway hops are shared across namespaces (c.gatewayHops): only
// the client side is traced per namespace.
func (c *collector) tracePaths(v SidecarView, ns string, calls []hostPortCall, always map[hostPortCall]bool) (int, []pendingFinding) {
	c.gwRoutedMu.Lock()
	if c.gatewayHops == nil {
		c.gatewayHops = &hopCache{m: map[string]*gatewayHopRecord{}}
	}
	hops := c.gatewayHops
	c.gwRoutedMu.Unlock()
	traced := 0
	var out []pendingFinding
	client := "sidecar " + ns
	for _, q := range calls {
		imported := importedEntry(v.Outbound, q.host)
		kind := callKinds("", imported, q.port)[0]
		addr := v.CallAddress(q.host, imported)
		res := v.Outbound.Resolve(rules.Call{Host: q.host, Port: q.port, Kind: kind, Address: addr})
		if !always[q] && !c.toGateway(v, res) && !(c.routedThroughGateway(v, q.host) && directCall(res, q.host)) {
			continue
		}
		traced++
		tr := &tracer{snap: c.snap, t: &PathTrace{Client: client, Host: q.host, Port: q.port, Call: kind, Hops: []Hop{}}, gatewayHops: hops}
		if imported == nil {
			tr.hidden = hiddenEntries(c.snap, v, q.host, imported) // names what hides the host, as why-missing --from does
		}
		tr.trace(v, client, imported, q.host, q.port, kind)
		p := tr.t
		ctx := fmt.Sprintf("path from sidecar in %s, %s %s:%d", ns, strings.ToUpper(kind), q.host, q.port)
		if p.Failed() {
			res, field := ParseResourceRef(p.Culprit)
			msg := p.Message
			if p.gateway != nil {
				// as the gateway's own verdict reports it: one finding, both contexts
				msg = p.gateway.Message
				if field == "" {
					field = causeField(*p.gateway, res.Kind)
				}
			}
			f := NewPreflightFinding(p.Cause, CheckWhyMissing, res, field, msg, p.Fix)
			if p.Flag != "" {
				f.EnvoyFlag = p.Flag
			}
			out = append(out, pendingFinding{f: f, ctx: ctx, host: q.host, port: q.port})
		}
		for _, w := range p.Warnings {
			res, field := ParseResourceRef(w.Resource)
			out = append(out, pendingFinding{f: NewPreflightFinding(w.Code, CheckWhyMissing, res, field, w.Message, w.Fix), ctx: ctx, host: q.host, port: q.port})
		}
	}
	return traced, out
}

// toGateway says whether the sidecar's call goes to a Kubernetes Service that selects gateway
// workloads (the hop preflight traces further).
func (c *collector) toGateway(v SidecarView, res rules.CallResult) bool {
	if res.Error != "" || res.Cluster == "" {
		return false
	}
	_, _, chost, ok := parseClusterName(res.Cluster)
	if !ok {
		return false
	}
	svc, ok := v.Outbound.ScopeService(chost)
	return ok && svc.Kind == rules.KindService && len(gatewayPodsOf(c.snap, svc)) > 0
}

// routedThroughGateway says whether a VirtualService for host binds a Gateway (memoized per
// revision and host): a client calling such a host directly may be bypassing the gateway.
func (c *collector) routedThroughGateway(v SidecarView, host string) bool {
	key := v.Revision + "|" + host
	c.gwRoutedMu.Lock()
	r, ok := c.gwRouted[key]
	c.gwRoutedMu.Unlock()
	if ok {
		return r
	}
	x := model.VirtualServices(RevisionView(c.snap, v.Revision), v.Flags.MeshConfig.GetDefaultVirtualServiceExportTo())
	r = false
	for _, vs := range x.Relevant(host, nil) {
		if slices.ContainsFunc(rules.VSGateways(vs), func(g string) bool { return g != rules.MeshGateway }) {
			r = true
			break
		}
	}
	c.gwRoutedMu.Lock()
	if c.gwRouted == nil {
		c.gwRouted = map[string]bool{}
	}
	c.gwRouted[key] = r
	c.gwRoutedMu.Unlock()
	return r
}

// directCall: the sidecar sends the call straight out (PassthroughCluster or the host's own
// cluster).
func directCall(res rules.CallResult, host string) bool {
	if res.Error != "" || res.DirectResponse != 0 {
		return false
	}
	if res.Cluster == rules.PassthroughCluster {
		return true
	}
	_, _, chost, ok := parseClusterName(res.Cluster)
	return ok && chost == host
}

// hostPortCall is one host:port a client sidecar's mesh routes cover.
type hostPortCall struct {
	host string
	port uint32
}
