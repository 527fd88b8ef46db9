package printers

import (
	"strings"
	"testing"

	"github.com/kubectl-egress/kubectl-egress/pkg/checks"
)

// A finding about no one resource (a verdict that could not be given) prints no empty
// "<resource>: " before its message (blind audit 62 k5c printed "Error [INPUT_UNKNOWN] : ...").
func TestResourcePrefix(t *testing.T) {
	if got := resourcePrefix(""); got != "" {
		t.Errorf("empty resource: %q", got)
	}
	if got := resourcePrefix("ServiceEntry a/b"); got != "ServiceEntry a/b: " {
		t.Errorf("resource: %q", got)
	}
}

// The short answer of a call that works but bypasses the egress gateway carries the bypass
// warning's fix (blind audit 107: --brief printed the verdict alone); a plain OK has none.
func TestPathShortBypassFix(t *testing.T) {
	bypass := &checks.PathTrace{Client: "sidecar team-a", Host: "cdn.example", Port: 80, Call: "http", Cause: checks.PathOK, Level: checks.LevelWarning,
		Warnings: []checks.Finding{{Code: checks.PathDirect, Level: checks.LevelWarning, Resource: "VirtualService team-a/cdn", Message: "bypasses", Fix: "Route the call to the gateway's Service in VirtualService team-a/cdn."}}}
	if got := pathShort(bypass); !strings.Contains(got, "  Fix: Route the call to the gateway's Service") {
		t.Errorf("bypass: %q", got)
	}
	ok := &checks.PathTrace{Client: "sidecar team-a", Host: "cdn.example", Port: 80, Call: "http", Cause: checks.PathOK}
	if got := pathShort(ok); strings.Contains(got, "Fix:") {
		t.Errorf("ok: %q", got)
	}
}
