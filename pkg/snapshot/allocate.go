package snapshot

import (
	"net/netip"
	"sort"
	"strings"

	networking "istio.io/api/networking/v1alpha3"
	networkingv1 "istio.io/client-go/pkg/apis/networking/v1"
)

// Address ranges istiod's ServiceEntry address allocator hands out (PILOT_IP_AUTOALLOCATE_IPV4_PREFIX
// and PILOT_IP_AUTOALLOCATE_IPV6_PREFIX at their defaults).
const (
	AutoallocateIPv4Prefix = "240.240.0.0/16"
	AutoallocateIPv6Prefix = "2001:2::/48"
)

// autoallocateOptOutLabel opts a ServiceEntry out of address allocation when "false" (the same
// label rules.AutoAllocateLabel names; snapshot does not import rules).
const autoallocateOptOutLabel = "networking.istio.io/enable-autoallocate-ip"

// PredictAllocations writes into status.addresses of the ServiceEntries picked by predict what
// istiod's address allocator would write once they are applied: one IPv4 and one IPv6 address
// per host that has none yet, for every entry that may get one (no spec.addresses, resolution
// other than NONE, not opted out with networking.istio.io/enable-autoallocate-ip=false;
// wildcard hosts only with resolution DYNAMIC_DNS). Addresses come from the allocator's ranges
// in order, skipping every address any entry already holds in its spec or status, entries taken
// oldest first. The real allocator hands addresses out in the order it reconciles entries, so
// the values are a guess; what they decide (each host gets its own address, distinct from
// every other) is not. Each host given one is recorded in Assumptions.PredictedAddresses.
//
// The manifests of a ServiceEntry carry no status (the API server ignores a status written in
// them: the status subresource is the allocator's), so without this a file input would show
// every entry as not allocated yet, which on a running istiod lasts milliseconds (blind audit
// 110 c32: a false listener conflict between two TCP entries a DNS-capturing sidecar keeps
// apart).
//
// Mirrors istiod pilot/pkg/controllers/ipallocate/ipallocate.go (reconcileServiceEntry,
// statusPatchForAddresses, keepHost, nextAddresses, prefixUse.allocateNext, checkInSpecAddresses)
// and pilot/pkg/networking/serviceentry/ip_autoallocation.go shouldV2AutoAllocateIPFromPieces.
// Whether istiod runs the allocator (PILOT_ENABLE_IP_AUTOALLOCATE) is per revision and decided
// by the checks: with it off istiod reads no status addresses at all.
func PredictAllocations(s *Snapshot, predict func(*networkingv1.ServiceEntry) bool) {
	v4 := newPrefixUse(netip.MustParsePrefix(AutoallocateIPv4Prefix))
	v6 := newPrefixUse(netip.MustParsePrefix(AutoallocateIPv6Prefix))
	for _, se := range s.ServiceEntries {
		if se == nil {
			continue
		}
		for _, a := range se.Spec.Addresses {
			if ip, err := netip.ParseAddr(a); err == nil {
				v4.mark(ip)
				v6.mark(ip)
			}
		}
		for _, a := range se.Status.GetAddresses() {
			if ip, err := netip.ParseAddr(a.GetValue()); err == nil {
				v4.mark(ip)
				v6.mark(ip)
			}
		}
	}
	var todo []*networkingv1.ServiceEntry
	for _, se := range s.ServiceEntries {
		if se != nil && predict(se) && mayAllocate(se) {
			todo = append(todo, se)
		}
	}
	sort.SliceStable(todo, func(i, j int) bool {
		a, b := todo[i], todo[j]
		if !a.CreationTimestamp.Equal(&b.CreationTimestamp) {
			return a.CreationTimestamp.Before(&b.CreationTimestamp)
		}
		if a.Namespace != b.Namespace {
			return a.Namespace < b.Namespace
		}
		return a.Name < b.Name
	})
	for _, se := range todo {
		has := map[string]bool{}
		for _, a := range se.Status.GetAddresses() {
			has[a.GetHost()] = true
		}
		for _, h := range se.Spec.Hosts {
			if has[h] || (strings.HasPrefix(h, "*") && se.Spec.Resolution != networking.ServiceEntry_DYNAMIC_DNS) {
				continue
			}
			has[h] = true
			for _, p := range []*prefixUse{v4, v6} {
				if ip, ok := p.next(); ok {
					se.Status.Addresses = append(se.Status.Addresses, &networking.ServiceEntryAddress{Host: h, Value: ip.String()})
				}
			}
			if s.Assumptions.PredictedAddresses == nil {
				s.Assumptions.PredictedAddresses = map[string]bool{}
			}
			s.Assumptions.PredictedAddresses[se.Namespace+"/"+se.Name+"/"+h] = true
		}
	}
}

// Predicted reports whether the status address of host in ServiceEntry namespace/name is one
// PredictAllocations guessed (not read).
func (s *Snapshot) Predicted(namespace, name, host string) bool {
	return s.Assumptions.PredictedAddresses[namespace+"/"+name+"/"+host]
}

// mayAllocate: the allocator gives se addresses (shouldV2AutoAllocateIPFromPieces without the
// feature flag).
func mayAllocate(se *networkingv1.ServiceEntry) bool {
	if len(se.Spec.Addresses) > 0 || se.Spec.Resolution == networking.ServiceEntry_NONE {
		return false
	}
	return !strings.EqualFold(se.Labels[autoallocateOptOutLabel], "false")
}

// prefixUse hands out the addresses of one range in order, skipping those in use.
type prefixUse struct {
	prefix netip.Prefix
	used   map[netip.Addr]bool
	at     netip.Addr
}

func newPrefixUse(p netip.Prefix) *prefixUse {
	return &prefixUse{prefix: p, used: map[netip.Addr]bool{}, at: p.Addr().Next()}
}

func (p *prefixUse) mark(ip netip.Addr) {
	if ip = ip.Unmap(); p.prefix.Contains(ip) {
		p.used[ip] = true
	}
}

// next: the first free address from the cursor on (false when the range is exhausted).
func (p *prefixUse) next() (netip.Addr, bool) {
	for n := p.at; n.IsValid() && p.prefix.Contains(n); n = n.Next() {
		if !p.used[n] {
			p.used[n], p.at = true, n.Next()
			return n, true
		}
	}
	return netip.Addr{}, false
}
