package plugin

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	networkingapi "istio.io/api/networking/v1"
	networkingv1 "istio.io/client-go/pkg/apis/networking/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-egress/kubectl-egress/pkg/checks"
	"github.com/kubectl-egress/kubectl-egress/pkg/snapshot"
)

func se(ns, name string, hosts []string, ports ...*networkingapi.ServicePort) *networkingv1.ServiceEntry {
	return &networkingv1.ServiceEntry{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec:       networkingapi.ServiceEntry{Hosts: hosts, Ports: ports},
	}
}

func TestFormatCandidates(t *testing.T) {
	got := formatCandidates([]candidate{
		{value: "b.example.com", desc: "second"},
		{value: "a.example.com", desc: "first"},
		{value: "a.example.com", desc: "duplicate, dropped"},
		{value: "other.org"},
		{value: ""},
	}, "")
	want := []string{"a.example.com\tfirst", "b.example.com\tsecond", "other.org"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("formatCandidates = %q, want %q", got, want)
	}
	if got := formatCandidates([]candidate{{value: "team-a"}, {value: "team-b"}, {value: "istio-system"}}, "team-"); !reflect.DeepEqual(got, []string{"team-a", "team-b"}) {
		t.Errorf("prefix filter = %q", got)
	}
	if got := formatCandidates(nil, "x"); got != nil {
		t.Errorf("no candidates = %q, want nil", got)
	}
}

func TestCompleteWithFailsSilently(t *testing.T) {
	comps, dir := completeWith(func() ([]candidate, error) {
		return []candidate{{value: "partial"}}, errors.New("dial tcp 127.0.0.1:6443: connect: connection refused")
	}, "")
	if comps != nil || dir != cobra.ShellCompDirectiveNoFileComp {
		t.Errorf("on error: %q, %v; want no completions and NoFileComp", comps, dir)
	}
	comps, dir = completeWith(func() ([]candidate, error) { return []candidate{{value: "ok"}}, nil }, "o")
	if !reflect.DeepEqual(comps, []string{"ok"}) || dir != cobra.ShellCompDirectiveNoFileComp {
		t.Errorf("on success: %q, %v", comps, dir)
	}
}

func TestHostCandidates(t *testing.T) {
	got := formatCandidates(hostCandidates([]*networkingv1.ServiceEntry{
		se("team-b", "api", []string{"api.example.com", "*.example.com"}),
		se("team-a", "api", []string{"API.example.com."}),
		se("team-a", "api", []string{"api.example.com"}), // same entry seen twice (files)
		nil,
		se("default", "empty", nil),
	}), "")
	want := []string{
		"*.example.com\tServiceEntry team-b/api",
		"api.example.com\tServiceEntry team-a/api (+1 more)",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("hostCandidates = %q, want %q", got, want)
	}
}

func TestPortCandidates(t *testing.T) {
	ses := []*networkingv1.ServiceEntry{
		se("a", "tls", []string{"api.example.com"}, &networkingapi.ServicePort{Number: 443, Name: "tls", Protocol: "TLS"}),
		se("b", "http", []string{"api.example.com", "other.org"}, &networkingapi.ServicePort{Number: 80, Name: "http", Protocol: "HTTP"}),
		se("c", "other", []string{"other.org"}, &networkingapi.ServicePort{Number: 8080, Name: "http-alt", Protocol: "HTTP"}),
	}
	got := formatCandidates(portCandidates(ses, "api.example.com"), "")
	want := []string{"443\tTLS tls", "80\tHTTP http"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("portCandidates = %q, want %q", got, want)
	}
	if got := portCandidates(ses, "nowhere.example"); got != nil {
		t.Errorf("unknown host: %v", got)
	}
}

func TestGatewayCandidates(t *testing.T) {
	got := formatCandidates(gatewayCandidates([]checks.Workload{
		{Kind: "Deployment", Namespace: "istio-system", Name: "istio-egressgateway"},
		{Kind: "Pod", Namespace: "egress", Name: "gw-0"},
		{Kind: "Deployment", Namespace: "istio-system", Name: "assumed", Synthetic: true},
	}), "istio-system/")
	want := []string{
		"istio-system/assumed\tgateway Deployment (assumed: no gateway workload in the manifests)",
		"istio-system/istio-egressgateway\tgateway Deployment",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("gatewayCandidates = %q, want %q", got, want)
	}
}

func TestNamespaceCandidates(t *testing.T) {
	snap := snapshot.NewEmpty("test", "istio-system", "")
	snap.Namespaces = []*corev1.Namespace{{ObjectMeta: metav1.ObjectMeta{Name: "default"}}}
	snap.ServiceEntries = []*networkingv1.ServiceEntry{se("team-a", "x", nil)}
	snap.Deployments = []*appsv1.Deployment{{ObjectMeta: metav1.ObjectMeta{Namespace: "istio-system", Name: "gw"}}}
	got := formatCandidates(namespaceCandidates(snap), "")
	want := []string{"default", "istio-system", "team-a"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("namespaceCandidates = %q, want %q", got, want)
	}
}

// TestCompletionRegistered checks the wiring only (no completion function is called).
func TestCompletionRegistered(t *testing.T) {
	root := NewRootCommand(genericiooptions.NewTestIOStreamsDiscard())
	if root.CompletionOptions.DisableDefaultCmd {
		t.Error("cobra's completion command is disabled")
	}
	for _, f := range []string{"namespace", "istio-namespace", "output", "context", "filter-gateway-clusters"} {
		if _, ok := root.GetFlagCompletionFunc(f); !ok {
			t.Errorf("root flag --%s has no completion", f)
		}
	}
	want := map[string][]string{"why-missing": {"gateway", "port", "from", "pod"}, "visibility": {"as-namespace"}, "export-audit": {"fail-on"},
		"explain-listener": {"host", "from", "pod", "gateway", "call", "fail-on"}, "proxy-config": {"from", "pod", "gateway"}}
	for name, flags := range want {
		cmd, _, err := root.Find([]string{name})
		if err != nil || cmd.Name() != name {
			t.Fatalf("no %s command: %v", name, err)
		}
		for _, f := range flags {
			if _, ok := cmd.GetFlagCompletionFunc(f); !ok {
				t.Errorf("%s --%s has no completion", name, f)
			}
		}
	}
	for _, name := range []string{"why-missing", "visibility", "explain-listener"} {
		if cmd, _, _ := root.Find([]string{name}); cmd.ValidArgsFunction == nil {
			t.Errorf("%s HOST has no completion", name)
		}
	}
}

func TestHostPortAndPodCandidates(t *testing.T) {
	ses := []*networkingv1.ServiceEntry{
		se("team-a", "api", []string{"api.example.com"}, &networkingapi.ServicePort{Number: 443, Protocol: "TLS", Name: "tls"}, &networkingapi.ServicePort{Number: 80, Protocol: "HTTP"}),
	}
	got := formatCandidates(hostPortCandidates(ses), "api.example.com:4")
	if want := []string{"api.example.com:443\tServiceEntry team-a/api TLS"}; !reflect.DeepEqual(got, want) {
		t.Errorf("hostPortCandidates = %q, want %q", got, want)
	}
	pods := []*corev1.Pod{{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "client-1"}, Status: corev1.PodStatus{Phase: corev1.PodRunning}}}
	if got := formatCandidates(podCandidates(pods), "team-a/"); !reflect.DeepEqual(got, []string{"team-a/client-1\tpod, running"}) {
		t.Errorf("podCandidates = %q", got)
	}
}

// TestCompletionFromFiles: the hidden __complete command offers HOST:PORT for explain-listener
// and NAMESPACE/NAME for --pod from -f manifests.
func TestCompletionFromFiles(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "m.yaml")
	if err := os.WriteFile(f, []byte(mesh+"---\napiVersion: v1\nkind: Pod\nmetadata: {name: client-1, namespace: team-a}\nspec: {containers: [{name: app, image: app}]}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, out, _ := run(t, "", "__complete", "explain-listener", "-f", f, "http"); !strings.Contains(out, "httpbin.org:80\t") {
		t.Errorf("explain-listener HOST:PORT completion:\n%s", out)
	}
	for _, cmd := range []string{"why-missing", "explain-listener", "proxy-config"} {
		args := []string{"__complete", cmd, "-f", f, "--pod", "team"}
		if cmd == "why-missing" {
			args = []string{"__complete", cmd, "httpbin.org", "-f", f, "--pod", "team"}
		}
		if _, out, _ := run(t, "", args...); !strings.Contains(out, "team-a/client-1") {
			t.Errorf("%s --pod completion:\n%s", cmd, out)
		}
	}
}
