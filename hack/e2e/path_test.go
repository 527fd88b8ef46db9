package e2e

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kubectl-egress/kubectl-egress/pkg/checks"
	"github.com/kubectl-egress/kubectl-egress/pkg/loader"
)

// pathFixtures are the plugin's own path fixtures (pkg/checks/testdata/paths): each is applied
// after _base.yaml, and its first line states the call and the verdict:
//
//	# path: HOST:PORT --from NS [--call KIND] => CAUSE [FLAG] [+WARNING[@Kind:ns/name]] [-WARNING-NOT-RAISED]
const pathFixtures = "../../pkg/checks/testdata/paths"

type pathFixture struct {
	file     string
	args     []string // HOST --port N --from NS [--call K]
	cause    string
	warnings []string
	absent   []string // warnings that must not be raised
	// filesOnly is why the fixture cannot be applied to an API server ("# files only: ..." in
	// its header: a manifest the current CRDs' validation refuses, which only files hold).
	filesOnly string
}

func readPathFixtures(t *testing.T) []pathFixture {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(pathFixtures, "*.yaml"))
	var out []pathFixture
	for _, f := range files {
		if strings.HasPrefix(filepath.Base(f), "_") {
			continue
		}
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		rd := bufio.NewReader(fh)
		line, _ := rd.ReadString('\n')
		filesOnly := ""
		for {
			l, err := rd.ReadString('\n')
			if !strings.HasPrefix(l, "#") {
				break
			}
			if why, ok := strings.CutPrefix(strings.TrimSpace(l), "# files only: "); ok {
				filesOnly = why
			}
			if err != nil {
				break
			}
		}
		fh.Close()
		spec, ok := strings.CutPrefix(strings.TrimSpace(line), "# path: ")
		if !ok {
			t.Fatalf("%s: first line is not '# path: ...'", f)
		}
		call, want, _ := strings.Cut(spec, " => ")
		fields := strings.Fields(call)
		host, port, _ := strings.Cut(fields[0], ":")
		c := pathFixture{file: f, args: append([]string{host, "--port", port}, fields[1:]...), filesOnly: filesOnly}
		for i, w := range strings.Fields(want) {
			switch {
			case strings.HasPrefix(w, "+"):
				code, _, _ := strings.Cut(w[1:], "@") // "+CODE@Kind:ns/name": the unit tests check the resource
				c.warnings = append(c.warnings, code)
			case strings.HasPrefix(w, "-"):
				c.absent = append(c.absent, w[1:])
			case i == 0:
				c.cause = w
			}
		}
		out = append(out, c)
	}
	if len(out) < 12 {
		t.Fatalf("only %d path fixtures in %s", len(out), pathFixtures)
	}
	return out
}

// applyFiles cleans the cluster and applies the files in order with the real kubectl (twice
// when the first pass fails, for objects listed before their Namespace).
func applyFiles(t *testing.T, files ...string) {
	t.Helper()
	cleanCluster(t)
	for _, f := range files {
		args := []string{"apply", "-f", f, "--kubeconfig", env.kubeconfig}
		if r := kubectl(t, args...); r.code != 0 {
			if r = kubectl(t, args...); r.code != 0 {
				t.Fatalf("kubectl apply -f %s: %s", f, r)
			}
		}
	}
}

// readyWaypoints writes status addresses on every Gateway of class istio-waypoint, as istiod does
// once a waypoint has a ready pod (there is no istiod here): without them istiod makes no waypoint
// of the Gateway, and the plugin, reading the cluster, says so. The files carry no status, which
// the plugin takes as a ready waypoint: live and offline then agree.
//
// A Gateway of another class labelled istio.io/waypoint-for (one a fixture uses as a waypoint,
// wrongly) gets them too: istiod writes addresses for any Gateway whose Service has one.
func readyWaypoints(t *testing.T) {
	t.Helper()
	var lines []string
	for _, filter := range []string{`@.spec.gatewayClassName=="istio-waypoint"`, `@.metadata.labels.istio\.io/waypoint-for`} {
		r := kubectl(t, "get", "gateways.gateway.networking.k8s.io", "-A", "--kubeconfig", env.kubeconfig, "-o",
			`jsonpath={range .items[?(`+filter+`)]}{.metadata.namespace}{" "}{.metadata.name}{"\n"}{end}`)
		if r.code != 0 {
			t.Fatalf("kubectl get gateways: %s", r)
		}
		for _, l := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
			if !slices.Contains(lines, l) {
				lines = append(lines, l)
			}
		}
	}
	for _, line := range lines {
		ns, name, ok := strings.Cut(line, " ")
		if !ok {
			continue
		}
		if r := kubectl(t, "patch", "gateways.gateway.networking.k8s.io", name, "-n", ns, "--subresource=status", "--type=merge", "--kubeconfig", env.kubeconfig,
			"-p", `{"status":{"addresses":[{"type":"IPAddress","value":"10.96.0.50"}]}}`); r.code != 0 {
			t.Fatalf("kubectl patch gateway %s/%s status: %s", ns, name, r)
		}
	}
}

// allocateAddresses writes status.addresses on the fixture's ServiceEntries as istiod's address
// allocator does once they are applied (there is no istiod here): the addresses the file loader
// predicts for them (snapshot.PredictAllocations), so that live and offline read the same
// addresses.
func allocateAddresses(t *testing.T, files ...string) {
	t.Helper()
	snap, err := loader.FromFiles(files, nil, loader.Options{Lenient: true})
	if err != nil {
		t.Fatalf("loading %v: %v", files, err)
	}
	for _, se := range snap.ServiceEntries {
		predicted := false
		var addrs []string
		for _, a := range se.Status.GetAddresses() {
			predicted = predicted || snap.Predicted(se.Namespace, se.Name, a.GetHost())
			addrs = append(addrs, fmt.Sprintf(`{"host":%q,"value":%q}`, a.GetHost(), a.GetValue()))
		}
		if !predicted {
			continue
		}
		if r := kubectl(t, "patch", "serviceentries.networking.istio.io", se.Name, "-n", se.Namespace, "--subresource=status", "--type=merge", "--kubeconfig", env.kubeconfig,
			"-p", `{"status":{"addresses":[`+strings.Join(addrs, ",")+`]}}`); r.code != 0 {
			t.Fatalf("kubectl patch serviceentry %s/%s status: %s", se.Namespace, se.Name, r)
		}
	}
}

// TestWhyMissingPath traces each path fixture's call with `why-missing --from`, live (the files
// applied to the API server, through kubectl's plugin discovery) and offline (-f --offline):
// both give the stated cause, the same hops, and exit 1 exactly when the call fails.
func TestWhyMissingPath(t *testing.T) {
	pluginBinary(t)
	base, _ := filepath.Abs(filepath.Join(pathFixtures, "_base.yaml"))
	for _, c := range readPathFixtures(t) {
		t.Run(strings.TrimSuffix(filepath.Base(c.file), ".yaml"), func(t *testing.T) {
			if c.filesOnly != "" {
				t.Skipf("files only (the unit tests trace it offline): %s", c.filesOnly)
			}
			file, _ := filepath.Abs(c.file)
			applyFiles(t, base, file)
			readyWaypoints(t)
			allocateAddresses(t, base, file)
			args := append([]string{"why-missing", "-o", "json"}, c.args...)
			var hops [2][]string
			for i, mode := range []string{"live", "offline"} {
				var r result
				if mode == "live" {
					r = egress(t, append(args, "--kubeconfig", env.kubeconfig)...)
				} else {
					r = egressDirect(t, append(args, "-f", base, "-f", file, "--lenient")...)
				}
				rep := parseReport(t, r)
				p := rep.Path
				if p == nil {
					t.Fatalf("%s: no path in the report\n%s", mode, r)
				}
				if p.Cause != c.cause {
					t.Errorf("%s: cause %s, want %s: %s", mode, p.Cause, c.cause, p.Message)
				}
				wantCode := 0
				if rep.TracedCallFails() {
					wantCode = 1
				}
				if r.code != wantCode {
					t.Errorf("%s: exit %d, want %d (cause %s)\n%s", mode, r.code, wantCode, p.Cause, r)
				}
				for _, w := range c.warnings {
					if !slices.ContainsFunc(p.Warnings, func(f checks.Finding) bool { return f.Code == w }) {
						t.Errorf("%s: warning %s missing: %+v", mode, w, p.Warnings)
					}
				}
				for _, w := range c.absent {
					if slices.ContainsFunc(p.Warnings, func(f checks.Finding) bool { return f.Code == w }) {
						t.Errorf("%s: warning %s raised: %+v", mode, w, p.Warnings)
					}
				}
				for _, h := range p.Hops {
					hops[i] = append(hops[i], h.Proxy+" "+h.Step+" "+string(h.Result))
				}
				if mode != "live" {
					continue
				}
				// --symptom: the path's own flag is explained (UO, which configuration never
				// produces, for a path that works); the exit code does not change.
				// A call that reaches another service's endpoints has no response flag of its
				// own: nothing to ask --symptom for.
				symptom := "UO"
				if p.Failed() {
					symptom = p.Flag
				}
				if symptom != "" {
					rs := egress(t, append(args, "--symptom", symptom, "--kubeconfig", env.kubeconfig)...)
					if sv := parseReport(t, rs).Symptom; sv == nil || sv.Matches != p.Failed() || sv.Message == "" {
						t.Errorf("--symptom %s: %+v, want matches=%v\n%s", symptom, sv, p.Failed(), rs)
					}
					if rs.code != r.code {
						t.Errorf("--symptom %s: exit %d, without it %d", symptom, rs.code, r.code)
					}
				}
				// Without --from the gateways are diagnosed and a path that reaches a gateway is
				// listed as not traced, with the command that traces it.
				// (A call the sidecar's catch-all sends to a Sidecar's egressProxy is the
				// namespace's policy, not a route for the host: not listed.)
				catchAll := len(p.Hops) > 0 && (strings.Contains(p.Hops[0].Summary, "virtual host allow_any") || strings.Contains(p.Hops[0].Summary, "listener virtualOutbound"))
				if p.Gateway != "" && !catchAll {
					ru := egress(t, "why-missing", "-o", "json", c.args[0], "--port", c.args[2], "--kubeconfig", env.kubeconfig)
					if up := parseReport(t, ru).UntracedPaths; len(up) == 0 || !strings.Contains(up[0].Trace, "--from") {
						t.Errorf("without --from: untraced paths %+v, want the route through %s\n%s", up, p.Gateway, ru)
					}
				}
			}
			if !slices.Equal(hops[0], hops[1]) {
				t.Errorf("live and offline hops differ:\n live:    %v\n offline: %v", hops[0], hops[1])
			}
		})
	}
}

// TestWhyMissingPathBadInput: a client namespace that does not exist, --from with --pod, and an
// unknown call kind are usage errors (exit 2) with one line on stderr, before anything is read.
func TestWhyMissingPathBadInput(t *testing.T) {
	base, _ := filepath.Abs(filepath.Join(pathFixtures, "_base.yaml"))
	for _, args := range [][]string{
		{"why-missing", "api.example.com", "--from", "team-a", "--pod", "team-a/x", "-f", base},
		{"why-missing", "api.example.com", "--from", "team-a", "--call", "smtp", "-f", base},
		{"why-missing", "api.example.com", "--call", "tls", "-f", base},
		{"why-missing", "api.example.com", "--from", "team-a", "--symptom", "503", "-f", base},
	} {
		r := egressDirect(t, args...)
		if r.code != 2 || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 || strings.Contains(r.stderr, "goroutine") {
			t.Errorf("%v: exit %d, want 2 with a one-line error\n%s", args, r.code, r)
		}
	}
}
