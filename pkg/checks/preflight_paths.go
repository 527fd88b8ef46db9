package checks

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kubectl-egress/kubectl-egress/pkg/model"
	"github.com/kubectl-egress/kubectl-egress/pkg/rules"
)

// tracePaths traces the calls of client namespace ns (v is its predicted sidecar) that reach a
// gateway or are routed through one (always: traced whatever they reach), and returns how many
// it traced and the findings of those that fail.
func (c *collector) tracePaths(v SidecarView, ns string, calls []hostPortCall, always map[hostPortCall]bool) (int, []pendingFinding) {
	traced := 0
	var out []pendingFinding
	for _, q := range calls {
		ok, kind, fs := c.traceCall(v, q, always[q])
		if ok {
			traced++
		}
		out = appendPathFindings(out, fs, kind, q)
	}
	return traced, out
}

// l4RouteOnHTTPPort: when the call kind on q's port is HTTP, the kind (tls or tcp) of a mesh
// VirtualService route for q's host on that port; when it is TCP, tls for a mesh tls route on
// that port (clients speak TLS to a port the entry declares TCP); "" when there is none.
func (c *collector) l4RouteOnHTTPPort(v SidecarView, q hostPortCall, kind string) string {
	tcp := kind == rules.CallTCP
	if rules.ListenerClass(strings.ToUpper(kind)) != rules.ClassHTTP && !tcp {
		return ""
	}
	x := model.VirtualServices(RevisionView(c.snap, v.Revision), v.Flags.MeshConfig.GetDefaultVirtualServiceExportTo())
	for _, vs := range x.Relevant(q.host, nil) {
		if !slices.Contains(rules.VSGateways(vs), rules.MeshGateway) {
			continue
		}
		for _, r := range vs.Spec.GetTls() {
			for _, m := range r.GetMatch() {
				if m.GetPort() == q.port {
					return rules.CallTLS
				}
			}
		}
		if tcp {
			continue
		}
		for _, r := range vs.Spec.GetTcp() {
			for _, m := range r.GetMatch() {
				if m.GetPort() == q.port {
					return rules.CallTCP
				}
			}
		}
	}
	return ""
}

// appendPathFindings appends a traced call's findings with their place on the sidecar.
func appendPathFindings(out, fs []pendingFinding, kind string, q hostPortCall) []pendingFinding {
	if len(fs) == 0 {
		return out
	}
	for _, f := range fs {
		k := kind
		if f.kind != "" {
			k = f.kind
		}
		f.at = sidecarCtx{path: true, rest: fmt.Sprintf("%s %s:%d", strings.ToUpper(k), q.host, q.port)}
		out = append(out, f)
	}
	return out
}

// traceCall traces one call of the sidecar v when it reaches a gateway or is routed through one
// (or always): whether it did, the call kind, and the findings of the path (without context).
// A mesh tls or tcp route for the host on a port its entry declares HTTP is written for clients
// speaking TLS or TCP there: that call is traced too (its findings carry its kind).
func (c *collector) traceCall(v SidecarView, q hostPortCall, always bool) (bool, string, []pendingFinding) {
	ok, kind, fs := c.traceCallKind(v, q, always, "")
	if l4 := c.l4RouteOnHTTPPort(v, q, kind); l4 != "" {
		if ok4, _, fs4 := c.traceCallKind(v, q, true, l4); ok4 {
			ok = true
			for _, f := range fs4 {
				f.kind = l4
				fs = append(fs, f)
			}
		}
	}
	return ok, kind, fs
}

// traceCallKind is traceCall for a call of kind (""  the kind the port's protocol gives).
func (c *collector) traceCallKind(v SidecarView, q hostPortCall, always bool, kind string) (bool, string, []pendingFinding) {
	c.gwRoutedMu.Lock()
	if c.gatewayHops == nil {
		c.gatewayHops = &hopCache{m: map[string]*gatewayHopRecord{}}
	}
	hops := c.gatewayHops
	c.gwRoutedMu.Unlock()
	client := "sidecar " + v.Namespace
	imported := importedEntry(v.Outbound, q.host)
	if kind == "" {
		kind = callKinds("", kindEntry(c.snap, v, q.host, q.port, imported), q.port)[0]
	}
	addr := v.CallAddress(q.host, imported)
	res := v.Outbound.Resolve(rules.Call{Host: q.host, Port: q.port, Kind: kind, Address: addr})
	// a Gateway API rule with every backend at weight 0 answers 500 at the sidecar itself
	drained := res.DirectResponse == 500 && res.Route != nil && generatedVS(c.snap, res.Route.VirtualService)
	// A call the sidecar drops (BlackHoleCluster, the 502 of block_all) while a mesh route it
	// imports names the host: the namespace evidently calls it (a Sidecar that imports the
	// route but not the entry, say: the route's destinations reach CDS, not the listeners;
	// blind audit 36 N02c).
	dropped := (res.Cluster == rules.BlackHoleCluster || res.DirectResponse == 502) && importsMeshRouteFor(v, q.host)
	// a route that gives an egress gateway's Service weight 0 sends every call straight out
	// (the path warns: idleGatewayShare)
	idle := func() bool {
		_, ok := idleGatewayShareOf(c.snap, v, routeVSOf(res), q.host)
		return ok
	}
	if !always && !drained && !dropped && !c.toGateway(v, res) && !(directCall(res, q.host) && (c.routedThroughGateway(v, q.host) || routeVSOf(res) != "" && idle())) {
		return false, kind, nil
	}
	tr := &tracer{snap: c.snap, t: &PathTrace{Client: client, Host: q.host, Port: q.port, Call: kind, Hops: []Hop{}}, gatewayHops: hops}
	if imported == nil {
		tr.hidden = hiddenEntries(c.snap, v, q.host, imported) // names what hides the host, as why-missing --from does
	}
	tr.trace(v, client, imported, q.host, q.port, kind)
	// a kind the path rests on could not be read: no verdict, as why-missing --from says
	// (blind audit 108 R13, R15: a confident ROUTE_CLUSTER_ABSENT with DestinationRules unread)
	if tr.t.Failed() {
		tr.unreadInputs() // (a working path adds nothing: the report says it is incomplete)
	}
	p := tr.t
	var out []pendingFinding
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
		out = append(out, pendingFinding{f: f, host: q.host, port: q.port})
	} else if p.Level == LevelWarning && p.Cause != "" && p.Cause != PathOK {
		// a verdict that holds only for some requests (every route of the virtual host has
		// match conditions: the others get 404 NR; blind audit 91 c30, where CI passed): a
		// Warning
		res, field := ParseResourceRef(p.Culprit)
		out = append(out, pendingFinding{f: NewPreflightFinding(p.Cause, CheckWhyMissing, res, field, p.Message, p.Fix), host: q.host, port: q.port})
	}
	for _, w := range p.Warnings {
		res, field := ParseResourceRef(w.Resource)
		out = append(out, pendingFinding{f: NewPreflightFinding(w.Code, CheckWhyMissing, res, field, w.Message, w.Fix), host: q.host, port: q.port})
	}
	return true, kind, out
}

// importsMeshRouteFor: sidecar v imports a mesh VirtualService one of whose hosts is host.
func importsMeshRouteFor(v SidecarView, host string) bool {
	for _, vs := range v.Outbound.VirtualServicesMaybeFor(host) {
		if slices.Contains(rules.VSGateways(vs), rules.MeshGateway) && slices.ContainsFunc(vs.Spec.GetHosts(), func(h string) bool {
			return strings.EqualFold(rules.ResolveShortname(h, vs.Namespace), host)
		}) {
			return true
		}
	}
	return false
}

// toGateway says whether the sidecar's call goes to a Kubernetes Service that selects gateway
// workloads (the hop preflight traces further).
// A split counts when any of its shares goes to such a Service (the trace follows each share).
func (c *collector) toGateway(v SidecarView, res rules.CallResult) bool {
	cluster := followedCluster(res)
	if res.Error != "" || cluster == "" {
		return false
	}
	clusters := []string{cluster}
	if ws := weightedClusters(res); res.Cluster == "" && len(ws) > 1 {
		clusters = ws
	}
	for _, cl := range clusters {
		_, _, chost, ok := parseClusterName(cl)
		if !ok {
			continue
		}
		if svc, ok := v.Outbound.ScopeService(chost); ok && svc.Kind == rules.KindService && (len(gatewayPodsOf(c.snap, svc)) > 0 || len(gatewayPodsElsewhere(c.snap, svc)) > 0) {
			// a Service of gateway pods, or one selecting their labels from another namespace
			// (serviceInWrongNamespace)
			return true
		}
		if svc, ok := v.Outbound.ScopeService(chost); ok {
			if _, missed := gatewayMissedBy(c.snap, svc); missed {
				return true // a Service beside a gateway that selects none of its pods (serviceMissesGateway)
			}
		}
	}
	return false
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
	view := RevisionView(c.snap, v.Revision)
	x := model.VirtualServices(view, v.Flags.MeshConfig.GetDefaultVirtualServiceExportTo())
	r = false
	for _, vs := range append(x.Relevant(host, nil), wildcardGatewayRoutes(view, host)...) {
		if slices.ContainsFunc(rules.VSGateways(vs), func(g string) bool { return g != rules.MeshGateway }) {
			r = true
			break
		}
	}
	if !r && len(view.VirtualServices) < len(c.snap.VirtualServices) {
		// a VirtualService of another revision binding a Gateway: the trace says this
		// revision's istiod does not read it (otherRevisionRoute)
		all := model.VirtualServices(c.snap, v.Flags.MeshConfig.GetDefaultVirtualServiceExportTo())
		for _, vs := range all.Relevant(host, nil) {
			if !model.InRevision(vs.Labels, v.Revision) && slices.ContainsFunc(rules.VSGateways(vs), func(g string) bool { return g != rules.MeshGateway }) {
				r = true
				break
			}
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
	cluster := res.Cluster
	if ws := weightedClusters(res); cluster == "" && len(ws) == 1 {
		// a split whose other destinations weigh 0: istiod keeps weighted clusters of one
		// (route.go applyHTTPRouteDestination skips weight-0 destinations)
		cluster = ws[0]
	}
	_, _, chost, ok := parseClusterName(cluster)
	return ok && chost == host
}

// hostPortCall is one host:port a client sidecar's mesh routes cover.
type hostPortCall struct {
	host string
	port uint32
}

// captureBypasses: PATH_BYPASSES_GATEWAY for each call of namespace ns (calls) that its sidecars
// send to an egress gateway while the workloads of ns in the input send it straight out: none
// runs a proxy (unmeshed, unmeshedClient), every one leaves it out of the redirection to its
// sidecar (uncapturedClient), or some do either (partlyBypassingClient), as why-missing --from
// says. Worked out per namespace, outside the shared layers, only for namespaces with such
// workloads.
func (c *collector) captureBypasses(v SidecarView, ns string, calls []hostPortCall, unmeshed *Finding) []pendingFinding {
	var out []pendingFinding
	for _, q := range calls {
		imported := importedEntry(v.Outbound, q.host)
		addr := v.CallAddress(q.host, imported)
		f := unmeshed
		if f == nil {
			f = uncapturedClient(c.snap, ns, "", nil, q.port, addr, q.host)
		}
		if f == nil {
			f = partlyBypassingClient(c.snap, ns, q.port, addr, q.host)
		}
		if f == nil {
			continue
		}
		kind := callKinds("", kindEntry(c.snap, v, q.host, q.port, imported), q.port)[0]
		if !c.toGateway(v, v.Outbound.Resolve(rules.Call{Host: q.host, Port: q.port, Kind: kind, Address: addr})) {
			continue
		}
		res, field := ParseResourceRef(f.Resource)
		msg := strings.TrimSuffix(f.Message, "; the trace above shows what a sidecar would do.")
		if msg != f.Message {
			msg += "."
		}
		out = appendPathFindings(out, []pendingFinding{{f: NewPreflightFinding(f.Code, CheckWhyMissing, res, field, msg, f.Fix), host: q.host, port: q.port}}, kind, q)
	}
	return out
}
