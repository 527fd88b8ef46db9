package checks

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestDRMergeDropsOnFixtures: preflight names the DestinationRule whose subset or top-level
// traffic policy istiod drops when it merges it into an older rule for the same host, with the
// field and the older rule; nothing when the newer rule only adds a subset of its own name.
func TestDRMergeDropsOnFixtures(t *testing.T) {
	cases := []struct {
		file, resource, field, older string
	}{
		{"dr-merge-duplicate-subset-drops-istio-mutual.yaml", "billing/egress-hop-mtls", "spec.subsets[0]", "DestinationRule billing/egress-hop defines it first"},
		{"dr-merge-second-traffic-policy-dropped-on-hop.yaml", "observability/gw-mtls", "spec.trafficPolicy", "DestinationRule observability/gw-lb sets one"},
		{"dr-merge-distinct-subsets-control.yaml", "", "", ""},
	}
	for _, c := range cases {
		snap, err := loadPathFixture(filepath.Join("testdata", "paths", c.file))
		if err != nil {
			t.Fatal(err)
		}
		var got []PreflightFinding
		for _, f := range Preflight(snap).Findings {
			if f.Code == PreflightDRMergeDrops {
				got = append(got, f)
			}
		}
		if c.resource == "" {
			if len(got) != 0 {
				t.Errorf("%s: %d %s findings, want none: %s", c.file, len(got), PreflightDRMergeDrops, got[0].Message)
			}
			continue
		}
		if len(got) != 1 {
			t.Errorf("%s: %d %s findings, want 1", c.file, len(got), PreflightDRMergeDrops)
			continue
		}
		f := got[0]
		if f.Resource.Namespace+"/"+f.Resource.Name != c.resource || f.Field != c.field || f.Level != LevelWarning || !strings.Contains(f.Message, c.older) {
			t.Errorf("%s: %s %s/%s %s (%s): %s; want %s %s naming %q", c.file, f.Level, f.Resource.Namespace, f.Resource.Name, f.Field, f.Code, f.Message, c.resource, c.field, c.older)
		}
	}
}
