package e2e

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/kubectl-egress/kubectl-egress/pkg/checks"
	"github.com/kubectl-egress/kubectl-egress/pkg/loader"
)

func parseProxyConfig(t *testing.T, mode string, r result) checks.ProxyConfigReport {
	t.Helper()
	var rep checks.ProxyConfigReport
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("%s: -o json: %v\n%s", mode, err, r)
	}
	if rep.SchemaVersion != checks.ProxyConfigSchemaVersion {
		t.Errorf("%s: schemaVersion %q", mode, rep.SchemaVersion)
	}
	return rep
}

// proxyRows flattens a prediction to comparable rows: clusters by name and type, listener
// chains, route virtual hosts with their domains. Rows naming Kubernetes Services are left out
// (their cluster IP is assigned live and a placeholder offline; the live cluster also has
// Service default/kubernetes).
func proxyRows(rep checks.ProxyConfigReport) []string {
	var out []string
	for _, c := range rep.Clusters {
		out = append(out, "cluster "+c.Name+" "+c.Type)
	}
	for _, l := range rep.Listeners {
		for _, c := range l.Chains {
			out = append(out, "listener "+l.Name+" "+c.Match+" -> "+c.Destination)
		}
	}
	for _, rc := range rep.Routes {
		for _, vh := range rc.VirtualHosts {
			out = append(out, "route "+rc.Name+" "+vh.Name+" "+strings.Join(vh.Domains, ","))
		}
	}
	sort.Strings(out)
	return notService(out)
}

// TestProxyConfigCases predicts every gateway's and every client namespace's configuration for
// each case file (the repository's fixtures, and the shared acceptance set when present), live (kubectl plugin discovery, the case applied to the API server) and
// offline (-f --offline); both must agree. The cases' statements about gateway clusters hold.
func TestProxyConfigCases(t *testing.T) {
	pluginBinary(t)
	files := caseFiles(t)
	want := map[string]map[string]bool{ // case → gateway cluster → present
		fxBound:         {boundCluster: true},
		fxUnreferenced:  {boundCluster: false},
		fxExportPrivate: {"outbound|8080||" + fxExportPrivateHost: false, "outbound|443||audit.example.net": true},
		"seed-S5-3.5-gateway-flag-true-gateway-and-vs-bound.yaml": {"outbound|80||httpbin.org": true},
		"seed-S4-3.4-gateway-flag-true-no-vs.yaml":                {"outbound|80||httpbin.org": false},
		"01-se-exportto-dot-hidden-from-egress-gateway.yaml":      {"outbound|80||api.example.com": false},
	}
	for _, f := range files {
		file := filepath.Base(f)
		t.Run(strings.TrimSuffix(file, ".yaml"), func(t *testing.T) {
			snap, err := loader.FromFiles([]string{f}, nil, loader.Options{})
			if err != nil {
				t.Fatal(err)
			}
			var proxies [][]string
			for _, w := range checks.GatewayWorkloads(snap) {
				if !w.Synthetic {
					proxies = append(proxies, []string{"--gateway", w.Ref()})
				}
			}
			for _, ns := range checks.ClientNamespaces(snap) {
				proxies = append(proxies, []string{"--from", ns})
			}
			if len(proxies) == 0 {
				t.Skip("no gateway workload or client namespace in the case")
			}
			applyCase(t, file)
			for _, p := range proxies {
				args := append([]string{"proxy-config", "all", "-o", "json"}, p...)
				live := egress(t, append(args, "--kubeconfig", env.kubeconfig)...)
				off := egressDirect(t, append(args, "-f", f, "--offline")...)
				var reps [2]checks.ProxyConfigReport
				for i, r := range []result{live, off} {
					mode := []string{"live", "offline"}[i]
					if r.code != 0 {
						t.Fatalf("%s %v: exit %d\n%s", mode, p, r.code, r)
					}
					reps[i] = parseProxyConfig(t, mode, r)
					if !slices.Equal(reps[i].Sections, []string{checks.SectionClusters, checks.SectionListeners, checks.SectionRoutes}) {
						t.Errorf("%s %v: sections %v", mode, p, reps[i].Sections)
					}
				}
				if a, b := proxyRows(reps[0]), proxyRows(reps[1]); !slices.Equal(a, b) {
					t.Errorf("%v: live and offline predictions differ:\n live:    %s\n offline: %s", p, strings.Join(a, "\n          "), strings.Join(b, "\n          "))
				}
				if p[0] != "--gateway" {
					continue
				}
				for name, present := range want[file] {
					got := slices.ContainsFunc(reps[1].Clusters, func(c checks.Cluster) bool { return c.Name == name })
					if got != present {
						t.Errorf("%v: cluster %s present=%t, want %t", p, name, got, present)
					}
				}
			}
		})
	}
}

// TestProxyConfigDiff compares predictions with the config dumps istiod's own generation wrote
// (testdata/dumps) for the seed §3.4/§3.5 pair of fixtures: the full dumps agree; the bound
// gateway's dump without its cluster is found, live and offline, and exits 1.
func TestProxyConfigDiff(t *testing.T) {
	pluginBinary(t)
	cases := []struct {
		file, dump, section string
		code                int
		diffs               []string
	}{
		{fxBound, "bound-gateway.json", "all", 0, nil},
		{fxUnreferenced, "unreferenced-gateway.json", "all", 0, nil},
		{fxBound, "bound-gateway-dropped-cluster.json", "all", 1, []string{"clusters " + boundCluster + " MISSING"}},
		{fxBound, "bound-gateway-dropped-cluster.json", "clusters", 1, []string{"clusters " + boundCluster + " MISSING"}},
		{fxBound, "bound-gateway-dropped-cluster.json", "listeners", 0, nil},
		{fxUnreferenced, "bound-gateway.json", "all", 1, []string{
			"clusters " + boundCluster + " EXTRA", "listeners 0.0.0.0_9080 EXTRA", "routes http.9080 EXTRA"}},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%s-%s-%s", strings.TrimSuffix(c.file, ".yaml"), c.dump, c.section), func(t *testing.T) {
			applyCase(t, c.file)
			args := []string{"proxy-config", c.section, "--gateway", boundGW, "--diff", "--config-dump", dump(c.dump), "-o", "json"}
			for mode, r := range map[string]result{
				"offline": egressDirect(t, append(args, "-f", casePath(c.file), "--offline")...),
				"live":    egress(t, append(args, "--kubeconfig", env.kubeconfig)...),
			} {
				if r.code != c.code {
					t.Errorf("%s: exit %d, want %d\n%s", mode, r.code, c.code, r)
				}
				rep := parseProxyConfig(t, mode, r)
				if rep.Diff == nil {
					t.Fatalf("%s: no diff in the report", mode)
				}
				var got []string
				for _, d := range rep.Diff.Differences {
					got = append(got, d.Section+" "+d.Name+" "+d.State)
				}
				if !slices.Equal(got, c.diffs) {
					t.Errorf("%s: differences %v, want %v", mode, got, c.diffs)
				}
			}
		})
	}
}

// TestProxyConfigBadInput: usage and input errors are one line with exit 2; a live --diff on a
// gateway without a running pod says so instead of comparing with nothing.
func TestProxyConfigBadInput(t *testing.T) {
	pluginBinary(t)
	f := casePath(fxBound)
	for _, args := range [][]string{
		{"proxy-config", "clusters"},
		{"proxy-config", "clusters", "--from", "a", "--gateway", "a/b"},
		{"proxy-config", "endpoints", "--from", "alerts", "-f", f, "--offline"},
		{"proxy-config", "all", "--gateway", "nosuch/gw", "-f", f, "--offline"},
		{"proxy-config", "all", "--from", "alerts", "--diff", "-f", f, "--offline"},
		{"proxy-config", "all", "--gateway", boundGW, "--config-dump", dump("bound-gateway.json"), "-f", f, "--offline"},
		{"proxy-config", "all", "--gateway", boundGW, "--diff", "--config-dump", f, "-f", f, "--offline"},
	} {
		r := egressDirect(t, args...)
		if r.code != 2 {
			t.Errorf("%v: exit %d, want 2\n%s", args, r.code, r)
		}
		checkOneLineError(t, r)
	}
	applyCase(t, fxBound)
	r := egress(t, "proxy-config", "all", "--gateway", boundGW, "--diff", "--kubeconfig", env.kubeconfig)
	if r.code != 2 || !strings.Contains(r.stderr, "cannot read the proxy's configuration") {
		t.Errorf("live --diff without a running pod: exit %d\n%s", r.code, r)
	}
	checkOneLineError(t, r)
}
