package e2e

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// env is the one API server shared by every test of the run (see TestMain).
var env struct {
	testEnv    *envtest.Environment
	cfg        *rest.Config
	kubeconfig string // admin kubeconfig file
	repoRoot   string
	casesDir   string // the repository's case fixtures (testdata/cases), always present
	sharedDir  string // the extra acceptance set (EGRESS_CASES_DIR, else ../shared/cases), "" when absent
	assets     string // etcd, kube-apiserver, kubectl
	kubectl    string
	tmp        string
	binDir     string // holds kubectl-egress once built; first on PATH for plugin discovery
	clientset  kubernetes.Interface
	dyn        dynamic.Interface
}

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	if err := setUp(); err != nil {
		fmt.Fprintf(os.Stderr, "e2e: setup: %v\n", err)
		tearDown()
		return 1
	}
	code := m.Run()
	tearDown()
	return code
}

func setUp() error {
	var err error
	if env.repoRoot, err = filepath.Abs(filepath.Join("..", "..")); err != nil {
		return err
	}
	// The repository's own fixtures are the cases every run needs; the shared acceptance set is
	// run in addition when it is present (EGRESS_CASES_DIR, else ../shared/cases beside the
	// repository).
	env.casesDir = filepath.Join(env.repoRoot, "testdata", "cases")
	if _, err := os.Stat(env.casesDir); err != nil {
		return fmt.Errorf("repository case fixtures: %w", err)
	}
	if env.sharedDir, err = sharedCasesDir(env.repoRoot); err != nil {
		return err
	}
	if env.sharedDir == "" {
		fmt.Fprintf(os.Stderr, "e2e: cases: %s (no shared acceptance set: EGRESS_CASES_DIR unset and no ../shared/cases)\n", env.casesDir)
	} else {
		fmt.Fprintf(os.Stderr, "e2e: cases: %s, and the shared acceptance set %s\n", env.casesDir, env.sharedDir)
	}

	env.assets = os.Getenv("KUBE_ASSETS")
	if env.assets == "" {
		fmt.Fprintln(os.Stderr, "e2e: KUBE_ASSETS not set; running hack/build-kube.sh (several minutes on first use)")
		out, err := script("build-kube.sh")
		if err != nil {
			return err
		}
		env.assets = out
	}
	env.kubectl = filepath.Join(env.assets, "kubectl")
	for _, b := range []string{"etcd", "kube-apiserver", "kubectl"} {
		if _, err := os.Stat(filepath.Join(env.assets, b)); err != nil {
			return fmt.Errorf("KUBE_ASSETS=%s: %w (run hack/build-kube.sh)", env.assets, err)
		}
	}
	crds, err := script("istio-crds.sh")
	if err != nil {
		return err
	}
	gwcrds, err := script("gateway-api-crds.sh")
	if err != nil {
		return err
	}
	crdPaths := []string{crds}
	for _, k := range []string{"gatewayclasses", "gateways", "httproutes", "grpcroutes", "tlsroutes", "tcproutes", "referencegrants"} {
		crdPaths = append(crdPaths, filepath.Join(gwcrds, "gateway.networking.k8s.io_"+k+".yaml"))
	}

	if env.tmp, err = os.MkdirTemp("", "kubectl-egress-e2e-"); err != nil {
		return err
	}
	env.binDir = filepath.Join(env.tmp, "bin")
	if err := os.MkdirAll(env.binDir, 0o755); err != nil {
		return err
	}

	env.testEnv = &envtest.Environment{
		BinaryAssetsDirectory:    env.assets,
		ControlPlaneStartTimeout: 2 * time.Minute,
		ControlPlaneStopTimeout:  time.Minute,
		ErrorIfCRDPathMissing:    true,
		CRDInstallOptions: envtest.CRDInstallOptions{
			Paths:        crdPaths,
			MaxTime:      2 * time.Minute,
			PollInterval: 200 * time.Millisecond,
		},
	}
	start := time.Now()
	if env.cfg, err = env.testEnv.Start(); err != nil {
		return fmt.Errorf("starting envtest (etcd + kube-apiserver from %s): %w", env.assets, err)
	}
	fmt.Fprintf(os.Stderr, "e2e: API server %s ready in %s\n", env.cfg.Host, time.Since(start).Round(time.Millisecond))

	env.kubeconfig = filepath.Join(env.tmp, "kubeconfig")
	if err := os.WriteFile(env.kubeconfig, env.testEnv.KubeConfig, 0o600); err != nil {
		return err
	}
	if env.clientset, err = kubernetes.NewForConfig(env.cfg); err != nil {
		return err
	}
	if env.dyn, err = dynamic.NewForConfig(env.cfg); err != nil {
		return err
	}
	return nil
}

func tearDown() {
	if env.testEnv != nil && env.cfg != nil {
		if err := env.testEnv.Stop(); err != nil {
			fmt.Fprintf(os.Stderr, "e2e: stopping envtest: %v\n", err)
		}
	}
	if env.tmp != "" && os.Getenv("E2E_KEEP_TMP") == "" {
		_ = os.RemoveAll(env.tmp)
	}
}

// sharedCasesDir returns the shared acceptance set's directory: EGRESS_CASES_DIR (which must
// exist when set), else ../shared/cases beside the repository when it exists, else "".
func sharedCasesDir(repoRoot string) (string, error) {
	if d := os.Getenv("EGRESS_CASES_DIR"); d != "" {
		abs, err := filepath.Abs(d)
		if err != nil {
			return "", err
		}
		if _, err := os.Stat(abs); err != nil {
			return "", fmt.Errorf("EGRESS_CASES_DIR: %w", err)
		}
		return abs, nil
	}
	d := filepath.Join(filepath.Dir(repoRoot), "shared", "cases")
	if _, err := os.Stat(d); err != nil {
		return "", nil
	}
	return d, nil
}

// script runs hack/<name> from the repository root and returns its trimmed stdout.
func script(name string) (string, error) {
	cmd := exec.Command("bash", filepath.Join(env.repoRoot, "hack", name))
	cmd.Dir = env.repoRoot
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("hack/%s: %w", name, err)
	}
	return strings.TrimSpace(string(out)), nil
}

var (
	buildOnce sync.Once
	buildErr  error
)

// pluginBinary builds cmd/kubectl-egress once per run into the temporary bin directory and
// returns its path. Tests that need it fail (not the whole run) while it does not build.
func pluginBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(env.binDir, "kubectl-egress")
	buildOnce.Do(func() {
		cmd := exec.Command("go", "build", "-o", bin, "github.com/kubectl-egress/kubectl-egress/cmd/kubectl-egress")
		cmd.Dir = env.repoRoot
		// The e2e module's GOFLAGS (if any) must not leak into the root module's build.
		cmd.Env = append(os.Environ(), "GOFLAGS=", "GOWORK=off")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil {
			buildErr = fmt.Errorf("go build ./cmd/kubectl-egress: %v\n%s", err, stderr.String())
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return bin
}

// result of one command.
type result struct {
	code   int
	stdout string
	stderr string
}

func (r result) String() string {
	return fmt.Sprintf("exit %d\n--- stdout:\n%s\n--- stderr:\n%s", r.code, r.stdout, r.stderr)
}

// commandEnv is the environment for commands under test: the plugin's bin dir and the kubectl
// folder first on PATH, and no ambient kubeconfig (KUBECONFIG points at a file that does not exist).
func commandEnv() []string {
	var out []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "PATH=") || strings.HasPrefix(kv, "KUBECONFIG=") {
			continue
		}
		out = append(out, kv)
	}
	return append(out,
		"PATH="+env.binDir+string(os.PathListSeparator)+env.assets+string(os.PathListSeparator)+os.Getenv("PATH"),
		"KUBECONFIG="+filepath.Join(env.tmp, "no-such-kubeconfig"),
	)
}

// runCmd runs name with args and returns its exit code and output; it fails the test only when
// the command cannot be started or does not finish within two minutes.
func runCmd(t *testing.T, name string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = env.tmp
	cmd.Env = commandEnv()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r := result{stdout: stdout.String(), stderr: stderr.String()}
	if ctx.Err() != nil {
		t.Fatalf("%s %s: timed out\n%s", name, strings.Join(args, " "), r)
	}
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			t.Fatalf("%s %s: %v", name, strings.Join(args, " "), err)
		}
		r.code = ee.ExitCode()
	}
	return r
}

// kubectl runs the real kubectl (KUBE_ASSETS) with the given arguments.
func kubectl(t *testing.T, args ...string) result {
	t.Helper()
	return runCmd(t, env.kubectl, args...)
}

// egress runs `kubectl egress ARGS...` through kubectl's plugin discovery (the plugin is built first).
func egress(t *testing.T, args ...string) result {
	t.Helper()
	pluginBinary(t)
	return kubectl(t, append([]string{"egress"}, args...)...)
}

// egressDirect runs the plugin binary itself.
func egressDirect(t *testing.T, args ...string) result {
	t.Helper()
	return runCmd(t, pluginBinary(t), args...)
}
