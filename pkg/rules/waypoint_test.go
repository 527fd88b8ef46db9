package rules

import (
	"slices"
	"strings"
	"testing"
	"time"

	networking "istio.io/api/networking/v1alpha3"
	networkingv1 "istio.io/client-go/pkg/apis/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// waypointGW is a Gateway in ns whose HBONE listener admits from (nil: no allowedRoutes), with
// status addresses, and the given labels.
func waypointGW(ns, name string, from *gatewayv1.FromNamespaces, sel *metav1.LabelSelector, l map[string]string) *gatewayv1.Gateway {
	lis := gatewayv1.Listener{Name: "mesh", Port: 15008, Protocol: "HBONE"}
	if from != nil || sel != nil {
		lis.AllowedRoutes = &gatewayv1.AllowedRoutes{Namespaces: &gatewayv1.RouteNamespaces{From: from, Selector: sel}}
	}
	hostname := gatewayv1.HostnameAddressType
	return &gatewayv1.Gateway{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: l},
		Spec:       gatewayv1.GatewaySpec{GatewayClassName: WaypointClass, Listeners: []gatewayv1.Listener{lis}},
		Status:     gatewayv1.GatewayStatus{Addresses: []gatewayv1.GatewayStatusAddress{{Type: &hostname, Value: name + "." + ns + ".svc.cluster.local"}}},
	}
}

func fromNs(f gatewayv1.FromNamespaces) *gatewayv1.FromNamespaces { return &f }

func seWithLabels(ns string, l map[string]string) *networkingv1.ServiceEntry {
	return &networkingv1.ServiceEntry{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "se", Labels: l},
		Spec: networking.ServiceEntry{Hosts: []string{"a.example.com"}, Addresses: []string{"1.2.3.4"},
			Ports: []*networking.ServicePort{{Number: 80, Name: "http", Protocol: "HTTP"}}, Resolution: networking.ServiceEntry_STATIC},
	}
}

// TestBindWaypoint follows istiod's own expectations where they exist:
//   - ambient/services_test.go TestServiceEntryServices, cases "NAMESPACE visibility refuses
//     cross-namespace waypoint binding", "NAMESPACE visibility keeps same-namespace waypoint
//     binding", "PUBLIC visibility keeps cross-namespace waypoint binding" (waypoints of traffic
//     type all whose allowedRoutes select namespace ns by kubernetes.io/metadata.name);
//   - ambient/ambientindex_test.go TestAmbientIndex_WaypointForWorkloadTraffic: a Service binds
//     to a waypoint for "service" or "all" traffic, not to one for "workload" or "none";
//   - ambient/waypoints_test.go TestMakeAllowedRoutes: an HBONE listener without allowedRoutes
//     admits its own namespace only (Same);
//   - ambient/waypoints.go GetUseWaypoint ("none" opts out; the namespace label applies when the
//     object has none) and fetchWaypointForTarget (an absent waypoint: WaypointIsNotReady).
func TestBindWaypoint(t *testing.T) {
	nsMeta := &metav1.ObjectMeta{Name: "ns", Labels: map[string]string{"kubernetes.io/metadata.name": "ns"}}
	selNs := &metav1.LabelSelector{MatchLabels: map[string]string{"kubernetes.io/metadata.name": "ns"}}
	all := map[string]string{LabelWaypointFor: WaypointForAll}
	sameNsWP := waypointGW("ns", "waypoint", fromNs(gatewayv1.NamespacesFromSelector), selNs, all)
	crossNsWP := waypointGW("other", "waypoint", fromNs(gatewayv1.NamespacesFromSelector), selNs, all)
	crossLabels := map[string]string{LabelUseWaypoint: "waypoint", LabelUseWaypointNamespace: "other"}
	for _, tc := range []struct {
		name       string
		se         *networkingv1.ServiceEntry
		ns         *metav1.ObjectMeta
		visibility string
		gws        []*gatewayv1.Gateway
		classes    []*gatewayv1.GatewayClass
		asked      bool
		accepted   bool
		reason     string
		waypoint   string
		from       string
	}{
		{name: "NAMESPACE visibility refuses cross-namespace waypoint binding", se: seWithLabels("ns", crossLabels), ns: nsMeta,
			visibility: VisibilityNamespace, gws: []*gatewayv1.Gateway{crossNsWP}, asked: true, reason: WaypointCrossNamespace, waypoint: "other/waypoint", from: "ServiceEntry"},
		{name: "NAMESPACE visibility keeps same-namespace waypoint binding", se: seWithLabels("ns", map[string]string{LabelUseWaypoint: "waypoint", LabelUseWaypointNamespace: "ns"}), ns: nsMeta,
			visibility: VisibilityNamespace, gws: []*gatewayv1.Gateway{sameNsWP}, asked: true, accepted: true, waypoint: "ns/waypoint", from: "ServiceEntry"},
		{name: "PUBLIC visibility keeps cross-namespace waypoint binding", se: seWithLabels("ns", crossLabels), ns: nsMeta,
			visibility: VisibilityPublic, gws: []*gatewayv1.Gateway{crossNsWP}, asked: true, accepted: true, waypoint: "other/waypoint", from: "ServiceEntry"},
		{name: "service traffic binds", se: seWithLabels("ns", map[string]string{LabelUseWaypoint: "wp"}), ns: nsMeta, visibility: VisibilityPublic,
			gws: []*gatewayv1.Gateway{waypointGW("ns", "wp", nil, nil, map[string]string{LabelWaypointFor: WaypointForService})}, asked: true, accepted: true, waypoint: "ns/wp", from: "ServiceEntry"},
		{name: "workload traffic does not bind a service", se: seWithLabels("ns", map[string]string{LabelUseWaypoint: "wp"}), ns: nsMeta, visibility: VisibilityPublic,
			gws: []*gatewayv1.Gateway{waypointGW("ns", "wp", nil, nil, map[string]string{LabelWaypointFor: WaypointForWorkload})}, asked: true, reason: WaypointUnsupportedTraffic, waypoint: "ns/wp", from: "ServiceEntry"},
		{name: "no traffic does not bind a service", se: seWithLabels("ns", map[string]string{LabelUseWaypoint: "wp"}), ns: nsMeta, visibility: VisibilityPublic,
			gws: []*gatewayv1.Gateway{waypointGW("ns", "wp", nil, nil, map[string]string{LabelWaypointFor: WaypointForNone})}, asked: true, reason: WaypointUnsupportedTraffic, waypoint: "ns/wp", from: "ServiceEntry"},
		{name: "traffic type from the GatewayClass, overridden by the Gateway", se: seWithLabels("ns", map[string]string{LabelUseWaypoint: "wp"}), ns: nsMeta, visibility: VisibilityPublic,
			gws:     []*gatewayv1.Gateway{waypointGW("ns", "wp", nil, nil, nil)},
			classes: []*gatewayv1.GatewayClass{{ObjectMeta: metav1.ObjectMeta{Name: WaypointClass, Labels: map[string]string{LabelWaypointFor: WaypointForWorkload}}}},
			asked:   true, reason: WaypointUnsupportedTraffic, waypoint: "ns/wp", from: "ServiceEntry"},
		{name: "HBONE listener without allowedRoutes admits its own namespace only", se: seWithLabels("team-a", map[string]string{LabelUseWaypoint: "wp", LabelUseWaypointNamespace: "egress"}),
			ns: &metav1.ObjectMeta{Name: "team-a"}, visibility: VisibilityPublic, gws: []*gatewayv1.Gateway{waypointGW("egress", "wp", nil, nil, nil)},
			asked: true, reason: WaypointAttachmentDenied, waypoint: "egress/wp", from: "ServiceEntry"},
		{name: "allowedRoutes All admits another namespace", se: seWithLabels("team-a", map[string]string{LabelUseWaypoint: "wp", LabelUseWaypointNamespace: "egress"}),
			ns: &metav1.ObjectMeta{Name: "team-a"}, visibility: VisibilityPublic, gws: []*gatewayv1.Gateway{waypointGW("egress", "wp", fromNs(gatewayv1.NamespacesFromAll), nil, nil)},
			asked: true, accepted: true, waypoint: "egress/wp", from: "ServiceEntry"},
		{name: "absent waypoint is not ready", se: seWithLabels("ns", map[string]string{LabelUseWaypoint: "missing"}), ns: nsMeta, visibility: VisibilityPublic,
			gws: []*gatewayv1.Gateway{sameNsWP}, asked: true, reason: WaypointNotReady, waypoint: "ns/missing", from: "ServiceEntry"},
		{name: "namespace label applies", se: seWithLabels("ns", nil), ns: &metav1.ObjectMeta{Name: "ns", Labels: map[string]string{LabelUseWaypoint: "waypoint", "kubernetes.io/metadata.name": "ns"}},
			visibility: VisibilityNamespace, gws: []*gatewayv1.Gateway{sameNsWP}, asked: true, accepted: true, waypoint: "ns/waypoint", from: "Namespace"},
		{name: "entry's none opts out of the namespace waypoint", se: seWithLabels("ns", map[string]string{LabelUseWaypoint: "none"}),
			ns: &metav1.ObjectMeta{Name: "ns", Labels: map[string]string{LabelUseWaypoint: "waypoint"}}, visibility: VisibilityPublic, gws: []*gatewayv1.Gateway{sameNsWP}},
		{name: "no label, no waypoint", se: seWithLabels("ns", nil), ns: nsMeta, visibility: VisibilityPublic, gws: []*gatewayv1.Gateway{sameNsWP}},
		{name: "a waypoint's own entry never binds", se: seWithLabels("ns", map[string]string{LabelUseWaypoint: "waypoint", LabelGatewayManaged: "istio.io-mesh-controller"}),
			ns: nsMeta, visibility: VisibilityPublic, gws: []*gatewayv1.Gateway{sameNsWP}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := BindWaypoint(WaypointInput{Entry: tc.se, Namespace: tc.ns, Visibility: tc.visibility, Gateways: tc.gws, GatewayClasses: tc.classes})
			if b.Asked != tc.asked || b.Accepted != tc.accepted || b.Reason != tc.reason {
				t.Fatalf("asked %v accepted %v reason %q, want %v %v %q (%+v)", b.Asked, b.Accepted, b.Reason, tc.asked, tc.accepted, tc.reason, b)
			}
			if tc.asked && (b.Waypoint.String() != tc.waypoint || b.From != tc.from) {
				t.Errorf("waypoint %s from %s, want %s from %s", b.Waypoint, b.From, tc.waypoint, tc.from)
			}
			if tc.reason == WaypointCrossNamespace && b.Message != `cannot bind to waypoint "other/waypoint" in another namespace: cross-namespace waypoint binding is not permitted for a ServiceEntry with NAMESPACE visibility` {
				t.Errorf("message %q is not istiod's (status.go ReportWaypointCrossNamespaceForbidden)", b.Message)
			}
		})
	}
}

// TestBindWaypointNoStatusAddress: a Gateway without status addresses is no waypoint yet
// (gatewayToWaypointTransform skips it): the binding is reported, with NoStatusAddress set.
func TestBindWaypointNoStatusAddress(t *testing.T) {
	gw := waypointGW("ns", "wp", nil, nil, nil)
	gw.Status.Addresses = nil
	b := BindWaypoint(WaypointInput{Entry: seWithLabels("ns", map[string]string{LabelUseWaypoint: "wp"}), Namespace: &metav1.ObjectMeta{Name: "ns"},
		Visibility: VisibilityPublic, Gateways: []*gatewayv1.Gateway{gw}})
	if !b.NoStatusAddress || !b.Accepted || b.TrafficType != WaypointForService || b.TrafficTypeFrom != "default" {
		t.Fatalf("%+v", b)
	}
}

// TestBindWaypointNotReadyFirst: a Gateway whose status is known and has no addresses is no
// waypoint (gatewayToWaypointTransform returns nil), so fetchWaypointForTarget refuses the binding
// as not ready before allowedRoutes, the traffic type or the entry's visibility count; manifest
// files without any status take it as ready and apply the other checks.
func TestBindWaypointNotReadyFirst(t *testing.T) {
	crossLabels := map[string]string{LabelUseWaypoint: "wp", LabelUseWaypointNamespace: "egress"}
	workload := map[string]string{LabelWaypointFor: WaypointForWorkload}
	for _, tc := range []struct {
		name       string
		labels     map[string]string // the waypoint Gateway's
		visibility string
		live       bool
		conditions bool // the file carries the Gateway's status conditions
		notReady   bool
		reason     string
	}{
		{name: "live: not ready before allowedRoutes", visibility: VisibilityPublic, live: true, notReady: true},
		{name: "live: not ready before the traffic type", labels: workload, visibility: VisibilityPublic, live: true, notReady: true},
		{name: "live: not ready before NAMESPACE visibility", visibility: VisibilityNamespace, live: true, notReady: true},
		{name: "file with status conditions: not ready first", labels: workload, visibility: VisibilityPublic, conditions: true, notReady: true},
		{name: "file without status: taken as ready, allowedRoutes refuses", visibility: VisibilityPublic, reason: WaypointAttachmentDenied},
		{name: "file without status: taken as ready, allowedRoutes refuses before the traffic type", labels: workload, visibility: VisibilityPublic, reason: WaypointAttachmentDenied},
	} {
		t.Run(tc.name, func(t *testing.T) {
			gw := waypointGW("egress", "wp", nil, nil, tc.labels)
			gw.Status.Addresses = nil
			if tc.conditions {
				gw.Status.Conditions = []metav1.Condition{{Type: "Programmed", Status: metav1.ConditionFalse}}
			}
			b := BindWaypoint(WaypointInput{Entry: seWithLabels("team-a", crossLabels), Namespace: &metav1.ObjectMeta{Name: "team-a"},
				Visibility: tc.visibility, Gateways: []*gatewayv1.Gateway{gw}, Live: tc.live})
			if b.NotReady != tc.notReady || b.Reason != tc.reason || !b.NoStatusAddress {
				t.Fatalf("notReady %v reason %q, want %v %q (%+v)", b.NotReady, b.Reason, tc.notReady, tc.reason, b)
			}
			if tc.notReady && !b.Accepted {
				t.Errorf("a not-ready waypoint must stop the other checks (Accepted set, no Reason): %+v", b)
			}
		})
	}
}

// TestWaypointAllowedRoutes follows istiod ambient/waypoints_test.go TestMakeAllowedRoutes.
func TestWaypointAllowedRoutes(t *testing.T) {
	sandwich := func(ann string, ls ...gatewayv1.Listener) *gatewayv1.Gateway {
		return &gatewayv1.Gateway{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{inboundBindingAnnotation: ann}},
			Spec: gatewayv1.GatewaySpec{GatewayClassName: "sandwiched-waypoint", Listeners: ls}}
	}
	allowAll := &gatewayv1.AllowedRoutes{Namespaces: &gatewayv1.RouteNamespaces{From: fromNs(gatewayv1.NamespacesFromAll)}}
	for _, tc := range []struct {
		name string
		gw   *gatewayv1.Gateway
		want gatewayv1.FromNamespaces
		sel  string
		// listener: a part of the text naming the listener read ("" for none)
		listener string
	}{
		{"istio-waypoint defaults to same namespace", &gatewayv1.Gateway{Spec: gatewayv1.GatewaySpec{GatewayClassName: WaypointClass}}, gatewayv1.NamespacesFromSame, "", ""},
		{"istio-waypoint matching listener with no allowed routes", &gatewayv1.Gateway{Spec: gatewayv1.GatewaySpec{Listeners: []gatewayv1.Listener{{Protocol: "HBONE", Port: 15008}}}}, gatewayv1.NamespacesFromSame, "", "HBONE listener (port 15008)"},
		{"istio-waypoint matching listener with allowed routes", &gatewayv1.Gateway{Spec: gatewayv1.GatewaySpec{Listeners: []gatewayv1.Listener{{Protocol: "HBONE", Port: 15008, AllowedRoutes: allowAll}}}}, gatewayv1.NamespacesFromAll, "", "HBONE listener (port 15008)"},
		{"istio-waypoint matching listener with selector", &gatewayv1.Gateway{Spec: gatewayv1.GatewaySpec{Listeners: []gatewayv1.Listener{{Protocol: "HBONE", Port: 15008,
			AllowedRoutes: &gatewayv1.AllowedRoutes{Namespaces: &gatewayv1.RouteNamespaces{From: fromNs(gatewayv1.NamespacesFromSelector), Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "test"}}}}}}}},
			gatewayv1.NamespacesFromSelector, "app=test", "HBONE"},
		// From: Selector without a selector admits nothing (makeWaypointSelector: a nil
		// selector); the binding is refused with AttachmentDenied.
		{"istio-waypoint matching listener with Selector and no selector", &gatewayv1.Gateway{Spec: gatewayv1.GatewaySpec{Listeners: []gatewayv1.Listener{{Protocol: "HBONE", Port: 15008,
			AllowedRoutes: &gatewayv1.AllowedRoutes{Namespaces: &gatewayv1.RouteNamespaces{From: fromNs(gatewayv1.NamespacesFromSelector)}}}}}},
			gatewayv1.NamespacesFromSelector, "", "HBONE"},
		{"sandwiched waypoint defaults to same namespace", sandwich("PROXY/15088", gatewayv1.Listener{Name: "proxy", Protocol: "istio.io/PROXY", Port: 15088}), gatewayv1.NamespacesFromSame, "", "listener proxy (port 15088, named by the Gateway's annotation " + inboundBindingAnnotation + ": PROXY/15088)"},
		{"sandwiched waypoint with listener with allowed routes", sandwich("PROXY/15088",
			gatewayv1.Listener{Name: "should be ignored", Protocol: "istio.io/PROXY", Port: 15089, AllowedRoutes: &gatewayv1.AllowedRoutes{Namespaces: &gatewayv1.RouteNamespaces{From: fromNs(gatewayv1.NamespacesFromSame)}}},
			gatewayv1.Listener{Name: "should be used", Protocol: "istio.io/PROXY", Port: 15088, AllowedRoutes: allowAll}), gatewayv1.NamespacesFromAll, "", "listener should be used (port 15088"},
		{"sandwiched waypoint with listener with allowed routes on port 0", sandwich("PROXY",
			gatewayv1.Listener{Name: "should be used", Protocol: "istio.io/PROXY", Port: 15015, AllowedRoutes: allowAll}), gatewayv1.NamespacesFromAll, "", "listener should be used (port 15015"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			from, sel, listener := waypointAllowedRoutes(tc.gw, nil)
			got := ""
			if sel != nil {
				got = sel.String()
			}
			if from != tc.want || got != tc.sel {
				t.Errorf("from %s selector %q, want %s %q", from, got, tc.want, tc.sel)
			}
			if !strings.Contains(listener, tc.listener) || (tc.listener == "") != (listener == "") {
				t.Errorf("listener %q, want one naming %q", listener, tc.listener)
			}
		})
	}
}

// TestAmbientAddresses follows istiod ambient/services_test.go TestServiceEntryServices, the
// address cases ("Uses auto-assigned addresses", "Does not use auto-assigned addresses user
// provided address", "... none resolution", "... user opted out", "... for wildcard host with
// DNS resolution", "Uses auto assigned addresses for wildcard host").
func TestAmbientAddresses(t *testing.T) {
	se := func(hosts []string, addrs []string, res networking.ServiceEntry_Resolution, l map[string]string) *networkingv1.ServiceEntry {
		e := &networkingv1.ServiceEntry{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "se", Labels: l},
			Spec: networking.ServiceEntry{Hosts: hosts, Addresses: addrs, Resolution: res}}
		for _, h := range hosts {
			e.Status.Addresses = append(e.Status.Addresses, &networking.ServiceEntryAddress{Host: h, Value: "240.240.0.1"}, &networking.ServiceEntryAddress{Host: h, Value: "2001:2::1"})
		}
		return e
	}
	for _, tc := range []struct {
		name string
		se   *networkingv1.ServiceEntry
		host string
		want []string
		auto bool
	}{
		{"Uses auto-assigned addresses", se([]string{"assign-me.example.com"}, nil, networking.ServiceEntry_DNS, nil), "assign-me.example.com", []string{"240.240.0.1", "2001:2::1"}, true},
		{"Does not use auto-assigned addresses user provided address", se([]string{"user-provided.example.com"}, []string{"2.3.4.5"}, networking.ServiceEntry_DNS, nil), "user-provided.example.com", []string{"2.3.4.5"}, false},
		{"Does not use auto-assigned addresses none resolution", se([]string{"none-resolution.example.com"}, nil, networking.ServiceEntry_NONE, nil), "none-resolution.example.com", nil, false},
		{"Does not use auto-assigned addresses user opted out", se([]string{"user-opt-out.example.com"}, nil, networking.ServiceEntry_DNS, map[string]string{AutoAllocateLabel: "false"}), "user-opt-out.example.com", nil, false},
		{"Does not use auto-assigned addresses for wildcard host with DNS resolution", se([]string{"*.wildcard.example.com", "this-is-ok.example.com"}, nil, networking.ServiceEntry_DNS, nil), "*.wildcard.example.com", nil, false},
		{"... while the other host of that entry uses them", se([]string{"*.wildcard.example.com", "this-is-ok.example.com"}, nil, networking.ServiceEntry_DNS, nil), "this-is-ok.example.com", []string{"240.240.0.1", "2001:2::1"}, true},
		{"Uses auto assigned addresses for wildcard host", se([]string{"*.wildcard.example.com"}, nil, networking.ServiceEntry_DYNAMIC_DNS, nil), "*.wildcard.example.com", []string{"240.240.0.1", "2001:2::1"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, auto, why := AmbientAddresses(tc.se, tc.host, true)
			if !slices.Equal(got, tc.want) || auto != tc.auto {
				t.Errorf("addresses %v auto %v, want %v %v", got, auto, tc.want, tc.auto)
			}
			if len(got) == 0 && why == "" {
				t.Error("no address and no reason")
			}
		})
	}
	if got, _, why := AmbientAddresses(se([]string{"a.example.com"}, nil, networking.ServiceEntry_DNS, nil), "a.example.com", false); got != nil || why == "" {
		t.Errorf("allocation off: %v %q", got, why)
	}
}

// TestSelectAmbientServices follows istiod ambient/services_test.go TestSelectWorkloadServices
// (each case also in reverse order), plus the ties istiod resolves by index order.
func TestSelectAmbientServices(t *testing.T) {
	older, newer := metav1.NewTime(time.Unix(100, 0)), metav1.NewTime(time.Unix(200, 0))
	si := func(ns, name string, kube bool, vis string, created metav1.Time) AmbientService {
		return AmbientService{Ref: name, Namespace: ns, Kubernetes: kube, Visibility: vis, Created: created}
	}
	for _, tc := range []struct {
		name      string
		in        []AmbientService
		winners   map[string]string
		canonical string
		tied      map[string][]string
	}{
		{"same namespace: older NAMESPACE beats newer PUBLIC, nothing canonical",
			[]AmbientService{si("ns", "pub", false, VisibilityPublic, newer), si("ns", "nslocal", false, VisibilityNamespace, older)},
			map[string]string{"ns": "nslocal"}, "", map[string][]string{}},
		{"kube Service is canonical over an older camping PUBLIC ServiceEntry",
			[]AmbientService{si("team-a", "svc", true, VisibilityPublic, newer), si("team-b", "camp", false, VisibilityPublic, older)},
			map[string]string{"team-a": "svc", "team-b": "camp"}, "svc", map[string][]string{}},
		{"cross namespace: PUBLIC is canonical, NAMESPACE is not",
			[]AmbientService{si("team-a", "nslocal", false, VisibilityNamespace, older), si("team-b", "pub", false, VisibilityPublic, newer)},
			map[string]string{"team-a": "nslocal", "team-b": "pub"}, "pub", map[string][]string{}},
		{"equal creation times across namespaces: canonical tied",
			[]AmbientService{si("team-a", "a", false, VisibilityPublic, older), si("team-b", "b", false, VisibilityPublic, older)},
			map[string]string{"team-a": "a", "team-b": "b"}, "a", map[string][]string{"": {"a", "b"}}},
		{"equal creation times in one namespace: its choice tied",
			[]AmbientService{si("ns", "a", false, VisibilityPublic, older), si("ns", "b", false, VisibilityPublic, older)},
			map[string]string{"ns": "a"}, "a", map[string][]string{"ns": {"a", "b"}, "": {"a", "b"}}},
		{"a tie among newer entries does not matter",
			[]AmbientService{si("team-a", "a", false, VisibilityPublic, newer), si("team-b", "b", false, VisibilityPublic, newer), si("team-c", "c", false, VisibilityPublic, older)},
			map[string]string{"team-a": "a", "team-b": "b", "team-c": "c"}, "c", map[string][]string{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rev := slices.Clone(tc.in)
			slices.Reverse(rev)
			for _, in := range [][]AmbientService{tc.in, rev} {
				got := SelectAmbientServices(in)
				for ns, w := range tc.winners {
					if got.ByNamespace[ns] != w {
						t.Errorf("namespace %s keeps %s, want %s", ns, got.ByNamespace[ns], w)
					}
				}
				if got.Canonical != tc.canonical {
					t.Errorf("canonical %q, want %q", got.Canonical, tc.canonical)
				}
				if len(got.Tied) != len(tc.tied) {
					t.Errorf("tied %v, want %v", got.Tied, tc.tied)
				}
				for k, v := range tc.tied {
					if !slices.Equal(got.Tied[k], v) {
						t.Errorf("tied[%q] %v, want %v", k, got.Tied[k], v)
					}
				}
			}
		})
	}
	sel := SelectAmbientServices([]AmbientService{si("team-a", "nslocal", false, VisibilityNamespace, older), si("team-b", "pub", false, VisibilityPublic, newer)})
	if r, _ := sel.For("team-a"); r != "nslocal" {
		t.Errorf("team-a finds %s, want its own nslocal", r)
	}
	if r, _ := sel.For("team-c"); r != "pub" {
		t.Errorf("team-c finds %s, want the canonical pub", r)
	}
}
