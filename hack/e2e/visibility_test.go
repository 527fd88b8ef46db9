package e2e

import (
	"encoding/json"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/kubectl-egress/kubectl-egress/pkg/checks"
)

// TestVisibility applies seed 002's examples and checks the resolved visibility of each entry
// for a workload in team-b, live (through kubectl) and offline, which must agree.
func TestVisibility(t *testing.T) {
	pluginBinary(t)
	file, err := filepath.Abs("testdata/visibility-seed-002.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cleanCluster(t)
	if r := kubectl(t, "apply", "-f", file, "--kubeconfig", env.kubeconfig); r.code != 0 {
		t.Fatalf("kubectl apply: %s", r)
	}
	want := []string{
		"istio-system/shared-api policies[0] PUBLIC sidecar=true ambient=true",
		"partners/partner-api policies[1] PUBLIC sidecar=true ambient=true",
		"team-a/private-api defaultVisibility NAMESPACE sidecar=false ambient=false",
	}
	live := egress(t, "visibility", "-A", "--as-namespace", "team-b", "-o", "json", "--kubeconfig", env.kubeconfig)
	off := egressDirect(t, "visibility", "--as-namespace", "team-b", "-o", "json", "-f", file)
	for mode, r := range map[string]result{"live": live, "offline": off} {
		if r.code != 0 {
			t.Errorf("%s: exit code %d\n%s", mode, r.code, r)
			continue
		}
		var rep checks.VisibilityReport
		if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
			t.Fatalf("%s: %v\n%s", mode, err, r)
		}
		var got []string
		for _, e := range rep.Entries {
			got = append(got, e.Namespace+"/"+e.Name+" "+e.Policy+" "+e.Visibility+" sidecar="+boolStr(e.SidecarSees)+" ambient="+boolStr(e.AmbientSees))
		}
		sort.Strings(got)
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s:\n%s\nwant:\n%s", mode, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}

func boolStr(b *bool) string {
	if b == nil {
		return "nil"
	}
	if *b {
		return "true"
	}
	return "false"
}
