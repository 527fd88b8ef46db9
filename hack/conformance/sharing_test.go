package conformance

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/kubectl-egress/kubectl-egress/pkg/checks"
)

// TestConformancePreflightSharing: preflight's shared layers of client sidecars (a call's findings worked
// out once for every namespace whose own configuration does not touch it, and once per
// sidecar fingerprint) give the report that working every namespace out on its own gives, on
// the generated scenarios (every dimension: exportTo, DestinationRule lookup, mesh routes,
// gateways, listeners, DNS capture, revisions) and the case files.
func TestConformancePreflightSharing(t *testing.T) {
	quietIstio()
	scs := generate(*seedFlag, *countFlag)
	cases, err := caseScenarios(t)
	if err != nil {
		t.Fatal(err)
	}
	scs = append(scs, cases...)
	differ := 0
	for _, sc := range scs {
		a, err := pluginSnapshot(sc.YAML, nil)
		if err != nil {
			t.Fatalf("%s: %v", sc.Name, err)
		}
		b, _ := pluginSnapshot(sc.YAML, nil)
		shared, _ := json.Marshal(checks.Preflight(a))
		alone, _ := json.Marshal(checks.PreflightUnshared(b))
		if !bytes.Equal(shared, alone) {
			differ++
			t.Errorf("%s: preflight's report differs with and without shared layers", sc.Name)
		}
	}
	t.Logf("preflight sharing: %d scenarios, %d differ", len(scs), differ)
}
