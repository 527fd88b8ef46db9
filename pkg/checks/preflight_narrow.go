package checks

import (
	"slices"
	"strings"
	"sync"

	networkingv1 "istio.io/client-go/pkg/apis/networking/v1"

	"github.com/kubectl-egress/kubectl-egress/internal/lazy"
	"github.com/kubectl-egress/kubectl-egress/pkg/model"
	"github.com/kubectl-egress/kubectl-egress/pkg/rules"
)

// Narrow client sidecars (issue #13). A namespace that shares the public layer
// (preflight_share.go) takes every call its delta does not touch from that layer; only the
// touched calls need the namespace's own predicted sidecar. That sidecar need not hold every
// public service: a touched call meets only the services of its own host, the wildcard and
// catch-all services that can catch it, the services its routes lead to, and whatever shares
// its listener and filter chain match. preflight predicts the namespace's sidecar from those
// alone (its "narrow" sidecar): its private services and VirtualServices, and the public ones
// of the touched hosts. The listener findings of the namespace are the public layer's, less
// those about the services the narrow sidecar re-predicts, plus the narrow sidecar's.
//
// It is exact only where the delta cannot reach an untouched service through a listener: no
// tainted port, no private service on a port where a public service is a TCP catch-all, no
// public listener with merge conflicts that the narrow sidecar also builds, and no filter chain
// of the narrow sidecar with the SNI of a public chain it does not hold. Otherwise the namespace
// is predicted whole, as before. preflightWith(wide) turns it off; the sharing tests prove that
// both give the same report.
//
// This is istiod's own split (push_context.go: a proxy's SidecarScope is the public services,
// VirtualServices and DestinationRules plus its namespace's part), read the other way round: the
// part decides which of the proxy's resources differ from the public layer's.

// narrowBase is what every narrow sidecar of one public layer reads, built once.
type narrowBase struct {
	ok bool
	// imported: the public layer's services, in its order; wildcards and catchAlls among them.
	imported  []rules.Service
	wildcards []rules.Service
	catchAlls []rules.Service
	// catchAllRefs: the references of catchAlls (their listener findings are the public
	// layer's, see narrowNamespace).
	catchAllRefs map[string]bool
	// anchors: the services of the chains without SNI of the public wildcard listeners (an
	// HTTP connection manager chain is named after the first HTTP service on its port, which
	// some findings quote).
	anchors []rules.Service
	// catchAllPorts: ports on which a public service is a TCP catch-all chain.
	catchAllPorts map[uint32]bool
	// shortDomains: the short names (name.namespace, name.namespace.svc) of the public
	// Kubernetes Services, which are virtual host domains too.
	shortDomains map[string][]rules.Service
	// listeners by name, those with merge conflicts, and per listener the services of its
	// filter chains by SNI.
	listeners         map[string]*rules.Listener
	conflictListeners map[string]bool
	sni               *lazy.Map[string, map[string][]string]
	// ports: the ports of the public layer's listeners; portFindings its listener findings on
	// each, and wildFindings those on a port it has no listener on (port-independent ones).
	ports        []uint32
	portFindings map[uint32][]taggedFinding
	wildFindings []taggedFinding
	// calls: the public layer's calls per imported ServiceEntry service with an exact host, in
	// its order, each call under the first service that declares it.
	calls []serviceCalls
	// callsByHost: the indexes in calls of each host's services; namespacedHosts: the hosts of
	// the calls whose public findings name the client namespace (never shared).
	callsByHost     map[string][]int
	namespacedHosts map[string]bool
	// vsPos: the position of each VirtualService of the revision; delegates: those without
	// hosts (merged into any route).
	vsPos     map[*networkingv1.VirtualService]int
	delegates []*networkingv1.VirtualService
	// pos: each service's position in the registry (creation order, ties kept as istiod
	// keeps them); byRef: the public services of each resource (a ServiceEntry has one per
	// host).
	pos   map[string]int
	byRef map[string][]rules.Service
}

func svcKey(s rules.Service) string { return s.Ref() + "|" + s.Hostname }

// taggedFinding is a listener finding and the services (references) it is about.
type taggedFinding struct {
	f    Finding
	refs []string
}

type serviceCalls struct {
	s     rules.Service
	calls []hostPortCall
}

// narrowBaseOf builds (once) what narrow sidecars of layer l read.
func (c *collector) narrowBaseOf(l *sharedLayer) *narrowBase {
	l.narrowOnce.Do(func() {
		l.narrow = c.buildNarrowBase(l)
	})
	return l.narrow
}

func (c *collector) buildNarrowBase(l *sharedLayer) *narrowBase {
	b := &narrowBase{catchAllPorts: map[uint32]bool{}, catchAllRefs: map[string]bool{}, shortDomains: map[string][]rules.Service{}, listeners: map[string]*rules.Listener{},
		conflictListeners: map[string]bool{}, portFindings: map[uint32][]taggedFinding{}, vsPos: map[*networkingv1.VirtualService]int{}}
	if !l.ok {
		return b
	}
	out := l.view.Outbound
	b.imported = out.Imported()
	b.pos, b.byRef = map[string]int{}, map[string][]rules.Service{}
	for i, s := range model.Services(RevisionView(c.snap, l.view.Revision), l.view.Flags.MeshConfig).All {
		b.pos[svcKey(s)] = i
	}
	for _, s := range b.imported {
		b.byRef[s.Ref()] = append(b.byRef[s.Ref()], s)
	}
	for _, ports := range l.catchAll {
		for _, p := range ports {
			b.catchAllPorts[p] = true
		}
	}
	for _, s := range b.imported {
		if strings.HasPrefix(s.Hostname, "*") {
			b.wildcards = append(b.wildcards, s)
		}
		if len(l.catchAll[s.Hostname]) > 0 {
			b.catchAlls = append(b.catchAlls, s)
			b.catchAllRefs[s.Ref()] = true
		}
		if s.Kind == rules.KindService {
			for _, d := range []string{s.Name + "." + s.Namespace, s.Name + "." + s.Namespace + ".svc"} {
				b.shortDomains[d] = append(b.shortDomains[d], s)
			}
		}
	}
	for _, ls := range out.Listeners {
		b.listeners[ls.Name] = ls
		if ls.Bind == rules.WildcardAddress {
			for _, ch := range append(slices.Clone(ls.Chains), defaultChain(ls)...) {
				if len(ch.SNI) == 0 && ch.Service != "" {
					b.anchors = append(b.anchors, b.byRef[ch.Service]...)
				}
			}
		}
		if !slices.Contains(b.ports, ls.Port) {
			b.ports = append(b.ports, ls.Port)
		}
		for _, ch := range ls.Chains {
			// A chain with a wildcard SNI built from a VirtualService's tls route catches
			// calls to hosts the narrow sidecar may not hold the service of.
			if strings.HasPrefix(ch.Service, "VirtualService ") && slices.ContainsFunc(ch.SNI, func(s string) bool { return strings.HasPrefix(s, "*") }) {
				return b
			}
		}
	}
	slices.Sort(b.ports)
	for _, cf := range out.Conflicts {
		b.conflictListeners[cf.Listener] = true
	}
	b.sni = lazy.New(func(name string) map[string][]string {
		m := map[string][]string{}
		ls := b.listeners[name]
		for _, ch := range ls.Chains {
			for _, s := range ch.SNI {
				if !slices.Contains(m[s], ch.Service) {
					m[s] = append(m[s], ch.Service)
				}
			}
		}
		return m
	})
	for _, p := range b.ports {
		b.portFindings[p] = sidecarFindingsTagged(l.view, p)
	}
	b.wildFindings = sidecarFindingsTagged(l.view, 0)
	seen := map[hostPortCall]bool{}
	for _, s := range b.imported {
		sc := serviceCalls{s: s}
		for _, q := range c.serviceCalls(l.view, s) {
			if !seen[q] {
				seen[q] = true
				sc.calls = append(sc.calls, q)
			}
		}
		// every entry, even one whose calls came earlier or that has none here: where a
		// namespace touches its host, its calls are worked out again in the narrow sidecar
		if s.Kind == rules.KindServiceEntry && !strings.HasPrefix(s.Hostname, "*") {
			b.calls = append(b.calls, sc)
		}
	}
	// then the ports of shadowed declarations (shadowedPortCalls), re-asked like route-only
	// calls where a namespace touches the host
	for _, q := range append(routeOnlyCalls(c.snap, l.view), shadowedPortCalls(c.snap, l.view)...) {
		if seen[q] {
			continue
		}
		seen[q] = true
		if n := len(b.calls); n > 0 && b.calls[n-1].s.Kind == routeOnlyKind && b.calls[n-1].s.Hostname == q.host {
			b.calls[n-1].calls = append(b.calls[n-1].calls, q)
			continue
		}
		b.calls = append(b.calls, serviceCalls{s: rules.Service{Kind: routeOnlyKind, Hostname: q.host}, calls: []hostPortCall{q}})
	}
	// Every call's public findings, worked out once (one worker per CPU).
	var all []hostPortCall
	b.callsByHost, b.namespacedHosts = map[string][]int{}, map[string]bool{}
	for i, sc := range b.calls {
		b.callsByHost[sc.s.Hostname] = append(b.callsByHost[sc.s.Hostname], i)
		all = append(all, sc.calls...)
	}
	parallelEach(len(all), func(i int) { l.calls.Get(all[i]) })
	for _, q := range all {
		if l.calls.Get(q).namespaced {
			b.namespacedHosts[q.host] = true
		}
	}
	for i, vs := range RevisionView(c.snap, l.view.Revision).VirtualServices {
		b.vsPos[vs] = i
		if len(vs.Spec.Hosts) == 0 {
			b.delegates = append(b.delegates, vs)
		}
		if slices.Contains(vs.Spec.Hosts, "*") {
			return b // a VirtualService for every host: no call is narrow
		}
	}
	b.ok = true
	return b
}

// serviceCalls are the calls preflight traces for an imported service of sidecar v: each TCP
// port of a ServiceEntry with an exact host that a mesh route can take (every port when none
// names one; the HTTP ones for http routes that name none).
func (c *collector) serviceCalls(v SidecarView, s rules.Service) []hostPortCall {
	if s.Kind == rules.KindService && s.ExternalName != "" {
		return c.aliasCalls(v, s)
	}
	if s.Kind != rules.KindServiceEntry || strings.HasPrefix(s.Hostname, "*") {
		return nil
	}
	if wildcardDomainProblem(s.Hostname) != "" {
		// no client can call a host written "api.example.com:443" (the entry is refused:
		// SE_REJECTED_BY_VALIDATION says so; blind audit 95 c09, where the trace of
		// "httpbin.org:80:80" gave a false CALL_REACHES_ANOTHER_SERVICE)
		return nil
	}
	meshPorts, all, httpAll := c.meshRoutePorts(v, s.Hostname)
	if httpAll && !all {
		for _, p := range s.Ports {
			if rules.ListenerClass(p.Protocol) != rules.ClassTCP && !slices.Contains(meshPorts, p.Number) {
				meshPorts = append(meshPorts, p.Number)
			}
		}
	}
	if !all && !slices.ContainsFunc(s.Ports, func(p rules.ServicePort) bool { return slices.Contains(meshPorts, p.Number) }) {
		// the mesh routes match only ports the entry does not declare: none applies, and every
		// call of the entry's ports goes straight out (traced: the bypass warning)
		all = true
	}
	var out []hostPortCall
	for _, p := range s.Ports {
		if p.Protocol == "UDP" {
			continue
		}
		if !all && !slices.Contains(meshPorts, p.Number) {
			continue // a port only the gateway uses (for example TLS origination to 443)
		}
		out = append(out, hostPortCall{s.Hostname, p.Number})
	}
	return out
}

// aliasCalls: the HTTP calls to ExternalName Service s whose external name mesh routes send
// elsewhere (to an egress gateway, mostly) on the Service's ports. The sidecar routes the
// alias as its external name (its virtual host lists the alias's domains), with the Host
// unchanged, so where the next proxy routes by Host the alias's calls can fail while the
// external name's work (blind audit 95 c15).
func (c *collector) aliasCalls(v SidecarView, s rules.Service) []hostPortCall {
	t, ok := v.Outbound.ScopeService(s.ExternalName)
	if !ok || t.Kind != rules.KindServiceEntry {
		return nil
	}
	meshPorts, all, httpAll := c.meshRoutePorts(v, t.Hostname)
	if all {
		return nil // no mesh route for the external name: the alias's calls go where its own do
	}
	var out []hostPortCall
	for _, p := range s.Ports {
		if rules.ListenerClass(p.Protocol) == rules.ClassTCP || (!httpAll && !slices.Contains(meshPorts, p.Number)) {
			continue
		}
		out = append(out, hostPortCall{s.Hostname, p.Number})
	}
	return out
}

// narrowNamespace works out client namespace ns (hdr, proxy: its sidecar without the outbound
// configuration) from the public layer l and a narrow sidecar; false when it cannot be exact
// (the caller then predicts the namespace whole).
func (c *collector) narrowNamespace(hdr SidecarView, proxy rules.SidecarProxy, d *namespaceDelta, l *sharedLayer) (sidecarResult, bool) {
	var r sidecarResult
	if len(d.tainted) > 0 {
		return r, false
	}
	b := c.narrowBaseOf(l)
	if !b.ok {
		return r, false
	}
	ns := hdr.Namespace
	mc := hdr.Flags.MeshConfig
	view := RevisionView(c.snap, hdr.Revision)
	reg := model.Services(view, mc)
	idx := deltaIndexOf(view, reg, mc)
	private := idx.restricted[ns]
	for _, s := range private {
		for _, p := range s.Ports {
			if b.catchAllPorts[p.Number] {
				return r, false
			}
		}
	}
	// Calls of public services whose public findings name the namespace are worked out in the
	// narrow sidecar too (no port is tainted here, so whether the delta touches a call depends
	// on its host alone).
	extra := b.namespacedHosts
	touched := func(h string) bool {
		return d.exact[h] || extra[h] || slices.ContainsFunc(d.wild, func(w string) bool { return rules.HostMatches(w, h) })
	}

	// The narrow sidecar's services: ns's private ones, then the public ones it needs.
	refs := map[string]bool{}
	keys := map[string]bool{}
	var svcs []rules.Service
	add1 := func(s rules.Service) {
		if !keys[svcKey(s)] {
			keys[svcKey(s)] = true
			refs[s.Ref()] = true
			svcs = append(svcs, s)
		}
	}
	// A public service comes with the other hosts of its resource: findings name resources.
	add := func(s rules.Service) {
		add1(s)
		for _, o := range b.byRef[s.Ref()] {
			add1(o)
		}
	}
	for _, s := range private {
		add(s)
	}
	pub := func(h string) {
		for _, s := range l.view.Outbound.ImportedForHost(h) {
			add(s)
		}
		for _, s := range b.shortDomains[h] {
			add(s)
		}
	}
	hosts := map[string]bool{}
	for h := range d.exact {
		hosts[h] = true
	}
	for h := range extra {
		hosts[h] = true
	}
	for h := range hosts {
		pub(h)
	}
	if len(d.wild) > 0 {
		for _, s := range b.imported {
			if touched(s.Hostname) {
				add(s)
			}
		}
	}
	for _, s := range b.wildcards {
		add(s)
	}
	for _, s := range b.catchAlls {
		add(s)
	}
	for _, s := range b.anchors {
		add(s)
	}
	// Its VirtualServices: ns's own part, those for (or routing to) the hosts above, the
	// delegates; then the public services of their destinations.
	vsx := model.VirtualServices(view, mc.GetDefaultVirtualServiceExportTo())
	vsSet := map[*networkingv1.VirtualService]bool{}
	for _, vs := range idx.vs[ns] {
		vsSet[vs] = true
	}
	for _, vs := range b.delegates {
		vsSet[vs] = true
	}
	for _, w := range d.wild {
		for _, vs := range vsx.Relevant(w, nil) {
			vsSet[vs] = true
		}
	}
	for _, s := range svcs {
		hosts[strings.ToLower(s.Hostname)] = true
	}
	for h := range hosts {
		for _, vs := range vsx.Relevant(h, nil) {
			vsSet[vs] = true
		}
		for _, vs := range vsx.RoutingTo(h) {
			vsSet[vs] = true
		}
	}
	vses := make([]*networkingv1.VirtualService, 0, len(vsSet))
	vsRefs := map[string]bool{}
	for vs := range vsSet {
		vses = append(vses, vs)
		vsRefs["VirtualService "+vs.Namespace+"/"+vs.Name] = true
	}
	slices.SortFunc(vses, func(a, b2 *networkingv1.VirtualService) int { return b.vsPos[a] - b.vsPos[b2] })
	for _, vs := range vses {
		dests, _ := vsx.Merged(vs)
		for _, dd := range dests {
			h := strings.ToLower(dd.Host)
			pub(h)
			// an ExternalName Service routes to its external name's cluster (route.go
			// GetDestinationCluster): that host's services too (blind audit 41 Q07, a false
			// ROUTE_CLUSTER_ABSENT for an alias of the gateway Service)
			for _, a := range reg.Shared(h) {
				if a.ExternalName != "" {
					pub(a.ExternalName)
				}
			}
		}
		for _, h := range vs.Spec.Hosts {
			if h = strings.ToLower(rules.ResolveShortname(h, vs.Namespace)); strings.HasPrefix(h, "*") && h != "*" {
				for _, s := range b.imported {
					if rules.HostMatches(h, s.Hostname) {
						add(s)
					}
				}
			}
		}
	}
	slices.SortStableFunc(svcs, func(x, y rules.Service) int { return b.pos[svcKey(x)] - b.pos[svcKey(y)] })
	proxy.Services = svcs
	proxy.Exported = rules.NewExportIndex(svcs)
	proxy.VirtualServices = vses
	v := hdr
	v.Outbound = rules.BuildSidecarOutbound(proxy)
	held := func(ref string) bool { return refs[ref] || vsRefs[ref] }
	// Exact only if no listener the narrow sidecar builds can meet a public chain it lacks.
	var ports []uint32
	for _, ls := range v.Outbound.Listeners {
		if !slices.Contains(ports, ls.Port) {
			ports = append(ports, ls.Port)
		}
		pubL := b.listeners[ls.Name]
		if pubL == nil {
			continue
		}
		if b.conflictListeners[ls.Name] {
			return r, false
		}
		if ls.Bind != rules.WildcardAddress {
			for _, ch := range append(slices.Clone(pubL.Chains), defaultChain(pubL)...) {
				if ch.Service != "" && !held(ch.Service) {
					return r, false
				}
			}
			continue
		}
		bySNI := b.sni.Get(ls.Name)
		for _, ch := range ls.Chains {
			for _, s := range ch.SNI {
				for _, ref := range bySNI[s] {
					if !held(ref) {
						return r, false
					}
				}
			}
		}
	}
	c.narrowed.Add(1)
	for _, p := range b.ports {
		if !slices.Contains(ports, p) {
			ports = append(ports, p)
		}
	}
	slices.Sort(ports)
	// Listener findings: the public layer's, less those about a service the narrow sidecar
	// holds (it re-predicts them), plus the narrow sidecar's (not its public catch-alls', whose
	// words list every service on the port: the public layer's are right, no private service
	// shares their port).
	for _, p := range ports {
		r.targets++
		pf, ok := b.portFindings[p]
		if !ok {
			pf = b.wildFindings
		}
		var fs []Finding
		for _, tf := range pf {
			if !slices.ContainsFunc(tf.refs, func(ref string) bool { return refs[ref] && !b.catchAllRefs[ref] }) {
				fs = append(fs, tf.f)
			}
		}
		for _, tf := range sidecarFindingsTagged(v, p) {
			if catchAllCode(tf.f.Code) {
				continue
			}
			if slices.ContainsFunc(tf.refs, func(ref string) bool { return refs[ref] || vsRefs[ref] }) {
				fs = append(fs, tf.f)
			}
		}
		r.pending = append(r.pending, listenerPending(fs, portCtx(p))...)
	}
	// The calls: the private services' first, then the public layer's (in the narrow sidecar
	// where touched), in the order of the whole sidecar's imports.
	// (Calls of different hosts never coincide, and a private service never declares a host
	// the public layer has: that taints its ports. So only one host's calls can repeat.)
	// (not sized by the public layer's calls: a namespace asks for few of them)
	var asked []hostPortCall
	askedSet := map[hostPortCall]bool{}
	ask := func(qs []hostPortCall) {
		for _, q := range qs {
			if !askedSet[q] {
				askedSet[q] = true
				asked = append(asked, q)
			}
		}
	}
	privRefs := map[string]bool{}
	for _, s := range private {
		privRefs[s.Ref()] = true
	}
	for _, s := range v.Outbound.Imported() {
		if privRefs[s.Ref()] {
			ask(c.serviceCalls(v, s))
		}
	}
	// The public services the delta touches: by host, unless a wildcard host is touched.
	var skip []int
	if len(d.wild) == 0 {
		for h := range d.exact {
			skip = append(skip, b.callsByHost[h]...)
		}
		for h := range extra {
			if !d.exact[h] {
				skip = append(skip, b.callsByHost[h]...)
			}
		}
		slices.Sort(skip)
	} else {
		for i, sc := range b.calls {
			if touched(sc.s.Hostname) {
				skip = append(skip, i)
			}
		}
	}
	for _, i := range skip {
		if b.calls[i].s.Kind != routeOnlyKind {
			ask(c.serviceCalls(v, b.calls[i].s))
		}
	}
	// The hosts only a mesh route gives the narrow sidecar, among those the namespace's own
	// resources touch (a route-only host of the public layer, or one its own VirtualService
	// routes).
	for _, q := range append(routeOnlyCalls(c.snap, v), shadowedPortCalls(c.snap, v)...) {
		if touched(q.host) {
			ask([]hostPortCall{q})
		}
	}
	// Every call asked here is touched (a private host, or a touched public one); the others
	// take the public layer's findings, added by the collector for every narrow namespace of
	// the layer at once (addSharedCalls).
	r.targets += len(asked)
	r.ns = ns
	r.layer, r.skip = l, skip
	for _, q := range asked {
		c.addCall(&r, v, q, nil)
	}
	return r, true
}

// addSharedCalls adds, for each public layer, the findings of every call of its narrowBase to
// the narrow namespaces that take it from the layer (all but those whose results skip it), one
// namespace set per call; it returns the targets and the traced paths this counts.
func (c *collector) addSharedCalls(out []sidecarResult) (targets, paths int) {
	type group struct {
		l       *sharedLayer
		members nsSet
		skipped map[int]nsSet
	}
	var groups []*group
	for _, r := range out {
		if r.layer == nil {
			continue
		}
		i := slices.IndexFunc(groups, func(g *group) bool { return g.l == r.layer })
		if i < 0 {
			i = len(groups)
			groups = append(groups, &group{l: r.layer, members: newNSSet(len(c.clientNS)), skipped: map[int]nsSet{}})
		}
		g := groups[i]
		n := c.nsIndex[r.ns]
		g.members.add(n)
		for _, k := range r.skip {
			s := g.skipped[k]
			if s == nil {
				s = newNSSet(len(c.clientNS))
				g.skipped[k] = s
			}
			s.add(n)
		}
	}
	for _, g := range groups {
		b := c.narrowBaseOf(g.l)
		all := g.members.count()
		for k, sc := range b.calls {
			set, n := g.members, all
			if s := g.skipped[k]; s != nil {
				set = slices.Clone(g.members)
				for _, i := range s.members() {
					set.del(i)
				}
				n = set.count()
			}
			if n == 0 {
				continue
			}
			for _, q := range sc.calls {
				shared := g.l.calls.Get(q)
				targets += n
				if shared.traced {
					paths += n
				}
				var path []pendingFinding
				path = appendPathFindings(path, shared.path, shared.kind, q)
				for _, p := range path {
					c.addAt(&p.f, p.f.key(), p.at, set)
				}
				for _, hr := range shared.hosts {
					// the traced path reports this fault (see explainListener)
					if slices.ContainsFunc(path, func(p pendingFinding) bool {
						return p.f.Code == hr.pf.Code && p.f.Resource == hr.pf.Resource
					}) {
						continue
					}
					c.addAt(hr.pf, hr.key, hostPortCtx(q), set)
				}
			}
		}
	}
	return targets, paths
}

func catchAllCode(code string) bool {
	return code == ListenerCatchAllTCP || code == ListenerCatchAllTLSPort || code == ListenerNoneNoAddresses
}

func defaultChain(l *rules.Listener) []rules.FilterChain {
	if l.Default == nil {
		return nil
	}
	return []rules.FilterChain{*l.Default}
}

// narrowState is the part of a sharedLayer narrow sidecars read, built on first use.
type narrowState struct {
	narrowOnce sync.Once
	narrow     *narrowBase
}
