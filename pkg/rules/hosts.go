package rules

import (
	"net/netip"
	"strings"
)

// IsIP reports whether s is a literal IPv4 or IPv6 address.
func IsIP(s string) bool {
	_, err := netip.ParseAddr(s)
	return err == nil
}

// ResolveShortname expands a short host name relative to namespace ns: "reviews" in ns "app"
// becomes "reviews.app.svc.cluster.local". Names containing a dot, "*" and IP addresses are
// returned unchanged.
//
// Mirrors istiod pilot/pkg/model/config.go ResolveShortnameToFQDN with Meta.Domain set to
// DefaultDomain (as the Kubernetes crdclient sets it).
func ResolveShortname(h, ns string) string {
	if h == "" || h == "*" || strings.Contains(h, ".") || IsIP(h) {
		return h
	}
	out := h
	if ns != "" {
		out += "." + ns
	}
	return out + ".svc." + DefaultDomain
}

// ResolveGatewayName turns a VirtualService `gateways` entry into "namespace/name":
// a short name resolves in the VirtualService's namespace vsNs; "./name" likewise; the legacy
// FQDN form "name.ns.svc.cluster.local" (or "name.ns") becomes "ns/name"; "ns/name" is kept.
// The reserved "mesh" is returned unchanged.
//
// Mirrors istiod pilot/pkg/model/config.go resolveGatewayName (seed §2.3 binding condition 1).
func ResolveGatewayName(gw, vsNs string) string {
	if gw == MeshGateway {
		return gw
	}
	if slash := strings.Index(gw, "/"); slash >= 0 {
		if gw[:slash] == "." {
			return vsNs + "/" + gw[slash+1:]
		}
		return gw
	}
	dot := strings.Index(gw, ".")
	if dot < 0 {
		return vsNs + "/" + gw
	}
	rest := gw[dot+1:]
	if next := strings.Index(rest, "."); next >= 0 {
		rest = rest[:next]
	}
	return rest + "/" + gw[:dot]
}

// IsLegacyGatewayName reports whether a `gateways` entry uses the legacy FQDN form
// (a dot and no slash), which istio validation accepts with a warning.
func IsLegacyGatewayName(gw string) bool {
	return gw != MeshGateway && !strings.Contains(gw, "/") && strings.Contains(gw, ".")
}

func isWildcard(h string) bool { return strings.HasPrefix(h, "*") }

// HostMatches reports whether two host names match each other, either being a wildcard
// ("*", "*.example.com").
//
// Mirrors istiod pkg/config/host/name.go Name.Matches.
func HostMatches(a, b string) bool {
	aw, bw := isWildcard(a), isWildcard(b)
	switch {
	case aw && bw:
		if len(a) < len(b) {
			return strings.HasSuffix(b[1:], a[1:])
		}
		return strings.HasSuffix(a[1:], b[1:])
	case aw:
		return strings.HasSuffix(b, a[1:])
	case bw:
		return strings.HasSuffix(a, b[1:])
	default:
		return a == b
	}
}

// HostSubsetOf reports whether every name matched by a is also matched by b.
//
// Mirrors istiod pkg/config/host/name.go Name.SubsetOf.
func HostSubsetOf(a, b string) bool {
	aw, bw := isWildcard(a), isWildcard(b)
	switch {
	case aw && bw:
		return strings.HasSuffix(a[1:], b[1:])
	case aw:
		return false
	case bw:
		return strings.HasSuffix(a, b[1:])
	default:
		return a == b
	}
}

// HostIntersection returns, for every pair (x in a, y in b) where one is a subset of the other,
// the more specific of the two, without duplicates, in a's order.
//
// Mirrors istiod pkg/config/host/names.go Names.Intersection (used for gateway server hosts ∩
// VirtualService hosts, seed §2.3 binding condition 2).
func HostIntersection(a, b []string) []string {
	var out []string
	seen := map[string]bool{}
	add := func(h string) {
		if !seen[h] {
			seen[h] = true
			out = append(out, h)
		}
	}
	for _, x := range a {
		for _, y := range b {
			if HostSubsetOf(x, y) {
				add(x)
			} else if HostSubsetOf(y, x) {
				add(y)
			}
		}
	}
	return out
}

// ServerHostsForNamespace returns the Gateway server hosts usable by a VirtualService in
// namespace vsNs: entries "ns/host" whose ns is vsNs or "*", and entries without a namespace;
// the namespace part is stripped. hosts must already be sanitized (SanitizeServerHosts).
//
// Mirrors istiod pkg/config/host/names.go NamesForNamespace.
func ServerHostsForNamespace(hosts []string, vsNs string) []string {
	out := make([]string, 0, len(hosts))
	for _, h := range hosts {
		if ns, name, ok := strings.Cut(h, "/"); ok {
			if ns != vsNs && ns != "*" {
				continue
			}
			h = name
		}
		out = append(out, h)
	}
	return out
}

// SanitizeServerHosts normalizes one Gateway's server hosts: "./h" becomes "<gwNs>/h",
// "*/h" becomes "h", and a "*/*" entry makes the whole list ["*"].
//
// Mirrors istiod pilot/pkg/model/gateway.go sanitizeServerHostNamespace.
func SanitizeServerHosts(hosts []string, gwNs string) []string {
	out := make([]string, 0, len(hosts))
	for _, h := range hosts {
		ns, name, ok := strings.Cut(h, "/")
		if !ok {
			out = append(out, h)
			continue
		}
		switch {
		case ns == "*" && name == "*":
			return []string{"*"}
		case ns == "*":
			out = append(out, name)
		case ns == ".":
			out = append(out, gwNs+"/"+name)
		default:
			out = append(out, h)
		}
	}
	return out
}

// NormalizeHost lower-cases a host and removes one trailing dot.
func NormalizeHost(h string) string {
	return strings.TrimSuffix(strings.ToLower(strings.TrimSpace(h)), ".")
}
