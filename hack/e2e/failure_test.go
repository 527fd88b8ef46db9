package e2e

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// runMeasured runs the plugin binary directly and returns its result and its peak resident
// memory in MiB (getrusage of the child).
func runMeasured(t *testing.T, args ...string) (result, int64) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, pluginBinary(t), args...)
	cmd.Env = commandEnv()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r := result{stdout: stdout.String(), stderr: stderr.String()}
	if ctx.Err() != nil {
		t.Fatalf("%v: not finished within 2 minutes\n%s", args, r)
	}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	var rss int64
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		rss = ru.Maxrss / 1024 // KiB on Linux
	}
	return r, rss
}

// plainKubeconfig writes a kubeconfig for an API server at url (plain HTTP, no credentials).
func plainKubeconfig(t *testing.T, url string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "kubeconfig")
	kc := fmt.Sprintf("apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster: {server: %q}\ncontexts:\n- name: c\n  context: {cluster: c, user: u}\ncurrent-context: c\nusers:\n- name: u\n  user: {}\n", url)
	if err := os.WriteFile(p, []byte(kc), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// endless streams a never-ending JSON list body (a server that streams forever).
func endless(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write([]byte(`{"kind":"List","apiVersion":"v1","metadata":{},"items":[`))
	item := []byte(strings.Repeat(`{"metadata":{"name":"padding-padding-padding"}},`, 1000))
	for r.Context().Err() == nil {
		if _, err := w.Write(item); err != nil {
			return
		}
	}
}

// TestFailureModes: API servers and istiod endpoints that misbehave never make the plugin read
// without bound, hang past --request-timeout, or print more than one line: a server that
// accepts and never answers, one that answers too late, one that streams forever; an istiod that
// streams forever or never answers (live evidence only: a not-checked step). Each ends with
// the exact message and exit code, within the memory bound (peak RSS under 400 MiB).
func TestFailureModes(t *testing.T) {
	pluginBinary(t)
	const maxRSS = 400
	// An API server that accepts connections and never answers.
	silent, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	go func() {
		for {
			c, err := silent.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(20 * time.Second):
		case <-r.Context().Done():
		}
	}))
	defer slow.Close()
	streaming := httptest.NewServer(http.HandlerFunc(endless))
	defer streaming.Close()

	for _, c := range []struct {
		name, url, want string
	}{
		{"accepts, never answers", "http://" + silent.Addr().String(), "timed out reading from the API server at http://127.0.0.1"},
		{"answers too late", slow.URL, "timed out reading from the API server at http://127.0.0.1"},
		// the lists run in parallel: the cap bounds the bodies being read together
		{"streams forever", streaming.URL, "larger than 8 MiB together (--max-input-size)"},
		{"streams forever, default cap", streaming.URL, "larger than 128 MiB together (--max-input-size)"},
	} {
		args := []string{"why-missing", "api.example.com", "--kubeconfig", plainKubeconfig(t, c.url), "--request-timeout", "3s", "--max-input-size", "8"}
		limit := int64(maxRSS)
		if strings.HasSuffix(c.name, "default cap") {
			args, limit = args[:len(args)-2], 600
		}
		r, rss := runMeasured(t, args...)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 || strings.Contains(r.stderr, "goroutine") {
			t.Errorf("API server %s: exit %d, want 2 and one line containing %q\n%s", c.name, r.code, c.want, r)
		}
		if rss > limit {
			t.Errorf("API server %s: peak RSS %d MiB, want under %d", c.name, rss, limit)
		}
		// A server that answers no list: the message says so, rather than naming whichever
		// list happened to report the deadline first.
		if strings.HasPrefix(c.want, "timed out") && !strings.Contains(r.stderr, "no answer to any of the ") {
			t.Errorf("API server %s: the timeout should say no list was answered\n%s", c.name, r)
		}
	}

	// istiod's sync status: the verdict stands, the live step says why it was not checked. A
	// gateway pod "Running" on a node that does not exist makes the plugin ask istiod.
	applyCase(t, fxBound)
	pod := filepath.Join(t.TempDir(), "pod.yaml")
	if err := os.WriteFile(pod, []byte("apiVersion: v1\nkind: Pod\nmetadata:\n  name: egress-alerts-e2e\n  namespace: istio-system\n  labels: {app: egress-alerts, istio: egress-alerts}\nspec:\n  nodeName: e2e-node-that-does-not-exist\n  containers:\n  - {name: istio-proxy, image: docker.io/istio/proxyv2}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := kubectl(t, "apply", "-f", pod, "--kubeconfig", env.kubeconfig); r.code != 0 {
		t.Fatalf("kubectl apply: %s", r)
	}
	if r := kubectl(t, "patch", "pod", "egress-alerts-e2e", "-n", "istio-system", "--subresource=status", "--type=merge",
		"-p", `{"status":{"phase":"Running"}}`, "--kubeconfig", env.kubeconfig); r.code != 0 {
		t.Fatalf("kubectl patch status: %s", r)
	}
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }))
	defer hang.Close()
	for _, c := range []struct {
		name, addr, want string
	}{
		{"streams forever", strings.TrimPrefix(streaming.URL, "http://"), "the response is larger than 8388608 bytes (--max-input-size)"},
		{"never answers", strings.TrimPrefix(hang.URL, "http://"), "deadline exceeded"},
	} {
		r, rss := runMeasured(t, "why-missing", boundHost, "--port", boundPort, "--gateway", boundGW, "-o", "json", "--kubeconfig", env.kubeconfig,
			"--istiod-address", c.addr, "--request-timeout", "5s", "--max-input-size", "8")
		if r.code != 0 {
			t.Errorf("istiod %s: exit %d, want 0 (the prediction stands)\n%s", c.name, r.code, r)
			continue
		}
		rep := parseReport(t, r)
		if s := stepOf(t, rep, "d"); !strings.Contains(s.Summary, c.want) {
			t.Errorf("istiod %s: step d %s %q, want it to mention %q", c.name, s.Result, s.Summary, c.want)
		}
		if rss > maxRSS {
			t.Errorf("istiod %s: peak RSS %d MiB, want under %d", c.name, rss, maxRSS)
		}
	}
}

// TestObjectCap: --max-objects bounds what is read, live and from files: more objects than the
// cap is one line and exit 2, whichever list or file reaches it.
func TestObjectCap(t *testing.T) {
	pluginBinary(t)
	base, _ := filepath.Abs(filepath.Join(pathFixtures, "_base.yaml"))
	file, _ := filepath.Abs(filepath.Join(pathFixtures, "ok-http-via-gateway.yaml"))
	applyFiles(t, base, file)
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"live", []string{"--kubeconfig", env.kubeconfig, "--no-live"}, "the cluster holds more than 5 objects (--max-objects)"},
		{"files", []string{"-f", base, "-f", file}, "the input holds more than 5 objects (--max-objects)"},
	} {
		r := egress(t, append([]string{"why-missing", "api.example.com", "--max-objects", "5"}, c.args...)...)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 {
			t.Errorf("%s: exit %d, want 2 and one line containing %q\n%s", c.name, r.code, c.want, r)
		}
		r = egress(t, append([]string{"why-missing", "api.example.com", "--port", "80"}, c.args...)...)
		if r.code == 2 {
			t.Errorf("%s: the default cap refused a small mesh\n%s", c.name, r)
		}
	}
}
