package checks

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestSidecarOriginationCredential: a DestinationRule with a workloadSelector makes the selected
// sidecars originate TLS with a credentialName, read in the sidecar's own namespace: without the
// Secret there the handshake fails (TLS_CREDENTIAL_NOT_FOUND, the rule blamed, the copy in
// another namespace named); with it the call works; with no Secret in the input at all it is a
// warning (TLS_CREDENTIAL_NOT_CHECKED).
func TestSidecarOriginationCredential(t *testing.T) {
	docs := []string{
		"apiVersion: v1\nkind: Namespace\nmetadata: {name: pay, labels: {istio-injection: enabled}}",
		"apiVersion: v1\nkind: Pod\nmetadata: {name: settle-0, namespace: pay, labels: {app: settle}}\nspec: {containers: [{name: app, image: app}]}",
		"apiVersion: networking.istio.io/v1\nkind: ServiceEntry\nmetadata: {name: bank, namespace: pay}\nspec:\n  hosts: [api.bank.example]\n  location: MESH_EXTERNAL\n  resolution: DNS\n  ports: [{number: 80, name: http, protocol: HTTP, targetPort: 443}]",
		"apiVersion: networking.istio.io/v1\nkind: DestinationRule\nmetadata: {name: bank-mtls, namespace: pay}\nspec:\n  host: api.bank.example\n  workloadSelector: {matchLabels: {app: settle}}\n  trafficPolicy:\n    portLevelSettings:\n    - port: {number: 80}\n      tls: {mode: MUTUAL, credentialName: bank-client}",
	}
	for _, tc := range []struct {
		name   string
		secret string
		cause  string
		warn   string
	}{
		{"secret elsewhere", "apiVersion: v1\nkind: Secret\nmetadata: {name: bank-client, namespace: istio-system}", PathCredentialMissing, ""},
		{"secret in the pod's namespace", "apiVersion: v1\nkind: Secret\nmetadata: {name: bank-client, namespace: pay}", PathOK, ""},
		{"no secret read", "", PathOK, PathCredentialUnchecked},
	} {
		in := slices.Clone(docs)
		if tc.secret != "" {
			in = append(in, tc.secret)
		}
		snap := loadYAML(t, in...)
		p, err := TracePath(snap, PathOptions{Host: "api.bank.example", Port: 80, Pod: "pay/settle-0"})
		if err != nil {
			t.Fatal(err)
		}
		if p.Cause != tc.cause {
			t.Errorf("%s: cause %s, want %s: %s", tc.name, p.Cause, tc.cause, p.Message)
		}
		if tc.cause == PathCredentialMissing && p.Culprit != "DestinationRule pay/bank-mtls" {
			t.Errorf("%s: culprit %q", tc.name, p.Culprit)
		}
		if got := slices.ContainsFunc(p.Warnings, func(f Finding) bool { return f.Code == PathCredentialUnchecked }); got != (tc.warn != "") {
			t.Errorf("%s: %s warning %v, want %v", tc.name, PathCredentialUnchecked, got, tc.warn != "")
		}
	}
}

// TestPeerAuthenticationTurnsAutoMTLSOff: gateway pods labelled security.istio.io/tlsMode=istio
// get auto mTLS from sidecars (TLS_MISMATCH_BETWEEN_HOPS against a plain HTTP server), unless a
// namespace-wide PeerAuthentication of mode DISABLE covers the gateway's namespace or, in the
// root namespace, the mesh (blind audit 93 c03); a namespace's UNSET policy inherits the mesh's,
// and a policy with a selector does not count.
func TestPeerAuthenticationTurnsAutoMTLSOff(t *testing.T) {
	base, err := os.ReadFile(filepath.Join("testdata", "paths", "gateway-pods-labelled-tlsmode-auto-mtls-to-plain-server.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	pa := func(ns, name, spec string) string {
		return "apiVersion: security.istio.io/v1\nkind: PeerAuthentication\nmetadata: {name: " + name + ", namespace: " + ns + "}\nspec: " + spec
	}
	for _, tc := range []struct {
		name  string
		pas   []string
		cause string
	}{
		{"none", nil, PathTLSMismatch},
		{"mesh-wide DISABLE", []string{pa("istio-system", "default", "{mtls: {mode: DISABLE}}")}, PathOK},
		{"gateway namespace DISABLE", []string{pa("egress", "default", "{mtls: {mode: DISABLE}}")}, PathOK},
		{"namespace UNSET, mesh DISABLE", []string{pa("egress", "default", "{mtls: {mode: UNSET}}"), pa("istio-system", "default", "{mtls: {mode: DISABLE}}")}, PathOK},
		{"namespace PERMISSIVE over mesh DISABLE", []string{pa("egress", "default", "{mtls: {mode: PERMISSIVE}}"), pa("istio-system", "default", "{mtls: {mode: DISABLE}}")}, PathTLSMismatch},
		{"selector DISABLE", []string{pa("egress", "gw", "{selector: {matchLabels: {istio: reports-gw}}, mtls: {mode: DISABLE}}")}, PathTLSMismatch},
	} {
		docs := []string{string(base)}
		docs = append(docs, tc.pas...)
		snap := loadYAML(t, append([]string{baseFixture(t)}, docs...)...)
		p, err := TracePath(snap, PathOptions{Host: "reports.metrics.example", Port: 80, From: "analytics"})
		if err != nil {
			t.Fatal(err)
		}
		if p.Cause != tc.cause {
			t.Errorf("%s: cause %s, want %s: %s", tc.name, p.Cause, tc.cause, p.Message)
		}
	}
}

// baseFixture is the path fixtures' _base.yaml.
func baseFixture(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "paths", "_base.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
