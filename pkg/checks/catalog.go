package checks

import (
	"strings"

	"github.com/kubectl-egress/kubectl-egress/pkg/snapshot"
)

// Cause codes: the stable `cause` of a GatewayVerdict, one per decision-tree outcome of the
// seed's §3.7 procedure. Codes are never renamed or reused; retired codes stay listed here.
const (
	CauseOK                  = "OK"
	CauseHostNotFound        = "HOST_NOT_FOUND"
	CausePortNotDeclared     = "PORT_NOT_DECLARED"
	CauseNotExported         = "NOT_EXPORTED_TO_GATEWAY_NAMESPACE"
	CauseNoCluster           = "NO_CLUSTER_FOR_RESOLUTION"
	CauseNotReferenced       = "NOT_REFERENCED_BY_BOUND_ROUTE"
	CauseGatewayRefUnresolve = "GATEWAY_REF_UNRESOLVED"
	CauseRouteNotBound       = "ROUTE_NOT_BOUND"
	CauseNoVirtualHost       = "NO_VIRTUAL_HOST"
	CauseSubsetNotDefined    = "SUBSET_NOT_DEFINED"
	CauseNoEndpoints         = "NO_ENDPOINTS"
	CauseInputUnknown        = "INPUT_UNKNOWN"
	// A gateway route that sends the call back to the gateway's own Service.
	GatewayRoutesToItself = "GATEWAY_ROUTES_TO_ITSELF"
	// Live evidence disagrees with the prediction (seed §3.7 steps d and e).
	CauseProxyDisagrees = "PROXY_DISAGREES_WITH_CONFIG"
	CauseModelDisagrees = "PREDICTION_DISAGREES_WITH_PROXY"
)

// Levels of findings, worst first.
const (
	LevelError   = "Error"
	LevelWarning = "Warning"
	LevelInfo    = "Info"
)

// CatalogEntry documents one cause or finding code.
type CatalogEntry struct {
	Code  string
	Level string
	// Flag is the Envoy response flag users see when this is the cause ("" when none).
	Flag        string
	Description string
}

// Catalog lists every cause and finding code, in decision-tree order. Every entry has a stable
// EGRnnnn identifier, the seed section and the istiod source it rests on (catalogRefs below,
// read through CatalogEntry.ID, Seed and Source). docs/findings.md is generated from the
// catalogue (`go generate ./pkg/checks`, or `go run ./hack/gen-findings`); a unit test fails when
// it is out of date. docs/why-missing-schema.md repeats the cause codes by hand.
var Catalog = []CatalogEntry{
	{CauseOK, LevelInfo, "", "The cluster is predicted in the gateway's CDS and a route bound to the gateway reaches it."},
	{CauseInputUnknown, LevelError, "", "A kind the verdict depends on could not be read (RBAC forbids listing it, or its API version is not served); no verdict is given (exit 2)."},
	{CauseHostNotFound, LevelError, "NC/BlackHoleCluster", "No ServiceEntry or Kubernetes Service declares the host (or the IP in its addresses)."},
	{CausePortNotDeclared, LevelError, "NC", "The entry that declares the host has no such port, so outbound|<port>||<host> is never built."},
	{CauseNotExported, LevelError, "NC", "exportTo (or meshConfig.defaultServiceExportTo) of every entry for the host excludes the gateway pod's namespace, and istiod only builds clusters for services visible there."},
	{CauseNoCluster, LevelError, "NC", "The entry's resolution yields no cluster (a Kubernetes ExternalName Service is an alias)."},
	{CauseNotReferenced, LevelError, "NC", "istiod runs with PILOT_FILTER_GATEWAY_CLUSTER_CONFIG=true and no VirtualService bound to a Gateway of this workload routes to the host: istiod gives the gateway only the clusters such routes use."},
	{CauseGatewayRefUnresolve, LevelError, "NR", "A VirtualService meant for this gateway names a Gateway that does not exist once resolved (a short name resolves in the VirtualService's namespace)."},
	{CauseRouteNotBound, LevelError, "NR", "A VirtualService names the Gateway but does not bind a server: hosts disjoint, wrong route section for the server protocol/TLS mode, match.port mismatch, or exportTo hides it from the gateway's namespace."},
	{CauseNoVirtualHost, LevelError, "NR", "Routes are bound, but no virtual host (or SNI) on the gateway matches the authority the client uses, for example an IP address."},
	{CauseSubsetNotDefined, LevelError, "NC", "A bound route names a subset that no DestinationRule on the gateway's lookup path defines (the gateway's namespace, then the service's, then the root namespace)."},
	{CauseProxyDisagrees, LevelError, "NC", "The configuration gives the gateway the cluster, but the running proxy does not hold it: a push that has not arrived or was rejected (see sync status), or a control-plane bug (istio/istio#44439). Not a configuration fault."},
	{CauseModelDisagrees, LevelWarning, "", "The proxy holds a cluster the prediction says it lacks: the configuration changed since it was read, or this tool's model of istiod is wrong for this case (please report it)."},
	{CauseNoEndpoints, LevelError, "UH", "The cluster exists but has no endpoints on a gateway (resolution NONE becomes EDS with 0 endpoints; STATIC without endpoints)."},
	{"LEGACY_GATEWAY_REF", LevelInfo, "", "A gateway reference uses the legacy FQDN form; prefer namespace/name."},
	{"NO_ROUTE_THROUGH_GATEWAY", LevelInfo, "", "No VirtualService routes the host through this gateway; the cluster alone carries no traffic."},
	{"DELEGATE_UNUSABLE", LevelWarning, "NR", "A delegated route names a VirtualService that is missing, has hosts, or is not exported to the root's namespace."},
	{"FLAG_ROUTE_DISAGREEMENT", LevelWarning, "NR", "istiod keeps the cluster because a VirtualService lists the Gateway, although that VirtualService does not actually bind a server."},
	{GatewayRoutesToItself, LevelError, "", "A route bound on the gateway sends the call to a Service of the gateway's own pods: the call comes back into the gateway, goes round until a timeout or a connection limit stops it, and never reaches the host. Usually a rule meant for the sidecars (host → egress gateway) without match.gateways [mesh], in a VirtualService that also lists the Gateway: it applies at the gateway too, ahead of the rule written for it."},
	{"DESTINATION_CLUSTER_ABSENT", LevelWarning, "NC", "A bound route for the host sends traffic to another cluster that the gateway does not have."},
}

// Lookup returns the catalog entry for code.
func Lookup(code string) (CatalogEntry, bool) {
	for _, e := range Catalog {
		if e.Code == code {
			return e, true
		}
	}
	return CatalogEntry{}, false
}

// catalogRef is what the catalogue says of a code besides its level and description: the stable
// identifier, the seed section(s) and the istiod source it rests on.
type catalogRef struct {
	// ID is "EGRnnnn": EGR01xx why-missing causes and warnings, EGR02xx export-audit, EGR03xx
	// explain-listener, EGR04xx visibility, EGR05xx ambient (waypoint bindings, ambient clients),
	// EGR09xx preflight's own. Never renamed or reused; a
	// retired code keeps its row.
	ID string
	// Seed names sections of the seed guide (000: "§3.7"; "seed 002" for serviceEntryVisibility).
	Seed string
	// Source names the istiod (or Envoy) code the finding models, as cited by pkg/rules and
	// pkg/checks; "this tool" for findings about kubectl-egress's own input.
	Source string
}

// catalogRefs is the one table of identifiers, seed sections and istiod sources, keyed by code.
// A unit test checks that every Catalog entry has a row, that every row has a Catalog entry, and
// that identifiers are unique and in the group of their command.
var catalogRefs = map[string]catalogRef{
	AuditDelegateNotExported:    {"EGR0216", "§2.3, §4.2", "pilot/pkg/model/virtualservice.go mergeVirtualServices (delegate not exported to the root's namespace)"},
	AuditVSMeshNoClient:         {"EGR0215", "§4.2", "pilot/pkg/model/push_context.go initVirtualServices (exportedToNamespaceByGateway); pilot/pkg/model/virtualservice.go SelectVirtualServices"},
	AuditSvcNotExportedToClient: {"EGR0210", "§4.2", "pilot/pkg/model/push_context.go initServiceRegistry, IsServiceVisible; pilot/pkg/serviceregistry/kube/conversion.go ConvertService (networking.istio.io/exportTo)"},
	AuditDRTLSNotExportedToGW:   {"EGR0214", "§2.5, §4.2, §5 (400 / reset)", "pilot/pkg/model/push_context.go destinationRule, getExportedDestinationRuleFromNamespace; pilot/pkg/networking/core/cluster_builder.go applyUpstreamTLSSettings"},
	AuditDRNotExportedToClient:  {"EGR0213", "§2.5, §4.2", "pilot/pkg/model/push_context.go destinationRule, getExportedDestinationRuleFromNamespace (exportTo of the service's and the root namespace's rules)"},
	AuditSEExportedEverywhere:   {"EGR0212", "§4.2", "pilot/pkg/model/push_context.go IsServiceVisible, servicesExportedToNamespace; pilot/pkg/model/sidecar.go selectServices"},
	AuditSvcNotExportedToGW:     {"EGR0211", "§4.2", "pilot/pkg/model/push_context.go initServiceRegistry, IsServiceVisible; pilot/pkg/serviceregistry/kube/conversion.go ConvertService (networking.istio.io/exportTo)"},
	CauseGatewayNotApplied:      {"EGR0129", "§2.3 (condition 2), §4.4", "pilot/pkg/model/push_context.go mergeGateways input (Gateway selector against the proxy labels, PILOT_SCOPE_GATEWAY_TO_NAMESPACE); pilot/pkg/config/kube/crdclient (LabelsInRevision)"},
	// why-missing --from: the call traced across the sidecar → egress gateway hop.
	PathOK:                   {"EGR0120", "§3.7, §5", "pilot/pkg/networking/core/listener.go buildSidecarOutboundListeners, gateway.go buildGatewayListeners; route/route.go BuildSidecarVirtualHostWrapper"},
	PathDirect:               {"EGR0121", "§3.4, §5 (502 BlackHoleCluster)", "pilot/pkg/networking/core/httproute.go buildSidecarOutboundHTTPRouteConfig (mesh-bound VirtualService routes only); cluster.go buildOutboundClusters"},
	PathSidecarNoRoute:       {"EGR0122", "§5 (404 NR)", "pilot/pkg/networking/core/httproute.go buildSidecarOutboundHTTPRouteConfig; route/route.go BuildHTTPRoutesForVirtualService"},
	PathSidecarNoChain:       {"EGR0123", "§2.1, §4.1", "pilot/pkg/networking/core/listener.go buildSidecarOutboundListeners; tls.go buildSidecarOutboundTLSFilterChainOpts, buildSidecarOutboundTCPFilterChainOpts"},
	PathGatewayNotListen:     {"EGR0124", "§2.3, §5 (503 UF)", "pilot/pkg/model/gateway.go MergeGateways, resolvePorts (Gateway server port → the oldest selecting Service's targetPort)"},
	PathTLSMismatch:          {"EGR0125", "§2.3, §4.3, §5 (503 UF)", "pilot/pkg/networking/core/cluster_tls.go buildUpstreamTLSSettings (DestinationRule tls, auto mTLS); gateway.go buildGatewayListeners, model/gateway.go GetSNIHostsForServer"},
	PathGatewayNoRoute:       {"EGR0126", "§2.3, §5 (404 NR)", "pilot/pkg/networking/core/gateway.go buildGatewayHTTPRouteConfig"},
	PathGatewayNoChain:       {"EGR0127", "§2.3, §4.3", "pilot/pkg/networking/core/gateway.go buildGatewayListeners, createGatewayTCPFilterChainOpts, buildGatewayNetworkFiltersFromTLSRoutes"},
	PathSidecarsAmbiguous:    {"EGR0132", "§4.2", "pilot/pkg/model/push_context.go initSidecarScopes, getSidecarScope (the oldest Sidecar wins); istioctl analyze IST0109 MultipleSidecarsWithoutWorkloadSelectors"},
	PathRouteMatchAssumed:    {"EGR0131", "§5 (404 NR)", "pilot/pkg/networking/core/route/route.go BuildHTTPRoutesForVirtualService (match conditions); pilot/pkg/simulation/traffic.go matchRoute"},
	PathWrongService:         {"EGR0130", "§2.1, §3.3, §5 (TCP absorption)", "pilot/pkg/networking/core/listener.go buildSidecarOutboundListeners, mergeTCPFilterChains; pilot/pkg/simulation/traffic.go matchFilterChain"},
	GatewayPrivilegedPort:    {"EGR0142", "§2.3, §5 (503 UF)", "pilot/pkg/networking/core/gateway.go buildGatewayListeners (unprivileged pods skip ports below 1024); pilot/pkg/model/context.go Proxy.IsUnprivileged; pkg/bootstrap/config.go GetNodeMetaData"},
	GatewayServiceSpans:      {"EGR0144", "§2.3, §4.4", "pilot/pkg/serviceregistry/kube/controller/endpointslice.go (a Service's endpoints: every ready pod its selector matches); pilot/pkg/networking/core/gateway.go buildGatewayListeners (per workload)"},
	PathFaultAbort:           {"EGR0143", "§5", "pilot/pkg/networking/core/route/route.go TranslateFault (abort percentage → the HTTP fault filter's FaultAbort)"},
	PathOriginationUnused:    {"EGR0150", "§2.5", "pilot/pkg/networking/core/cluster_builder.go applyDestinationRule (the port-level policy of the cluster's own port), cluster_tls.go buildUpstreamTLSSettings"},
	PathTLSToPlaintext:       {"EGR0141", "§2.5, §5 (503 UF)", "pilot/pkg/networking/core/cluster_tls.go buildUpstreamTLSSettings; cluster_waypoint.go buildWaypointTLSContext; pilot/pkg/model/push_context.go destinationRule"},
	PathIstioMTLSToExternal:  {"EGR0155", "§2.5", "pilot/pkg/networking/core/cluster_tls.go buildUpstreamTLSSettings (an explicit ISTIO_MUTUAL is applied whatever the service's location)"},
	PreflightGatewayRejected: {"EGR0160", "§2.3", "pkg/config/validation/validation.go ValidateGateway (validateServer, validateServerPort, validateServerBind, validateTLSOptions)"},
	PreflightDRRejected:      {"EGR0161", "§2.4", "pkg/config/validation/validation.go ValidateDestinationRule (host, validateTrafficPolicy's TLS and port settings, validateSubset, validateExportTo with a workloadSelector)"},
	PreflightVSRejected:      {"EGR0159", "§2.3", "pkg/config/validation/validation.go ValidateVirtualService (validateGatewayNames, hosts, validateTLSMatch/validateSniHost, validateTCPRoute, virtualservice.go validateHTTPRoute, validateExportTo)"},
	PreflightSidecarRejected: {"EGR0158", "§4.2", "pkg/config/validation/validation.go ValidateSidecar (egress hosts namespace/host, listener ports, validateSidecarOutboundTrafficPolicy: egressProxy only with ALLOW_ANY, a port, a full DNS name)"},
	EgressProxyHTTPOnly:      {"EGR0157", "§1.3", "pilot/pkg/networking/core/listener_builder.go buildOutboundCatchAllNetworkFiltersOnly (the egressProxy takes TCP too); gateway.go buildGatewayListeners (an HTTP server's chain is an HCM)"},
	PathAutoMTLSToEntry:      {"EGR0156", "§2.5", "pilot/pkg/networking/core/cluster_tls.go buildUpstreamTLSSettings; pilot/pkg/model/push_context.go BestEffortInferServiceMTLSMode; pilot/pkg/serviceregistry/serviceentry/conversion.go getTLSModeFromWorkloadEntry; kube PodTLSMode (gateway pods labelled for auto mTLS: TLS_MISMATCH_BETWEEN_HOPS)"},
	PathCredentialUnchecked:  {"EGR0154", "§2.5", "pilot/pkg/model/credentials/resource.go ParseResourceName (a credentialName is read in the proxy's namespace)"},
	PathCredentialMissing:    {"EGR0153", "§2.5, §5 (503 UF)", "pilot/pkg/model/credentials/resource.go ParseResourceName; pilot/pkg/xds/sds.go filterAuthorizedResources, generate; pilot/pkg/credentials/kube/secrets.go GetCaCert"},
	PathNotOriginated:        {"EGR0134", "§2.5, §5 (400 / reset)", "pilot/pkg/networking/core/cluster_builder.go applyUpstreamTLSSettings; pilot/pkg/model/push_context.go destinationRule (lookup path, exportTo)"},
	PathMirrorAbsent:         {"EGR0133", "§2.4, §5 (NC, mirrored copies)", "pilot/pkg/networking/core/route/route.go translateRoute (MirrorPercent, TranslateRequestMirrorPolicy); pilot/pkg/model/push_context.go initVirtualServices (mirror hosts count as destinations)"},
	PathAmbiguousService:     {"EGR0128", "§2.3", "pilot/pkg/model/gateway.go resolvePorts; pilot/pkg/model/context.go SetServiceTargets (oldest Service first)"},
	PathAnsweredByRoute:      {"EGR0139", "§5", "pilot/pkg/networking/core/route/route.go translateRoute (direct_response, redirect)"},
	PathSidecarPlainToTLS:    {"EGR0147", "§2.5, §5", "pilot/pkg/networking/core/route/route.go translateRoute; cluster_tls.go applyUpstreamTLSSettings; pilot/pkg/model/push_context.go destinationRule"},
	PathGatewayOtherEntry:    {"EGR0146", "§4.2, §5", "pilot/pkg/model/sidecar.go appendSidecarServices, selectServices; pilot/pkg/model/endpointshards.go ShardsForService"},
	PathHTTP2ThroughTCP:      {"EGR0145", "§2.3", "pilot/pkg/networking/core/cluster_builder.go setUpstreamProtocol; cluster_traffic_policy.go shouldH2Upgrade; pilot/pkg/networking/core/gateway.go buildGatewayNetworkFiltersFromTCPRoutes (tcp_proxy)"},
	PathHTTP2Downgraded:      {"EGR0140", "§2.3", "pilot/pkg/networking/core/cluster_builder.go setUpstreamProtocol (HTTP/2 options for HTTP2/GRPC ports only)"},
	PathAllWeightsZero:       {"EGR0152", "§5 (500)", "pilot/pkg/config/kube/gateway/conversion.go convertHTTPRoute, convertGRPCRoute (weightSum 0: DirectResponse 500), convertTCPRoute, convertTLSRoute (tcpWeightSum 0: the zero-weight destination internal.cluster.local)"},
	PathBackendRefused:       {"EGR0135", "§5 (500)", "pilot/pkg/config/kube/gateway/conversion.go buildDestination (InvalidDestinationPermit, InvalidDestinationKind); pilot/pkg/networking/core/route/route.go GetDestinationCluster (UnknownService)"},
	// why-missing causes (seed §3.7 decision tree) and warnings.
	CauseOK:                      {"EGR0100", "§2.4, §3.7", "pilot/pkg/model/push_context.go IsServiceVisible, initVirtualServices (destinationsByGateway); pilot/pkg/networking/core/cluster.go convertResolution"},
	CauseInputUnknown:            {"EGR0101", "§3.7 (a)–(c)", "this tool: the Kubernetes API refused or does not serve a kind the verdict reads (loader FromCluster)"},
	CauseHostNotFound:            {"EGR0102", "§1.3, §3.7 (b)", "pilot/pkg/serviceregistry/serviceentry/conversion.go convertServices; pilot/pkg/serviceregistry/kube/conversion.go ConvertService"},
	CausePortNotDeclared:         {"EGR0103", "§2.2", "pilot/pkg/serviceregistry/serviceentry/conversion.go convertServices, convertPort; pilot/pkg/model/service.go BuildSubsetKey"},
	CauseNotExported:             {"EGR0104", "§2.4 gate (1), §4.2", "pilot/pkg/model/push_context.go initServiceRegistry, IsServiceVisible, serviceExportTo, initDefaultExportMaps"},
	CauseNoCluster:               {"EGR0105", "§2.2", "pilot/pkg/networking/core/cluster.go convertResolution, cluster_builder.go buildCluster"},
	CauseNotReferenced:           {"EGR0106", "§2.4 gate (2), §3.4, §4.4", "pilot/pkg/model/push_context.go initVirtualServices (destinationsByGateway), virtualServiceDestinationsFilteredBySourceNamespace, extraServicesForProxy; pilot/pkg/features/experimental.go FilterGatewayClusterConfig"},
	CauseGatewayRefUnresolve:     {"EGR0107", "§2.3 (condition 1)", "pilot/pkg/model/config.go resolveGatewayName; push_context.go getGatewayNames; virtualservice.go resolveVirtualServiceShortnames"},
	CauseRouteNotBound:           {"EGR0108", "§2.3, §4.1, §4.2", "pilot/pkg/networking/core/gateway.go buildGatewayHTTPRouteConfig, buildGatewayNetworkFiltersFromTLSRoutes, buildGatewayNetworkFiltersFromTCPRoutes, pickMatchingGatewayHosts; route/route.go TranslateRoute, sourceMatchHTTP; pilot/pkg/model/push_context.go VirtualServicesForGateway"},
	CauseNoVirtualHost:           {"EGR0109", "§2.3 (condition 2), §5 (NR)", "pilot/pkg/networking/core/gateway.go buildGatewayHTTPRouteConfig; pkg/config/host/names.go Names.Intersection"},
	CauseSubsetNotDefined:        {"EGR0110", "§2.5, §5 (NC, subset)", "pilot/pkg/model/push_context.go destinationRule; destination_rule.go mergeDestinationRule; pilot/pkg/model/service.go BuildSubsetKey"},
	CauseProxyDisagrees:          {"EGR0111", "§3.7 (d), (e)", "istiod /debug/syncz (sync status) and the proxy's Envoy /config_dump; istio/istio#44439"},
	CauseModelDisagrees:          {"EGR0112", "§3.7 (d), (e)", "the proxy's Envoy /config_dump against this tool's model of pilot/pkg/networking/core/cluster.go"},
	CauseNoEndpoints:             {"EGR0113", "§2.2 (resolution), §5 (UH)", "pilot/pkg/networking/core/cluster.go convertResolution, cluster_builder.go buildCluster (pilot_dns_cluster_without_endpoints); pilot/pkg/serviceregistry/serviceentry/conversion.go convertServiceEntryToInstances"},
	"LEGACY_GATEWAY_REF":         {"EGR0114", "§2.3 (condition 1)", "pilot/pkg/model/config.go resolveGatewayName"},
	"NO_ROUTE_THROUGH_GATEWAY":   {"EGR0115", "§2.3, §3.5", "pilot/pkg/model/push_context.go VirtualServicesForGateway"},
	"DELEGATE_UNUSABLE":          {"EGR0116", "§2.3, §2.4", "pilot/pkg/model/virtualservice.go mergeVirtualServices, virtualServiceDestinations"},
	"FLAG_ROUTE_DISAGREEMENT":    {"EGR0117", "§2.4 gate (2)", "pilot/pkg/model/push_context.go initVirtualServices (destinationsByGateway ignores exportTo, host intersection and match.port)"},
	"GATEWAY_ROUTES_TO_ITSELF":   {"EGR0118", "§2.3", "pilot/pkg/networking/core/gateway.go buildGatewayNetworkFiltersFromTLSRoutes, l4SingleMatch, isGatewayMatch (a match without gateways applies at every gateway of spec.gateways); route/route.go sourceMatchHTTP, GetDestinationCluster"},
	"DESTINATION_CLUSTER_ABSENT": {"EGR0119", "§5 (503 NC)", "pilot/pkg/networking/core/route/route.go GetDestinationCluster"},

	// export-audit (seed §4.2, §2.5).
	AuditSENotExportedToGateway: {"EGR0201", "§4.2", "pilot/pkg/model/push_context.go IsServiceVisible, serviceExportTo"},
	AuditVSNotExportedToGateway: {"EGR0202", "§4.2", "pilot/pkg/model/push_context.go initVirtualServices (publicByGateway, privateByNamespaceAndGateway, exportedToNamespaceByGateway), VirtualServicesForGateway"},
	AuditSENotExportedToClient:  {"EGR0203", "§4.2", "pilot/pkg/model/push_context.go VirtualServicesForGateway (gateway mesh), IsServiceVisible"},
	AuditDRNotOnLookupPath:      {"EGR0204", "§2.5", "pilot/pkg/model/push_context.go destinationRule; sidecar.go SidecarScope.DestinationRule"},
	AuditSubsetUndefined:        {"EGR0205", "§2.5, §5 (NC, subset)", "pilot/pkg/model/push_context.go destinationRule; pilot/pkg/model/service.go BuildSubsetKey"},
	AuditDuplicateHost:          {"EGR0206", "§4.2", "pilot/pkg/model/sidecar.go appendSidecarServices, canMergeServices; push_context.go servicesExportedToNamespace"},
	AuditDRShadowed:             {"EGR0207", "§2.5", "pilot/pkg/model/push_context.go destinationRule; config.go MostSpecificHostMatch"},
	AuditSidecarImportHidden:    {"EGR0208", "§4.2", "pilot/pkg/model/sidecar.go convertIstioListenerToWrapper, selectServices; push_context.go servicesExportedToNamespace"},
	AuditSidecarImportUnknown:   {"EGR0209", "§4.2", "pilot/pkg/model/sidecar.go convertIstioListenerToWrapper, selectServices"},

	// explain-listener (seed §1.2, §2.1–§2.3, §4.1, §4.3, §5).
	ListenerCatchAllTCP:        {"EGR0301", "§2.1, §3.3, §5 (TCP absorption)", "pilot/pkg/networking/core/listener.go buildSidecarOutboundListeners, buildListenerFromEntry; tls.go buildSidecarOutboundTCPFilterChainOpts"},
	ListenerCatchAllTLSPort:    {"EGR0302", "§2.1, §3.3, §5 (TCP absorption)", "pilot/pkg/networking/core/listener.go buildSidecarOutboundListeners, buildListenerFromEntry; tls.go buildSidecarOutboundTCPFilterChainOpts"},
	ListenerChainDropped:       {"EGR0303", "§2.1", "pilot/pkg/networking/core/listener.go mergeTCPFilterChains (push status pilot_conflict_outbound_listener_tcp_over_current_tcp)"},
	ListenerWellKnownPort:      {"EGR0304", "§2.1", "pilot/pkg/networking/core/listener.go isConflictWithWellKnownPort"},
	ListenerHTTPShadowsTCP:     {"EGR0305", "§2.1", "pilot/pkg/networking/core/listener.go buildSidecarOutboundListener; httproute.go BuildSidecarOutboundVirtualHosts"},
	ListenerHTTP2Undeclared:    {"EGR0306", "§4.1, §5 (only gRPC fails)", "pkg/config/protocol/instance.go Parse, as used by pilot/pkg/serviceregistry/serviceentry/conversion.go convertPort"},
	ListenerHostNotInRegistry:  {"EGR0307", "§1.3", "pilot/pkg/networking/core/httproute.go buildSidecarOutboundHTTPRouteConfig (allow_any, block_all); pilot/pkg/simulation/traffic.go Run"},
	ListenerHiddenPassthrough:  {"EGR0325", "§1.3, §4.2", "pilot/pkg/model/sidecar.go convertIstioListenerToWrapper, selectServices; pilot/pkg/networking/core/listener.go buildSidecarOutboundListeners (PassthroughCluster under ALLOW_ANY)"},
	ListenerNotImported:        {"EGR0308", "§4.2", "pilot/pkg/model/sidecar.go convertIstioListenerToWrapper, selectServices; push_context.go IsServiceVisible"},
	ListenerDoubleTLS:          {"EGR0309", "§2.5, §5 (UF)", "pilot/pkg/networking/core/tls.go buildSidecarOutboundTLSFilterChainOpts; pilot/pkg/model/push_context.go destinationRule"},
	ListenerNoneNoAddresses:    {"EGR0310", "§2.2", "pilot/pkg/networking/core/listener.go buildListenerFromEntry; cluster.go convertResolution"},
	ListenerWildcardDNS:        {"EGR0311", "§2.2", "pilot/pkg/networking/core/cluster.go convertResolution"},
	ListenerStrictDNS:          {"EGR0312", "§2.2, §5 (GSLB)", "pilot/pkg/networking/core/cluster.go convertResolution"},
	ListenerNoChains:           {"EGR0313", "§2.3, §4.3", "pilot/pkg/networking/core/gateway.go buildGatewayListeners (\"must have more than 0 chains\"), createGatewayTCPFilterChainOpts"},
	ListenerHTTPOnPassthrough:  {"EGR0314", "§4.1, §4.3", "pilot/pkg/model/gateway.go IsPassThroughServer; pilot/pkg/networking/core/gateway.go buildGatewayNetworkFiltersFromTLSRoutes"},
	ListenerTLSOnTerminating:   {"EGR0315", "§4.1, §4.3", "pilot/pkg/model/gateway.go IsHTTPServer; pilot/pkg/networking/core/gateway.go buildGatewayHTTPRouteConfig"},
	ListenerCertUnused:         {"EGR0326", "§4.3", "pilot/pkg/model/gateway.go IsPassThroughServer; pkg/config/validation/validation.go validateTLSOptions"},
	ListenerCredentialMissing:  {"EGR0330", "§4.3", "pilot/pkg/model/credentials/resource.go ParseResourceName; pilot/pkg/xds/sds.go filterAuthorizedResources, generate"},
	ListenerNoCredential:       {"EGR0316", "§4.3", "pilot/pkg/networking/core/gateway.go buildGatewayListeners"},
	ListenerTLSBehindHTTP:      {"EGR0317", "§4.3, §5 (400)", "pilot/pkg/model/gateway.go IsHTTPServer; pilot/pkg/networking/core/gateway.go buildGatewayListeners"},
	ListenerGatewayServiceLack: {"EGR0318", "§5 (503 NC)", "pilot/pkg/serviceregistry/kube/conversion.go ConvertService; pilot/pkg/model/service.go BuildSubsetKey"},
	ListenerBlackHole:          {"EGR0319", "§1.3, §5 (502)", "pilot/pkg/networking/core/listener.go buildSidecarOutboundListeners; httproute.go buildSidecarOutboundHTTPRouteConfig (block_all)"},
	ListenerHTTPRoutesIgnored:  {"EGR0320", "§2.1, §4.1", "pilot/pkg/networking/core/tls.go buildSidecarOutboundTLSFilterChainOpts, buildSidecarOutboundTCPFilterChainOpts"},
	ListenerActualDiffers:      {"EGR0321", "§3.7 (d), (e)", "the proxy's Envoy /config_dump against pilot/pkg/networking/core/listener.go buildSidecarOutboundListeners"},
	ListenerClusterAbsent:      {"EGR0322", "§3.7, §5 (503 NC)", "pilot/pkg/networking/core/cluster.go BuildClusters (the route's cluster is not generated); route/route.go GetDestinationCluster"},
	ListenerWildcardNotJoined:  {"EGR0328", "§2.3", "pilot/pkg/networking/core/gateway.go buildGatewayHTTPRouteConfig (vHostDedupMap keyed by each intersecting host name); Envoy virtual host selection (most specific domain first)"},
	ListenerWildcardSNIPartial: {"EGR0329", "§2.2", "pilot/pkg/networking/core/tls.go buildSidecarOutboundTLSFilterChainOpts (hasTLSMatch: no chain of the service's own once a tls route applies), listener.go default chain"},
	ListenerRouteShadowed:      {"EGR0327", "§2.3", "pilot/pkg/networking/core/gateway.go buildGatewayHTTPRouteConfig (vHostDedupMap: routes of later VirtualServices appended); route/route.go SortVHostRoutes, IsCatchAllRoute"},
	ListenerServerDropped:      {"EGR0323", "§2.3, §4.3", "pilot/pkg/model/gateway.go mergeGateways, CheckDuplicates, canMergeProtocols"},
	AppProtocolOverridesName:   {"EGR0333", "§2.1", "pkg/config/kube/conversion.go ConvertProtocol (appProtocol before the port name); pilot/pkg/networking/networking.go ModelProtocolToListenerProtocol; pilot/pkg/networking/core/listener.go buildSidecarOutboundListener"},
	ListenerServerFirstSniffed: {"EGR0332", "§2.1", "pilot/pkg/serviceregistry/serviceentry/conversion.go convertPort (protocol.Parse: no protocol is unsupported, sniffed); pilot/pkg/networking/core/listener.go buildSidecarOutboundListener (protocol sniffing chains for unsupported ports)"},
	ListenerUnreachable:        {"EGR0331", "§2.3, §4.3", "pilot/pkg/model/gateway.go resolvePorts (a port no Service declares is kept as written)"},
	ListenerHostsCrashIstiod:   {"EGR0324", "§2.3", "pilot/pkg/model/gateway.go sanitizeServerHostNamespace (panics in istio 1.31)"},

	// visibility (seed 002).
	VisStatusDrift:         {"EGR0401", "seed 002", "pilot/pkg/model/serviceentry_visibility.go; pilot/pkg/serviceregistry/serviceentry/conversion.go (Attributes.Visibility)"},
	VisHiddenEverywhere:    {"EGR0402", "seed 002, §4.2", "pilot/pkg/model/push_context.go serviceExportTo"},
	VisWaypointForbidden:   {"EGR0403", "seed 002", "pilot/pkg/serviceregistry/ambient/waypoints.go fetchWaypointForService; status.go ReportWaypointCrossNamespaceForbidden"},
	VisRuleNeverMatches:    {"EGR0404", "seed 002", "pilot/pkg/model/serviceentry_visibility.go (compilation of the policies)"},
	VisPolicyMatchesAll:    {"EGR0405", "seed 002", "pilot/pkg/model/serviceentry_visibility.go (compilation of the policies)"},
	VisNotImported:         {"EGR0406", "§4.2, seed 002", "pilot/pkg/model/sidecar.go selectServices, collectImportedServices"},
	VisWaypointUnpublished: {"EGR0407", "seed 002", "pilot/pkg/serviceregistry/ambient/services.go serviceEntriesInfo (nothing for visibility NONE); waypoints.go fetchWaypointForService"},

	// ambient: ztunnel clients and waypoint bindings (pkg/checks/ambient.go, rules/waypoint.go).
	AmbientViaWaypoint:        {"EGR0501", "seed 001 (ambient), seed 002", "pilot/pkg/serviceregistry/ambient/services.go serviceEntriesInfo, constructServiceEntries, selectWorkloadServices; waypoints.go fetchWaypointForService"},
	AmbientDirect:             {"EGR0502", "seed 001 (ambient), seed 002", "pilot/pkg/serviceregistry/ambient/waypoints.go GetUseWaypoint, fetchWaypointForTarget; services.go selectWorkloadServices"},
	WaypointNotFound:          {"EGR0503", "seed 002", "pilot/pkg/serviceregistry/ambient/waypoints.go fetchWaypointForTarget, gatewayToWaypointTransform; status.go ReportWaypointIsNotReady"},
	WaypointNotForServices:    {"EGR0504", "seed 002", "pilot/pkg/serviceregistry/ambient/waypoints.go fetchWaypointForService, gatewayToWaypointTransform (istio.io/waypoint-for); status.go ReportWaypointUnsupportedTrafficType"},
	WaypointNotAllowed:        {"EGR0505", "seed 002", "pilot/pkg/serviceregistry/ambient/waypoints.go makeAllowedRoutes, findBoundListener, makeWaypointSelector, AllowsAttachmentFromNamespace; status.go ReportWaypointAttachmentDenied"},
	WaypointNoStatusAddress:   {"EGR0506", "seed 002", "pilot/pkg/serviceregistry/ambient/waypoints.go gatewayToWaypointTransform (a Gateway without status.addresses is no waypoint)"},
	AmbientRouteNoWaypoint:    {"EGR0517", "seed 002", "pilot/pkg/config/kube/gateway/conversion.go createRouteStatus (ResolvedWaypoints: not respected in ambient mode); pilot/pkg/serviceregistry/ambient (ztunnel applies no routes)"},
	WaypointSkipsInternalDNS:  {"EGR0518", "seed 002", "pilot/pkg/networking/core/waypoint.go findWaypointResources (DYNAMIC_DNS only for MESH_EXTERNAL services)"},
	WaypointPlainToTLS:        {"EGR0521", "seed 002", "pilot/pkg/networking/core/cluster_waypoint.go buildWaypointInboundVIP; cluster_tls.go applyUpstreamTLSSettings; util.go GetPortLevelTrafficPolicy"},
	AmbientPlainToTLS:         {"EGR0522", "seed 002", "pilot/pkg/serviceregistry/ambient/services.go (the workload service's ports map to the entry's targetPort); ztunnel applies no DestinationRule"},
	AmbientDynamicDNSNoWP:     {"EGR0520", "seed 002", "pilot/pkg/serviceregistry/ambient/services.go (a DYNAMIC_DNS entry without a valid waypoint); releasenotes/notes/se-wildcard-host.yaml"},
	WaypointDynamicDNSPort:    {"EGR0519", "seed 002", "pilot/pkg/networking/core/cluster_waypoint.go (DynamicDNS: HTTP ports, TLS only with ENABLE_WILDCARD_HOST_SERVICE_ENTRIES_FOR_TLS); listener_waypoint.go buildWaypointInboundVIP"},
	WaypointHTTPPortNotHTTP:   {"EGR0516", "seed 002", "pilot/pkg/networking/core/listener_waypoint.go buildWaypointInboundVIP (an HTTP port gets the HTTP chain only)"},
	WaypointBackendUndeclared: {"EGR0515", "seed 002", "pilot/pkg/config/kube/gateway/conversion.go buildDestination (InvalidDestinationNotFound keeps the destination); pilot/pkg/networking/core/route/route.go GetDestinationCluster; listener_waypoint.go"},
	WaypointRouteIgnored:      {"EGR0514", "seed 002", "pilot/pkg/networking/core/listener_waypoint.go getVirtualServiceForWaypoint (routes of the service's and the waypoint's namespaces only); pilot/pkg/config/kube/gateway/route_collections.go (the generated VirtualService is in the route's namespace)"},
	AmbientDNSCaptureOff:      {"EGR0513", "seed 002", "cni/pkg/nodeagent/net.go (annotation.AmbientDnsCapture per pod); pilot/pkg/serviceregistry/ambient/services.go constructServiceEntries; pilot/pkg/networking/serviceentry/ip_autoallocation.go (the allocated address, given out by ztunnel's DNS proxy only)"},
	AmbientNoAddress:          {"EGR0507", "seed 002", "pilot/pkg/serviceregistry/ambient/services.go constructServiceEntries; pilot/pkg/networking/serviceentry/ip_autoallocation.go ShouldV2AutoAllocateIP, GetHostAddressesFromServiceEntry"},
	WaypointAnnotation:        {"EGR0512", "seed 002", "pilot/pkg/serviceregistry/ambient/waypoints.go GetUseWaypoint (labels only)"},
	AmbientLabelWithSidecar:   {"EGR0511", "seed 002", "cni/pkg/util/enablement_selector.go CompiledEnablementSelectors.Matches (a pod with a sidecar is not enrolled in ambient); manifests/charts/istio-control/istio-discovery/templates/mutatingwebhook.yaml (the injection selectors)"},
	WaypointNotWaypointClass:  {"EGR0510", "seed 002", "pilot/pkg/serviceregistry/ambient/waypoints.go gatewayToWaypointTransform (any class with status addresses is a waypoint); pilot/pkg/config/kube/gateway deploymentcontroller.go (waypoint proxies for waypoint classes only)"},
	WaypointStatusDrift:       {"EGR0509", "seed 002", "pilot/pkg/model/service.go ServiceInfo.GetConditions (istio.io/WaypointBound); pilot/pkg/serviceregistry/ambient/status.go"},
	AmbientSettingIgnored:     {"EGR0508", "seed 002", "pilot/pkg/serviceregistry/ambient/services.go constructServiceEntries (the WDS Service carries no exportTo, Sidecar or outboundTrafficPolicy)"},

	// preflight's own (pkg/checks/preflight_catalog.go).
	PreflightSuppressionUnused:     {"EGR0901", "—", "this tool: kubectl egress preflight suppressions"},
	PreflightSuppressionInvalid:    {"EGR0902", "—", "this tool: kubectl egress preflight suppressions"},
	PreflightCheckSkipped:          {"EGR0903", "—", "this tool: kubectl egress preflight"},
	PreflightNotDiscovered:         {"EGR0905", "—", "pkg/kube/namespace/filter.go discoveryNamespacesFilter; pilot/pkg/config/kube/crdclient/client.go (ComposeFilters(namespaceFilter, ...))"},
	PreflightGatewayAPINotModelled: {"EGR0904", "—", "pilot/pkg/config/kube/gateway/conversion.go convertResources (not modelled by this tool yet)"},
	PreflightGatewayAPIOtherClass:  {"EGR0907", "—", "pilot/pkg/config/kube/gatewaycommon/gatewayclass_collection.go GatewayClassesCollection, FetchGatewayClass; pilot/pkg/config/kube/gateway/gateway_collection.go GatewaysCollection (no Gateway and no status for a class of another controller)"},
	// Gateway API route attachment (pkg/checks/gatewayapi_attach.go).
	PreflightRouteNotAccepted:       {"EGR0136", "§5 (404)", "pilot/pkg/config/kube/gateway/conversion.go extractParentReferenceInfo, referenceAllowed; conditions.go createRouteStatus"},
	PathClientRevisionUnserved:      {"EGR0163", "§1.3", "sidecar injector webhooks per revision (istio.io/rev) and revision tag; pkg/kube/inject (the injector of the revision)"},
	PreflightDRMergeDrops:           {"EGR0162", "§2.5", "pilot/pkg/model/destination_rule.go mergeDestinationRule (duplicate subsets dropped, the first top-level traffic policy kept); push_context.go setDestinationRules"},
	PreflightDRPortUndeclared:       {"EGR0151", "§2.5", "pilot/pkg/networking/util/util.go GetPortLevelTrafficPolicy (the service port against portLevelSettings[].port.number); cluster_builder.go applyDestinationRule"},
	PreflightMeshPortUndeclared:     {"EGR0138", "—", "pilot/pkg/config/kube/gateway/route_collections.go HTTPRouteCollection, TLSRouteCollection, TCPRouteCollection; conversion.go augmentPortMatch, augmentTLSPortMatch, augmentTCPPortMatch"},
	PreflightCRDTooOld:              {"EGR0137", "—", "pkg/kube/kclient/crdwatcher.go minimumVersionFilter; pkg/config/schema/gatewayapi/minimumversions.go MinimumCRDVersions"},
	PreflightHTTPOnTCPPort:          {"EGR0149", "§2.3", "pilot/pkg/networking/core/listener.go buildSidecarOutboundListener (the port's declared protocol decides the chain), buildOutboundCatchAllNetworkFiltersOnly (the default chain: BlackHoleCluster under REGISTRY_ONLY)"},
	PreflightSERejected:             {"EGR0148", "§2.2", "pkg/config/validation/validation.go ValidateServiceEntry (hosts, addresses, ports, endpoints per resolution, exportTo; the ServiceEntry CRD's validation rules repeat some)"},
	PreflightHostnameStatusHarmless: {"EGR0908", "—", "pilot/pkg/config/kube/gateway/conversion.go buildDestination (Hostname: InvalidDestinationNotFound, destination kept); gatewaycommon/context.go GetService (ServiceIndex.HostnameAndNamespace by the route's namespace)"},
	PreflightGatewayNotProgrammed:   {"EGR0909", "—", "pilot/pkg/config/kube/gateway/conversion.go setProgrammedCondition; gatewaycommon SetProgrammedCondition (the status istiod writes: the data plane's readiness)"},
	PreflightRouteStatusDiffers:     {"EGR0906", "—", "pilot/pkg/config/kube/gateway/conditions.go createRouteStatus, gateway_collection.go FinalGatewayStatusCollection (the status istiod writes, compared with this tool's prediction)"},
}

// ID returns the entry's stable identifier ("EGR0104"), "" when catalogRefs has no row for it.
func (e CatalogEntry) ID() string { return catalogRefs[e.Code].ID }

// Seed returns the seed section(s) the entry rests on (for example "§2.4 gate (1), §4.2").
func (e CatalogEntry) Seed() string { return catalogRefs[e.Code].Seed }

// Source returns the istiod functions the entry models, as the code comments cite them.
func (e CatalogEntry) Source() string { return catalogRefs[e.Code].Source }

// LookupID returns the catalogue entry whose ID ("EGR0104") or code
// ("NOT_EXPORTED_TO_GATEWAY_NAMESPACE") is key; case-insensitive.
func LookupID(key string) (CatalogEntry, bool) {
	for _, e := range Catalog {
		if strings.EqualFold(e.Code, key) || strings.EqualFold(e.ID(), key) {
			return e, true
		}
	}
	return CatalogEntry{}, false
}

// ProjectURL is the project's home (krew's homepage, SARIF's informationUri).
const ProjectURL = "https://github.com/kubectl-egress/kubectl-egress"

// DocsBaseURL is where the repository's files are published; DocURL links are under it.
const DocsBaseURL = ProjectURL + "/blob/main/"

// causePages maps every code to the page of docs/causes/ that explains its rule in plain words
// (with Istio's documentation and the istiod source); user-facing output links these pages
// instead of naming seed sections. A unit test checks that every Catalog entry has a page and
// that the file exists.
var causePages = map[string]string{
	// What the verdict rests on: the input read, and the live proxy against the prediction.
	CauseOK: "live-state", CauseInputUnknown: "live-state", CauseProxyDisagrees: "live-state",
	CauseModelDisagrees: "live-state", ListenerActualDiffers: "live-state",
	// Hosts, ports and resolution of ServiceEntries.
	CauseHostNotFound: "service-entries", CausePortNotDeclared: "service-entries", CauseNoCluster: "service-entries",
	CauseNoEndpoints: "service-entries", ListenerHostNotInRegistry: "service-entries", ListenerBlackHole: "service-entries",
	ListenerNoneNoAddresses: "service-entries", ListenerWildcardDNS: "service-entries", ListenerStrictDNS: "service-entries",
	// exportTo.
	CauseNotExported: "exportto", AuditSENotExportedToGateway: "exportto", AuditVSNotExportedToGateway: "exportto",
	AuditSENotExportedToClient: "exportto", AuditDuplicateHost: "exportto", AuditSvcNotExportedToClient: "exportto", AuditVSMeshNoClient: "exportto", AuditDelegateNotExported: "exportto",
	AuditSvcNotExportedToGW: "exportto", AuditSEExportedEverywhere: "exportto",
	// PILOT_FILTER_GATEWAY_CLUSTER_CONFIG.
	CauseNotReferenced: "gateway-cluster-filter", "FLAG_ROUTE_DISAGREEMENT": "gateway-cluster-filter",
	// VirtualService ↔ Gateway binding.
	CauseGatewayRefUnresolve: "gateway-binding", CauseRouteNotBound: "gateway-binding", CauseNoVirtualHost: "gateway-binding",
	"LEGACY_GATEWAY_REF": "gateway-binding", "NO_ROUTE_THROUGH_GATEWAY": "gateway-binding", "DELEGATE_UNUSABLE": "gateway-binding",
	"GATEWAY_ROUTES_TO_ITSELF": "gateway-binding", "DESTINATION_CLUSTER_ABSENT": "gateway-binding",
	CauseGatewayNotApplied: "gateway-binding", ListenerHTTPOnPassthrough: "gateway-binding", ListenerTLSOnTerminating: "gateway-binding", ListenerRouteShadowed: "gateway-binding", ListenerWildcardNotJoined: "gateway-binding", ListenerWildcardSNIPartial: "tls-across-hops",
	// Gateway servers and listeners.
	ListenerNoChains: "gateway-servers", ListenerServerDropped: "gateway-servers", ListenerUnreachable: "gateway-servers", ListenerHostsCrashIstiod: "gateway-servers",
	// DestinationRules and subsets.
	CauseSubsetNotDefined: "destinationrule-subsets", AuditDRNotOnLookupPath: "destinationrule-subsets",
	AuditSubsetUndefined: "destinationrule-subsets", AuditDRShadowed: "destinationrule-subsets", AuditDRNotExportedToClient: "destinationrule-subsets", AuditDRTLSNotExportedToGW: "tls-across-hops",
	// Sidecar listeners, ports and protocols.
	ListenerCatchAllTCP: "listeners-and-tcp", ListenerCatchAllTLSPort: "listeners-and-tcp", ListenerChainDropped: "listeners-and-tcp",
	ListenerWellKnownPort: "listeners-and-tcp", ListenerServerFirstSniffed: "listeners-and-tcp", AppProtocolOverridesName: "listeners-and-tcp", ListenerHTTPShadowsTCP: "listeners-and-tcp", ListenerHTTP2Undeclared: "listeners-and-tcp",
	ListenerHTTPRoutesIgnored: "listeners-and-tcp", PathWrongService: "listeners-and-tcp",
	// Sidecar resources: egress hosts.
	AuditSidecarImportHidden: "sidecar-imports", AuditSidecarImportUnknown: "sidecar-imports", ListenerNotImported: "sidecar-imports",
	ListenerHiddenPassthrough: "sidecar-imports", VisNotImported: "sidecar-imports", PathSidecarsAmbiguous: "sidecar-imports",
	// The client sidecar → egress gateway hop.
	PathBackendRefused: "gateway-binding", PathAllWeightsZero: "gateway-binding",
	PathOK: "sidecar-to-gateway-path", PathMirrorAbsent: "sidecar-to-gateway-path", PathDirect: "sidecar-to-gateway-path", PathSidecarNoRoute: "sidecar-to-gateway-path",
	PathSidecarNoChain: "sidecar-to-gateway-path", PathGatewayNotListen: "sidecar-to-gateway-path", GatewayPrivilegedPort: "sidecar-to-gateway-path",
	PathGatewayNoRoute: "sidecar-to-gateway-path", PathAmbiguousService: "sidecar-to-gateway-path", PathHTTP2Downgraded: "sidecar-to-gateway-path", PathHTTP2ThroughTCP: "sidecar-to-gateway-path", PathGatewayOtherEntry: "sidecar-to-gateway-path", PathSidecarPlainToTLS: "tls-across-hops",
	PathRouteMatchAssumed: "sidecar-to-gateway-path", PathAnsweredByRoute: "sidecar-to-gateway-path", PathFaultAbort: "sidecar-to-gateway-path", GatewayServiceSpans: "sidecar-to-gateway-path", ListenerGatewayServiceLack: "sidecar-to-gateway-path",
	ListenerClusterAbsent: "sidecar-to-gateway-path",
	// TLS on each hop.
	PathTLSMismatch: "tls-across-hops", PathGatewayNoChain: "tls-across-hops", PathNotOriginated: "tls-across-hops", PathCredentialMissing: "tls-across-hops", PathCredentialUnchecked: "tls-across-hops", PathIstioMTLSToExternal: "tls-across-hops", PathAutoMTLSToEntry: "tls-across-hops", EgressProxyHTTPOnly: "sidecar-imports", PreflightSidecarRejected: "sidecar-imports", PathTLSToPlaintext: "tls-across-hops", PathOriginationUnused: "tls-across-hops", ListenerDoubleTLS: "tls-across-hops",
	ListenerNoCredential: "tls-across-hops", ListenerCredentialMissing: "tls-across-hops", ListenerCertUnused: "tls-across-hops", ListenerTLSBehindHTTP: "tls-across-hops",
	// meshConfig.serviceEntryVisibility.
	VisStatusDrift: "visibility", VisHiddenEverywhere: "visibility", VisWaypointUnpublished: "ambient", VisWaypointForbidden: "visibility",
	VisRuleNeverMatches: "visibility", VisPolicyMatchesAll: "visibility",
	// Ambient clients and waypoints.
	AmbientViaWaypoint: "ambient", AmbientDirect: "ambient", WaypointNotFound: "ambient", WaypointNotForServices: "ambient",
	WaypointNotAllowed: "ambient", WaypointNoStatusAddress: "ambient", AmbientNoAddress: "ambient", AmbientSettingIgnored: "ambient", AmbientDNSCaptureOff: "ambient", WaypointRouteIgnored: "ambient", WaypointBackendUndeclared: "ambient", WaypointHTTPPortNotHTTP: "ambient", WaypointPlainToTLS: "ambient", AmbientPlainToTLS: "ambient", AmbientRouteNoWaypoint: "ambient", WaypointSkipsInternalDNS: "ambient", WaypointDynamicDNSPort: "ambient", AmbientDynamicDNSNoWP: "ambient",
	WaypointStatusDrift: "ambient", WaypointNotWaypointClass: "ambient", AmbientLabelWithSidecar: "ambient", WaypointAnnotation: "ambient",
	// preflight's own.
	PreflightSuppressionUnused: "preflight", PreflightSuppressionInvalid: "preflight", PreflightCheckSkipped: "preflight",
	PreflightGatewayAPINotModelled: "live-state", PreflightNotDiscovered: "preflight", PreflightGatewayAPIOtherClass: "gateway-binding",
	PreflightRouteNotAccepted: "gateway-binding", PreflightRouteStatusDiffers: "live-state", PreflightGatewayNotProgrammed: "live-state", PreflightHostnameStatusHarmless: "live-state", PreflightCRDTooOld: "gateway-binding", PreflightMeshPortUndeclared: "gateway-binding", PreflightDRPortUndeclared: "tls-across-hops", PreflightDRMergeDrops: "destinationrule-subsets", PathClientRevisionUnserved: "sidecar-to-gateway-path",
	PreflightSERejected: "service-entries", PreflightHTTPOnTCPPort: "service-entries", PreflightVSRejected: "gateway-binding", PreflightGatewayRejected: "gateway-servers", PreflightDRRejected: "destinationrule-subsets",
}

// DocPath returns the repository path of the page that explains the entry's rule
// ("docs/causes/exportto.md"), "" when it has none.
func (e CatalogEntry) DocPath() string { return DocPathOf(e.Code) }

// DocURL returns DocPath under DocsBaseURL, "" when the entry has no page.
func (e CatalogEntry) DocURL() string { return DocURLOf(e.Code) }

// DocPathOf returns the repository path of the docs/causes page for a code ("" when none).
func DocPathOf(code string) string {
	p, ok := causePages[code]
	if !ok {
		return ""
	}
	return "docs/causes/" + p + ".md"
}

// DocURLOf returns the link to the docs/causes page for a code ("" when none).
func DocURLOf(code string) string {
	p := DocPathOf(code)
	if p == "" {
		return ""
	}
	return DocsBaseURL + p
}

// PluralKind names several resources of a kind: ServiceEntries, Gateways, Hosts.
func PluralKind(kind string) string {
	switch {
	case kind == "":
		return "resources"
	case kind == snapshot.KindGatewayAPI:
		return "Kubernetes Gateway API objects"
	case kind == snapshot.KindGatewayAPICRD:
		return "Gateway API CRDs"
	case strings.HasSuffix(kind, "y") && len(kind) > 1 && !strings.ContainsRune("aeiou", rune(kind[len(kind)-2])):
		return kind[:len(kind)-1] + "ies"
	case strings.HasSuffix(kind, "s"):
		return kind + "es"
	}
	return kind + "s"
}
