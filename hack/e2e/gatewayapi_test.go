package e2e

import (
	"path/filepath"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
)

const gatewayAPIExample = "testdata/gateway-api-http-egress.yaml"

// TestGatewayAPINotModelled: a host routed by Kubernetes Gateway API objects (stored by the real
// API server with the Gateway API CRDs) gets no verdict, live and offline, and preflight fails on
// those objects; a user who may not list them gets the verdict with a note saying so.
func TestGatewayAPINotModelled(t *testing.T) {
	pluginBinary(t)
	example, err := filepath.Abs(gatewayAPIExample)
	if err != nil {
		t.Fatal(err)
	}
	applyFiles(t, example)
	for _, src := range [][]string{{"--kubeconfig", env.kubeconfig}, {"-f", example}} {
		// Live, no pod is labelled istio=egressgateway (Istio deploys a Gateway API gateway as
		// <name>-istio): a one-line error naming the routes. Offline, the assumed gateway gets
		// no verdict.
		r := egress(t, append([]string{"why-missing", "edition.cnn.com"}, src...)...)
		out := r.stdout
		if src[0] == "--kubeconfig" {
			out = r.stderr
		}
		if r.code != 2 || !strings.Contains(out, "edition.cnn.com is routed by Kubernetes Gateway API resources") ||
			!strings.Contains(out, "HTTPRoute default/forward-cnn-from-egress-gateway") {
			t.Errorf("why-missing %v: want exit 2 and an answer naming the routes\n%s", src, r)
		}
		if src[0] == "-f" && !strings.HasPrefix(r.stdout, "UNKNOWN: no verdict for edition.cnn.com on gateway") {
			t.Errorf("why-missing %v: the short answer is not UNKNOWN\n%s", src, r)
		}
		r = egress(t, append([]string{"why-missing", "edition.cnn.com", "--from", "default"}, src...)...)
		if r.code != 2 || !strings.Contains(r.stdout, "UNKNOWN   cause INPUT_UNKNOWN") || !strings.Contains(r.stdout, "Gateway API") {
			t.Errorf("why-missing --from %v: want exit 2 and an UNKNOWN path\n%s", src, r)
		}
	}
	r := egress(t, "preflight", "--kubeconfig", env.kubeconfig)
	if r.code != 1 || !strings.Contains(r.stdout, "GATEWAY_API_NOT_MODELLED") || !strings.Contains(r.stdout, "HTTPRoute default/direct-cnn-to-egress-gateway") {
		t.Errorf("preflight: want exit 1 with GATEWAY_API_NOT_MODELLED\n%s", r)
	}
	r = egress(t, "preflight", "--offline", "-f", example)
	if r.code != 1 || !strings.Contains(r.stdout, "GATEWAY_API_NOT_MODELLED") {
		t.Errorf("preflight -f: want exit 1 with GATEWAY_API_NOT_MODELLED\n%s", r)
	}

	// A user without the Gateway API rule of deploy/clusterrole.yaml.
	read := []string{"get", "list", "watch"}
	kc := restrictedUser(t, "no-gateway-api", []rbacv1.PolicyRule{
		{APIGroups: []string{"", "apps", "networking.istio.io"}, Resources: []string{"*"}, Verbs: read},
	})
	r = egress(t, "why-missing", "edition.cnn.com", "--from", "default", "--kubeconfig", kc)
	if !strings.Contains(r.stdout, "Kubernetes Gateway API routes could not be read (forbidden to list") {
		t.Errorf("why-missing without Gateway API rights: no note saying so\n%s", r)
	}
}
