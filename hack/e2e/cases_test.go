package e2e

// egressCase is one row of the case table: a case file (a fixture of the repository's
// testdata/cases, or of the shared acceptance set when it is present, see haveCase), the
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

// Repository fixtures (testdata/cases) that single tests use, by the kind they show.
const (
	// exportTo ["."] hides the entry from the gateway (the kind of shared case 01).
	fxExportPrivate     = "se-exportto-private-hidden-from-gateway.yaml"
	fxExportPrivateGW   = "istio-egress/egress-gateway"
	fxExportPrivateSE   = "ServiceEntry payments/fx-rates"
	fxExportPrivateHost = "rates.example.net"
	// A legacy FQDN gateway reference that binds; no fault (shared case 07's kind).
	fxFQDNControl = "gateway-ref-fqdn-form-binds-control.yaml"
	// The seed §3.4/§3.5 pair (shared S4/S5's kinds): the same mesh with
	// PILOT_FILTER_GATEWAY_CLUSTER_CONFIG=true before and after a route is bound to the gateway.
	fxUnreferenced = "http-entry-unreferenced-with-cluster-filter.yaml"
	fxBound        = "http-entry-bound-route-with-cluster-filter.yaml"
	boundGW        = "istio-system/egress-alerts"
	boundHost      = "pager.example.com"
	boundPort      = "8080"
	boundCluster   = "outbound|8080||pager.example.com"
	// A Sidecar whose egress hosts omit the entry's namespace (shared case 22's kind).
	fxSidecarScope = "sidecar-egress-hosts-omit-entry-namespace.yaml"
	// A DNS_ROUND_ROBIN host declared twice: Warning findings only (shared case 27's kind).
	fxDuplicateRR = "dns-round-robin-host-declared-twice.yaml"
)

// cases: add a row to extend the suite. The first rows are the repository's fixtures, one per
// kind the shared acceptance set has a row for; the shared rows run when that set is present. The expected exit code follows from present and the
// cause's level (0 present with a cause that is not an Error, else 1).
var cases = []egressCase{
	{fxExportPrivate, fxExportPrivateHost, 8080, fxExportPrivateGW, false, "NOT_EXPORTED_TO_GATEWAY_NAMESPACE", fxExportPrivateSE},
	{"gateway-bare-name-resolves-in-route-namespace.yaml", "maps.example.com", 80, "mesh-egress/egress-gw", true, "GATEWAY_REF_UNRESOLVED", "VirtualService web/maps-via-gateway"},
	{fxFQDNControl, "weather.example.org", 8080, "egress-system/egress-gateway", true, "OK", ""},
	{"gateway-service-lacks-mesh-hop-port.yaml", "search.example.org", 9243, "outbound/outbound-gateway", true, "OK", ""},
	{"route-names-undeclared-gateway-subset.yaml", "feeds.example.com", 80, "istio-system/egress-news", true, "OK", ""},
	{"resolution-none-forwarded-by-gateway.yaml", "blobs.example.net", 80, "istio-system/egress-uploads", true, "NO_ENDPOINTS", "ServiceEntry uploads/blob-store"},
	{"cluster-filter-keeps-delegate-destination-control.yaml", "cdn.example.org", 80, "egress/egress-gateway", true, "OK", ""},
	{"cluster-filter-push-bug-valid-config-control.yaml", "crm.example.com", 8080, "istio-system/egress-marketing", true, "OK", ""},
	{"ip-authority-not-in-gateway-virtual-hosts.yaml", "192.0.2.40", 8000, "istio-system/plant-egress", true, "NO_VIRTUAL_HOST", "VirtualService factory/plc-through-gateway"},
	{"http-entry-gets-hcm-listener.yaml", "pkgs.example.org", 8000, "istio-system/egress-builds", true, "OK", ""},
	{fxUnreferenced, boundHost, 8080, boundGW, false, "NOT_REFERENCED_BY_BOUND_ROUTE", ""},
	{fxBound, boundHost, 8080, boundGW, true, "OK", ""},
	{"se-exported-by-name-not-to-gateway-namespace.yaml", "tax.example.com", 80, "istio-system/egress-checkout", false, "NOT_EXPORTED_TO_GATEWAY_NAMESPACE", "ServiceEntry checkout/tax-service"},
	{"dr-exportto-names-own-namespace-control.yaml", "stock.example.net", 443, "edge-egress/edge-egress-gw", true, "OK", ""},
	// The Gateway API twins of the rows above (testdata/cases/gatewayapi-<file>, README "Gateway
	// API twins"): the same fault through a Gateway of class istio, its Service and Deployment,
	// and HTTPRoutes/TLSRoutes; the same cause as the classic row, for the Gateway's Deployment.
	// The culprit is the Gateway API route where the classic row blames a VirtualService.
	{"gatewayapi-gateway-bare-name-resolves-in-route-namespace.yaml", "maps.example.com", 80, "mesh-egress/maps-gateway-istio", true, "GATEWAY_REF_UNRESOLVED", "HTTPRoute web/maps-via-gateway"},
	{"gatewayapi-ip-authority-not-in-gateway-virtual-hosts.yaml", "192.0.2.40", 8000, "istio-system/plant-gw-istio", true, "NO_VIRTUAL_HOST", "HTTPRoute factory/plc-from-gateway"},
	{"gatewayapi-se-exportto-private-hidden-from-gateway.yaml", fxExportPrivateHost, 8080, "istio-egress/egress-rates-istio", false, "NOT_EXPORTED_TO_GATEWAY_NAMESPACE", fxExportPrivateSE},
	{"gatewayapi-gateway-service-lacks-mesh-hop-port.yaml", "search.example.org", 9243, "outbound/search-passthrough-istio", true, "OK", ""},
	{"gatewayapi-resolution-none-forwarded-by-gateway.yaml", "blobs.example.net", 80, "istio-system/blob-gw-istio", true, "NO_ENDPOINTS", "ServiceEntry uploads/blob-store"},
	{"gatewayapi-http-entry-gets-hcm-listener.yaml", "pkgs.example.org", 8000, "istio-system/egress-builds-istio", true, "OK", ""},
	{"gatewayapi-http-entry-unreferenced-with-cluster-filter.yaml", boundHost, 8080, "istio-system/pager-gw-istio", false, "NOT_REFERENCED_BY_BOUND_ROUTE", ""},
	{"gatewayapi-http-entry-bound-route-with-cluster-filter.yaml", boundHost, 8080, "istio-system/pager-gw-istio", true, "OK", ""},
	{"gatewayapi-se-exported-by-name-not-to-gateway-namespace.yaml", "tax.example.com", 80, "istio-system/tax-egress-istio", false, "NOT_EXPORTED_TO_GATEWAY_NAMESPACE", "ServiceEntry checkout/tax-service"},
	{"gatewayapi-dr-exportto-names-own-namespace-control.yaml", "stock.example.net", 443, "edge-egress/stock-mtls-istio", true, "OK", ""},
	{"tls-passthrough-server-given-http-routes.yaml", "vault.example.net", 9443, "istio-system/egress-tls", true, "ROUTE_NOT_BOUND", "VirtualService vault-client/vault-egress"},
	{"gatewayapi-tls-passthrough-server-given-http-routes.yaml", "vault.example.net", 9443, "istio-system/egress-tls-istio", true, "ROUTE_NOT_BOUND", "HTTPRoute vault-client/vault-from-egress"},
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
