package conformance

import (
	"fmt"
	"strings"
)

// The path dimensions (paths_test.go): a client namespace team-p (istio-injection: enabled) calls
// path.example.com (a public entry egress/path-ext: 80 HTTP, 443 TLS, resolution DNS) through the
// egress-namespace gateway pods, by a mesh-bound VirtualService in team-p that routes to subset
// "p" of a Service selecting those pods, a DestinationRule in team-p defining the subset, a
// Gateway egress/path-gw on the pods and a VirtualService bound to it routing on to the entry.
// Like the gap ones, each column has its own seeded generator and its objects come last.
const (
	dimPService = "path.service"
	dimPTLS     = "path.tls"
	dimPTLSRule = "path.tls-rule"
	dimPUpRes   = "path.upstream"
	dimPOrig    = "path.origination"
	dimPMirror  = "path.mirror"
	dimPRev     = "path.revision"
	dimPSel     = "path.selector"
	dimPSubset  = "path.subset-labels"
	dimPAlias   = "path.alias"
	dimPSplit   = "path.split"
	dimPFault   = "path.fault"
	dimPAuth    = "path.authority"
	dimPHeld    = "path.port-held"
	dimPSidecar = "path.sidecar"
	dimPOrder   = "path.route-order"
	dimPSNI     = "path.sni"
	dimPMeshOrd = "path.mesh-order"
	dimPDeleg   = "path.delegate"
	dimPSrvPort = "path.server-port"

	pathHost   = "path.example.com"
	mirrorHost = "mirror.example.com"
	splitHost  = "split.example.com"
)

func init() {
	dimensions = append(dimensions,
		// path.service: the Service the client's route names and the Services selecting the
		// gateway pods. own: egress/egress-path alone (8090 → 18090, 8453 → 18453).
		// older-alt / newer-alt: a second Service egress/egress-path-alt selecting the same pods
		// with other target ports (8090 → 28090, 8453 → 28453), created before every other object
		// or after egress-path (istiod translates a Gateway server's port through the oldest
		// Service that declares it). client-to-alt: the older alt Service, and the client routes
		// to it. undeclared-port: the client routes to port 8091, which egress-path does not
		// declare. container-port: the client routes to egress-path's target port (18090 or
		// 18453, the gateway pods' container port), which the Service does not declare (no
		// sidecar cluster for it). other-port: the client routes to egress-path's other port
		// (8453 when the path's server listens behind 8090, and the other way round): the
		// gateway is ready behind the port the route does not name (GATEWAY_NOT_LISTENING_ON_
		// TARGET_PORT or a chain that does not take the call). headless: egress-path with clusterIP None (a sidecar's
		// cluster for it is ORIGINAL_DST: the call goes to the address the client dialed,
		// cluster.go convertResolution). alias: the client's route names team-p/egress-alias,
		// an ExternalName Service (externalName egress-path.egress.svc.cluster.local, ports 8090
		// and 8453): istiod routes to the external name's cluster (route.go
		// GetDestinationCluster, for a service of the listener that declares the port).
		// alias-short: externalName egress-path.egress (a cluster nothing builds).
		// alias-no-port: the alias declares no port (the route keeps the alias's own name, a
		// cluster nothing builds). alias-svc: externalName egress-path.egress.svc (not the full
		// name either). alias-other-port: the alias declares only port 9443, not the listener's
		// (istiod looks the alias up among the services of the listener's port, httproute.go
		// servicesByName, so the route keeps the alias's own name; blind audit 69 D4). spans: egress-path selects {app: egress-gateway}, which a
		// second gateway workload egress/egress-gateway-b (no Gateway of its own) carries too:
		// the client's calls are balanced over both workloads' pods (the Service's endpoints),
		// and those through egress-gateway-b fail. translation-off: egress-path labelled
		// experimental.istio.io/disable-gateway-port-translation (istiod then ignores it when
		// translating) beside the newer alt Service.
		dimension{dimPService, []string{"none", "own", "own", "older-alt", "newer-alt", "client-to-alt", "undeclared-port", "container-port", "other-port", "headless", "alias", "alias-short", "alias-no-port", "alias-svc", "alias-other-port", "spans", "translation-off"}},
		// path.tls: the call and the TLS on the sidecar → gateway hop. http-plain: HTTP on 80
		// to an HTTP server on 8090. http-istio-mutual: the subset originates ISTIO_MUTUAL (sni
		// path.example.com) to an HTTPS ISTIO_MUTUAL server on 8453. http-no-origination: the
		// same server, no tls in the DestinationRule (plaintext into a TLS server).
		// http-tls-to-plain: ISTIO_MUTUAL from the subset to the HTTP server on 8090.
		// tls-passthrough: TLS on 443 (SNI path.example.com), a tls route to 8453, a TLS
		// PASSTHROUGH server for the host and a tls route on to the entry's 443.
		// passthrough-other-sni: the same with the server's hosts [other.example.com].
		// mutual-port-level-no-tls: the ISTIO_MUTUAL server, the subset's policy sets tls
		// ISTIO_MUTUAL and a port-level setting for 8453 without tls (istiod: the port-level
		// setting replaces the subset's policy: plaintext). mutual-top-level-subset-lb: the
		// ISTIO_MUTUAL server, tls ISTIO_MUTUAL in the rule's top-level policy and a subset
		// policy setting only loadBalancer (istiod keeps the top-level tls).
		// http-into-tcp: HTTP on 80 to a TCP server on 8090 with a tcp route on to the entry
		// (plaintext HTTP/1.1 passes through); http-into-tcp-h2: the same, and subset "p"
		// upgrades to HTTP/2 (connectionPool.http.h2UpgradePolicy UPGRADE: the host receives
		// HTTP/2 cleartext, GATEWAY_TCP_SERVER_FORWARDS_HTTP2). tls-mutual-tcp-forward: TLS on
		// 443, the subset originates ISTIO_MUTUAL (sni path.example.com) to a TLS server on 8453
		// with tls mode ISTIO_MUTUAL, whose tcp route forwards what is inside the terminated
		// session (the client's own TLS) to the entry's 443 (gateway.go
		// buildGatewayNetworkFiltersFromTCPRoutes): with path.origination's TLS on 443 the
		// client's TLS meets a second session (TLS originated twice).
		// mutual-top-port-level-no-tls: tls ISTIO_MUTUAL and a port-level setting for 8453
		// without tls, both in the rule's top-level policy (plaintext: a port-level setting
		// does not inherit the policy's tls). mutual-top-subset-port-level-no-tls: tls
		// ISTIO_MUTUAL at top level, and subset "p" has only a port-level setting for 8453
		// without tls (util.go MergeSubsetTrafficPolicy: the subset's port-level setting replaces
		// the merged tls too: plaintext).
		dimension{dimPTLS, []string{"http-plain", "http-istio-mutual", "http-no-origination", "http-tls-to-plain", "tls-passthrough", "passthrough-other-sni",
			"mutual-port-level-no-tls", "mutual-top-level-subset-lb", "http-into-tcp", "http-into-tcp-h2", "tls-mutual-tcp-forward",
			"mutual-top-port-level-no-tls", "mutual-top-subset-port-level-no-tls"}},
		// path.tls-rule: with path.tls http-istio-mutual, where the rule that originates the
		// Istio mTLS lives. client: team-p (as above). hidden: the gateway Service's namespace,
		// tls at the top level, exportTo ["."]: team-p applies no rule (push_context.go
		// destinationRule), sends plaintext into the ISTIO_MUTUAL server, and the mesh route
		// names no subset (blind audit 76 c22). hidden-port-level: the same with the tls in a
		// port-level setting for 8453 and exportTo [other]. (A dimension of its own, so that
		// path.tls keeps its values and the scenarios they make.)
		dimension{dimPTLSRule, []string{"client", "hidden", "hidden-port-level"}},
		// path.upstream: the resolution of the external entry behind the gateway (egress/path-ext).
		// dns: resolution DNS. none: resolution NONE, no addresses (on a gateway istiod turns it
		// into an EDS cluster without endpoints: 503 UH, cluster.go convertResolution).
		// none-addresses: NONE with addresses [240.240.60.1]. static: STATIC with the endpoint
		// 10.20.0.60. static-no-endpoints: STATIC without endpoints (valid, EDS with none).
		// static-wle-other-ns: STATIC with workloadSelector {app: path-vm}, the only WorkloadEntry
		// with that label in team-p (an entry selects workloads in its own namespace only:
		// serviceentry/conversion.go, no endpoints); static-wle-same-ns: the WorkloadEntry in
		// egress (one endpoint). dup-older-no-endpoints: beside the DNS entry, a second public
		// entry other/path-dup for the host, created earlier, STATIC without endpoints (istiod's
		// gateway scope keeps the first service for a host: private, then exported by name, then
		// public by creation time, sidecar.go appendSidecarServices; its cluster gets that entry's
		// endpoints: none, 503 UH). dup-named-no-endpoints: the second entry newer but exported
		// to egress by name (ahead of public ones). dup-newer-no-endpoints: the second entry
		// public and newer (not used by the gateway).
		dimension{dimPUpRes, []string{"dns", "dns", "none", "none-addresses", "static", "static-no-endpoints", "static-wle-other-ns", "static-wle-same-ns",
			"dup-older-no-endpoints", "dup-named-no-endpoints", "dup-newer-no-endpoints"}},
		// path.origination: TLS the gateway originates to path.example.com (a DestinationRule
		// egress/path-origination for the host). none: no rule, the gateway's http route goes to
		// port 80. simple-443: portLevelSettings 443 tls SIMPLE and the gateway's http route
		// rewritten to port 443 (the usual 80 → 443 origination). simple-all-ports: top-level tls
		// SIMPLE, the route stays on 80. client-ns-only: the simple-443 rule in team-p with
		// exportTo ["."] (the gateway does not see it: plaintext to 443). port-level-no-tls:
		// top-level tls SIMPLE and a port-level setting for 443 without tls (istiod: a port-level
		// setting replaces the whole policy, no TLS on 443). subset-tls: a subset "up" with tls
		// SIMPLE, the gateway's route to subset up on 443. disable-443: portLevelSettings 443 tls
		// DISABLE, the route rewritten to 443 (an explicit DISABLE: plaintext to 443 all the
		// same; a passthrough call works). With the tls-passthrough calls the gateway's tls
		// route already goes to 443: the client's TLS meets the rule's TLS (TLS originated twice).
		// target-443-*: the entry's port 80 gets targetPort 443 (Istio's TLS origination task),
		// the route stays on 80; none: no rule (plaintext to the server's 443); port-80:
		// portLevelSettings 80 tls SIMPLE (works); written-443: the setting written for 443, which
		// the entry also declares (TLS), so port 80 gets none (blind audit 54 c1).
		dimension{dimPOrig, []string{"none", "none", "simple-443", "simple-all-ports", "client-ns-only", "port-level-no-tls", "subset-tls", "disable-443", "target-443-none", "target-443-port-80", "target-443-written-443"}},
		// path.mirror: the gateway's http route mirrors to mirror.example.com:80 (a mirror is a
		// cluster of the route, request_mirror_policies, not a route). exported: a public entry
		// other/path-mirror for the host. not-exported: the entry with exportTo ["."] (not
		// visible to the gateway). no-entry: no entry for the host. zero-percent: the public
		// entry and mirrorPercentage 0 (istiod then mirrors nothing). Only http routes mirror.
		dimension{dimPMirror, []string{"none", "none", "exported", "not-exported", "no-entry", "zero-percent"}},
		// path.revision: istiod revisions on the path (a canary istiod with the default one's
		// flags is added when the revision column has none). gw-canary: the egress-namespace
		// gateway pods labelled istio.io/rev=canary (as revision egress-gw-canary does), the client
		// sidecar stays on the default revision (the suite continues its call at the gateway in
		// the canary istiod's output, crossRevisionPaths). config-canary: the Gateway path-gw and
		// the VirtualService bound to it labelled istio.io/rev=canary, the gateway pods not
		// (LabelsInRevision: their istiod ignores both). both-canary: both.
		dimension{dimPRev, []string{"none", "none", "gw-canary", "config-canary", "both-canary"}},
		// path.selector: the Gateway path-gw. own: in egress, selector {istio: egress-dedicated}.
		// no-pod: selector {istio: egress-nowhere} (matches no pod). other-ns: the Gateway in
		// istio-system with the same selector (pods in another namespace: with
		// PILOT_SCOPE_GATEWAY_TO_NAMESPACE, the scope column, istiod does not apply it), the
		// VirtualService bound to istio-system/path-gw. empty: selector {} in egress (every
		// gateway pod; with the scope flag only the egress ones).
		dimension{dimPSel, []string{"own", "own", "no-pod", "other-ns", "empty"}},
		// path.subset-labels: the labels of subset "p" of the gateway's Service (the client's
		// destination). none: no labels (every pod of the Service). pod: {istio:
		// egress-dedicated}, which the gateway pods carry. no-pod: {version: v9}, which no pod
		// carries (istiod's endpoint builder keeps no endpoint: the client sidecar's cluster has
		// none, 503 UH). other-value: {app: egress-gateway-v2}, a key the pods carry with another
		// value.
		dimension{dimPSubset, []string{"none", "none", "pod", "no-pod", "other-value"}},
		// path.alias: the gateway route's destination. none: path.example.com. alias: the
		// Kubernetes ExternalName Service egress/path-alias (externalName path.example.com):
		// istiod routes to the external name's cluster (route.go GetDestinationCluster), and with
		// PILOT_FILTER_GATEWAY_CLUSTER_CONFIG keeps only the alias's name, so that cluster is not
		// pushed. alias-dot: externalName "path.example.com." (istiod keeps the dot: a cluster no
		// entry builds).
		dimension{dimPAlias, []string{"none", "none", "none", "alias", "alias-dot"}},
		// path.split: the gateway's route splits the call by weight, 70 to path.example.com and
		// 30 to split.example.com (same port). exported: a public entry other/path-split for the
		// host (HTTP 80, TLS 443). not-exported: the entry with exportTo ["."] (the gateway has
		// no cluster for it: Envoy answers that share itself, 503 NC or a closed connection).
		// no-entry: no entry for the host. zero-no-entry: no entry and the split's weights 100/0
		// (istiod leaves a weight-0 destination out of the weighted clusters: nothing fails).
		dimension{dimPSplit, []string{"none", "none", "none", "exported", "not-exported", "no-entry", "zero-no-entry"}},
		// path.fault: a fault abort on the http routes (route.go TranslateFault: the HTTP fault
		// filter's per-route abort). mesh-all: the client's mesh route aborts 100% with 503 (its
		// own sidecar answers). gateway-all: the gateway's route aborts 100% with gRPC status
		// UNAVAILABLE. mesh-half: 50% (the call is still routed). gateway-no-percentage: an
		// abort without a percentage (istiod sets none: Envoy aborts nothing). tls and tcp
		// routes have no fault.
		dimension{dimPFault, []string{"none", "none", "none", "mesh-all", "gateway-all", "mesh-half", "gateway-no-percentage"}},
		// path.authority: the client's mesh http route rewrites the Host on the way to the
		// gateway (route.go applyHTTPRouteDestination: rewrite.authority, or a host header the
		// route sets, becomes host_rewrite_literal), and the gateway routes by the new Host.
		// same: to the path's host (nothing changes). unrouted: to elsewhere.example.org, which
		// no gateway route names (404 at the gateway). header-unrouted: the same through
		// headers.request.set host. with-port: to path.example.com:80.
		dimension{dimPAuth, []string{"none", "none", "none", "same", "unrouted", "header-unrouted", "with-port"}},
		// path.port-held: an older Gateway egress/held on the same pods with a plain-HTTP
		// server on 8453 (for held.example.net) or a TCP one: the path's HTTPS/TLS server on
		// 8453 cannot share a plaintext port and istiod skips it (gateway.go MergeGateways,
		// canMergeProtocols); the path's HTTP server on 8090 is not affected. older-passthrough:
		// an older Gateway egress/held with a TLS PASSTHROUGH server on 8090 for
		// held.example.net and a tls route to it: a plaintext server arriving on a port that only
		// TLS servers hold is kept beside them (MergeGateways: "no existing plaintext server on
		// this port"), and buildGatewayListeners appends both servers' chains to one listener,
		// so the path's plaintext HTTP call takes the chain without server names (blind audit
		// 74 case 12).
		// older-same-host: an older Gateway egress/held with a TLS PASSTHROUGH server on 8453 for
		// the path host itself, and an older VirtualService egress/held whose tls route sends that
		// SNI to held.example.net:443: the path's TLS server on 8453 repeats the host, so istiod
		// skips it (MergeGateways, CheckDuplicates) and path-through-gw never applies; the
		// call on 8453 takes held's chain to held.example.net (blind audit 98 c17).
		dimension{dimPHeld, []string{"none", "none", "none", "older-http", "older-tcp", "older-passthrough", "older-same-host"}},
		// path.sidecar: a Sidecar in team-p (istiod sidecar.go: a Sidecar egress listener with
		// a port keeps only that port of the services it imports, and imports only the
		// namespaces its hosts name). catch-all: egress hosts [*/*] without a port (the
		// control). ported-call: one listener on the call's port (80 HTTP, or 443 TLS for the
		// passthrough calls), hosts [*/*]: the gateway Service's port is trimmed, so the
		// client's sidecar has no cluster for it. ported-both: that listener and another on the
		// gateway Service's port for egress/*. ported-no-egress-ns: the call's port with hosts
		// [./*, istio-system/*]: neither the gateway Service nor the entry is imported, only
		// the client's own mesh route.
		// excluded-gateway: hosts [*/*, ~egress/<gateway Service>] (Istio 1.31 exclusions:
		// sidecar.go selectServices skips a service an exclusion of its own namespace or of
		// every namespace names; virtual services are not excluded): no cluster for the gateway
		// Service. excluded-gateway-other-ns: the exclusion written for namespace other (no
		// effect). excluded-host: hosts [*/*, ~/path.example.com] (the entry is not imported;
		// the client's route still is).
		dimension{dimPSidecar, []string{"none", "none", "none", "catch-all", "ported-call", "ported-both", "ported-no-egress-ns",
			"excluded-gateway", "excluded-gateway-other-ns", "excluded-host"}},
		// path.route-order: a second VirtualService egress/path-order bound to the same Gateway
		// for the path host, its http route to order.example.com:80 (a public entry
		// other/path-order). istiod appends the routes of every VirtualService for a host to one
		// virtual host (gateway.go buildGatewayHTTPRouteConfig, vHostDedupMap) in their order
		// (creation time here), then moves catch-all routes after the others (route.go
		// SortVHostRoutes). older-catchall: created first, no match (it takes every request;
		// path-through-gw's routes never match). newer-exact-root: created after, uri exact "/"
		// (not a catch-all: sorted ahead of path-through-gw's catch-all, it takes GET /).
		// older-prefix: created first, uri prefix /api (GET / passes it by; header matches are
		// not tried: istiod's simulation matches routes by path only). The wildcard values
		// make path-through-gw list hosts ["*.example.com"] (its catch-all route still sends
		// the path host on) and path-order list the path host: istiod builds one virtual host
		// per host name the VirtualServices and the server share (vHostDedupMap keyed by each
		// intersecting host), and Envoy picks the most specific domain. wildcard-split: the
		// server lists "*.example.com" too, so the path host gets a virtual host of its own
		// with path-order's route only, uri prefix /api (GET / gets 404 NR: the wildcard's
		// routes never serve it). wildcard-exact-root: the same with uri exact "/" (GET / goes
		// to order.example.com). wildcard-joined: the server keeps [path.example.com], so both
		// VirtualServices intersect to the path host and share its virtual host (GET / passes
		// the /api route by and takes path-through-gw's catch-all). newer-regex-slash and
		// newer-regex-dotstar: created after, uri regex "/.*" or ".*": istiod counts only
		// regex ".*" (and prefix "/") as catch-all (route.go IsCatchAllRoute), so "/.*" is
		// sorted ahead of path-through-gw's catch-all and takes GET /, while ".*" stays after
		// it.
		dimension{dimPOrder, []string{"none", "none", "none", "older-catchall", "newer-exact-root", "older-prefix", "wildcard-split", "wildcard-exact-root", "wildcard-joined", "newer-regex-slash", "newer-regex-dotstar"}},
		// path.sni: the sniHosts of the tls matches on a passthrough path (path.tls
		// tls-passthrough and passthrough-other-sni; other calls ignore it). mesh-other: the
		// client's mesh tls match lists [other.example.com] only: the sidecar builds no chain
		// of its own for the path host's SNI (tls.go buildSidecarOutboundTLSFilterChainOpts,
		// hasTLSMatch), so the call takes the port's default chain and never reaches the
		// gateway. mesh-wildcard: ["*.example.com"] (covers it). gateway-other: the gateway's
		// tls match lists [other.example.com]: istiod builds the server's chains from the tls
		// matches' server names that its hosts take, none here, and omits the listener when no
		// server of the port has a chain (gateway.go buildGatewayListeners). gateway-other-kept:
		// the same, and a second Gateway egress/path-sni-kept with a PASSTHROUGH server on 8453
		// for other.example.com and its tls route keeps the listener: the call's SNI finds no
		// chain there. gateway-wildcard: ["*.example.com"]. gateway-wildcard-older: an older
		// Gateway egress/path-sni-star with a PASSTHROUGH server on 8453 for "*.example.com"
		// and its tls route to star.example.com: both servers are kept (gateway.go
		// CheckDuplicates compares host strings) and their chains share the listener; Envoy
		// picks the chain whose server name matches the SNI exactly before any wildcard one,
		// whatever their order, so the path host's chain takes the call.
		// gateway-dup-older-dead: a VirtualService egress/path-sni-dup bound to path-gw, created
		// before path-through-gw, with a tls route for the path host's SNI to dead.example.com
		// (no entry): istiod keeps only the first route for a server name on a gateway listener
		// (gateway.go buildGatewayNetworkFiltersFromTLSRoutes skips a match whose SNI hosts
		// model.CheckDuplicates finds kept), so
		// the call goes to a cluster nothing builds. gateway-dup-newer-dead: the same VirtualService
		// created after path-through-gw (skipped: the call works).
		dimension{dimPSNI, []string{"none", "none", "none", "mesh-other", "mesh-wildcard", "gateway-other", "gateway-other-kept", "gateway-wildcard", "gateway-wildcard-older",
			"gateway-dup-older-dead", "gateway-dup-newer-dead"}},
		// path.mesh-order: a route of the client's own sidecar that sends the call straight to
		// path.example.com (port 80, or 443 with sniHosts [path.example.com] on a passthrough
		// path) instead of to the gateway. catchall-first: a route without match first in
		// path-via-gw's http routes (HTTP calls only; route.go: the first matching route wins,
		// and SortVHostRoutes only moves catch-alls at gateways). older-vs: a second
		// VirtualService team-p/path-direct for the host, created before path-via-gw: for a
		// sidecar istiod keeps the first VirtualService per host (httproute.go
		// buildSidecarVirtualHostsFromConfigAndRegistry; tls.go for the SNI chains), so the call
		// bypasses the gateway. newer-vs: path-direct created after path-via-gw (ignored).
		dimension{dimPMeshOrd, []string{"none", "none", "none", "catchall-first", "older-vs", "newer-vs"}},
		// path.delegate: the gateway's http route delegated (HTTP paths only). delegate:
		// path-through-gw's http is one delegate route to other/path-delegate, a VirtualService
		// without hosts holding the routes (virtualservice.go mergeVirtualServicesIfNeeded).
		// not-exported: the delegate exportTo ["."] (the root in egress does not see it: the
		// delegate route is dropped, 404 NR). with-hosts: the delegate lists the path host (and
		// exportTo [egress]): a VirtualService with hosts is not a delegate, so the root's
		// delegate route is dropped the same way.
		dimension{dimPDeleg, []string{"none", "none", "none", "delegate", "not-exported", "with-hosts"}},
		// path.server-port: the port path-gw's server is written on. container-port: the
		// gateway Service's targetPort (18090 or 18453, the pods' container port) instead of the
		// Service port: no Service port declares it, so istiod keeps it as written (gateway.go
		// resolvePorts) and the listener is the one the call arrives on; the gateway's routes
		// match the server port, so a route that names the Service port (the tls routes of the
		// passthrough paths) no longer binds (blind audit 98 c34). container-port-matched: the
		// same, and the gateway's http and tcp routes match the Service port too. plain-on-tls-port:
		// the plain HTTP server on 8453, the Service port named tls-path, while the client
		// sends plaintext to 8090: no listener behind 8090 (blind audit 98 c15; HTTP paths
		// without TLS on the hop only).
		dimension{dimPSrvPort, []string{"none", "none", "none", "container-port", "container-port-matched", "plain-on-tls-port"}},
	)
}

// sniObjects applies a path.sni value to the passthrough path's gateway and mesh tls routes,
// and adds the second Gateway of gateway-other-kept (on the path's gateway pods).
func sniObjects(b *builder, v string, gwRoute, meshRoute *string, upSubset string) {
	sni := "sniHosts: [" + pathHost + "]"
	switch v {
	case "mesh-other":
		*meshRoute = strings.Replace(*meshRoute, sni, "sniHosts: [other.example.com]", 1)
	case "mesh-wildcard":
		*meshRoute = strings.Replace(*meshRoute, sni, `sniHosts: ["*.example.com"]`, 1)
	case "gateway-other", "gateway-other-kept":
		*gwRoute = strings.Replace(*gwRoute, sni, "sniHosts: [other.example.com]", 1)
	case "gateway-wildcard":
		*gwRoute = strings.Replace(*gwRoute, sni, `sniHosts: ["*.example.com"]`, 1)
	}
	if (v == "gateway-dup-older-dead" || v == "gateway-dup-newer-dead") && strings.HasPrefix(*gwRoute, "  tls:") {
		// a second VirtualService bound to path-gw whose tls route for the path host's SNI goes
		// to dead.example.com (no entry: no cluster); istiod keeps the first route for an SNI
		ts := `"2023-06-01T00:00:00Z"`
		if v == "gateway-dup-newer-dead" {
			ts = b.ts()
		}
		b.add(fmt.Sprintf(`apiVersion: networking.istio.io/v1
kind: VirtualService
metadata:
  name: path-sni-dup
  namespace: egress
  creationTimestamp: %s
spec:
  hosts: [%s]
  gateways: [path-gw]
  tls:
  - match:
    - port: 8453
      sniHosts: [%s]
    route:
    - destination: {host: dead.example.com, port: {number: 443}}`, ts, pathHost, pathHost))
		return
	}
	if v == "gateway-wildcard-older" {
		b.add(`apiVersion: networking.istio.io/v1
kind: ServiceEntry
metadata:
  name: path-sni-star
  namespace: other
  creationTimestamp: "2023-06-01T00:00:00Z"
spec:
  hosts: [star.example.com]
  exportTo: ["*"]
  location: MESH_EXTERNAL
  ports:
  - {number: 443, name: tls, protocol: TLS}
  resolution: DNS`)
		b.add(`apiVersion: networking.istio.io/v1
kind: Gateway
metadata:
  name: path-sni-star
  namespace: egress
  creationTimestamp: "2023-06-01T00:00:00Z"
spec:
  selector: {istio: egress-dedicated}
  servers:
  - port: {number: 8453, name: tls-star, protocol: TLS}
    hosts: ["*.example.com"]
    tls: {mode: PASSTHROUGH}`)
		b.add(`apiVersion: networking.istio.io/v1
kind: VirtualService
metadata:
  name: path-sni-star
  namespace: egress
  creationTimestamp: "2023-06-01T00:00:00Z"
spec:
  hosts: ["*.example.com"]
  gateways: [path-sni-star]
  tls:
  - match:
    - port: 8453
      sniHosts: ["*.example.com"]
    route:
    - destination: {host: star.example.com, port: {number: 443}}`)
		return
	}
	if v != "gateway-other-kept" {
		return
	}
	b.add(fmt.Sprintf(`apiVersion: networking.istio.io/v1
kind: Gateway
metadata:
  name: path-sni-kept
  namespace: egress
  creationTimestamp: %s
spec:
  selector: {istio: egress-dedicated}
  servers:
  - port: {number: 8453, name: tls-kept, protocol: TLS}
    hosts: [other.example.com]
    tls: {mode: PASSTHROUGH}`, b.ts()))
	b.add(fmt.Sprintf(`apiVersion: networking.istio.io/v1
kind: VirtualService
metadata:
  name: path-sni-kept
  namespace: egress
  creationTimestamp: %s
spec:
  hosts: [other.example.com]
  gateways: [path-sni-kept]
  tls:
  - match:
    - port: 8453
      sniHosts: [other.example.com]
    route:
    - destination: {host: %s, port: {number: 443}%s}`, b.ts(), pathHost, upSubset))
}

// routeOrderObjects adds the objects of a path.route-order value: the entry for
// order.example.com and the VirtualService path-order bound to gwRef.
func routeOrderObjects(b *builder, v, gwRef, cfgLabels string) {
	if v == "none" || v == "" {
		return
	}
	b.add(fmt.Sprintf(`apiVersion: networking.istio.io/v1
kind: ServiceEntry
metadata:
  name: path-order
  namespace: other
  creationTimestamp: %s
spec:
  hosts: [order.example.com]
  exportTo: ["*"]
  location: MESH_EXTERNAL
  ports:
  - {number: 80, name: http, protocol: HTTP}
  resolution: DNS`, b.ts()))
	ts, match := `"2023-06-01T00:00:00Z"`, ""
	switch v {
	case "newer-exact-root", "wildcard-exact-root":
		ts, match = b.ts(), "\n  - match:\n    - uri: {exact: /}\n    route:"
	case "older-prefix", "wildcard-split", "wildcard-joined":
		match = "\n  - match:\n    - uri: {prefix: /api}\n    route:"
	case "newer-regex-slash":
		ts, match = b.ts(), "\n  - match:\n    - uri: {regex: /.*}\n    route:"
	case "newer-regex-dotstar":
		ts, match = b.ts(), "\n  - match:\n    - uri: {regex: \".*\"}\n    route:"
	}
	route := "\n  - route:"
	if match != "" {
		route = match
	}
	b.add(fmt.Sprintf(`apiVersion: networking.istio.io/v1
kind: VirtualService
metadata:
  name: path-order
  namespace: egress%s
  creationTimestamp: %s
spec:
  hosts: [%s]
  gateways: [%s]
  http:%s
    - destination: {host: order.example.com, port: {number: 80}}`, cfgLabels, ts, pathHost, gwRef, route))
}

// subsetLabels is the labels line of subset "p" for a path.subset-labels value ("" for none).
func subsetLabels(v string) string {
	switch v {
	case "pod":
		return "\n    labels: {istio: egress-dedicated}"
	case "no-pod":
		return "\n    labels: {version: v9}"
	case "other-value":
		return "\n    labels: {app: egress-gateway-v2}"
	}
	return ""
}

// upstreamResolution is the resolution (and addresses or endpoints) of egress/path-ext for a
// path.upstream value.
func upstreamResolution(v string) string {
	switch v {
	case "none":
		return "  resolution: NONE"
	case "none-addresses":
		return "  addresses: [\"240.240.60.1\"]\n  resolution: NONE"
	case "static":
		return "  resolution: STATIC\n  endpoints:\n  - address: 10.20.0.60"
	case "static-no-endpoints":
		return "  resolution: STATIC"
	case "static-wle-other-ns", "static-wle-same-ns":
		return "  resolution: STATIC\n  workloadSelector:\n    labels: {app: path-vm}"
	}
	return "  resolution: DNS"
}

// pathObjects adds the objects of the path dimensions (nothing with path.service none).
func pathObjects(b *builder, d map[string]string) {
	svcVariant, tlsVariant := d[dimPService], d[dimPTLS]
	if svcVariant == "none" || svcVariant == "" {
		return
	}
	const podSel = "{app: egress-gateway, istio: egress-dedicated}"
	revVariant := d[dimPRev]
	if revVariant != "none" && revVariant != "" {
		pathRevision(b, d, revVariant, podSel)
	}
	b.add(fmt.Sprintf(`apiVersion: v1
kind: Namespace
metadata:
  name: team-p
  labels: {istio-injection: enabled}
  creationTimestamp: %s`, b.ts()))
	b.add(fmt.Sprintf(`apiVersion: networking.istio.io/v1
kind: ServiceEntry
metadata:
  name: path-ext
  namespace: egress
  creationTimestamp: %s
spec:
  hosts: [%s]
  exportTo: ["*"]
  location: MESH_EXTERNAL
  ports:
  - {number: 80, name: http, protocol: HTTP%s}
  - {number: 443, name: tls, protocol: TLS}
%s`, b.ts(), pathHost, target443(d[dimPOrig]), upstreamResolution(d[dimPUpRes])))
	if uv := d[dimPUpRes]; strings.HasPrefix(uv, "dup-") {
		ts, exportTo := b.ts(), `["*"]`
		switch uv {
		case "dup-older-no-endpoints":
			ts = `"2023-01-01T00:00:00Z"`
		case "dup-named-no-endpoints":
			exportTo = `[egress, other]`
		}
		b.add(fmt.Sprintf(`apiVersion: networking.istio.io/v1
kind: ServiceEntry
metadata:
  name: path-dup
  namespace: other
  creationTimestamp: %s
spec:
  hosts: [%s]
  exportTo: %s
  location: MESH_EXTERNAL
  ports:
  - {number: 80, name: http, protocol: HTTP}
  - {number: 443, name: tls, protocol: TLS}
  resolution: STATIC`, ts, pathHost, exportTo))
	}
	if uv := d[dimPUpRes]; uv == "static-wle-other-ns" || uv == "static-wle-same-ns" {
		weNs := "team-p"
		if uv == "static-wle-same-ns" {
			weNs = "egress"
		}
		b.add(fmt.Sprintf(`apiVersion: networking.istio.io/v1
kind: WorkloadEntry
metadata:
  name: path-vm
  namespace: %s
  creationTimestamp: %s
spec:
  address: 10.20.0.61
  labels: {app: path-vm}`, weNs, b.ts()))
	}
	ips := map[string]string{"egress-path": "10.96.0.30", "egress-path-alt": "10.96.0.31"}
	if svcVariant == "headless" {
		ips["egress-path"] = "None"
	}
	svcSel := podSel
	service := func(name, ts, labels string, http, tls uint32) {
		if labels != "" {
			labels = "\n  labels: " + labels
		}
		b.add(fmt.Sprintf(`apiVersion: v1
kind: Service
metadata:
  name: %s
  namespace: egress%s
  creationTimestamp: %s
spec:
  type: ClusterIP
  clusterIP: %s
  selector: %s
  ports:
  - {name: http-path, port: 8090, targetPort: %d, protocol: TCP}
  - {name: tls-path, port: 8453, targetPort: %d, protocol: TCP}`, name, labels, ts, ips[name], svcSel, http, tls))
	}
	const older = `"2023-01-01T00:00:00Z"`
	target := "egress-path"
	switch svcVariant {
	case "own", "undeclared-port", "container-port", "other-port", "headless", "alias", "alias-short", "alias-no-port", "alias-svc", "alias-other-port":
		service("egress-path", b.ts(), "", 18090, 18453)
	case "spans":
		spansWorkload(b)
		svcSel = "{app: egress-gateway}"
		service("egress-path", b.ts(), "", 18090, 18453)
	case "older-alt", "client-to-alt":
		service("egress-path-alt", older, "", 28090, 28453)
		service("egress-path", b.ts(), "", 18090, 18453)
		if svcVariant == "client-to-alt" {
			target = "egress-path-alt"
		}
	case "newer-alt":
		service("egress-path", b.ts(), "", 18090, 18453)
		service("egress-path-alt", b.ts(), "", 28090, 28453)
	case "translation-off":
		service("egress-path", older, `{experimental.istio.io/disable-gateway-port-translation: "true"}`, 18090, 18453)
		service("egress-path-alt", b.ts(), "", 28090, 28453)
	}
	svcHost := target + ".egress.svc.cluster.local"

	passthrough := strings.HasPrefix(tlsVariant, "tls-") || strings.HasPrefix(tlsVariant, "passthrough")
	svcPort := uint32(8090)
	mutualServer := tlsVariant == "http-istio-mutual" || tlsVariant == "http-no-origination" || strings.HasPrefix(tlsVariant, "mutual-")
	if mutualServer || passthrough {
		svcPort = 8453
	}
	switch svcVariant {
	case "undeclared-port":
		svcPort = 8091
	case "container-port":
		svcPort += 10000 // the target port of 8090 / 8453
	case "other-port":
		svcPort = 8090 + 8453 - svcPort
	}
	drTLS, drTop := "", ""
	switch tlsVariant {
	case "http-istio-mutual", "http-tls-to-plain", "tls-mutual-tcp-forward":
		drTLS = "\n    trafficPolicy:\n      tls: {mode: ISTIO_MUTUAL, sni: " + pathHost + "}"
	case "mutual-port-level-no-tls":
		drTLS = "\n    trafficPolicy:\n      tls: {mode: ISTIO_MUTUAL, sni: " + pathHost + "}\n      portLevelSettings:\n      - port: {number: 8453}\n        loadBalancer: {simple: ROUND_ROBIN}"
	case "http-into-tcp-h2":
		drTLS = "\n    trafficPolicy:\n      connectionPool: {http: {h2UpgradePolicy: UPGRADE}}"
	case "mutual-top-level-subset-lb":
		drTop = "  trafficPolicy:\n    tls: {mode: ISTIO_MUTUAL, sni: " + pathHost + "}\n"
		drTLS = "\n    trafficPolicy:\n      loadBalancer: {simple: ROUND_ROBIN}"
	case "mutual-top-port-level-no-tls":
		drTop = "  trafficPolicy:\n    tls: {mode: ISTIO_MUTUAL, sni: " + pathHost + "}\n    portLevelSettings:\n    - port: {number: 8453}\n      loadBalancer: {simple: ROUND_ROBIN}\n"
	case "mutual-top-subset-port-level-no-tls":
		drTop = "  trafficPolicy:\n    tls: {mode: ISTIO_MUTUAL, sni: " + pathHost + "}\n"
		drTLS = "\n    trafficPolicy:\n      portLevelSettings:\n      - port: {number: 8453}\n        loadBalancer: {simple: ROUND_ROBIN}"
	}
	hiddenRule := tlsVariant == "http-istio-mutual" && strings.HasPrefix(d[dimPTLSRule], "hidden")
	switch {
	case hiddenRule && d[dimPTLSRule] == "hidden":
		drTop, drTLS = "  exportTo: [\".\"]\n  trafficPolicy:\n    tls: {mode: ISTIO_MUTUAL, sni: "+pathHost+"}\n", ""
	case hiddenRule:
		drTop, drTLS = "  exportTo: [other]\n  trafficPolicy:\n    portLevelSettings:\n    - port: {number: 8453}\n      tls: {mode: ISTIO_MUTUAL, sni: "+pathHost+"}\n", ""
	}
	drNs := "team-p"
	if hiddenRule {
		drNs = "egress"
	}
	b.add(fmt.Sprintf(`apiVersion: networking.istio.io/v1
kind: DestinationRule
metadata:
  name: path-egress
  namespace: %s
  creationTimestamp: %s
spec:
  host: %s
%s  subsets:
  - name: p%s%s`, drNs, b.ts(), svcHost, drTop, subsetLabels(d[dimPSubset]), drTLS))

	origVariant := d[dimPOrig]
	upPort, upSubset := uint32(80), ""
	switch origVariant {
	case "simple-443", "client-ns-only", "port-level-no-tls", "subset-tls", "disable-443":
		upPort = 443
	}
	if origVariant == "subset-tls" {
		upSubset = ", subset: up"
	}
	var server, gwRoute, meshRoute string
	switch {
	case passthrough:
		hosts := pathHost
		if tlsVariant == "passthrough-other-sni" {
			hosts = "other.example.com"
		}
		server = fmt.Sprintf("  - port: {number: 8453, name: tls-path, protocol: TLS}\n    hosts: [%s]\n    tls: {mode: PASSTHROUGH}", hosts)
		gwRoute = fmt.Sprintf("  tls:\n  - match:\n    - port: 8453\n      sniHosts: [%s]\n    route:\n    - destination: {host: %s, port: {number: 443}%s}", pathHost, pathHost, upSubset)
		if tlsVariant == "tls-mutual-tcp-forward" {
			server = strings.Replace(server, "PASSTHROUGH", "ISTIO_MUTUAL", 1)
			gwRoute = fmt.Sprintf("  tcp:\n  - match:\n    - port: 8453\n    route:\n    - destination: {host: %s, port: {number: 443}%s}", pathHost, upSubset)
		}
		meshRoute = fmt.Sprintf("  tls:\n  - match:\n    - port: 443\n      sniHosts: [%s]\n    route:\n    - destination: {host: %s, subset: p, port: {number: %d}}", pathHost, svcHost, svcPort)
		sniObjects(b, d[dimPSNI], &gwRoute, &meshRoute, upSubset)
	case tlsVariant == "http-into-tcp" || tlsVariant == "http-into-tcp-h2":
		server = fmt.Sprintf("  - port: {number: 8090, name: tcp-path, protocol: TCP}\n    hosts: [%s]", pathHost)
		gwRoute = fmt.Sprintf("  tcp:\n  - route:\n    - destination: {host: %s, port: {number: %d}%s}", pathHost, upPort, upSubset)
		meshRoute = fmt.Sprintf("  http:\n  - match:\n    - port: 80\n    route:\n    - destination: {host: %s, subset: p, port: {number: %d}}", svcHost, svcPort)
	default:
		if mutualServer {
			server = fmt.Sprintf("  - port: {number: 8453, name: https-path, protocol: HTTPS}\n    hosts: [%s]\n    tls: {mode: ISTIO_MUTUAL}", pathHost)
		} else {
			server = fmt.Sprintf("  - port: {number: 8090, name: http-path, protocol: HTTP}\n    hosts: [%s]", pathHost)
		}
		gwRoute = fmt.Sprintf("  http:\n  - route:\n    - destination: {host: %s, port: {number: %d}%s}", pathHost, upPort, upSubset)
		if mv := d[dimPMirror]; mv != "none" && mv != "" {
			gwRoute += "\n    mirror: {host: " + mirrorHost + ", port: {number: 80}}"
			if mv == "zero-percent" {
				gwRoute += "\n    mirrorPercentage: {value: 0}"
			}
		}
		meshRoute = fmt.Sprintf("  http:\n  - match:\n    - port: 80\n    route:\n    - destination: {host: %s, subset: p, port: {number: %d}}", svcHost, svcPort)
		if hiddenRule {
			// the subset is the hidden rule's too: no subset
			meshRoute = strings.Replace(meshRoute, "subset: p, ", "", 1)
		}
	}
	switch sp := d[dimPSrvPort]; {
	case sp == "container-port" || sp == "container-port-matched":
		server = strings.Replace(server, "{number: 8090,", "{number: 18090,", 1)
		server = strings.Replace(server, "{number: 8453,", "{number: 18453,", 1)
		if sp == "container-port-matched" {
			for _, kind := range []string{"http", "tcp"} {
				port := 8090
				if strings.Contains(server, "{number: 18453,") {
					port = 8453
				}
				gwRoute = strings.Replace(gwRoute, "  "+kind+":\n  - route:", fmt.Sprintf("  %s:\n  - match:\n    - port: %d\n    route:", kind, port), 1)
			}
		}
	case sp == "plain-on-tls-port" && !passthrough && !mutualServer && !strings.HasPrefix(tlsVariant, "http-into-tcp"):
		server = strings.Replace(server, "{number: 8090,", "{number: 8453,", 1)
	}
	if av := d[dimPAlias]; av == "alias" || av == "alias-dot" {
		target := pathHost
		if av == "alias-dot" {
			target += "."
		}
		b.add(fmt.Sprintf(`apiVersion: v1
kind: Service
metadata:
  name: path-alias
  namespace: egress
  creationTimestamp: %s
spec:
  type: ExternalName
  externalName: %s
  ports:
  - {name: http, port: 80}
  - {name: tls, port: 443}`, b.ts(), target))
		gwRoute = strings.Replace(gwRoute, "destination: {host: "+pathHost+",", "destination: {host: path-alias.egress.svc.cluster.local,", 1)
	}
	if sv := d[dimPSplit]; sv != "none" && sv != "" {
		// the second destination right after the first one (before a mirror)
		i := strings.Index(gwRoute, "    - destination: {")
		j := i + strings.Index(gwRoute[i:], "}") + 1
		if strings.Contains(gwRoute[i:j], "port: {") {
			j += strings.Index(gwRoute[j:], "}") + 1
		}
		port := 80
		if passthrough {
			port = 443
		}
		w1, w2 := 70, 30
		if sv == "zero-no-entry" {
			w1, w2 = 100, 0
		}
		gwRoute = gwRoute[:j] + fmt.Sprintf("\n      weight: %d\n    - destination: {host: %s, port: {number: %d}}\n      weight: %d", w1, splitHost, port, w2) + gwRoute[j:]
		splitEntry(b, sv)
	}
	if !passthrough {
		// path.fault: the fault goes first in the http route ("  - " + its fields)
		fault := func(route, abort string) string {
			return strings.Replace(route, "  http:\n  - ", "  http:\n  - fault:\n      abort: "+abort+"\n    ", 1)
		}
		rewrite := func(route, field string) string {
			return strings.Replace(route, "  http:\n  - ", "  http:\n  - "+field+"\n    ", 1)
		}
		switch d[dimPAuth] {
		case "same":
			meshRoute = rewrite(meshRoute, "rewrite: {authority: "+pathHost+"}")
		case "unrouted":
			meshRoute = rewrite(meshRoute, "rewrite: {authority: elsewhere.example.org}")
		case "header-unrouted":
			meshRoute = rewrite(meshRoute, "headers: {request: {set: {host: elsewhere.example.org}}}")
		case "with-port":
			meshRoute = rewrite(meshRoute, "rewrite: {authority: \""+pathHost+":80\"}")
		}
		switch d[dimPFault] {
		case "mesh-all":
			meshRoute = fault(meshRoute, "{httpStatus: 503, percentage: {value: 100}}")
		case "mesh-half":
			meshRoute = fault(meshRoute, "{httpStatus: 503, percentage: {value: 50}}")
		case "gateway-all":
			gwRoute = fault(gwRoute, "{grpcStatus: UNAVAILABLE, percentage: {value: 100}}")
		case "gateway-no-percentage":
			gwRoute = fault(gwRoute, "{httpStatus: 429}")
		}
	}
	if dv := d[dimPDeleg]; dv != "none" && dv != "" && strings.HasPrefix(gwRoute, "  http:") {
		hosts, exportTo := "", ""
		switch dv {
		case "not-exported":
			exportTo = "\n  exportTo: [\".\"]"
		case "with-hosts":
			hosts, exportTo = "\n  hosts: ["+pathHost+"]", "\n  exportTo: [egress]"
		}
		b.add(fmt.Sprintf(`apiVersion: networking.istio.io/v1
kind: VirtualService
metadata:
  name: path-delegate
  namespace: other
  creationTimestamp: %s
spec:%s%s
%s`, b.ts(), hosts, exportTo, gwRoute))
		gwRoute = "  http:\n  - delegate: {name: path-delegate, namespace: other}"
	}
	originationRule(b, origVariant)
	mirrorEntry(b, d[dimPMirror])
	cfgLabels := ""
	if revVariant == "config-canary" || revVariant == "both-canary" {
		cfgLabels = "\n  labels: {istio.io/rev: canary}"
	}
	if hv := d[dimPHeld]; hv == "older-http" || hv == "older-tcp" || hv == "older-passthrough" || hv == "older-same-host" {
		port, tls, hosts := "{number: 8453, name: http-held, protocol: HTTP}", "", "held.example.net"
		// heldRoute: the entry held.example.net and the older VirtualService held whose tls
		// route (port, SNI sni) sends the connections to it (a TLS server's chain needs a tls
		// route, and the route an entry)
		heldRoute := func(port int, sni string) {
			b.add(`apiVersion: networking.istio.io/v1
kind: ServiceEntry
metadata:
  name: held
  namespace: egress
  creationTimestamp: "2000-01-01T00:00:00Z"
spec:
  hosts: [held.example.net]
  location: MESH_EXTERNAL
  ports:
  - {number: 443, name: tls, protocol: TLS}
  resolution: DNS`)
			b.add(fmt.Sprintf(`apiVersion: networking.istio.io/v1
kind: VirtualService
metadata:
  name: held
  namespace: egress
  creationTimestamp: "2000-01-01T00:00:00Z"
spec:
  hosts: [%s]
  gateways: [held]
  tls:
  - match:
    - port: %d
      sniHosts: [%s]
    route:
    - destination: {host: held.example.net, port: {number: 443}}`, sni, port, sni))
		}
		switch hv {
		case "older-same-host":
			port, tls, hosts = "{number: 8453, name: tls-held, protocol: TLS}", "\n    tls: {mode: PASSTHROUGH}", pathHost
			heldRoute(8453, pathHost)
		case "older-tcp":
			port = "{number: 8453, name: tcp-held, protocol: TCP}"
		case "older-passthrough":
			port, tls = "{number: 8090, name: tls-held, protocol: TLS}", "\n    tls: {mode: PASSTHROUGH}"
			heldRoute(8090, "held.example.net")
		}
		b.add(fmt.Sprintf(`apiVersion: networking.istio.io/v1
kind: Gateway
metadata:
  name: held
  namespace: egress
  creationTimestamp: "2000-01-01T00:00:00Z"
spec:
  selector: {istio: egress-dedicated}
  servers:
  - port: %s
    hosts: [%s]%s`, port, hosts, tls))
	}
	gwNs, gwSel, gwRef := "egress", "{istio: egress-dedicated}", "path-gw"
	switch d[dimPSel] {
	case "no-pod":
		gwSel = "{istio: egress-nowhere}"
	case "other-ns":
		gwNs, gwRef = "istio-system", "istio-system/path-gw"
	case "empty":
		gwSel = "{}"
	}
	vsHosts := pathHost
	if o := d[dimPOrder]; strings.HasPrefix(o, "wildcard-") && !passthrough && !strings.HasPrefix(tlsVariant, "http-into-tcp") {
		// path.route-order wildcard-*: path-through-gw for the wildcard, and for split and
		// exact-root the server too
		vsHosts = `"*.example.com"`
		if o != "wildcard-joined" {
			server = strings.Replace(server, "hosts: ["+pathHost+"]", `hosts: ["*.example.com"]`, 1)
		}
	}
	b.add(fmt.Sprintf(`apiVersion: networking.istio.io/v1
kind: Gateway
metadata:
  name: path-gw
  namespace: %s%s
  creationTimestamp: %s
spec:
  selector: %s
  servers:
%s`, gwNs, cfgLabels, b.ts(), gwSel, server))
	b.add(fmt.Sprintf(`apiVersion: networking.istio.io/v1
kind: VirtualService
metadata:
  name: path-through-gw
  namespace: egress%s
  creationTimestamp: %s
spec:
  hosts: [%s]
  gateways: [%s]
%s`, cfgLabels, b.ts(), vsHosts, gwRef, gwRoute))
	if !passthrough && !strings.HasPrefix(tlsVariant, "http-into-tcp") {
		// http routes order only on an HTTP server (a TCP one takes any connection, whatever
		// host it is for)
		routeOrderObjects(b, d[dimPOrder], gwRef, cfgLabels)
	}
	if ah := pathAlias(b, svcVariant); ah != "" {
		meshRoute = strings.ReplaceAll(meshRoute, "host: "+svcHost+",", "host: "+ah+",")
	}
	direct := fmt.Sprintf("  http:\n  - route:\n    - destination: {host: %s, port: {number: 80}}", pathHost)
	if passthrough {
		direct = fmt.Sprintf("  tls:\n  - match:\n    - port: 443\n      sniHosts: [%s]\n    route:\n    - destination: {host: %s, port: {number: 443}}", pathHost, pathHost)
	}
	directVS := func(ts string) {
		b.add(fmt.Sprintf(`apiVersion: networking.istio.io/v1
kind: VirtualService
metadata:
  name: path-direct
  namespace: team-p
  creationTimestamp: %s
spec:
  hosts: [%s]
  gateways: [mesh]
%s`, ts, pathHost, direct))
	}
	switch d[dimPMeshOrd] {
	case "catchall-first":
		if strings.HasPrefix(meshRoute, "  http:\n") {
			meshRoute = strings.Replace(meshRoute, "  http:\n", direct+"\n", 1)
		}
	case "older-vs":
		directVS(`"2023-06-01T00:00:00Z"`)
	}
	b.add(fmt.Sprintf(`apiVersion: networking.istio.io/v1
kind: VirtualService
metadata:
  name: path-via-gw
  namespace: team-p
  creationTimestamp: %s
spec:
  hosts: [%s]
  gateways: [mesh]
%s`, b.ts(), pathHost, meshRoute))
	if d[dimPMeshOrd] == "newer-vs" {
		directVS(b.ts())
	}
	pathSidecar(b, d[dimPSidecar], passthrough, svcPort)
}

// spansWorkload adds a second gateway workload in egress, egress-gateway-b (Deployment and
// Pod 10.10.0.21, labels {app: egress-gateway, istio: egress-b}), for path.service spans.
func spansWorkload(b *builder) {
	const labels = "{app: egress-gateway, istio: egress-b}"
	b.add(fmt.Sprintf(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: egress-gateway-b
  namespace: egress
  labels: %[1]s
  creationTimestamp: %[2]s
spec:
  selector:
    matchLabels: %[1]s
  template:
    metadata:
      labels: %[1]s
    spec:
      containers:
      - name: istio-proxy
        image: auto`, labels, b.ts()))
	b.add(fmt.Sprintf(`apiVersion: v1
kind: Pod
metadata:
  name: egress-gateway-b-0
  namespace: egress
  labels: %[1]s
  creationTimestamp: %[2]s
spec:
  containers:
  - name: istio-proxy
    image: auto
status:
  phase: Running
  podIP: 10.10.0.21
  podIPs: [{ip: 10.10.0.21}]
  conditions:
  - type: Ready
    status: "True"`, labels, b.ts()))
}

// pathAlias adds the ExternalName Service team-p/egress-alias of a path.service alias value
// and returns its host name ("" for other values).
func pathAlias(b *builder, v string) string {
	target, ports := "egress-path.egress.svc.cluster.local", "\n  ports:\n  - {name: http-path, port: 8090}\n  - {name: tls-path, port: 8453}"
	switch v {
	case "alias":
	case "alias-short":
		target = "egress-path.egress"
	case "alias-no-port":
		ports = ""
	case "alias-svc":
		target = "egress-path.egress.svc"
	case "alias-other-port":
		ports = "\n  ports:\n  - {name: https-other, port: 9443}"
	default:
		return ""
	}
	b.add(fmt.Sprintf(`apiVersion: v1
kind: Service
metadata:
  name: egress-alias
  namespace: team-p
  creationTimestamp: %s
spec:
  type: ExternalName
  externalName: %s%s`, b.ts(), target, ports))
	return "egress-alias.team-p.svc.cluster.local"
}

// pathSidecar adds the Sidecar of a path.sidecar value in team-p; svcPort is the gateway
// Service's port the client's mesh route names.
func pathSidecar(b *builder, v string, passthrough bool, svcPort uint32) {
	callPort := "{number: 80, name: http, protocol: HTTP}"
	if passthrough {
		callPort = "{number: 443, name: tls, protocol: TLS}"
	}
	var egress string
	switch v {
	case "catch-all":
		egress = "  - hosts: [\"*/*\"]"
	case "ported-call":
		egress = "  - port: " + callPort + "\n    hosts: [\"*/*\"]"
	case "ported-both":
		proto := "HTTP"
		if svcPort == 8453 || svcPort == 18453 {
			proto = "TLS"
		}
		egress = "  - port: " + callPort + "\n    hosts: [\"*/*\"]\n" +
			fmt.Sprintf("  - port: {number: %d, name: %s-gw, protocol: %s}\n    hosts: [\"egress/*\"]", svcPort, strings.ToLower(proto), proto)
	case "ported-no-egress-ns":
		egress = "  - port: " + callPort + "\n    hosts: [\"./*\", \"istio-system/*\"]"
	case "excluded-gateway":
		egress = "  - hosts: [\"*/*\", \"~egress/egress-path.egress.svc.cluster.local\"]"
	case "excluded-gateway-other-ns":
		egress = "  - hosts: [\"*/*\", \"~other/egress-path.egress.svc.cluster.local\"]"
	case "excluded-host":
		egress = "  - hosts: [\"*/*\", \"~/" + pathHost + "\"]"
	default:
		return
	}
	b.add(fmt.Sprintf(`apiVersion: networking.istio.io/v1
kind: Sidecar
metadata:
  name: default
  namespace: team-p
  creationTimestamp: %s
spec:
  egress:
%s`, b.ts(), egress))
}

// originationRule adds the DestinationRule of a path.origination value.
func originationRule(b *builder, v string) {
	ns, spec := "egress", ""
	switch v {
	case "none", "", "target-443-none":
		return
	case "target-443-port-80":
		spec = "  trafficPolicy:\n    portLevelSettings:\n    - port: {number: 80}\n      tls: {mode: SIMPLE, sni: " + pathHost + "}"
	case "target-443-written-443":
		// written for the targetPort, which is also the entry's TLS port: port 80 keeps no tls
		spec = "  trafficPolicy:\n    portLevelSettings:\n    - port: {number: 443}\n      tls: {mode: SIMPLE, sni: " + pathHost + "}"
	case "simple-443", "client-ns-only":
		spec = "  trafficPolicy:\n    portLevelSettings:\n    - port: {number: 443}\n      tls: {mode: SIMPLE, sni: " + pathHost + "}"
		if v == "client-ns-only" {
			ns, spec = "team-p", "  exportTo: [\".\"]\n"+spec
		}
	case "simple-all-ports":
		spec = "  trafficPolicy:\n    tls: {mode: SIMPLE, sni: " + pathHost + "}"
	case "disable-443":
		// tls DISABLE set on purpose for the port the gateway's route goes to (TLS): a plaintext
		// call leaves the gateway in plaintext all the same
		spec = "  trafficPolicy:\n    portLevelSettings:\n    - port: {number: 443}\n      tls: {mode: DISABLE}"
	case "port-level-no-tls":
		spec = "  trafficPolicy:\n    tls: {mode: SIMPLE, sni: " + pathHost + "}\n    portLevelSettings:\n    - port: {number: 443}\n      connectionPool: {tcp: {maxConnections: 100}}"
	case "subset-tls":
		spec = "  subsets:\n  - name: up\n    trafficPolicy:\n      tls: {mode: SIMPLE, sni: " + pathHost + "}"
	}
	b.add(fmt.Sprintf(`apiVersion: networking.istio.io/v1
kind: DestinationRule
metadata:
  name: path-origination
  namespace: %s
  creationTimestamp: %s
spec:
  host: %s
%s`, ns, b.ts(), pathHost, spec))
}

// target443: the targetPort of the path entry's port 80 for path.origination target-443-*
// (Istio's TLS origination task: plain HTTP port 80 sent to the server's TLS port 443).
func target443(v string) string {
	if strings.HasPrefix(v, "target-443-") {
		return ", targetPort: 443"
	}
	return ""
}

// mirrorEntry adds the entry for the mirror host of a path.mirror value.
func mirrorEntry(b *builder, v string) {
	exportTo := `["*"]`
	switch v {
	case "none", "no-entry", "":
		return
	case "not-exported":
		exportTo = `["."]`
	}
	b.add(fmt.Sprintf(`apiVersion: networking.istio.io/v1
kind: ServiceEntry
metadata:
  name: path-mirror
  namespace: other
  creationTimestamp: %s
spec:
  hosts: [%s]
  exportTo: %s
  location: MESH_EXTERNAL
  ports:
  - {number: 80, name: http, protocol: HTTP}
  resolution: DNS`, b.ts(), mirrorHost, exportTo))
}

// splitEntry adds the entry for the second destination of a path.split value.
func splitEntry(b *builder, v string) {
	exportTo := `["*"]`
	switch v {
	case "no-entry", "zero-no-entry":
		return
	case "not-exported":
		exportTo = `["."]`
	}
	b.add(fmt.Sprintf(`apiVersion: networking.istio.io/v1
kind: ServiceEntry
metadata:
  name: path-split
  namespace: other
  creationTimestamp: %s
spec:
  hosts: [%s]
  exportTo: %s
  location: MESH_EXTERNAL
  ports:
  - {number: 80, name: http, protocol: HTTP}
  - {number: 443, name: tls, protocol: TLS}
  resolution: DNS`, b.ts(), splitHost, exportTo))
}

// pathRevision sets up a path.revision value: a canary istiod (with the default one's flags)
// when the revision column added none, and for gw-canary / both-canary the egress-namespace
// gateway workload (Deployment, Pod, Service) labelled istio.io/rev=canary.
func pathRevision(b *builder, d map[string]string, v, podSel string) {
	if d[dimRevision] == "none" {
		addCanaryIstiod(b, d[dimFlag] == "on", d[dimScope] == "on")
	}
	if v == "gw-canary" || v == "both-canary" {
		canary := strings.TrimSuffix(podSel, "}") + ", istio.io/rev: canary}"
		for i, doc := range b.docs {
			if strings.Contains(doc, "namespace: egress\n") && !strings.Contains(doc, "istio.io/rev: canary") &&
				(strings.Contains(doc, "kind: Deployment") || strings.Contains(doc, "kind: Pod") || strings.Contains(doc, "kind: Service\n")) {
				b.docs[i] = strings.ReplaceAll(doc, podSel, canary)
			}
		}
	}
}
