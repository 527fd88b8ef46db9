package checks

import (
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/kubectl-egress/kubectl-egress/pkg/rules"
)

func findingKeys(fs []Finding) []string {
	var out []string
	for _, f := range fs {
		k := f.Code + " | " + f.Resource + " | " + f.Message
		if !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// TestSidecarHostFindingsMatchExplainListener: for every client namespace and every ServiceEntry
// host:port its sidecar imports, the port findings plus sidecarHostFindings are exactly what
// `explain-listener HOST:PORT --from NS` (ExplainListener) reports.
func TestSidecarHostFindingsMatchExplainListener(t *testing.T) {
	for _, files := range [][]string{{"listener.yaml"}, {"control.yaml", "release.yaml"}} {
		snap := loadPreflight(t, files...)
		compared := 0
		for _, ns := range ClientNamespaces(snap) {
			v := BuildSidecarView(snap, ns, nil)
			for _, s := range v.Outbound.Imported() {
				if s.Kind != "ServiceEntry" {
					continue
				}
				for _, p := range s.Ports {
					rep, err := ExplainListener(snap, ExplainListenerOptions{Host: s.Hostname, Port: p.Number, From: ns})
					if err != nil {
						t.Fatal(err)
					}
					port := &ListenerReport{}
					sidecarFindings(snap, v, p.Number, port)
					got := findingKeys(append(port.Findings, sidecarHostFindings(snap, v, s.Hostname, p.Number)...))
					var own []Finding // the path's hops past the sidecar: TestCommandsAgreeOnPaths
					for _, f := range rep.Findings {
						if f.Proxy == "" {
							own = append(own, f)
						}
					}
					if want := findingKeys(own); !slices.Equal(got, want) {
						t.Errorf("%v, %s %s:%d:\n got  %s\n want %s", files, ns, s.Hostname, p.Number, strings.Join(got, "\n      "), strings.Join(want, "\n      "))
					}
					compared++
				}
			}
		}
		if compared == 0 {
			t.Errorf("%v: nothing compared", files)
		}
	}
}

// TestPreflightListenerFindings: the host faults of listener.yaml are found, and sharing the host
// findings between alike namespaces changes nothing: every namespace that imports a faulty entry
// is named in the finding's contexts.
func TestPreflightListenerFindings(t *testing.T) {
	snap := loadPreflight(t, "listener.yaml")
	res := Preflight(snap)
	got := rows(res.Findings)
	for _, want := range []string{
		"EGR0305 HTTP_CHAIN_SHADOWS_TCP_ENTRY ServiceEntry team-a/docs spec.ports[].protocol",
		"EGR0309 TLS_ORIGINATED_TWICE DestinationRule team-a/api-tls spec.trafficPolicy.tls",
		"EGR0306 HTTP2_NOT_DECLARED ServiceEntry team-a/grpc spec.ports[].protocol",
		"EGR0318 GATEWAY_SERVICE_LACKS_PORT Service istio-system/istio-egressgateway spec.ports",
	} {
		if !slices.Contains(got, want) {
			t.Errorf("missing %q in\n  %s", want, strings.Join(got, "\n  "))
		}
	}
	// Each (namespace, host:port) context must be what ExplainListener finds there.
	for _, f := range res.Findings {
		if f.Check != CheckExplainListener {
			continue
		}
		for _, ctx := range ExpandContexts(f.Contexts, res.ClientNamespaces) {
			rest, ok := strings.CutPrefix(ctx, "sidecar in ")
			if !ok {
				continue
			}
			ns, hp, _ := strings.Cut(rest, ", ")
			host, portStr, ok := strings.Cut(hp, ":")
			if !ok || strings.HasPrefix(hp, "port ") {
				continue
			}
			p, err := strconv.ParseUint(portStr, 10, 32)
			if err != nil {
				t.Fatalf("context %q: %v", ctx, err)
			}
			port := uint32(p)
			rep, err := ExplainListener(snap, ExplainListenerOptions{Host: host, Port: port, From: ns})
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, g := range rep.Findings {
				if g.Code == f.Code && g.Message == f.Message {
					found = true
				}
			}
			if !found {
				t.Errorf("%s %s seen in %q, but explain-listener %s:%d --from %s does not report it", f.ID, f.Resource, ctx, host, port, ns)
			}
		}
	}
	// Conversely every namespace whose explain-listener reports TLS_ORIGINATED_TWICE is a context.
	f := findingByID(res.Findings, "EGR0309", "DestinationRule team-a/api-tls")
	if f == nil || len(ExpandContexts(f.Contexts, res.ClientNamespaces)) != 2 {
		t.Fatalf("EGR0309 contexts: %+v (want team-a and team-c, not team-b, which has its own rule)", f)
	}
	for _, ns := range ClientNamespaces(snap) {
		rep, err := ExplainListener(snap, ExplainListenerOptions{Host: "api.example.com", Port: 443, From: ns})
		if err != nil {
			t.Fatal(err)
		}
		has := slices.ContainsFunc(rep.Findings, func(g Finding) bool { return g.Code == ListenerDoubleTLS })
		if ctx := "sidecar in " + ns + ", api.example.com:443"; has != (f != nil && slices.Contains(ExpandContexts(f.Contexts, res.ClientNamespaces), ctx)) {
			t.Errorf("namespace %s: explain-listener reports double TLS %v; contexts %v", ns, has, f.Contexts)
		}
	}
}

// WILDCARD_HOST_PARTLY_ROUTED: preflight names the mesh VirtualService whose tls match lists one
// name under the wildcard it routes (blind audit 28 #12), and says nothing when the match lists
// the wildcard itself.
func TestPreflightWildcardHostPartlyRouted(t *testing.T) {
	for _, c := range []struct {
		file string
		want bool
	}{
		{"wildcard-tls-route-names-one-host.yaml", true},
		{"wildcard-tls-route-covers-wildcard-control.yaml", false},
	} {
		snap, err := loadPathFixture(filepath.Join("testdata", "paths", c.file))
		if err != nil {
			t.Fatal(err)
		}
		got := slices.ContainsFunc(Preflight(snap).Findings, func(f PreflightFinding) bool {
			return f.Code == ListenerWildcardSNIPartial && f.Resource.String() == "VirtualService team-a/docs-cdn-egress" && f.Field == "spec.tls" &&
				strings.Contains(f.Message, `["www.docs-cdn.example"]`) && strings.Contains(f.Message, "PassthroughCluster")
		})
		if got != c.want {
			t.Errorf("%s: %s reported %t, want %t", c.file, ListenerWildcardSNIPartial, got, c.want)
		}
	}
}

// TLS_ENTRY_BEHIND_HTTP_SERVER is not raised for an entry whose host another declaration
// declares with a plaintext HTTP port (merged with it or not): clients send plain HTTP through
// the HTTP server (blind audit 29 #15, #16).
func TestTLSEntryBehindHTTPServerSeesOtherDeclarations(t *testing.T) {
	snap, err := loadPathFixture(filepath.Join("testdata", "paths", "gateway-same-namespace-entries-resolutions-differ.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	rep, err := ExplainListener(snap, ExplainListenerOptions{Host: "ledger.fin-api.example", Port: 80, Gateway: "istio-system/istio-egressgateway"})
	if err != nil {
		t.Fatal(err)
	}
	if slices.ContainsFunc(rep.Findings, func(f Finding) bool { return f.Code == ListenerTLSBehindHTTP }) {
		t.Errorf("%s raised: %+v", ListenerTLSBehindHTTP, rep.Findings)
	}
	if !slices.ContainsFunc(rep.Findings, func(f Finding) bool { return f.Level == LevelError }) {
		t.Errorf("the gateway lacks outbound|80||ledger.fin-api.example, yet no Error: %+v", rep.Findings)
	}
}

// DUPLICATE_HOST_VISIBLE is left out when istiod merges every declaration into the one used
// (blind audit 30 #16), but not for DNS_ROUND_ROBIN, whose one-endpoint cluster the merge
// overfills (shared case 27), nor when one declaration is not merged.
func TestAllMerged(t *testing.T) {
	se := func(ns, name, res string, labels map[string]string, port uint32) rules.Service {
		return rules.Service{Kind: rules.KindServiceEntry, Namespace: ns, Name: name, Hostname: "api.example.com", Resolution: res, Labels: labels, Ports: []rules.ServicePort{{Number: port, Protocol: "TLS"}}}
	}
	a, b := se("vendors", "a", "DNS", nil, 443), se("vendors", "b", "DNS", nil, 80)
	if !allMerged(a, []rules.Service{a, b}) {
		t.Error("same namespace and attributes: merged")
	}
	if allMerged(a, []rules.Service{a, se("vendors", "c", "DNS", map[string]string{"team": "x"}, 80)}) {
		t.Error("labels differ: not merged")
	}
	if allMerged(a, []rules.Service{a, se("other", "d", "DNS", nil, 80)}) {
		t.Error("another namespace: not merged")
	}
	rr := se("vendors", "rr", "DNS_ROUND_ROBIN", nil, 443)
	if allMerged(rr, []rules.Service{rr, se("vendors", "rr2", "DNS_ROUND_ROBIN", nil, 443)}) {
		t.Error("DNS_ROUND_ROBIN: the merge is the fault")
	}
}

// A TCP entry without addresses keeps its match-all chain on 0.0.0.0_<port> when a mesh tcp route
// sends its host to the egress gateway: the chain carries the route, and every other host's
// connections on the port go with it. preflight reports the catch-all on the entry, naming the
// route (blind audit 35 T14, TS2; classic and Gateway API alike). With spec.addresses it does not.
func TestCatchAllThroughMeshRoute(t *testing.T) {
	const yaml = `
apiVersion: v1
kind: Namespace
metadata: {name: istio-system}
---
apiVersion: v1
kind: Namespace
metadata: {name: crawler, labels: {istio-injection: enabled}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: istio-egressgateway, namespace: istio-system}
spec:
  selector: {matchLabels: {istio: egressgateway}}
  template:
    metadata: {labels: {istio: egressgateway}}
    spec: {containers: [{name: istio-proxy, image: auto}]}
---
apiVersion: v1
kind: Service
metadata: {name: istio-egressgateway, namespace: istio-system}
spec:
  clusterIP: 10.96.7.7
  selector: {istio: egressgateway}
  ports: [{name: tcp-ldaps, port: 636, targetPort: 8636}]
---
apiVersion: networking.istio.io/v1
kind: ServiceEntry
metadata: {name: directory, namespace: crawler}
spec:
  hosts: [ldap.directory.example]
  resolution: DNS
  ports: [{number: 636, name: tcp-ldaps, protocol: TCP}]
---
apiVersion: networking.istio.io/v1
kind: Gateway
metadata: {name: ldap-egress, namespace: istio-system}
spec:
  selector: {istio: egressgateway}
  servers: [{port: {number: 8636, name: tcp-ldaps, protocol: TCP}, hosts: ["*"]}]
---
apiVersion: networking.istio.io/v1
kind: VirtualService
metadata: {name: directory, namespace: crawler}
spec:
  hosts: [ldap.directory.example]
  gateways: [mesh, istio-system/ldap-egress]
  tcp:
  - match: [{gateways: [mesh], port: 636}]
    route: [{destination: {host: istio-egressgateway.istio-system.svc.cluster.local, port: {number: 636}}}]
  - match: [{gateways: [istio-system/ldap-egress], port: 8636}]
    route: [{destination: {host: ldap.directory.example, port: {number: 636}}}]
`
	find := func(y string) *PreflightFinding {
		for _, f := range Preflight(loadYAML(t, y)).Findings {
			if f.Code == ListenerCatchAllTCP && f.Resource.Name == "directory" {
				return &f
			}
		}
		return nil
	}
	f := find(yaml)
	if f == nil || !strings.Contains(f.Message, "routed by VirtualService crawler/directory") {
		t.Fatalf("no catch-all finding on the entry naming its mesh route: %+v", f)
	}
	if f := find(strings.Replace(yaml, "  resolution: DNS\n", "  addresses: [240.0.0.90]\n  resolution: DNS\n", 1)); f != nil {
		t.Errorf("with spec.addresses: %s", f.Message)
	}
}
