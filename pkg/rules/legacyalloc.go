package rules

import (
	"fmt"
	"hash/fnv"
	"slices"
)

// LegacyKey is the key of a ServiceEntry service in LegacyAutoAllocate's result: istiod's
// Service.Key(), "<namespace>/<host>".
func LegacyKey(s Service) string { return s.Namespace + "/" + s.Hostname }

// LegacyAutoAllocate returns the IPv4 address istiod's older, per-push allocation gives every
// ServiceEntry service that may have one (no spec.addresses, a host that is not a wildcard,
// resolution other than NONE; the enable-autoallocate-ip label is not read), keyed by
// LegacyKey. istiod runs it only with PILOT_ENABLE_IP_AUTOALLOCATE=false, and only proxies with
// ISTIO_META_DNS_CAPTURE and ISTIO_META_DNS_AUTO_ALLOCATE use its addresses.
//
// Mirrors istiod pilot/pkg/serviceregistry/serviceentry/auto_allocation.go autoAllocateIPs: a
// slot per service from the FNV-32a hash of its key modulo 256*254 (collisions resolved by
// double hashing, in the order of services), then addresses 240.240.x/255.x%255 by slot order,
// skipping .0 addresses; services with the same key share one address. Collisions depend on
// istiod's service order, which services follows (the registry's order): with a few hundred
// entries they are rare.
func LegacyAutoAllocate(services []Service) map[string]string {
	const maxIPs = 256 * 254
	const prime = 65011
	slots := map[uint32]string{}
	taken := func(i uint32) bool { _, ok := slots[i]; return ok }
	for _, s := range services {
		if !legacyEligible(s) {
			continue
		}
		h := fnv.New32a()
		h.Write([]byte(LegacyKey(s)))
		sum := h.Sum32()
		first := sum % maxIPs
		if !taken(first) {
			slots[first] = LegacyKey(s)
			continue
		}
		second := uint32(prime) - (sum % uint32(prime))
		for i := uint32(1); ; i++ {
			nh := (sum + i*second) % uint32(maxIPs-1)
			if !taken(nh) {
				slots[nh] = LegacyKey(s)
				break
			}
		}
	}
	order := make([]uint32, 0, len(slots))
	for i := range slots {
		order = append(order, i)
	}
	slices.Sort(order)
	out := map[string]string{}
	bumps := 0
	for _, i := range order {
		// istiod's counter x is the slot's position + 1, plus one for every earlier occupied
		// slot where x%255 was 0.
		x := int(i) + 1 + bumps
		if x%255 == 0 {
			x++
			bumps++
		}
		key := slots[i]
		if _, ok := out[key]; ok {
			continue
		}
		out[key] = fmt.Sprintf("240.240.%d.%d", x/255, x%255)
	}
	return out
}

// legacyEligible: a service autoAllocateIPs gives an address (a ServiceEntry service without
// addresses, not a wildcard host, resolution not NONE).
func legacyEligible(s Service) bool {
	return s.Kind == KindServiceEntry && len(s.Addresses) == 0 && !isWildcard(s.Hostname) && s.Resolution != "NONE"
}
