package rules

import "testing"

// MostSpecificDomain takes Envoy's order across domains of several VirtualServices: an exact
// domain, then the longest "*." suffix, then a "prefix*", then "*".
func TestMostSpecificDomain(t *testing.T) {
	for _, c := range []struct {
		domains []string
		host    string
		want    string
	}{
		{[]string{"*.example.com", "api.example.com"}, "api.example.com", "api.example.com"},
		{[]string{"*", "*.com", "*.example.com"}, "api.example.com:443", "*.example.com"},
		{[]string{"*", "api.*"}, "api.example.com", "api.*"},
		{[]string{"*"}, "x.org", "*"},
		{[]string{"*.example.com"}, "example.com", ""},
	} {
		if got := MostSpecificDomain(c.domains, c.host); got != c.want {
			t.Errorf("MostSpecificDomain(%q, %q) = %q, want %q", c.domains, c.host, got, c.want)
		}
	}
}
