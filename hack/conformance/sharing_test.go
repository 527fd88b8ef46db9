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
// gateways, listeners, DNS capture, revisions) and the case files; and export-audit's report,
// whose client namespaces share what they see alike, the same way.
func TestConformancePreflightSharing(t *testing.T) {
	quietIstio()
	scs := generate(*seedFlag, *countFlag)
	cases, err := caseScenarios(t)
	if err != nil {
		t.Fatal(err)
	}
	scs = append(scs, cases...)
	differ := 0
	var narrow, wide, narrowScenarios int64
	for _, sc := range scs {
		a, err := pluginSnapshot(sc.YAML, nil)
		if err != nil {
			t.Fatalf("%s: %v", sc.Name, err)
		}
		b, _ := pluginSnapshot(sc.YAML, nil)
		res, n, w := checks.PreflightNarrowed(a)
		narrow, wide = narrow+n, wide+w
		if n > 0 {
			narrowScenarios++
		}
		shared, _ := json.Marshal(res)
		alone, _ := json.Marshal(checks.PreflightUnshared(b))
		if !bytes.Equal(shared, alone) {
			differ++
			t.Errorf("%s: preflight's report differs with and without shared layers", sc.Name)
		}
		// export-audit's own report (its resources' neededIn lists are not in preflight's)
		c, _ := pluginSnapshot(sc.YAML, nil)
		d, _ := pluginSnapshot(sc.YAML, nil)
		ea, _ := json.Marshal(checks.ExportAudit(c, checks.AuditOptions{}))
		eu, _ := json.Marshal(checks.ExportAuditUnshared(d, checks.AuditOptions{}))
		if !bytes.Equal(ea, eu) {
			differ++
			t.Errorf("%s: export-audit's report differs with and without sharing", sc.Name)
		}
	}
	t.Logf("preflight sharing: %d scenarios, %d differ; client namespaces predicted narrow: %d (in %d scenarios), sharing the public layer but predicted whole: %d", len(scs), differ, narrow, narrowScenarios, wide)
	if narrow == 0 {
		t.Error("no client namespace was predicted narrow: the narrow sidecars were not tested")
	}
}
