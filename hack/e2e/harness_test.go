package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/kubectl-egress/kubectl-egress/pkg/checks"
)

// cleanedKinds are deleted in every namespace (cluster-wide for cluster-scoped kinds) before
// each case. Add a kind here when a case file starts using it.
var cleanedKinds = []schema.GroupVersionResource{
	{Group: "apps", Version: "v1", Resource: "deployments"},
	{Group: "apps", Version: "v1", Resource: "statefulsets"},
	{Group: "apps", Version: "v1", Resource: "daemonsets"},
	{Group: "", Version: "v1", Resource: "pods"},
	{Group: "", Version: "v1", Resource: "services"},
	{Group: "", Version: "v1", Resource: "configmaps"},
	{Group: "", Version: "v1", Resource: "secrets"},
	{Group: "networking.istio.io", Version: "v1", Resource: "serviceentries"},
	{Group: "networking.istio.io", Version: "v1", Resource: "virtualservices"},
	{Group: "networking.istio.io", Version: "v1", Resource: "destinationrules"},
	{Group: "networking.istio.io", Version: "v1", Resource: "gateways"},
	{Group: "networking.istio.io", Version: "v1", Resource: "sidecars"},
	{Group: "networking.istio.io", Version: "v1", Resource: "workloadentries"},
	{Group: "networking.istio.io", Version: "v1", Resource: "workloadgroups"},
	{Group: "networking.istio.io", Version: "v1alpha3", Resource: "envoyfilters"},
	{Group: "security.istio.io", Version: "v1", Resource: "peerauthentications"},
	{Group: "gateway.networking.k8s.io", Version: "v1", Resource: "gateways"},
	{Group: "gateway.networking.k8s.io", Version: "v1", Resource: "httproutes"},
	{Group: "gateway.networking.k8s.io", Version: "v1", Resource: "grpcroutes"},
	{Group: "gateway.networking.k8s.io", Version: "v1", Resource: "tlsroutes"},
	{Group: "gateway.networking.k8s.io", Version: "v1", Resource: "tcproutes"},
	{Group: "gateway.networking.k8s.io", Version: "v1beta1", Resource: "referencegrants"},
	// cluster-scoped: a class one case declares must not decide another case's Gateways
	{Group: "gateway.networking.k8s.io", Version: "v1", Resource: "gatewayclasses"},
}

// keep reports objects the API server itself owns.
func keep(gvr schema.GroupVersionResource, ns, name string) bool {
	switch {
	case gvr.Resource == "configmaps" && name == "kube-root-ca.crt":
		return true
	case gvr.Resource == "services" && ns == "default" && name == "kubernetes":
		return true
	case gvr.Resource == "secrets" && systemNamespaces[ns]:
		return true
	}
	return false
}

var systemNamespaces = map[string]bool{
	"default": true, "kube-system": true, "kube-public": true, "kube-node-lease": true,
}

// cleanCluster deletes every object of cleanedKinds, resets the labels and annotations of the
// namespace default, and deletes every other non-system namespace. There is no namespace
// controller, so a deleted namespace is finalized by hand.
func cleanCluster(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for _, gvr := range cleanedKinds {
		list, err := env.dyn.Resource(gvr).Namespace(metav1.NamespaceAll).List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatalf("clean: list %s: %v", gvr.Resource, err)
		}
		zero := int64(0)
		for _, o := range list.Items {
			if keep(gvr, o.GetNamespace(), o.GetName()) {
				continue
			}
			err := env.dyn.Resource(gvr).Namespace(o.GetNamespace()).Delete(ctx, o.GetName(), metav1.DeleteOptions{GracePeriodSeconds: &zero})
			if err != nil && !apierrors.IsNotFound(err) {
				t.Fatalf("clean: delete %s %s/%s: %v", gvr.Resource, o.GetNamespace(), o.GetName(), err)
			}
		}
	}

	nss := env.clientset.CoreV1().Namespaces()
	def, err := nss.Get(ctx, "default", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("clean: get namespace default: %v", err)
	}
	def.Labels = map[string]string{corev1.LabelMetadataName: "default"}
	def.Annotations = nil
	if _, err := nss.Update(ctx, def, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("clean: reset namespace default: %v", err)
	}

	list, err := nss.List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatalf("clean: list namespaces: %v", err)
	}
	for _, ns := range list.Items {
		if systemNamespaces[ns.Name] {
			continue
		}
		if err := nss.Delete(ctx, ns.Name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			t.Fatalf("clean: delete namespace %s: %v", ns.Name, err)
		}
		cur, err := nss.Get(ctx, ns.Name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			continue
		} else if err != nil {
			t.Fatalf("clean: get namespace %s: %v", ns.Name, err)
		}
		cur.Spec.Finalizers = nil
		if _, err := nss.Finalize(ctx, cur, metav1.UpdateOptions{}); err != nil && !apierrors.IsNotFound(err) {
			t.Fatalf("clean: finalize namespace %s: %v", ns.Name, err)
		}
		if err := nss.Delete(ctx, ns.Name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			t.Fatalf("clean: delete namespace %s again: %v", ns.Name, err)
		}
		err = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
			_, err := nss.Get(ctx, ns.Name, metav1.GetOptions{})
			if apierrors.IsNotFound(err) {
				return true, nil
			}
			return false, err
		})
		if err != nil {
			t.Fatalf("clean: namespace %s still present: %v", ns.Name, err)
		}
	}
}

// casePath is the absolute path of a case file: the repository's fixture of that name, else
// the shared acceptance set's file.
func casePath(file string) string {
	if p := filepath.Join(env.casesDir, file); fileExists(p) {
		return p
	}
	if env.sharedDir != "" {
		return filepath.Join(env.sharedDir, file)
	}
	return filepath.Join(env.casesDir, file)
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// sharedCaseName: the naming of the shared acceptance set ("NN-*.yaml", "seed-S*.yaml"); the
// repository's fixtures are named by their kind only.
var sharedCaseName = regexp.MustCompile(`^([0-9]{2}-|seed-S)`)

// haveCase says whether a table row's case file can run: a repository fixture always (a row
// naming one that does not exist fails the test), a shared file when the shared acceptance set
// is present (it must then hold the file). Without the shared set its rows are left out, and
// the test says so; the rows for the repository's fixtures of the same kinds still run.
func haveCase(t *testing.T, file string) bool {
	t.Helper()
	if fileExists(filepath.Join(env.casesDir, file)) {
		return true
	}
	if !sharedCaseName.MatchString(file) {
		t.Fatalf("case %s: no such file in %s", file, env.casesDir)
	}
	if env.sharedDir == "" {
		t.Logf("shared acceptance case %s not run: no shared acceptance set", file)
		return false
	}
	if !fileExists(filepath.Join(env.sharedDir, file)) {
		t.Fatalf("case %s: no such file in %s", file, env.sharedDir)
	}
	return true
}

// caseFiles lists the case files every case-driven test runs: the repository's fixtures, then
// the shared acceptance set's files when it is present.
func caseFiles(t *testing.T) []string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(env.casesDir, "*.yaml"))
	if len(files) == 0 {
		t.Fatalf("no case files in %s", env.casesDir)
	}
	if env.sharedDir != "" {
		shared, _ := filepath.Glob(filepath.Join(env.sharedDir, "*.yaml"))
		files = append(files, shared...)
	}
	return files
}

// applyCase cleans the cluster and applies the case file with the real kubectl. kubectl applies
// a multi-document file in order and keeps going after an error, so a second pass covers
// objects that came before their Namespace.
func applyCase(t *testing.T, file string) {
	t.Helper()
	cleanCluster(t)
	args := []string{"apply", "-f", casePath(file), "--kubeconfig", env.kubeconfig}
	r := kubectl(t, args...)
	if r.code != 0 {
		t.Logf("kubectl apply, first pass: %s", r)
		if r = kubectl(t, args...); r.code != 0 {
			t.Fatalf("kubectl apply -f %s: %s", file, r)
		}
	}
}

// parseReport decodes the JSON report of `why-missing -o json`.
func parseReport(t *testing.T, r result) checks.Report {
	t.Helper()
	var rep checks.Report
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("stdout is not a JSON checks.Report: %v\n%s", err, r)
	}
	if rep.SchemaVersion != checks.SchemaVersion {
		t.Errorf("schemaVersion = %q, want %q", rep.SchemaVersion, checks.SchemaVersion)
	}
	return rep
}

// verdictFor returns the report's verdict for gateway "ns/name".
func verdictFor(t *testing.T, rep checks.Report, gateway string) checks.GatewayVerdict {
	t.Helper()
	var names []string
	for _, g := range rep.Gateways {
		if g.Gateway == gateway || g.Namespace+"/"+g.Name == gateway {
			return g
		}
		names = append(names, g.Gateway)
	}
	t.Fatalf("report has no verdict for gateway %s (has %v)", gateway, names)
	return checks.GatewayVerdict{}
}

// verdictSummary is what the live and the offline run must agree on.
func verdictSummary(v checks.GatewayVerdict) string {
	var b strings.Builder
	fmt.Fprintf(&b, "present=%v cause=%s culprit=%q clusters=[", v.Present, v.Cause, v.Culprit)
	for i, c := range v.Clusters {
		if i > 0 {
			b.WriteString(" ")
		}
		fmt.Fprintf(&b, "%s:%v", c.Name, c.Present)
	}
	b.WriteString("]")
	return b.String()
}
