package checks

import (
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
