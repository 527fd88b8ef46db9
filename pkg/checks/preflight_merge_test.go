package checks

import "testing"

// TestMergePathAndGateway: the path's and the gateway verdict's copy of one fault (same code,
// resource and field, the same host:port) become one finding with both contexts; the same code
// for another call, or from two paths, stays apart.
func TestMergePathAndGateway(t *testing.T) {
	res := ResourceRef{Kind: "DestinationRule", Namespace: "payments", Name: "keystore-tls"}
	f := func(ctx ...string) PreflightFinding {
		return PreflightFinding{ID: "EGR0309", Code: ListenerDoubleTLS, Resource: res, Field: "spec.trafficPolicy.tls", Message: ctx[0], Contexts: ctx}
	}
	in := []PreflightFinding{
		f("path from sidecar in payments, TLS vault.keystore.test:443"),
		f("gateway gw-tls/egw-sec, vault.keystore.test:443"),
		f("path from sidecar in payments, TLS other.keystore.test:443"),
		f("path from sidecar in billing, TLS vault.keystore.test:443"),
	}
	out := mergePathAndGateway(in)
	if len(out) != 3 {
		t.Fatalf("%d findings, want 3: %+v", len(out), out)
	}
	if got := out[0].Contexts; len(got) != 2 || got[1] != "gateway gw-tls/egw-sec, vault.keystore.test:443" {
		t.Errorf("merged contexts %q", got)
	}
	if out[1].Contexts[0] != in[2].Contexts[0] || out[2].Contexts[0] != in[3].Contexts[0] {
		t.Errorf("other calls merged: %+v", out[1:])
	}
}
