package plugin

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kubectl-egress/kubectl-egress/pkg/checks"
)

var (
	pfControl = filepath.Join("..", "checks", "testdata", "preflight", "control.yaml")
	pfRelease = filepath.Join("..", "checks", "testdata", "preflight", "release.yaml")
)

// TestPreflightExitCodes runs `preflight -f ... --offline` in process: the exit code follows the
// findings and --fail-on in every -o format, and bad input is one line on stderr with exit 2.
func TestPreflightExitCodes(t *testing.T) {
	t.Setenv("KUBECONFIG", filepath.Join(t.TempDir(), "none"))
	dir := t.TempDir()
	sups := filepath.Join(dir, "sup.yaml")
	if err := os.WriteFile(sups, []byte("- {code: EGR0104, resource: 'ServiceEntry team-a/*', reason: accepted}\n- {code: EGR0201, resource: '*'}\n- {code: EGR0302, resource: 'ServiceEntry team-b/search-api'}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	badSups := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(badSups, []byte("- {code: EGR0104, resourse: '*'}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, format := range []string{"table", "json", "yaml", "sarif", "junit"} {
		for _, c := range []struct {
			name string
			args []string
			code int
		}{
			{"control", []string{"-f", pfControl, "--offline"}, ExitOK},
			{"control at info", []string{"-f", pfControl, "--offline", "--fail-on", "info"}, ExitOK}, // its only Info finding is suppressed by annotation
			// The release replaces objects of the control (a later apply): --lenient.
			{"faults", []string{"-f", pfControl, "-f", pfRelease, "--offline", "--lenient"}, ExitAbsent},
			{"faults, fail-on none", []string{"-f", pfControl, "-f", pfRelease, "--offline", "--lenient", "--fail-on", "none"}, ExitOK},
			{"faults suppressed by file", []string{"-f", pfControl, "-f", pfRelease, "--offline", "--lenient", "--suppressions", sups}, ExitOK},
			{"faults suppressed, warning left", []string{"-f", pfControl, "-f", pfRelease, "--offline", "--lenient", "--suppressions", sups, "--fail-on", "warning"}, ExitAbsent},
			{"no cluster configured: offline", []string{"-f", pfControl, "-f", pfRelease, "--lenient"}, ExitAbsent},
		} {
			code, stdout, stderr := run(t, "", append([]string{"preflight", "-o", format}, c.args...)...)
			if slices.Contains(c.args, "--lenient") {
				// the release's replacements, each a warning line
				want := "warning: " + pfRelease + ":6: ServiceEntry team-a/api-example is defined twice (first at " + pfControl + ":48); the later one would replace it\n"
				if !strings.HasPrefix(stderr, want) || strings.Count(stderr, "\n") != strings.Count(stderr, "\nwarning: ")+1 {
					t.Errorf("-o %s, %s: stderr %q, want warning lines starting with %q", format, c.name, stderr, want)
				}
				stderr = ""
			}
			if code != c.code || stderr != "" {
				t.Errorf("-o %s, %s: exit %d, want %d; stderr %q", format, c.name, code, c.code, stderr)
			}
			if stdout == "" {
				t.Errorf("-o %s, %s: no output", format, c.name)
			}
		}
	}
	for _, c := range []struct {
		name   string
		args   []string
		stderr string
	}{
		{"bad -S", []string{"-f", pfControl, "-S", "EGR0104"}, `-S "EGR0104": want CODE=Kind namespace/name`},
		{"unknown code", []string{"-f", pfControl, "-S", "EGR0999=*"}, "not in the catalogue"},
		{"unreadable suppressions", []string{"-f", pfControl, "--suppressions", filepath.Join(dir, "nope.yaml")}, "--suppressions: open"},
		{"bad suppressions file", []string{"-f", pfControl, "--suppressions", badSups}, badSups + ": want a YAML list"},
		{"bad -o", []string{"-f", pfControl, "-o", "xml"}, `-o "xml": want one of table, json, yaml, sarif, junit`},
		{"bad --fail-on", []string{"-f", pfControl, "--fail-on", "fatal"}, "--fail-on"},
		{"--offline without -f", []string{"--offline"}, "--offline needs manifests"},
		{"--fail-on-existing offline", []string{"-f", pfControl, "--offline", "--fail-on-existing"}, "--fail-on-existing only applies"},
		{"missing manifest", []string{"-f", filepath.Join(dir, "nope.yaml"), "--offline"}, "no such file"},
		{"release over control, strict", []string{"-f", pfControl, "-f", pfRelease, "--offline"}, "ServiceEntry team-a/api-example is defined twice"},
		{"argument", []string{"extra", "-f", pfControl}, "unknown command"},
	} {
		code, _, stderr := run(t, "", append([]string{"preflight"}, c.args...)...)
		if code != ExitError || !strings.Contains(stderr, c.stderr) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%s: exit %d, stderr %q; want exit 2 and one line containing %q", c.name, code, stderr, c.stderr)
		}
	}
}

// TestPreflightJSONAndLocations: the JSON report of the offline run says offline when no
// cluster is configured, and points findings at the manifest file and line of the resource.
func TestPreflightJSONAndLocations(t *testing.T) {
	t.Setenv("KUBECONFIG", filepath.Join(t.TempDir(), "none"))
	code, stdout, stderr := run(t, "", "preflight", "-f", pfControl, "-f", pfRelease, "--lenient", "-o", "json")
	if code != ExitAbsent {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rep checks.PreflightReport
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.SchemaVersion != checks.PreflightSchemaVersion || rep.Mode != checks.ModeOffline || len(rep.Notes) == 0 || !strings.Contains(rep.Notes[0], "no cluster configured") {
		t.Errorf("schema %q mode %q notes %v", rep.SchemaVersion, rep.Mode, rep.Notes)
	}
	found := false
	for _, f := range rep.Findings {
		if f.ID == "EGR0302" {
			found = true
			if f.Location == nil || f.Location.File != pfRelease || f.Location.Line != 22 {
				t.Errorf("EGR0302 location %+v, want %s:22", f.Location, pfRelease)
			}
		}
	}
	if !found {
		t.Errorf("no EGR0302 finding in %s", stdout)
	}
}

func TestDocumentLine(t *testing.T) {
	text := "# c\napiVersion: v1\nkind: Service\nmetadata:\n  name: a\n---\nkind: ServiceEntry\nmetadata:\n  name: b\n---\nkind: Service\nmetadata:\n  name: \"b\"\n---\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {namespace: x, name: r, labels: {app-name: q}}\n"
	for _, c := range []struct {
		kind, name string
		line       int
	}{{"Service", "a", 3}, {"ServiceEntry", "b", 7}, {"Service", "b", 11}, {"Service", "c", 0}, {"HTTPRoute", "r", 16}, {"HTTPRoute", "namespace", 0}} {
		if got := documentLine(text, c.kind, c.name); got != c.line {
			t.Errorf("documentLine(%s %s) = %d, want %d", c.kind, c.name, got, c.line)
		}
	}
	// one kind and name in two namespaces: each is found in its own document (blind audit 29
	// #14 had both at the first)
	two := "kind: ServiceEntry\nmetadata: {name: feed, namespace: old}\n---\nkind: ServiceEntry\nmetadata:\n  name: feed\n  namespace: new\n"
	lines := documentLines(two)
	for _, c := range []struct {
		ns   string
		line int
	}{{"old", 1}, {"new", 4}, {"", 1}, {"other", 0}} {
		if got := lines[[3]string{"ServiceEntry", c.ns, "feed"}]; got != c.line {
			t.Errorf("ServiceEntry %s/feed at line %d, want %d", c.ns, got, c.line)
		}
	}
}

// TestPreflightSARIFUnreachable: -o sarif against a server that cannot be reached still writes a
// SARIF log (one run, executionSuccessful false, the error as a notification) and exits 2 with the
// one-line error on stderr.
func TestPreflightSARIFUnreachable(t *testing.T) {
	code, out, stderr := run(t, "", "preflight", "-o", "sarif", "--server", "http://127.0.0.1:1", "--request-timeout", "5s")
	if code != ExitError || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "127.0.0.1:1") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	var log struct {
		Version string `json:"version"`
		Runs    []struct {
			Invocations []struct {
				ExecutionSuccessful bool `json:"executionSuccessful"`
				ExitCode            int  `json:"exitCode"`
				Notifications       []struct {
					Message struct {
						Text string `json:"text"`
					} `json:"message"`
				} `json:"toolExecutionNotifications"`
			} `json:"invocations"`
		} `json:"runs"`
	}
	if err := json.Unmarshal([]byte(out), &log); err != nil {
		t.Fatalf("stdout is not SARIF: %v\n%s", err, out)
	}
	if log.Version != "2.1.0" || len(log.Runs) != 1 || len(log.Runs[0].Invocations) != 1 {
		t.Fatalf("want one run with one invocation:\n%s", out)
	}
	inv := log.Runs[0].Invocations[0]
	if inv.ExecutionSuccessful || inv.ExitCode != ExitError || len(inv.Notifications) != 1 || !strings.Contains(inv.Notifications[0].Message.Text, "127.0.0.1:1") {
		t.Errorf("invocation: %+v", inv)
	}
	// Other formats print nothing on stdout.
	if _, out, _ := run(t, "", "preflight", "-o", "json", "--server", "http://127.0.0.1:1"); out != "" {
		t.Errorf("-o json wrote %q", out)
	}
}

// Findings about Gateway API objects name their manifest line too (an HTTPRoute that attaches
// to no listener).
func TestPreflightLocatesGatewayAPIObjects(t *testing.T) {
	t.Setenv("KUBECONFIG", filepath.Join(t.TempDir(), "none"))
	file := filepath.Join("..", "checks", "testdata", "paths", "gatewayapi-http-route-namespace-label-typo.yaml")
	code, stdout, stderr := run(t, "", "preflight", "--offline", "-f", file, "-o", "json")
	if code != ExitAbsent {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rep checks.PreflightReport
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(file)
	want := documentLine(string(data), "HTTPRoute", "portal-out")
	found := false
	for _, f := range rep.Findings {
		if f.Resource.Kind == "HTTPRoute" && f.Resource.Name == "portal-out" {
			found = true
			if want == 0 || f.Location == nil || f.Location.Line != want {
				t.Errorf("%s location %+v, want line %d", f.Code, f.Location, want)
			}
		}
	}
	if !found {
		t.Fatalf("no finding about HTTPRoute reports/portal-out: %s", stdout)
	}
}
