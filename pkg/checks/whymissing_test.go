package checks

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kubectl-egress/kubectl-egress/pkg/loader"
	"github.com/kubectl-egress/kubectl-egress/pkg/snapshot"
)

// base is a mesh with an egress gateway in istio-system and an istiod whose flag is set per test.
const base = `
apiVersion: v1
kind: Namespace
metadata: {name: istio-system}
---
apiVersion: v1
kind: Namespace
metadata: {name: team-a}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: istio-egressgateway, namespace: istio-system}
spec:
  selector: {matchLabels: {istio: egressgateway}}
  template:
    metadata: {labels: {istio: egressgateway, app: istio-egressgateway}}
    spec: {containers: [{name: istio-proxy, image: auto}]}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: istiod, namespace: istio-system, labels: {app: istiod}}
spec:
  selector: {matchLabels: {app: istiod}}
  template:
    metadata: {labels: {app: istiod}}
    spec:
      containers:
      - name: discovery
        image: pilot
        env:
        - {name: PILOT_FILTER_GATEWAY_CLUSTER_CONFIG, value: "@FLAG@"}
        - {name: PILOT_SCOPE_GATEWAY_TO_NAMESPACE, value: "@SCOPE@"}
---
apiVersion: networking.istio.io/v1
kind: Gateway
metadata: {name: egress, namespace: istio-system}
spec:
  selector: {istio: egressgateway}
  servers:
  - port: {number: 80, name: http, protocol: HTTP}
    hosts: [api.example.com]
  - port: {number: 443, name: tls, protocol: TLS}
    hosts: [api.example.com]
    tls: {mode: PASSTHROUGH}
`

const se = `
apiVersion: networking.istio.io/v1
kind: ServiceEntry
metadata: {name: api, namespace: team-a}
spec:
  hosts: [api.example.com]
  EXPORT
  location: MESH_EXTERNAL
  resolution: DNS
  ports:
  - {number: 80, name: http, protocol: HTTP}
  - {number: 443, name: tls, protocol: TLS}
`

const boundVS = `
apiVersion: networking.istio.io/v1
kind: VirtualService
metadata: {name: api, namespace: team-a}
spec:
  hosts: [api.example.com]
  gateways: [istio-system/egress]
  http:
  - match: [{port: 80}]
    route: [{destination: {host: api.example.com, port: {number: 80}}}]
`

func snap(t *testing.T, flag, scope string, docs ...string) *snapshot.Snapshot {
	t.Helper()
	y := strings.NewReplacer("@FLAG@", flag, "@SCOPE@", scope).Replace(base) + "\n---\n" + strings.Join(docs, "\n---\n")
	s, err := loader.FromFiles([]string{"-"}, strings.NewReader(y), loader.Options{Lenient: true})
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	return s
}

func verdict(t *testing.T, s *snapshot.Snapshot, host string, port uint32) GatewayVerdict {
	t.Helper()
	r, err := WhyMissing(s, WhyMissingOptions{Host: host, Port: port, Gateway: "istio-system/istio-egressgateway"})
	if err != nil {
		t.Fatalf("WhyMissing: %v", err)
	}
	if len(r.Gateways) != 1 {
		t.Fatalf("want 1 gateway verdict, got %d", len(r.Gateways))
	}
	return r.Gateways[0]
}

func expect(t *testing.T, v GatewayVerdict, present bool, cause, culprit string) {
	t.Helper()
	if v.Present != present || v.Cause != cause || v.Culprit != culprit {
		t.Errorf("got present=%v cause=%s culprit=%q (%s); want present=%v cause=%s culprit=%q", v.Present, v.Cause, v.Culprit, v.Message, present, cause, culprit)
	}
}

func TestExportToKinds(t *testing.T) {
	for _, c := range []struct {
		name, export, mesh string
		present            bool
	}{
		{"explicit gateway namespace", `exportTo: [".", "istio-system"]`, "", true},
		{"only another namespace", `exportTo: ["team-b"]`, "", false},
		{"hidden", `exportTo: ["~"]`, "", false},
		{"public", `exportTo: ["*"]`, "", true},
		{"mesh default private", ``, "defaultServiceExportTo: [\".\"]", false},
		{"mesh default names gateway namespace", ``, "defaultServiceExportTo: [istio-system]", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			docs := []string{strings.Replace(se, "EXPORT", c.export, 1), boundVS}
			if c.mesh != "" {
				docs = append(docs, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: istio, namespace: istio-system}\ndata:\n  mesh: |\n    "+c.mesh+"\n")
			}
			v := verdict(t, snap(t, "false", "false", docs...), "api.example.com", 80)
			if c.present {
				expect(t, v, true, CauseOK, "")
			} else {
				expect(t, v, false, CauseNotExported, "ServiceEntry team-a/api")
				if len(v.Clusters) != 1 || v.Clusters[0].Name != "outbound|80||api.example.com" || v.Clusters[0].Present {
					t.Errorf("clusters = %+v", v.Clusters)
				}
			}
		})
	}
}

func TestFilterFlag(t *testing.T) {
	entry := strings.Replace(se, "EXPORT", "", 1)
	// Flag on, no VirtualService: absent (seed §3.4); flag off: present.
	expect(t, verdict(t, snap(t, "true", "false", entry), "api.example.com", 80), false, CauseNotReferenced, "")
	expect(t, verdict(t, snap(t, "false", "false", entry), "api.example.com", 80), true, CauseOK, "")
	// Flag on with a bound VS: every port of the referenced service is kept (istiod does not filter ports).
	v := verdict(t, snap(t, "true", "false", entry, boundVS), "api.example.com", 0)
	expect(t, v, true, CauseOK, "")
	if len(v.Clusters) != 2 {
		t.Errorf("want clusters for ports 80 and 443, got %+v", v.Clusters)
	}
	// A VS with exportTo ["."] in team-a still keeps the cluster (istiod ignores exportTo in
	// destinationsByGateway), but the gateway does not use it: ROUTE_NOT_BOUND.
	private := strings.Replace(boundVS, "gateways:", "exportTo: [\".\"]\n  gateways:", 1)
	expect(t, verdict(t, snap(t, "true", "false", entry, private), "api.example.com", 80), true, CauseRouteNotBound, "VirtualService team-a/api")
	// Short gateway name resolving in the VS namespace: nothing references the host for this gateway.
	short := strings.Replace(boundVS, "istio-system/egress", "egress", 1)
	expect(t, verdict(t, snap(t, "true", "false", entry, short), "api.example.com", 80), false, CauseGatewayRefUnresolve, "VirtualService team-a/api")
	// An EnvoyFilter's referenced-services annotation keeps the cluster without a VS.
	ef := "apiVersion: networking.istio.io/v1alpha3\nkind: EnvoyFilter\nmetadata:\n  name: ef\n  namespace: istio-system\n  annotations: {envoyfilter.istio.io/referenced-services: api.example.com}\nspec: {}\n"
	v = verdict(t, snap(t, "true", "false", entry, ef), "api.example.com", 80)
	if !v.Present {
		t.Errorf("EnvoyFilter reference ignored: %s", v.Message)
	}
}

func TestRouteTypeAndPort(t *testing.T) {
	entry := strings.Replace(se, "EXPORT", "", 1)
	// http routes for the TLS passthrough server only (case 08's kind).
	httpOn443 := strings.Replace(boundVS, "port: 80}]", "port: 443}]", 1)
	v := verdict(t, snap(t, "false", "false", entry, httpOn443), "api.example.com", 443)
	expect(t, v, true, CauseRouteNotBound, "VirtualService team-a/api")
	// tls route with sniHosts binds the passthrough server.
	tlsVS := `
apiVersion: networking.istio.io/v1
kind: VirtualService
metadata: {name: api-tls, namespace: team-a}
spec:
  hosts: [api.example.com]
  gateways: [istio-system/egress]
  tls:
  - match: [{port: 443, sniHosts: [api.example.com]}]
    route: [{destination: {host: api.example.com, port: {number: 443}}}]
`
	expect(t, verdict(t, snap(t, "true", "false", entry, tlsVS), "api.example.com", 443), true, CauseOK, "")
}

func TestSubsetOnGatewayRoute(t *testing.T) {
	entry := strings.Replace(se, "EXPORT", "", 1)
	withSubset := strings.Replace(boundVS, "host: api.example.com, port:", "host: api.example.com, subset: v1, port:", 1)
	v := verdict(t, snap(t, "false", "false", entry, withSubset), "api.example.com", 80)
	expect(t, v, false, CauseSubsetNotDefined, "VirtualService team-a/api")
	// A DestinationRule in the client namespace team-a is not on the gateway's lookup path
	// (istio-system, then the service namespace team-a, then root): the service namespace counts.
	drTeamA := "apiVersion: networking.istio.io/v1\nkind: DestinationRule\nmetadata: {name: api, namespace: team-a}\nspec:\n  host: api.example.com\n  subsets: [{name: v1}]\n"
	expect(t, verdict(t, snap(t, "false", "false", entry, withSubset, drTeamA), "api.example.com", 80), true, CauseOK, "")
	// exported only to team-a: not visible from istio-system. The rule that defines the subset is
	// to blame (its exportTo), as export-audit says (DR_NOT_EXPORTED_TO_CLIENT_NAMESPACE).
	drPrivate := strings.Replace(drTeamA, "spec:\n", "spec:\n  exportTo: [\".\"]\n", 1)
	v = verdict(t, snap(t, "false", "false", entry, withSubset, drPrivate), "api.example.com", 80)
	expect(t, v, false, CauseSubsetNotDefined, "DestinationRule team-a/api")
	if !strings.Contains(v.Fix, "exportTo:") || !strings.Contains(v.Fix, `"istio-system"`) {
		t.Errorf("fix does not export the rule to the gateway's namespace: %s", v.Fix)
	}
	// The rule the gateway applies lacks the subset: add it there. A new rule in the gateway's
	// namespace would come first on the lookup path and drop the rule's other subsets.
	withV2 := strings.Replace(boundVS, "host: api.example.com, port:", "host: api.example.com, subset: v2, port:", 1)
	v = verdict(t, snap(t, "false", "false", entry, withV2, drTeamA), "api.example.com", 80)
	expect(t, v, false, CauseSubsetNotDefined, "DestinationRule team-a/api")
	if !strings.Contains(v.Fix, `Add subset "v2"`) || strings.Contains(v.Fix, "kind: DestinationRule") {
		t.Errorf("fix does not add the subset to the applied rule: %s", v.Fix)
	}
}

func TestScopeGatewayToNamespace(t *testing.T) {
	entry := strings.Replace(se, "EXPORT", "", 1)
	// With PILOT_SCOPE_GATEWAY_TO_NAMESPACE a Gateway in another namespace does not apply.
	other := `
apiVersion: networking.istio.io/v1
kind: Gateway
metadata: {name: egress2, namespace: team-a}
spec:
  selector: {istio: egressgateway}
  servers:
  - port: {number: 8080, name: http, protocol: HTTP}
    hosts: [api.example.com]
---
apiVersion: networking.istio.io/v1
kind: VirtualService
metadata: {name: api2, namespace: team-a}
spec:
  hosts: [api.example.com]
  gateways: [egress2]
  http:
  - route: [{destination: {host: api.example.com, port: {number: 80}}}]
`
	expect(t, verdict(t, snap(t, "true", "false", entry, other), "api.example.com", 80), true, CauseOK, "")
	expect(t, verdict(t, snap(t, "true", "true", entry, other), "api.example.com", 80), false, CauseNotReferenced, "")
}

func TestHostNotFoundAndSuggestions(t *testing.T) {
	entry := strings.Replace(se, "[api.example.com]", `["*.example.com"]`, 1)
	entry = strings.Replace(entry, "EXPORT", "", 1)
	r, err := WhyMissing(snap(t, "false", "false", entry), WhyMissingOptions{Host: "API.example.com.", Gateway: "istio-system/istio-egressgateway"})
	if err != nil {
		t.Fatal(err)
	}
	if r.Present || r.Gateways[0].Cause != CauseHostNotFound {
		t.Errorf("got %v %s", r.Present, r.Gateways[0].Cause)
	}
	if len(r.Suggestions) == 0 || !strings.Contains(r.Suggestions[0], "*.example.com") {
		t.Errorf("suggestions = %v", r.Suggestions)
	}
	// The wildcard entry itself is diagnosable by its declared name.
	v := verdict(t, snap(t, "false", "false", entry), "*.example.com", 443)
	expect(t, v, true, CauseOK, "")
	if _, err := WhyMissing(snap(t, "false", "false", entry), WhyMissingOptions{Host: "x", Gateway: "istio-system/nope"}); err == nil {
		t.Error("unknown gateway workload accepted")
	}
}

func TestUnknownFlagIsStatedAsAssumption(t *testing.T) {
	entry := strings.Replace(se, "EXPORT", "", 1)
	y := strings.Replace(base, `        - {name: PILOT_FILTER_GATEWAY_CLUSTER_CONFIG, value: "@FLAG@"}`,
		`        - name: PILOT_FILTER_GATEWAY_CLUSTER_CONFIG
          valueFrom: {configMapKeyRef: {name: flags, key: filter}}`, 1)
	y = strings.Replace(y, "@SCOPE@", "false", 1)
	s, err := loader.FromFiles([]string{"-"}, strings.NewReader(y+"\n---\n"+entry), loader.Options{Lenient: true})
	if err != nil {
		t.Fatal(err)
	}
	v := verdict(t, s, "api.example.com", 80)
	expect(t, v, true, CauseOK, "")
	if len(v.Assumptions) == 0 || !strings.Contains(v.Assumptions[0], "assumed false") || !strings.Contains(v.Assumptions[0], NotReferencedHint) {
		t.Errorf("assumptions = %v", v.Assumptions)
	}
	if v.Steps[0].ID != "a" || v.Steps[0].Result != Unknown {
		t.Errorf("step a = %+v", v.Steps[0])
	}
}

// A flag set through valueFrom.configMapKeyRef is read from the ConfigMap when the input holds
// it (blind audit 102 c58: assumed false while the ConfigMap said true).
func TestFlagFromConfigMapKeyRef(t *testing.T) {
	entry := strings.Replace(se, "EXPORT", "", 1)
	y := strings.Replace(base, `        - {name: PILOT_FILTER_GATEWAY_CLUSTER_CONFIG, value: "@FLAG@"}`,
		`        - name: PILOT_FILTER_GATEWAY_CLUSTER_CONFIG
          valueFrom: {configMapKeyRef: {name: flags, key: filter}}`, 1)
	y = strings.Replace(y, "@SCOPE@", "false", 1)
	for _, tc := range []struct {
		data    string
		present bool
		cause   string
	}{
		{"filter: \"true\"", false, CauseNotReferenced},
		{"filter: \"false\"", true, CauseOK},
		{"other: \"true\"", true, CauseOK}, // no such key, not optional: unknown, assumed false
	} {
		cm := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: flags, namespace: istio-system}\ndata: {" + tc.data + "}"
		s, err := loader.FromFiles([]string{"-"}, strings.NewReader(y+"\n---\n"+entry+"\n---\n"+cm), loader.Options{Lenient: true})
		if err != nil {
			t.Fatal(err)
		}
		v := verdict(t, s, "api.example.com", 80)
		expect(t, v, tc.present, tc.cause, "")
		known := !strings.HasPrefix(tc.data, "other")
		if known != (len(v.Assumptions) == 0) {
			t.Errorf("%s: assumptions %v", tc.data, v.Assumptions)
		}
	}
}

// NotReferencedHint is what the assumption names when the flag would change the answer.
const NotReferencedHint = CauseNotReferenced

func TestServiceEntryVisibilityCap(t *testing.T) {
	entry := strings.Replace(se, "EXPORT", `exportTo: ["*"]`, 1)
	meshCM := func(body string) string {
		return "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: istio, namespace: istio-system}\ndata:\n  mesh: |\n" + body
	}
	capped := meshCM("    serviceEntryVisibility:\n      defaultVisibility: NAMESPACE\n      applyToSidecars: true\n")
	expect(t, verdict(t, snap(t, "false", "false", entry, boundVS, capped), "api.example.com", 80), false, CauseNotExported, "ConfigMap istio-system/istio")
	// Without applyToSidecars the classic path keeps using exportTo only.
	ambientOnly := meshCM("    serviceEntryVisibility:\n      defaultVisibility: NAMESPACE\n")
	expect(t, verdict(t, snap(t, "false", "false", entry, boundVS, ambientOnly), "api.example.com", 80), true, CauseOK, "")
	// A PUBLIC policy matching the entry's namespace labels wins over the default.
	trusted := meshCM("    serviceEntryVisibility:\n      defaultVisibility: NAMESPACE\n      applyToSidecars: true\n      policies:\n      - visibility: PUBLIC\n        matchingRules:\n        - namespaceSelector: {matchLabels: {trusted: \"true\"}}\n")
	labelled := "apiVersion: v1\nkind: Namespace\nmetadata: {name: team-a, labels: {trusted: \"true\"}}\n"
	expect(t, verdict(t, snap(t, "false", "false", entry, boundVS, trusted, labelled), "api.example.com", 80), true, CauseOK, "")
	expect(t, verdict(t, snap(t, "false", "false", entry, boundVS, trusted), "api.example.com", 80), false, CauseNotExported, "ConfigMap istio-system/istio")
}

func TestRevisionLabelledConfig(t *testing.T) {
	entry := strings.Replace(se, "EXPORT", "", 1)
	// The default istiod does not read a VirtualService labelled for the canary revision.
	canaryVS := strings.Replace(boundVS, "metadata: {name: api, namespace: team-a}", "metadata: {name: api, namespace: team-a, labels: {istio.io/rev: canary}}", 1)
	expect(t, verdict(t, snap(t, "true", "false", entry, canaryVS), "api.example.com", 80), false, CauseNotReferenced, "")
	defaultVS := strings.Replace(boundVS, "metadata: {name: api, namespace: team-a}", "metadata: {name: api, namespace: team-a, labels: {istio.io/rev: default}}", 1)
	expect(t, verdict(t, snap(t, "true", "false", entry, defaultVS), "api.example.com", 80), true, CauseOK, "")
}

func TestDNSClustersWithoutEndpoints(t *testing.T) {
	entry := strings.Replace(se, "EXPORT", "", 1)
	// A subset with labels: the host-name endpoint has none, so istiod skips the subset cluster.
	withSubset := strings.Replace(boundVS, "host: api.example.com, port:", "host: api.example.com, subset: v1, port:", 1)
	dr := "apiVersion: networking.istio.io/v1\nkind: DestinationRule\nmetadata: {name: api, namespace: team-a}\nspec:\n  host: api.example.com\n  subsets: [{name: v1, labels: {version: v1}}]\n"
	v := verdict(t, snap(t, "false", "false", entry, withSubset, dr), "api.example.com", 80)
	expect(t, v, false, CauseNoEndpoints, "DestinationRule team-a/api")
	// Unlabelled subset: present.
	drNoLabels := strings.Replace(dr, ", labels: {version: v1}", "", 1)
	expect(t, verdict(t, snap(t, "false", "false", entry, withSubset, drNoLabels), "api.example.com", 80), true, CauseOK, "")
	// workloadSelector selecting nothing: no endpoints, no cluster at all.
	selector := strings.Replace(entry, "resolution: DNS", "resolution: DNS\n  workloadSelector: {labels: {app: vm}}", 1)
	expect(t, verdict(t, snap(t, "false", "false", selector, boundVS), "api.example.com", 80), false, CauseNoEndpoints, "ServiceEntry team-a/api")
	we := "apiVersion: networking.istio.io/v1\nkind: WorkloadEntry\nmetadata: {name: vm, namespace: team-a}\nspec:\n  address: vm.example.com\n  labels: {app: vm}\n"
	expect(t, verdict(t, snap(t, "false", "false", selector, boundVS, we), "api.example.com", 80), true, CauseOK, "")
}

func TestSameNamespaceEntriesMergePorts(t *testing.T) {
	a := strings.Replace(se, "EXPORT", "", 1)
	a = strings.Replace(a, "  - {number: 443, name: tls, protocol: TLS}\n", "", 1)
	b := strings.Replace(a, "name: api,", "name: api-extra,", 1)
	b = strings.Replace(b, "{number: 80, name: http, protocol: HTTP}", "{number: 8443, name: tls, protocol: TLS}", 1)
	v := verdict(t, snap(t, "false", "false", a, b), "api.example.com", 8443)
	expect(t, v, true, CauseOK, "")
	// Different exportTo: not merged, the older entry wins and has no port 8443.
	c := strings.Replace(b, "EXPORT", "", 1)
	c = strings.Replace(c, "  location:", "  exportTo: [\"*\", \"team-a\"]\n  location:", 1)
	expect(t, verdict(t, snap(t, "false", "false", a, c), "api.example.com", 8443), false, CausePortNotDeclared, "ServiceEntry team-a/api")
}

func TestUnreadableKindGivesNoVerdict(t *testing.T) {
	s := snap(t, "false", "false", boundVS)
	s.ServiceEntries = nil
	s.Unknown[snapshot.KindServiceEntry] = "forbidden to list serviceentries.networking.istio.io"
	v := verdict(t, s, "api.example.com", 80)
	if v.Cause != CauseInputUnknown || v.Present || !strings.Contains(v.Message, "forbidden") {
		t.Errorf("got %s %v %q", v.Cause, v.Present, v.Message)
	}
	// A workload no Gateway selects and without the egress label is diagnosed, with the assumption stated.
	s = snap(t, "false", "false", strings.Replace(se, "EXPORT", "", 1))
	r, err := WhyMissing(s, WhyMissingOptions{Host: "api.example.com", Gateway: "istio-system/istiod"})
	if err != nil {
		t.Fatal(err)
	}
	if a := r.Gateways[0].Assumptions; len(a) == 0 || !strings.Contains(strings.Join(a, " "), "not labelled istio=egressgateway") {
		t.Errorf("assumptions = %v", a)
	}
}

func TestSelfLoopWarning(t *testing.T) {
	gwSvc := "apiVersion: v1\nkind: Service\nmetadata: {name: istio-egressgateway, namespace: istio-system}\nspec:\n  selector: {istio: egressgateway}\n  ports: [{name: http2, port: 80, targetPort: 8080}]\n"
	loop := strings.Replace(boundVS, "host: api.example.com, port:", "host: istio-egressgateway.istio-system.svc.cluster.local, port:", 1)
	loop = strings.Replace(loop, "match: [{port: 80}]", "match: [{port: 80, gateways: [istio-system/egress]}]", 1)
	v := verdict(t, snap(t, "false", "false", strings.Replace(se, "EXPORT", "", 1), gwSvc, loop), "api.example.com", 80)
	found := false
	for _, w := range v.Warnings {
		found = found || w.Code == "GATEWAY_ROUTES_TO_ITSELF"
	}
	if !found {
		t.Errorf("no self-loop warning: %+v", v.Warnings)
	}
	// the cluster is there, but the verdict does not claim the route reaches it (blind audit
	// 60 r10b)
	if strings.Contains(v.Message, "a route bound to it reaches it") || !strings.Contains(v.Message, "sends it back to the gateway's own Service") {
		t.Errorf("message: %s", v.Message)
	}
	// with PILOT_FILTER_GATEWAY_CLUSTER_CONFIG the cluster is absent, and the fix changes the
	// looping route's destination, not "add a route" (which would not win over it; blind audit
	// 63 b7-03)
	v = verdict(t, snap(t, "true", "false", strings.Replace(se, "EXPORT", "", 1), gwSvc, loop), "api.example.com", 80)
	if v.Cause != CauseNotReferenced || !strings.HasPrefix(v.Culprit, "VirtualService ") || !strings.Contains(v.Fix, "Set the gateway-side destination to the external host") {
		t.Errorf("flag on: cause %s culprit %q fix %q", v.Cause, v.Culprit, v.Fix)
	}
}

// TestUnreadableInputs: a kind the user may not list either cannot change a gateway's verdict
// (said in its row) or makes the verdict INPUT_UNKNOWN, keeping what could be read in the
// message: never an OK resting on an unread mesh ConfigMap.
func TestUnreadableInputs(t *testing.T) {
	for _, c := range []struct {
		forbidden []string
		cause     string
		says      string
	}{
		{nil, CauseOK, ""},
		{[]string{snapshot.KindConfigMap}, CauseInputUnknown, "With what could be read: the cluster is present"},
		{[]string{snapshot.KindNamespace}, CauseInputUnknown, "Namespaces (forbidden to list namespaces)"},
		{[]string{snapshot.KindSidecar}, CauseOK, "Sidecar resources shape sidecars' configuration"},
		{[]string{snapshot.KindEnvoyFilter, snapshot.KindWorkloadEntry}, CauseOK, "PILOT_FILTER_GATEWAY_CLUSTER_CONFIG is off"},
		{[]string{snapshot.KindDestinationRule}, CauseInputUnknown, "DestinationRules (forbidden to list destinationrules)"},
	} {
		snap, err := loadPathFixture(filepath.Join("testdata", "paths", "ok-http-via-gateway.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range c.forbidden {
			snap.Unknown[k] = "forbidden to list " + strings.ToLower(k) + "s"
			if k == snapshot.KindConfigMap {
				snap.MeshConfigs = map[string]*snapshot.MeshConfigSource{}
			}
		}
		rep, err := WhyMissing(snap, WhyMissingOptions{Host: "api.example.com", Port: 80})
		if err != nil {
			t.Fatal(err)
		}
		g := rep.Gateways[0]
		text := g.Message
		for _, s := range g.Steps {
			text += "\n" + s.Summary
		}
		if g.Cause != c.cause || !strings.Contains(text, c.says) {
			t.Errorf("forbidden %v: cause %s, want %s mentioning %q:\n%s", c.forbidden, g.Cause, c.cause, c.says, text)
		}
	}
}

// A verdict no unread kind can change stands, with the reason: a host no entry declares does not
// depend on DestinationRules.
func TestUnreadableInputsIndependentVerdict(t *testing.T) {
	snap, err := loadPathFixture(filepath.Join("testdata", "paths", "ok-http-via-gateway.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	snap.Unknown[snapshot.KindDestinationRule] = "forbidden to list destinationrules"
	rep, err := WhyMissing(snap, WhyMissingOptions{Host: "nothing.example.org", Port: 80})
	if err != nil {
		t.Fatal(err)
	}
	g := rep.Gateways[0]
	says := false
	for _, s := range g.Steps {
		says = says || strings.Contains(s.Summary, "only ServiceEntries and Services declare hosts")
	}
	if g.Cause != CauseHostNotFound || !says {
		t.Errorf("cause %s (want %s), steps %+v", g.Cause, CauseHostNotFound, g.Steps)
	}
}

// TestHostNotFoundEntryProtocol: the ServiceEntry the fix writes for an undeclared host takes the
// protocol of the routes that send traffic there (an http route on 9000: HTTP; a tcp route:
// TCP), and the port's usual protocol only when no route says.
func TestHostNotFoundEntryProtocol(t *testing.T) {
	httpOn9000 := strings.Replace(boundVS, "port: {number: 80}", "port: {number: 9000}", 1)
	tcpOn9000 := "apiVersion: networking.istio.io/v1\nkind: VirtualService\nmetadata: {name: api, namespace: team-a}\nspec:\n  hosts: [api.example.com]\n  gateways: [istio-system/egress]\n  tcp:\n  - match: [{port: 80}]\n    route: [{destination: {host: api.example.com, port: {number: 9000}}}]\n"
	for _, tc := range []struct {
		vs, want string
		port     uint32
	}{
		{httpOn9000, "protocol: HTTP", 9000},
		{tcpOn9000, "protocol: TCP", 9000},
		{"", "protocol: TLS", 443},
	} {
		docs := []string{}
		if tc.vs != "" {
			docs = append(docs, tc.vs)
		}
		v := verdict(t, snap(t, "false", "false", docs...), "api.example.com", tc.port)
		if v.Cause != CauseHostNotFound || !strings.Contains(v.Fix, tc.want) {
			t.Errorf("port %d: %s, fix %q, want %s", tc.port, v.Cause, v.Fix, tc.want)
		}
	}
}

// TestPortNotDeclaredFixNamesProtocol: the fix for an entry that lacks the routed port adds the
// port with the protocol of the routes sending the host there, and keeps the entry's other ports
// (it was a "<HTTP|TLS|TCP>" placeholder).
func TestPortNotDeclaredFixNamesProtocol(t *testing.T) {
	for _, c := range []struct {
		name, entry, vs string
		port            uint32
		want            []string
	}{
		{"http route", `
apiVersion: networking.istio.io/v1
kind: ServiceEntry
metadata: {name: api, namespace: team-a}
spec:
  hosts: [api.example.com]
  resolution: DNS
  ports: [{number: 443, name: tls, protocol: TLS}]`, `
apiVersion: networking.istio.io/v1
kind: VirtualService
metadata: {name: api, namespace: team-a}
spec:
  hosts: [api.example.com]
  gateways: [istio-system/egress]
  http: [{route: [{destination: {host: api.example.com, port: {number: 80}}}]}]`, 80,
			[]string{"number: 443\n    name: tls\n    protocol: TLS", "number: 80\n    name: http-80\n    protocol: HTTP"}},
		{"tcp route on a TLS-looking port", `
apiVersion: networking.istio.io/v1
kind: ServiceEntry
metadata: {name: db, namespace: team-a}
spec:
  hosts: [api.example.com]
  resolution: DNS
  ports: [{number: 5432, name: tcp-pg, protocol: TCP, targetPort: 15432}]`, `
apiVersion: networking.istio.io/v1
kind: VirtualService
metadata: {name: db, namespace: team-a}
spec:
  hosts: [api.example.com]
  gateways: [istio-system/egress]
  tcp: [{match: [{port: 443}], route: [{destination: {host: api.example.com, port: {number: 443}}}]}]`, 443,
			[]string{"number: 5432\n    name: tcp-pg\n    protocol: TCP\n    targetPort: 15432", "number: 443\n    name: tcp-443\n    protocol: TCP"}},
	} {
		v := verdict(t, snap(t, "false", "false", c.entry, c.vs), "api.example.com", c.port)
		if v.Cause != CausePortNotDeclared {
			t.Errorf("%s: cause %s, want %s: %s", c.name, v.Cause, CausePortNotDeclared, v.Message)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(v.Fix, w) {
				t.Errorf("%s: fix lacks %q:\n%s", c.name, w, v.Fix)
			}
		}
		if strings.Contains(v.Fix, "<") {
			t.Errorf("%s: fix has a placeholder:\n%s", c.name, v.Fix)
		}
	}
}

// TestTLSEntryBehindHTTPServer: an HTTP gateway server with a bound http route for a host whose
// entry declares only TLS ports gets TLS_ENTRY_BEHIND_HTTP_SERVER (clients can only send TLS
// there); the TLS origination setup, whose entry also declares a plaintext HTTP port that the
// clients use, does not (blind audit 18 #13).
func TestTLSEntryBehindHTTPServer(t *testing.T) {
	vs := `
apiVersion: networking.istio.io/v1
kind: VirtualService
metadata: {name: api, namespace: team-a}
spec:
  hosts: [api.example.com]
  gateways: [istio-system/egress]
  http: [{match: [{port: 80}], route: [{destination: {host: api.example.com, port: {number: 443}}}]}]`
	for _, c := range []struct {
		ports string
		want  bool
	}{
		{"[{number: 443, name: https, protocol: HTTPS}]", true},
		{"[{number: 80, name: http, protocol: HTTP}, {number: 443, name: https, protocol: HTTPS}]", false},
	} {
		entry := `
apiVersion: networking.istio.io/v1
kind: ServiceEntry
metadata: {name: api, namespace: team-a}
spec:
  hosts: [api.example.com]
  resolution: DNS
  ports: ` + c.ports
		rep, err := ExplainListener(snap(t, "false", "false", entry, vs), ExplainListenerOptions{Host: "api.example.com", Port: 80, Gateway: "istio-system/istio-egressgateway"})
		if err != nil {
			t.Fatal(err)
		}
		got := slices.ContainsFunc(rep.Findings, func(f Finding) bool { return f.Code == ListenerTLSBehindHTTP })
		if got != c.want {
			t.Errorf("ports %s: TLS_ENTRY_BEHIND_HTTP_SERVER %t, want %t: %+v", c.ports, got, c.want, rep.Findings)
		}
	}
}

// TestUnreadNamespacesClientAssumed: with Namespaces unreadable, the path's INPUT_UNKNOWN says
// the client was taken for a sidecar, since whether its namespace is ambient is in the labels
// that could not be read (blind audit 67 N7: "from sidecar analytics" for an ambient client).
func TestUnreadNamespacesClientAssumed(t *testing.T) {
	snap, err := loadPathFixture(filepath.Join("testdata", "paths", "ok-http-via-gateway.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	snap.Unknown[snapshot.KindNamespace] = "forbidden to list namespaces"
	p, err := TracePath(snap, PathOptions{Host: "api.example.com", Port: 80, From: "team-a"})
	if err != nil {
		t.Fatal(err)
	}
	if p.Cause != CauseInputUnknown || !strings.Contains(p.Message, "(taking the client for a sidecar: whether team-a is ambient is in its namespace's labels, istio.io/dataplane-mode)") {
		t.Errorf("cause %s message %q", p.Cause, p.Message)
	}
}

// The header's exportTo says what it assumes when the mesh ConfigMap (the default for an entry
// without exportTo) could not be read (blind audit 108 R08b); read, it assumes nothing.
func TestExportToAssumedWhenMeshConfigUnread(t *testing.T) {
	for _, unread := range []bool{false, true} {
		snap := loadYAML(t, `apiVersion: networking.istio.io/v1
kind: ServiceEntry
metadata: {name: flights-api, namespace: travel}
spec:
  hosts: [api.flights.example]
  ports: [{number: 443, name: tls, protocol: TLS}]
  resolution: DNS`)
		if unread {
			snap.Unknown[snapshot.KindConfigMap] = "forbidden to list configmaps in namespace istio-system"
		}
		rep := NewReport(snap, "api.flights.example", 0)
		if len(rep.Services) != 1 || (rep.Services[0].ExportToAssumed != "") != unread {
			t.Errorf("unread=%v: %+v", unread, rep.Services)
		}
	}
}
