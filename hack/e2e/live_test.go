package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/kubectl-egress/kubectl-egress/pkg/checks"
)

func dump(name string) string {
	p, _ := filepath.Abs(filepath.Join("testdata", "dumps", name))
	return p
}

// stepOf returns step id of the only gateway verdict.
func stepOf(t *testing.T, rep checks.Report, id string) checks.Step {
	t.Helper()
	if len(rep.Gateways) != 1 {
		t.Fatalf("want one gateway verdict, got %d", len(rep.Gateways))
	}
	for _, s := range rep.Gateways[0].Steps {
		if s.ID == id {
			return s
		}
	}
	t.Fatalf("no step %q", id)
	return checks.Step{}
}

// TestConfigDumpFixtures: why-missing with --config-dump, on dumps the conformance suite wrote
// from istiod's own config generation (hack/conformance/dumps_test.go), offline and live.
func TestConfigDumpFixtures(t *testing.T) {
	pluginBinary(t)
	cases := []struct {
		file, dump, cause, actual string
		code                      int
	}{
		{fxBound, "bound-gateway.json", checks.CauseOK, "present", 0},
		{fxBound, "bound-gateway-dropped-cluster.json", checks.CauseProxyDisagrees, "absent", 1},
		{fxUnreferenced, "unreferenced-gateway.json", checks.CauseNotReferenced, "absent", 1},
	}
	for _, c := range cases {
		t.Run(c.dump, func(t *testing.T) {
			applyCase(t, c.file)
			args := []string{"why-missing", boundHost, "--port", boundPort, "--gateway", boundGW, "--config-dump", dump(c.dump), "-o", "json"}
			for mode, r := range map[string]result{
				"offline": egressDirect(t, append(args, "-f", casePath(c.file))...),
				"live":    egress(t, append(args, "--kubeconfig", env.kubeconfig)...),
			} {
				if r.code != c.code {
					t.Errorf("%s: exit %d, want %d\n%s", mode, r.code, c.code, r)
				}
				rep := parseReport(t, r)
				v := verdictFor(t, rep, boundGW)
				if v.Cause != c.cause {
					t.Errorf("%s: cause %s, want %s", mode, v.Cause, c.cause)
				}
				if len(v.Clusters) == 0 || v.Clusters[0].Name != boundCluster || v.Clusters[0].Actual != c.actual {
					t.Errorf("%s: clusters %+v, want %s actual %s", mode, v.Clusters, boundCluster, c.actual)
				}
				if e := stepOf(t, rep, "e"); e.Result == checks.NotChecked {
					t.Errorf("%s: step e not checked: %s", mode, e.Summary)
				}
				if d := stepOf(t, rep, "d"); d.Result != checks.NotChecked || !strings.Contains(d.Summary, "no sync status") {
					t.Errorf("%s: step d %s %q", mode, d.Result, d.Summary)
				}
			}
		})
	}
	// explain-listener shows the dump's listeners next to the prediction (seed §3.5: the
	// gateway listener on the Service port's targetPort, 0.0.0.0_9080, route http.9080), and
	// they agree.
	for mode, r := range map[string]result{
		"offline": egressDirect(t, "explain-listener", boundHost+":"+boundPort, "--gateway", boundGW, "--config-dump", dump("bound-gateway.json"), "-o", "json", "-f", casePath(fxBound)),
	} {
		var rep checks.ListenerReport
		if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
			t.Fatalf("%s: %v\n%s", mode, err, r)
		}
		got := map[string]bool{}
		for _, l := range rep.Actual {
			for _, c := range l.Chains {
				got[l.Name+" "+c.Match+" -> "+c.Destination] = true
			}
		}
		if !got["0.0.0.0_9080 ALL -> Route: http.9080"] {
			t.Errorf("%s: actual listeners %v", mode, got)
		}
		for _, f := range rep.Findings {
			if f.Code == checks.ListenerActualDiffers {
				t.Errorf("%s: %s", mode, f.Message)
			}
		}
	}
	// A file that is not a config dump: one line, exit 2.
	bad := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(bad, []byte(`{"clusters": []}`), 0o600); err != nil {
		t.Fatal(err)
	}
	r := egressDirect(t, "why-missing", boundHost, "--gateway", boundGW, "--config-dump", bad, "-f", casePath(fxBound))
	if r.code != 2 || !strings.Contains(r.stderr, "not an Envoy config dump") {
		t.Errorf("bad dump: exit %d\n%s", r.code, r)
	}
	checkOneLineError(t, r)
}

// TestLiveEvidenceDegrades: against the real API server (no kubelet, no istiod), every way the
// live evidence can fail is a "not checked: <reason>" step and the verdict rests on the
// prediction; the command never fails because of it.
func TestLiveEvidenceDegrades(t *testing.T) {
	pluginBinary(t)
	applyCase(t, fxBound)
	run := func(t *testing.T, kubeconfig string, extra ...string) checks.Report {
		t.Helper()
		r := egress(t, append([]string{"why-missing", boundHost, "--port", boundPort, "--gateway", boundGW, "-o", "json", "--kubeconfig", kubeconfig, "--request-timeout", "20s"}, extra...)...)
		if r.code != 0 {
			t.Fatalf("exit %d, want 0 (the prediction: PRESENT)\n%s", r.code, r)
		}
		rep := parseReport(t, r)
		if v := verdictFor(t, rep, boundGW); v.Cause != checks.CauseOK {
			t.Errorf("cause %s, want OK", v.Cause)
		}
		return rep
	}
	expect := func(t *testing.T, rep checks.Report, id, want string) {
		t.Helper()
		s := stepOf(t, rep, id)
		if s.Result != checks.NotChecked || !strings.Contains(s.Summary, want) {
			t.Errorf("step %s: %s %q, want not-checked mentioning %q", id, s.Result, s.Summary, want)
		}
	}
	t.Run("no pod", func(t *testing.T) {
		rep := run(t, env.kubeconfig)
		expect(t, rep, "e", "no pod of "+boundGW)
		expect(t, rep, "d", "no pod of "+boundGW)
	})
	t.Run("no-live", func(t *testing.T) {
		rep := run(t, env.kubeconfig, "--no-live")
		expect(t, rep, "e", "--no-live")
	})
	// A gateway pod that claims to run on a node that does not exist: the API server cannot
	// reach a kubelet for the port-forward.
	pod := `apiVersion: v1
kind: Pod
metadata:
  name: egress-alerts-e2e
  namespace: istio-system
  labels: {app: egress-alerts, istio: egress-alerts}
spec:
  nodeName: e2e-node-that-does-not-exist
  containers:
  - {name: istio-proxy, image: docker.io/istio/proxyv2}
`
	f := filepath.Join(t.TempDir(), "pod.yaml")
	if err := os.WriteFile(f, []byte(pod), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := kubectl(t, "apply", "-f", f, "--kubeconfig", env.kubeconfig); r.code != 0 {
		t.Fatalf("kubectl apply: %s", r)
	}
	t.Run("pod not running", func(t *testing.T) {
		rep := run(t, env.kubeconfig)
		expect(t, rep, "e", "none Running on a node")
	})
	if r := kubectl(t, "patch", "pod", "egress-alerts-e2e", "-n", "istio-system", "--subresource=status", "--type=merge",
		"-p", `{"status":{"phase":"Running"}}`, "--kubeconfig", env.kubeconfig); r.code != 0 {
		t.Fatalf("kubectl patch status: %s", r)
	}
	t.Run("no node", func(t *testing.T) {
		rep := run(t, env.kubeconfig)
		expect(t, rep, "e", "port-forward to istio-system/egress-alerts-e2e:15000")
		expect(t, rep, "d", "no running istiod pod")
	})
	t.Run("istiod address unreachable", func(t *testing.T) {
		rep := run(t, env.kubeconfig, "--istiod-address", "127.0.0.1:1")
		expect(t, rep, "d", "istiod: GET /debug/syncz")
	})
	t.Run("forbidden", func(t *testing.T) {
		kc := readOnlyUser(t)
		rep := run(t, kc)
		expect(t, rep, "e", "forbidden to port-forward")
	})
}

// readOnlyUser returns a kubeconfig for a user that may get/list/watch everything but create
// nothing (so no pods/portforward).
func readOnlyUser(t *testing.T) string {
	t.Helper()
	return restrictedUser(t, "read-only", []rbacv1.PolicyRule{{APIGroups: []string{"*"}, Resources: []string{"*"}, Verbs: []string{"get", "list", "watch"}}})
}
