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

// TestVisibilitySidecarScope: a Sidecar whose egress hosts omit the ServiceEntry's namespace
// (fxSidecarScope, the kind of shared case 22). The entry is exported to *, yet reports'
// proxies do not get it; live and offline.
func TestVisibilitySidecarScope(t *testing.T) {
	pluginBinary(t)
	const file = fxSidecarScope
	applyCase(t, file)
	live := egress(t, "visibility", "-A", "--from", "reports", "-o", "json", "--kubeconfig", env.kubeconfig)
	off := egressDirect(t, "visibility", "--from", "reports", "-o", "json", "-f", casePath(file))
	for mode, r := range map[string]result{"live": live, "offline": off} {
		if r.code != 0 { // a Warning: a Sidecar often narrows egress on purpose
			t.Errorf("%s: exit code %d, want 0\n%s", mode, r.code, r)
		}
		var rep checks.VisibilityReport
		if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
			t.Fatalf("%s: %v\n%s", mode, err, r)
		}
		found := false
		for _, e := range rep.Entries {
			if e.Namespace+"/"+e.Name != "shared-services/geo-lookup" {
				continue
			}
			if e.SidecarSees == nil || *e.SidecarSees {
				t.Errorf("%s: sidecar in reports sees the entry: %s", mode, boolStr(e.SidecarSees))
			}
			if !strings.Contains(e.Instead, "BlackHoleCluster") {
				t.Errorf("%s: instead = %q, want BlackHoleCluster (REGISTRY_ONLY)", mode, e.Instead)
			}
			for _, f := range e.Findings {
				if f.Code == checks.VisNotImported && f.Resource == "Sidecar reports/default" {
					found = true
				}
			}
		}
		if !found {
			t.Errorf("%s: no %s finding for Sidecar reports/default\n%s", mode, checks.VisNotImported, r.stdout)
		}
	}
	// explain-listener from reports: the host is unknown there, the call ends in BlackHoleCluster.
	for mode, r := range map[string]result{
		"live":    egress(t, "explain-listener", "geo.example.internal:8080", "--from", "reports", "-o", "json", "--kubeconfig", env.kubeconfig),
		"offline": egressDirect(t, "explain-listener", "geo.example.internal:8080", "--from", "reports", "-o", "json", "-f", casePath(file)),
	} {
		var rep checks.ListenerReport
		if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
			t.Fatalf("%s: %v\n%s", mode, err, r)
		}
		if len(rep.Calls) != 1 || rep.Calls[0].Result.Cluster != "BlackHoleCluster" {
			t.Errorf("%s: calls %+v, want one ending in BlackHoleCluster", mode, rep.Calls)
		}
		if got := findingRows(rep); !containsPrefix(got, "NOT_IMPORTED_BY_SIDECAR ServiceEntry shared-services/geo-lookup") {
			t.Errorf("%s: findings %v", mode, got)
		}
	}
}

func containsPrefix(xs []string, p string) bool {
	for _, x := range xs {
		if strings.HasPrefix(x, p) {
			return true
		}
	}
	return false
}
