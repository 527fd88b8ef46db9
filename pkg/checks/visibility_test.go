package checks

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// Seed 002's examples: defaultVisibility NAMESPACE with istio-system PUBLIC; a trusted-label
// policy; applyToSidecars narrowing.
func TestVisibilitySeedExamples(t *testing.T) {
	mesh := func(body string) string {
		return "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: istio, namespace: istio-system}\ndata:\n  mesh: |\n" + body
	}
	cfg := mesh(`    serviceEntryVisibility:
      defaultVisibility: NAMESPACE
      applyToSidecars: true
      policies:
      - visibility: PUBLIC
        matchingRules:
        - namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: istio-system}}
      - visibility: PUBLIC
        matchingRules:
        - namespaceSelector: {matchLabels: {trusted: "true"}}
`)
	sys := strings.Replace(strings.Replace(se, "EXPORT", "", 1), "name: api, namespace: team-a", "name: shared, namespace: istio-system", 1)
	teamA := strings.Replace(se, "EXPORT", "", 1)
	trustedNs := "apiVersion: v1\nkind: Namespace\nmetadata: {name: team-t, labels: {trusted: \"true\"}}\n"
	teamT := strings.Replace(strings.Replace(se, "EXPORT", "", 1), "name: api, namespace: team-a", "name: t, namespace: team-t", 1)
	r := Visibility(snap(t, "false", "false", cfg, sys, teamA, trustedNs, teamT), VisibilityOptions{AsNamespace: "team-b"})
	if !r.Configured || r.DefaultVisibility != "NAMESPACE" || !r.ApplyToSidecars {
		t.Fatalf("report header: %+v", r)
	}
	got := map[string]VisibilityEntry{}
	for _, e := range r.Entries {
		got[e.Namespace+"/"+e.Name] = e
	}
	if e := got["istio-system/shared"]; e.Visibility != "PUBLIC" || e.Policy != "policies[0]" || !*e.SidecarSees || !*e.AmbientSees {
		t.Errorf("istio-system entry: %+v", e)
	}
	if e := got["team-t/t"]; e.Visibility != "PUBLIC" || e.Policy != "policies[1]" {
		t.Errorf("trusted entry: %+v", e)
	}
	e := got["team-a/api"]
	if e.Visibility != "NAMESPACE" || e.Policy != "defaultVisibility" || *e.SidecarSees || *e.AmbientSees || e.Sidecars != "capped to its own namespace" {
		t.Errorf("team-a entry: %+v", e)
	}
	// The same host is also declared PUBLIC in istio-system: outsiders get that one.
	if !strings.Contains(e.Instead, "ServiceEntry istio-system/shared") {
		t.Errorf("instead = %q", e.Instead)
	}
	// Without applyToSidecars, sidecars keep exportTo only; ambient still honours it.
	r = Visibility(snap(t, "false", "false", strings.Replace(cfg, "applyToSidecars: true", "applyToSidecars: false", 1), teamA), VisibilityOptions{AsNamespace: "team-b"})
	if e := r.Entries[0]; !*e.SidecarSees || *e.AmbientSees || !strings.HasPrefix(e.Sidecars, "unchanged") {
		t.Errorf("no applyToSidecars: %+v", e)
	}
	// Not configured: nothing changes.
	r = Visibility(snap(t, "false", "false", teamA), VisibilityOptions{})
	if r.Configured || r.Entries[0].Policy != "not configured" || r.Entries[0].Visibility != "PUBLIC" {
		t.Errorf("unconfigured: %+v", r.Entries[0])
	}
}

func TestVisibilityWaypointAndNone(t *testing.T) {
	cfg := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: istio, namespace: istio-system}\ndata:\n  mesh: |\n    serviceEntryVisibility:\n      defaultVisibility: NAMESPACE\n"
	bound := strings.Replace(strings.Replace(se, "EXPORT", "", 1), "name: api, namespace: team-a", "name: api, namespace: team-a, labels: {istio.io/use-waypoint: wp, istio.io/use-waypoint-namespace: shared}", 1)
	// The waypoint admits team-a (allowedRoutes All) and takes service traffic: the NAMESPACE
	// visibility alone refuses the binding (istiod ambient/services_test.go TestServiceEntryServices
	// "NAMESPACE visibility refuses cross-namespace waypoint binding").
	wp := "apiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: wp, namespace: shared}\nspec:\n  gatewayClassName: istio-waypoint\n  listeners:\n  - {name: mesh, port: 15008, protocol: HBONE, allowedRoutes: {namespaces: {from: All}}}\nstatus:\n  addresses: [{type: Hostname, value: wp.shared.svc.cluster.local}]\n"
	r := Visibility(snap(t, "false", "false", cfg, bound, wp), VisibilityOptions{})
	if fs := r.Entries[0].Findings; len(fs) != 1 || fs[0].Code != VisWaypointForbidden || !strings.Contains(fs[0].Message, ReasonCrossNamespaceWP) {
		t.Errorf("findings = %+v", fs)
	}
	// Without the Gateway, istiod stops earlier: the waypoint is not ready (WaypointIsNotReady).
	r = Visibility(snap(t, "false", "false", cfg, bound), VisibilityOptions{})
	if fs := r.Entries[0].Findings; len(fs) != 1 || fs[0].Code != WaypointNotFound || !strings.Contains(fs[0].Message, "WaypointIsNotReady") {
		t.Errorf("findings without the waypoint = %+v", fs)
	}
	// PUBLIC: the same cross-namespace binding is accepted (no finding).
	r = Visibility(snap(t, "false", "false", strings.Replace(cfg, "NAMESPACE", "PUBLIC", 1), bound, wp), VisibilityOptions{})
	if fs := r.Entries[0].Findings; len(fs) != 0 {
		t.Errorf("PUBLIC entry bound across namespaces: %+v", fs)
	}
	none := strings.Replace(cfg, "NAMESPACE", "NONE", 1) + "      applyToSidecars: true\n"
	r = Visibility(snap(t, "false", "false", none, strings.Replace(se, "EXPORT", "", 1)), VisibilityOptions{})
	if e := r.Entries[0]; e.Visibility != "NONE" || !strings.HasPrefix(e.Ambient, "not published") || len(e.Findings) != 1 || e.Findings[0].Code != VisHiddenEverywhere {
		t.Errorf("NONE entry: %+v", e)
	}
}

func TestVisibilityStatusDriftAndPolicyWithoutRules(t *testing.T) {
	cfg := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: istio, namespace: istio-system}\ndata:\n  mesh: |\n    serviceEntryVisibility:\n      defaultVisibility: PUBLIC\n      policies:\n      - visibility: NAMESPACE\n"
	withStatus := strings.Replace(se, "EXPORT", "", 1) + "status:\n  conditions:\n  - {type: istio.io/VisibilityApplied, status: \"True\", reason: Public}\n"
	r := Visibility(snap(t, "false", "false", cfg, withStatus), VisibilityOptions{})
	e := r.Entries[0]
	if e.Visibility != "NAMESPACE" || e.Status != "Public" || len(e.Findings) != 1 || e.Findings[0].Code != VisStatusDrift {
		t.Errorf("entry: %+v", e)
	}
	if len(r.Findings) != 1 || r.Findings[0].Code != VisPolicyMatchesAll {
		t.Errorf("mesh findings: %+v", r.Findings)
	}
}

func TestVisibilityOwnNamespaceVirtualServiceDestination(t *testing.T) {
	cfg := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: istio, namespace: istio-system}\ndata:\n  mesh: |\n    serviceEntryVisibility: {defaultVisibility: NONE, applyToSidecars: true}\n"
	vs := "apiVersion: networking.istio.io/v1\nkind: VirtualService\nmetadata: {name: api, namespace: team-a}\nspec:\n  hosts: [api.example.com]\n  http:\n  - route: [{destination: {host: api.example.com, port: {number: 80}}}]\n"
	r := Visibility(snap(t, "false", "false", cfg, strings.Replace(se, "EXPORT", "", 1), vs), VisibilityOptions{AsNamespace: "team-a"})
	if e := r.Entries[0]; !*e.SidecarSees || *e.AmbientSees {
		t.Errorf("own namespace with a VS destination: %+v", e)
	}
	r = Visibility(snap(t, "false", "false", cfg, strings.Replace(se, "EXPORT", "", 1), vs), VisibilityOptions{AsNamespace: "team-b"})
	if e := r.Entries[0]; *e.SidecarSees {
		t.Errorf("other namespace: %+v", e)
	}
}

// A Sidecar whose egress listeners each have a port keeps only those ports of the entries it
// imports (istiod sidecar.go serviceMatchingListenerPort): visibility says which ports, or
// hidden when the entry declares none of them (checked against istiod by the conformance
// suite's path.sidecar dimension).
func TestVisibilitySidecarPortedListeners(t *testing.T) {
	sidecar := func(ports ...int) string {
		y := "apiVersion: networking.istio.io/v1\nkind: Sidecar\nmetadata: {name: default, namespace: team-b}\nspec:\n  egress:\n"
		for _, p := range ports {
			y += fmt.Sprintf("  - port: {number: %d, name: p%d, protocol: TCP}\n    hosts: [\"*/*\"]\n", p, p)
		}
		return y
	}
	entry := strings.Replace(se, "EXPORT", "", 1)
	for _, c := range []struct {
		ports []int
		sees  bool
		kept  []uint32
	}{
		{[]int{80}, true, []uint32{80}},
		{[]int{80, 443}, true, nil},
		{[]int{5432}, false, nil},
	} {
		r := Visibility(snap(t, "false", "false", entry, sidecar(c.ports...)), VisibilityOptions{AsNamespace: "team-b"})
		e := r.Entries[0]
		if *e.SidecarSees != c.sees || !slices.Equal(e.SidecarPorts, c.kept) {
			t.Errorf("listener ports %v: sees %v ports %v, want %v %v", c.ports, *e.SidecarSees, e.SidecarPorts, c.sees, c.kept)
		}
		hidden := slices.ContainsFunc(e.Findings, func(f Finding) bool { return f.Code == VisNotImported })
		if hidden == c.sees {
			t.Errorf("listener ports %v: NOT_IMPORTED finding %v with sees %v: %+v", c.ports, hidden, c.sees, e.Findings)
		}
	}
}
