package checks

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestCaptureBypass: the order istio-iptables applies the capture annotations in (excluded ports,
// excluded ranges, included ports, included ranges), for an address known and for an external
// host's DNS answer ("").
func TestCaptureBypass(t *testing.T) {
	for _, c := range []struct {
		name string
		a    map[string]string
		port uint32
		addr string
		ann  string
	}{
		{"no annotation", nil, 443, "", ""},
		{"excluded port", map[string]string{annExcludeOutboundPorts: "80, 443"}, 443, "", annExcludeOutboundPorts},
		{"other port excluded", map[string]string{annExcludeOutboundPorts: "8443"}, 443, "", ""},
		{"excluded port beats included port", map[string]string{annExcludeOutboundPorts: "443", annIncludeOutboundPorts: "443"}, 443, "", annExcludeOutboundPorts},
		{"excluded range holds the address", map[string]string{annExcludeOutboundIPRanges: "240.240.0.0/16"}, 443, "240.240.0.3", annExcludeOutboundIPRanges},
		{"excluded range, DNS answer unknown", map[string]string{annExcludeOutboundIPRanges: "169.254.169.254/32"}, 443, "", ""},
		{"cluster-only include, DNS answer", map[string]string{annIncludeOutboundIPRanges: "10.0.0.0/8"}, 443, "", annIncludeOutboundIPRanges},
		{"cluster-only include, included port", map[string]string{annIncludeOutboundIPRanges: "10.0.0.0/8", annIncludeOutboundPorts: "443"}, 443, "", ""},
		{"include wildcard", map[string]string{annIncludeOutboundIPRanges: "*"}, 443, "", ""},
		{"include holds the entry address", map[string]string{annIncludeOutboundIPRanges: "10.0.0.0/8"}, 443, "10.4.0.9", ""},
		{"include misses the entry address", map[string]string{annIncludeOutboundIPRanges: "10.0.0.0/8"}, 443, "192.168.3.4", annIncludeOutboundIPRanges},
		{"include of public space, DNS answer", map[string]string{annIncludeOutboundIPRanges: "0.0.0.0/1,128.0.0.0/1"}, 443, "", ""},
		{"empty include list", map[string]string{annIncludeOutboundIPRanges: ""}, 443, "", annIncludeOutboundIPRanges},
	} {
		why, ann := captureBypass(c.a, c.port, c.addr, "api.example.com")
		if ann != c.ann || (ann == "") != (why == "") {
			t.Errorf("%s: %q (%s), want %q", c.name, why, ann, c.ann)
		}
	}
}

// TestUncapturedPod: asked with --pod, the pod's own annotations decide, whatever the others of
// its namespace carry.
func TestUncapturedPod(t *testing.T) {
	snap, err := loadPathFixture(filepath.Join("testdata", "paths", "capture-exclude-outbound-port-bypasses-gateway.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := TracePath(snap, PathOptions{Host: "api.github.com", Port: 443, Pod: "ci/builder-7d9f", Call: "tls"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(p.Client, "(call not redirected to its sidecar)") || !strings.Contains(p.Message, "excludeOutboundPorts lists port 443") {
		t.Errorf("client %q, message %q", p.Client, p.Message)
	}
	found := false
	for _, w := range p.Warnings {
		found = found || w.Code == PathDirect && w.Resource == "Pod ci/builder-7d9f"
	}
	if !found {
		t.Errorf("no %s on the pod: %+v", PathDirect, p.Warnings)
	}
	// another port of the same pod is redirected
	snap2 := loadYAML(t, readTestdata(t, "paths", "_base.yaml"), strings.Replace(readTestdata(t, "paths", "capture-exclude-outbound-port-bypasses-gateway.yaml"), `excludeOutboundPorts: "443"}`, `excludeOutboundPorts: "8443"}`, 1))
	p2, err := TracePath(snap2, PathOptions{Host: "api.github.com", Port: 443, Pod: "ci/builder-7d9f", Call: "tls"})
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range p2.Warnings {
		if w.Code == PathDirect {
			t.Errorf("pod excluding 8443 only: %s %s", w.Resource, w.Message)
		}
	}
}
