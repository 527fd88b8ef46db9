package checks

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// A VirtualService with http routes only, bound to a TLS PASSTHROUGH server that another
// VirtualService's tls routes give a chain for each of its hosts, loses nothing: no
// HTTP_ROUTES_ON_PASSTHROUGH_SERVER (blind audit 46 R6e, an Error on a working listener). Without
// the tls VirtualService the finding stands.
func TestHTTPRoutesOnPassthroughServedByOtherVS(t *testing.T) {
	base, err := os.ReadFile(filepath.Join("testdata", "paths", "_base.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	common := `apiVersion: networking.istio.io/v1
kind: ServiceEntry
metadata: {name: bank, namespace: team-a}
spec:
  hosts: [api.bank.example]
  resolution: DNS
  ports: [{number: 443, name: tls, protocol: TLS}]
---
apiVersion: networking.istio.io/v1
kind: Gateway
metadata: {name: bank-pass, namespace: istio-system}
spec:
  selector: {istio: egressgateway}
  servers:
  - port: {number: 443, name: tls, protocol: TLS}
    hosts: [api.bank.example]
    tls: {mode: PASSTHROUGH}
---
apiVersion: networking.istio.io/v1
kind: VirtualService
metadata: {name: bank-http-legacy, namespace: team-a}
spec:
  hosts: [api.bank.example]
  gateways: [istio-system/bank-pass]
  http:
  - route: [{destination: {host: api.bank.example, port: {number: 443}}}]
`
	tlsVS := `apiVersion: networking.istio.io/v1
kind: VirtualService
metadata: {name: bank-tls, namespace: team-a}
spec:
  hosts: [api.bank.example]
  gateways: [istio-system/bank-pass]
  tls:
  - match: [{port: 443, sniHosts: [api.bank.example]}]
    route: [{destination: {host: api.bank.example, port: {number: 443}}}]
`
	// the tls VirtualService for another host only: the http one's host has no chain (asked
	// about it, the finding stands); asked about the other host, it is not that question's
	// (audit 47 N6b)
	otherTLS := strings.ReplaceAll(strings.ReplaceAll(tlsVS, "api.bank.example", "files.bank.example"), "name: bank-tls", "name: files-tls")
	gwBoth := strings.Replace(common, "hosts: [api.bank.example]\n    tls: {mode: PASSTHROUGH}", "hosts: [api.bank.example, files.bank.example]\n    tls: {mode: PASSTHROUGH}", 1)
	for _, c := range []struct {
		docs, host string
		want       bool
	}{{common + "---\n" + tlsVS, "api.bank.example", false}, {common, "api.bank.example", true},
		{gwBoth + "---\n" + otherTLS, "api.bank.example", true}, {gwBoth + "---\n" + otherTLS, "files.bank.example", false}} {
		snap := loadYAML(t, string(base)+"\n---\n"+c.docs)
		rep, err := ExplainListener(snap, ExplainListenerOptions{Host: c.host, Port: 443, Gateway: "istio-system/istio-egressgateway"})
		if err != nil {
			t.Fatal(err)
		}
		got := slices.ContainsFunc(rep.Findings, func(f Finding) bool {
			return f.Code == ListenerHTTPOnPassthrough && f.Resource == "VirtualService team-a/bank-http-legacy"
		})
		if got != c.want {
			t.Errorf("%s (%d documents): HTTP_ROUTES_ON_PASSTHROUGH_SERVER %v, want %v: %+v", c.host, strings.Count(c.docs, "---")+1, got, c.want, rep.Findings)
		}
	}
}

// The tls route a fix writes for a PASSTHROUGH server names, as its destination port, the port
// the host's ServiceEntry declares for TLS: istiod uses an explicit destination port as given,
// and the server's port (8443 here) names no cluster of the host (audit 48 P2a).
func TestPassthroughFixDestinationPort(t *testing.T) {
	base, err := os.ReadFile(filepath.Join("testdata", "paths", "_base.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	snap := loadYAML(t, string(base)+`
---
apiVersion: networking.istio.io/v1
kind: ServiceEntry
metadata: {name: web, namespace: team-a}
spec:
  hosts: [web.shop.example]
  resolution: DNS
  ports: [{number: 443, name: tls, protocol: TLS}]
---
apiVersion: networking.istio.io/v1
kind: Gateway
metadata: {name: pt, namespace: istio-system}
spec:
  selector: {istio: egressgateway}
  servers:
  - port: {number: 8443, name: tls, protocol: TLS}
    hosts: ["*.shop.example"]
    tls: {mode: PASSTHROUGH}
---
apiVersion: networking.istio.io/v1
kind: VirtualService
metadata: {name: web-http, namespace: team-a}
spec:
  hosts: [web.shop.example]
  gateways: [istio-system/pt]
  http:
  - route: [{destination: {host: web.shop.example, port: {number: 443}}}]
`)
	rep, err := WhyMissing(snap, WhyMissingOptions{Host: "web.shop.example", Port: 443, Gateway: "istio-system/istio-egressgateway"})
	if err != nil || len(rep.Gateways) != 1 {
		t.Fatal(err)
	}
	v := rep.Gateways[0]
	if v.Cause != CauseRouteNotBound || !strings.Contains(v.Fix, "port: 8443") || !strings.Contains(v.Fix, "destination: {host: web.shop.example, port: {number: 443}}") {
		t.Errorf("%s, fix:\n%s", v.Cause, v.Fix)
	}
}

// explain-listener --gateway on a port no server uses: for the pods of a Gateway API Gateway the
// fix is a listener on that Gateway (istiod adds the port to the Service it deploys), not a
// classic Gateway server (blind audit 53 t-f4a); the classic egress gateway keeps the server fix.
func TestExplainGatewayNoServerFixByAPI(t *testing.T) {
	snap, err := loadPathFixture(filepath.Join("testdata", "paths", "gatewayapi-dr-tls-on-plaintext-port.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		gateway, culprit, fix string
	}{
		{"news2-egress/news2-gw-istio", "Gateway news2-egress/news2-gw", "Add a listener on port 8443 to Gateway news2-egress/news2-gw"},
		{"istio-system/istio-egressgateway", "istio-system/istio-egressgateway", "Add a server with port.number 8443"},
	} {
		rep, err := ExplainListener(snap, ExplainListenerOptions{Gateway: tc.gateway, Port: 8443, Host: "edition.news2.example"})
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, f := range rep.Findings {
			if f.Code == ListenerNoChains {
				found = true
				if f.Resource != tc.culprit || !strings.HasPrefix(f.Fix, tc.fix) {
					t.Errorf("%s: %s %q, fix %q", tc.gateway, f.Code, f.Resource, f.Fix)
				}
			}
		}
		if !found {
			t.Errorf("%s: no %s in %+v", tc.gateway, ListenerNoChains, rep.Findings)
		}
	}
}
