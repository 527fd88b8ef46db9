package rules

import (
	"slices"
	"strings"
	"sync"

	networkingv1 "istio.io/client-go/pkg/apis/networking/v1"

	"github.com/kubectl-egress/kubectl-egress/internal/lazy"
)

// outboundIndex holds what SidecarOutbound's accessors would otherwise recompute on every call:
// the imported entries (also by host name), the imported VirtualServices, the listeners by port
// and the route configurations by name. Built on first use; a SidecarOutbound is not changed
// after BuildSidecarOutbound returns.
type outboundIndex struct {
	once           sync.Once
	imported       []Service
	importedByHost map[string][]int32 // positions in imported
	vses           []*networkingv1.VirtualService
	vsIdx          *vsHostIndex
	byPort         map[uint32][]*Listener

	// routes are the route configurations by name (Route) and resolved the answers of Resolve,
	// each built on first use.
	routes   *lazy.Map[string, *RouteConfig]
	resolved *lazy.Map[Call, CallResult]

	chainsMu sync.Mutex
	chains   map[*Listener]*chainIndex
}

// chainIndex narrows a listener's filter chains for one call before Envoy's match steps
// (Resolve) run: without CIDR matches, a TLS call whose SNI some chain lists exactly can only
// end on those chains (an exact server name outranks every wildcard), and a call without SNI
// only on the chains that set none.
type chainIndex struct {
	// anySNI and anyALPN: some chain (not counting the default one) sets server names or
	// application protocols (a tls_inspector or http_inspector listener filter is present).
	anySNI, anyALPN bool
	hasCIDR         bool
	bySNI           map[string][]int
	noSNI           []int
}

func (o *SidecarOutbound) chainIndex(l *Listener) *chainIndex {
	x := o.index()
	x.chainsMu.Lock()
	defer x.chainsMu.Unlock()
	if c, ok := x.chains[l]; ok {
		return c
	}
	c := &chainIndex{bySNI: map[string][]int{}}
	for i, ch := range l.Chains {
		if len(ch.CIDRs) > 0 {
			c.hasCIDR = true
		}
		if len(ch.SNI) == 0 {
			c.noSNI = append(c.noSNI, i)
		} else {
			c.anySNI = true
		}
		if len(ch.ALPN) > 0 {
			c.anyALPN = true
		}
		for _, s := range ch.SNI {
			if e := c.bySNI[s]; len(e) == 0 || e[len(e)-1] != i {
				c.bySNI[s] = append(e, i)
			}
		}
	}
	x.chains[l] = c
	return c
}

// candidates returns the chain indexes the CIDR and SNI steps of Resolve would keep, and false
// when the index cannot tell (CIDR matches, or an SNI only wildcards match).
func (c *chainIndex) candidates(sni string, n int) ([]int, bool) {
	switch {
	case c.hasCIDR:
		return nil, false
	case sni == "":
		if len(c.noSNI) == n || len(c.noSNI) > 0 {
			return c.noSNI, true
		}
		return nil, false
	}
	if e := c.bySNI[sni]; len(e) > 0 {
		return e, true
	}
	return nil, false
}

func (o *SidecarOutbound) index() *outboundIndex {
	x := &o.idx
	x.once.Do(func() {
		x.importedByHost = map[string][]int32{}
		if len(o.views) == 1 {
			// one egress listener: its services are distinct already (SelectServices keeps
			// each candidate once), and shared rather than copied
			x.imported = o.views[0].services
		} else {
			type key struct{ kind, ns, name, host string }
			n := 0
			for _, v := range o.views {
				n += len(v.services)
			}
			seen := make(map[key]bool, n)
			x.imported = make([]Service, 0, n)
			for _, v := range o.views {
				for _, s := range v.services {
					k := key{s.Kind, s.Namespace, s.Name, s.Hostname}
					if !seen[k] {
						seen[k] = true
						x.imported = append(x.imported, s)
					}
				}
			}
		}
		for i := range x.imported {
			h := x.imported[i].Hostname
			x.importedByHost[h] = append(x.importedByHost[h], int32(i))
		}
		seenVS := map[string]bool{}
		for _, v := range o.views {
			for _, vs := range v.vses {
				k := vs.Namespace + "/" + vs.Name
				if !seenVS[k] {
					seenVS[k] = true
					x.vses = append(x.vses, vs)
				}
			}
		}
		x.vsIdx = newVSHostIndex(x.vses)
		x.byPort = map[uint32][]*Listener{}
		for _, l := range o.Listeners {
			x.byPort[l.Port] = append(x.byPort[l.Port], l)
		}
		x.routes = lazy.New(o.routeIndexed)
		x.resolved = lazy.New(o.resolve)
		x.chains = map[*Listener]*chainIndex{}
	})
	return x
}

// VirtualServicesMaybeFor returns, in VirtualServices order, the imported VirtualServices that
// can match host: those listing it exactly and those with a wildcard host (every one for a
// wildcard host). Callers still match the hosts themselves.
func (o *SidecarOutbound) VirtualServicesMaybeFor(host string) []*networkingv1.VirtualService {
	x := o.index()
	idx := x.vsIdx.candidates(host, len(x.vses))
	out := make([]*networkingv1.VirtualService, len(idx))
	for i, j := range idx {
		out[i] = x.vses[j]
	}
	return out
}

// FirstImportedForHost returns the first of ImportedForHost(host) without copying it (nil:
// none). The entry is shared: callers must not modify it.
func (o *SidecarOutbound) FirstImportedForHost(host string) *Service {
	x := o.index()
	if pos := x.importedByHost[host]; len(pos) > 0 {
		return &x.imported[pos[0]]
	}
	return nil
}

// ImportedForHost returns the imported entries whose host name is host, in Imported order.
func (o *SidecarOutbound) ImportedForHost(host string) []Service {
	x := o.index()
	pos := x.importedByHost[host]
	if len(pos) == 0 {
		return nil
	}
	out := make([]Service, len(pos))
	for i, j := range pos {
		out[i] = x.imported[j]
	}
	return out
}

// vsHostIndex finds, among an egress listener's VirtualServices, those that can match a host:
// the ones listing it exactly (resolved, lower-case) and the ones with a wildcard host. Lists
// are positions in the listener's VirtualServices, ascending.
type vsHostIndex struct {
	exact map[string][]int
	wild  []int
}

func newVSHostIndex(vses []*networkingv1.VirtualService) *vsHostIndex {
	x := &vsHostIndex{exact: map[string][]int{}}
	for i, vs := range vses {
		wild := false
		for _, h := range vs.Spec.GetHosts() {
			h = strings.ToLower(ResolveShortname(h, vs.Namespace))
			if isWildcard(h) {
				wild = true
				continue
			}
			if e := x.exact[h]; len(e) == 0 || e[len(e)-1] != i {
				x.exact[h] = append(e, i)
			}
		}
		if wild {
			x.wild = append(x.wild, i)
		}
	}
	return x
}

// candidates returns the positions of the VirtualServices with host h exactly or with a
// wildcard host, ascending; for a wildcard h, every position (any host may match it).
func (x *vsHostIndex) candidates(h string, n int) []int {
	if isWildcard(h) {
		out := make([]int, n)
		for i := range out {
			out[i] = i
		}
		return out
	}
	return x.exactOrWildcard(h)
}

// exactOrWildcard returns the positions of the VirtualServices with host h exactly or with a
// wildcard host, ascending.
func (x *vsHostIndex) exactOrWildcard(h string) []int {
	e := x.exact[strings.ToLower(h)]
	if len(x.wild) == 0 {
		return e
	}
	out := append(slices.Clone(e), x.wild...)
	slices.Sort(out)
	return slices.Compact(out)
}
