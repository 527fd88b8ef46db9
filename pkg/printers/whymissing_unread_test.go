package printers

import (
	"bytes"
	"strings"
	"testing"

	"github.com/kubectl-egress/kubectl-egress/pkg/checks"
)

// When ServiceEntries or Services could not be read, the host block does not state that none
// declares the host (blind audit 102 c31, c33); when they were read, it does.
func TestHostBlockWithUnreadRegistry(t *testing.T) {
	for _, tc := range []struct {
		cause, msg, want string
	}{
		{checks.CauseInputUnknown, "cannot tell whether an entry declares api.example.com: ServiceEntries could not be read (forbidden)", "No ServiceEntry or Service that could be read declares api.example.com."},
		{checks.CauseHostNotFound, "no ServiceEntry or Service declares host api.example.com", "No ServiceEntry or Service declares api.example.com."},
	} {
		r := &checks.Report{Host: "api.example.com", Source: "cluster test", Gateways: []checks.GatewayVerdict{{Gateway: "istio-system/istio-egressgateway", Cause: tc.cause, Message: tc.msg}}}
		var b bytes.Buffer
		if err := WhyMissing(&b, r, "table"); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), tc.want) {
			t.Errorf("%s: output lacks %q:\n%s", tc.cause, tc.want, b.String())
		}
	}
}
