package checks

import (
	"testing"

	"github.com/kubectl-egress/kubectl-egress/pkg/snapshot"
)

// TestSERejectedByValidation: preflight reports a ServiceEntry with CIDR addresses and resolution
// DNS or DNS_ROUND_ROBIN (Istio's validation refuses it), and nothing for a CIDR with NONE or
// STATIC or a single address with DNS.
func TestSERejectedByValidation(t *testing.T) {
	entry := func(name, addr, res string) string {
		return "apiVersion: networking.istio.io/v1\nkind: ServiceEntry\nmetadata: {name: " + name + ", namespace: default}\nspec:\n  hosts: [" + name + ".example.com]\n  addresses: [" + addr + "]\n  resolution: " + res + "\n  ports: [{number: 5432, name: tcp, protocol: TCP}]\n"
	}
	snap := loadYAML(t,
		entry("cidr-dns", "10.1.0.0/24", "DNS"),
		entry("cidr-rr", "10.2.0.0/16", "DNS_ROUND_ROBIN"),
		entry("cidr-none", "10.3.0.0/24", "NONE"),
		entry("cidr-static", "10.4.0.0/24", "STATIC"),
		entry("ip-dns", "10.5.0.7", "DNS"),
	)
	got := map[string]bool{}
	for _, f := range Preflight(snap).Findings {
		if f.Code == PreflightSERejected {
			got[f.Resource.Name] = true
			if f.Field != "spec.addresses" || f.Level != LevelError {
				t.Errorf("%s: field %q level %s", f.Resource.Name, f.Field, f.Level)
			}
		}
	}
	for _, n := range []string{"cidr-dns", "cidr-rr"} {
		if !got[n] {
			t.Errorf("%s: no %s", n, PreflightSERejected)
		}
	}
	for _, n := range []string{"cidr-none", "cidr-static", "ip-dns"} {
		if got[n] {
			t.Errorf("%s: %s on a valid entry", n, PreflightSERejected)
		}
	}
	// once per entry (the why-missing copy folds into preflight's own), and a warning on a
	// traced call to its host, not on one to a valid entry's host (blind audit 71 S1)
	n := 0
	for _, f := range Preflight(snap).Findings {
		if f.Code == PreflightSERejected && f.Resource.Name == "cidr-dns" {
			n++
		}
	}
	if n != 1 {
		t.Errorf("cidr-dns: %d %s findings, want 1", n, PreflightSERejected)
	}
	for host, want := range map[string]bool{"cidr-dns.example.com": true, "ip-dns.example.com": false} {
		p, err := TracePath(snap, PathOptions{Host: host, Port: 5432, From: "default"})
		if err != nil {
			t.Fatal(err)
		}
		warned := p.Cause == PreflightSERejected // (the verdict names the rejected entry)
		for _, w := range p.Warnings {
			warned = warned || w.Code == PreflightSERejected
		}
		if warned != want {
			t.Errorf("%s: %s on the path %v, want %v", host, PreflightSERejected, warned, want)
		}
	}
}

// TestSERejectionRules: each error of Istio's ServiceEntry validation the plugin mirrors, with
// the field it names, and the valid neighbour of each that must pass (blind audit 88 c44, c48,
// c49).
func TestSERejectionRules(t *testing.T) {
	for _, c := range []struct {
		name, spec, field string // field "" = valid
	}{
		{"none-endpoints", "hosts: [a.example.com]\n  resolution: NONE\n  endpoints: [{address: 10.0.0.1}]\n  ports: [{number: 80, name: http, protocol: HTTP}]", "spec.endpoints"},
		{"static-endpoints", "hosts: [a.example.com]\n  resolution: STATIC\n  endpoints: [{address: 10.0.0.1}]\n  ports: [{number: 80, name: http, protocol: HTTP}]", ""},
		{"rr-two-endpoints", "hosts: [a.example.com]\n  resolution: DNS_ROUND_ROBIN\n  endpoints: [{address: a1.example.com}, {address: a2.example.com}]\n  ports: [{number: 80, name: http, protocol: HTTP}]", "spec.endpoints"},
		{"rr-one-endpoint", "hosts: [a.example.com]\n  resolution: DNS_ROUND_ROBIN\n  endpoints: [{address: a1.example.com}]\n  ports: [{number: 80, name: http, protocol: HTTP}]", ""},
		{"two-hosts-tcp", "hosts: [a.example.com, b.example.com]\n  resolution: DNS\n  ports: [{number: 5432, name: tcp, protocol: TCP}]", "spec.hosts"},
		{"two-hosts-tls", "hosts: [a.example.com, b.example.com]\n  resolution: DNS\n  ports: [{number: 443, name: tls, protocol: TLS}]", ""},
		{"two-hosts-tcp-none", "hosts: [a.example.com, b.example.com]\n  resolution: NONE\n  ports: [{number: 5432, name: tcp, protocol: TCP}]", ""},
		{"selector-and-endpoints", "hosts: [a.example.com]\n  resolution: STATIC\n  workloadSelector: {labels: {app: a}}\n  endpoints: [{address: 10.0.0.1}]\n  ports: [{number: 80, name: http, protocol: HTTP}]", "spec.endpoints"},
		{"duplicate-port", "hosts: [a.example.com]\n  resolution: DNS\n  ports: [{number: 80, name: http, protocol: HTTP}, {number: 80, name: http-b, protocol: HTTP}]", "spec.ports"},
		{"star-host", "hosts: [\"*\"]\n  resolution: NONE\n  ports: [{number: 80, name: http, protocol: HTTP}]", "spec.hosts"},
		{"dfp-exact-host", "hosts: [a.example.com]\n  resolution: DYNAMIC_DNS\n  ports: [{number: 80, name: http, protocol: HTTP}]", "spec.hosts"},
		{"dfp-tcp-port", "hosts: [\"*.example.com\"]\n  resolution: DYNAMIC_DNS\n  ports: [{number: 5432, name: tcp, protocol: TCP}]", "spec.ports"},
		{"exportto-dot-and-own", "hosts: [a.example.com]\n  resolution: DNS\n  exportTo: [\".\", default]\n  ports: [{number: 80, name: http, protocol: HTTP}]", "spec.exportTo"},
		{"exportto-star-and-ns", "hosts: [a.example.com]\n  resolution: DNS\n  exportTo: [\"*\", team-b]\n  ports: [{number: 80, name: http, protocol: HTTP}]", "spec.exportTo"},
		{"exportto-tilde-and-ns", "hosts: [a.example.com]\n  resolution: DNS\n  exportTo: [\"~\", team-b]\n  ports: [{number: 80, name: http, protocol: HTTP}]", "spec.exportTo"},
		{"exportto-valid", "hosts: [a.example.com]\n  resolution: DNS\n  exportTo: [\".\", team-b, istio-system]\n  ports: [{number: 80, name: http, protocol: HTTP}]", ""},
		{"port-name-underscore", "hosts: [a.example.com]\n  resolution: DNS\n  ports: [{number: 443, name: https_api, protocol: HTTPS}]", "spec.ports"},
		{"port-name-missing", "hosts: [a.example.com]\n  resolution: DNS\n  ports: [{number: 443, protocol: HTTPS}]", "spec.ports"},
		{"static-fqdn-endpoint", "hosts: [a.example.com]\n  resolution: STATIC\n  endpoints: [{address: a1.example.com}]\n  ports: [{number: 80, name: http, protocol: HTTP}]", "spec.endpoints"},
		{"static-unix-endpoint", "hosts: [a.example.com]\n  resolution: STATIC\n  endpoints: [{address: \"unix:///var/run/a.sock\"}]\n  ports: [{number: 80, name: http, protocol: HTTP}]", ""},
		{"dns-wildcard-no-endpoints", "hosts: [\"*.example.com\"]\n  resolution: DNS\n  ports: [{number: 443, name: tls, protocol: TLS}]", "spec.hosts"},
		{"dns-wildcard-with-endpoint", "hosts: [\"*.example.com\"]\n  resolution: DNS\n  endpoints: [{address: proxy.example.com}]\n  ports: [{number: 443, name: tls, protocol: TLS}]", ""},
		// istio's DNS labels take upper case (pkg/config/labels dns1123LabelFmt), and so do its
		// port names: the conformance suite's comparison with istiod's validation found both
		{"dns-upper-case-host", "hosts: [API.example.com]\n  resolution: DNS\n  ports: [{number: 443, name: TLS, protocol: TLS}]", ""},
		{"host-with-port", "hosts: [\"api.example.com:443\"]\n  resolution: DNS\n  ports: [{number: 443, name: tls, protocol: TLS}]", "spec.hosts"},
		{"host-with-scheme", "hosts: [\"https://api.example.com\"]\n  resolution: NONE\n  ports: [{number: 443, name: tls, protocol: TLS}]", "spec.hosts"},
		{"host-ip", "hosts: [10.1.2.3]\n  resolution: STATIC\n  endpoints: [{address: 10.1.2.3}]\n  ports: [{number: 443, name: tls, protocol: TLS}]", "spec.hosts"},
		{"unknown-protocol", "hosts: [a.example.com]\n  resolution: DNS\n  ports: [{number: 443, name: tls, protocol: HTTPS2}]", "spec.ports"},
		{"port-out-of-range", "hosts: [a.example.com]\n  resolution: DNS\n  ports: [{number: 70000, name: tls, protocol: TLS}]", "spec.ports"},
		{"bad-address", "hosts: [a.example.com]\n  resolution: STATIC\n  addresses: [10.0.0.0/33]\n  endpoints: [{address: 10.0.0.1}]\n  ports: [{number: 443, name: tls, protocol: TLS}]", "spec.addresses"},
		{"endpoint-port-undeclared", "hosts: [a.example.com]\n  resolution: DNS\n  endpoints: [{address: a1.example.com, ports: {https: 8443}}]\n  ports: [{number: 443, name: tls, protocol: TLS}]", "spec.endpoints"},
		{"endpoint-port-declared", "hosts: [a.example.com]\n  resolution: DNS\n  endpoints: [{address: a1.example.com, ports: {tls: 8443}}]\n  ports: [{number: 443, name: tls, protocol: TLS}]", ""},
		{"no-hosts", "hosts: []\n  resolution: DNS\n  ports: [{number: 443, name: tls, protocol: TLS}]", "spec.hosts"},
		{"dfp-valid", "hosts: [\"*.example.com\"]\n  resolution: DYNAMIC_DNS\n  ports: [{number: 443, name: tls, protocol: TLS}]", ""},
	} {
		checkRejectionFields(t, "ServiceEntry", c.name, c.spec, c.field, seValidationFindings)
	}
}

// TestSidecarRejectionRules: each error of Istio's Sidecar validation the plugin mirrors (istio
// pkg/config/validation ValidateSidecar), with the field it names, and a valid neighbour of
// each that must pass.
func TestSidecarRejectionRules(t *testing.T) {
	for _, c := range []struct {
		name, spec, field string // field "" = valid
	}{
		{"valid", "egress:\n  - hosts: [\"./*\", \"istio-system/*\"]", ""},
		{"host-without-namespace", "egress:\n  - hosts: [httpbin.org]", "spec.egress[0].hosts"},
		{"host-with-namespace", "egress:\n  - hosts: [\"*/httpbin.org\"]", ""},
		{"short-name", "egress:\n  - hosts: [\"istio-system/istio-egressgateway\"]", "spec.egress[0].hosts"},
		{"bad-namespace", "egress:\n  - hosts: [\"team_a/*\"]", "spec.egress[0].hosts"},
		{"excluded-namespace", "egress:\n  - hosts: [\"~team-b/*\", \"./*\"]", ""},
		{"partial-wildcard", "egress:\n  - hosts: [\"*/api.*.com\"]", "spec.egress[0].hosts"},
		{"no-hosts", "egress:\n  - hosts: []", "spec.egress[0].hosts"},
		{"catch-all-not-last", "egress:\n  - hosts: [\"./*\"]\n  - port: {number: 80, name: http, protocol: HTTP}\n    hosts: [\"./*\"]", "spec.egress[0].port"},
		{"catch-all-last", "egress:\n  - port: {number: 80, name: http, protocol: HTTP}\n    hosts: [\"./*\"]\n  - hosts: [\"./*\"]", ""},
		{"duplicate-port", "egress:\n  - port: {number: 80, protocol: HTTP}\n    hosts: [\"./*\"]\n  - port: {number: 80, protocol: TCP}\n    hosts: [\"*/*\"]", "spec.egress[1].port"},
		{"unknown-protocol", "egress:\n  - port: {number: 80, protocol: HTTPX}\n    hosts: [\"./*\"]", "spec.egress[0].port"},
		{"bind-not-ip", "egress:\n  - port: {number: 80, protocol: HTTP}\n    bind: localhost\n    hosts: [\"./*\"]", "spec.egress[0].port"},
		{"empty", "workloadSelector: {labels: {app: a}}", "spec"},
		{"selector-wildcard", "workloadSelector: {labels: {app: \"*\"}}\n  egress:\n  - hosts: [\"./*\"]", "spec.workloadSelector"},
		{"default-endpoint-remote", "ingress:\n  - port: {number: 9080, protocol: HTTP}\n    defaultEndpoint: 10.0.0.1:8080", "spec.ingress[0].defaultEndpoint"},
		{"default-endpoint-local", "ingress:\n  - port: {number: 9080, protocol: HTTP}\n    defaultEndpoint: 127.0.0.1:8080", ""},
		{"egress-proxy-subset", "outboundTrafficPolicy:\n    mode: ALLOW_ANY\n    egressProxy: {host: gw.istio-system.svc.cluster.local, subset: V_1, port: {number: 80}}", "spec.outboundTrafficPolicy"},
		{"egress-proxy-valid", "outboundTrafficPolicy:\n    mode: ALLOW_ANY\n    egressProxy: {host: gw.istio-system.svc.cluster.local, subset: v1, port: {number: 80}}", ""},
	} {
		checkRejectionFields(t, "Sidecar", c.name, c.spec, c.field, sidecarValidationFindings)
	}
}

// TestVSRejectionRules: errors of Istio's VirtualService validation the plugin mirrors (istio
// pkg/config/validation ValidateVirtualService), with the field each names, and a valid
// neighbour of each that must pass.
func TestVSRejectionRules(t *testing.T) {
	const toGW = "\n  http:\n  - route: [{destination: {host: istio-egressgateway.istio-system.svc.cluster.local}}]"
	for _, c := range []struct {
		name, spec, field string // field "" = valid
	}{
		{"valid", "hosts: [api.example.com]\n  gateways: [mesh, istio-system/egress]" + toGW, ""},
		{"sni-not-in-hosts", "hosts: [api.example.com]\n  tls:\n  - match: [{sniHosts: [other.example.com]}]\n    route: [{destination: {host: other.example.com}}]", "spec.tls[0]"},
		{"sni-under-wildcard-host", "hosts: [\"*.example.com\"]\n  tls:\n  - match: [{sniHosts: [api.example.com]}]\n    route: [{destination: {host: api.example.com}}]", ""},
		{"tls-without-match", "hosts: [api.example.com]\n  tls:\n  - route: [{destination: {host: api.example.com}}]", "spec.tls[0]"},
		{"gateway-bad-namespace", "hosts: [api.example.com]\n  gateways: [istio_system/egress]" + toGW, "spec.gateways"},
		{"gateway-legacy-name", "hosts: [api.example.com]\n  gateways: [egress.istio-system]" + toGW, ""},
		{"star-host-for-sidecars", "hosts: [\"*\"]" + toGW, "spec.hosts"},
		{"star-host-for-gateway", "hosts: [\"*\"]\n  gateways: [istio-system/egress]" + toGW, ""},
		{"overlapping-hosts", "hosts: [api.example.com, \"*.example.com\"]" + toGW, "spec.hosts"},
		{"no-routes", "hosts: [api.example.com]", "spec"},
		{"subset-underscore", "hosts: [api.example.com]\n  http:\n  - route: [{destination: {host: istio-egressgateway.istio-system.svc.cluster.local, subset: stripe_api}}]", "spec.http[0]"},
		{"route-and-redirect", "hosts: [api.example.com]\n  http:\n  - redirect: {authority: www.example.com}\n    route: [{destination: {host: api.example.com}}]", "spec.http[0]"},
		{"empty-uri-prefix", "hosts: [api.example.com]\n  http:\n  - match: [{uri: {prefix: \"\"}}]\n    route: [{destination: {host: api.example.com}}]", ""},
		{"tcp-without-route", "hosts: [api.example.com]\n  tcp:\n  - match: [{port: 5432}]", "spec.tcp[0]"},
		{"exportto-tilde", "hosts: [api.example.com]\n  exportTo: [\"~\"]" + toGW, "spec.exportTo"},
	} {
		checkRejectionFields(t, "VirtualService", c.name, c.spec, c.field, vsValidationFindings)
	}
}

// checkRejectionFields: the object of kind named name with spec, alone in the input, gets
// exactly one rejection on field from findings, or none when field is "".
func checkRejectionFields(t *testing.T, kind, name, spec, field string, findings func(*snapshot.Snapshot) []PreflightFinding) {
	t.Helper()
	snap := loadYAML(t, "apiVersion: networking.istio.io/v1\nkind: "+kind+"\nmetadata: {name: "+name+", namespace: default}\nspec:\n  "+spec+"\n")
	var fields []string
	for _, f := range findings(snap) {
		fields = append(fields, f.Field)
	}
	switch {
	case field == "" && len(fields) > 0:
		t.Errorf("%s: rejected (%v), but Istio's validation accepts it", name, fields)
	case field != "" && (len(fields) != 1 || fields[0] != field):
		t.Errorf("%s: fields %v, want one rejection on %s", name, fields, field)
	}
}

// TestGatewayRejectionRules: errors of Istio's Gateway validation the plugin mirrors (istio
// pkg/config/validation ValidateGateway, validateServer, validateTLSOptions), each with a valid
// neighbour.
func TestGatewayRejectionRules(t *testing.T) {
	for _, c := range []struct{ name, spec, field string }{
		{"valid", "servers: [{port: {number: 443, name: tls, protocol: TLS}, hosts: [api.example.com], tls: {mode: PASSTHROUGH}}]", ""},
		{"simple-without-credential", "servers: [{port: {number: 443, name: https, protocol: HTTPS}, hosts: [api.example.com], tls: {mode: SIMPLE}}]", "spec.servers[0]"},
		{"simple-with-credential", "servers: [{port: {number: 443, name: https, protocol: HTTPS}, hosts: [api.example.com], tls: {mode: SIMPLE, credentialName: api-cert}}]", ""},
		{"tls-settings-on-http", "servers: [{port: {number: 80, name: http, protocol: HTTP}, hosts: [api.example.com], tls: {mode: SIMPLE, credentialName: api-cert}}]", "spec.servers[0]"},
		{"https-redirect-on-http", "servers: [{port: {number: 80, name: http, protocol: HTTP}, hosts: [api.example.com], tls: {httpsRedirect: true}}]", ""},
		{"istio-mutual-with-credential", "servers: [{port: {number: 443, name: tls, protocol: TLS}, hosts: [api.example.com], tls: {mode: ISTIO_MUTUAL, credentialName: api-cert}}]", "spec.servers[0]"},
		{"port-without-name", "servers: [{port: {number: 80, protocol: HTTP}, hosts: [api.example.com]}]", "spec.servers[0]"},
		{"short-host", "servers: [{port: {number: 80, name: http, protocol: HTTP}, hosts: [api]}]", "spec.servers[0]"},
		{"duplicate-port-name", "servers: [{port: {number: 80, name: web, protocol: HTTP}, hosts: [a.example.com]}, {port: {number: 8080, name: web, protocol: HTTP}, hosts: [b.example.com]}]", "spec.servers[1].port.name"},
	} {
		checkRejectionFields(t, "Gateway", c.name, c.spec, c.field, gatewayValidationFindings)
	}
}

// TestDRRejectionRules: errors of Istio's DestinationRule validation the plugin mirrors (istio
// pkg/config/validation ValidateDestinationRule, agent.ValidateTLS), each with a valid neighbour.
func TestDRRejectionRules(t *testing.T) {
	for _, c := range []struct{ name, spec, field string }{
		{"valid", "host: api.example.com\n  subsets: [{name: v1, labels: {version: v1}}]", ""},
		{"duplicate-subset", "host: api.example.com\n  subsets: [{name: v1}, {name: v1}]", "spec.subsets[1].name"},
		{"subset-underscore", "host: api.example.com\n  subsets: [{name: tls_origination}]", "spec.subsets[0].name"},
		{"empty-policy", "host: api.example.com\n  trafficPolicy: {}", "spec.trafficPolicy"},
		{"mutual-without-certificates", "host: api.example.com\n  trafficPolicy: {tls: {mode: MUTUAL}}", "spec.trafficPolicy"},
		{"mutual-with-credential", "host: api.example.com\n  trafficPolicy: {tls: {mode: MUTUAL, credentialName: client-cert}}", ""},
		{"skip-verify-with-credential", "host: api.example.com\n  trafficPolicy: {tls: {mode: SIMPLE, credentialName: ca, insecureSkipVerify: true}}", "spec.trafficPolicy"},
		{"port-setting-without-port", "host: api.example.com\n  trafficPolicy: {portLevelSettings: [{tls: {mode: SIMPLE}}]}", "spec.trafficPolicy"},
		{"selector-exported-beyond", "host: api.example.com\n  workloadSelector: {matchLabels: {app: a}}\n  exportTo: [\"*\"]\n  trafficPolicy: {tls: {mode: SIMPLE}}", "spec.exportTo"},
	} {
		checkRejectionFields(t, "DestinationRule", c.name, c.spec, c.field, drValidationFindings)
	}
}
