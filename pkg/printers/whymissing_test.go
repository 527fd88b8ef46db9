package printers

import (
	"bytes"
	"strings"
	"testing"

	"github.com/kubectl-egress/kubectl-egress/pkg/checks"
)

// TestGatewayLineSaysCallsFail: a gateway whose cluster is present but whose verdict names an
// Error-level fault says so on its own line, not a bare PRESENT next to the cause (blind audit
// 18: "PRESENT ... cause ROUTE_NOT_BOUND" read as fine).
func TestGatewayLineSaysCallsFail(t *testing.T) {
	for _, c := range []struct {
		cause, want string
	}{
		{checks.CauseOK, "GATEWAY istio-system/gw: PRESENT   cause OK"},
		{checks.CauseRouteNotBound, "GATEWAY istio-system/gw: PRESENT, but calls fail:   cause ROUTE_NOT_BOUND"},
	} {
		r := &checks.Report{Host: "api.example.com", Gateways: []checks.GatewayVerdict{{Gateway: "istio-system/gw", Present: true, Cause: c.cause}}}
		var b bytes.Buffer
		if err := WhyMissing(&b, r, "table"); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), c.want) {
			t.Errorf("cause %s: no line %q in\n%s", c.cause, c.want, b.String())
		}
	}
}

// A gateway verdict blaming the object the failed path blames points at the path's fix instead
// of repeating it in other words (blind audit 107); another culprit keeps its own fix.
func TestGatewayFixNotRepeatedAfterPath(t *testing.T) {
	for _, c := range []struct {
		culprit string
		same    bool
	}{{"Gateway team-blue/egress-gw", true}, {"ServiceEntry team-blue/api", false}} {
		r := &checks.Report{Host: "api.example.com",
			Path: &checks.PathTrace{Client: "sidecar team-blue", Host: "api.example.com", Port: 443, Call: "tls", Cause: checks.CauseGatewayNotApplied, Level: checks.LevelError,
				Culprit: "Gateway team-blue/egress-gw", Message: "refused", Fix: "Create the Gateway in istio-system (path fix)."},
			Gateways: []checks.GatewayVerdict{{Gateway: "istio-system/gw", Present: true, Cause: checks.CauseGatewayNotApplied, Culprit: c.culprit, Message: "applies to no workload", Fix: "Create the Gateway in istio-system (gateway fix)."}}}
		var b bytes.Buffer
		if err := WhyMissing(&b, r, "table"); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		if strings.Contains(out, "(gateway fix)") == c.same || strings.Contains(out, "the path's fix above") != c.same || !strings.Contains(out, "(path fix)") {
			t.Errorf("culprit %s:\n%s", c.culprit, out)
		}
	}
}
