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
