package rules

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// TestKubeRouteParentStatuses: the reason istiod writes in an HTTPRoute's status for a Gateway
// parentRef no listener accepts, with istiod's messages (conversion.go referenceAllowed):
// sectionName and port first (NoMatchingParent), then hostnames (NoMatchingListenerHostname,
// or NotAllowedByListeners when a hostname matches but the namespace is not allowed), then the
// route kind (NotAllowedByListeners); a parentRef is Accepted when any listener accepts it, and
// of several refusals the most telling is reported (conditions.go createRouteStatus). A parent
// that is not a Gateway of Istio's class is not found (istiod writes no status for it).
func TestKubeRouteParentStatuses(t *testing.T) {
	gw := mustYAML[gatewayv1.Gateway](t, `
metadata: {name: egw, namespace: egress}
spec:
  gatewayClassName: istio
  listeners:
  - {name: http, port: 80, protocol: HTTP, hostname: api.example.com, allowedRoutes: {namespaces: {from: Same}}}
  - {name: all, port: 8080, protocol: HTTP, allowedRoutes: {namespaces: {from: All}}}
  - {name: raw, port: 9000, protocol: TCP, allowedRoutes: {namespaces: {from: All}}}`)
	other := mustYAML[gatewayv1.Gateway](t, `
metadata: {name: envoy, namespace: egress}
spec:
  gatewayClassName: envoy-gateway
  listeners: [{name: http, port: 80, protocol: HTTP}]`)
	nss := []*corev1.Namespace{{ObjectMeta: metav1.ObjectMeta{Name: "egress"}}, {ObjectMeta: metav1.ObjectMeta{Name: "team-a"}}}
	in := KubeRouteInputs{Gateways: []*gatewayv1.Gateway{gw, other}, Namespaces: nss}
	for _, tc := range []struct {
		name, route     string
		accepted, found bool
		reason, message string
	}{
		{"any listener accepts", `
metadata: {name: r, namespace: team-a}
spec: {parentRefs: [{name: egw, namespace: egress}], hostnames: [api.example.com]}`, true, true, "", ""},
		{"sectionName names no listener", `
metadata: {name: r, namespace: team-a}
spec: {parentRefs: [{name: egw, namespace: egress, sectionName: https}]}`, false, true, KubeRouteNoMatchingParent, `sectionName "https" not found; sectionName "https" not found; sectionName "https" not found`},
		{"port names no listener", `
metadata: {name: r, namespace: egress}
spec: {parentRefs: [{name: egw, port: 443}]}`, false, true, KubeRouteNoMatchingParent, "port 443 not found; port 443 not found; port 443 not found"},
		{"hostname matches, namespace not allowed", `
metadata: {name: r, namespace: team-a}
spec: {parentRefs: [{name: egw, namespace: egress, sectionName: http}], hostnames: [api.example.com]}`, false, true, KubeRouteNotAllowedByListeners, `hostnames matched parent hostname "api.example.com", but namespace "team-a" is not allowed by the parent`},
		{"no hostname matches", `
metadata: {name: r, namespace: egress}
spec: {parentRefs: [{name: egw, sectionName: http}], hostnames: [other.example.com]}`, false, true, KubeRouteNoMatchingListenerHostname, `no hostnames matched parent hostname "api.example.com"`},
		{"kind not allowed on a TCP listener", `
metadata: {name: r, namespace: team-a}
spec: {parentRefs: [{name: egw, namespace: egress, sectionName: raw}]}`, false, true, KubeRouteNotAllowedByListeners, "kind gateway.networking.k8s.io/v1/HTTPRoute is not allowed"},
		{"a Gateway of another class", `
metadata: {name: r, namespace: egress}
spec: {parentRefs: [{name: envoy}]}`, false, false, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sts := KubeRouteParentStatuses(KubeRoutes([]*gatewayv1.HTTPRoute{mustYAML[gatewayv1.HTTPRoute](t, tc.route)}, nil, nil, nil), in)
			if len(sts) != 1 {
				t.Fatalf("%d statuses, want 1: %+v", len(sts), sts)
			}
			st := sts[0]
			if st.Accepted != tc.accepted || st.Found != tc.found || st.Reason != tc.reason || st.Message != tc.message {
				t.Errorf("got accepted=%v found=%v %s %q; want accepted=%v found=%v %s %q", st.Accepted, st.Found, st.Reason, st.Message, tc.accepted, tc.found, tc.reason, tc.message)
			}
		})
	}
}

// TestKubeRouteParentStatusesL4: the same for TLSRoutes and TCPRoutes: a TLSRoute attaches to a
// TLS listener only, and its hostnames must match the listener's; a TCPRoute attaches to a TCP
// listener or a TLS one that terminates, never to a passthrough one.
func TestKubeRouteParentStatusesL4(t *testing.T) {
	gw := mustYAML[gatewayv1.Gateway](t, `
metadata: {name: egw, namespace: egress}
spec:
  gatewayClassName: istio
  listeners:
  - {name: pass, port: 443, protocol: TLS, hostname: api.example.com, tls: {mode: Passthrough}}
  - {name: term, port: 8443, protocol: TLS, tls: {mode: Terminate, certificateRefs: [{name: c}]}}
  - {name: raw, port: 9000, protocol: TCP, allowedRoutes: {namespaces: {from: All}}}`)
	in := KubeRouteInputs{Gateways: []*gatewayv1.Gateway{gw}, Namespaces: []*corev1.Namespace{{ObjectMeta: metav1.ObjectMeta{Name: "egress"}}, {ObjectMeta: metav1.ObjectMeta{Name: "team-a"}}}}
	for _, tc := range []struct {
		name            string
		tls             *gatewayv1.TLSRoute
		tcp             *gatewayv1.TCPRoute
		accepted        bool
		reason, message string
	}{
		{"TLSRoute on the passthrough listener", mustYAML[gatewayv1.TLSRoute](t, `
metadata: {name: r, namespace: egress}
spec: {parentRefs: [{name: egw, sectionName: pass}], hostnames: [api.example.com]}`), nil, true, "", ""},
		{"TLSRoute for another host", mustYAML[gatewayv1.TLSRoute](t, `
metadata: {name: r, namespace: egress}
spec: {parentRefs: [{name: egw, sectionName: pass}], hostnames: [api.example.org]}`), nil, false, KubeRouteNoMatchingListenerHostname, `no hostnames matched parent hostname "api.example.com"`},
		{"TLSRoute on the TCP listener", mustYAML[gatewayv1.TLSRoute](t, `
metadata: {name: r, namespace: team-a}
spec: {parentRefs: [{name: egw, namespace: egress, sectionName: raw}], hostnames: [api.example.com]}`), nil, false, KubeRouteNotAllowedByListeners, "kind gateway.networking.k8s.io/v1/TLSRoute is not allowed"},
		{"TCPRoute on the terminating TLS listener", nil, mustYAML[gatewayv1.TCPRoute](t, `
metadata: {name: r, namespace: egress}
spec: {parentRefs: [{name: egw, sectionName: term}]}`), true, "", ""},
		{"TCPRoute on the passthrough listener", nil, mustYAML[gatewayv1.TCPRoute](t, `
metadata: {name: r, namespace: egress}
spec: {parentRefs: [{name: egw, port: 443}]}`), false, KubeRouteNotAllowedByListeners, "kind gateway.networking.k8s.io/v1/TCPRoute is not allowed"},
		{"TCPRoute from a namespace the TLS listener does not allow", nil, mustYAML[gatewayv1.TCPRoute](t, `
metadata: {name: r, namespace: team-a}
spec: {parentRefs: [{name: egw, namespace: egress, sectionName: term}]}`), false, KubeRouteNotAllowedByListeners, `hostnames matched parent hostname "", but namespace "team-a" is not allowed by the parent`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var routes []KubeRoute
			if tc.tls != nil {
				routes = KubeRoutes(nil, nil, []*gatewayv1.TLSRoute{tc.tls}, nil)
			} else {
				routes = KubeRoutes(nil, nil, nil, []*gatewayv1.TCPRoute{tc.tcp})
			}
			sts := KubeRouteParentStatuses(routes, in)
			if len(sts) != 1 {
				t.Fatalf("%d statuses, want 1: %+v", len(sts), sts)
			}
			st := sts[0]
			if st.Accepted != tc.accepted || !st.Found || st.Reason != tc.reason || st.Message != tc.message {
				t.Errorf("got accepted=%v found=%v %s %q; want accepted=%v %s %q", st.Accepted, st.Found, st.Reason, st.Message, tc.accepted, tc.reason, tc.message)
			}
		})
	}
}

// TestKubeCRDIgnored: istiod ignores a route kind whose CRD bundle version is missing, not a
// version, or older than its minimum (pre-releases rounded up); kinds without a minimum never.
func TestKubeCRDIgnored(t *testing.T) {
	for _, tc := range []struct {
		kind, version string
		annotated     bool
		ignored       bool
	}{
		{"TLSRoute", "v1.5.0", true, false},
		{"TLSRoute", "v1.6.0", true, false},
		{"TLSRoute", "1.5.1", true, false},
		{"TLSRoute", "v1.5.0-rc.1", true, false},
		{"TLSRoute", "v1.4.1", true, true},
		{"TLSRoute", "v1.2", true, true},
		{"TLSRoute", "", false, true},
		{"TLSRoute", "latest", true, true},
		{"TCPRoute", "v1.5.0", true, true},
		{"TCPRoute", "v1.6.0", true, false},
		{"TCPRoute", "v2.0.0", true, false},
		{"GRPCRoute", "v1.0.0", true, true},
		{"GRPCRoute", "v1.1.0", true, false},
		{"HTTPRoute", "", false, false},
		{"HTTPRoute", "v0.5.0", true, false},
	} {
		ign, why := KubeCRDIgnored(tc.kind, tc.version, tc.annotated)
		if ign != tc.ignored || (ign && why == "") {
			t.Errorf("%s %q (annotated %v): ignored=%v (%s), want %v", tc.kind, tc.version, tc.annotated, ign, why, tc.ignored)
		}
	}
}
