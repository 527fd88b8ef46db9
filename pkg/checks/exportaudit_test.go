package checks

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kubectl-egress/kubectl-egress/pkg/loader"
	"github.com/kubectl-egress/kubectl-egress/pkg/snapshot"
)

func codes(r *AuditReport) []string {
	var out []string
	for _, f := range r.Findings {
		out = append(out, f.Code+" "+f.Ref()+" missing="+strings.Join(f.MissingIn, ","))
	}
	return out
}

func TestExportAudit(t *testing.T) {
	clientNs := "apiVersion: v1\nkind: Namespace\nmetadata: {name: team-b, labels: {istio-injection: enabled}}\n"
	gwSvc := "apiVersion: v1\nkind: Service\nmetadata: {name: istio-egressgateway, namespace: istio-system}\nspec:\n  selector: {istio: egressgateway}\n  ports: [{name: http2, port: 80, targetPort: 8080}]\n"
	meshVS := `
apiVersion: networking.istio.io/v1
kind: VirtualService
metadata: {name: via-egress, namespace: team-b}
spec:
  hosts: [api.example.com]
  gateways: [mesh]
  http:
  - route: [{destination: {host: istio-egressgateway.istio-system.svc.cluster.local, subset: egress, port: {number: 80}}}]
`
	meshVSNoSubset := strings.Replace(meshVS, "subset: egress, ", "", 1)
	hiddenGwSvc := strings.Replace(gwSvc, "namespace: istio-system}", "namespace: istio-system, annotations: {networking.istio.io/exportTo: \".\"}}", 1)
	meshDefault := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: istio, namespace: istio-system}\ndata:\n  mesh: |\n    defaultServiceExportTo: [\".\"]\n"
	backend := "apiVersion: v1\nkind: Service\nmetadata: {name: backend, namespace: team-a, annotations: {networking.istio.io/exportTo: \".\"}}\nspec:\n  selector: {app: backend}\n  ports: [{name: http, port: 80}]\n"
	for _, c := range []struct {
		name string
		docs []string
		want []string
	}{
		{"control", []string{strings.Replace(se, "EXPORT", "", 1), boundVS}, nil},
		{"gateway Service hidden by its exportTo annotation", []string{strings.Replace(se, "EXPORT", "", 1), clientNs, hiddenGwSvc, meshVSNoSubset},
			[]string{"SERVICE_NOT_EXPORTED_TO_CLIENT_NAMESPACE Service istio-system/istio-egressgateway missing=team-b"}},
		{"gateway Service hidden by the mesh default", []string{strings.Replace(se, "EXPORT", "", 1), clientNs, gwSvc, meshVSNoSubset, meshDefault},
			[]string{"SERVICE_NOT_EXPORTED_TO_CLIENT_NAMESPACE Service istio-system/istio-egressgateway missing=team-b"}},
		{"gateway Service visible: control", []string{strings.Replace(se, "EXPORT", "", 1), clientNs, gwSvc, meshVSNoSubset}, nil},
		{"gateway route to a Service private to its namespace", []string{strings.Replace(se, "EXPORT", "", 1), backend,
			strings.Replace(boundVS, "destination: {host: api.example.com", "destination: {host: backend.team-a.svc.cluster.local", 1)},
			[]string{"SERVICE_NOT_EXPORTED_TO_GATEWAY_NAMESPACE Service team-a/backend missing=istio-system"}},
		{"entry private to its namespace", []string{strings.Replace(se, "EXPORT", `exportTo: ["."]`, 1), boundVS},
			[]string{"SE_NOT_EXPORTED_TO_GATEWAY_NAMESPACE ServiceEntry team-a/api missing=istio-system"}},
		{"virtual service private to its namespace", []string{strings.Replace(se, "EXPORT", "", 1), strings.Replace(boundVS, "gateways:", "exportTo: [\".\"]\n  gateways:", 1)},
			[]string{"VS_NOT_EXPORTED_TO_GATEWAY_NAMESPACE VirtualService team-a/api missing=istio-system"}},
		{"gateway subset rule in another client namespace", []string{strings.Replace(se, "EXPORT", "", 1), clientNs, gwSvc, meshVS,
			"apiVersion: networking.istio.io/v1\nkind: DestinationRule\nmetadata: {name: gw, namespace: team-a}\nspec:\n  exportTo: [\"*\"]\n  host: istio-egressgateway.istio-system.svc.cluster.local\n  subsets: [{name: egress}]\n"},
			[]string{"DR_NOT_ON_LOOKUP_PATH DestinationRule team-a/gw missing=team-b"}},
		{"gateway subset rule in the service namespace", []string{strings.Replace(se, "EXPORT", "", 1), clientNs, gwSvc, meshVS,
			"apiVersion: networking.istio.io/v1\nkind: DestinationRule\nmetadata: {name: gw, namespace: istio-system}\nspec:\n  host: istio-egressgateway.istio-system.svc.cluster.local\n  subsets: [{name: egress}]\n"},
			nil},
		{"sidecar imports an entry not exported to it", []string{strings.Replace(se, "EXPORT", `exportTo: ["."]`, 1), clientNs,
			"apiVersion: networking.istio.io/v1\nkind: Sidecar\nmetadata: {name: default, namespace: team-b}\nspec:\n  egress: [{hosts: [\"./*\", \"team-a/api.example.com\"]}]\n"},
			[]string{"SE_NOT_EXPORTED_TO_SIDECAR_IMPORTER ServiceEntry team-a/api missing=team-b"}},
		{"sidecar imports a host from the wrong namespace", []string{strings.Replace(se, "EXPORT", "", 1), clientNs, boundVS,
			"apiVersion: networking.istio.io/v1\nkind: Sidecar\nmetadata: {name: default, namespace: team-b}\nspec:\n  egress: [{hosts: [\"istio-system/api.example.com\"]}]\n"},
			[]string{"SIDECAR_IMPORTS_UNDECLARED_HOST Sidecar team-b/default missing="}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := codes(ExportAudit(snap(t, "false", "false", c.docs...), AuditOptions{}))
			if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
				t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(c.want, "\n"))
			}
		})
	}
}

// TestExportedBeyondUse: an entry exported everywhere while the mesh shows the intent to
// restrict egress gets an Info suggesting the namespaces that use it; two shapes of the intent
// (Sidecars, REGISTRY_ONLY), each with controls.
func TestExportedBeyondUse(t *testing.T) {
	ns := func(name string, client bool) string {
		if client {
			return "apiVersion: v1\nkind: Namespace\nmetadata: {name: " + name + ", labels: {istio-injection: enabled}}\n"
		}
		return "apiVersion: v1\nkind: Namespace\nmetadata: {name: " + name + "}\n"
	}
	sidecar := func(namespace string, hosts ...string) string {
		return "apiVersion: networking.istio.io/v1\nkind: Sidecar\nmetadata: {name: default, namespace: " + namespace + "}\nspec:\n  egress: [{hosts: [\"" + strings.Join(hosts, "\", \"") + "\"]}]\n"
	}
	stripe := "apiVersion: networking.istio.io/v1\nkind: ServiceEntry\nmetadata: {name: stripe, namespace: vendors}\nspec:\n  hosts: [api.stripe.com]\n  location: MESH_EXTERNAL\n  resolution: DNS\n  ports: [{number: 443, name: tls, protocol: TLS}]\n"
	db := "apiVersion: networking.istio.io/v1\nkind: ServiceEntry\nmetadata: {name: partner-db, namespace: team-x}\nspec:\n  hosts: [db.partner.io]\n  EXPORT\n  location: MESH_EXTERNAL\n  resolution: DNS\n  ports: [{number: 80, name: http, protocol: HTTP}]\n"
	dbRoute := "apiVersion: networking.istio.io/v1\nkind: VirtualService\nmetadata: {name: db, namespace: apps}\nspec:\n  hosts: [db.partner.io]\n  exportTo: [\".\"]\n  http:\n  - timeout: 3s\n    route: [{destination: {host: db.partner.io}}]\n"
	viaGateway := "apiVersion: networking.istio.io/v1\nkind: VirtualService\nmetadata: {name: db-via-egress, namespace: team-x}\nspec:\n  hosts: [db.partner.io]\n  EXPORT\n  http:\n  - route: [{destination: {host: istio-egressgateway.istio-system.svc.cluster.local, port: {number: 80}}}]\n"
	registryOnly := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: istio, namespace: istio-system}\ndata:\n  mesh: |\n    outboundTrafficPolicy: {mode: REGISTRY_ONLY}\n"
	for _, c := range []struct {
		name    string
		docs    []string
		want    string // "" = no finding
		wantFix []string
		notFix  []string
	}{
		{"Sidecars import it in one namespace of three",
			[]string{ns("vendors", false), ns("payments", true), ns("catalog", true), ns("search", true), stripe,
				sidecar("payments", "./*", "vendors/api.stripe.com"), sidecar("catalog", "./*")},
			"ServiceEntry vendors/stripe", []string{`- "."`, `- "payments"`}, []string{"catalog", "search"}},
		{"Sidecar naming the host in the wrong namespace still counts as a use",
			[]string{ns("vendors", false), ns("payments", true), ns("catalog", true), stripe,
				sidecar("payments", "./*", "vendors/api.stripe.com"), sidecar("catalog", "./*", "istio-system/api.stripe.com"),
				ns("search", true), sidecar("search", "./*", "istio-system/*")},
			"ServiceEntry vendors/stripe", []string{`- "catalog"`, `- "payments"`}, []string{"search"}},
		{"every client namespace imports it: control",
			[]string{ns("vendors", false), ns("payments", true), ns("catalog", true), stripe,
				sidecar("payments", "*/api.stripe.com"), sidecar("catalog", "./*", "vendors/*")},
			"", nil, nil},
		{"REGISTRY_ONLY, one namespace routes to it",
			[]string{ns("team-x", false), ns("apps", true), ns("web", true), strings.Replace(db, "EXPORT", `exportTo: ["*"]`, 1), dbRoute, registryOnly},
			"ServiceEntry team-x/partner-db", []string{`- "apps"`}, []string{"web"}},
		{"REGISTRY_ONLY, a public mesh VirtualService sends the host to the egress gateway: control",
			[]string{ns("team-x", false), ns("apps", true), ns("web", true), strings.Replace(db, "EXPORT", `exportTo: ["*"]`, 1), strings.Replace(viaGateway, "EXPORT", "", 1), registryOnly},
			"", nil, nil},
		{"REGISTRY_ONLY, the mesh VirtualService to the egress gateway is exported to apps only",
			[]string{ns("team-x", false), ns("apps", true), ns("web", true), strings.Replace(db, "EXPORT", `exportTo: ["*"]`, 1), strings.Replace(viaGateway, "EXPORT", `exportTo: [".", "apps"]`, 1), registryOnly},
			"ServiceEntry team-x/partner-db", []string{`- "apps"`}, []string{"web"}},
		{"ALLOW_ANY and no Sidecar: control",
			[]string{ns("team-x", false), ns("apps", true), ns("web", true), strings.Replace(db, "EXPORT", `exportTo: ["*"]`, 1), dbRoute},
			"", nil, nil},
		{"REGISTRY_ONLY, entry already narrowed: control",
			[]string{ns("team-x", false), ns("apps", true), ns("web", true), strings.Replace(db, "EXPORT", `exportTo: [".", "apps"]`, 1), dbRoute, registryOnly},
			"", nil, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			rep := ExportAudit(snap(t, "false", "false", c.docs...), AuditOptions{})
			var got []AuditFinding
			for _, f := range rep.Findings {
				if f.Code == AuditSEExportedEverywhere {
					got = append(got, f)
				}
			}
			if c.want == "" {
				if len(got) != 0 {
					t.Fatalf("want no %s, got %s: %s", AuditSEExportedEverywhere, got[0].Ref(), got[0].Message)
				}
				return
			}
			if len(got) != 1 || got[0].Ref() != c.want || got[0].Level != LevelInfo {
				t.Fatalf("want one Info %s on %s, got %+v", AuditSEExportedEverywhere, c.want, got)
			}
			for _, s := range c.wantFix {
				if !strings.Contains(got[0].Fix, s) {
					t.Errorf("fix lacks %q:\n%s", s, got[0].Fix)
				}
			}
			for _, s := range c.notFix {
				if strings.Contains(got[0].Fix, s) {
					t.Errorf("fix keeps %q:\n%s", s, got[0].Fix)
				}
			}
		})
	}
}

// TestExportAuditFixCoversEveryNamespace: an entry exported by name that three client
// namespaces need through a public mesh route is one finding missing in all three, and its fix
// adds all three to exportTo (not only the first namespace the audit met, which would leave the
// others broken).
func TestExportAuditFixCoversEveryNamespace(t *testing.T) {
	rep := auditPathsBase(t, []string{"team-b", "team-c", "team-d", "team-f"}, `apiVersion: networking.istio.io/v1
kind: ServiceEntry
metadata: {name: ext, namespace: team-a}
spec:
  hosts: [ext.api.example]
  exportTo: [team-a, team-c]
  resolution: DNS
  ports: [{number: 80, name: http, protocol: HTTP}]`, `apiVersion: networking.istio.io/v1
kind: VirtualService
metadata: {name: ext, namespace: team-b}
spec:
  hosts: [ext.api.example]
  http:
  - route: [{destination: {host: ext.api.example, port: {number: 80}}}]`)
	for _, f := range rep.Findings {
		if f.Code != AuditSENotExportedToClient {
			continue
		}
		if !slices.Equal(f.MissingIn, []string{"team-b", "team-d", "team-f"}) {
			t.Errorf("missingIn %v", f.MissingIn)
		}
		for _, ns := range []string{"team-a", "team-c", "team-b", "team-d", "team-f"} {
			if !strings.Contains(f.Fix, `"`+ns+`"`) {
				t.Errorf("fix does not keep or add %s:\n%s", ns, f.Fix)
			}
		}
		return
	}
	t.Fatalf("no %s finding: %+v", AuditSENotExportedToClient, rep.Findings)
}

// TestExportAuditSubsetRuleOnLookupPath: a subset defined by a DestinationRule in the service's
// namespace that is not exported to a client namespace is DR_NOT_EXPORTED_TO_CLIENT_NAMESPACE
// there (fix: widen its exportTo), not DR_NOT_ON_LOOKUP_PATH (the rule is on the path); where a
// rule of the client's own namespace hides it, the finding is about that rule.
func TestExportAuditSubsetRuleOnLookupPath(t *testing.T) {
	rep := auditPathsBase(t, []string{"team-b", "team-c"}, `apiVersion: networking.istio.io/v1
kind: VirtualService
metadata: {name: pay, namespace: team-a}
spec:
  hosts: [api.pay.example]
  http:
  - route: [{destination: {host: istio-egressgateway.istio-system.svc.cluster.local, subset: pay, port: {number: 80}}}]`, `apiVersion: networking.istio.io/v1
kind: DestinationRule
metadata: {name: egw-subsets, namespace: istio-system}
spec:
  host: istio-egressgateway.istio-system.svc.cluster.local
  exportTo: [team-a, istio-system]
  subsets: [{name: pay}]`, `apiVersion: networking.istio.io/v1
kind: DestinationRule
metadata: {name: egw-local, namespace: team-c}
spec:
  host: istio-egressgateway.istio-system.svc.cluster.local
  exportTo: ["."]
  subsets: [{name: other}]`)
	got := map[string]AuditFinding{}
	for _, f := range rep.Findings {
		got[f.Code+" "+f.Ref()] = f
	}
	f, ok := got[AuditDRNotExportedToClient+" DestinationRule istio-system/egw-subsets"]
	if !ok || !slices.Equal(f.MissingIn, []string{"team-b"}) || !strings.Contains(f.Fix, `"team-b"`) {
		t.Errorf("not-exported rule: %+v", got)
	}
	if f, ok := got[AuditSubsetUndefined+" DestinationRule team-c/egw-local"]; !ok || !slices.Equal(f.MissingIn, []string{"team-c"}) {
		t.Errorf("shadowing rule: %+v", got)
	}
	if _, bad := got[AuditDRNotOnLookupPath+" DestinationRule istio-system/egw-subsets"]; bad {
		t.Errorf("a rule on the lookup path reported off it: %+v", got)
	}
}

// auditPathsBase audits the path fixtures' base mesh with more client namespaces (labelled
// istio-injection: enabled) and the documents.
func auditPathsBase(t *testing.T, clients []string, docs ...string) *AuditReport {
	t.Helper()
	base, err := os.ReadFile(filepath.Join("testdata", "paths", "_base.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	all := []string{string(base)}
	for _, ns := range clients {
		all = append(all, "apiVersion: v1\nkind: Namespace\nmetadata: {name: "+ns+", labels: {istio-injection: enabled}}")
	}
	return ExportAudit(loadYAML(t, append(all, docs...)...), AuditOptions{})
}

// TestExportToPatchAllText: the audit's directly written exportTo fix is the patch's own text.
func TestExportToPatchAllText(t *testing.T) {
	for _, tc := range []struct {
		declared []string
		own      string
		add      []string
	}{
		{nil, "team-a", []string{"istio-system"}},
		{[]string{"."}, "team-a", []string{"team-a", "team-b", "egress"}},
		{[]string{"~"}, "apps", []string{"x", "y"}},
		{[]string{"team-b", "."}, "team-a", []string{"team-b", "team-c", "team-a"}},
		{[]string{"weird: ns"}, "n", []string{"true", "1.5"}},
	} {
		ref := "ServiceEntry " + tc.own + "/api"
		want := exportToPatchAll(ref, tc.declared, tc.own, tc.add).Text()
		if got := exportToPatchAllText(ref, tc.declared, tc.own, tc.add); got != want {
			t.Errorf("%v + %v:\n got %q\nwant %q", tc.declared, tc.add, got, want)
		}
	}
}

// TestWidenedExportToAll: every namespace added once, after what the resource declares, and the
// own namespace not again when "." covers it, whether the namespaces come sorted or not.
func TestWidenedExportToAll(t *testing.T) {
	for _, tc := range []struct {
		declared, add []string
		want          []string
	}{
		{[]string{"."}, []string{"a", "b", "b", "c"}, []string{".", "a", "b", "c"}},
		{[]string{"."}, []string{"own", "a", "own"}, []string{".", "a"}},
		{[]string{"b", "."}, []string{"c", "a", "b", "c", "a"}, []string{"b", ".", "c", "a"}},
		{nil, []string{"a", "b"}, []string{".", "a", "b"}},
		{[]string{"~"}, []string{"z", "own", "y"}, []string{".", "z", "y"}},
		{[]string{"x"}, []string{"own", "own", "x"}, []string{"x", "own"}},
	} {
		if got := widenedExportToAll(tc.declared, "own", tc.add); !slices.Equal(got, tc.want) {
			t.Errorf("%v + %v = %v, want %v", tc.declared, tc.add, got, tc.want)
		}
	}
}

// TestDuplicateHostNamesSidecarChoice: two public entries for one host; the sidecars of the
// namespace that declares one of them take their own (sidecar.go selectServices), the gateway's
// namespace the oldest. Both the path's warning and export-audit's finding name the entry used.
func TestDuplicateHostNamesSidecarChoice(t *testing.T) {
	y := `apiVersion: v1
kind: Namespace
metadata: {name: istio-system}
---
apiVersion: v1
kind: Namespace
metadata: {name: mapping, labels: {istio-injection: enabled}}
---
apiVersion: v1
kind: Namespace
metadata: {name: partners}
---
apiVersion: networking.istio.io/v1
kind: ServiceEntry
metadata: {name: indexer, namespace: partners, creationTimestamp: "2020-01-01T00:00:00Z"}
spec:
  hosts: [search.indexer.example]
  ports: [{number: 80, name: http, protocol: HTTP}]
  resolution: DNS
---
apiVersion: networking.istio.io/v1
kind: ServiceEntry
metadata: {name: indexer, namespace: mapping, creationTimestamp: "2025-01-01T00:00:00Z"}
spec:
  hosts: [search.indexer.example]
  ports: [{number: 9090, name: http, protocol: HTTP}]
  resolution: DNS
`
	snap, err := loader.FromFiles([]string{"-"}, strings.NewReader(y), loader.Options{Lenient: true})
	if err != nil {
		t.Fatal(err)
	}
	p, err := TracePath(snap, PathOptions{Host: "search.indexer.example", Port: 9090, From: "mapping", Call: "http"})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, w := range p.Warnings {
		if w.Code == AuditDuplicateHost {
			found = true
			if w.Resource != "ServiceEntry mapping/indexer" || !strings.Contains(w.Message, "ServiceEntry mapping/indexer is used") {
				t.Errorf("path warning: %s: %s", w.Resource, w.Message)
			}
		}
	}
	if !found {
		t.Errorf("no %s warning on the path: %+v", AuditDuplicateHost, p.Warnings)
	}
	for _, f := range ExportAudit(snap, AuditOptions{}).Findings {
		if f.Code == AuditDuplicateHost && slices.Equal(f.NeededIn, []string{"mapping"}) && f.Ref() != "ServiceEntry mapping/indexer" {
			t.Errorf("export-audit names %s for namespace mapping: %s", f.Ref(), f.Message)
		}
	}
}

// TestExportAuditNamesHiddenOriginationRule: on every path fixture that fails with
// TLS_NOT_ORIGINATED_AT_GATEWAY because the rule that would originate TLS is not exported to the
// gateway's namespace (the path's fix exports it), export-audit reports
// DR_TLS_NOT_EXPORTED_TO_GATEWAY_NAMESPACE for the same rule; on the other such fixtures it does
// not (a rule off the lookup path, a DISABLE, no rule at all: exporting is no fix there).
func TestExportAuditNamesHiddenOriginationRule(t *testing.T) {
	hidden, other := 0, 0
	for _, c := range readPathCases(t) {
		if c.cause != PathNotOriginated {
			continue
		}
		snap, p := tracePathCase(t, c)
		rep := ExportAudit(snap, AuditOptions{})
		var got []string
		for _, f := range rep.Findings {
			if f.Code == AuditDRTLSNotExportedToGW {
				got = append(got, "DestinationRule "+f.Namespace+"/"+f.Name)
			}
		}
		exports := p.Patch != nil && strings.Contains(p.Patch.Text(), "exportTo")
		switch {
		case exports:
			hidden++
			if !slices.Contains(got, p.Culprit) {
				t.Errorf("%s: the path exports %s to the gateway's namespace; export-audit reports %v", filepath.Base(c.file), p.Culprit, got)
			}
		case len(got) > 0:
			t.Errorf("%s: the path's fix is not an exportTo (%s); export-audit reports %v", filepath.Base(c.file), p.Cause, got)
		default:
			other++
		}
	}
	if hidden < 2 || other < 2 {
		t.Fatalf("fixtures: %d with a hidden origination rule, %d other (want 2 or more of each)", hidden, other)
	}
}

// VS_MESH_ROUTES_EXPORTED_TO_NO_CLIENT: a mesh-and-gateway VirtualService exported where no
// sidecar runs, not to its own (injected) namespace, on two shapes (tls routes exported to the
// gateway's namespace only; http routes exported to the gateway's and a namespace without
// sidecars), and a control whose exportTo lists another namespace with sidecars (blind audit
// 54 a3).
func TestExportAuditMeshRoutesSeenByNoClient(t *testing.T) {
	base := []string{
		"apiVersion: v1\nkind: Namespace\nmetadata: {name: istio-system}",
		"apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: istio-egressgateway, namespace: istio-system, labels: {istio: egressgateway}}\nspec:\n  selector: {matchLabels: {istio: egressgateway}}\n  template:\n    metadata: {labels: {istio: egressgateway}}\n    spec: {containers: [{name: istio-proxy, image: auto}]}",
		"apiVersion: v1\nkind: Service\nmetadata: {name: istio-egressgateway, namespace: istio-system}\nspec:\n  selector: {istio: egressgateway}\n  ports: [{name: http2, port: 80, targetPort: 8080}, {name: https, port: 443, targetPort: 8443}]",
		"apiVersion: v1\nkind: Namespace\nmetadata: {name: billing, labels: {istio-injection: enabled}}",
		"apiVersion: v1\nkind: Namespace\nmetadata: {name: shop, labels: {istio.io/rev: stable}}",
		"apiVersion: v1\nkind: Namespace\nmetadata: {name: monitoring}",
		"apiVersion: networking.istio.io/v1\nkind: Gateway\nmetadata: {name: out, namespace: istio-system}\nspec:\n  selector: {istio: egressgateway}\n  servers:\n  - {port: {number: 80, name: http, protocol: HTTP}, hosts: ['*']}\n  - {port: {number: 443, name: tls, protocol: TLS}, hosts: ['*'], tls: {mode: PASSTHROUGH}}",
	}
	for _, tc := range []struct {
		name string
		docs []string
		want string // the VirtualService reported, "" for none
	}{
		{"tls, gateway namespace only", []string{
			"apiVersion: networking.istio.io/v1\nkind: ServiceEntry\nmetadata: {name: xero, namespace: billing}\nspec:\n  hosts: [api.xero.example]\n  resolution: DNS\n  ports: [{number: 443, name: tls, protocol: TLS}]",
			"apiVersion: networking.istio.io/v1\nkind: VirtualService\nmetadata: {name: xero, namespace: billing}\nspec:\n  hosts: [api.xero.example]\n  exportTo: [istio-system]\n  gateways: [mesh, istio-system/out]\n  tls:\n  - match: [{gateways: [mesh], port: 443, sniHosts: [api.xero.example]}]\n    route: [{destination: {host: istio-egressgateway.istio-system.svc.cluster.local, port: {number: 443}}}]\n  - match: [{gateways: [istio-system/out], port: 443, sniHosts: [api.xero.example]}]\n    route: [{destination: {host: api.xero.example, port: {number: 443}}}]"},
			"billing/xero"},
		{"http, gateway and a namespace without sidecars", []string{
			"apiVersion: networking.istio.io/v1\nkind: ServiceEntry\nmetadata: {name: catalog, namespace: shop}\nspec:\n  hosts: [catalog.vendor.example]\n  resolution: DNS\n  ports: [{number: 80, name: http, protocol: HTTP}]",
			"apiVersion: networking.istio.io/v1\nkind: VirtualService\nmetadata: {name: catalog-out, namespace: shop}\nspec:\n  hosts: [catalog.vendor.example]\n  exportTo: [istio-system, monitoring]\n  gateways: [istio-system/out, mesh]\n  http:\n  - match: [{gateways: [mesh]}]\n    route: [{destination: {host: istio-egressgateway.istio-system.svc.cluster.local, port: {number: 80}}}]\n  - match: [{gateways: [istio-system/out]}]\n    route: [{destination: {host: catalog.vendor.example}}]"},
			"shop/catalog-out"},
		{"a configuration namespace without sidecars, exported to itself and the gateway", []string{
			"apiVersion: v1\nkind: Namespace\nmetadata: {name: egress-routes}",
			"apiVersion: networking.istio.io/v1\nkind: ServiceEntry\nmetadata: {name: weather, namespace: egress-routes}\nspec:\n  hosts: [api.weather.example]\n  resolution: DNS\n  ports: [{number: 80, name: http, protocol: HTTP}]",
			"apiVersion: networking.istio.io/v1\nkind: VirtualService\nmetadata: {name: weather, namespace: egress-routes}\nspec:\n  hosts: [api.weather.example]\n  exportTo: [., istio-system]\n  gateways: [mesh, istio-system/out]\n  http:\n  - match: [{gateways: [mesh]}]\n    route: [{destination: {host: istio-egressgateway.istio-system.svc.cluster.local, port: {number: 80}}}]\n  - match: [{gateways: [istio-system/out]}]\n    route: [{destination: {host: api.weather.example}}]"},
			"egress-routes/weather"},
		{"control: exported to another namespace with sidecars", []string{
			"apiVersion: networking.istio.io/v1\nkind: ServiceEntry\nmetadata: {name: catalog, namespace: shop}\nspec:\n  hosts: [catalog.vendor.example]\n  resolution: DNS\n  ports: [{number: 80, name: http, protocol: HTTP}]",
			"apiVersion: networking.istio.io/v1\nkind: VirtualService\nmetadata: {name: catalog-out, namespace: shop}\nspec:\n  hosts: [catalog.vendor.example]\n  exportTo: [istio-system, billing]\n  gateways: [istio-system/out, mesh]\n  http:\n  - match: [{gateways: [mesh]}]\n    route: [{destination: {host: istio-egressgateway.istio-system.svc.cluster.local, port: {number: 80}}}]\n  - match: [{gateways: [istio-system/out]}]\n    route: [{destination: {host: catalog.vendor.example}}]"},
			""},
	} {
		rep := ExportAudit(loadYAML(t, append(slices.Clone(base), tc.docs...)...), AuditOptions{})
		var got []string
		for _, f := range rep.Findings {
			if f.Code == AuditVSMeshNoClient {
				got = append(got, f.Namespace+"/"+f.Name)
				if f.Level != LevelWarning || !strings.Contains(f.Fix, "exportTo") {
					t.Errorf("%s: %s %s, fix %q", tc.name, f.Code, f.Level, f.Fix)
				}
			}
		}
		want := []string{}
		if tc.want != "" {
			want = []string{tc.want}
		}
		if !slices.Equal(got, want) && !(len(got) == 0 && len(want) == 0) {
			t.Errorf("%s: reported %v, want %v", tc.name, got, want)
		}
	}
}

// A delegate VirtualService not exported to its root's namespace: istiod drops the delegating
// route. An Error when nothing else of the root takes the requests (404 NR at the gateway), a
// Warning when the root keeps a route without conditions that takes them (blind audit 60 r3d),
// on two shapes (a classic egress gateway, a delegate in another namespace than the entry).
func TestAuditDelegateNotExported(t *testing.T) {
	gw := "apiVersion: networking.istio.io/v1\nkind: Gateway\nmetadata: {name: egress, namespace: istio-system}\nspec:\n  selector: {istio: egressgateway}\n  servers: [{port: {number: 80, name: http, protocol: HTTP}, hosts: ['*']}]"
	pod := "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: istio-egressgateway, namespace: istio-system}\nspec:\n  selector: {matchLabels: {istio: egressgateway}}\n  template:\n    metadata: {labels: {istio: egressgateway}}\n    spec: {containers: [{name: istio-proxy, image: auto}]}"
	se := "apiVersion: networking.istio.io/v1\nkind: ServiceEntry\nmetadata: {name: api, namespace: apps}\nspec:\n  hosts: [api.vendor.example]\n  resolution: DNS\n  ports: [{number: 80, name: http, protocol: HTTP}]"
	delegate := func(ns string) string {
		return "apiVersion: networking.istio.io/v1\nkind: VirtualService\nmetadata: {name: api-routes, namespace: " + ns + "}\nspec:\n  exportTo: [\".\"]\n  http:\n  - route: [{destination: {host: api.vendor.example, port: {number: 80}}}]"
	}
	root := func(ns string, fallback bool) string {
		s := "apiVersion: networking.istio.io/v1\nkind: VirtualService\nmetadata: {name: api-root, namespace: istio-system}\nspec:\n  hosts: [api.vendor.example]\n  gateways: [egress]\n  http:\n  - match: [{uri: {prefix: /v1}}]\n    delegate: {name: api-routes, namespace: " + ns + "}"
		if fallback {
			s += "\n  - route: [{destination: {host: api.vendor.example, port: {number: 80}}}]"
		}
		return s
	}
	for _, tc := range []struct {
		name, ns  string
		fallback  bool
		wantLevel string
	}{
		{"no fallback, delegate beside the entry", "apps", false, LevelError},
		{"fallback route, delegate in its own namespace", "routing", true, LevelWarning},
	} {
		rep := ExportAudit(snap(t, "false", "false", gw, pod, se, delegate(tc.ns), root(tc.ns, tc.fallback)), AuditOptions{})
		found := false
		for _, f := range rep.Findings {
			if f.Code == AuditDelegateNotExported {
				found = true
				if f.Level != tc.wantLevel || f.Namespace != tc.ns || f.Name != "api-routes" {
					t.Errorf("%s: %s %s %s/%s, want %s on %s/api-routes", tc.name, f.Code, f.Level, f.Namespace, f.Name, tc.wantLevel, tc.ns)
				}
			}
		}
		if !found {
			t.Errorf("%s: no %s in %v", tc.name, AuditDelegateNotExported, codes(rep))
		}
	}
}

// TestExportAuditGatewayAPIRoutes: a Gateway API route has no exportTo, so a route hidden by
// meshConfig.defaultVirtualServiceExportTo is named itself (not the VirtualService istiod
// generates from it) with a fix that can be applied: move it, or change the mesh default; and
// a mesh route (Gateway API or a mesh-only VirtualService) to an egress gateway's Service that
// no namespace with sidecars sees is VS_MESH_ROUTES_EXPORTED_TO_NO_CLIENT (blind audit 64 c06,
// c07, c07b; controls with the mesh default widened).
func TestExportAuditGatewayAPIRoutes(t *testing.T) {
	for _, c := range []struct {
		file, want, fix string
	}{
		{"exportaudit-route-hidden-by-mesh-default.yaml", "VS_NOT_EXPORTED_TO_GATEWAY_NAMESPACE HTTPRoute platform/echo-from-egress", "create HTTPRoute echo-from-egress in namespace istio-system"},
		{"exportaudit-route-hidden-by-mesh-default-control.yaml", "", ""},
		{"exportaudit-mesh-route-reaches-no-client.yaml", "VS_MESH_ROUTES_EXPORTED_TO_NO_CLIENT TLSRoute egress/stripe-to-egress", "meshConfig.defaultVirtualServiceExportTo"},
		{"exportaudit-mesh-vs-reaches-no-client.yaml", "VS_MESH_ROUTES_EXPORTED_TO_NO_CLIENT VirtualService egress/stripe-to-egress", "to spec.exportTo of VirtualService egress/stripe-to-egress (or \"*\")."},
		{"exportaudit-mesh-route-reaches-no-client-control.yaml", "", ""},
	} {
		snap, err := loader.FromFiles([]string{filepath.Join("testdata", "gatewayapi", c.file)}, nil, loader.Options{})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		fix := ""
		for _, f := range ExportAudit(snap, AuditOptions{}).Findings {
			got = append(got, f.Code+" "+f.Kind+" "+f.Namespace+"/"+f.Name)
			fix = f.Fix
		}
		want := []string(nil)
		if c.want != "" {
			want = []string{c.want}
		}
		if !slices.Equal(got, want) || !strings.Contains(fix, c.fix) || (c.fix == "") != (fix == "") {
			t.Errorf("%s: findings %v (fix %q), want %v (fix with %q)", c.file, got, fix, want, c.fix)
		}
	}
}

// TestWidenExportToEveryNamespace: an entry hidden from the client namespaces of a route that
// is exported everywhere is missing in each of them; up to maxListedNamespaces the fix lists
// them, beyond that it exports the entry to every namespace and says how many need it, and that
// fix clears the finding.
func TestWidenExportToEveryNamespace(t *testing.T) {
	mesh := func(clients int, exportTo string) string {
		docs := []string{"apiVersion: v1\nkind: Namespace\nmetadata: {name: istio-system}"}
		for i := 0; i <= clients; i++ {
			docs = append(docs, fmt.Sprintf("apiVersion: v1\nkind: Namespace\nmetadata: {name: team-%02d, labels: {istio-injection: enabled}}", i))
		}
		docs = append(docs, "apiVersion: networking.istio.io/v1\nkind: ServiceEntry\nmetadata: {name: api, namespace: team-00}\nspec:\n  hosts: [api.example.com]\n  exportTo: "+exportTo+"\n  resolution: DNS\n  ports: [{number: 80, name: http, protocol: HTTP}]",
			"apiVersion: networking.istio.io/v1\nkind: VirtualService\nmetadata: {name: api, namespace: team-00}\nspec:\n  hosts: [api.example.com]\n  http:\n  - timeout: 5s\n    route: [{destination: {host: api.example.com}}]")
		return strings.Join(docs, "\n---\n")
	}
	fixOf := func(doc string) (string, bool) {
		snap := loadYAML(t, doc)
		for _, f := range ExportAudit(snap, AuditOptions{}).Findings {
			if f.Code == AuditSENotExportedToClient && f.Name == "api" {
				return f.Fix, true
			}
		}
		return "", false
	}
	// 10 other client namespaces: listed.
	fix, ok := fixOf(mesh(10, `["."]`))
	if !ok || !strings.Contains(fix, `- "team-10"`) || strings.Contains(fix, `"*"`) {
		t.Errorf("10 namespaces: want them listed, got %q (found %v)", fix, ok)
	}
	// 11: every namespace, with the count.
	fix, ok = fixOf(mesh(11, `["."]`))
	want := "# ServiceEntry team-00/api (11 more namespaces need it: \"*\" exports it to every namespace; export-audit -o json lists them under missingIn)\nspec:\n  exportTo:\n  - \"*\""
	if !ok || fix != want {
		t.Errorf("11 namespaces:\n got %q\nwant %q", fix, want)
	}
	if _, ok := fixOf(mesh(11, `["*"]`)); ok {
		t.Errorf("the fix did not clear the finding")
	}
}

// TestAuditImpactTLSRouteForHiddenHost: a mesh tls route for a host no service in the client
// namespace declares is not built there (no chain takes it), so the impact is a call that
// leaves without the route, not NC; an http route for it keeps its virtual host and answers
// 503 NC (blind audit 75 c21).
func TestAuditImpactTLSRouteForHiddenHost(t *testing.T) {
	for _, tc := range []struct{ route, want string }{
		{"tls:\n  - match: [{port: 443, sniHosts: [graph.social.example]}]\n    route: [{destination: {host: graph.social.example, port: {number: 443}}}]", "PassthroughCluster"},
		{"http:\n  - route: [{destination: {host: graph.social.example, port: {number: 443}}}]", "503 NC"},
	} {
		snap := loadYAML(t, "apiVersion: v1\nkind: Namespace\nmetadata: {name: istio-system}",
			"apiVersion: v1\nkind: Namespace\nmetadata: {name: ext}",
			"apiVersion: v1\nkind: Namespace\nmetadata: {name: shop, labels: {istio-injection: enabled}}",
			"apiVersion: networking.istio.io/v1\nkind: ServiceEntry\nmetadata: {name: graph, namespace: ext}\nspec:\n  hosts: [graph.social.example]\n  exportTo: [\".\"]\n  resolution: DNS\n  ports: [{number: 443, name: tls, protocol: TLS}]",
			"apiVersion: networking.istio.io/v1\nkind: VirtualService\nmetadata: {name: graph, namespace: ext}\nspec:\n  hosts: [graph.social.example]\n  "+tc.route)
		found := false
		for _, f := range ExportAudit(snap, AuditOptions{}).Findings {
			if f.Code == AuditSENotExportedToClient {
				found = true
				if !strings.Contains(f.Impact, tc.want) {
					t.Errorf("impact %q, want %q", f.Impact, tc.want)
				}
			}
		}
		if !found {
			t.Errorf("no %s", AuditSENotExportedToClient)
		}
	}
}

// DestinationRules that could not be read (partial RBAC): a route's subset is not reported as
// defined by no rule, and the report lists the kind as unread (blind audit 102 c25b). The same
// input with the rules read reports it.
func TestExportAuditSubsetWithUnreadRules(t *testing.T) {
	base, err := os.ReadFile(filepath.Join("testdata", "paths", "_base.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	vs := `apiVersion: networking.istio.io/v1
kind: VirtualService
metadata: {name: pay, namespace: team-a}
spec:
  hosts: [api.pay.example]
  http:
  - route: [{destination: {host: istio-egressgateway.istio-system.svc.cluster.local, subset: pay, port: {number: 80}}}]`
	for _, unread := range []bool{false, true} {
		snap := loadYAML(t, string(base), vs)
		if unread {
			snap.Unknown[snapshot.KindDestinationRule] = "forbidden to list destinationrules.networking.istio.io"
		}
		rep := ExportAudit(snap, AuditOptions{})
		has := slices.ContainsFunc(rep.Findings, func(f AuditFinding) bool { return f.Code == AuditSubsetUndefined })
		if has == unread {
			t.Errorf("rules unread %v: subset finding %v: %+v", unread, has, rep.Findings)
		}
		if unread && rep.Unknown[snapshot.KindDestinationRule] == "" {
			t.Errorf("unread rules not listed: %v", rep.Unknown)
		}
	}
}

// TestL4RouteOnlyWhereItsPortIsHeld: a tls or tcp mesh route that matches a port applies on the
// sidecars of a namespace only when the entry that namespace uses for the route's host declares
// that port (istiod builds a filter chain per service port the proxy holds). A namespace whose
// own entry for the host declares other ports never uses the route's subset, so a rule off its
// lookup path is no gap there (blind audit 105 c29), nor is one that holds no entry for the host
// at all; a namespace that does hold the port is.
func TestL4RouteOnlyWhereItsPortIsHeld(t *testing.T) {
	gatewayRule := func(ns, name, subset string) string {
		return `apiVersion: networking.istio.io/v1
kind: DestinationRule
metadata: {name: ` + name + `, namespace: ` + ns + `}
spec:
  host: istio-egressgateway.istio-system.svc.cluster.local
  subsets: [{name: ` + subset + `}]`
	}
	entry := func(ns, name, host, created string, port int, proto, export string) string {
		return fmt.Sprintf(`apiVersion: networking.istio.io/v1
kind: ServiceEntry
metadata: {name: %s, namespace: %s, creationTimestamp: "%s"}
spec:
  hosts: [%s]
  exportTo: [%s]
  ports: [{number: %d, name: p-%d, protocol: %s}]
  resolution: DNS`, name, ns, created, host, export, port, port, proto)
	}
	for _, tc := range []struct {
		name    string
		clients []string
		docs    []string
		gapIn   []string // namespaces DR_NOT_ON_LOOKUP_PATH names (nil: no finding)
	}{
		{"tls passthrough, sandbox holds 9443 only", []string{"treasury", "sandbox"}, []string{
			entry("sandbox", "rates-old", "rates.fx.example", "2022-05-01T00:00:00Z", 9443, "TLS", `"."`),
			entry("treasury", "rates", "rates.fx.example", "2025-05-01T00:00:00Z", 443, "TLS", `".", sandbox`),
			gatewayRule("treasury", "egw-rates", "rates"),
			`apiVersion: networking.istio.io/v1
kind: VirtualService
metadata: {name: rates, namespace: treasury}
spec:
  hosts: [rates.fx.example]
  gateways: [mesh]
  tls:
  - match: [{port: 443, sniHosts: [rates.fx.example]}]
    route: [{destination: {host: istio-egressgateway.istio-system.svc.cluster.local, subset: rates, port: {number: 443}}}]`,
		}, nil},
		{"tcp, two namespaces with their own entry on another port", []string{"ledger", "batch-1", "batch-2"}, []string{
			entry("batch-1", "pg-local", "pg.db.internal", "2021-01-01T00:00:00Z", 6432, "TCP", `"."`),
			entry("batch-2", "pg-local", "pg.db.internal", "2021-01-01T00:00:00Z", 15432, "TCP", `"."`),
			entry("ledger", "pg", "pg.db.internal", "2024-01-01T00:00:00Z", 5432, "TCP", `"."`),
			gatewayRule("ledger", "egw-pg", "pg-hop"),
			`apiVersion: networking.istio.io/v1
kind: VirtualService
metadata: {name: pg-out, namespace: ledger}
spec:
  hosts: [pg.db.internal]
  tcp:
  - match: [{port: 5432}]
    route: [{destination: {host: istio-egressgateway.istio-system.svc.cluster.local, subset: pg-hop, port: {number: 443}}}]`,
		}, nil},
		{"control: a namespace that uses the public entry (the port) is a gap", []string{"ledger", "batch-1", "reports"}, []string{
			entry("batch-1", "pg-local", "pg.db.internal", "2021-01-01T00:00:00Z", 6432, "TCP", `"."`),
			entry("ledger", "pg", "pg.db.internal", "2024-01-01T00:00:00Z", 5432, "TCP", `"*"`),
			gatewayRule("ledger", "egw-pg", "pg-hop"),
			`apiVersion: networking.istio.io/v1
kind: VirtualService
metadata: {name: pg-out, namespace: ledger}
spec:
  hosts: [pg.db.internal]
  tcp:
  - match: [{port: 5432}]
    route: [{destination: {host: istio-egressgateway.istio-system.svc.cluster.local, subset: pg-hop, port: {number: 443}}}]`,
		}, []string{"reports", "team-a"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, unshared := range []bool{false, true} {
				base, err := os.ReadFile(filepath.Join("testdata", "paths", "_base.yaml"))
				if err != nil {
					t.Fatal(err)
				}
				all := []string{string(base)}
				for _, ns := range tc.clients {
					all = append(all, "apiVersion: v1\nkind: Namespace\nmetadata: {name: "+ns+", labels: {istio-injection: enabled}}")
				}
				rep := ExportAudit(loadYAML(t, append(all, tc.docs...)...), AuditOptions{unshared: unshared})
				var gapIn []string
				for _, f := range rep.Findings {
					if f.Code == AuditDRNotOnLookupPath {
						gapIn = append(gapIn, f.MissingIn...)
					}
				}
				slices.Sort(gapIn)
				if !slices.Equal(gapIn, tc.gapIn) {
					t.Errorf("unshared=%v: DR_NOT_ON_LOOKUP_PATH missing in %v, want %v", unshared, gapIn, tc.gapIn)
				}
			}
		})
	}
}

// An entry whose own exportTo includes the namespace a route needs it in, capped by
// meshConfig.serviceEntryVisibility: the gap is the mesh config's, whose policy is the fix
// (widening exportTo changes nothing; blind audit 108 V15f). A gateway namespace and a client
// namespace; the control's own exportTo hides it, and widening that is the fix.
func TestVisibilityCapBlamesMeshConfig(t *testing.T) {
	meshCM := `apiVersion: v1
kind: ConfigMap
metadata: {name: istio, namespace: istio-system}
data:
  mesh: |
    serviceEntryVisibility:
      defaultVisibility: NAMESPACE
      applyToSidecars: true`
	for _, tc := range []struct {
		name, code, kind, fixHas string
		docs                     []string
	}{
		{"gateway", AuditSENotExportedToGateway, "ConfigMap", "serviceEntryVisibility", []string{meshCM, `apiVersion: networking.istio.io/v1
kind: ServiceEntry
metadata: {name: carrier, namespace: team-a}
spec:
  hosts: [track.carrier.example]
  ports: [{number: 443, name: tls, protocol: TLS}]
  resolution: DNS`, `apiVersion: networking.istio.io/v1
kind: Gateway
metadata: {name: carrier-gw, namespace: istio-system}
spec:
  selector: {istio: egressgateway}
  servers: [{port: {number: 443, name: tls, protocol: TLS}, hosts: [track.carrier.example], tls: {mode: PASSTHROUGH}}]`, `apiVersion: networking.istio.io/v1
kind: VirtualService
metadata: {name: carrier, namespace: team-a}
spec:
  hosts: [track.carrier.example]
  gateways: [istio-system/carrier-gw]
  tls:
  - match: [{port: 443, sniHosts: [track.carrier.example]}]
    route: [{destination: {host: track.carrier.example, port: {number: 443}}}]`}},
		{"client", AuditSENotExportedToClient, "ConfigMap", "serviceEntryVisibility", []string{meshCM, `apiVersion: v1
kind: Namespace
metadata: {name: dispatch, labels: {istio-injection: enabled}}`, `apiVersion: networking.istio.io/v1
kind: ServiceEntry
metadata: {name: maps, namespace: geo}
spec:
  hosts: [tiles.maps.example]
  ports: [{number: 80, name: http, protocol: HTTP}]
  resolution: DNS`, `apiVersion: networking.istio.io/v1
kind: VirtualService
metadata: {name: maps-timeout, namespace: dispatch}
spec:
  hosts: [tiles.maps.example]
  http:
  - timeout: 3s
    route: [{destination: {host: tiles.maps.example}}]`}},
		{"control: exportTo itself", AuditSENotExportedToClient, "ServiceEntry", "exportTo", []string{`apiVersion: v1
kind: Namespace
metadata: {name: dispatch, labels: {istio-injection: enabled}}`, `apiVersion: networking.istio.io/v1
kind: ServiceEntry
metadata: {name: maps, namespace: geo}
spec:
  hosts: [tiles.maps.example]
  exportTo: ["."]
  ports: [{number: 80, name: http, protocol: HTTP}]
  resolution: DNS`, `apiVersion: networking.istio.io/v1
kind: VirtualService
metadata: {name: maps-timeout, namespace: dispatch}
spec:
  hosts: [tiles.maps.example]
  http:
  - timeout: 3s
    route: [{destination: {host: tiles.maps.example}}]`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep := auditPathsBase(t, []string{"geo"}, tc.docs...)
			var got []string
			for _, f := range rep.Findings {
				got = append(got, f.Code+" "+f.Kind)
				if f.Code == tc.code && f.Kind == tc.kind && strings.Contains(f.Fix, tc.fixHas) {
					return
				}
			}
			t.Errorf("want %s on a %s with a fix about %s; got %v", tc.code, tc.kind, tc.fixHas, got)
		})
	}
}
