package checks

import (
	"net/netip"
	"slices"
	"strings"
	"sync"

	meshv1alpha1 "istio.io/api/mesh/v1alpha1"
	networking "istio.io/api/networking/v1"
	networkingv1 "istio.io/client-go/pkg/apis/networking/v1"

	"github.com/kubectl-egress/kubectl-egress/internal/lazy"
	"github.com/kubectl-egress/kubectl-egress/pkg/model"
	"github.com/kubectl-egress/kubectl-egress/pkg/rules"
	"github.com/kubectl-egress/kubectl-egress/pkg/snapshot"
)

// Client sidecars in two layers (issue #13). Every client namespace without a Sidecar sees the
// same public configuration (entries, VirtualServices and DestinationRules exported to "*")
// plus what is private to it or exported to it by name: its delta. A call whose host and port
// the delta does not touch gets the same findings in every such namespace, so preflight works
// it out once, in a namespace that sees only the public layer, and each namespace reuses it.
// The delta is read from the model's indexes (no call is resolved to decide); a call it touches
// is worked out in the namespace's own predicted sidecar, as before.
//
// This mirrors what istiod's push context does with its indexes: ServiceIndex.public,
// exportedToNamespace and privateByNamespace (push_context.go initServiceRegistry), the same
// split for VirtualServices (initVirtualServices) and DestinationRules (setDestinationRules:
// namespaceLocal, exportedByNamespace); a proxy's SidecarScope is the public part plus its
// namespace's part. preflightUnshared turns it off; a test proves both give the same report.

// sharedNamespace is the client namespace the public layer is predicted in: not a valid
// Kubernetes name, so no object lives there and no exportTo names it.
const sharedNamespace = "(shared)"

// listener shapes of a service port on a sidecar's wildcard listener (0.0.0.0:port).
const (
	shapeHTTP uint8 = 1 << iota // HTTP connection manager: one virtual host per service
	shapeTLS                    // TLS inspector: one filter chain per SNI
	shapeTCP                    // anything else: catch-all chains that conflict
)

// sharedLayer is the public layer of one revision's client sidecars.
type sharedLayer struct {
	view SidecarView
	ok   bool
	// shapes and addrs: per port, the wildcard-listener shapes of the public services and the
	// addresses of all public services with the hosts that declare each (calls to them carry
	// those addresses; a CIDR range matches calls by prefix).
	shapes map[uint32]uint8
	addrs  map[uint32]map[string][]string
	cidr   map[uint32]bool
	// ports: the ports of the public services of each host name (a namespace's own entry for
	// the host replaces them there); catchAll: the ports on which a host's public entry is a
	// TCP catch-all chain (calls to other hosts land on it and take its route).
	ports    map[string][]uint32
	catchAll map[string][]uint32
	// always are hosts never shared: a VirtualService for them matches on sourceNamespace.
	always map[string]bool
	calls  *lazy.Map[hostPortCall, *sharedCall]
	narrowState
}

// sharedCall is what one call adds to preflight in the public layer.
type sharedCall struct {
	traced bool
	kind   string
	path   []pendingFinding // ctx set per namespace
	hosts  []hostResult
	// namespaced: some text names the client namespace, so it is worked out per namespace.
	namespaced bool
}

// layers holds one sharedLayer per revision, built on first use by any worker.
type layers struct {
	mu sync.Mutex
	m  map[string]*sharedLayer
}

func (c *collector) sharedLayerFor(rev string) *sharedLayer {
	c.layers.mu.Lock()
	defer c.layers.mu.Unlock()
	if c.layers.m == nil {
		c.layers.m = map[string]*sharedLayer{}
	}
	if l, ok := c.layers.m[rev]; ok {
		return l
	}
	var labels map[string]string
	if rev != c.snap.Revision {
		labels = map[string]string{RevisionLabel: rev}
	}
	l := &sharedLayer{view: BuildSidecarView(c.snap, sharedNamespace, labels), shapes: map[uint32]uint8{}, addrs: map[uint32]map[string][]string{},
		cidr: map[uint32]bool{}, ports: map[string][]uint32{}, catchAll: map[string][]uint32{}, always: map[string]bool{}}
	c.layers.m[rev] = l
	l.ok = l.view.Revision == rev && l.view.Scope.Sidecar == nil && !l.view.DNS.Capture && !l.view.Outbound.Proxy.AutoAllocated
	if !l.ok {
		return l
	}
	for _, s := range l.view.Outbound.Imported() {
		for _, p := range s.Ports {
			l.ports[s.Hostname] = append(l.ports[s.Hostname], p.Number)
			shape, own := portShape(s, p)
			if shape == 0 {
				continue
			}
			if len(s.Addresses) > 0 {
				if l.addrs[p.Number] == nil {
					l.addrs[p.Number] = map[string][]string{}
				}
				for _, a := range s.Addresses {
					l.addrs[p.Number][a] = append(l.addrs[p.Number][a], s.Hostname)
					l.cidr[p.Number] = l.cidr[p.Number] || isCIDR(a)
				}
			}
			if !own {
				l.shapes[p.Number] |= shape
				if shape == shapeTCP {
					l.catchAll[s.Hostname] = append(l.catchAll[s.Hostname], p.Number)
				}
			}
		}
	}
	for _, vs := range RevisionView(c.snap, rev).VirtualServices {
		if !matchesSourceNamespace(vs) {
			continue
		}
		if len(vs.Spec.Hosts) == 0 {
			l.ok = false // a delegate: the hosts it serves are not its own
			return l
		}
		for _, h := range vs.Spec.Hosts {
			l.always[strings.ToLower(rules.ResolveShortname(h, vs.Namespace))] = true
		}
	}
	l.calls = lazy.New(func(q hostPortCall) *sharedCall {
		sc := &sharedCall{}
		sc.traced, sc.kind, sc.path = c.traceCall(l.view, q, false)
		sc.hosts = hostCallResults(c, l.view, q)
		for _, p := range sc.path {
			sc.namespaced = sc.namespaced || mentionsNamespace(&p.f, sharedNamespace)
		}
		for _, h := range sc.hosts {
			sc.namespaced = sc.namespaced || h.namespaced || mentionsNamespace(h.pf, sharedNamespace)
		}
		return sc
	})
	return l
}

// mentionsNamespace: some text of the finding names namespace ns (so it is not shared with
// other namespaces).
func mentionsNamespace(f *PreflightFinding, ns string) bool {
	return strings.Contains(f.Message, ns) || strings.Contains(f.Fix, ns) || strings.Contains(f.Field, ns) ||
		strings.Contains(f.Resource.Namespace, ns) || strings.Contains(f.Resource.Name, ns)
}

// matchesSourceNamespace: some route of vs applies only to clients of one namespace.
func matchesSourceNamespace(vs *networkingv1.VirtualService) bool {
	for _, r := range vs.Spec.GetHttp() {
		if slices.ContainsFunc(r.GetMatch(), func(m *networking.HTTPMatchRequest) bool { return m.GetSourceNamespace() != "" }) {
			return true
		}
	}
	for _, r := range vs.Spec.GetTcp() {
		if slices.ContainsFunc(r.GetMatch(), func(m *networking.L4MatchAttributes) bool { return m.GetSourceNamespace() != "" }) {
			return true
		}
	}
	for _, r := range vs.Spec.GetTls() {
		if slices.ContainsFunc(r.GetMatch(), func(m *networking.TLSMatchAttributes) bool { return m.GetSourceNamespace() != "" }) {
			return true
		}
	}
	return false
}

// portShape is the listener a service port gets on a sidecar: own is true for a non-HTTP port
// of a service with addresses (a listener on each address), else shape is its kind on the
// wildcard listener (0 for UDP, which gets none).
//
// Mirrors istiod pilot/pkg/networking/core/listener.go buildSidecarOutboundListeners (bind to
// the service address for TCP, 0.0.0.0 for HTTP and for services without one).
func portShape(s rules.Service, p rules.ServicePort) (shape uint8, own bool) {
	cls := rules.ListenerClass(p.Protocol)
	switch {
	case p.Protocol == rules.ProtoUDP:
		return 0, false
	case cls == rules.ClassHTTP:
		return shapeHTTP, false
	case len(s.Addresses) > 0:
		return shapeTCP, true
	case rules.IsTLSProtocol(p.Protocol):
		return shapeTLS, false
	}
	return shapeTCP, false
}

// isCIDR: address a is a range (a Kubernetes Service's placeholder address offline,
// "<clusterIP of ns/name>", is not).
func isCIDR(a string) bool {
	_, err := netip.ParsePrefix(a)
	return err == nil
}

// namespaceDelta is what a client namespace sees beyond the public layer, as the hosts and
// ports whose calls it may change.
type namespaceDelta struct {
	exact   map[string]bool
	wild    []string
	tainted map[uint32]bool
}

// touches: the call's findings may differ from the public layer's.
func (d *namespaceDelta) touches(q hostPortCall) bool {
	if d.exact[q.host] || d.tainted[q.port] {
		return true
	}
	return slices.ContainsFunc(d.wild, func(w string) bool { return rules.HostMatches(w, q.host) })
}

func (d *namespaceDelta) touch(h string) {
	h = strings.ToLower(h)
	if strings.HasPrefix(h, "*") {
		if !slices.Contains(d.wild, h) {
			d.wild = append(d.wild, h)
		}
		return
	}
	d.exact[h] = true
}

// deltaOf returns namespace ns's delta over layer l, or nil when ns cannot share it (its own
// Sidecar, another revision, DNS capture, the root namespace).
func (c *collector) deltaOf(v SidecarView, l *sharedLayer) *namespaceDelta {
	// (auto-allocated addresses need DNS capture: sidecarHeader)
	if !l.ok || v.Scope.Sidecar != nil || v.Revision != l.view.Revision || v.DNS.Capture ||
		v.Scope.OutboundTrafficPolicy != l.view.Scope.OutboundTrafficPolicy {
		return nil
	}
	ns := v.Namespace
	mc := v.Flags.MeshConfig
	root := mc.GetRootNamespace()
	if root == "" {
		root = c.snap.IstioNamespace
	}
	if ns == root {
		return nil
	}
	view := RevisionView(c.snap, v.Revision)
	reg := model.Services(view, mc)
	d := &namespaceDelta{exact: map[string]bool{}, tainted: map[uint32]bool{}}
	// Services: those exported to ns (privately or by name), and the Kubernetes Services of ns
	// itself (their short names are domains only here).
	idx := deltaIndexOf(view, reg, mc)
	for _, s := range idx.restricted[ns] {
		d.touch(s.Hostname)
		if s.ExternalName != "" {
			d.touch(s.ExternalName)
		}
		// Where it declares a host the public layer has, it replaces those entries here: their
		// ports lose or change a service.
		for _, p := range l.ports[s.Hostname] {
			d.tainted[p] = true
		}
		for _, p := range s.Ports {
			shape, own := portShape(s, p)
			switch {
			case shape == 0:
			case s.Kind != rules.KindServiceEntry:
				d.tainted[p.Number] = true
			case own:
				// its own listener on each address: it catches calls to that address, that is
				// the calls of the public hosts with that address on the port (to a range: by
				// prefix, so any call on the port)
				for _, a := range s.Addresses {
					if len(l.addrs[p.Number]) > 0 && (l.cidr[p.Number] || isCIDR(a)) {
						d.tainted[p.Number] = true
					}
					for _, h := range l.addrs[p.Number][a] {
						d.touch(h)
					}
				}
			case shape == shapeTCP || l.shapes[p.Number] != shape:
				d.tainted[p.Number] = true
			}
		}
	}
	// No Sidecar: the sidecar imports every service exported to ns (its own namespace's among
	// them unless their exportTo leaves ns out).
	for _, s := range idx.own[ns] {
		if !rules.ServiceVisible(s.Namespace, s.ExportTo, ns) {
			if s.Kind == rules.KindServiceEntry && len(reg.Shared(s.Hostname)) > 1 {
				// hidden from its own namespace while another entry for the host may be held
				// there: its calls are traced for the namespace (hiddenOwnCalls), which is
				// predicted whole
				return nil
			}
			continue
		}
		if s.Kind == rules.KindService {
			d.touch(s.Hostname)
			d.touch(s.Name)
			d.touch(s.Name + "." + ns)
			d.touch(s.Name + "." + ns + ".svc")
		}
		// A host declared in several namespaces: a proxy prefers its own namespace's entry
		// (sidecar.go SelectServices), the public layer the oldest.
		if all := reg.ForHost(s.Hostname); len(all) > 1 {
			d.touch(s.Hostname)
			for _, o := range all {
				for _, p := range o.Ports {
					d.tainted[p.Number] = true
				}
			}
		}
	}
	// VirtualServices exported to ns but not to every namespace: their hosts and destinations.
	vsx := model.VirtualServices(view, mc.GetDefaultVirtualServiceExportTo())
	for _, vs := range idx.vs[ns] {
		if len(vs.Spec.Hosts) == 0 {
			return nil // a delegate private to ns: merged into routes of any namespace
		}
		for _, h := range vs.Spec.Hosts {
			d.touch(rules.ResolveShortname(h, vs.Namespace))
		}
		dests, _ := vsx.Merged(vs)
		for _, dd := range dests {
			d.touch(dd.Host)
		}
	}
	// DestinationRules on ns's lookup path that the public layer does not see: those of ns
	// itself and those exported to ns by name.
	drs := model.DestinationRules(view, root, mc.GetDefaultDestinationRuleExportTo())
	for _, dr := range idx.dr[ns] {
		d.touch(drs.Host(dr))
	}
	// A call routed to a touched host is touched too: its route's cluster, DestinationRule or
	// visibility may differ.
	for _, vs := range routedVS(vsx, view, d) {
		for _, h := range vs.Spec.Hosts {
			d.touch(rules.ResolveShortname(h, vs.Namespace))
		}
	}
	// An ExternalName Service aliasing a touched host.
	for _, s := range idx.externalName {
		if rules.ServiceVisible(s.Namespace, s.ExportTo, ns) && (d.exact[s.ExternalName] || slices.ContainsFunc(d.wild, func(w string) bool { return rules.HostMatches(w, s.ExternalName) })) {
			d.touch(s.Hostname)
		}
	}
	for h := range l.always {
		d.touch(h)
	}
	// A touched host whose public entry is a TCP catch-all chain on a port: calls to other
	// hosts on that port land on its chain and take its route, cluster and DestinationRule.
	for h, ports := range l.catchAll {
		if d.exact[h] || slices.ContainsFunc(d.wild, func(w string) bool { return rules.HostMatches(w, h) }) {
			for _, p := range ports {
				d.tainted[p] = true
			}
		}
	}
	return d
}

// deltaIndex holds, per client namespace, what deltaOf reads of one revision's configuration,
// built once instead of scanning every object for each namespace:
//   - restricted: the services exported to the namespace privately or by name (what
//     rules.ServiceVisible admits: their own namespace for "." or its name, the names listed);
//   - own: the services of the namespace;
//   - vs: the VirtualServices the namespace sees and the shared namespace does not, and the
//     namespace's own Gateway API routes (its sidecars take them whatever their exportTo);
//   - dr: the DestinationRules of the namespace and those exported to it by name only;
//   - externalName: the ExternalName Services.
//
// Each list keeps the configuration's order.
type deltaIndex struct {
	restricted, own map[string][]rules.Service
	vs              map[string][]*networkingv1.VirtualService
	dr              map[string][]*networkingv1.DestinationRule
	externalName    []rules.Service
}

type deltaIndexKey struct{}

// exportNames are the namespaces an exportTo list can admit besides every namespace: the own
// namespace for "." and the names it lists.
func exportNames(exportTo []string, own string) []string {
	var out []string
	for _, e := range exportTo {
		switch e {
		case rules.ExportPublic, rules.ExportNone:
		case rules.ExportPrivate:
			out = append(out, own)
		default:
			out = append(out, e)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func deltaIndexOf(view *snapshot.Snapshot, reg *model.Registry, mc *meshv1alpha1.MeshConfig) *deltaIndex {
	return view.Derived(deltaIndexKey{}, func() any {
		x := &deltaIndex{restricted: map[string][]rules.Service{}, own: map[string][]rules.Service{},
			vs: map[string][]*networkingv1.VirtualService{}, dr: map[string][]*networkingv1.DestinationRule{}}
		for _, s := range reg.ExportIndex().Restricted() {
			for _, n := range exportNames(s.ExportTo, s.Namespace) {
				if rules.ServiceVisible(s.Namespace, s.ExportTo, n) {
					x.restricted[n] = append(x.restricted[n], s)
				}
			}
		}
		for _, s := range reg.All {
			x.own[s.Namespace] = append(x.own[s.Namespace], s)
			if s.ExternalName != "" {
				x.externalName = append(x.externalName, s)
			}
		}
		for _, vs := range view.VirtualServices {
			exp := rules.EffectiveExportTo(vs.Spec.ExportTo, mc.GetDefaultVirtualServiceExportTo())
			shared := rules.VirtualServiceVisible(vs.Namespace, exp, sharedNamespace)
			for _, n := range exportNames(append(slices.Clone(exp), rules.ExportPrivate), vs.Namespace) {
				// A Gateway API route of n applies to n's sidecars whatever its exportTo (and
				// comes first there): it is n's own (route.go BuildSidecarVirtualHostWrapper).
				own := rules.GatewaySemantics(vs) && vs.Namespace == n
				if own || (!shared && rules.VirtualServiceVisible(vs.Namespace, exp, n)) {
					x.vs[n] = append(x.vs[n], vs)
				}
			}
		}
		for _, dr := range view.DestinationRules {
			exp := rules.EffectiveExportTo(dr.Spec.ExportTo, mc.GetDefaultDestinationRuleExportTo())
			targets := []string{dr.Namespace}
			if !slices.Contains(exp, rules.ExportPublic) {
				targets = append(targets, exp...)
			}
			slices.Sort(targets)
			for _, n := range slices.Compact(targets) {
				x.dr[n] = append(x.dr[n], dr)
			}
		}
		return x
	}).(*deltaIndex)
}

// routedVS returns the VirtualServices with a route to a host d touches.
func routedVS(vsx *model.VirtualServiceIndex, view *snapshot.Snapshot, d *namespaceDelta) []*networkingv1.VirtualService {
	var out []*networkingv1.VirtualService
	for h := range d.exact {
		out = append(out, vsx.RoutingTo(h)...)
	}
	if len(d.wild) > 0 {
		for _, vs := range view.VirtualServices {
			dests, _ := vsx.Merged(vs)
			if slices.ContainsFunc(dests, func(dd rules.Dest) bool {
				return slices.ContainsFunc(d.wild, func(w string) bool { return rules.HostMatches(w, strings.ToLower(dd.Host)) })
			}) {
				out = append(out, vs)
			}
		}
	}
	return out
}
