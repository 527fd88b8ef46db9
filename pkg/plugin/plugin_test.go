package plugin

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-egress/kubectl-egress/pkg/snapshot"
)

func TestValidateHost(t *testing.T) {
	for _, h := range []string{"api.example.com", "*.example.com", "*", "203.0.113.10", "2001:db8::1", "localhost"} {
		if err := ValidateHost(h); err != nil {
			t.Errorf("ValidateHost(%q) = %v", h, err)
		}
	}
	for _, h := range []string{"", "https://api.example.com", "api.example.com/path", "api.example.com:443", "bad_host.example.com", "a..b", "*.*.example.com", "-x.example.com"} {
		if err := ValidateHost(h); err == nil {
			t.Errorf("ValidateHost(%q) accepted", h)
		}
	}
}

// run executes the root command in process with files only (no cluster).
func run(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	os.Args = append([]string{"kubectl-egress"}, args...)
	code = Execute(genericiooptions.IOStreams{In: strings.NewReader(stdin), Out: &out, ErrOut: &errOut})
	return code, out.String(), errOut.String()
}

const mesh = `apiVersion: networking.istio.io/v1
kind: ServiceEntry
metadata: {name: httpbin, namespace: default}
spec:
  hosts: [httpbin.org]
  resolution: DNS
  ports: [{number: 80, name: http, protocol: HTTP}]
`

func TestExitCodesAndOneLineErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("kind: ServiceEntry\napiVersion: networking.istio.io/v1\nmetadata:\n  name: [unclosed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"present offline, flag off", []string{"why-missing", "httpbin.org", "-f", "-", "--filter-gateway-clusters=false"}, ExitOK, ""},
		// --offline, as preflight and proxy-config take it: with -f nothing changes, without
		// it a usage error (blind audits 76, 77)
		{"why-missing --offline with -f", []string{"why-missing", "httpbin.org", "-f", "-", "--offline", "--filter-gateway-clusters=false"}, ExitOK, ""},
		{"why-missing --offline without -f", []string{"why-missing", "httpbin.org", "--offline"}, ExitError, "--offline needs manifests"},
		{"export-audit --offline with -f", []string{"export-audit", "-A", "-f", "-", "--offline"}, ExitOK, ""},
		{"visibility --offline without -f", []string{"visibility", "-A", "--offline"}, ExitError, "--offline needs manifests"},
		{"explain-listener --offline without -f", []string{"explain-listener", "--port", "80", "--offline"}, ExitError, "--offline needs manifests"},
		{"absent offline, flag on", []string{"why-missing", "httpbin.org", "-f", "-", "--filter-gateway-clusters=true", "-o", "json"}, ExitAbsent, ""},
		{"unknown host", []string{"why-missing", "nosuch.example.com", "-f", "-"}, ExitError, "no ServiceEntry, Service or route in the manifests names nosuch.example.com"},
		{"host one edit away", []string{"why-missing", "httpbin.orgg", "-f", "-"}, ExitError, "did you mean httpbin.org (ServiceEntry default/httpbin)?"},
		{"unknown --from namespace", []string{"why-missing", "httpbin.org", "-f", "-", "--from", "defaul"}, ExitError, "--from defaul: no such namespace in the manifests; did you mean default?"},
		{"visibility unknown host", []string{"visibility", "nosuch.example.com", "-f", "-"}, ExitError, "names nosuch.example.com"},
		{"visibility unknown namespace", []string{"visibility", "-n", "nosuchns", "-f", "-"}, ExitError, "-n nosuchns: no such namespace"},
		{"export-audit unknown namespace", []string{"export-audit", "-n", "nosuchns", "-f", "-"}, ExitError, "-n nosuchns: no such namespace"},
		{"explain-listener unknown --from", []string{"explain-listener", "httpbin.org:80", "--from", "defalt", "-f", "-"}, ExitError, "--from defalt: no such namespace in the manifests; did you mean default?"},
		{"proxy-config unknown --from", []string{"proxy-config", "clusters", "--from", "defalt", "-f", "-"}, ExitError, "--from defalt: no such namespace in the manifests; did you mean default?"},
		{"malformed file", []string{"why-missing", "httpbin.org", "-f", bad}, ExitError, bad + ":5: invalid YAML"}, // the parser reports the end of the unclosed flow sequence
		{"missing file", []string{"why-missing", "httpbin.org", "-f", filepath.Join(dir, "nope.yaml")}, ExitError, "no such file"},
		{"url as host", []string{"why-missing", "https://httpbin.org", "-f", "-"}, ExitError, "invalid host"},
		{"bad output", []string{"why-missing", "httpbin.org", "-f", "-", "-o", "xml"}, ExitError, "-o"},
		{"bad flag value", []string{"why-missing", "httpbin.org", "-f", "-", "--filter-gateway-clusters=maybe"}, ExitError, "want true or false"},
		{"unknown flag", []string{"why-missing", "httpbin.org", "--nope"}, ExitError, "unknown flag"},
		{"missing host", []string{"why-missing"}, ExitError, "why-missing takes one HOST"},
		{"unknown gateway", []string{"why-missing", "httpbin.org", "-f", "-", "--gateway", "istio-system/nope"}, ExitError, "not found"},
		{"bad gateway ref", []string{"why-missing", "httpbin.org", "-f", "-", "--gateway", "nope"}, ExitError, "NAMESPACE/NAME"},
		{"bad port", []string{"why-missing", "httpbin.org", "-f", "-", "--port", "70000"}, ExitError, "--port"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, stdout, stderr := run(t, mesh, c.args...)
			if code != c.code {
				t.Fatalf("exit %d, want %d; stderr %q", code, c.code, stderr)
			}
			if c.code == ExitError {
				prefix := "error: "
				if c.name == "malformed file" {
					prefix = bad + ":" // file:line: what is wrong
				}
				if strings.Count(stderr, "\n") != 1 || !strings.HasPrefix(stderr, prefix) || !strings.Contains(stderr, c.stderr) {
					t.Errorf("stderr not one line containing %q: %q", c.stderr, stderr)
				}
				if stdout != "" {
					t.Errorf("stdout on error: %q", stdout)
				}
			} else if stderr != "" {
				t.Errorf("stderr: %q", stderr)
			}
		})
	}
}

func TestHelpShowsExamples(t *testing.T) {
	code, out, _ := run(t, "", "why-missing", "--help")
	if code != ExitOK || !strings.Contains(out, "kubectl egress why-missing httpbin.org") || !strings.Contains(out, "--gateway") {
		t.Errorf("help: %d %q", code, out)
	}
	code, out, _ = run(t, "", "--help")
	if code != ExitOK || !strings.Contains(out, "why-missing") {
		t.Errorf("root help: %d %q", code, out)
	}
}

func TestVersion(t *testing.T) {
	code, out, _ := run(t, "", "version", "-o", "json")
	if code != ExitOK || !strings.Contains(out, `"version": "dev"`) || !strings.Contains(out, `"platform"`) {
		t.Errorf("version: %d %q", code, out)
	}
}

// TestExecuteRecoversPanics: a panic below the root command is one line on stderr and exit 2,
// never a Go stack trace.
func TestExecuteRecoversPanics(t *testing.T) {
	var out, errOut bytes.Buffer
	streams := genericiooptions.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}
	root := NewRootCommand(streams)
	root.AddCommand(&cobra.Command{Use: "boom", RunE: func(*cobra.Command, []string) error {
		var m map[string]int
		m["x"]++ // a nil-map write: a runtime panic
		return nil
	}})
	root.SetArgs([]string{"boom"})
	code := execute(root, streams)
	if code != ExitError || strings.Count(errOut.String(), "\n") != 1 || !strings.HasPrefix(errOut.String(), "error: internal error (assignment to entry in nil map)") || strings.Contains(errOut.String(), "goroutine") {
		t.Errorf("exit %d, stderr %q", code, errOut.String())
	}
}

// TestVerbosityFlag: -v / --v is klog's verbosity as in kubectl; --version keeps its long form.
func TestVerbosityFlag(t *testing.T) {
	for _, args := range [][]string{{"-v=6", "version"}, {"--v", "7", "version"}, {"version", "-v", "2"}, {"--v=0", "why-missing", "httpbin.org", "-f", "-", "--filter-gateway-clusters=false"}} {
		if code, _, stderr := run(t, mesh, args...); code != ExitOK {
			t.Errorf("%v: exit %d, stderr %q", args, code, stderr)
		}
	}
	if code, out, _ := run(t, "", "--version"); code != ExitOK || !strings.Contains(out, "version dev") {
		t.Errorf("--version: exit %d, %q", code, out)
	}
	if code, _, stderr := run(t, "", "-v=x", "version"); code != ExitError || !strings.Contains(stderr, "-v") {
		t.Errorf("-v=x: exit %d, stderr %q", code, stderr)
	}
	// At 6 client-go logs each request on stderr (the server refuses the connection at once).
	_, _, stderr := run(t, "", "-v=6", "export-audit", "-n", "team-a", "--server", "http://127.0.0.1:1", "--request-timeout", "5s")
	if !strings.Contains(stderr, `verb="GET"`) || !strings.Contains(stderr, "http://127.0.0.1:1/") {
		t.Errorf("-v=6 logs no request:\n%s", stderr)
	}
	// Without -v nothing but the one-line error.
	_, _, stderr = run(t, "", "export-audit", "-n", "team-a", "--server", "http://127.0.0.1:1", "--request-timeout", "5s")
	if strings.Count(stderr, "\n") != 1 {
		t.Errorf("without -v, stderr is not one line:\n%s", stderr)
	}
}

// TestRoutedButUndeclaredHost: a host a route names but no entry declares is a diagnosis
// (HOST_NOT_FOUND, exit 1), not a usage error.
func TestRoutedButUndeclaredHost(t *testing.T) {
	routed := mesh + `---
apiVersion: networking.istio.io/v1
kind: VirtualService
metadata: {name: api, namespace: default}
spec:
  hosts: [api.example.com]
  http: [{route: [{destination: {host: api.example.com}}]}]
`
	code, out, stderr := run(t, routed, "why-missing", "api.example.com", "-f", "-", "-o", "json")
	if code != ExitAbsent || !strings.Contains(out, `"HOST_NOT_FOUND"`) || stderr != "" {
		t.Errorf("exit %d, stderr %q\n%s", code, stderr, out)
	}
}

// TestExportAuditSaysItsScope: the audited scope is printed, and findings outside it are counted.
func TestExportAuditSaysItsScope(t *testing.T) {
	f := filepath.Join("..", "checks", "testdata", "paths", "hidden-by-exportto.yaml")
	base := filepath.Join("..", "checks", "testdata", "paths", "_base.yaml")
	code, out, _ := run(t, "", "export-audit", "-f", base, "-f", f)
	if !strings.HasPrefix(out, "Scope: all namespaces, ") {
		t.Errorf("exit %d, no scope line:\n%s", code, out)
	}
	code, out, _ = run(t, "", "export-audit", "-n", "istio-system", "-f", base, "-f", f, "-o", "json")
	if !strings.Contains(out, `"scope": "namespace istio-system (-n; -A audits every namespace)"`) {
		t.Errorf("exit %d, JSON has no scope:\n%s", code, out)
	}
	// An empty scope is not a quiet all-clear: the findings elsewhere are counted.
	other := filepath.Join("..", "checks", "testdata", "paths", "gateway-service-mesh-default-exportto.yaml")
	code, out, _ = run(t, "", "export-audit", "-n", "team-a", "-f", base, "-f", other)
	if code != ExitOK || !strings.Contains(out, "1 more finding(s) in other namespaces: run with -A to see them.") {
		t.Errorf("exit %d, findings elsewhere not said:\n%s", code, out)
	}
}

// TestUnknownPodNearMatches: a --pod that names no pod is exit 2 with the closest pod names.
func TestUnknownPodNearMatches(t *testing.T) {
	in := mesh + "---\napiVersion: v1\nkind: Pod\nmetadata: {name: client-1, namespace: team-a}\nspec: {containers: [{name: app, image: app}]}\n"
	for _, args := range [][]string{
		{"why-missing", "httpbin.org", "--pod", "team-a/client-2", "-f", "-"},
		{"explain-listener", "httpbin.org:80", "--pod", "team-a/client-2", "-f", "-"},
		{"proxy-config", "clusters", "--pod", "team-a/client-2", "-f", "-"},
	} {
		code, _, stderr := run(t, in, args...)
		if code != ExitError || !strings.Contains(stderr, "pod team-a/client-2 not found; did you mean team-a/client-1?") || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q", args, code, stderr)
		}
	}
}

// TestClientNamespaceWithoutObjects: with manifests, a --from namespace no object lives in (and
// that is no typo of one) is a client namespace with nothing of its own: traced, with a note.
func TestClientNamespaceWithoutObjects(t *testing.T) {
	code, _, stderr := run(t, mesh, "why-missing", "httpbin.org", "-f", "-", "--from", "clients", "--filter-gateway-clusters=false")
	if code == ExitError || !strings.HasPrefix(stderr, "note: --from clients: no object in the manifests lives in this namespace") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}

// TestHelpFits120Columns: the help of every command fits a 120-column terminal (flag
// descriptions are wrapped; test output is not a terminal, so 120 applies).
func TestHelpFits120Columns(t *testing.T) {
	var walk func(c *cobra.Command, path []string)
	walk = func(c *cobra.Command, path []string) {
		if c.Hidden || c.Name() == "__complete" || c.Name() == "__completeNoDesc" {
			return
		}
		code, out, _ := run(t, "", append(slices.Clone(path), "--help")...)
		if code != ExitOK || out == "" {
			t.Errorf("%v --help: exit %d, no help", path, code)
		}
		for _, l := range strings.Split(out, "\n") {
			if len([]rune(l)) > 120 {
				t.Errorf("%v --help: line of %d columns: %q", path, len([]rune(l)), l)
			}
		}
		for _, sub := range c.Commands() {
			walk(sub, append(slices.Clone(path), sub.Name()))
		}
	}
	walk(NewRootCommand(genericiooptions.NewTestIOStreamsDiscard()), nil)
}

// TestUnknownHostFromAmbientNamespace: for an ambient client namespace the one-line refusal of a
// host nothing declares says that ztunnel sends such calls straight out (REGISTRY_ONLY binds
// sidecars only), not that a ServiceEntry is needed to reach it; a sidecar namespace of the same
// input keeps the ServiceEntry advice.
func TestUnknownHostFromAmbientNamespace(t *testing.T) {
	in := mesh + `---
apiVersion: v1
kind: Namespace
metadata: {name: shop, labels: {istio.io/dataplane-mode: ambient}}
---
apiVersion: v1
kind: Namespace
metadata: {name: legacy, labels: {istio-injection: enabled}}
`
	for _, c := range []struct{ from, want, not string }{
		{"shop", "namespace shop is ambient, and ztunnel sends its calls to a host no entry declares straight out", "to reach it through the mesh"},
		{"legacy", "to reach it through the mesh, declare it in a ServiceEntry", "ztunnel"},
	} {
		code, stdout, stderr := run(t, in, "why-missing", "api.nowhere-declared.io", "--from", c.from, "-f", "-")
		if code != ExitError || stdout != "" || strings.Count(stderr, "\n") != 1 {
			t.Fatalf("--from %s: exit %d, stdout %q, stderr %q", c.from, code, stdout, stderr)
		}
		if !strings.Contains(stderr, c.want) || strings.Contains(stderr, c.not) {
			t.Errorf("--from %s: stderr %q, want %q and not %q", c.from, stderr, c.want, c.not)
		}
	}
}

// TestHostMustExistUnread: a host that nothing read names, when ServiceEntries could not be
// listed cluster-wide, is not "declare it in a ServiceEntry" (one may exist) but says what could
// not be read and how to get an answer (blind audit 67 R6).
func TestHostMustExistUnread(t *testing.T) {
	snap := &snapshot.Snapshot{Source: "cluster test", Unknown: map[string]string{snapshot.KindServiceEntry: "listed only in namespace team-a: forbidden cluster-wide"}}
	err := hostMustExist(snap, "api.example.com", "")
	if err == nil || !strings.Contains(err.Error(), "that could be read") || !strings.Contains(err.Error(), "ServiceEntries (listed only in namespace team-a") || strings.Contains(err.Error(), "declare it in a ServiceEntry") {
		t.Fatalf("%v", err)
	}
	snap.Unknown = map[string]string{}
	if err := hostMustExist(snap, "api.example.com", ""); err == nil || !strings.Contains(err.Error(), "declare it in a ServiceEntry") {
		t.Fatalf("everything read: %v", err)
	}
}

// TestUnknownHostTracedWithPort: with --from and --port, a host nothing names is traced from the
// client's sidecar instead of refused: a working PassthroughCluster call under ALLOW_ANY exits
// 0, the block_all virtual host under REGISTRY_ONLY (from the namespace's Sidecar) exits 1, and
// no gateway's clusters are shown for it (blind audit 112 U1, where both exited 2).
func TestUnknownHostTracedWithPort(t *testing.T) {
	in := mesh + `---
apiVersion: v1
kind: Namespace
metadata: {name: research, labels: {istio-injection: enabled}}
---
apiVersion: v1
kind: Namespace
metadata: {name: payments, labels: {istio-injection: enabled}}
---
apiVersion: networking.istio.io/v1
kind: Sidecar
metadata: {name: default, namespace: payments}
spec:
  outboundTrafficPolicy: {mode: REGISTRY_ONLY}
`
	for _, c := range []struct {
		from, port string
		code       int
		want       string
	}{
		{"research", "443", 0, "PassthroughCluster"},
		{"payments", "80", ExitAbsent, "REGISTRY_ONLY_BLACKHOLE"},
	} {
		code, stdout, stderr := run(t, in, "why-missing", "pypi.org", "--from", c.from, "--port", c.port, "-f", "-")
		if code != c.code || !strings.Contains(stdout, c.want) || strings.Contains(stdout, "GATEWAY ") {
			t.Errorf("--from %s: exit %d (want %d), stdout %q, stderr %q", c.from, code, c.code, stdout, stderr)
		}
	}
}
