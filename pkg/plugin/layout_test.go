package plugin

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/kubectl-egress/kubectl-egress/pkg/loader"
	"github.com/kubectl-egress/kubectl-egress/pkg/printers"
)

// caseCommands are the why-missing, explain-listener and preflight runs over a case fixture:
// every host its ServiceEntries declare, for the gateways and from each client namespace (a
// namespace labelled istio-injection), and each declared port through explain-listener.
func caseCommands(t *testing.T, file string) [][]string {
	t.Helper()
	snap, err := loader.FromFiles([]string{file}, nil, loader.Options{Lenient: true})
	if err != nil {
		t.Fatalf("%s: %v", filepath.Base(file), err)
	}
	var clients []string
	for _, ns := range snap.Namespaces {
		if ns.Labels["istio-injection"] == "enabled" {
			clients = append(clients, ns.Name)
		}
	}
	cmds := [][]string{{"preflight"}, {"export-audit", "-A"}}
	seen := map[string]bool{}
	for _, se := range snap.ServiceEntries {
		for _, h := range se.Spec.Hosts {
			if strings.HasPrefix(h, "*") || seen[h] {
				continue
			}
			seen[h] = true
			cmds = append(cmds, []string{"why-missing", h})
			for _, ns := range clients {
				cmds = append(cmds, []string{"why-missing", h, "--from", ns})
				for _, p := range se.Spec.Ports {
					cmds = append(cmds, []string{"explain-listener", fmt.Sprintf("%s:%d", h, p.Number), "--from", ns})
				}
			}
		}
	}
	return cmds
}

// TestOutputFitsWidth: with --output-width 120 no line of why-missing, explain-listener,
// preflight or export-audit on the repository's case fixtures is wider than 120 columns, except
// a line holding one word that alone is wider (a URL, a long name).
func TestOutputFitsWidth(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "cases", "*.yaml"))
	if len(files) < 20 {
		t.Fatalf("only %d case fixtures found", len(files))
	}
	const width = 120
	runs, wide := 0, 0
	for _, f := range files {
		for _, args := range caseCommands(t, f) {
			args = append(args, "-f", f, "--output-width", fmt.Sprint(width))
			code, out, errOut := run(t, "", args...)
			if code == ExitError {
				continue // no answer to lay out (a host the fixture routes nowhere, say)
			}
			runs++
			unwrapped := 0
			for _, l := range strings.Split(out, "\n") {
				if utf8.RuneCountInString(l) <= width {
					continue
				}
				if len(strings.Fields(l)) == 1 {
					continue // one unbreakable word
				}
				t.Errorf("%s %v: line of %d columns: %q", filepath.Base(f), args[:len(args)-4], utf8.RuneCountInString(l), l)
			}
			// The same run without the flag is not wrapped: it had lines wider than 120.
			_, plain, _ := run(t, "", args[:len(args)-2]...)
			for _, l := range strings.Split(plain, "\n") {
				if utf8.RuneCountInString(l) > width {
					unwrapped++
				}
			}
			if unwrapped > 0 {
				wide++
			}
			_ = errOut
		}
	}
	t.Logf("%d runs on %d fixtures, %d with lines wider than %d when unwrapped", runs, len(files), wide, width)
	if runs < 50 || wide == 0 {
		t.Fatalf("%d runs, %d with lines wider than %d unwrapped: the test checks too little", runs, wide, width)
	}
}

// TestWidthZeroAndPipeAreUnwrapped: --output-width 0 and output to a pipe (not a terminal) print
// the same bytes, unwrapped and without colour.
func TestWidthZeroAndPipeAreUnwrapped(t *testing.T) {
	f := filepath.Join("..", "..", "testdata", "cases", "se-exportto-private-hidden-from-gateway.yaml")
	_, plain, _ := run(t, "", "why-missing", "rates.example.net", "-f", f)
	_, zero, _ := run(t, "", "why-missing", "rates.example.net", "-f", f, "--output-width", "0")
	if plain != zero {
		t.Errorf("--output-width 0 differs from the default in a pipe:\n%s\n---\n%s", plain, zero)
	}
	long := false
	for _, l := range strings.Split(plain, "\n") {
		long = long || len(l) > 200
	}
	if !long {
		t.Errorf("output to a pipe was wrapped:\n%s", plain)
	}
	if strings.Contains(plain, "\x1b[") {
		t.Errorf("output to a pipe has escape codes")
	}
	if code, _, errOut := run(t, "", "why-missing", "rates.example.net", "-f", f, "--output-width", "-1"); code != ExitError || !strings.Contains(errOut, "--output-width") {
		t.Errorf("--output-width -1: exit %d, %q", code, errOut)
	}
}

// TestShortAnswerFirst: every command's text output starts with the verdict, and --brief prints
// only that, with the same exit code; JSON is unaffected by --brief.
func TestShortAnswerFirst(t *testing.T) {
	dir := filepath.Join("..", "..", "testdata", "cases")
	exp := filepath.Join(dir, "se-exportto-private-hidden-from-gateway.yaml")
	tcp := filepath.Join(dir, "tcp-entry-on-443-captures-other-https.yaml")
	paths := filepath.Join("..", "checks", "testdata", "paths")
	for _, c := range []struct {
		args  []string
		first string // the start of the first line
		fix   string // in the short answer
	}{
		{[]string{"why-missing", "rates.example.net", "-f", exp}, "ABSENT: no cluster for rates.example.net on gateway istio-egress/egress-gateway: cause NOT_EXPORTED_TO_GATEWAY_NAMESPACE, culprit ServiceEntry payments/fx-rates", "Fix: change spec.exportTo of ServiceEntry payments/fx-rates"},
		// the cluster is there, but the Gateway the route names applies to no workload
		{[]string{"why-missing", "api.example.com", "-f", filepath.Join(paths, "_base.yaml"), "-f", filepath.Join(paths, "gateway-selector-mismatch.yaml")}, "PRESENT, but calls fail: api.example.com has its cluster on gateway istio-system/istio-egressgateway: cause GATEWAY_DOES_NOT_APPLY, culprit Gateway istio-system/egress", "Fix: change spec.selector"},
		{[]string{"why-missing", "rates.example.net", "--from", "payments", "-f", exp}, "PATH HTTP rates.example.net:8080 from sidecar payments: FAILS", "Fix: change spec.exportTo of ServiceEntry payments/fx-rates"},
		{[]string{"explain-listener", "www.example.com:443", "--from", "monitoring", "-f", tcp}, "FAIL: TLS call to www.example.com:443 from SIDECAR monitoring goes to outbound|443||telemetry.example.org; TCP_CATCH_ALL_ON_TLS_PORT ServiceEntry monitoring/telemetry-sink", "Fix: Set spec.addresses on ServiceEntry monitoring/telemetry-sink"},
		{[]string{"export-audit", "-A", "-f", exp}, "FAIL: 1 exportTo gap(s) (1 error(s), 0 warning(s)); first: ServiceEntry payments/fx-rates SE_NOT_EXPORTED_TO_GATEWAY_NAMESPACE, missing in istio-egress", "Fix: change spec.exportTo of ServiceEntry payments/fx-rates"},
		{[]string{"preflight", "-f", exp}, "FAIL: 1 finding(s) at or above Error (1 error(s)", "fix: change spec.exportTo of ServiceEntry payments/fx-rates"},
		{[]string{"visibility", "rates.example.net", "-f", exp}, "meshConfig.serviceEntryVisibility is not configured", ""},
		// an ambient host's entry bound to a waypoint: the short answer says so (blind audit 78 7a)
		{[]string{"why-missing", "api.quota-svc.example", "-f", filepath.Join(paths, "_base.yaml"), "-f", filepath.Join(paths, "ambient-waypoint-plain-to-tls-port-no-rule.yaml")}, "PRESENT", "Ambient: ServiceEntry vendors/quota-svc asks for waypoint vendors/vendors-wp"},
		{[]string{"proxy-config", "clusters", "--gateway", "istio-egress/egress-gateway", "-f", exp}, "Predicted outbound configuration of ROUTER istio-egress/egress-gateway", ""},
		{[]string{"proxy-config", "clusters", "--gateway", "istio-egress/egress-gateway", "--diff", "--config-dump", filepath.Join("..", "envoy", "testdata", "s5-gateway.json"), "-f", exp}, "Predicted outbound configuration of ROUTER istio-egress/egress-gateway", "differs from the prediction in 4 resource(s)"},
	} {
		code, out, _ := run(t, "", c.args...)
		if !strings.HasPrefix(out, c.first) {
			t.Errorf("%v: output does not start with %q:\n%s", c.args, c.first, out)
		}
		bcode, brief, _ := run(t, "", append(c.args, "--brief")...)
		if bcode != code {
			t.Errorf("%v --brief: exit %d, without it %d", c.args, bcode, code)
		}
		if first, _, _ := strings.Cut(out, "\n"); !strings.HasPrefix(brief, first+"\n") {
			t.Errorf("%v --brief: does not start with the full output's first line %q:\n%s", c.args, first, brief)
		}
		if n := strings.Count(brief, "\n") - strings.Count(brief, "\n  Ambient: "); n < 1 || n > 2 {
			t.Errorf("%v --brief: %d lines, want 1 or 2:\n%s", c.args, n, brief)
		}
		if c.fix != "" && !strings.Contains(brief, c.fix) {
			t.Errorf("%v --brief: no %q:\n%s", c.args, c.fix, brief)
		}
		if len(brief) >= len(out) {
			t.Errorf("%v --brief is not shorter than the full output", c.args)
		}
	}
	_, j, _ := run(t, "", "why-missing", "rates.example.net", "-f", exp, "-o", "json")
	_, jb, _ := run(t, "", "why-missing", "rates.example.net", "-f", exp, "-o", "json", "--brief", "--output-width", "40")
	if j != jb {
		t.Errorf("--brief or --output-width changed the JSON output")
	}
}

// TestColourOnlyOnATerminalWithoutNoColor: colour needs a terminal and NO_COLOR unset; a
// pipe, a file or NO_COLOR give no escape codes, and structured formats never have them.
func TestColourOnlyOnATerminalWithoutNoColor(t *testing.T) {
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == "NO_COLOR" {
				return v
			}
			return ""
		}
	}
	file, err := os.CreateTemp(t.TempDir(), "out")
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	for _, c := range []struct {
		name string
		st   printers.Style
	}{
		{"pipe", textStyle(&strings.Builder{}, false, 0, false, env(""))},
		{"file", textStyle(file, false, 0, false, env(""))},
		{"file with a width", textStyle(file, false, 80, true, env(""))},
		{"NO_COLOR", textStyle(file, false, 0, false, env("1"))},
	} {
		if c.st.Color {
			t.Errorf("%s: colour on", c.name)
		}
	}
	if st := textStyle(file, false, 0, false, env("")); st.Width != 0 {
		t.Errorf("a file gets width %d, want 0 (unwrapped)", st.Width)
	}
	if st := textStyle(file, false, 80, true, env("")); st.Width != 80 {
		t.Errorf("--output-width 80: width %d", st.Width)
	}
	// The whole command in a pipe (the tests' buffers), with and without NO_COLOR.
	f := filepath.Join("..", "..", "testdata", "cases", "se-exportto-private-hidden-from-gateway.yaml")
	for _, nc := range []string{"", "1"} {
		t.Setenv("NO_COLOR", nc)
		for _, args := range [][]string{
			{"why-missing", "rates.example.net"}, {"preflight"}, {"preflight", "-o", "sarif"}, {"preflight", "-o", "junit"},
			{"export-audit", "-A"}, {"why-missing", "rates.example.net", "-o", "yaml"},
		} {
			_, out, errOut := run(t, "", append(args, "-f", f)...)
			if strings.Contains(out+errOut, "\x1b") {
				t.Errorf("NO_COLOR=%q %v: escape codes in the output", nc, args)
			}
		}
	}
	// A terminal's style colours the verdict words, and only them.
	printers.SetStyle(printers.Style{Color: true})
	defer printers.SetStyle(printers.Style{})
	for in, want := range map[string]string{
		"ABSENT: no cluster":          "\x1b[31mABSENT\x1b[0m: no cluster",
		"  PASS   fine":               "  \x1b[32mPASS\x1b[0m   fine",
		"Warning [X] y":               "\x1b[33mWarning\x1b[0m [X] y",
		"Error [X] PASSTHROUGH":       "\x1b[31mError\x1b[0m [X] PASSTHROUGH",
		"NOT_PRESENT and an Error in": "NOT_PRESENT and an Error in",
	} {
		if got := printers.Colorize(in); got != want {
			t.Errorf("Colorize(%q) = %q, want %q", in, got, want)
		}
	}
}
