package rules

import (
	"math"
	"net/netip"
	"slices"
)

// Call kinds: how a client talks to host:port.
const (
	CallHTTP  = "http"  // plaintext HTTP/1.1, Host header = host
	CallHTTP2 = "http2" // plaintext HTTP/2 (h2c, gRPC), Host/:authority = host
	CallTLS   = "tls"   // TLS originated by the application, SNI = host
	CallTCP   = "tcp"   // opaque TCP (or a server-first protocol)
)

// Call is one connection a sidecar's application makes.
type Call struct {
	Host string
	Port uint32
	Kind string
	// Address is the destination IP the application connects to ("" = an address no listener
	// binds, as for a host resolved by DNS to an external IP).
	Address string
}

// Call outcomes that are not a cluster.
const (
	CallErrNoFilterChain = "no filter chain matches"
	CallErrMultiple      = "several filter chains match"
	CallErrProtocol      = "protocol mismatch: the chain terminates HTTP but the call is not plaintext HTTP"
	CallErrNoVirtualHost = "no virtual host matches (404 NR)"
	CallErrNoRoute       = "no route matches (404 NR)"
)

// CallResult is the path a call takes through a sidecar: listener → filter chain → (HCM) route
// configuration → virtual host → route → cluster, or (tcp_proxy) → cluster.
type CallResult struct {
	Listener string `json:"listener"`
	// Chain is the matched filter chain; Default says it is the listener's default chain.
	Chain       *FilterChain `json:"filterChain,omitempty"`
	Default     bool         `json:"defaultChain,omitempty"`
	RouteConfig string       `json:"routeConfig,omitempty"`
	VirtualHost string       `json:"virtualHost,omitempty"`
	Route       *RouteAction `json:"route,omitempty"`
	// Cluster is the upstream cluster ("" for weighted clusters, direct responses and errors).
	Cluster        string `json:"cluster,omitempty"`
	DirectResponse int    `json:"directResponse,omitempty"`
	Error          string `json:"error,omitempty"`
}

// Resolve follows a call through the predicted sidecar configuration the way Envoy does: the
// listener bound to the call's address and port, else 0.0.0.0_<port>, else virtualOutbound
// (catch-all tcp_proxy to PassthroughCluster, or BlackHoleCluster under REGISTRY_ONLY); then the
// filter chain by Envoy's sieve (destination prefix ranges, server names, transport protocol,
// application protocols, each narrowing to the most specific, chains without the field kept only
// when nothing matched), the TLS inspector seeing SNI and the HTTP inspector setting
// http/1.1 or h2c only when some chain needs them; then for an HCM chain the route configuration,
// virtual host (MatchVirtualHost) and the first route a plain "GET /" takes.
//
// Mirrors Envoy's listener and filter chain selection as istiod's simulation harness models it
// (pilot/pkg/simulation/traffic.go Run, matchListener, matchFilterChain, matchVirtualHost).
//
// Results are kept per call (the predicted config does not change once built): callers share
// the Chain and Route they point to and must not modify them.
func (o *SidecarOutbound) Resolve(c Call) CallResult { return o.index().resolved.Get(c) }

func (o *SidecarOutbound) resolve(c Call) CallResult {
	l := o.listenerFor(c.Address, c.Port)
	if l == nil {
		return CallResult{Listener: VirtualOutbound, Chain: &FilterChain{Name: VirtualOutboundChain, Cluster: fallthroughCluster(o.Proxy.Scope)},
			Default: true, Cluster: fallthroughCluster(o.Proxy.Scope)}
	}
	res := CallResult{Listener: l.Name}
	ci := o.chainIndex(l)
	tlsInspector, httpInspector := ci.anySNI, ci.anyALPN
	if d := l.Default; d != nil {
		tlsInspector = tlsInspector || len(d.SNI) > 0
		httpInspector = httpInspector || len(d.ALPN) > 0
	}
	tlsCall := c.Kind == CallTLS
	sni, alpn := "", ""
	if tlsCall {
		sni = c.Host
	}
	if httpInspector && !tlsCall {
		switch c.Kind {
		case CallHTTP:
			alpn = "http/1.1"
		case CallHTTP2:
			alpn = "h2c"
		}
	}
	addr, _ := netip.ParseAddr(c.Address)
	if !addr.IsValid() {
		addr = netip.MustParseAddr("1.3.3.7")
	}
	idx, narrowed := ci.candidates(sni, len(l.Chains))
	if narrowed {
		idx = slices.Clone(idx)
	} else {
		idx = make([]int, len(l.Chains))
		for i := range idx {
			idx[i] = i
		}
	}
	idx = sieve(idx, l.Chains, func(ch FilterChain) bool { return len(ch.CIDRs) > 0 }, func(ch FilterChain) int {
		best := 0
		for _, r := range normCIDRs(ch.CIDRs) {
			if p, err := netip.ParsePrefix(r); err == nil && p.Contains(addr) {
				best = max(best, p.Bits()+1)
			}
		}
		return best
	})
	idx = sieve(idx, l.Chains, func(ch FilterChain) bool { return len(ch.SNI) > 0 }, func(ch FilterChain) int {
		best := 0
		for _, s := range ch.SNI {
			if sni == s {
				best = math.MaxInt
			} else if sni != "" && HostSubsetOf(sni, s) {
				best = max(best, len(s))
			}
		}
		return best
	})
	idx = sieve(idx, l.Chains, func(ch FilterChain) bool { return ch.Transport != "" }, func(ch FilterChain) int {
		switch {
		case !tlsInspector:
			return b2i(ch.Transport == TransportRawBuffer)
		case ch.Transport == TransportTLS:
			return b2i(tlsCall)
		case ch.Transport == TransportRawBuffer:
			return b2i(!tlsCall)
		}
		return 0
	})
	idx = sieve(idx, l.Chains, func(ch FilterChain) bool { return len(ch.ALPN) > 0 }, func(ch FilterChain) int {
		return b2i(slices.Contains(ch.ALPN, alpn))
	})
	var ch FilterChain
	switch {
	case len(idx) > 1:
		res.Error = CallErrMultiple
		return res
	case len(idx) == 1:
		ch = l.Chains[idx[0]]
	case l.Default != nil:
		ch, res.Default = *l.Default, true
	default:
		res.Error = CallErrNoFilterChain
		return res
	}
	res.Chain = &ch
	if !ch.IsHCM() {
		res.Cluster = ch.Cluster
		return res
	}
	if tlsCall || c.Kind == CallTCP {
		res.Error = CallErrProtocol
		return res
	}
	res.RouteConfig = ch.RDS
	rc := o.Route(ch.RDS)
	if rc == nil {
		res.Error = CallErrNoVirtualHost
		return res
	}
	vh := MatchVirtualHost(rc, c.Host)
	if vh == nil {
		res.Error = CallErrNoVirtualHost
		return res
	}
	res.VirtualHost = vh.Name
	for i := range vh.Routes {
		if vh.Routes[i].Plain {
			r := vh.Routes[i]
			res.Route = &r
			res.Cluster, res.DirectResponse = r.Cluster, r.DirectResponse
			return res
		}
	}
	res.Error = CallErrNoRoute
	return res
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// sieve is one step of Envoy's filter chain match: when no chain sets the field, all stay;
// else the chains with the best positive rank; else those that do not set the field.
func sieve(idx []int, chains []FilterChain, set func(FilterChain) bool, rank func(FilterChain) int) []int {
	any := false
	for _, i := range idx {
		if set(chains[i]) {
			any = true
			break
		}
	}
	if !any {
		return idx
	}
	best := 0
	var top []int
	for _, i := range idx {
		r := rank(chains[i])
		switch {
		case r <= 0:
		case r > best:
			best, top = r, []int{i}
		case r == best:
			top = append(top, i)
		}
	}
	if len(top) > 0 {
		return top
	}
	var unset []int
	for _, i := range idx {
		if !set(chains[i]) {
			unset = append(unset, i)
		}
	}
	return unset
}

// listenerFor: the listener bound to address:port, else 0.0.0.0_<port>, else nil
// (virtualOutbound).
func (o *SidecarOutbound) listenerFor(address string, port uint32) *Listener {
	onPort := o.index().byPort[port]
	for _, l := range onPort {
		if l.Bind == address && address != "" {
			return l
		}
	}
	for _, l := range onPort {
		if l.Bind == WildcardAddress {
			return l
		}
	}
	return nil
}

// ListenersOnPort returns the listeners on a port (the wildcard one and those bound to
// addresses).
func (o *SidecarOutbound) ListenersOnPort(port uint32) []*Listener {
	return o.index().byPort[port]
}
