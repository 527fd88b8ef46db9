package checks

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

// Catalog lists every cause and finding code, in decision-tree order. docs/why-missing.md is
// generated from the same text by hand; keep them in step.
var Catalog = []CatalogEntry{
	{CauseOK, LevelInfo, "", "The cluster is predicted in the gateway's CDS and a route bound to the gateway reaches it."},
	{CauseInputUnknown, LevelError, "", "A kind the verdict depends on could not be read (RBAC forbids listing it, or its API version is not served); no verdict is given (exit 2)."},
	{CauseHostNotFound, LevelError, "NC/BlackHoleCluster", "No ServiceEntry or Kubernetes Service declares the host (or the IP in its addresses)."},
	{CausePortNotDeclared, LevelError, "NC", "The entry that declares the host has no such port, so outbound|<port>||<host> is never built."},
	{CauseNotExported, LevelError, "NC", "exportTo (or meshConfig.defaultServiceExportTo) of every entry for the host excludes the gateway pod's namespace (seed §4.2)."},
	{CauseNoCluster, LevelError, "NC", "The entry's resolution yields no cluster (a Kubernetes ExternalName Service is an alias)."},
	{CauseNotReferenced, LevelError, "NC", "istiod runs with PILOT_FILTER_GATEWAY_CLUSTER_CONFIG=true and no VirtualService bound to a Gateway of this workload routes to the host (seed §2.4, §3.4)."},
	{CauseGatewayRefUnresolve, LevelError, "NR", "A VirtualService meant for this gateway names a Gateway that does not exist once resolved (a short name resolves in the VirtualService's namespace)."},
	{CauseRouteNotBound, LevelError, "NR", "A VirtualService names the Gateway but does not bind a server: hosts disjoint, wrong route section for the server protocol/TLS mode, match.port mismatch, or exportTo hides it from the gateway's namespace (seed §2.3)."},
	{CauseNoVirtualHost, LevelError, "NR", "Routes are bound, but no virtual host (or SNI) on the gateway matches the authority the client uses, for example an IP address."},
	{CauseSubsetNotDefined, LevelError, "NC", "A bound route names a subset that no DestinationRule on the gateway's lookup path defines (seed §2.5)."},
	{CauseProxyDisagrees, LevelError, "NC", "The configuration gives the gateway the cluster, but the running proxy does not hold it: a push that has not arrived or was rejected (see sync status), or a control-plane bug (istio/istio#44439). Not a configuration fault."},
	{CauseModelDisagrees, LevelWarning, "", "The proxy holds a cluster the prediction says it lacks: the configuration changed since it was read, or this tool's model of istiod is wrong for this case (please report it)."},
	{CauseNoEndpoints, LevelWarning, "UH", "The cluster exists but has no endpoints on a gateway (resolution NONE becomes EDS with 0 endpoints; STATIC without endpoints)."},
	{"LEGACY_GATEWAY_REF", LevelInfo, "", "A gateway reference uses the legacy FQDN form; prefer namespace/name."},
	{"NO_ROUTE_THROUGH_GATEWAY", LevelInfo, "", "No VirtualService routes the host through this gateway; the cluster alone carries no traffic."},
	{"DELEGATE_UNUSABLE", LevelWarning, "NR", "A delegated route names a VirtualService that is missing, has hosts, or is not exported to the root's namespace."},
	{"FLAG_ROUTE_DISAGREEMENT", LevelWarning, "NR", "istiod keeps the cluster because a VirtualService lists the Gateway, although that VirtualService does not actually bind a server."},
	{"GATEWAY_ROUTES_TO_ITSELF", LevelWarning, "", "A route bound on the gateway sends traffic to the gateway's own Service (a self-loop)."},
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
