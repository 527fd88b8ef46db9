package checks

import (
	"slices"
	"strings"
	"testing"
)

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

// TestMergeSameFault: a ServiceEntry hidden from the gateway's namespace is one finding in
// preflight, not one from the gateway's verdict (NOT_EXPORTED_TO_GATEWAY_NAMESPACE) and another
// from export-audit (SE_NOT_EXPORTED_TO_GATEWAY_NAMESPACE): the second is folded into the first,
// which lists it, and a suppression of either code suppresses it.
func TestMergeSameFault(t *testing.T) {
	res := Preflight(loadPreflight(t, "control.yaml", "release.yaml"))
	var merged *PreflightFinding
	for i, f := range res.Findings {
		switch f.Code {
		case AuditSENotExportedToGateway:
			t.Errorf("export-audit's copy of the fault is still listed: %+v", f)
		case CauseNotExported:
			merged = &res.Findings[i]
		}
	}
	if merged == nil {
		t.Fatalf("no %s finding: %+v", CauseNotExported, res.Findings)
	}
	alias := "EGR0201 " + AuditSENotExportedToGateway
	if !slices.Contains(merged.AlsoReportedAs, alias) {
		t.Errorf("alsoReportedAs %q, want %q", merged.AlsoReportedAs, alias)
	}
	if !slices.ContainsFunc(merged.Contexts, func(c string) bool { return strings.HasPrefix(c, "impact: ") }) {
		t.Errorf("export-audit's context not kept: %q", merged.Contexts)
	}
	for _, code := range []string{"EGR0201", AuditSENotExportedToGateway, "EGR0104"} {
		if !(Suppression{Code: code, Resource: "*"}).Matches(*merged) {
			t.Errorf("suppression %s does not match the merged finding", code)
		}
	}
	// Without the gateway's copy the export-audit finding stays.
	in := []PreflightFinding{{ID: "EGR0201", Code: AuditSENotExportedToGateway, Resource: merged.Resource}}
	if out := mergeSameFault(in); len(out) != 1 || out[0].Code != AuditSENotExportedToGateway {
		t.Errorf("lone export-audit finding: %+v", out)
	}
}

// A gateway verdict's PORT_NOT_DECLARED on the entry for host:8080 is the same fault as the
// ROUTE_CLUSTER_ABSENT of the VirtualService sending the host to that port on that gateway:
// folded into it; on another gateway, or for another cluster, it stays.
func TestMergeRouteCaused(t *testing.T) {
	entry := PreflightFinding{ID: "EGR0103", Code: CausePortNotDeclared, Resource: ResourceRef{Kind: "ServiceEntry", Namespace: "team-a", Name: "geo"},
		Contexts: []string{"gateway istio-system/istio-egressgateway, api.geo.io:8080"}}
	route := PreflightFinding{ID: "EGR0322", Code: ListenerClusterAbsent, Resource: ResourceRef{Kind: "VirtualService", Namespace: "team-legacy", Name: "geo-old"},
		Message:  "VirtualService team-legacy/geo-old routes api.geo.io on gateway istio-system/istio-egressgateway to port 8080, ... so there is no outbound|8080||api.geo.io: requests get 503 NC at the gateway.",
		Contexts: []string{"gateway istio-system/istio-egressgateway, api.geo.io:80"}}
	out := mergeRouteCaused([]PreflightFinding{entry, route})
	if len(out) != 1 || out[0].Code != ListenerClusterAbsent || !slices.Contains(out[0].AlsoReportedAs, "EGR0103 "+CausePortNotDeclared) ||
		!slices.Contains(out[0].Contexts, entry.Contexts[0]) {
		t.Fatalf("folded: %+v", out)
	}
	other := entry
	other.Contexts = []string{"gateway egress/other-gateway, api.geo.io:8080"}
	if out := mergeRouteCaused([]PreflightFinding{other, route}); len(out) != 2 {
		t.Errorf("another gateway's verdict was folded: %+v", out)
	}
	port := entry
	port.Contexts = []string{"gateway istio-system/istio-egressgateway, api.geo.io:9090"}
	if out := mergeRouteCaused([]PreflightFinding{port, route}); len(out) != 2 {
		t.Errorf("another port's verdict was folded: %+v", out)
	}
}

// TestMergeListenerAndPath: a chain fault seen on a client sidecar's listener and on a call
// traced from the same namespace to the same port is one finding with both contexts (blind audit
// 68 case 12); another port, or another namespace, stays a finding of its own.
func TestMergeListenerAndPath(t *testing.T) {
	f := func(ctx string) PreflightFinding {
		return PreflightFinding{ID: "EGR0303", Code: ListenerChainDropped, Resource: ResourceRef{Kind: "ServiceEntry", Namespace: "team-a", Name: "stats-db"}, Field: "spec.addresses", Contexts: []string{ctx}}
	}
	got := mergePathAndGateway([]PreflightFinding{f("sidecar in team-a, port 3306"), f("path from sidecar in team-a, TCP stats-db.example.org:3306")})
	if len(got) != 1 || len(got[0].Contexts) != 2 {
		t.Fatalf("listener and path of one call not merged: %+v", got)
	}
	for _, other := range []string{"path from sidecar in team-a, TCP stats-db.example.org:5432", "path from sidecar in team-b, TCP stats-db.example.org:3306"} {
		if got := mergePathAndGateway([]PreflightFinding{f("sidecar in team-a, port 3306"), f(other)}); len(got) != 2 {
			t.Errorf("%q merged with the listener of team-a port 3306: %+v", other, got)
		}
	}
}

// TestMergeFieldless: a why-missing verdict's copy of a route status disagreement (no field) is
// folded into preflight's own finding about the same route (with its field); a copy about
// another resource stays (blind audit 67, ST3 and C8).
func TestMergeFieldless(t *testing.T) {
	route := ResourceRef{Kind: "HTTPRoute", Namespace: "team-a", Name: "fwd"}
	fs := []PreflightFinding{
		{Code: PreflightRouteStatusDiffers, Check: CheckWhyMissing, Resource: route, Contexts: []string{"path from sidecar in team-a, HTTP api.example.com:80"}},
		{Code: PreflightRouteStatusDiffers, Check: CheckPreflight, Resource: route, Field: "status.parents", Contexts: []string{"HTTPRoute team-a/fwd"}},
		{Code: PreflightRouteStatusDiffers, Check: CheckWhyMissing, Resource: ResourceRef{Kind: "HTTPRoute", Namespace: "team-b", Name: "fwd"}},
	}
	got := mergeFieldless(fs)
	if len(got) != 2 || got[0].Field != "status.parents" || len(got[0].Contexts) != 2 || got[1].Resource.Namespace != "team-b" {
		t.Fatalf("%+v", got)
	}
}

// TestMergeCallKinds: one fault seen on the HTTP and the TLS call of one host and port is one
// finding with both contexts; on another port, or with another context, it stays apart.
func TestMergeCallKinds(t *testing.T) {
	res := ResourceRef{Kind: "ServiceEntry", Namespace: "team-a", Name: "slack"}
	mk := func(ctx ...string) PreflightFinding {
		f := NewPreflightFinding(PathDirect, CheckWhyMissing, res, "", "m", "f")
		f.Contexts = ctx
		return f
	}
	in := []PreflightFinding{
		mk("path from sidecar in team-a, HTTP hooks.example:443"),
		mk("path from sidecar in team-a, TLS hooks.example:443"),
		mk("path from sidecar in team-a, TLS hooks.example:8443"),
		mk("sidecar in team-a, hooks.example:443"),
	}
	out := mergeCallKinds(in)
	if len(out) != 3 || len(out[0].Contexts) != 2 || out[0].Contexts[1] != "path from sidecar in team-a, TLS hooks.example:443" {
		t.Errorf("got %d findings, first contexts %v", len(out), out[0].Contexts)
	}
	// the same call kind from other clients (another message, say another rule applied) stays
	// apart, and so does the same kind twice
	other := []PreflightFinding{mk("path from sidecar in team-a, HTTP hooks.example:80"), mk("path from sidecar in team-b, HTTP hooks.example:80"), mk("path from sidecar in team-a, HTTP hooks.example:80")}
	if out := mergeCallKinds(other); len(out) != 3 {
		t.Errorf("merged %d of 3 findings of one call kind", 3-len(out))
	}
}
