package e2e

// egressCase is one row of the case table: a file of ../shared/cases (EGRESS_CASES_DIR), the
// question asked and the expected verdict for the named gateway.
type egressCase struct {
	file    string
	host    string
	port    int // 0: no --port
	gateway string
	present bool
	cause   string
	culprit string
}

const egressGW = "istio-system/istio-egressgateway"

// cases: add a row to extend the suite. The expected exit code follows from present and the
// cause's level (0 present with a cause that is not an Error, else 1).
var cases = []egressCase{
	{"01-se-exportto-dot-hidden-from-egress-gateway.yaml", "api.example.com", 80, egressGW, false, "NOT_EXPORTED_TO_GATEWAY_NAMESPACE", "ServiceEntry team-a/api-example"},
	{"06-gateway-short-name-resolves-in-vs-namespace.yaml", "api.example.com", 80, egressGW, true, "GATEWAY_REF_UNRESOLVED", "VirtualService team-a/api-via-egress"},
	{"07-gateway-ref-legacy-fqdn-form-control.yaml", "api.example.com", 80, egressGW, true, "OK", ""},
	{"10-egress-gateway-service-lacks-port.yaml", "partner.example.org", 8443, egressGW, true, "OK", ""},
	{"11-subset-referenced-but-not-defined.yaml", "api.example.com", 80, egressGW, true, "OK", ""},
	{"20-serviceentry-resolution-none-behind-gateway.yaml", "api.example.com", 80, egressGW, true, "NO_ENDPOINTS", "ServiceEntry team-a/api-example"},
	{"24-filter-gateway-cluster-config-delegate-vs.yaml", "api.example.com", 80, egressGW, true, "OK", ""},
	{"26-filter-gateway-cluster-config-cds-not-pushed-1-7.yaml", "api.example.com", 80, egressGW, true, "OK", ""},
	{"30-call-by-ip-host-not-in-gateway-vhosts.yaml", "203.0.113.10", 80, egressGW, true, "NO_VIRTUAL_HOST", "VirtualService team-a/legacy-via-egress"},
	{"seed-S1-3.2-se-http-sidecar-hcm-rds.yaml", "httpbin.org", 80, egressGW, true, "OK", ""},
	{"seed-S4-3.4-gateway-flag-true-no-vs.yaml", "httpbin.org", 80, egressGW, false, "NOT_REFERENCED_BY_BOUND_ROUTE", ""},
	{"seed-S5-3.5-gateway-flag-true-gateway-and-vs-bound.yaml", "httpbin.org", 80, egressGW, true, "OK", ""},
	{"seed-S6-4.2-se-exportto-dot-team-a-gateway-in-istio-system.yaml", "httpbin.org", 80, egressGW, false, "NOT_EXPORTED_TO_GATEWAY_NAMESPACE", "ServiceEntry team-a/httpbin-ext"},
}
