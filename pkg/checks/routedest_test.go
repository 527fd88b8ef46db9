package checks

import (
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-egress/kubectl-egress/pkg/loader"
	"github.com/kubectl-egress/kubectl-egress/pkg/snapshot"
)

// TestRouteDestinations: why-missing for a host whose own cluster is on the gateway still fails
// when the route bound there sends it elsewhere (a forward proxy's Service, another entry) that
// the gateway lacks, or passes the client's TLS into a cluster that originates TLS. Two shapes
// per rule.
func TestRouteDestinations(t *testing.T) {
	for _, c := range []struct {
		name, host, yaml, cause, culprit string
		noPatch                          bool
	}{
		{"forward proxy Service hidden by its exportTo annotation", "updates.vendor.example", `
apiVersion: v1
kind: Namespace
metadata: {name: corp-proxy}
---
apiVersion: v1
kind: Service
metadata: {name: squid, namespace: corp-proxy, annotations: {networking.istio.io/exportTo: "."}}
spec:
  selector: {app: squid}
  ports: [{name: http-proxy, port: 3128}]
---
apiVersion: networking.istio.io/v1
kind: Gateway
metadata: {name: egress, namespace: istio-system}
spec:
  selector: {istio: egressgateway}
  servers: [{port: {number: 80, name: http, protocol: HTTP}, hosts: [updates.vendor.example]}]
---
apiVersion: networking.istio.io/v1
kind: ServiceEntry
metadata: {name: vendor, namespace: team-a}
spec:
  hosts: [updates.vendor.example]
  resolution: DNS
  ports: [{number: 80, name: http, protocol: HTTP}]
---
apiVersion: networking.istio.io/v1
kind: VirtualService
metadata: {name: vendor-via-proxy, namespace: istio-system}
spec:
  hosts: [updates.vendor.example]
  gateways: [istio-system/egress]
  http:
  - route: [{destination: {host: squid.corp-proxy.svc.cluster.local, port: {number: 3128}}}]
`, ListenerClusterAbsent, "Service corp-proxy/squid", false},
		{"second entry private to its namespace", "api.payments.example", `
apiVersion: v1
kind: Namespace
metadata: {name: shop, labels: {istio-injection: enabled}}
---
apiVersion: networking.istio.io/v1
kind: Gateway
metadata: {name: pay-tcp, namespace: istio-system}
spec:
  selector: {istio: egressgateway}
  servers: [{port: {number: 9000, name: tcp, protocol: TCP}, hosts: ["*"]}]
---
apiVersion: v1
kind: Service
metadata: {name: egress-tcp, namespace: istio-system}
spec:
  selector: {istio: egressgateway}
  ports: [{name: tcp, port: 9000, targetPort: 9000}]
---
apiVersion: networking.istio.io/v1
kind: ServiceEntry
metadata: {name: payments, namespace: shop}
spec:
  hosts: [api.payments.example]
  addresses: [240.10.0.1]
  resolution: DNS
  ports: [{number: 9000, name: tcp, protocol: TCP}]
---
apiVersion: networking.istio.io/v1
kind: ServiceEntry
metadata: {name: payments-dr-site, namespace: shop}
spec:
  hosts: [dr.payments.example]
  exportTo: ["."]
  resolution: DNS
  ports: [{number: 9000, name: tcp, protocol: TCP}]
---
apiVersion: networking.istio.io/v1
kind: VirtualService
metadata: {name: payments-failover, namespace: shop}
spec:
  hosts: [api.payments.example]
  gateways: [istio-system/pay-tcp]
  tcp:
  - route: [{destination: {host: dr.payments.example, port: {number: 9000}}}]
`, ListenerClusterAbsent, "ServiceEntry shop/payments-dr-site", false},
		{"passthrough server, host-level SIMPLE", "files.cdn.example", `
apiVersion: networking.istio.io/v1
kind: Gateway
metadata: {name: tls-pass, namespace: istio-system}
spec:
  selector: {istio: egressgateway}
  servers: [{port: {number: 443, name: tls, protocol: TLS}, hosts: [files.cdn.example], tls: {mode: PASSTHROUGH}}]
---
apiVersion: networking.istio.io/v1
kind: ServiceEntry
metadata: {name: cdn, namespace: team-a}
spec:
  hosts: [files.cdn.example]
  resolution: DNS
  ports: [{number: 443, name: tls, protocol: TLS}]
---
apiVersion: networking.istio.io/v1
kind: DestinationRule
metadata: {name: cdn-verify, namespace: team-a}
spec:
  host: files.cdn.example
  trafficPolicy: {tls: {mode: SIMPLE, sni: files.cdn.example}}
---
apiVersion: networking.istio.io/v1
kind: VirtualService
metadata: {name: cdn, namespace: istio-system}
spec:
  hosts: [files.cdn.example]
  gateways: [istio-system/tls-pass]
  tls:
  - match: [{port: 443, sniHosts: [files.cdn.example]}]
    route: [{destination: {host: files.cdn.example, port: {number: 443}}}]
`, ListenerDoubleTLS, "DestinationRule team-a/cdn-verify", false},
		{"passthrough server, port-level MUTUAL in the root namespace", "ledger.bank.example", `
apiVersion: networking.istio.io/v1
kind: Gateway
metadata: {name: bank, namespace: istio-system}
spec:
  selector: {istio: egressgateway}
  servers: [{port: {number: 8443, name: tls-bank, protocol: TLS}, hosts: ["*.bank.example"], tls: {mode: PASSTHROUGH}}]
---
apiVersion: v1
kind: Service
metadata: {name: egress-bank, namespace: istio-system}
spec:
  selector: {istio: egressgateway}
  ports: [{name: tls-bank, port: 8443, targetPort: 18443}]
---
apiVersion: networking.istio.io/v1
kind: ServiceEntry
metadata: {name: ledger, namespace: istio-system}
spec:
  hosts: [ledger.bank.example]
  resolution: DNS
  ports: [{number: 8443, name: tls, protocol: TLS}]
---
apiVersion: networking.istio.io/v1
kind: DestinationRule
metadata: {name: ledger-mtls, namespace: istio-system}
spec:
  host: ledger.bank.example
  trafficPolicy:
    portLevelSettings:
    - port: {number: 8443}
      tls: {mode: MUTUAL, credentialName: ledger-client}
---
apiVersion: networking.istio.io/v1
kind: VirtualService
metadata: {name: ledger, namespace: istio-system}
spec:
  hosts: [ledger.bank.example]
  gateways: [bank]
  tls:
  - match: [{port: 8443, sniHosts: [ledger.bank.example]}]
    route: [{destination: {host: ledger.bank.example}}]
`, ListenerDoubleTLS, "DestinationRule istio-system/ledger-mtls", false},
		{"origination route to a port the entry does not declare", "reports.bi.example", `
apiVersion: networking.istio.io/v1
kind: Gateway
metadata: {name: bi, namespace: istio-system}
spec:
  selector: {istio: egressgateway}
  servers: [{port: {number: 80, name: http, protocol: HTTP}, hosts: [reports.bi.example]}]
---
apiVersion: networking.istio.io/v1
kind: ServiceEntry
metadata: {name: bi, namespace: team-a}
spec:
  hosts: [reports.bi.example]
  resolution: DNS
  ports: [{number: 80, name: http, protocol: HTTP}]
---
apiVersion: networking.istio.io/v1
kind: VirtualService
metadata: {name: bi-originate, namespace: team-a}
spec:
  hosts: [reports.bi.example]
  gateways: [istio-system/bi]
  http:
  - route: [{destination: {host: reports.bi.example, port: {number: 443}}}]
`, ListenerClusterAbsent, "VirtualService team-a/bi-originate", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, g := egressGatewayVerdict(t, c.yaml, c.host)
			if !g.Present || g.Cause != c.cause || g.Culprit != c.culprit {
				t.Errorf("present %v, cause %s, culprit %q; want present, %s, %q: %s", g.Present, g.Cause, g.Culprit, c.cause, c.culprit, g.Message)
			}
			if g.Patch == nil && !c.noPatch {
				t.Errorf("no patch: %s", g.Fix)
			}
		})
	}
}

// TestGatewayRefNamesWorkload: spec.gateways naming the gateway Deployment or its Service (not a
// Gateway resource) is GATEWAY_REF_UNRESOLVED whose fix names the Gateway selecting the workload.
func TestGatewayRefNamesWorkload(t *testing.T) {
	for _, ref := range []string{"istio-system/istio-egressgateway", "istio-egressgateway.istio-system.svc.cluster.local"} {
		in := `
apiVersion: networking.istio.io/v1
kind: Gateway
metadata: {name: shared-egress, namespace: istio-system}
spec:
  selector: {istio: egressgateway}
  servers: [{port: {number: 80, name: http, protocol: HTTP}, hosts: ["*"]}]
---
apiVersion: networking.istio.io/v1
kind: ServiceEntry
metadata: {name: mail, namespace: team-a}
spec:
  hosts: [send.mail.example]
  resolution: DNS
  ports: [{number: 80, name: http, protocol: HTTP}]
---
apiVersion: networking.istio.io/v1
kind: VirtualService
metadata: {name: mail, namespace: team-a}
spec:
  hosts: [send.mail.example]
  gateways: [` + ref + `]
  http:
  - route: [{destination: {host: send.mail.example}}]
`
		_, g := egressGatewayVerdict(t, in, "send.mail.example")
		if g.Cause != CauseGatewayRefUnresolve || !strings.Contains(g.Fix, "istio-system/shared-egress") || !strings.Contains(g.Message, "not of a Gateway resource") {
			t.Errorf("%s: cause %s, fix %q: %s", ref, g.Cause, g.Fix, g.Message)
		}
	}
}

// TestPassthroughServerWithCertificate: a server with a certificate but no tls.mode (or an
// explicit PASSTHROUGH) does not terminate TLS: http routes do not bind (the Gateway's mode is to
// blame), and preflight warns about the unused certificate. Two shapes.
func TestPassthroughServerWithCertificate(t *testing.T) {
	for _, c := range []struct{ name, host, tls, port string }{
		{"HTTPS, credentialName, no mode", "ingest.siem.example", "{credentialName: siem-cert}", "443"},
		{"TLS, serverCertificate, explicit PASSTHROUGH", "api.ledger.example", "{mode: PASSTHROUGH, serverCertificate: /etc/certs/cert.pem, privateKey: /etc/certs/key.pem}", "8443"},
	} {
		t.Run(c.name, func(t *testing.T) {
			proto := "HTTPS"
			if c.port == "8443" {
				proto = "TLS"
			}
			in := `
apiVersion: networking.istio.io/v1
kind: Gateway
metadata: {name: terminate, namespace: istio-system}
spec:
  selector: {istio: egressgateway}
  servers: [{port: {number: ` + c.port + `, name: tls-x, protocol: ` + proto + `}, hosts: [` + c.host + `], tls: ` + c.tls + `}]
---
apiVersion: networking.istio.io/v1
kind: ServiceEntry
metadata: {name: x, namespace: team-a}
spec:
  hosts: [` + c.host + `]
  resolution: DNS
  ports: [{number: 443, name: https, protocol: HTTPS}]
---
apiVersion: networking.istio.io/v1
kind: VirtualService
metadata: {name: x, namespace: istio-system}
spec:
  hosts: [` + c.host + `]
  gateways: [terminate]
  http:
  - route: [{destination: {host: ` + c.host + `, port: {number: 443}}}]
`
			snap, g := egressGatewayVerdict(t, in, c.host)
			if g.Cause != CauseRouteNotBound || g.Culprit != "Gateway istio-system/terminate" || !strings.Contains(g.Fix, "mode: SIMPLE") {
				t.Errorf("cause %s, culprit %q, fix %q", g.Cause, g.Culprit, g.Fix)
			}
			res := Preflight(snap)
			if !slices.ContainsFunc(res.Findings, func(f PreflightFinding) bool { return f.Code == ListenerCertUnused }) {
				t.Errorf("preflight has no %s", ListenerCertUnused)
			}
		})
	}
}

// egressGatewayVerdict loads the path fixtures' base (testdata/paths/_base.yaml) with the YAML
// in, and returns the snapshot and why-missing's verdict for host on istio-system/istio-egressgateway.
func egressGatewayVerdict(t *testing.T, in, host string) (*snapshot.Snapshot, GatewayVerdict) {
	t.Helper()
	snap, err := loader.FromFiles([]string{filepath.Join("testdata", "paths", "_base.yaml"), "-"}, strings.NewReader(in), loader.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := WhyMissing(snap, WhyMissingOptions{Host: host, Gateway: "istio-system/istio-egressgateway"})
	if err != nil {
		t.Fatal(err)
	}
	return snap, r.Gateways[0]
}

// TestRouteToExternalNameAlias: a gateway route whose destination is a Kubernetes ExternalName
// Service goes to the cluster of its external name (istiod route.go GetDestinationCluster), so
// with PILOT_FILTER_GATEWAY_CLUSTER_CONFIG off the call works; with the flag on, istiod keeps only
// the hosts routes name literally (the alias), the external name's cluster is not pushed, and the
// route is the culprit. Two shapes: HTTP with the alias beside the entry, and a TLS passthrough
// route to an alias in another namespace.
func TestRouteToExternalNameAlias(t *testing.T) {
	shapes := []struct{ name, host, yaml, vs string }{
		{"http alias beside the entry", "api.erp-cloud.example", `
apiVersion: v1
kind: Service
metadata: {name: erp-api, namespace: team-a}
spec:
  type: ExternalName
  externalName: api.erp-cloud.example
  ports: [{name: http, port: 80}]
---
apiVersion: networking.istio.io/v1
kind: ServiceEntry
metadata: {name: erp-cloud, namespace: team-a}
spec:
  hosts: [api.erp-cloud.example]
  resolution: DNS
  ports: [{number: 80, name: http, protocol: HTTP}]
---
apiVersion: networking.istio.io/v1
kind: Gateway
metadata: {name: erp-egress, namespace: istio-system}
spec:
  selector: {istio: egressgateway}
  servers: [{port: {number: 80, name: http, protocol: HTTP}, hosts: [api.erp-cloud.example]}]
---
apiVersion: networking.istio.io/v1
kind: VirtualService
metadata: {name: erp-via-egress, namespace: team-a}
spec:
  hosts: [api.erp-cloud.example]
  gateways: [istio-system/erp-egress]
  http:
  - route: [{destination: {host: erp-api.team-a.svc.cluster.local, port: {number: 80}}}]
`, "VirtualService team-a/erp-via-egress"},
		{"tls passthrough to an alias in another namespace", "vault.secrets-saas.io", `
apiVersion: v1
kind: Namespace
metadata: {name: aliases}
---
apiVersion: v1
kind: Service
metadata: {name: vault, namespace: aliases}
spec:
  type: ExternalName
  externalName: vault.secrets-saas.io
  ports: [{name: tls, port: 443}]
---
apiVersion: networking.istio.io/v1
kind: ServiceEntry
metadata: {name: vault, namespace: istio-system}
spec:
  hosts: [vault.secrets-saas.io]
  resolution: DNS
  ports: [{number: 443, name: tls, protocol: TLS}]
---
apiVersion: networking.istio.io/v1
kind: Gateway
metadata: {name: sni, namespace: istio-system}
spec:
  selector: {istio: egressgateway}
  servers: [{port: {number: 443, name: tls, protocol: TLS}, hosts: [vault.secrets-saas.io], tls: {mode: PASSTHROUGH}}]
---
apiVersion: networking.istio.io/v1
kind: VirtualService
metadata: {name: vault-sni, namespace: istio-system}
spec:
  hosts: [vault.secrets-saas.io]
  gateways: [sni]
  tls:
  - match: [{port: 443, sniHosts: [vault.secrets-saas.io]}]
    route: [{destination: {host: vault.aliases.svc.cluster.local, port: {number: 443}}}]
`, "VirtualService istio-system/vault-sni"},
	}
	for _, c := range shapes {
		for _, filter := range []bool{false, true} {
			_, v := egressGatewayVerdictFlags(t, c.yaml, c.host, filter)
			if !filter {
				if !v.Present || v.Cause != CauseOK {
					t.Errorf("%s, flag off: got present=%v cause %s (%s), want the cluster present and OK", c.name, v.Present, v.Cause, v.Message)
				}
				continue
			}
			if v.Present || v.Cause != CauseNotReferenced || v.Culprit != c.vs {
				t.Errorf("%s, flag on: got present=%v cause %s culprit %q, want absent, %s, %s", c.name, v.Present, v.Cause, v.Culprit, CauseNotReferenced, c.vs)
			}
			if !strings.Contains(v.Fix, "route to "+c.host) {
				t.Errorf("%s, flag on: fix %q does not route to the external name", c.name, v.Fix)
			}
		}
	}
}

// egressGatewayVerdictFlags is egressGatewayVerdict with istiod's PILOT_FILTER_GATEWAY_CLUSTER_CONFIG
// set to filter.
func egressGatewayVerdictFlags(t *testing.T, in, host string, filter bool) (*snapshot.Snapshot, GatewayVerdict) {
	t.Helper()
	snap, err := loader.FromFiles([]string{filepath.Join("testdata", "paths", "_base.yaml"), "-"}, strings.NewReader(in), loader.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range snap.Deployments {
		if d.Namespace == "istio-system" && d.Name == "istiod" {
			c := &d.Spec.Template.Spec.Containers[0]
			c.Env = append(c.Env, corev1.EnvVar{Name: EnvFilterGatewayClusterConfig, Value: strconv.FormatBool(filter)})
		}
	}
	r, err := WhyMissing(snap, WhyMissingOptions{Host: host, Gateway: "istio-system/istio-egressgateway"})
	if err != nil {
		t.Fatal(err)
	}
	return snap, r.Gateways[0]
}
