package loader

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	meshv1alpha1 "istio.io/api/mesh/v1alpha1"

	"github.com/kubectl-egress/kubectl-egress/pkg/snapshot"
)

// repoCasesDir holds the repository's case fixtures, one per fault kind.
var repoCasesDir = filepath.Join("..", "..", "testdata", "cases")

// sharedCasesDir is the shared acceptance set (EGRESS_CASES_DIR, else ../shared/cases beside the
// repository) when it is present, else "".
func sharedCasesDir(t *testing.T) string {
	t.Helper()
	if d := os.Getenv("EGRESS_CASES_DIR"); d != "" {
		if _, err := os.Stat(d); err != nil {
			t.Fatalf("EGRESS_CASES_DIR: %v", err)
		}
		return d
	}
	d := filepath.Join("..", "..", "..", "shared", "cases")
	if _, err := os.Stat(d); err != nil {
		return ""
	}
	return d
}

// caseFile is the path of a repository fixture.
func caseFile(t *testing.T, name string) string {
	t.Helper()
	p := filepath.Join(repoCasesDir, name)
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("case fixture %s: %v", name, err)
	}
	return p
}

type counts struct {
	Namespaces, ServiceEntries, VirtualServices, DestinationRules, Gateways, Sidecars,
	WorkloadEntries, EnvoyFilters, Services, Deployments, Pods, MeshConfigs int
	// the Kubernetes Gateway API objects (the Gateway API twins of testdata/cases)
	KubeGateways, GatewayClasses, HTTPRoutes, GRPCRoutes, TLSRoutes, TCPRoutes, ReferenceGrants int
}

func countOf(s *snapshot.Snapshot) counts {
	return counts{
		Namespaces: len(s.Namespaces), ServiceEntries: len(s.ServiceEntries),
		VirtualServices: len(s.VirtualServices), DestinationRules: len(s.DestinationRules),
		Gateways: len(s.Gateways), Sidecars: len(s.Sidecars), WorkloadEntries: len(s.WorkloadEntries),
		EnvoyFilters: len(s.EnvoyFilters), Services: len(s.Services), Deployments: len(s.Deployments),
		Pods: len(s.Pods), MeshConfigs: len(s.MeshConfigs),
		KubeGateways: len(s.KubeGateways), GatewayClasses: len(s.GatewayClasses), HTTPRoutes: len(s.HTTPRoutes),
		GRPCRoutes: len(s.GRPCRoutes), TLSRoutes: len(s.TLSRoutes), TCPRoutes: len(s.TCPRoutes),
		ReferenceGrants: len(s.ReferenceGrants),
	}
}

// TestFromFilesAllCases loads every case file: the repository's fixtures, and the shared
// acceptance set's when it is present.
func TestFromFilesAllCases(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(repoCasesDir, "*.yaml"))
	if len(files) < 26 {
		t.Fatalf("%d case fixtures in %s, want one per fault kind (26)", len(files), repoCasesDir)
	}
	if d := sharedCasesDir(t); d != "" {
		shared, _ := filepath.Glob(filepath.Join(d, "*.yaml"))
		files = append(files, shared...)
	}
	n := 0
	for _, p := range files {
		n++
		t.Run(filepath.Base(p), func(t *testing.T) {
			snap, err := FromFiles([]string{p}, nil, Options{})
			if err != nil {
				t.Fatalf("FromFiles: %v", err)
			}
			if snap.Source != "files "+p || snap.IstioNamespace != "istio-system" {
				t.Errorf("Source=%q IstioNamespace=%q", snap.Source, snap.IstioNamespace)
			}
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			// Every recognised object of the file is loaded (kinds the snapshot has no slice for,
			// such as ConfigMap, are excluded; there are no duplicates in the cases).
			want := 0
			for _, line := range strings.Split(string(data), "\n") {
				k, ok := strings.CutPrefix(line, "kind: ")
				if ok && k != "ConfigMap" {
					want++
				}
			}
			c := countOf(snap)
			got := c.Namespaces + c.ServiceEntries + c.VirtualServices + c.DestinationRules + c.Gateways +
				c.Sidecars + c.WorkloadEntries + c.EnvoyFilters + c.Services + c.Deployments + c.Pods +
				c.KubeGateways + c.GatewayClasses + c.HTTPRoutes + c.GRPCRoutes + c.TLSRoutes + c.TCPRoutes + c.ReferenceGrants
			if snap.Assumptions.SyntheticGateway {
				got--
			}
			// a Service and a Deployment the loader adds for each Gateway API Gateway whose
			// Service the file lacks (the twins write them out: none expected)
			got -= 2 * len(snap.Assumptions.SyntheticKubeGateways)
			if got != want {
				t.Errorf("loaded %d objects, file has %d top-level kinds: %+v", got, want, c)
			}
			for _, se := range snap.ServiceEntries {
				if len(se.Spec.GetHosts()) == 0 {
					t.Errorf("ServiceEntry %s/%s: spec not decoded", se.Namespace, se.Name)
				}
			}
		})
	}
	if n < 3 {
		t.Fatalf("only %d cases found", n)
	}
}

func TestFromFilesCaseCounts(t *testing.T) {
	tests := []struct {
		file      string
		want      counts
		synthetic bool
	}{
		{
			file: "se-exportto-private-hidden-from-gateway.yaml",
			want: counts{Namespaces: 2, ServiceEntries: 2, Gateways: 1, VirtualServices: 1, DestinationRules: 1, Deployments: 1, Services: 1},
		},
		{
			file:      "tcp-entries-share-port-without-vips.yaml",
			want:      counts{Namespaces: 1, ServiceEntries: 3, Deployments: 1}, // the synthetic gateway
			synthetic: true,
		},
		{
			file: "cluster-filter-keeps-delegate-destination-control.yaml",
			want: counts{Namespaces: 3, Deployments: 2, Services: 1, ServiceEntries: 1, Gateways: 1, VirtualServices: 2},
		},
		{
			file: "sidecar-egress-hosts-omit-entry-namespace.yaml",
			want: counts{Namespaces: 3, ServiceEntries: 1, Sidecars: 1, MeshConfigs: 1, Deployments: 1},
			// no gateway workload in the file
			synthetic: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			snap, err := FromFiles([]string{caseFile(t, tt.file)}, nil, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if got := countOf(snap); got != tt.want {
				t.Errorf("counts\n got %+v\nwant %+v", got, tt.want)
			}
			if snap.Assumptions.SyntheticGateway != tt.synthetic {
				t.Errorf("SyntheticGateway = %v, want %v", snap.Assumptions.SyntheticGateway, tt.synthetic)
			}
		})
	}
}

func TestFromFilesCaseDetails(t *testing.T) {
	snap, err := FromFiles([]string{caseFile(t, "se-exportto-private-hidden-from-gateway.yaml")}, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	se := snap.ServiceEntries[0]
	if se.Name != "fx-rates" || se.Namespace != "payments" {
		t.Errorf("ServiceEntry %s/%s", se.Namespace, se.Name)
	}
	if got := se.Spec.GetExportTo(); len(got) != 1 || got[0] != "." {
		t.Errorf("exportTo = %q, want [.]", got)
	}
	if got := se.Spec.GetPorts(); len(got) != 1 || got[0].GetNumber() != 8080 || got[0].GetProtocol() != "HTTP" {
		t.Errorf("ports = %v", got)
	}
	if got := snap.Gateways[0].Spec.GetSelector()["istio"]; got != "egress-gw" {
		t.Errorf("gateway selector istio=%q", got)
	}
	d := snap.Deployments[0]
	if d.Name != "egress-gateway" || d.Namespace != "istio-egress" || d.Labels["istio"] != "egress-gw" || d.Spec.Template.Labels["istio"] != "egress-gw" {
		t.Errorf("deployment %s/%s labels %v template %v", d.Namespace, d.Name, d.Labels, d.Spec.Template.Labels)
	}
	if snap.Assumptions.SyntheticGateway {
		t.Error("the case has a gateway Deployment; no synthetic gateway expected")
	}
	for _, ns := range snap.Namespaces {
		if ns.Namespace != "" {
			t.Errorf("Namespace %s got namespace %q", ns.Name, ns.Namespace)
		}
	}
	if snap.Namespace("payments").Labels["istio-injection"] != "enabled" {
		t.Error("payments labels lost")
	}

	// Creation times follow document order: namespaces (docs 0,1), deployment (2), service (3),
	// serviceentries (4, 5), gateway (6), destinationrule (7), virtualservice (8).
	order := []struct {
		name string
		ts   int64
	}{
		{"payments", snap.Namespaces[0].CreationTimestamp.Unix()},
		{"istio-egress", snap.Namespaces[1].CreationTimestamp.Unix()},
		{"deployment", d.CreationTimestamp.Unix()},
		{"service", snap.Services[0].CreationTimestamp.Unix()},
		{"serviceentry fx-rates", se.CreationTimestamp.Unix()},
		{"serviceentry fx-audit", snap.ServiceEntries[1].CreationTimestamp.Unix()},
		{"gateway", snap.Gateways[0].CreationTimestamp.Unix()},
		{"destinationrule", snap.DestinationRules[0].CreationTimestamp.Unix()},
		{"virtualservice", snap.VirtualServices[0].CreationTimestamp.Unix()},
	}
	for i, o := range order {
		if want := baseCreationTime.Unix() + int64(i); o.ts != want {
			t.Errorf("%s created at %d, want %d", o.name, o.ts, want)
		}
	}
}

func TestFromFilesMeshConfig(t *testing.T) {
	snap, err := FromFiles([]string{caseFile(t, "sidecar-egress-hosts-omit-entry-namespace.yaml")}, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	src := snap.MeshConfigs[""]
	if src == nil || src.Config == nil {
		t.Fatalf("MeshConfigs = %v, want key \"\"", snap.MeshConfigs)
	}
	if src.Ref != "istio-system/istio" {
		t.Errorf("Ref = %q", src.Ref)
	}
	otp := src.Config.GetOutboundTrafficPolicy()
	if otp == nil {
		t.Fatal("outboundTrafficPolicy not set")
	}
	if otp.GetMode() != meshv1alpha1.MeshConfig_OutboundTrafficPolicy_REGISTRY_ONLY {
		t.Errorf("mode = %v, want REGISTRY_ONLY", otp.GetMode())
	}
}

func TestFromFilesMeshConfigRevisionAndNamespace(t *testing.T) {
	in := `apiVersion: v1
kind: ConfigMap
metadata: {name: istio-canary, namespace: my-istio}
data:
  mesh: |
    outboundTrafficPolicy: {mode: ALLOW_ANY}
    defaultConfig: {holdApplicationUntilProxyStarts: true}
    someFutureField: 1
---
apiVersion: v1
kind: ConfigMap
metadata: {name: istio, namespace: istio-system}
data: {mesh: "outboundTrafficPolicy: {mode: ALLOW_ANY}"}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: istio-sidecar-injector, namespace: my-istio}
data: {config: "x"}
`
	f := false
	// A field MeshConfig does not have is a strict-input problem (istiod ignores it); with
	// Lenient, a warning, and the rest of the mesh config is read.
	if _, err := FromFiles([]string{"-"}, strings.NewReader(in), Options{IstioNamespace: "my-istio", Revision: "canary", FilterGatewayClusters: &f}); err == nil || !strings.Contains(err.Error(), `unknown field "someFutureField"`) {
		t.Errorf("strict: err = %v, want the unknown mesh field", err)
	}
	snap, err := FromFiles([]string{"-"}, strings.NewReader(in), Options{IstioNamespace: "my-istio", Revision: "canary", FilterGatewayClusters: &f, Lenient: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(snap.LoadWarnings) != 1 || !strings.Contains(snap.LoadWarnings[0], "istiod ignores it") {
		t.Errorf("LoadWarnings = %q", snap.LoadWarnings)
	}
	if len(snap.MeshConfigs) != 1 {
		t.Fatalf("MeshConfigs = %v, want only canary (the other istio ConfigMap is in another namespace)", snap.MeshConfigs)
	}
	mc := snap.MeshConfigs["canary"]
	if mc == nil || mc.Ref != "my-istio/istio-canary" {
		t.Fatalf("canary = %+v", mc)
	}
	if mc.Config.GetOutboundTrafficPolicy().GetMode() != meshv1alpha1.MeshConfig_OutboundTrafficPolicy_ALLOW_ANY {
		t.Errorf("mode = %v", mc.Config.GetOutboundTrafficPolicy().GetMode())
	}
	if snap.Revision != "canary" || snap.IstioNamespace != "my-istio" {
		t.Errorf("Revision=%q IstioNamespace=%q", snap.Revision, snap.IstioNamespace)
	}
	if snap.Assumptions.FilterGatewayClusters == nil || *snap.Assumptions.FilterGatewayClusters {
		t.Errorf("FilterGatewayClusters = %v", snap.Assumptions.FilterGatewayClusters)
	}
	if !snap.Assumptions.SyntheticGateway || snap.Deployments[0].Namespace != "my-istio" {
		t.Errorf("synthetic gateway not in my-istio: %+v", snap.Deployments)
	}
}

func TestFromFilesMalformedYAMLLine(t *testing.T) {
	_, err := FromFiles([]string{"testdata/malformed.yaml"}, nil, Options{})
	var fe *FileError
	if !errors.As(err, &fe) {
		t.Fatalf("err = %v (%T), want *FileError", err, err)
	}
	// Line 15 is " spec:", mis-indented under the second document (which starts on line 10).
	if fe.Path != "testdata/malformed.yaml" || fe.Line != 15 {
		t.Errorf("err = %v, want testdata/malformed.yaml:15", err)
	}
	if !strings.HasPrefix(err.Error(), "testdata/malformed.yaml:15: ") || strings.Contains(err.Error(), "\n") {
		t.Errorf("err = %q", err)
	}
}

func TestYAMLErrorLines(t *testing.T) {
	tests := []struct {
		name string
		in   string
		line int
	}{
		// scanner error (1-based in the library)
		{"mapping values", "a: 1\n---\nk: v\nb: c: d\n", 4},
		{"tab indentation", "---\na:\n\tb: 1\n", 3},
		// parser errors (0-based in the library, or no line at all on the first line)
		{"bad indent", "x: 1\n---\n# c\nkind: A\nmetadata:\n  name: a\n spec: 1\n", 7},
		{"unclosed flow map", "---\nkind: {a: 1\nb: 2\n", 3},
		{"wrong sequence indent", "a: 1\n---\na:\n  - 1\n  b: 2\n", 5},
		// a YAML flow document is not JSON: YAML errors are reported, JSON-looking YAML loads
		{"flow seq", "---\n[a, b\n", 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := FromFiles([]string{"-"}, strings.NewReader(tt.in), Options{})
			var fe *FileError
			if !errors.As(err, &fe) {
				t.Fatalf("err = %v, want *FileError", err)
			}
			if fe.Line != tt.line {
				t.Errorf("err = %v, want line %d", err, tt.line)
			}
		})
	}
}

func TestFromFilesBadFieldTypeLine(t *testing.T) {
	_, err := FromFiles([]string{"testdata/bad-type.yaml"}, nil, Options{})
	var fe *FileError
	if !errors.As(err, &fe) {
		t.Fatalf("err = %v (%T), want *FileError", err, err)
	}
	// The field with the wrong type is on line 12 (the document starts after "---" on line 5);
	// the message names it and the type the API server's schema wants.
	if fe.Line != 12 || fe.Msg != "cannot decode networking.istio.io/v1 ServiceEntry: invalid value for field hosts: the number 42 where the API server's schema wants a list (spec.hosts)" {
		t.Errorf("err = %v, want testdata/bad-type.yaml:12: ... hosts ...", err)
	}
	// a string for a list, which no --lenient can read either: the same words
	_, err = FromFiles([]string{"-"}, strings.NewReader("apiVersion: networking.istio.io/v1\nkind: ServiceEntry\nmetadata: {name: api}\nspec:\n  hosts: api.example.com\n"), Options{Lenient: true})
	if err == nil || err.Error() != `<stdin>:5: cannot decode networking.istio.io/v1 ServiceEntry: invalid value for field hosts: the string "api.example.com" where the API server's schema wants a list (spec.hosts)` {
		t.Errorf("string for a list: err = %v", err)
	}
}

func TestFromFilesMissingFile(t *testing.T) {
	_, err := FromFiles([]string{"testdata/does-not-exist.yaml"}, nil, Options{})
	if err == nil || err.Error() != "open testdata/does-not-exist.yaml: no such file or directory" {
		t.Errorf("err = %v", err)
	}
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("err does not match fs.ErrNotExist")
	}
}

func TestFromFilesDirectoryRecursive(t *testing.T) {
	snap, err := FromFiles([]string{"testdata/tree"}, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, ns := range snap.Namespaces {
		names = append(names, ns.Name)
	}
	if len(names) != 1 || names[0] != "tree-top" {
		t.Errorf("Namespaces = %v, want [tree-top] (ignored.txt must be skipped)", names)
	}
	if len(snap.Deployments) != 1 || snap.Deployments[0].Name != "my-egress" {
		t.Errorf("Deployments = %v", snap.Deployments)
	}
	if len(snap.Services) != 1 || snap.Services[0].Name != "svc-a" || snap.Services[0].Namespace != "tree-ns" {
		t.Errorf("Services from JSON List = %v", snap.Services)
	}
	if len(snap.Gateways) != 1 || len(snap.ServiceEntries) != 1 || snap.ServiceEntries[0].Name != "from-list" {
		t.Errorf("Gateways %d, ServiceEntries %v", len(snap.Gateways), snap.ServiceEntries)
	}
	if got := snap.ServiceEntries[0].Spec.GetHosts(); len(got) != 1 || got[0] != "list.example.com" {
		t.Errorf("typed List item hosts = %v", got)
	}
	// The Gateway selects my-egress by its pod template labels: no synthetic gateway.
	if snap.Assumptions.SyntheticGateway {
		t.Error("synthetic gateway added although a Gateway selects Deployment my-egress")
	}
	// The walk is lexical: README.md (skipped), namespace.yaml, then sub/...
	if !snap.Namespaces[0].CreationTimestamp.Before(&snap.Deployments[0].CreationTimestamp) {
		t.Error("namespace.yaml should load before sub/")
	}
}

func TestFromFilesJSONAndFlowYAML(t *testing.T) {
	_, err := FromFiles([]string{"testdata/json/broken.json"}, nil, Options{})
	var fe *FileError
	if !errors.As(err, &fe) || fe.Line != 6 || !strings.HasPrefix(fe.Msg, "invalid JSON") {
		t.Errorf("err = %v, want testdata/json/broken.json:6: invalid JSON...", err)
	}
	snap, err := FromFiles([]string{"-"}, strings.NewReader("---\n{apiVersion: v1, kind: Namespace, metadata: {name: flow}}\n"), Options{})
	if err != nil || len(snap.Namespaces) != 1 || snap.Namespaces[0].Name != "flow" {
		t.Errorf("flow-style YAML: err=%v snap=%v", err, snap)
	}
}

func TestFromFilesStdin(t *testing.T) {
	in := `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"json-ns"}}
{"apiVersion":"networking.istio.io/v1alpha3","kind":"EnvoyFilter","metadata":{"name":"ef"},"spec":{}}
`
	snap, err := FromFiles([]string{"-"}, strings.NewReader(in), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if snap.Source != "files -" {
		t.Errorf("Source = %q", snap.Source)
	}
	if len(snap.Namespaces) != 1 || snap.Namespaces[0].Name != "json-ns" {
		t.Errorf("Namespaces = %v", snap.Namespaces)
	}
	if len(snap.EnvoyFilters) != 1 || snap.EnvoyFilters[0].Namespace != "default" {
		t.Errorf("EnvoyFilters = %v (want namespace default)", snap.EnvoyFilters)
	}

	_, err = FromFiles([]string{"-"}, strings.NewReader("a: b\n---\nkind: [\n"), Options{})
	var fe *FileError
	if !errors.As(err, &fe) || fe.Path != StdinName || fe.Line < 3 {
		t.Errorf("stdin error = %v", err)
	}

	if _, err := FromFiles([]string{"-"}, nil, Options{}); err == nil {
		t.Error("nil stdin: want error")
	}
}

func TestFromFilesSyntheticGateway(t *testing.T) {
	snap, err := FromFiles([]string{"testdata/se-only.yaml"}, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !snap.Assumptions.SyntheticGateway || len(snap.Deployments) != 1 {
		t.Fatalf("SyntheticGateway=%v Deployments=%d", snap.Assumptions.SyntheticGateway, len(snap.Deployments))
	}
	d := snap.Deployments[0]
	want := map[string]string{"app": "istio-egressgateway", "istio": "egressgateway"}
	if d.Name != "istio-egressgateway" || d.Namespace != "istio-system" || !equalMaps(d.Labels, want) || !equalMaps(d.Spec.Template.Labels, want) {
		t.Errorf("synthetic deployment %s/%s labels %v template %v", d.Namespace, d.Name, d.Labels, d.Spec.Template.Labels)
	}
	se := snap.ServiceEntries[0]
	if se.Namespace != "default" {
		t.Errorf("ServiceEntry without namespace got %q, want default", se.Namespace)
	}
	if se.Spec.GetResolution().String() != "DNS" {
		t.Errorf("v1beta1 ServiceEntry resolution = %v", se.Spec.GetResolution())
	}
}

func TestFromFilesDuplicateReplaces(t *testing.T) {
	in := `apiVersion: v1
kind: Namespace
metadata: {name: a, labels: {v: "1"}}
---
apiVersion: v1
kind: Namespace
metadata: {name: b}
---
apiVersion: v1
kind: Namespace
metadata: {name: a, labels: {v: "2"}}
`
	// Strict (the default): an object defined twice is an error at the second definition.
	_, err := FromFiles([]string{"-"}, strings.NewReader(in), Options{})
	if err == nil || err.Error() != "<stdin>:9: Namespace a is defined twice (first at <stdin>:1); the later one would replace it" {
		t.Errorf("strict: err = %v", err)
	}
	// --lenient: the later one replaces it (as a later kubectl apply would), with a warning.
	snap, err := FromFiles([]string{"-"}, strings.NewReader(in), Options{Lenient: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(snap.Namespaces) != 2 || snap.Namespace("a").Labels["v"] != "2" {
		t.Errorf("Namespaces = %v", snap.Namespaces)
	}
	if len(snap.LoadWarnings) != 1 || !strings.Contains(snap.LoadWarnings[0], "defined twice") {
		t.Errorf("LoadWarnings = %q", snap.LoadWarnings)
	}
}

// TestFromFilesStrict: what a CI gate must not pass silently is an error naming the file and
// line, and with Lenient a warning; kinds the tool does not read are counted as ignored.
func TestFromFilesStrict(t *testing.T) {
	se := func(apiVersion, kind, spec string) string {
		return "apiVersion: " + apiVersion + "\nkind: " + kind + "\nmetadata: {name: api, namespace: team-a}\nspec:\n" + spec
	}
	okSpec := "  hosts: [api.example.com]\n  ports: [{number: 80, name: http, protocol: HTTP}]\n"
	for _, c := range []struct {
		name, in, err string
	}{
		{"misspelled kind", se("networking.istio.io/v1", "ServiceEntri", okSpec), `<stdin>:1: ServiceEntri api: unknown kind "ServiceEntri" in the networking.istio.io API group (did you mean ServiceEntry?)`},
		{"version Istio does not serve", se("networking.istio.io/v2", "ServiceEntry", okSpec), "<stdin>:1: ServiceEntry api: apiVersion networking.istio.io/v2 does not serve ServiceEntry (served: networking.istio.io/v1, networking.istio.io/v1alpha3, networking.istio.io/v1beta1)"},
		{"unknown spec field", se("networking.istio.io/v1", "ServiceEntry", "  hostz: [api.example.com]\n"), `<stdin>:5: ServiceEntry api: spec: unknown field "hostz"`},
		{"unknown nested field", se("networking.istio.io/v1", "VirtualService", "  hosts: [a]\n  http:\n  - route:\n    - destination: {host: a, prot: {number: 80}}\n"), `<stdin>:8: VirtualService api: spec: unknown field "prot"`},
		{"number written as a string", se("networking.istio.io/v1", "ServiceEntry", "  hosts: [api.example.com]\n  ports:\n  - {number: \"443\", name: tls, protocol: TLS}\n"), `<stdin>:7: ServiceEntry api: invalid value for field number: the string "443" where the API server's schema wants an integer (spec.ports[0].number)`},
		{"enum written as its number", se("networking.istio.io/v1", "ServiceEntry", "  hosts: [api.example.com]\n  resolution: 2\n"), `<stdin>:6: ServiceEntry api: invalid value for field resolution: the number 2 where the API server's schema wants a string (spec.resolution)`},
		{"misspelt enum value", se("networking.istio.io/v1", "ServiceEntry", "  hosts: [api.example.com]\n  resolution: DNSS\n"), `<stdin>:6: ServiceEntry api: spec: invalid value for field resolution: "DNSS"`},
		{"misspelt nested enum value", se("networking.istio.io/v1", "DestinationRule", "  host: a\n  trafficPolicy:\n    tls: {mode: SIMPEL}\n"), `<stdin>:7: DestinationRule api: spec: invalid value for field mode: "SIMPEL"`},
		{"unknown metadata field", "apiVersion: networking.istio.io/v1\nkind: Gateway\nmetadata: {name: gw, namspace: x}\nspec: {}\n", `<stdin>:3: Gateway gw: metadata: unknown field "namspace"`},
		{"misspelled core kind", "apiVersion: v1\nkind: Servce\nmetadata: {name: web}\n", `<stdin>:1: Servce web: unknown kind "Servce" in the core API group (did you mean Service?)`},
		{"unknown Service field", "apiVersion: v1\nkind: Service\nmetadata: {name: web}\nspec: {selectr: {app: web}}\n", `<stdin>:4: Service web: unknown field "selectr"`},
		{"misspelled Gateway API kind", "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoot\nmetadata: {name: r, namespace: team-a}\nspec: {}\n", `<stdin>:1: HTTPRoot r: unknown kind "HTTPRoot" in the gateway.networking.k8s.io API group (did you mean HTTPRoute?)`},
		{"unknown Gateway API field", "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: r, namespace: team-a}\nspec:\n  parentRefz: []\n", `<stdin>:5: HTTPRoute r: unknown field "parentRefz"`},
		{"unknown mesh config field", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: istio, namespace: istio-system}\ndata:\n  mesh: |\n    defaultServiceExportToo: [\".\"]\n", `<stdin>:1: ConfigMap istio-system/istio: key mesh: unknown field "defaultServiceExportToo" (istiod ignores it: the setting has no effect)`},
		{"empty input", "", "<stdin>: no Kubernetes objects in the input"},
		{"comments only", "# nothing\n---\n", "<stdin>: no Kubernetes objects in the input"},
		{"only ignored kinds", "apiVersion: v1\nkind: Secret\nmetadata: {name: s}\n---\napiVersion: security.istio.io/v1\nkind: AuthorizationPolicy\nmetadata: {name: p}\n", "<stdin>: no object this tool reads in the input (only 1 security.istio.io/v1 AuthorizationPolicy)"},
	} {
		_, err := FromFiles([]string{"-"}, strings.NewReader(c.in), Options{})
		if err == nil || err.Error() != c.err {
			t.Errorf("%s: err = %v\n want %s", c.name, err, c.err)
			continue
		}
		if fe, ok := err.(*FileError); !ok || !fe.Strict {
			t.Errorf("%s: %T %+v, want a strict *FileError", c.name, err, err)
		}
		snap, err := FromFiles([]string{"-"}, strings.NewReader(c.in), Options{Lenient: true})
		if err != nil || len(snap.LoadWarnings) == 0 {
			t.Errorf("%s: lenient: err %v, warnings %q", c.name, err, snap.LoadWarnings)
		}
	}
	// Kinds the checks do not read are counted, not errors, next to objects they read.
	snap, err := FromFiles([]string{"-"}, strings.NewReader(se("networking.istio.io/v1", "ServiceEntry", okSpec)+"---\napiVersion: v1\nkind: Secret\nmetadata: {name: s}\n---\napiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\n"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := IgnoredSummary(snap); got != "1 example.com/v1 Widget" {
		t.Errorf("ignored: %q", got)
	}
	// A Secret is kept by name only (its data never), and manifests holding one are taken as
	// holding every Secret there is.
	if snap.Secret("default", "s") != snapshot.SecretFound || snap.Secret("istio-system", "s") != snapshot.SecretMissing {
		t.Errorf("secrets: %v, read %v", snap.Secrets, snap.SecretNamespaces)
	}
}

func TestFromFilesOddInputsNoPanic(t *testing.T) {
	inputs := []string{
		"", "---", "--- # c\n---\n", "# only a comment\n", "null", "[]", "[1,2]", "42", "{}", "\xef\xbb\xbfa: b",
		"apiVersion: v1\nkind: List\nitems: null\n",
		"apiVersion: v1\nkind: List\nitems: [null, 1, {kind: Pod}]\n",
		"apiVersion: v1\nkind: Pod\nmetadata: null\nspec: null\n",
		"apiVersion: networking.istio.io/v1\nkind: Gateway\nmetadata: {name: g}\nspec: null\n",
		"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: istio, namespace: istio-system}\ndata: {mesh: ''}\n",
		"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: istio, namespace: istio-system}\ndata: null\n",
		"apiVersion: 3\nkind: {a: b}\n",
		"apiVersion: a/b/c\nkind: X\n",
		"{\"apiVersion\": \"v1\", \"kind\": \"Namespace\"",
	}
	for _, in := range inputs {
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("panic on %q: %v", in, r)
				}
			}()
			_, _ = FromFiles([]string{"-"}, strings.NewReader(in), Options{})
		}()
	}
	if _, err := FromFiles(nil, nil, Options{}); err == nil {
		t.Error("no paths: want error")
	}
	_, err := FromFiles([]string{"-"}, strings.NewReader("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: istio, namespace: istio-system}\ndata: {mesh: 'outboundTrafficPolicy: [1]'}\n"), Options{})
	if err == nil || !strings.HasPrefix(err.Error(), StdinName+":1: ConfigMap istio-system/istio: key mesh:") {
		t.Errorf("bad mesh err = %v", err)
	}
}

func TestSplitDocumentsLines(t *testing.T) {
	docs := splitDocuments([]byte("a: 1\n---\nb: 2\n\n--- # x\n# c\nc: 3\n---"))
	var got []int
	for _, d := range docs {
		got = append(got, d.firstLine)
	}
	want := []int{1, 3, 6, 9}
	sort.Ints(got)
	if len(got) != len(want) {
		t.Fatalf("firstLines = %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("firstLines = %v, want %v", got, want)
		}
	}
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestFromFilesCapped: an input larger than the cap, or endless (/dev/zero), is an error after
// reading one byte more than the cap, never an unbounded read.
func TestFromFilesCapped(t *testing.T) {
	big := strings.Repeat("# padding\n", 300) // 3000 bytes
	_, err := FromFiles([]string{"-"}, strings.NewReader(big), Options{MaxBytes: 2048})
	if err == nil || err.Error() != "<stdin>: larger than 2048 bytes (--max-input-size)" {
		t.Errorf("stdin: %v", err)
	}
	if _, err := os.Stat("/dev/zero"); err == nil {
		_, err := FromFiles([]string{"/dev/zero"}, nil, Options{MaxBytes: 1 << 20})
		if err == nil || err.Error() != "/dev/zero: larger than 1 MiB (--max-input-size)" {
			t.Errorf("/dev/zero: %v", err)
		}
	}
}

// A gateway workload the Helm chart labels istio=<release> (not istio=egressgateway), selected by
// no Gateway: the input has its gateway (router-shaped: inject.istio.io/templates: gateway), so
// no istio-egressgateway is assumed beside it.
func TestFromFilesNoSyntheticGatewayBesideRouterPod(t *testing.T) {
	in := `apiVersion: apps/v1
kind: Deployment
metadata: {name: istio-egress, namespace: istio-system}
spec:
  selector: {matchLabels: {istio: egress}}
  template:
    metadata: {labels: {istio: egress}, annotations: {inject.istio.io/templates: gateway}}
    spec: {containers: [{name: istio-proxy, image: auto}, {name: log-shipper, image: fluent}]}
---
apiVersion: networking.istio.io/v1
kind: Gateway
metadata: {name: egress, namespace: istio-system}
spec:
  selector: {istio: egressgateway}
  servers: [{port: {number: 80, name: http, protocol: HTTP}, hosts: [api.example.com]}]
`
	snap, err := FromFiles([]string{"-"}, strings.NewReader(in), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if snap.Assumptions.SyntheticGateway || len(snap.Deployments) != 1 {
		t.Errorf("SyntheticGateway=%v, %d Deployments: a gateway was assumed beside istio-system/istio-egress", snap.Assumptions.SyntheticGateway, len(snap.Deployments))
	}
}

// TestFromFilesDefaultsServicePorts: a Service port without targetPort or protocol is read as
// the API server stores it (targetPort = port, protocol TCP); written ones are kept.
func TestFromFilesDefaultsServicePorts(t *testing.T) {
	in := `apiVersion: v1
kind: Service
metadata: {name: egw-istio, namespace: egress}
spec:
  selector: {app: egw}
  ports:
  - {name: tls, port: 443}
  - {name: http, port: 80, targetPort: 8080, protocol: TCP}
  - {name: named, port: 81, targetPort: web}
`
	snap, err := FromFiles([]string{"-"}, strings.NewReader(in), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range snap.Services[0].Spec.Ports {
		got = append(got, p.Name+"="+p.TargetPort.String()+"/"+string(p.Protocol))
	}
	if want := "tls=443/TCP,http=8080/TCP,named=web/TCP"; strings.Join(got, ",") != want {
		t.Errorf("ports %s, want %s", strings.Join(got, ","), want)
	}
}

// A file large enough for its documents to be converted in parallel: every object is loaded in
// order, and of two malformed documents the first one is reported, by its line.
func TestFromFilesManyDocumentsFirstError(t *testing.T) {
	var b strings.Builder
	line := 1
	bad := 0
	for i := 0; i < 300; i++ {
		if i > 0 {
			b.WriteString("---\n")
			line++
		}
		switch i {
		case 150, 280:
			if bad == 0 {
				bad = line + 3
			}
			b.WriteString("apiVersion: networking.istio.io/v1\nkind: ServiceEntry\nmetadata:\n  name: [broken\n")
			line += 4
		default:
			fmt.Fprintf(&b, "apiVersion: networking.istio.io/v1\nkind: ServiceEntry\nmetadata: {name: se-%03d, namespace: ns}\nspec: {hosts: [h%03d.example.com], ports: [{number: 443, name: tls, protocol: TLS}]}\n", i, i)
			line += 4
		}
	}
	dir := t.TempDir()
	good := filepath.Join(dir, "good.yaml")
	all := b.String()
	cut := strings.Index(all, "---\napiVersion: networking.istio.io/v1\nkind: ServiceEntry\nmetadata:\n  name: [broken")
	if err := os.WriteFile(good, []byte(all[:cut]), 0o644); err != nil {
		t.Fatal(err)
	}
	snap, err := FromFiles([]string{good}, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(snap.ServiceEntries) != 150 || snap.ServiceEntries[0].Name != "se-000" || snap.ServiceEntries[149].Name != "se-149" {
		t.Fatalf("%d entries, first %s", len(snap.ServiceEntries), snap.ServiceEntries[0].Name)
	}
	broken := filepath.Join(dir, "broken.yaml")
	if err := os.WriteFile(broken, []byte(all), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = FromFiles([]string{broken}, nil, Options{})
	var fe *FileError
	if !errors.As(err, &fe) || fe.Line < bad-1 || fe.Line > bad+1 {
		t.Fatalf("error %v, want one at line %d", err, bad)
	}
}

// One of several inputs that holds nothing fails as a lone one does (blind audit 108 P18: an
// empty directory beside a good one passed the CI gate); a named pipe in a manifest directory is
// refused instead of waited on forever (P21). --lenient keeps both as warnings.
func TestFromFilesEmptyInputAmongOthersAndPipes(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.yaml")
	if err := os.WriteFile(good, []byte("apiVersion: v1\nkind: Namespace\nmetadata: {name: team-a}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "empty")
	if err := os.Mkdir(empty, 0o700); err != nil {
		t.Fatal(err)
	}
	secrets := filepath.Join(dir, "secrets")
	if err := os.Mkdir(secrets, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(secrets, "s.yaml"), []byte("apiVersion: v1\nkind: Secret\nmetadata: {name: s}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := FromFiles([]string{good, empty}, nil, Options{}); err == nil || err.Error() != empty+": no Kubernetes objects in this input" {
		t.Errorf("empty beside good: %v", err)
	}
	if snap, err := FromFiles([]string{good, empty}, nil, Options{Lenient: true}); err != nil || len(snap.LoadWarnings) != 1 {
		t.Errorf("lenient: %v %v", err, snap)
	}
	// an input of kinds the tool ignores is not empty
	if _, err := FromFiles([]string{good, secrets}, nil, Options{}); err != nil {
		t.Errorf("ignored kinds beside good: %v", err)
	}
	piped := filepath.Join(dir, "piped")
	if err := os.Mkdir(piped, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(piped, "a.yaml"), []byte("apiVersion: v1\nkind: Namespace\nmetadata: {name: team-b}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := mkfifo(filepath.Join(piped, "b.yaml")); err != nil {
		t.Skip("no named pipes here:", err)
	}
	_, err := FromFiles([]string{piped}, nil, Options{})
	if err == nil || !strings.Contains(err.Error(), "b.yaml: not a regular file") {
		t.Errorf("pipe: %v", err)
	}
}
