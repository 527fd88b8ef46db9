package e2e

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/kubectl-egress/kubectl-egress/pkg/checks"
)

// TestHarness checks the harness alone (API server, CRDs, kubectl apply, clean-up), without the plugin.
func TestHarness(t *testing.T) {
	applyCase(t, fxExportPrivate)
	se := schema.GroupVersionResource{Group: "networking.istio.io", Version: "v1", Resource: "serviceentries"}
	list, err := env.dyn.Resource(se).Namespace(metav1.NamespaceAll).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatalf("list ServiceEntries: %v", err)
	}
	var got []string
	for _, o := range list.Items {
		got = append(got, o.GetNamespace()+"/"+o.GetName())
	}
	if len(got) != 2 || got[0] != "payments/fx-audit" || got[1] != "payments/fx-rates" {
		t.Fatalf("ServiceEntries = %v, want [payments/fx-audit payments/fx-rates]", got)
	}
	hosts, _, _ := unstructured.NestedStringSlice(list.Items[1].Object, "spec", "hosts")
	if len(hosts) != 1 || hosts[0] != fxExportPrivateHost {
		t.Errorf("spec.hosts = %v, want [%s]", hosts, fxExportPrivateHost)
	}

	// Clean-up leaves no case objects behind.
	cleanCluster(t)
	if list, err = env.dyn.Resource(se).Namespace(metav1.NamespaceAll).List(context.Background(), metav1.ListOptions{}); err != nil {
		t.Fatal(err)
	} else if len(list.Items) != 0 {
		t.Errorf("%d ServiceEntries left after clean-up", len(list.Items))
	}
	if _, err := env.clientset.CoreV1().Namespaces().Get(context.Background(), "payments", metav1.GetOptions{}); err == nil {
		t.Errorf("namespace payments left after clean-up")
	}
}

// TestCases runs every row of cases live (through kubectl plugin discovery) and offline (-f),
// and checks both against the expected verdict and each other.
func TestCases(t *testing.T) {
	pluginBinary(t)
	for _, c := range cases {
		if !haveCase(t, c.file) {
			continue
		}
		t.Run(strings.TrimSuffix(c.file, ".yaml"), func(t *testing.T) {
			applyCase(t, c.file)
			args := []string{"why-missing", c.host}
			if c.port != 0 {
				args = append(args, "--port", strconv.Itoa(c.port))
			}
			args = append(args, "--gateway", c.gateway, "-o", "json")
			// Exit 1 when the call fails: the cluster is absent, or the cause is an Error
			// (404 NR, 503 UH) although the cluster is present.
			wantCode := 1
			if e, ok := checks.Lookup(c.cause); c.present && ok && e.Level != checks.LevelError {
				wantCode = 0
			}

			// ... or when a finding on the gateway is an Error (a route that loops back to
			// the gateway: README's exit codes, "nothing on the way is an Error")
			errorFinding := func(v checks.GatewayVerdict) int {
				if _, fails := v.CallsFail(); fails {
					return 1
				}
				return wantCode
			}

			live := egress(t, append(args, "--kubeconfig", env.kubeconfig)...)
			liveRep := parseReport(t, live)
			lv := verdictFor(t, liveRep, c.gateway)
			if want := errorFinding(lv); live.code != want {
				t.Errorf("live: exit code %d, want %d\n%s", live.code, want, live)
			}
			checkVerdict(t, "live", lv, c)

			off := egressDirect(t, append(args, "-f", casePath(c.file))...)
			ov := verdictFor(t, parseReport(t, off), c.gateway)
			if want := errorFinding(ov); off.code != want {
				t.Errorf("offline (-f): exit code %d, want %d\n%s", off.code, want, off)
			}
			checkVerdict(t, "offline", ov, c)
			if l, o := verdictSummary(lv), verdictSummary(ov); l != o {
				t.Errorf("live and offline verdicts differ:\n  live:    %s\n  offline: %s", l, o)
			}
		})
	}
}

func checkVerdict(t *testing.T, mode string, v checks.GatewayVerdict, c egressCase) {
	t.Helper()
	if v.Present != c.present || v.Cause != c.cause || v.Culprit != c.culprit {
		t.Errorf("%s: got present=%v cause=%s culprit=%q, want present=%v cause=%s culprit=%q\nmessage: %s",
			mode, v.Present, v.Cause, v.Culprit, c.present, c.cause, c.culprit, v.Message)
	}
}

// TestHostNotFound: a host that a route names but no entry declares is an answer (exit 1,
// HOST_NOT_FOUND); a host nothing in the cluster names, a namespace that does not exist, are
// exit 2 with one line and the near matches (most likely typos), in every command that takes them.
func TestHostNotFound(t *testing.T) {
	applyCase(t, fxBound)
	vs := filepath.Join(t.TempDir(), "vs.yaml")
	if err := os.WriteFile(vs, []byte("apiVersion: networking.istio.io/v1\nkind: VirtualService\nmetadata: {name: undeclared, namespace: default}\nspec:\n  hosts: [undeclared.example.com]\n  http: [{route: [{destination: {host: undeclared.example.com}}]}]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := kubectl(t, "apply", "-f", vs, "--kubeconfig", env.kubeconfig); r.code != 0 {
		t.Fatalf("kubectl apply: %s", r)
	}
	r := egress(t, "why-missing", "undeclared.example.com", "--gateway", boundGW, "-o", "json", "--kubeconfig", env.kubeconfig)
	if r.code != 1 {
		t.Errorf("exit code %d, want 1\n%s", r.code, r)
	}
	rep := parseReport(t, r)
	if rep.Present {
		t.Errorf("report.present = true for an undeclared host")
	}
	if len(rep.Services) != 0 {
		t.Errorf("report.services = %v, want none", rep.Services)
	}
	if len(rep.Gateways) == 0 {
		t.Fatalf("report has no gateway verdict; want cause HOST_NOT_FOUND\n%s", r)
	}
	for _, g := range rep.Gateways {
		if g.Cause != "HOST_NOT_FOUND" {
			t.Errorf("gateway %s: cause %s, want HOST_NOT_FOUND", g.Gateway, g.Cause)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"why-missing", "nosuch.example.com", "-o", "json"}, "no ServiceEntry, Service or route in the cluster names nosuch.example.com"},
		{[]string{"why-missing", boundHost + "m"}, "did you mean " + boundHost + " (ServiceEntry "},
		{[]string{"visibility", "nosuch.example.com"}, "names nosuch.example.com"},
		{[]string{"why-missing", boundHost, "--from", "nosuchns"}, "--from nosuchns: no such namespace in the cluster"},
		{[]string{"why-missing", boundHost, "--from", "defaul"}, "did you mean default?"},
		{[]string{"export-audit", "-n", "nosuchns"}, "-n nosuchns: no such namespace in the cluster"},
		{[]string{"explain-listener", boundHost + ":" + boundPort, "--from", "nosuchns"}, "--from nosuchns: no such namespace"},
	} {
		r := egress(t, append(c.args, "--kubeconfig", env.kubeconfig)...)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) || r.stdout != "" {
			t.Errorf("%v: exit %d, want 2 and one line containing %q\n%s", c.args, r.code, c.want, r)
		}
		checkOneLineError(t, r)
	}
	// export-audit without -n says the scope it audited (the kubeconfig context's namespace).
	r = egress(t, "export-audit", "--kubeconfig", env.kubeconfig)
	if !strings.HasPrefix(r.stdout, "Scope: namespace default (the kubeconfig context's namespace; -A audits every namespace)") {
		t.Errorf("export-audit without -n does not say its scope:\n%s", r)
	}
}

// TestUnreachableServer: a read error is exit 2 with one line on stderr, no stack trace.
func TestUnreachableServer(t *testing.T) {
	r := egress(t, "why-missing", "httpbin.org", "--kubeconfig", env.kubeconfig,
		"--server", "https://127.0.0.1:1", "--request-timeout", "2s")
	if r.code != 2 {
		t.Errorf("exit code %d, want 2\n%s", r.code, r)
	}
	checkOneLineError(t, r)
}

// TestVerbosityLogsRequests: -v=6 (kubectl's convention) logs each API request the plugin makes
// on stderr, through kubectl's plugin discovery and run directly; stdout stays the report, and
// without -v stderr stays empty.
func TestVerbosityLogsRequests(t *testing.T) {
	applyCase(t, fxBound)
	for _, r := range []result{
		egress(t, "-v=6", "why-missing", boundHost, "--no-live", "-o", "json", "--kubeconfig", env.kubeconfig),
		egressDirect(t, "why-missing", boundHost, "--v", "6", "--no-live", "-o", "json", "--kubeconfig", env.kubeconfig),
	} {
		if r.code != 0 {
			t.Errorf("exit %d, want 0\n%s", r.code, r)
		}
		parseReport(t, r)
		for _, want := range []string{`verb="GET"`, "/apis/networking.istio.io/v1/serviceentries", "/api/v1/services", `status="200 OK"`} {
			if !strings.Contains(r.stderr, want) {
				t.Errorf("-v=6: stderr lacks %q\n%s", want, r)
			}
		}
	}
	r := egress(t, "why-missing", boundHost, "--no-live", "-o", "json", "--kubeconfig", env.kubeconfig)
	if r.code != 0 || r.stderr != "" {
		t.Errorf("without -v: exit %d, stderr %q", r.code, r.stderr)
	}
	if r := egress(t, "--version"); r.code != 0 || !strings.Contains(r.stdout, "version") {
		t.Errorf("--version:\n%s", r)
	}
}

func checkOneLineError(t *testing.T, r result) {
	t.Helper()
	msg := strings.TrimRight(r.stderr, "\n")
	if msg == "" || strings.Contains(msg, "\n") {
		t.Errorf("stderr must be exactly one line, got %d:\n%s", strings.Count(r.stderr, "\n"), r.stderr)
	}
	for _, bad := range []string{"goroutine ", "panic"} {
		if strings.Contains(r.stderr, bad) {
			t.Errorf("stderr contains %q:\n%s", bad, r.stderr)
		}
	}
}

// TestMalformedFile: a YAML error in an -f file is exit 2 and names the file and line.
func TestMalformedFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "broken.yaml")
	content := `apiVersion: networking.istio.io/v1
kind: ServiceEntry
metadata:
  name: broken
  namespace: default
spec:
  hosts: ["httpbin.org"
  ports:
  - number: 80
    name: http
    protocol: HTTP
`
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	r := egress(t, "why-missing", "httpbin.org", "-f", path)
	if r.code != 2 {
		t.Errorf("exit code %d, want 2\n%s", r.code, r)
	}
	re := regexp.MustCompile(`^` + regexp.QuoteMeta(path) + `:[0-9]+: `)
	if !re.MatchString(r.stderr) {
		t.Errorf("stderr does not match %s:\n%s", re, r.stderr)
	}
	checkOneLineError(t, r)
}

// TestForbiddenKind: a user who may not list DestinationRules still gets an answer, with the
// step that needs them marked unknown.
func TestForbiddenKind(t *testing.T) {
	applyCase(t, fxExportPrivate)
	read := []string{"get", "list", "watch"}
	kcPath := restrictedUser(t, "limited", []rbacv1.PolicyRule{
		{APIGroups: []string{"", "apps", "discovery.k8s.io", "networking.k8s.io", "apiextensions.k8s.io",
			"security.istio.io", "telemetry.istio.io", "extensions.istio.io", "gateway.networking.k8s.io"},
			Resources: []string{"*"}, Verbs: read},
		{APIGroups: []string{"networking.istio.io"}, Verbs: read, Resources: []string{
			"serviceentries", "virtualservices", "gateways", "sidecars", "workloadentries",
			"workloadgroups", "envoyfilters", "proxyconfigs"}},
	})
	// The user really is forbidden to list DestinationRules and allowed to list ServiceEntries.
	if r := kubectl(t, "auth", "can-i", "list", "destinationrules.networking.istio.io", "-A", "--kubeconfig", kcPath); strings.TrimSpace(r.stdout) != "no" {
		t.Fatalf("limited user can list destinationrules: %s", r)
	}
	if r := kubectl(t, "auth", "can-i", "list", "serviceentries.networking.istio.io", "-A", "--kubeconfig", kcPath); strings.TrimSpace(r.stdout) != "yes" {
		t.Fatalf("limited user cannot list serviceentries: %s", r)
	}

	r := egress(t, "why-missing", fxExportPrivateHost, "--port", "8080", "--gateway", fxExportPrivateGW, "-o", "json", "--kubeconfig", kcPath)
	if r.code != 0 && r.code != 1 {
		t.Fatalf("exit code %d, want 0 or 1 (an answer despite RBAC)\n%s", r.code, r)
	}
	rep := parseReport(t, r)
	found := false
	for _, g := range rep.Gateways {
		for _, s := range g.Steps {
			if s.Result == checks.Unknown && strings.Contains(strings.ToLower(s.Summary), "forbidden") {
				found = true
			}
		}
	}
	if !found {
		t.Errorf("no step with result %q and a summary mentioning \"forbidden\"\n%s", checks.Unknown, r)
	}
}

// TestPluginDiscovery: kubectl finds the plugin and its help lists the subcommand.
func TestPluginDiscovery(t *testing.T) {
	bin := pluginBinary(t)
	r := kubectl(t, "egress", "--help")
	if r.code != 0 || !strings.Contains(r.stdout, "why-missing") {
		t.Errorf("kubectl egress --help: want exit 0 and \"why-missing\" on stdout\n%s", r)
	}
	r = kubectl(t, "plugin", "list")
	if !strings.Contains(r.stdout, bin) {
		t.Errorf("kubectl plugin list does not show %s\n%s", bin, r)
	}
}

// restrictedUser creates user name bound to a ClusterRole with rules (removed at the end of the
// test) and returns a kubeconfig for it.
func restrictedUser(t *testing.T, name string, rules []rbacv1.PolicyRule) string {
	t.Helper()
	ctx := context.Background()
	role := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "e2e-egress-" + name}, Rules: rules}
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: role.Name},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: name}},
	}
	rbac := env.clientset.RbacV1()
	_ = rbac.ClusterRoleBindings().Delete(ctx, binding.Name, metav1.DeleteOptions{})
	_ = rbac.ClusterRoles().Delete(ctx, role.Name, metav1.DeleteOptions{})
	if _, err := rbac.ClusterRoles().Create(ctx, role, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rbac.ClusterRoles().Delete(context.Background(), role.Name, metav1.DeleteOptions{}) })
	if _, err := rbac.ClusterRoleBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = rbac.ClusterRoleBindings().Delete(context.Background(), binding.Name, metav1.DeleteOptions{})
	})
	return userKubeconfig(t, name)
}

// TestPartialRightsNoConfidentAnswer (issue #15's first failure): a user allowed everything
// except ConfigMaps, Sidecars, WorkloadEntries and EnvoyFilters, on a mesh whose ConfigMap sets
// defaultServiceExportTo ["."]. The admin gets NOT_EXPORTED_TO_GATEWAY_NAMESPACE (exit 1); the
// user gets INPUT_UNKNOWN (exit 2) naming the ConfigMaps and deploy/clusterrole.yaml, never a
// headline OK; explain-listener and visibility refuse with one line and exit 2.
func TestPartialRightsNoConfidentAnswer(t *testing.T) {
	pluginBinary(t)
	base, _ := filepath.Abs(filepath.Join(pathFixtures, "_base.yaml"))
	mesh := filepath.Join(t.TempDir(), "mesh.yaml")
	if err := os.WriteFile(mesh, []byte(`apiVersion: v1
kind: ConfigMap
metadata: {name: istio, namespace: istio-system}
data:
  mesh: |
    defaultServiceExportTo: ["."]
---
apiVersion: networking.istio.io/v1
kind: ServiceEntry
metadata: {name: api, namespace: team-a}
spec:
  hosts: [api.example.com]
  resolution: DNS
  ports: [{number: 80, name: http, protocol: HTTP}]
---
apiVersion: networking.istio.io/v1
kind: Sidecar
metadata: {name: default, namespace: team-a}
spec:
  egress: [{hosts: ["./*"]}]
`), 0o644); err != nil {
		t.Fatal(err)
	}
	applyFiles(t, base, mesh)
	admin := egress(t, "why-missing", "api.example.com", "--port", "80", "-o", "json", "--kubeconfig", env.kubeconfig)
	if rep := parseReport(t, admin); admin.code != 1 || rep.Gateways[0].Cause != checks.CauseNotExported {
		t.Fatalf("admin: exit %d, want 1 with %s\n%s", admin.code, checks.CauseNotExported, admin)
	}
	read := []string{"get", "list", "watch"}
	kc := restrictedUser(t, "partial", []rbacv1.PolicyRule{
		{APIGroups: []string{""}, Verbs: read, Resources: []string{"namespaces", "services", "pods", "endpoints"}},
		{APIGroups: []string{"apps"}, Verbs: read, Resources: []string{"deployments"}},
		{APIGroups: []string{"networking.istio.io"}, Verbs: read, Resources: []string{"serviceentries", "virtualservices", "destinationrules", "gateways"}},
	})
	r := egress(t, "why-missing", "api.example.com", "--port", "80", "--no-live", "-o", "json", "--kubeconfig", kc)
	rep := parseReport(t, r)
	g := rep.Gateways[0]
	if r.code != 2 || g.Cause != checks.CauseInputUnknown || !strings.Contains(g.Message, "ConfigMaps") || !strings.Contains(g.Message, "deploy/clusterrole.yaml") || !strings.Contains(g.Fix, "deploy/clusterrole.yaml") {
		t.Errorf("partial rights: exit %d cause %s, want 2 and %s naming ConfigMaps and deploy/clusterrole.yaml\n%s", r.code, g.Cause, checks.CauseInputUnknown, r)
	}
	for _, s := range g.Steps {
		if s.ID == "input:Sidecar" && !strings.Contains(s.Summary, "does not depend on them") {
			t.Errorf("the Sidecar row does not say the gateway's verdict is independent of Sidecars: %+v", s)
		}
	}
	for _, args := range [][]string{
		{"explain-listener", "api.example.com:80", "--from", "team-a"},
		{"visibility", "api.example.com"},
	} {
		r := egress(t, append(args, "--kubeconfig", kc)...)
		if r.code != 2 || !strings.Contains(r.stderr, "could not be read") || !strings.Contains(r.stderr, "deploy/clusterrole.yaml") {
			t.Errorf("%v: exit %d, want 2 naming what could not be read\n%s", args, r.code, r)
		}
		checkOneLineError(t, r)
	}
}

// roleUser creates user name with a Role (not a ClusterRole) granting rules in namespace ns only,
// and returns a kubeconfig for it.
func roleUser(t *testing.T, name, ns string, rules []rbacv1.PolicyRule) string {
	t.Helper()
	ctx := context.Background()
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "e2e-egress-" + name, Namespace: ns}, Rules: rules}
	binding := &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: role.Name, Namespace: ns},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: role.Name},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: name}},
	}
	rbac := env.clientset.RbacV1()
	_ = rbac.RoleBindings(ns).Delete(ctx, binding.Name, metav1.DeleteOptions{})
	_ = rbac.Roles(ns).Delete(ctx, role.Name, metav1.DeleteOptions{})
	if _, err := rbac.Roles(ns).Create(ctx, role, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rbac.Roles(ns).Delete(context.Background(), role.Name, metav1.DeleteOptions{}) })
	if _, err := rbac.RoleBindings(ns).Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rbac.RoleBindings(ns).Delete(context.Background(), binding.Name, metav1.DeleteOptions{}) })
	return userKubeconfig(t, name)
}

// TestNamespaceScopedUser: a user whose Role grants every kind in team-a only. The lists fall
// back to the namespaces the command names; what was read is said ("listed only in namespace
// team-a") with deploy/clusterrole.yaml, and no verdict rests on the rest: export-audit -n team-a
// reports an incomplete audit and why-missing --from team-a is INPUT_UNKNOWN, both exit 2.
func TestNamespaceScopedUser(t *testing.T) {
	pluginBinary(t)
	base, _ := filepath.Abs(filepath.Join(pathFixtures, "_base.yaml"))
	file, _ := filepath.Abs(filepath.Join(pathFixtures, "ok-http-via-gateway.yaml"))
	applyFiles(t, base, file)
	read := []string{"get", "list", "watch"}
	kc := roleUser(t, "team-a-only", "team-a", []rbacv1.PolicyRule{
		{APIGroups: []string{"", "apps", "networking.istio.io"}, Resources: []string{"*"}, Verbs: read},
	})
	r := egress(t, "export-audit", "-n", "team-a", "--kubeconfig", kc)
	if r.code != 2 || !strings.Contains(r.stdout+r.stderr, "listed only in namespace team-a") || !strings.Contains(r.stdout+r.stderr, "deploy/clusterrole.yaml") {
		t.Errorf("export-audit -n team-a: exit %d, want 2 saying what was read and naming deploy/clusterrole.yaml\n%s", r.code, r)
	}
	r = egress(t, "why-missing", "api.example.com", "--port", "80", "--from", "team-a", "--no-live", "-o", "json", "--kubeconfig", kc)
	rep := parseReport(t, r)
	if r.code != 2 || rep.Path == nil || rep.Path.Cause != checks.CauseInputUnknown || !strings.Contains(rep.Path.Message, "listed only in namespace team-a") || !strings.Contains(r.stderr, "deploy/clusterrole.yaml") {
		t.Errorf("why-missing --from team-a: exit %d, want 2 with %s saying what was read\n%s", r.code, checks.CauseInputUnknown, r)
	}
	// visibility --as-namespace names the namespace to fall back to as well.
	r = egress(t, "visibility", "api.example.com", "--as-namespace", "team-a", "--kubeconfig", kc)
	if r.code != 2 || !strings.Contains(r.stdout+r.stderr, "listed only in namespace") || !strings.Contains(r.stdout+r.stderr, "deploy/clusterrole.yaml") {
		t.Errorf("visibility --as-namespace team-a: exit %d, want 2 saying what was read\n%s", r.code, r)
	}
}

// TestEachForbiddenKind: for every kind the plugin lists, a user who may read everything but
// that kind. A gateway's verdict either does not depend on the kind (Sidecars, WorkloadEntries
// for an entry without a workloadSelector, EnvoyFilters with the filter flag off: the verdict,
// with a row saying so) or is INPUT_UNKNOWN with exit 2 naming the kind; the path from team-a
// depends on every kind but WorkloadEntries and EnvoyFilters. Never a headline OK on an unread
// input.
func TestEachForbiddenKind(t *testing.T) {
	pluginBinary(t)
	base, _ := filepath.Abs(filepath.Join(pathFixtures, "_base.yaml"))
	file, _ := filepath.Abs(filepath.Join(pathFixtures, "ok-http-via-gateway.yaml"))
	applyFiles(t, base, file)
	groups := map[string][]string{
		"":                    {"namespaces", "services", "configmaps", "pods"},
		"apps":                {"deployments"},
		"networking.istio.io": {"serviceentries", "virtualservices", "destinationrules", "gateways", "sidecars", "workloadentries", "envoyfilters"},
	}
	gatewayIndependent := map[string]bool{"sidecars": true, "workloadentries": true, "envoyfilters": true}
	pathIndependent := map[string]bool{"workloadentries": true, "envoyfilters": true}
	read := []string{"get", "list", "watch"}
	for group, resources := range groups {
		for _, forbidden := range resources {
			t.Run(forbidden, func(t *testing.T) {
				// (the Gateway API and its CRDs are readable: without them every verdict is
				// INPUT_UNKNOWN, TestGatewayAPIExample)
				rules := []rbacv1.PolicyRule{{APIGroups: []string{"gateway.networking.k8s.io", "apiextensions.k8s.io"}, Resources: []string{"*"}, Verbs: read}}
				for g, rs := range groups {
					var allowed []string
					for _, r := range rs {
						if r != forbidden || g != group {
							allowed = append(allowed, r)
						}
					}
					if len(allowed) > 0 {
						rules = append(rules, rbacv1.PolicyRule{APIGroups: []string{g}, Resources: allowed, Verbs: read})
					}
				}
				kc := restrictedUser(t, "no-"+forbidden, rules)
				report := func(r result) checks.Report {
					if strings.TrimSpace(r.stdout) == "" {
						return checks.Report{} // refused before any report (one line on stderr)
					}
					return parseReport(t, r)
				}
				r := egress(t, "why-missing", "api.example.com", "--port", "80", "--no-live", "-o", "json", "--kubeconfig", kc)
				rep := report(r)
				switch {
				case gatewayIndependent[forbidden]:
					if r.code != 0 || len(rep.Gateways) == 0 || rep.Gateways[0].Cause != checks.CauseOK {
						t.Errorf("gateway verdict: exit %d, want 0 and OK (independent of %s)\n%s", r.code, forbidden, r)
					}
					said := false
					for _, s := range rep.Gateways[0].Steps {
						said = said || (strings.HasPrefix(s.ID, "input:") && strings.Contains(s.Summary, "does not depend on them"))
					}
					if !said {
						t.Errorf("no row says the verdict does not depend on %s\n%s", forbidden, r)
					}
				default:
					if r.code != 2 || !strings.Contains(r.stdout+r.stderr, forbidden) || (len(rep.Gateways) > 0 && rep.Gateways[0].Cause == checks.CauseOK) {
						t.Errorf("gateway verdict: exit %d, want 2 naming %s and no OK\n%s", r.code, forbidden, r)
					}
				}
				r = egress(t, "why-missing", "api.example.com", "--port", "80", "--from", "team-a", "--no-live", "-o", "json", "--kubeconfig", kc)
				rep = report(r)
				if pathIndependent[forbidden] {
					if r.code != 0 || rep.Path == nil || rep.Path.Cause != checks.PathOK {
						t.Errorf("path: exit %d, want 0 and PATH_OK\n%s", r.code, r)
					}
				} else if r.code != 2 || !strings.Contains(r.stdout+r.stderr, forbidden) || (rep.Path != nil && rep.Path.Cause == checks.PathOK) {
					t.Errorf("path: exit %d, want 2 naming %s and no PATH_OK\n%s", r.code, forbidden, r)
				}
				// The whole-mesh commands and the predicted configurations: exit 2 naming the
				// kind, or an answer that says the kind cannot change it. reads lists the kinds
				// each one reads at all.
				for _, c := range []struct {
					args  []string
					reads func(string) bool
				}{
					{[]string{"export-audit", "-A"}, func(k string) bool { return k != "workloadentries" && k != "envoyfilters" }},
					{[]string{"proxy-config", "all", "--gateway", "istio-system/istio-egressgateway"}, func(k string) bool { return k != "sidecars" }},
					{[]string{"proxy-config", "all", "--from", "team-a"}, func(string) bool { return true }},
					{[]string{"preflight"}, func(string) bool { return true }},
				} {
					if !c.reads(forbidden) {
						continue
					}
					r := egress(t, append(c.args, "--kubeconfig", kc)...)
					out := strings.ToLower(r.stdout + r.stderr)
					said := strings.Contains(out, "does not depend") || strings.Contains(out, "depends on them") && r.code == 2 ||
						strings.Contains(out, "no check here depends on them") || strings.Contains(out, "taken from pods")
					if (r.code != 2 || !strings.Contains(out, strings.TrimSuffix(forbidden, "s"))) && !said {
						t.Errorf("%v: exit %d, want 2 naming %s, or an answer saying it cannot depend on them\n%s", c.args, r.code, forbidden, r)
					}
					if r.code == 2 && (strings.Contains(r.stdout, "No exportTo gaps") || strings.Contains(r.stdout, "PASS")) {
						t.Errorf("%v: exit 2, but the output reads as an all-clear\n%s", c.args, r)
					}
				}
			})
		}
	}
}

// userKubeconfig adds user name to the test API server and returns a kubeconfig file for it.
func userKubeconfig(t *testing.T, name string) string {
	t.Helper()
	user, err := env.testEnv.AddUser(envtest.User{Name: name}, nil)
	if err != nil {
		t.Fatal(err)
	}
	kc, err := user.KubeConfig()
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), name+".kubeconfig")
	if err := os.WriteFile(p, kc, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestCredentialSecretsRights: whether a gateway's credentialName Secret is where the gateway
// reads it is checked from the Secrets' names (a metadata LIST in the gateways' namespaces). A
// user who may list Secrets gets TLS_CREDENTIAL_NOT_FOUND (exit 1) for a client certificate
// created in the client's namespace; a user with deploy/clusterrole.yaml's rules (no Secrets)
// gets the path with a TLS_CREDENTIAL_NOT_CHECKED warning naming the refusal, never a silent OK.
func TestCredentialSecretsRights(t *testing.T) {
	pluginBinary(t)
	base, _ := filepath.Abs(filepath.Join(pathFixtures, "_base.yaml"))
	file, _ := filepath.Abs(filepath.Join(pathFixtures, "credential-mutual-origination-secret-in-client-namespace.yaml"))
	applyFiles(t, base, file)
	read := []string{"get", "list"}
	reader := []rbacv1.PolicyRule{
		{APIGroups: []string{""}, Resources: []string{"namespaces", "services", "pods", "configmaps"}, Verbs: read},
		{APIGroups: []string{"apps"}, Resources: []string{"deployments"}, Verbs: read},
		{APIGroups: []string{"networking.istio.io", "gateway.networking.k8s.io"}, Resources: []string{"*"}, Verbs: read},
		{APIGroups: []string{"apiextensions.k8s.io"}, Resources: []string{"customresourcedefinitions"}, Verbs: []string{"get"}},
	}
	args := []string{"why-missing", "api.ledgerline.example", "--port", "80", "--from", "team-a", "--no-live", "-o", "json"}

	withSecrets := restrictedUser(t, "secrets-lister", append(slices.Clone(reader), rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"list"}}))
	r := egress(t, append(args, "--kubeconfig", withSecrets)...)
	if p := parseReport(t, r).Path; r.code != 1 || p == nil || p.Cause != checks.PathCredentialMissing || !strings.Contains(p.Message, "namespace team-a") {
		t.Errorf("may list Secrets: exit %d, want 1 with %s naming the Secret in team-a\n%s", r.code, checks.PathCredentialMissing, r)
	}

	without := restrictedUser(t, "no-secrets", reader)
	r = egress(t, append(args, "--kubeconfig", without)...)
	p := parseReport(t, r).Path
	if p == nil || p.Failed() || !slices.ContainsFunc(p.Warnings, func(f checks.Finding) bool {
		return f.Code == checks.PathCredentialUnchecked && strings.Contains(f.Message, "forbidden to list secrets")
	}) {
		t.Errorf("may not list Secrets: want the path with a %s warning naming the refusal\n%s", checks.PathCredentialUnchecked, r)
	}
}
