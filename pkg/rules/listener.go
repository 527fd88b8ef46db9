package rules

import (
	"fmt"
	"net/netip"
	"slices"
	"sort"
	"strconv"
	"strings"

	networking "istio.io/api/networking/v1alpha3"
	networkingv1 "istio.io/client-go/pkg/apis/networking/v1"
)

// Envoy names istiod uses (pilot/pkg/networking/util/util.go, pilot/pkg/model/listener.go).
const (
	PassthroughCluster = "PassthroughCluster"
	// AllowAnyDynamicDNSCluster is the dynamic forward proxy cluster of ALLOW_ANY_DYNAMIC_DNS.
	AllowAnyDynamicDNSCluster = "AllowAnyDynamicDNSCluster"
	BlackHoleCluster          = "BlackHoleCluster"
	PassthroughFilterChain    = "PassthroughFilterChain"
	VirtualOutbound           = "virtualOutbound"
	VirtualOutboundChain      = "virtualOutbound-catchall-tcp"
	WildcardAddress           = "0.0.0.0"
	TransportRawBuffer        = "raw_buffer"
	TransportTLS              = "tls"
)

// plaintextHTTPALPNs are the ALPN values the HTTP inspector sets and istiod matches on sidecar
// HTTP chains (listener.go plaintextHTTPALPNs: http/1.0, http/1.1, h2c).
var plaintextHTTPALPNs = []string{"http/1.0", "http/1.1", "h2c"}

// FilterChain is one filter chain of an outbound listener: its match and where it sends traffic
// (an HCM with an RDS route configuration, or a tcp_proxy to a cluster), and what produced it.
type FilterChain struct {
	// Match. Empty fields match anything.
	SNI       []string `json:"serverNames,omitempty"`
	Transport string   `json:"transportProtocol,omitempty"`
	ALPN      []string `json:"applicationProtocols,omitempty"`
	CIDRs     []string `json:"prefixRanges,omitempty"`
	// Destination: RDS is the route configuration of an HCM chain; Cluster (and Weighted, for
	// weighted VirtualService routes) the tcp_proxy cluster otherwise.
	RDS      string   `json:"rds,omitempty"`
	Cluster  string   `json:"cluster,omitempty"`
	Weighted []string `json:"weightedClusters,omitempty"`
	// Name is set for istiod's named chains (PassthroughFilterChain).
	Name string `json:"name,omitempty"`
	// Provenance: the registry entry and host that produced the chain, its port protocol, and the
	// VirtualService whose tls/tcp route it carries.
	Service        string `json:"service,omitempty"`
	Host           string `json:"host,omitempty"`
	Protocol       string `json:"protocol,omitempty"`
	VirtualService string `json:"virtualService,omitempty"`
}

// IsHCM reports whether the chain terminates HTTP (an HTTP connection manager).
func (c FilterChain) IsHCM() bool { return c.RDS != "" }

// MatchAll reports whether the chain matches every connection (isMatchAll).
func (c FilterChain) MatchAll() bool {
	return (len(c.SNI) == 0 || slices.Contains(c.SNI, "*")) && len(c.ALPN) == 0 && c.Transport == "" && len(c.CIDRs) == 0
}

// MatchString renders the match the way `istioctl proxy-config listeners` does (SNI, Trans,
// App, Addr joined by "; ", or ALL).
func (c FilterChain) MatchString() string {
	var parts []string
	if len(c.SNI) > 0 && !slices.Contains(c.SNI, "*") {
		parts = append(parts, "SNI: "+strings.Join(c.SNI, ","))
	}
	if c.Transport != "" {
		parts = append(parts, "Trans: "+c.Transport)
	}
	if len(c.ALPN) > 0 {
		if slices.Equal(c.ALPN, plaintextHTTPALPNs) {
			parts = append(parts, "App: http/1.1,h2c")
		} else {
			parts = append(parts, "App: "+strings.Join(c.ALPN, ","))
		}
	}
	for _, r := range c.CIDRs {
		parts = append(parts, "Addr: "+r)
	}
	if len(parts) == 0 {
		return "ALL"
	}
	return strings.Join(parts, "; ")
}

// DestinationString renders the destination like `istioctl proxy-config listeners`.
func (c FilterChain) DestinationString() string {
	switch {
	case c.RDS != "":
		return "Route: " + c.RDS
	case len(c.Weighted) > 0:
		return "Clusters: " + strings.Join(c.Weighted, ",")
	case strings.Contains(c.Cluster, "Cluster"):
		return c.Cluster
	}
	return "Cluster: " + c.Cluster
}

// Listener is one sidecar outbound listener "<bind>_<port>".
type Listener struct {
	Name       string   `json:"name"`
	Bind       string   `json:"address"`
	ExtraBinds []string `json:"additionalAddresses,omitempty"`
	Port       uint32   `json:"port"`
	// Protocol is the listener entry's protocol after merging ("" = sniffed); it decides how
	// later services on the same port conflict.
	Protocol string `json:"protocol"`
	// Chains are the filter chains with a match; Default is the default filter chain (a
	// match-all chain moved there, or istiod's PassthroughFilterChain); a listener with a
	// single match-all chain has it in Chains and no Default.
	Chains  []FilterChain `json:"filterChains"`
	Default *FilterChain  `json:"defaultFilterChain,omitempty"`
	locked  bool
	// raw are the chains in istiod's build order before match-all chains move to Default;
	// rawKeys maps each conflictKey of raw to its first chain (built by merge on first use).
	raw     []FilterChain
	rawKeys map[string]int
}

// Conflict is a filter chain or listener istiod dropped on one (bind, port).
type Conflict struct {
	Listener string `json:"listener"`
	// Kind: TCP_OVER_TCP (an identical match already existed: push-status metric
	// pilot_conflict_outbound_listener_tcp_over_current_tcp) or WELL_KNOWN_PORT (MongoDB/MySQL
	// mixed with another protocol: the incoming service gets nothing on that port).
	Kind     string `json:"kind"`
	Accepted string `json:"accepted"` // the service that kept the match
	Rejected string `json:"rejected"` // the service whose chain was dropped
	Host     string `json:"host"`     // host name of the rejected service
	Protocol string `json:"protocol"` // port protocol of the rejected service
	Existing string `json:"existingProtocol"`
	// SameDestination: the dropped chain would have sent its connections where the kept one does
	// (the same route configuration or clusters): the drop changes no connection's fate.
	SameDestination bool `json:"sameDestination,omitempty"`
}

// SidecarProxy is the input of the sidecar outbound model.
type SidecarProxy struct {
	Namespace string
	Labels    map[string]string
	Scope     SidecarScope
	// Services are every registry entry of the mesh (effective exportTo applied); the model
	// filters them by exportTo and the Sidecar's imports.
	Services          []Service
	VirtualServices   []*networkingv1.VirtualService
	DefaultVSExportTo []string
	// HostIndex is HostNamespaceIndex(Services) when the caller keeps one (a push context
	// builds it once for every proxy); nil: computed here.
	HostIndex map[string]map[string]Service
	// Exported is NewExportIndex(Services) when the caller keeps one (Services must then be in
	// SortByCreation order); nil: ServicesExportedTo is computed here.
	Exported *ExportIndex
	// Endpoints returns the addresses of a service's endpoints on a port as istiod indexes them
	// (by host name and namespace: every entry for the host in the service's namespace that
	// declares the port; a DNS entry without endpoints contributes its host name). nil: the
	// service's own inline endpoint addresses.
	Endpoints func(s Service, port uint32) []string
	// AutoAllocated: the proxy uses the addresses istiod's IP allocator assigned to
	// ServiceEntries without spec.addresses (Service.AutoIPv4): DNS capture on
	// (ISTIO_META_DNS_CAPTURE) and PILOT_ENABLE_IP_AUTOALLOCATE on in istiod (its default).
	// Mirrors istiod pilot/pkg/model/service.go nodeUsesAutoallocatedIPs and
	// getAllAddressesForProxy.
	AutoAllocated bool
	// LegacyIPv4, when set, replaces Service.AutoIPv4 for AutoAllocated: istiod runs with
	// PILOT_ENABLE_IP_AUTOALLOCATE=false and the proxy asks for addresses itself
	// (ISTIO_META_DNS_AUTO_ALLOCATE), so istiod's older per-push allocation applies
	// (LegacyAutoAllocate, keyed by LegacyKey).
	LegacyIPv4 map[string]string
	// Aliases maps a host name to the Kubernetes ExternalName Services that alias it
	// (AliasIndex); nil: computed from Services.
	Aliases map[string][]Service
	// DestCache, when the caller keeps one per configuration, shares the route destinations
	// of VirtualServices between proxies; nil: computed per proxy.
	DestCache *DestCache
}

// ServiceAddresses returns the addresses this proxy sees for s: the entry's own, else the
// auto-allocated one when the proxy uses it, else none (0.0.0.0).
func (p SidecarProxy) ServiceAddresses(s Service) []string {
	if len(s.Addresses) > 0 || !p.AutoAllocated {
		return s.Addresses
	}
	if p.LegacyIPv4 != nil {
		// Only the services the allocation covers: another entry for the same host and
		// namespace (resolution NONE) does not share its sibling's address.
		if a := p.LegacyIPv4[LegacyKey(s)]; a != "" && legacyEligible(s) {
			return []string{a}
		}
		return s.Addresses
	}
	if s.AutoIPv4 != "" {
		return []string{s.AutoIPv4}
	}
	return s.Addresses
}

// egressView is one egress listener's imports.
type egressView struct {
	l        EgressListener
	services []Service
	vses     []*networkingv1.VirtualService
	vsIdx    *vsHostIndex
}

// ReservedPort: service Service (host Host) got no chain on Listener (port Port), which a
// Sidecar egress listener with that port holds for its own hosts (Holder: the first service there).
type ReservedPort struct {
	Service, Host string
	Port          uint32
	Listener      string
	Holder        string
}

// SidecarOutbound is the predicted outbound listener and route configuration of one sidecar.
type SidecarOutbound struct {
	Proxy     SidecarProxy
	Listeners []*Listener
	Conflicts []Conflict
	// Reserved are the services that got nothing on a listener a Sidecar egress listener with
	// that port holds (listener.go buildSidecarOutboundListeners: such a listener is locked).
	Reserved []ReservedPort
	// Skipped explains services that got no listener on a port (UDP, ExternalName, a locked
	// Sidecar egress port).
	Skipped []string
	views   []egressView
	// scope is the sidecar scope's service per host name (scopeServices).
	scope map[string]*Service
	idx   outboundIndex
}

// ScopeService returns the service the sidecar scope holds for a host name (the one istiod's
// SidecarScope.servicesByHostname gives, see scopeServices), and whether there is one.
func (o *SidecarOutbound) ScopeService(host string) (Service, bool) {
	s, ok := o.scope[host]
	if !ok {
		return Service{}, false
	}
	return *s, true
}

// ScopeServices returns the services of the sidecar scope (one per host name, see
// ScopeService), sorted by host name.
func (o *SidecarOutbound) ScopeServices() []Service {
	out := make([]Service, 0, len(o.scope))
	for _, h := range sortedKeys(o.scope) {
		out = append(out, *o.scope[h])
	}
	return out
}

// BuildSidecarOutbound predicts the outbound listeners of a sidecar proxy: per egress listener
// (explicit ports first, then the catch-all), every imported service port becomes a listener
// keyed by (bind, port) — HTTP on 0.0.0.0 with an HCM chain (RDS "<port>"), TCP/TLS on the
// service address (0.0.0.0 without one) with tcp_proxy chains (SNI chains for TLS/HTTPS on the
// wildcard), sniffed ports with both — and services that land on an existing key are merged
// per istiod's conflict rules: identical TCP matches are dropped (first wins), HTTP and TCP
// mixed become sniffing, MongoDB/MySQL refuse to mix. Services are visited in istiod's order
// (EgressListener.Candidates: exported privately or by name first, then public, each oldest
// first; oldest first only for a listener whose imports are all exact "ns/host" names).
//
// DNS capture and auto-allocated addresses are not modelled (entries without addresses bind
// 0.0.0.0, as for proxies without ISTIO_META_DNS_CAPTURE).
//
// Mirrors istiod pilot/pkg/networking/core/listener.go buildSidecarOutboundListeners,
// buildSidecarOutboundListener, mergeTCPFilterChains, isConflictWithWellKnownPort,
// buildListenerFromEntry and tls.go buildSidecarOutboundTLSFilterChainOpts /
// buildSidecarOutboundTCPFilterChainOpts (seed §1.2, §2.1, §2.2; istio-semantics.md R4.1–R4.10).
func BuildSidecarOutbound(p SidecarProxy) *SidecarOutbound {
	if p.Aliases == nil {
		p.Aliases = AliasIndex(p.Services)
	}
	out := &SidecarOutbound{Proxy: p}
	if p.HostIndex == nil {
		p.HostIndex = HostNamespaceIndex(p.Services)
	}
	for _, el := range p.Scope.Egress {
		vses := el.SelectVirtualServices(p.VirtualServices, p.Namespace, p.DefaultVSExportTo)
		out.views = append(out.views, egressView{l: el, services: el.SelectServices(el.candidates(p.Services, p.HostIndex, p.Exported, p.Namespace), p.Namespace),
			vses: vses, vsIdx: newVSHostIndex(vses)})
	}
	out.scope = scopeServices(out.views, p.HostIndex, p.Namespace, p.DestCache)
	byKey := map[string]*Listener{}
	var order []string
	for _, v := range out.views {
		el := v.l
		if el.Port == nil {
			for _, l := range byKey {
				l.locked = true
			}
		}
		for _, s := range v.services {
			ports := s.Ports
			if el.Port != nil {
				ports = []ServicePort{*el.Port}
			}
			for _, sp := range ports {
				for _, a := range p.listenerAddresses(s, sp, el.Port != nil) {
					b := builder{out: out, byKey: byKey, order: &order, proxy: p, view: v}
					b.build(s, sp, a)
				}
			}
		}
	}
	for _, k := range order {
		l := byKey[k]
		finalize(l, p.Scope)
		out.Listeners = append(out.Listeners, l)
	}
	sort.SliceStable(out.Listeners, func(i, j int) bool {
		if out.Listeners[i].Port != out.Listeners[j].Port {
			return out.Listeners[i].Port < out.Listeners[j].Port
		}
		return out.Listeners[i].Bind < out.Listeners[j].Bind
	})
	return out
}

// bindAddr is where one service port listens: bind ("" = decide by class) and a CIDR match.
type bindAddr struct {
	bind string
	cidr string
}

// listenerAddresses: one listener per address of the entry (a /32 becomes the address, a CIDR
// binds 0.0.0.0 with a prefix-range match); none: 0.0.0.0; resolution NONE entries without
// addresses on TCP/sniffed ports get one listener per endpoint address, or 0.0.0.0 when they
// have neither endpoints nor a workloadSelector (listener.go L501-L559; serviceentry
// conversion.go convertServices). Not under an egress listener with a port (ported): istiod
// builds those per service, on its address or 0.0.0.0 (buildSidecarOutboundListeners, the
// per-endpoint loop is in the catch-all branch only).
func (p SidecarProxy) listenerAddresses(s Service, sp ServicePort, ported bool) []bindAddr {
	var out []bindAddr
	for _, a := range p.ServiceAddresses(s) {
		if pfx, err := netip.ParsePrefix(a); err == nil {
			if pfx.IsSingleIP() {
				out = append(out, bindAddr{bind: pfx.Addr().String()})
			} else {
				out = append(out, bindAddr{bind: WildcardAddress, cidr: pfx.String()})
			}
			continue
		}
		out = append(out, bindAddr{bind: a})
	}
	if len(out) > 0 {
		return out
	}
	cls := ListenerClass(sp.Protocol)
	if !ported && (s.Resolution == "NONE" || s.Resolution == "Headless") && (cls == ClassTCP || cls == ClassAuto) {
		eps := s.EndpointAddresses
		if p.Endpoints != nil {
			eps = p.Endpoints(s, sp.Number)
		}
		if s.Kind == KindServiceEntry && len(eps) == 0 && len(s.WorkloadSelector) == 0 {
			return []bindAddr{{bind: WildcardAddress}}
		}
		for _, a := range eps {
			if IsIP(a) {
				out = append(out, bindAddr{bind: a})
			}
		}
		return out
	}
	return []bindAddr{{bind: WildcardAddress}}
}

type builder struct {
	out   *SidecarOutbound
	byKey map[string]*Listener
	order *[]string
	proxy SidecarProxy
	view  egressView
}

func isTCPProto(p string) bool { return ListenerClass(p) == ClassTCP }
func isHTTPProto(p string) bool {
	return ListenerClass(p) == ClassHTTP
}

// build mirrors buildSidecarOutboundListener for one service port and address.
func (b builder) build(s Service, sp ServicePort, a bindAddr) {
	if s.Resolution == "ExternalName" {
		return
	}
	cls := ListenerClass(sp.Protocol)
	if cls == ClassNone {
		b.out.Skipped = append(b.out.Skipped, fmt.Sprintf("%s port %d/%s: UDP gets no listener", s.Ref(), sp.Number, sp.Protocol))
		return
	}
	bind, cidr := a.bind, a.cidr
	if cls == ClassHTTP {
		bind, cidr = WildcardAddress, ""
	}
	if b.view.l.Bind != "" {
		bind = b.view.l.Bind
	}
	key := bind + "_" + strconv.Itoa(int(sp.Number))
	cur := b.byKey[key]
	if cur != nil && cur.locked {
		b.out.Skipped = append(b.out.Skipped, fmt.Sprintf("%s port %d: %s is reserved by a Sidecar egress listener with that port", s.Ref(), sp.Number, key))
		b.out.Reserved = append(b.out.Reserved, ReservedPort{Service: s.Ref(), Host: s.Hostname, Port: sp.Number, Listener: key, Holder: firstService(cur)})
		return
	}
	entryProto := sp.Protocol
	var chains []FilterChain
	conflict := "NONE"
	switch cls {
	case ClassHTTP:
		if cur != nil {
			if isTCPProto(cur.Protocol) {
				conflict = "HTTP_OVER_TCP"
			} else {
				return
			}
		}
		c := FilterChain{RDS: strconv.Itoa(int(sp.Number)), Service: s.Ref(), Host: s.Hostname, Protocol: sp.Protocol}
		if bind == WildcardAddress {
			c.ALPN, c.Transport = plaintextHTTPALPNs, TransportRawBuffer
			entryProto = ProtoUnsupported
		}
		chains = []FilterChain{c}
	case ClassTCP:
		chains = b.tcpChains(s, sp, bind, cidr)
		if cur != nil {
			switch {
			case isHTTPProto(cur.Protocol):
				conflict = "TCP_OVER_HTTP"
			case isTCPProto(cur.Protocol):
				conflict = "TCP_OVER_TCP"
			default:
				conflict = "TCP_OVER_AUTO"
			}
		}
	case ClassAuto:
		if cur != nil {
			switch {
			case isHTTPProto(cur.Protocol):
				conflict = "AUTO_OVER_HTTP"
			case isTCPProto(cur.Protocol):
				conflict = "AUTO_OVER_TCP"
			default:
				return
			}
		}
		chains = b.tcpChains(s, sp, bind, cidr)
		rds := strconv.Itoa(int(sp.Number))
		if bind != WildcardAddress {
			rds = s.Hostname + ":" + rds
		}
		chains = append(chains, FilterChain{RDS: rds, ALPN: plaintextHTTPALPNs, Transport: TransportRawBuffer, Service: s.Ref(), Host: s.Hostname, Protocol: sp.Protocol})
	}
	if cur != nil && conflict != "NONE" {
		in, ex := sp.Protocol, cur.Protocol
		if (in == ProtoMongo || in == ProtoMySQL || ex == ProtoMongo || ex == ProtoMySQL) && in != ex {
			b.out.Conflicts = append(b.out.Conflicts, Conflict{Listener: key, Kind: "WELL_KNOWN_PORT", Accepted: firstService(cur), Rejected: s.Ref(), Host: s.Hostname, Protocol: protoName(in), Existing: protoName(ex)})
			return
		}
	}
	switch conflict {
	case "NONE", "AUTO_OVER_HTTP":
		if cur == nil {
			*b.order = append(*b.order, key)
		}
		l := &Listener{Name: key, Bind: bind, Port: sp.Number, Protocol: entryProto, raw: chains}
		b.byKey[key] = l
	case "HTTP_OVER_TCP", "TCP_OVER_HTTP", "AUTO_OVER_TCP":
		b.merge(cur, chains, s)
		cur.Protocol = ProtoUnsupported
	case "TCP_OVER_TCP", "TCP_OVER_AUTO":
		b.merge(cur, chains, s)
	}
}

func protoName(p string) string {
	if p == "" {
		return "UNKNOWN"
	}
	return p
}

func firstService(l *Listener) string {
	for _, c := range l.raw {
		if c.Service != "" {
			return c.Service
		}
	}
	return ""
}

// merge mirrors mergeTCPFilterChains: an incoming chain whose match equals an existing one is
// dropped and recorded.
func (b builder) merge(cur *Listener, incoming []FilterChain, s Service) {
	if cur.rawKeys == nil {
		cur.rawKeys = map[string]int{}
		for i, c := range cur.raw {
			if _, ok := cur.rawKeys[conflictKey(c)]; !ok {
				cur.rawKeys[conflictKey(c)] = i
			}
		}
	}
	for _, in := range incoming {
		k := conflictKey(in)
		if i, ok := cur.rawKeys[k]; ok {
			hit := &cur.raw[i]
			same := hit.RDS == in.RDS && hit.Cluster == in.Cluster && slices.Equal(hit.Weighted, in.Weighted)
			b.out.Conflicts = append(b.out.Conflicts, Conflict{Listener: cur.Name, Kind: "TCP_OVER_TCP", Accepted: hit.Service, Rejected: s.Ref(), Host: s.Hostname, Protocol: protoName(in.Protocol), Existing: protoName(hit.Protocol), SameDestination: same})
			continue
		}
		cur.rawKeys[k] = len(cur.raw)
		cur.raw = append(cur.raw, in)
	}
}

// conflictKey is the part of a chain's match that istiod's filterChainOpts.conflictsWith
// compares (same transport, same ALPN list, same SNI set ignoring "*", same CIDR set ignoring
// 0.0.0.0), as one string: two chains conflict exactly when their keys are equal.
func conflictKey(c FilterChain) string {
	set := func(xs []string, skip func(string) bool) []string {
		var o []string
		for _, x := range xs {
			if !skip(x) {
				o = append(o, x)
			}
		}
		slices.Sort(o)
		return slices.Compact(o)
	}
	sni := func(x string) bool { return x == "*" }
	cidr := func(x string) bool { return strings.HasPrefix(x, "0.0.0.0") || x == "*" }
	return c.Transport + "\x00" + strings.Join(c.ALPN, "\x01") + "\x00" + strings.Join(set(c.SNI, sni), "\x01") + "\x00" + strings.Join(set(normCIDRs(c.CIDRs), cidr), "\x01")
}

func normCIDRs(xs []string) []string {
	var o []string
	for _, x := range xs {
		if p, err := netip.ParsePrefix(x); err == nil {
			o = append(o, p.Masked().String())
		} else if a, err := netip.ParseAddr(x); err == nil {
			o = append(o, netip.PrefixFrom(a, a.BitLen()).String())
		} else {
			o = append(o, x)
		}
	}
	return o
}

// tcpChains mirrors buildSidecarOutboundTCPListenerOpts: TLS/HTTPS ports get SNI chains
// (VirtualService tls routes, else one chain to the service whose server_names is the host when
// the listener is the wildcard or a CIDR); other TCP (and sniffed) ports get the first
// VirtualService tcp route, else one match-all chain to the service.
func (b builder) tcpChains(s Service, sp ServicePort, bind, cidr string) []FilterChain {
	var cidrs []string
	if cidr != "" {
		cidrs = []string{cidr}
	}
	var vses []*networkingv1.VirtualService
	for _, i := range b.view.vsIdx.candidates(s.Hostname, len(b.view.vses)) {
		vs := b.view.vses[i]
		for _, h := range vs.Spec.GetHosts() {
			if HostMatches(ResolveShortname(h, vs.Namespace), s.Hostname) {
				vses = append(vses, vs)
				break
			}
		}
	}
	port := sp.Number
	if len(s.Ports) == 1 {
		port = s.Ports[0].Number
	}
	def := FilterChain{CIDRs: cidrs, Cluster: ClusterName(port, "", s.Hostname), Service: s.Ref(), Host: s.Hostname, Protocol: sp.Protocol}
	if IsTLSProtocol(sp.Protocol) {
		var out []FilterChain
		seen := map[string]bool{}
		for _, vs := range vses {
			for _, r := range vs.Spec.GetTls() {
				if len(r.GetRoute()) == 0 {
					continue
				}
				for _, m := range r.GetMatch() {
					if !b.l4MatchApplies(m.GetGateways(), m.GetPort(), m.GetSourceLabels(), m.GetSourceNamespace(), sp.Number) {
						continue
					}
					mc := cidrs
					if len(m.GetDestinationSubnets()) > 0 {
						mc = m.GetDestinationSubnets()
					}
					k := strings.Join(m.GetSniHosts(), ",") + "|" + strings.Join(m.GetDestinationSubnets(), ",")
					if seen[k] {
						continue
					}
					seen[k] = true
					c := b.routeChain(r.GetRoute(), sp.Number, vs)
					c.SNI, c.CIDRs, c.Protocol = sortedCopy(m.GetSniHosts()), mc, sp.Protocol
					out = append(out, c)
				}
			}
		}
		if len(out) > 0 {
			return out
		}
		if cidr != "" || bind == WildcardAddress || (isWildcard(s.Hostname) && s.Resolution == "DYNAMIC_DNS") {
			def.SNI = []string{s.Hostname}
			// The names of the ExternalName Services aliasing the host, with their alternate
			// forms (tls.go buildSidecarOutboundTLSFilterChainOpts, Attributes.Aliases).
			for _, a := range b.proxy.Aliases[s.Hostname] {
				def.SNI = append(def.SNI, nameDomains(a, b.proxy.Namespace)...)
			}
		}
		return []FilterChain{def}
	}
	var out []FilterChain
	for _, vs := range vses {
		for _, r := range vs.Spec.GetTcp() {
			if len(r.GetRoute()) == 0 {
				continue
			}
			if len(r.GetMatch()) == 0 {
				c := b.routeChain(r.GetRoute(), sp.Number, vs)
				c.CIDRs, c.Protocol = cidrs, sp.Protocol
				return append(out, c)
			}
			var subnets []string
			for _, m := range r.GetMatch() {
				if !b.l4MatchApplies(m.GetGateways(), m.GetPort(), m.GetSourceLabels(), m.GetSourceNamespace(), sp.Number) {
					continue
				}
				if len(m.GetDestinationSubnets()) == 0 {
					c := b.routeChain(r.GetRoute(), sp.Number, vs)
					c.CIDRs, c.Protocol = cidrs, sp.Protocol
					return append(out, c)
				}
				subnets = append(subnets, m.GetDestinationSubnets()...)
			}
			if len(subnets) > 0 {
				c := b.routeChain(r.GetRoute(), sp.Number, vs)
				c.CIDRs, c.Protocol = subnets, sp.Protocol
				out = append(out, c)
				if slices.Equal(sortedCopy(subnets), sortedCopy(cidrs)) {
					return out
				}
			}
		}
	}
	return append(out, def)
}

func sortedCopy(xs []string) []string {
	o := slices.Clone(xs)
	slices.Sort(o)
	return o
}

// l4MatchApplies mirrors matchTLS/matchTCP on a sidecar: match.gateways, when set, must list
// "mesh"; match.port, when set, must equal the listener port; sourceLabels must select the
// proxy; sourceNamespace must be the proxy's.
func (b builder) l4MatchApplies(gws []string, port uint32, src map[string]string, srcNs string, listenPort uint32) bool {
	if len(gws) > 0 && !slices.Contains(gws, "mesh") {
		return false
	}
	if port != 0 && port != listenPort {
		return false
	}
	if len(src) > 0 && !LabelsSubsetOf(src, b.proxy.Labels) {
		return false
	}
	return srcNs == "" || srcNs == b.proxy.Namespace
}

// routeChain mirrors buildOutboundNetworkFilters: one destination gives its cluster, several a
// weighted set. The port is the destination's, else the only port of the sidecar scope's
// service for the host (ScopeService: push_context.go ServiceForHostname), else the listener
// port; an ExternalName Service's destination is its external name (route.go
// GetDestinationCluster).
func (b builder) routeChain(rs []*networking.RouteDestination, listenPort uint32, vs *networkingv1.VirtualService) FilterChain {
	c := FilterChain{VirtualService: vs.Namespace + "/" + vs.Name}
	for _, r := range rs {
		h := ResolveShortname(r.GetDestination().GetHost(), vs.Namespace)
		dst := h
		if s, ok := b.out.scope[h]; ok && s.ExternalName != "" {
			dst = s.ExternalName // an alias: its external name's cluster, as written
		}
		name := ClusterName(b.destPort(h, r.GetDestination().GetPort().GetNumber(), listenPort), r.GetDestination().GetSubset(), dst)
		if h == "" {
			name = UnknownServiceCluster // a refused Gateway API backend (GetDestinationCluster)
		}
		switch {
		case len(rs) == 1:
			c.Cluster = name
		case r.GetWeight() > 0:
			// several destinations: weight 0 ones are left out (networkfilter.go
			// buildOutboundNetworkFiltersWithWeightedClusters)
			c.Weighted = append(c.Weighted, name)
		}
	}
	if len(rs) > 0 {
		c.Host = ResolveShortname(rs[0].GetDestination().GetHost(), vs.Namespace)
		c.Service = "VirtualService " + vs.Namespace + "/" + vs.Name
	}
	return c
}

func (b builder) destPort(h string, declared, listenPort uint32) uint32 {
	if declared != 0 {
		return declared
	}
	if s, ok := b.out.scope[h]; ok && len(s.Ports) == 1 {
		return s.Ports[0].Number
	}
	return listenPort
}

// ClusterName returns the Envoy cluster name outbound|<port>|<subset>|<host>
// (pilot/pkg/model/service.go BuildSubsetKey).
func ClusterName(port uint32, subset, host string) string {
	return fmt.Sprintf("outbound|%d|%s|%s", port, subset, host)
}

// finalize mirrors buildListenerFromEntry: a match-all chain becomes the default chain when other
// chains exist; a listener without one gets PassthroughFilterChain (fallthroughCluster).
func finalize(l *Listener, scope SidecarScope) {
	var def *FilterChain
	for _, c := range l.raw {
		c := c
		if c.MatchAll() {
			def = &c
			continue
		}
		l.Chains = append(l.Chains, c)
	}
	switch {
	case def != nil && len(l.Chains) == 0:
		l.Chains = []FilterChain{*def}
	case def != nil:
		l.Default = def
	default:
		l.Default = &FilterChain{Name: PassthroughFilterChain, Cluster: fallthroughCluster(scope)}
	}
}

// fallthroughCluster is where a sidecar's TCP catch-alls send what matches nothing:
// BlackHoleCluster under REGISTRY_ONLY, else the Sidecar's egressProxy cluster, else
// PassthroughCluster. Mirrors istiod listener_builder.go buildOutboundCatchAllNetworkFiltersOnly.
func fallthroughCluster(scope SidecarScope) string {
	switch {
	case scope.OutboundTrafficPolicy == RegistryOnly:
		return BlackHoleCluster
	case scope.EgressProxy != "":
		return scope.EgressProxy
	}
	return PassthroughCluster
}
