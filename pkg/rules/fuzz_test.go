package rules

import (
	"strings"
	"testing"
)

// FuzzHosts: host normalisation, matching and short-name resolution never panic, and matching
// is symmetric, as istiod's host.Name.Matches is.
func FuzzHosts(f *testing.F) {
	for _, s := range [][2]string{{"api.example.com", "*.example.com"}, {"*", "a"}, {"*.a.b", "*.b"}, {"web", "team-a"}, {"10.0.0.1", "*"}, {"", ""}, {"*.", "."}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		na, nb := NormalizeHost(a), NormalizeHost(b)
		if HostMatches(na, nb) != HostMatches(nb, na) {
			t.Fatalf("HostMatches(%q, %q) is not symmetric", na, nb)
		}
		_ = HostSubsetOf(na, nb)
		_ = ResolveShortname(a, b)
		_ = ResolveGatewayName(a, b)
		_ = HostIntersection([]string{na, "*"}, []string{nb})
		_ = SanitizeServerHosts([]string{a, b, "*/" + b}, "ns")
		_ = ServerHostsForNamespace([]string{a, "./" + b, "*/*"}, "ns")
		_ = IsIP(a)
	})
}

// FuzzExportTo: exportTo lists (as declared, against mesh defaults) never panic visibility.
func FuzzExportTo(f *testing.F) {
	f.Add(".,~", "*", "team-a", "istio-system")
	f.Add("", ".", "a", "a")
	f.Add("~,team-b", "", "team-b", "team-c")
	f.Fuzz(func(t *testing.T, declared, meshDefault, svcNs, proxyNs string) {
		split := func(s string) []string {
			if s == "" {
				return nil
			}
			return strings.Split(s, ",")
		}
		eff := EffectiveExportTo(split(declared), split(meshDefault))
		_ = ServiceVisible(svcNs, eff, proxyNs)
		_ = VirtualServiceVisible(svcNs, eff, proxyNs)
	})
}

// FuzzLabelSelectors: label subset matching (Gateway and Service selectors) never panics and an
// empty selector matches everything.
func FuzzLabelSelectors(f *testing.F) {
	f.Add("istio", "egressgateway", "app", "x")
	f.Add("", "", "", "")
	f.Fuzz(func(t *testing.T, k1, v1, k2, v2 string) {
		labels := map[string]string{k1: v1, k2: v2}
		if !LabelsSubsetOf(nil, labels) {
			t.Fatal("an empty selector must match")
		}
		_ = LabelsSubsetOf(map[string]string{k1: v2}, labels)
	})
}
