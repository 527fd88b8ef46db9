package e2e

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/kubectl-egress/kubectl-egress/pkg/checks"
)

// listenerCase is one explain-listener expectation from a case file's `# expect:` (a fixture of
// testdata/cases, or of the shared acceptance set when it is present).
type listenerCase struct {
	file string
	args []string
	// listeners: "NAME MATCH -> DESTINATION" rows that must be present (default chains end in
	// " (default)").
	listeners []string
	// calls: "KIND LISTENER CLUSTER-or-VHOST" for each call, in order; "" skips.
	calls []string
	// findings: codes that must be present (with the culprit resource); absent: codes that must not.
	findings []string
	absent   []string
	code     int
}

var listenerCases = []listenerCase{
	{file: "tcp-entries-share-port-without-vips.yaml", args: []string{"--from", "analytics", "--port", "5432"},
		listeners: []string{"0.0.0.0_5432 ALL -> Cluster: outbound|5432||pg-primary.example.net", "240.0.2.9_5432 ALL -> Cluster: outbound|5432||pg-archive.example.net"},
		findings:  []string{"FILTER_CHAIN_DROPPED ServiceEntry analytics/warehouse-replica", "TCP_CATCH_ALL_ON_PORT ServiceEntry analytics/warehouse-primary"}, code: 1},
	{file: "tcp-entry-on-443-captures-other-https.yaml", args: []string{"www.example.com:443", "--from", "monitoring"},
		listeners: []string{"0.0.0.0_443 SNI: status.example.com -> Cluster: outbound|443||status.example.com", "0.0.0.0_443 ALL (default) -> Cluster: outbound|443||telemetry.example.org"},
		calls:     []string{"tls 0.0.0.0_443 outbound|443||telemetry.example.org"},
		findings:  []string{"TCP_CATCH_ALL_ON_TLS_PORT ServiceEntry monitoring/telemetry-sink", "HOST_NOT_IN_REGISTRY www.example.com"}, code: 1},
	{file: "tcp-entry-shadowed-by-http-service-port.yaml", args: []string{"erp.example.net:8080", "--from", "store"},
		listeners: []string{"0.0.0.0_8080 Trans: raw_buffer; App: http/1.1,h2c -> Route: 8080", "0.0.0.0_8080 ALL (default) -> Cluster: outbound|8080||erp.example.net"},
		calls:     []string{"http 0.0.0.0_8080 allow_any PassthroughCluster", "tcp 0.0.0.0_8080 outbound|8080||erp.example.net"},
		findings:  []string{"HTTP_CHAIN_SHADOWS_TCP_ENTRY ServiceEntry store/legacy-erp"}, absent: []string{"FILTER_CHAIN_DROPPED"}},
	{file: "grpc-host-without-entry-on-http-port.yaml", args: []string{"--from", "ml", "--port", "9090", "--host", "predict.example.net", "--call", "http2"},
		calls:    []string{"http2 0.0.0.0_9090 allow_any PassthroughCluster"},
		findings: []string{"HOST_NOT_IN_REGISTRY predict.example.net"}},
	{file: "https-entry-with-port-level-simple-tls.yaml", args: []string{"--from", "billing", "--port", "443", "--host", "invoices.example.com"},
		listeners: []string{"0.0.0.0_443 SNI: invoices.example.com -> Cluster: outbound|443||invoices.example.com"},
		calls:     []string{"tls 0.0.0.0_443 outbound|443||invoices.example.com"},
		findings:  []string{"TLS_ORIGINATED_TWICE DestinationRule billing/invoice-api-tls"}, code: 1},
	{file: "tls-passthrough-server-given-http-routes.yaml", args: []string{"--gateway", "istio-system/egress-tls", "--port", "9443"},
		findings: []string{"GATEWAY_LISTENER_WITHOUT_CHAINS istio-system/vault-passthrough", "HTTP_ROUTES_ON_PASSTHROUGH_SERVER VirtualService vault-client/vault-egress"}, code: 1},
	{file: "tls-passthrough-server-given-http-routes.yaml", args: []string{"vault.example.net:9443", "--from", "vault-client"},
		calls:    []string{"tls 0.0.0.0_9443 outbound|9443||vault.example.net"},
		findings: []string{"HTTP_ROUTES_IGNORED_ON_TCP_PORT VirtualService vault-client/vault-egress"}},
	{file: "gateway-service-lacks-mesh-hop-port.yaml", args: []string{"search.example.org:9243", "--from", "integrations"},
		calls:    []string{"tls 0.0.0.0_9243 outbound|9243|search|outbound-gateway.outbound.svc.cluster.local"},
		findings: []string{"GATEWAY_SERVICE_LACKS_PORT Service outbound/outbound-gateway"}, code: 1},
	{file: "gateway-service-lacks-mesh-hop-port.yaml", args: []string{"search.example.org:9243", "--gateway", "outbound/outbound-gateway"},
		listeners: []string{"0.0.0.0_9243 SNI: search.example.org -> Cluster: outbound|9243||search.example.org"}},
	{file: "http-entry-gets-hcm-listener.yaml", args: []string{"pkgs.example.org:8000", "--from", "builds"},
		listeners: []string{"0.0.0.0_8000 Trans: raw_buffer; App: http/1.1,h2c -> Route: 8000"},
		calls:     []string{"http 0.0.0.0_8000 pkgs.example.org:8000 outbound|8000||pkgs.example.org"}},
	{file: "tcp-entry-without-address-takes-port.yaml", args: []string{"--from", "sessions", "--port", "6379"},
		listeners: []string{"0.0.0.0_6379 ALL -> Cluster: outbound|6379||redis.example.net"},
		findings:  []string{"TCP_CATCH_ALL_ON_PORT ServiceEntry sessions/redis-cloud"}},
	{file: "tcp-entry-with-vip-narrows-listener.yaml", args: []string{"mq.example.net:5672", "--from", "messaging", "--call", "tcp"},
		listeners: []string{"240.0.1.7_5672 ALL -> Cluster: outbound|5672||mq.example.net"},
		calls:     []string{"tcp 240.0.1.7_5672 outbound|5672||mq.example.net"}, absent: []string{"TCP_CATCH_ALL_ON_PORT"}},
	{file: fxBound, args: []string{boundHost + ":" + boundPort, "--gateway", boundGW},
		listeners: []string{"0.0.0.0_9080 ALL -> Route: http.9080"}},
	{file: "12-tcp-serviceentries-3306-without-addresses.yaml", args: []string{"--from", "team-a", "--port", "3306"},
		listeners: []string{"0.0.0.0_3306 ALL -> Cluster: outbound|3306||orders-db.example.org"},
		findings:  []string{"FILTER_CHAIN_DROPPED ServiceEntry team-a/stats-db", "TCP_CATCH_ALL_ON_PORT ServiceEntry team-a/orders-db"}, code: 1},
	{file: "14-tcp-serviceentry-on-443-hijacks-https.yaml", args: []string{"www.example.net:443", "--from", "team-a"},
		listeners: []string{"0.0.0.0_443 ALL -> Cluster: outbound|443||search.example.com"},
		calls:     []string{"tls 0.0.0.0_443 outbound|443||search.example.com"},
		findings:  []string{"TCP_CATCH_ALL_ON_TLS_PORT ServiceEntry team-a/search-api", "HOST_NOT_IN_REGISTRY www.example.net"}, code: 1},
	{file: "16-tcp-serviceentry-vs-http-services-port-80.yaml", args: []string{"docs.example.net:80", "--from", "team-a"},
		listeners: []string{"0.0.0.0_80 Trans: raw_buffer; App: http/1.1,h2c -> Route: 80", "0.0.0.0_80 ALL (default) -> Cluster: outbound|80||docs.example.net"},
		calls:     []string{"http 0.0.0.0_80 allow_any PassthroughCluster", "tcp 0.0.0.0_80 outbound|80||docs.example.net"},
		findings:  []string{"HTTP_CHAIN_SHADOWS_TCP_ENTRY ServiceEntry team-a/docs-site"}, absent: []string{"FILTER_CHAIN_DROPPED"}},
	{file: "17-grpc-external-on-port-owned-by-http-service.yaml", args: []string{"--from", "team-a", "--port", "80", "--host", "grpc.example.com", "--call", "http2"},
		calls:    []string{"http2 0.0.0.0_80 allow_any PassthroughCluster"},
		findings: []string{"HOST_NOT_IN_REGISTRY grpc.example.com"}},
	{file: "19-https-serviceentry-plus-dr-simple-double-tls.yaml", args: []string{"--from", "team-a", "--port", "443", "--host", "api.example.com"},
		listeners: []string{"0.0.0.0_443 SNI: api.example.com -> Cluster: outbound|443||api.example.com"},
		calls:     []string{"tls 0.0.0.0_443 outbound|443||api.example.com"},
		findings:  []string{"TLS_ORIGINATED_TWICE DestinationRule team-a/api-example-tls"}, code: 1},
	{file: "08-http-routes-on-tls-passthrough-server.yaml", args: []string{"--gateway", "istio-system/istio-egressgateway", "--port", "443"},
		findings: []string{"GATEWAY_LISTENER_WITHOUT_CHAINS istio-system/istio-egressgateway", "HTTP_ROUTES_ON_PASSTHROUGH_SERVER VirtualService team-a/api-via-egress"}, code: 1},
	{file: "08-http-routes-on-tls-passthrough-server.yaml", args: []string{"api.example.com:443", "--from", "team-a"},
		calls:    []string{"tls 0.0.0.0_443 outbound|443||api.example.com"},
		findings: []string{"HTTP_ROUTES_IGNORED_ON_TCP_PORT VirtualService team-a/api-via-egress"}},
	{file: "10-egress-gateway-service-lacks-port.yaml", args: []string{"partner.example.org:8443", "--from", "team-a"},
		calls:    []string{"tls 0.0.0.0_8443 outbound|8443|partner|istio-egressgateway.istio-system.svc.cluster.local"},
		findings: []string{"GATEWAY_SERVICE_LACKS_PORT Service istio-system/istio-egressgateway"}, code: 1},
	{file: "10-egress-gateway-service-lacks-port.yaml", args: []string{"partner.example.org:8443", "--gateway", "istio-system/istio-egressgateway"},
		listeners: []string{"0.0.0.0_8443 SNI: partner.example.org -> Cluster: outbound|8443||partner.example.org"}},
	{file: "seed-S1-3.2-se-http-sidecar-hcm-rds.yaml", args: []string{"httpbin.org:80", "--from", "default"},
		listeners: []string{"0.0.0.0_80 Trans: raw_buffer; App: http/1.1,h2c -> Route: 80"},
		calls:     []string{"http 0.0.0.0_80 httpbin.org:80 outbound|80||httpbin.org"}},
	{file: "seed-S3-3.3-se-tcp-with-address-240.0.0.10.yaml", args: []string{"httpbin.org:80", "--from", "default", "--call", "tcp"},
		listeners: []string{"240.0.0.10_80 ALL -> Cluster: outbound|80||httpbin.org"},
		calls:     []string{"tcp 240.0.0.10_80 outbound|80||httpbin.org"}, absent: []string{"TCP_CATCH_ALL_ON_PORT"}},
	{file: "seed-S5-3.5-gateway-flag-true-gateway-and-vs-bound.yaml", args: []string{"httpbin.org:80", "--gateway", "istio-system/istio-egressgateway"},
		listeners: []string{"0.0.0.0_8080 ALL -> Route: http.8080"}},
}

func listenerRows(rep checks.ListenerReport) []string {
	var out []string
	for _, l := range rep.Listeners {
		for _, c := range l.Chains {
			m := c.Match
			if c.Default {
				m += " (default)"
			}
			out = append(out, l.Name+" "+m+" -> "+c.Destination)
		}
	}
	return out
}

func callRows(rep checks.ListenerReport) []string {
	var out []string
	for _, c := range rep.Calls {
		parts := []string{c.Kind, c.Result.Listener}
		if c.Result.VirtualHost != "" {
			parts = append(parts, c.Result.VirtualHost)
		}
		switch {
		case c.Result.Cluster != "":
			parts = append(parts, c.Result.Cluster)
		case c.Result.Error != "":
			parts = append(parts, "error: "+c.Result.Error)
		}
		out = append(out, strings.Join(parts, " "))
	}
	return out
}

func findingRows(rep checks.ListenerReport) []string {
	var out []string
	for _, f := range rep.Findings {
		out = append(out, f.Code+" "+f.Resource)
	}
	return out
}

// TestExplainListener runs explain-listener live (kubectl plugin discovery against the API
// server holding the applied case) and offline (-f the case file), and checks both give the
// listeners, call paths, findings and exit code the case's `# expect:` describes, and agree.
func TestExplainListener(t *testing.T) {
	pluginBinary(t)
	applied := ""
	for i, c := range listenerCases {
		if !haveCase(t, c.file) {
			continue
		}
		t.Run(fmt.Sprintf("%02d-%s", i, strings.TrimSuffix(c.file, ".yaml")), func(t *testing.T) {
			if applied != c.file {
				applyCase(t, c.file)
				applied = c.file
			}
			live := egress(t, append(append([]string{"explain-listener"}, c.args...), "-o", "json", "--kubeconfig", env.kubeconfig)...)
			off := egressDirect(t, append(append([]string{"explain-listener"}, c.args...), "-o", "json", "-f", casePath(c.file))...)
			var reps [2]checks.ListenerReport
			for i, r := range []result{live, off} {
				mode := []string{"live", "offline"}[i]
				if r.code != c.code {
					t.Errorf("%s: exit code %d, want %d\n%s", mode, r.code, c.code, r)
				}
				if err := json.Unmarshal([]byte(r.stdout), &reps[i]); err != nil {
					t.Fatalf("%s: -o json: %v\n%s", mode, err, r)
				}
				rep := reps[i]
				if rep.SchemaVersion != checks.ListenerSchemaVersion {
					t.Errorf("%s: schemaVersion %q", mode, rep.SchemaVersion)
				}
				rows := listenerRows(rep)
				for _, want := range c.listeners {
					if !slices.Contains(rows, want) {
						t.Errorf("%s: listener row %q missing; have\n  %s", mode, want, strings.Join(rows, "\n  "))
					}
				}
				calls := callRows(rep)
				if len(c.calls) > 0 && !slices.Equal(calls, c.calls) {
					t.Errorf("%s: calls\n  %s\nwant\n  %s", mode, strings.Join(calls, "\n  "), strings.Join(c.calls, "\n  "))
				}
				fs := findingRows(rep)
				for _, want := range c.findings {
					if !slices.Contains(fs, want) {
						t.Errorf("%s: finding %q missing; have %v", mode, want, fs)
					}
				}
				for _, code := range c.absent {
					for _, f := range fs {
						if strings.HasPrefix(f, code+" ") {
							t.Errorf("%s: unexpected finding %s", mode, f)
						}
					}
				}
			}
			// Kubernetes Services get their cluster IP from the API server: live listeners bind
			// it, offline ones a placeholder; the live cluster also has Service
			// default/kubernetes. Compare the rows that do not depend on that.
			if a, b := notService(listenerRows(reps[0])), notService(listenerRows(reps[1])); !slices.Equal(a, b) {
				t.Errorf("live and offline listeners differ:\n  %v\n  %v", a, b)
			}
			if a, b := findingRows(reps[0]), findingRows(reps[1]); !slices.Equal(a, b) {
				t.Errorf("live and offline findings differ:\n  %v\n  %v", a, b)
			}
		})
	}
}

// TestExplainListenerBadInput: usage errors are one line with exit 2.
func TestExplainListenerBadInput(t *testing.T) {
	pluginBinary(t)
	f := casePath("http-entry-gets-hcm-listener.yaml")
	for _, args := range [][]string{
		{"explain-listener", "pkgs.example.org:8000", "-f", f},                                      // no proxy
		{"explain-listener", "pkgs.example.org", "--from", "builds", "-f", f},                       // no port
		{"explain-listener", "pkgs.example.org:99999", "--from", "builds", "-f", f},                 // bad port
		{"explain-listener", "pkgs.example.org:8000", "--from", "builds", "--call", "udp", "-f", f}, // bad call
		{"explain-listener", "pkgs.example.org:8000", "--pod", "builds/nope", "-f", f},              // unknown pod
		{"explain-listener", "http://x/:8000", "--from", "builds", "-f", f},                         // URL
	} {
		r := egressDirect(t, args...)
		if r.code != 2 {
			t.Errorf("%v: exit %d, want 2\n%s", args, r.code, r)
		}
		checkOneLineError(t, r)
	}
}

func notService(rows []string) []string {
	var out []string
	for _, r := range rows {
		if !strings.Contains(r, ".svc.cluster.local") {
			out = append(out, r)
		}
	}
	return out
}
