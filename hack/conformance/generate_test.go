package conformance

import (
	"fmt"
	"hash/fnv"
	"math/rand"
	"strconv"
	"strings"
)

// The generated matrix. Every scenario has the same skeleton:
//
//   - namespaces app (where the ServiceEntry lives unless seNs says otherwise), other, egress,
//     istio-system;
//   - istiod (Deployment istio-system/istiod) with PILOT_FILTER_GATEWAY_CLUSTER_CONFIG and
//     PILOT_SCOPE_GATEWAY_TO_NAMESPACE set from the scenario, and the mesh ConfigMap when a mesh
//     default is part of the scenario;
//   - two gateway workloads, each a Deployment + Pod (with IP) + Service (80→8080, 443→8443,
//     9000→9000) + EndpointSlice: istio-system/istio-egressgateway (istio=egressgateway) and
//     egress/egress-gateway (istio=egress-dedicated). The Gateway of the scenario lives in the
//     "gateway namespace" dimension and selects that namespace's workload (or, with selector {},
//     every gateway pod); both workloads are compared (proxy "gateway-ns" and "other-ns");
//   - one ServiceEntry for api.example.com and, in some scenarios, an unrelated noise entry;
//   - a Gateway, VirtualService(s) and DestinationRule(s) built from the dimensions below;
//   - with the clients dimension, client namespaces team-a and team-b (istio-injection:
//     enabled) with a mesh route to a subset of the egress gateway Service (export-audit
//     sidecar checks, audit_sidecar_test.go);
//   - with the listener.* dimensions, a Sidecar in team-a, entries (and a Service) competing for
//     a port, and a mesh-bound VirtualService with tls/tcp/http routes (listener calls,
//     listener_test.go), added after everything else.
//
// Dimensions (every value appears ⌈N/len⌉ or ⌊N/len⌋ times: each dimension is an independently
// shuffled, evenly filled column).

// Dimension names, in table order.
const (
	dimFlag       = "flag"
	dimScope      = "scope"
	dimExportTo   = "se.exportTo"
	dimSENs       = "se.namespace"
	dimGwNs       = "gateway.namespace"
	dimBinding    = "binding"
	dimSubsets    = "subsets"
	dimProtocol   = "protocol"
	dimResolution = "resolution"
	dimExtraPort  = "extraPort"
	dimNoise      = "noiseEntry"
	dimMeshVSDR   = "mesh.vs/dr.exportTo"
	dimSelector   = "gateway.selector"
	dimExtras     = "extras"
	dimDuplicate  = "duplicateEntry"
	dimRevision   = "revision"
	dimVisibility = "mesh.seVisibility"
	dimClients    = "clients"
	dimVisPolicy  = "visibility.policy"
	dimVisApply   = "visibility.applyToSidecars"
	dimLSidecar   = "listener.sidecar"
	dimLCompete   = "listener.competing"
	dimLMeshVS    = "listener.meshVS"
	dimGDynDNS    = "gap.dynamicDNS"
	dimGEqualAge  = "gap.equalAge"
	dimGVSOrder   = "gap.gatewayVSOrder"
	dimGDestPort  = "gap.gatewayDestPort"
	dimGDRMerge   = "gap.drMerge"
	dimGNoneSib   = "gap.noneSibling"
	dimGGwServers = "gap.gatewayServers"
	dimGGwAPI     = "gap.gatewayAPI"
	dimGNamedTP   = "gap.namedTargetPort"
	dimGUnpriv    = "gap.unprivilegedGateway"
	dimGLBPass    = "gap.lbPassthrough"
	dimGDupTarget = "gap.dupTargetPort"
	dimGAddr32    = "gap.singleAddressCIDR"
	dimGPodTLS    = "gap.gatewayPodTLSMode"
)

type dimension struct {
	name   string
	values []string
}

var dimensions = []dimension{
	{dimFlag, []string{"on", "off"}},
	{dimScope, []string{"off", "off", "off", "on"}}, // weighted: mostly the default
	{dimExportTo, []string{
		`["."]`, `["*"]`, `["~"]`, `[gwns]`, `[".",gwns]`, `[other]`, `[app,other]`,
		"unset/mesh-unset", `unset/mesh["."]`, `unset/mesh["*"]`, "unset/mesh[gwns]", "unset/mesh[other]",
	}},
	{dimSENs, []string{"app", "app", "app", "gwns"}},
	{dimGwNs, []string{"istio-system", "egress"}},
	{dimBinding, []string{
		"short-same-ns", "short-other-ns", "ns/name", "legacy-fqdn", "mesh-only",
		"hosts-disjoint", "server-wildcard", "server-ns-match", "server-ns-mismatch",
		"wrong-route-type", "port-mismatch", "vs-exportTo-dot", "no-vs", "delegate", "delegate-private",
	}},
	{dimSubsets, []string{"none", "defined", "defined-no-labels", "undefined", "dr-other-ns", "dr-not-exported", "dr-gw-ns", "dr-root-ns"}},
	{dimProtocol, []string{"HTTP", "HTTPS", "TLS", "TCP+addr", "TCP", "unset", "GRPC"}},
	// DNS+endpoints: one endpoint host name labelled version=v1. DNS+selector: a workloadSelector
	// (and, in half of them, a WorkloadEntry it selects, labelled version=v1).
	{dimResolution, []string{"DNS", "DNS_ROUND_ROBIN", "STATIC", "NONE", "DNS+endpoints", "DNS+selector"}},
	{dimExtraPort, []string{"no", "no", "yes"}},
	{dimNoise, []string{"no", "yes"}},
	{dimMeshVSDR, []string{"unset", "unset", "unset", `vs["."]`, `dr["."]`}},
	// own: the Gateway selects its namespace's workload; empty: selector {} (every gateway pod).
	{dimSelector, []string{"own", "own", "empty"}},
	// Services kept for gateways besides VirtualService destinations (flag on): a meshConfig
	// extension provider or an EnvoyFilter referenced-services annotation naming the host.
	{dimExtras, []string{"none", "none", "none", "none", "extAuthz", "extAuthz-ns-qualified", "extAuthz-wrong-ns",
		"envoyfilter-gw-ns", "envoyfilter-root", "envoyfilter-other-ns"}},
	// A second ServiceEntry for the same host: same namespace with another port, another
	// namespace public, another namespace exported to the gateway namespace only.
	{dimDuplicate, []string{"none", "none", "none", "same-ns-port", "other-ns-public", "other-ns-to-gw"}},
	// istiod revisions: with any value but none a second istiod (revision canary) runs. vs/se/dr-canary
	// label that resource istio.io/rev=canary (read by the canary istiod only; every gateway pod
	// is served by the default one); egress-gw-canary labels the egress-namespace gateway pod
	// istio.io/rev=canary, and the canary istiod has the opposite PILOT_FILTER_GATEWAY_CLUSTER_CONFIG.
	{dimRevision, []string{"none", "none", "none", "none", "vs-canary", "se-canary", "dr-canary", "egress-gw-canary"}},
	// meshConfig.serviceEntryVisibility (namespace app is labelled trusted=true, the others are
	// not): default NAMESPACE with and without applyToSidecars, default NONE, a PUBLIC policy
	// for trusted namespaces (matchLabels or matchExpressions), a policy without rules (matches
	// everything), a policy with namespaceSelector {} (matches everything).
	{dimVisibility, []string{"none", "none", "none", "none", "none", "default-NAMESPACE/apply", "default-NAMESPACE/no-apply",
		"default-NONE/apply", "trusted-PUBLIC/apply", "trusted-expr-PUBLIC/apply", "no-rules-NAMESPACE/apply", "empty-selector-NONE/apply"}},
	// Client namespaces team-a and team-b (istio-injection: enabled) with a mesh-bound
	// VirtualService in team-a for api.example.com routing to subset api-egress of the
	// gateway namespace's egress gateway Service (case 02's shape), and the DestinationRule(s)
	// defining it: in team-a only (exportTo *; case 02), in both client namespaces, in the
	// Service's namespace, in the root namespace, in the Service's namespace with exportTo
	// ["."], a rule in the Service's namespace defining another subset (undefined), a rule in
	// team-b without the subset shadowing the Service namespace's rule, the VirtualService
	// exported to team-a only. The column has its own seeded generator so the other columns
	// and the builder's random choices are those of the matrix without it.
	{dimClients, []string{"none", "dr-vs-ns", "dr-each-client-ns", "dr-svc-ns", "dr-root-ns", "dr-svc-ns-private",
		"undefined", "client-shadows", "vs-private"}},
	// meshConfig.serviceEntryVisibility for the scenarios whose mesh.seVisibility is none (the
	// value is "n/a" elsewhere; "off" keeps them without the block), with applyToSidecars from
	// the next column. Namespaces are labelled app {trusted: "true", tier: gold}, other {tier:
	// silver}; egress and istio-system have only kubernetes.io/metadata.name. Every scenario
	// with a serviceEntryVisibility block also gets three probe ServiceEntries (visibility_test.go).
	// Both columns have their own seeded generators.
	{dimVisPolicy, []string{"off", "off", "off", "default-PUBLIC", "default-NAMESPACE", "default-NONE", "default-unset+labels-NAMESPACE",
		"labels-NAMESPACE", "expr-In-NONE", "expr-NotIn-NAMESPACE", "expr-Exists-PUBLIC", "expr-DoesNotExist-NAMESPACE",
		"metadata-name-PUBLIC", "metadata-name-expr-NONE", "no-rules-NONE", "rule-no-matcher-NAMESPACE", "first-policy-wins"}},
	{dimVisApply, []string{"true", "true", "false"}},
	// The listener-call dimensions (listener_test.go). Each column has its own seeded generator
	// and their objects are added after everything else, so the other columns and every random
	// choice of the builder are those of the matrix without them.
	//
	// listener.sidecar: a Sidecar resource team-a/default (only with a clients value other than
	// none; "n/a" otherwise): egress hosts ["./*", "istio-system/*"]; ["./*"] only; hosts naming every
	// namespace of the scenario except the ServiceEntry's; outboundTrafficPolicy REGISTRY_ONLY
	// with hosts ["*/*"], or with ["./*", "istio-system/*"]; an egress listener on port 443
	// (protocol TLS, hosts ["*/*"]) before the catch-all ["*/*"]; an egress listener on port
	// 9000 with protocol HTTP (the gateway Services declare 9000 as TCP) before the catch-all;
	// only exact "namespace/host" imports (api.example.com in its namespace, every competing
	// and noise host in other, both gateway Services: istiod's exact-hosts fast path).
	// mesh-REGISTRY_ONLY sets meshConfig.outboundTrafficPolicy instead (every sidecar).
	// egress-proxy: outboundTrafficPolicy ALLOW_ANY with egressProxy istio-egressgateway port 80
	// and hosts ["./*", "istio-system/*"] (the catch-alls send unknown hosts to that cluster:
	// httproute.go buildCatchAllVirtualHost, listener_builder.go
	// buildOutboundCatchAllNetworkFiltersOnly); egress-proxy-dot the same with ["./*"] only (the
	// cluster is named, not built); egress-proxy-no-mode: egressProxy without a mode
	// (REGISTRY_ONLY, the enum's zero value: no egressProxy used).
	{dimLSidecar, []string{"none", "none", "dot-and-root", "dot-only", "omit-se-ns", "registry-only", "registry-only-dot", "port-443-tls", "port-9000-http", "exact-hosts", "mesh-REGISTRY_ONLY",
		"egress-proxy", "egress-proxy-dot", "egress-proxy-no-mode"}},
	// listener.competing: entries in namespace other (exportTo *) competing for one port: two
	// TCP entries without addresses on 5432 (db-a, db-b); a TCP entry without addresses on 443
	// then a TLS entry on 443 (legacy, secure); a TCP entry on 80 (docs) then an HTTP Kubernetes
	// Service app/web on 80; a MYSQL and a TCP entry on 3306 without addresses, in both creation
	// orders (mysql, stats); a TCP entry on 5432 with an address (payments, 240.240.20.1) or a
	// CIDR (ledger, 240.240.30.0/24, resolution NONE); an entry with an unset (sniffed) protocol
	// on 7000 and an address (sniff, 240.240.40.1: its own listener and "<host>:7000" route);
	// two TCP entries without addresses on 5432, the older public, the newer exported by name
	// to team-a and team-b (db-a, db-b: istiod lists services exported by name first).
	// tcp-tcp-noaddr-vs-a: the two TCP entries without addresses on 5432 and a mesh
	// VirtualService other/db-a-route for db-a only, whose tcp route (to db-a) rides the chain
	// that catches db-b's calls too: they reach db-a's cluster, a misroute.
	// tcp-tcp-noaddr-vs-ab: the same VirtualService listing both hosts (its author sends db-b's
	// calls to db-a on purpose: not a misroute).
	// tcp-noaddr-named-addr: a public TCP entry without addresses on 5432 (db-a: the catch-all
	// chain of 0.0.0.0_5432) and a TCP entry with an address on 5432 exported by name to team-a
	// only (payments, 240.240.20.1: its own listener there), so the sidecars of team-a and of
	// the other namespaces differ on that port (preflight's narrow sidecars must not reuse the
	// public layer's account of the catch-all for team-a).
	{dimLCompete, []string{"none", "none", "tcp-tcp-noaddr", "tcp-tcp-named", "tcp443-vs-tls", "tcp80-vs-http-svc", "mysql-then-tcp-3306", "tcp-then-mysql-3306", "tcp-addr", "tcp-cidr", "unset-addr",
		"tcp-tcp-noaddr-vs-a", "tcp-tcp-noaddr-vs-ab", "tcp-noaddr-named-addr"}},
	// listener.meshVS: a mesh-bound VirtualService app/api-mesh-l4 for api.example.com with a tls
	// route (sniHosts [api.example.com], destination port = the entry's first port), a tcp route
	// without match (destination without port), both, or a tcp route matching
	// destinationSubnets 240.240.10.0/24 (the TCP+addr entry's address); or an http route (to
	// api.example.com on its first port) in a VirtualService for the wildcard host
	// *.example.com, or for the unregistered host unknown.example.org (port 80 hack).
	// http-src-gateways / http-src-labels: an http route for api.example.com whose match names
	// sourceLabels {app: other} (the client pods are app=conformance-client), with and without
	// gateways [mesh] (istiod ignores sourceLabels when a match names gateways), to
	// noise.example.com:80, before a catch-all route to the entry.
	// tcp-weight-zero / http-weight-zero: a tcp route to noise.example.com:80 with weight 0 and
	// to the entry with weight 100; an http route to noise.example.com:80 with weight 0 and twice
	// to the entry (70/30): istiod leaves weight-0 destinations out of a split (route.go
	// translateRoute, networkfilter.go buildOutboundNetworkFiltersWithWeightedClusters).
	{dimLMeshVS, []string{"none", "none", "tls", "tcp", "tls+tcp", "tcp-subnet", "http-wildcard", "http-unregistered", "http-src-gateways", "http-src-labels",
		"tcp-weight-zero", "http-weight-zero"}},
	// Dimensions for the rules an independent generator found the plugin missing
	// (../shared/conformance-gaps). Like the listener ones, each has its own seeded generator and
	// its objects come last.
	//
	// gap.dynamicDNS: a public entry other/wiki for *.wiki.example.net with resolution
	// DYNAMIC_DNS and ports 80 HTTP, 443 TLS and 7070 GRPC (istiod's validation refuses other
	// protocols with DYNAMIC_DNS), and a DestinationRule with a subset for it (dynamic forward
	// proxy clusters, no subsets).
	{dimGDynDNS, []string{"none", "none", "none", "wildcard+subset"}},
	// gap.equalAge: objects with one creationTimestamp (istiod orders services of equal age by
	// name, then namespace; a ServiceEntry service's name is its host): two public TCP entries
	// without addresses on 3310 whose resource names sort opposite to their hosts, or one entry
	// with two hosts sharing the address 240.240.50.1 on TLS 4443.
	{dimGEqualAge, []string{"none", "none", "tcp-noaddr-tie", "vip-tie"}},
	// gap.gatewayVSOrder: a Gateway istio-system/order-gw (HTTP 8081, host order.example.net, on
	// the istio-system gateway pods), a public entry for the host, and two VirtualServices bound
	// to it for the host: an older public one in namespace other routing to noise.example.com,
	// and a newer one in istio-system with exportTo ["."] (or ["istio-system"], or exported to
	// istio-system from namespace other) routing to the host. istiod takes private, then
	// exported-by-name, then public VirtualServices. direct-response and redirect: the private
	// VirtualService answers itself (a directResponse; a redirect for /old before a route).
	// prefix-public and prefix-private: the older public VirtualService's route is on uri prefix
	// /v1 (to noise.example.com), and a newer one in istio-system routes /v1/upload to the host,
	// public (the /v1 route comes first and takes its requests: GATEWAY_ROUTE_SHADOWED) or
	// private (it comes first).
	{dimGVSOrder, []string{"none", "none", "private-dot", "private-named", "exported-by-name", "direct-response", "redirect", "prefix-public", "prefix-private"}},
	// gap.gatewayDestPort: a Gateway istio-system/port-gw (HTTP 8082, host dbj.example.net) and a
	// VirtualService in namespace other bound to it, routing to dbj.example.net without a port;
	// entries for the host in istio-system (exportTo ".", port 8080) and in other (port 9090),
	// the latter exported everywhere (istiod takes the port from the VirtualService's namespace)
	// or only to its own namespace (the gateway's own view).
	{dimGDestPort, []string{"none", "none", "vs-ns-entry-visible", "vs-ns-entry-hidden"}},
	// gap.drMerge: a public entry other/merge for merge.example.net (HTTP 80) and three
	// DestinationRules for it in namespace other, each defining one subset, with export sets
	// unset / [istio-system] / unset, or [istio-system] / ["*"] / [istio-system, app] (istiod
	// merges a rule into earlier ones with an equal or smaller export set, and appends it on its
	// own when the last one it met does not take it; a proxy applies the last entry).
	// The duplicate values give the second rule a subset s0 as the first has: with a tls of its
	// own (dropped: istiod's duplicate-subset metric), written the same, or under a superset
	// export set (merged into the first and appended on its own).
	{dimGDRMerge, []string{"none", "none", "unset-named-unset", "named-public-superset", "duplicate-subset", "identical-subset", "superset-duplicate"}},
	// gap.noneSibling: a public resolution-NONE entry other/nonesib for nonesib.example.net (TLS
	// 4444, no addresses, no endpoints) alone, or with a second entry for the host in the same
	// namespace, private to it: DNS without endpoints, or STATIC with the endpoint 10.40.0.9
	// (istiod looks a NONE entry's endpoints up by host and namespace: a wildcard listener, none,
	// or one per endpoint IP).
	{dimGNoneSib, []string{"none", "none", "alone", "dns-sibling", "static-sibling"}},
	// gap.lbPassthrough: a public DNS entry other/lbpass for lbpass.example.net (HTTP 8088, TCP
	// 8089) and a DestinationRule other/lbpass with a subset a, whose loadBalancer simple is
	// PASSTHROUGH at the top level, for port 8088 only, or for subset a only (applyLoadBalancer
	// makes the clusters it applies to ORIGINAL_DST).
	{dimGLBPass, []string{"none", "none", "none", "top", "port", "subset"}},
	// gap.dupTargetPort: the istio-system gateway Service gets a port 8000 sending to the same
	// targetPort as port 80 with the same protocol (http2-dup), and a Gateway istio-system/dup-gw
	// for dup.example.net (a public DNS entry, HTTP 80) with a VirtualService routing the mesh
	// hop to the gateway Service's port 8000: the server on port 8000 (`server-8000`: istiod keeps
	// only port 80 among the pods' service targets, so 8000 is not translated and listens as
	// written) or on the targetPort (`server-target`).
	{dimGDupTarget, []string{"none", "none", "none", "server-8000", "server-target"}},
	// gap.singleAddressCIDR: a public entry other/addr32 for addr32.example.net with HTTP 8090
	// and TCP 5434 whose address is written as a CIDR of one address (240.240.60.1/32), with
	// resolution STATIC (endpoint 10.40.0.60) or NONE (convertServices takes a /32 as the plain
	// address: a TCP listener 240.240.60.1_5434 and the address among the HTTP virtual host's
	// domains).
	{dimGAddr32, []string{"none", "none", "none", "static", "none-res"}},
	// gap.gatewayPodTLSMode: the istio-system gateway's pods (the Deployment's template and the
	// Pod) carry security.istio.io/tlsMode: istio, as an injected application pod does: a client
	// sidecar's cluster for the gateway Service without tls from a DestinationRule then sends
	// those pods Istio mTLS (auto mTLS: cluster_tls.go buildUpstreamTLSSettings, the
	// transport socket match of applyUpstreamTLSSettings; kube PodTLSMode).
	{dimGPodTLS, []string{"none", "none", "none", "labelled"}},
	// gap.gatewayServers: extra Gateways on the istio-system gateway pods, on ports of their own:
	// two HTTPS (SIMPLE) servers on 9443 whose hosts overlap (*/dup.example.net; the newer one
	// also serves spare.example.net), each with an http route; two TCP servers on 9306, the
	// newer one with a tcp route; one TLS server terminating TLS (SIMPLE) on 9444 for
	// term.example.net with a tcp route (istiod merges the servers of a gateway's Gateways,
	// skipping duplicate TLS hosts and a second TCP server; a terminating server matches its
	// hosts' SNIs).
	{dimGGwServers, []string{"none", "none", "dup-tls-host", "second-tcp", "tls-terminate-tcp"}},
	// gap.gatewayAPI: an egress gateway of the Kubernetes Gateway API (gatewayAPIObjects): a
	// Gateway egress/egw of class istio with its Service egw-istio and pod (what istiod would
	// deploy, written out: the fake istiod deploys nothing), an HTTP listener for
	// gwapi.example.net, a public entry for the host in namespace other and an HTTPRoute
	// forwarding it to the entry. Variants: the route in the Gateway's namespace; the Service
	// mapping the listener port to another targetPort; a listener port the Service lacks; the
	// route in another namespace while the listener allows only its own (or all namespaces);
	// a second HTTP listener on the same port for another host with a second route; a classic
	// Gateway in istio-system with an empty selector (strict merging leaves it off the
	// Gateway API pods); a mesh HTTPRoute (parent: the entry) sending the sidecars' calls to the
	// gateway's Service, in the entry's namespace (every sidecar) or in namespace app (the
	// consumer's own route: app's sidecars only), or with a port on its parentRef. TLS and TCP
	// (besides the HTTP listener and route): a TLS passthrough listener on 443 for the host with
	// a TLSRoute forwarding it by SNI and a mesh TLSRoute (parent: the entry, port 443) sending
	// the sidecars there; the gateway's TLSRoute alone; its hostname not the listener's; the
	// listener terminating Istio mTLS (the TLSRoute's tls routes then serve as tcp routes); an
	// older TLSRoute for the same hostname in another namespace (the listener allows All: the
	// Gateway's own namespace's route comes first, push_context.go VirtualServicesForGateway); a TCP
	// listener on 9443 with a TCPRoute to the host's port 443 and a mesh TCPRoute, the gateway's
	// route in the Gateway's namespace or in another one the listener does not allow; a backendRef
	// istiod refuses (kind Gateway on the mesh TLSRoute, kind ServiceEntry on the gateway's
	// TCPRoute: UnknownService). gRPC: a GRPCRoute on the HTTP listener for the same hostname
	// (merged with the HTTPRoute, its method match first) and a mesh GRPCRoute sending the
	// sidecars to the gateway, for every call or, from namespace app, for one method only.
	// Weighted: the gateway's HTTPRoute splits 3:1 with a second backend the gateway lacks (a
	// Hostname no entry declares, a missing Service), the sidecars sent there by a mesh route.
	{dimGGwAPI, []string{"none", "none", "none", "same-ns", "target-port", "missing-port", "route-other-ns-same", "route-other-ns-all", "two-listeners", "classic-empty-selector",
		"mesh-route", "mesh-route-consumer", "mesh-route-port", "tls-passthrough", "tls-gateway-only", "tls-host-mismatch", "tls-terminate", "tls-dup-sni", "tls-mesh-backend-refused", "tcp-route", "tcp-route-other-ns", "tcp-backend-refused", "grpc-route", "grpc-mesh-method",
		"weighted-missing-host", "weighted-missing-service"}},
	// Named targetPorts on the gateway workloads' Services: "named" names them (http-gw,
	// https-gw, tcp-gw) and names the Pod's container ports alike, the Deployment's pod template
	// declaring no ports (the plugin resolves the names through the pods); "named-template"
	// declares the named ports on the Deployment's template too. The Gateways' server ports then
	// translate through the names (model.resolvePorts over the service targets).
	{dimGNamedTP, []string{"none", "none", "none", "named", "named-template"}},
	// The istio-system gateway's pods declare themselves unprivileged (ISTIO_META_UNPRIVILEGED_POD,
	// as Istio's istio-egress chart does unless runAsRoot; istiod then gives them no listener
	// below 1024, gateway.go buildGatewayListeners): in the istio-proxy container's env, in the
	// pod's proxy.istio.io/config annotation, in the mesh's defaultConfig.proxyMetadata, or
	// there with the env setting it false. "low" variants map the Service's ports 80 and 443 to
	// targetPorts 80 and 443 (the listeners then fall below 1024); the others keep 8080/8443.
	{dimGUnpriv, []string{"none", "none", "none", "env", "env-low", "annotation-low", "mesh-low", "mesh-env-false-low", "env-garbage-low"}},
}

// scenario is one generated (or case-file) input.
type scenario struct {
	Name string
	// Dims holds the value of every dimension (generated scenarios only).
	Dims map[string]string
	YAML string
	// Gateways are the gateway workloads to compare ("ns/name").
	Gateways []string
	// ProxyRole maps a gateway workload to "gateway-ns" (the workload in the Gateway's namespace)
	// or "other-ns" (generated scenarios).
	ProxyRole map[string]string
	// pathsOnly: compare the paths only (a scenario with a fix applied, fixproof_test.go).
	pathsOnly bool
}

const (
	seHost    = "api.example.com"
	noiseHost = "noise.example.com"
)

type gwWorkload struct {
	ns, name, label, ip string
}

var gwWorkloads = map[string]gwWorkload{
	"istio-system": {"istio-system", "istio-egressgateway", "egressgateway", "10.10.0.10"},
	"egress":       {"egress", "egress-gateway", "egress-dedicated", "10.10.0.20"},
}

// generate returns n scenarios from seed.
func generate(seed int64, n int) []scenario {
	rng := rand.New(rand.NewSource(seed))
	cols := map[string][]string{}
	for _, d := range dimensions {
		col := make([]string, n)
		for i := range col {
			col[i] = d.values[i%len(d.values)]
		}
		r := rng
		if d.name == dimClients {
			r = rand.New(rand.NewSource(seed ^ 0x636c69656e7473)) // "clients"
		}
		if d.name == dimVisPolicy || d.name == dimVisApply {
			r = rand.New(rand.NewSource(seed ^ 0x766973 ^ int64(len(d.values)))) // "vis"
		}
		if strings.HasPrefix(d.name, "listener.") || strings.HasPrefix(d.name, "gap.") || strings.HasPrefix(d.name, "path.") || strings.HasPrefix(d.name, "dns.") {
			h := fnv.New64a()
			h.Write([]byte(d.name))
			r = rand.New(rand.NewSource(seed ^ int64(h.Sum64())))
		}
		r.Shuffle(n, func(i, j int) { col[i], col[j] = col[j], col[i] })
		cols[d.name] = col
	}
	out := make([]scenario, 0, n)
	for i := 0; i < n; i++ {
		dims := map[string]string{}
		for _, d := range dimensions {
			dims[d.name] = cols[d.name][i]
		}
		out = append(out, build(fmt.Sprintf("gen-%04d", i), dims, rng))
	}
	return out
}

// builder accumulates YAML documents; every object gets an explicit creationTimestamp in
// document order so that istiod and the plugin order objects the same way.
type builder struct {
	docs []string
	seq  int
}

func (b *builder) add(doc string) {
	b.docs = append(b.docs, strings.TrimSpace(doc))
}

// ts returns the next creationTimestamp line value.
func (b *builder) ts() string {
	b.seq++
	return fmt.Sprintf("\"2024-01-01T00:%02d:%02dZ\"", b.seq/60, b.seq%60)
}

func (b *builder) String() string { return strings.Join(b.docs, "\n---\n") + "\n" }

func q(s string) string { return fmt.Sprintf("%q", s) }

func yamlList(xs []string) string {
	qs := make([]string, len(xs))
	for i, x := range xs {
		qs[i] = q(x)
	}
	return "[" + strings.Join(qs, ", ") + "]"
}

// protoSpec describes the ServiceEntry ports and the Gateway server for a protocol value.
type protoSpec struct {
	sePorts    []sePort
	addresses  []string
	serverKind string // "http", "tls", "tcp": the route section the server needs
	serverPort uint32
	serverYAML func(hosts []string) string
}

type sePort struct {
	number   uint32
	name     string
	protocol string // "" = unset
}

func protocolSpec(p string, extraPort bool, rng *rand.Rand) protoSpec {
	httpServer := func(hosts []string) string {
		return fmt.Sprintf("  - port: {number: 80, name: http, protocol: HTTP}\n    hosts: %s", yamlList(hosts))
	}
	tlsServer := func(proto string) func(hosts []string) string {
		return func(hosts []string) string {
			return fmt.Sprintf("  - port: {number: 443, name: tls, protocol: %s}\n    hosts: %s\n    tls: {mode: PASSTHROUGH}", proto, yamlList(hosts))
		}
	}
	tcpServer := func(hosts []string) string {
		return fmt.Sprintf("  - port: {number: 9000, name: tcp, protocol: TCP}\n    hosts: %s", yamlList(hosts))
	}
	var s protoSpec
	switch p {
	case "HTTP":
		s = protoSpec{sePorts: []sePort{{80, "http", "HTTP"}}, serverKind: "http", serverPort: 80, serverYAML: httpServer}
		if extraPort {
			s.sePorts = append(s.sePorts, sePort{8080, "http-alt", "HTTP"})
		}
	case "GRPC":
		s = protoSpec{sePorts: []sePort{{8081, "grpc", "GRPC"}}, serverKind: "http", serverPort: 80, serverYAML: httpServer}
		if extraPort {
			s.sePorts = append(s.sePorts, sePort{8082, "grpc-alt", "GRPC"})
		}
	case "HTTPS":
		s = protoSpec{sePorts: []sePort{{443, "https", "HTTPS"}}, serverKind: "tls", serverPort: 443, serverYAML: tlsServer("HTTPS")}
		if extraPort {
			s.sePorts = append(s.sePorts, sePort{8443, "https-alt", "HTTPS"})
		}
	case "TLS":
		s = protoSpec{sePorts: []sePort{{443, "tls", "TLS"}}, serverKind: "tls", serverPort: 443, serverYAML: tlsServer("TLS")}
		if extraPort {
			s.sePorts = append(s.sePorts, sePort{8443, "tls-alt", "TLS"})
		}
	case "TCP", "TCP+addr":
		s = protoSpec{sePorts: []sePort{{5432, "tcp", "TCP"}}, serverKind: "tcp", serverPort: 9000, serverYAML: tcpServer}
		if extraPort {
			s.sePorts = append(s.sePorts, sePort{5433, "tcp-alt", "TCP"})
		}
		if p == "TCP+addr" {
			s.addresses = []string{"240.240.10.1"}
		}
	case "unset":
		s = protoSpec{sePorts: []sePort{{7000, "port-7000", ""}}}
		if extraPort {
			s.sePorts = append(s.sePorts, sePort{7001, "port-7001", ""})
		}
		// An unset protocol is sniffed on sidecars; on a gateway the Gateway server decides.
		if rng.Intn(2) == 0 {
			s.serverKind, s.serverPort, s.serverYAML = "http", 80, httpServer
		} else {
			s.serverKind, s.serverPort, s.serverYAML = "tcp", 9000, tcpServer
		}
	default:
		panic("unknown protocol " + p)
	}
	return s
}

func build(name string, d map[string]string, rng *rand.Rand) scenario {
	gwNs := d[dimGwNs]
	gw := gwWorkloads[gwNs]
	seNs := d[dimSENs]
	if seNs == "gwns" {
		seNs = gwNs
		if d[dimExportTo] == `[".",gwns]` {
			// [".", <own namespace>] is rejected by validation (duplicate entry).
			seNs, d[dimSENs] = "app", "app"
		}
	}
	sub := func(s string) string {
		s = strings.ReplaceAll(s, "gwns", q(gwNs))
		s = strings.ReplaceAll(s, "other", q("other"))
		s = strings.ReplaceAll(s, "app", q("app"))
		return s
	}
	b := &builder{}
	for _, ns := range []string{"app", "other", "egress", "istio-system"} {
		labels := ""
		switch ns {
		case "app":
			labels = "\n  labels: {trusted: \"true\", tier: gold}"
		case "other":
			labels = "\n  labels: {tier: silver}"
		}
		b.add(fmt.Sprintf("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: %s%s\n  creationTimestamp: %s", ns, labels, b.ts()))
	}
	// istiod with the flags.
	flag := d[dimFlag] == "on"
	scope := d[dimScope] == "on"
	b.add(fmt.Sprintf(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: istiod
  namespace: istio-system
  labels: {app: istiod, istio: pilot}
  creationTimestamp: %s
spec:
  selector:
    matchLabels: {app: istiod}
  template:
    metadata:
      labels: {app: istiod, istio: pilot}
    spec:
      containers:
      - name: discovery
        image: docker.io/istio/pilot:1.31.0
        env:
        - name: PILOT_FILTER_GATEWAY_CLUSTER_CONFIG
          value: %q
        - name: PILOT_SCOPE_GATEWAY_TO_NAMESPACE
          value: %q`, b.ts(), fmt.Sprint(flag), fmt.Sprint(scope)))

	revVariant := d[dimRevision]
	if revVariant != "none" {
		canaryFlag := flag
		if revVariant == "egress-gw-canary" {
			canaryFlag = !flag
		}
		addCanaryIstiod(b, canaryFlag, scope)
	}

	// Mesh config.
	var mesh []string
	exp := d[dimExportTo]
	if strings.HasPrefix(exp, "unset/mesh") && exp != "unset/mesh-unset" {
		mesh = append(mesh, "defaultServiceExportTo: "+sub(strings.TrimPrefix(exp, "unset/mesh")))
	}
	switch d[dimMeshVSDR] {
	case `vs["."]`:
		mesh = append(mesh, `defaultVirtualServiceExportTo: ["."]`)
	case `dr["."]`:
		mesh = append(mesh, `defaultDestinationRuleExportTo: ["."]`)
	}
	switch d[dimExtras] {
	case "extAuthz":
		mesh = append(mesh, "extensionProviders:\n    - name: authz\n      envoyExtAuthzHttp: {service: "+seHost+", port: 80}")
	case "extAuthz-ns-qualified":
		mesh = append(mesh, "extensionProviders:\n    - name: authz\n      envoyExtAuthzHttp: {service: "+seNs+"/"+seHost+", port: 80}")
	case "extAuthz-wrong-ns":
		mesh = append(mesh, "extensionProviders:\n    - name: authz\n      envoyExtAuthzHttp: {service: egress-nowhere/"+seHost+", port: 80}")
	}
	vis := func(def string, apply bool, policies ...string) string {
		out := fmt.Sprintf("serviceEntryVisibility:\n      defaultVisibility: %s\n      applyToSidecars: %t", def, apply)
		if len(policies) > 0 {
			out += "\n      policies:"
			for _, p := range policies {
				out += "\n      " + p
			}
		}
		return out
	}
	switch d[dimVisibility] {
	case "default-NAMESPACE/apply":
		mesh = append(mesh, vis("NAMESPACE", true))
	case "default-NAMESPACE/no-apply":
		mesh = append(mesh, vis("NAMESPACE", false))
	case "default-NONE/apply":
		mesh = append(mesh, vis("NONE", true))
	case "trusted-PUBLIC/apply":
		mesh = append(mesh, vis("NAMESPACE", true, "- visibility: PUBLIC\n        matchingRules:\n        - namespaceSelector: {matchLabels: {trusted: \"true\"}}"))
	case "trusted-expr-PUBLIC/apply":
		mesh = append(mesh, vis("NAMESPACE", true, "- visibility: PUBLIC\n        matchingRules:\n        - namespaceSelector: {matchExpressions: [{key: trusted, operator: In, values: [\"true\"]}]}"))
	case "no-rules-NAMESPACE/apply":
		mesh = append(mesh, vis("PUBLIC", true, "- visibility: NAMESPACE"))
	case "empty-selector-NONE/apply":
		mesh = append(mesh, vis("PUBLIC", true, "- visibility: NONE\n        matchingRules:\n        - namespaceSelector: {}"))
	}
	if d[dimVisibility] != "none" {
		d[dimVisPolicy], d[dimVisApply] = "n/a", "n/a"
	} else if d[dimVisPolicy] == "off" {
		d[dimVisApply] = "n/a"
	} else {
		mesh = append(mesh, visPolicy(d[dimVisPolicy], d[dimVisApply] == "true"))
	}
	hasVis := d[dimVisibility] != "none" || d[dimVisPolicy] != "n/a" && d[dimVisPolicy] != "off"
	if strings.HasPrefix(d[dimGUnpriv], "mesh-") {
		mesh = append(mesh, "defaultConfig:\n      proxyMetadata: {ISTIO_META_UNPRIVILEGED_POD: \"true\"}")
	}
	if d[dimLSidecar] == "mesh-REGISTRY_ONLY" {
		mesh = append(mesh, "outboundTrafficPolicy: {mode: REGISTRY_ONLY}")
	} else if d[dimLSidecar] != "none" && d[dimClients] == "none" {
		d[dimLSidecar] = "n/a" // no team-a
	}
	if len(mesh) > 0 {
		b.add(fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: istio\n  namespace: istio-system\n  creationTimestamp: %s\ndata:\n  mesh: |-\n    %s",
			b.ts(), strings.Join(mesh, "\n    ")))
	}

	// Gateway workloads.
	for _, key := range []string{"istio-system", "egress"} {
		w := gwWorkloads[key]
		labels := fmt.Sprintf("{app: %s, istio: %s}", w.name, w.label)
		if key == "egress" && revVariant == "egress-gw-canary" {
			labels = fmt.Sprintf("{app: %s, istio: %s, istio.io/rev: canary}", w.name, w.label)
		}
		// gap.namedTargetPort: the Service's targetPorts by container port name
		tpHTTP, tpHTTPS, tpTCP := "8080", "8443", "9000"
		podPorts := "\n    - containerPort: 8080\n    - containerPort: 8443\n    - containerPort: 9000"
		templatePorts := ""
		if d[dimGNamedTP] != "none" {
			tpHTTP, tpHTTPS, tpTCP = "http-gw", "https-gw", "tcp-gw"
			// protocol as the API server defaults it: istiod matches a named targetPort on the
			// container port's name and protocol (controller/util.go FindPort)
			podPorts = "\n    - {name: http-gw, containerPort: 8080, protocol: TCP}\n    - {name: https-gw, containerPort: 8443, protocol: TCP}\n    - {name: tcp-gw, containerPort: 9000, protocol: TCP}"
			if d[dimGNamedTP] == "named-template" {
				templatePorts = "\n        ports:" + strings.ReplaceAll(podPorts, "\n    ", "\n        ")
			}
		}
		// gap.unprivilegedGateway (the istio-system workload only; the other is the control)
		podMeta, proxyEnv := "", ""
		if u := d[dimGUnpriv]; key == "istio-system" && u != "none" {
			switch {
			case strings.HasPrefix(u, "env-garbage"):
				proxyEnv = "{name: ISTIO_META_UNPRIVILEGED_POD, value: \"yes\"}"
			case strings.HasPrefix(u, "env"):
				proxyEnv = "{name: ISTIO_META_UNPRIVILEGED_POD, value: \"true\"}"
			case u == "mesh-env-false-low":
				proxyEnv = "{name: ISTIO_META_UNPRIVILEGED_POD, value: \"false\"}"
			case u == "annotation-low":
				podMeta = "\n  annotations: {proxy.istio.io/config: '{\"proxyMetadata\": {\"ISTIO_META_UNPRIVILEGED_POD\": \"true\"}}'}"
			}
			if strings.HasSuffix(u, "-low") {
				tpHTTP, tpHTTPS = "80", "443"
			}
		}
		templateEnv, podEnv := "", ""
		if proxyEnv != "" {
			templateEnv = "\n        env: [" + proxyEnv + "]"
			podEnv = "\n    env: [" + proxyEnv + "]"
		}
		b.add(fmt.Sprintf(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: %[1]s
  namespace: %[2]s
  labels: %[3]s
  creationTimestamp: %[4]s
spec:
  selector:
    matchLabels: %[3]s
  template:
    metadata:
      labels: %[3]s%[6]s
    spec:
      containers:
      - name: istio-proxy
        image: auto%[5]s%[7]s`, w.name, w.ns, labels, b.ts(), templatePorts, strings.ReplaceAll(podMeta, "\n  ", "\n      "), templateEnv))
		b.add(fmt.Sprintf(`apiVersion: v1
kind: Pod
metadata:
  name: %[1]s-0
  namespace: %[2]s
  labels: %[3]s
  creationTimestamp: %[4]s%[7]s
spec:
  containers:
  - name: istio-proxy
    image: auto%[8]s
    ports:%[6]s
status:
  phase: Running
  podIP: %[5]s
  podIPs: [{ip: %[5]s}]
  conditions:
  - type: Ready
    status: "True"`, w.name, w.ns, labels, b.ts(), w.ip, podPorts, podMeta, podEnv))
		b.add(fmt.Sprintf(`apiVersion: v1
kind: Service
metadata:
  name: %[1]s
  namespace: %[2]s
  labels: %[3]s
  creationTimestamp: %[4]s
spec:
  type: ClusterIP
  clusterIP: %[5]s
  selector: %[3]s
  ports:
  - {name: http2, port: 80, targetPort: %[6]s, protocol: TCP}
  - {name: https, port: 443, targetPort: %[7]s, protocol: TCP}
  - {name: tcp, port: 9000, targetPort: %[8]s, protocol: TCP}`, w.name, w.ns, labels, b.ts(), strings.Replace(w.ip, "10.10.", "10.96.", 1), tpHTTP, tpHTTPS, tpTCP))
		b.add(fmt.Sprintf(`apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata:
  name: %[1]s-abcde
  namespace: %[2]s
  labels: {kubernetes.io/service-name: %[1]s}
  creationTimestamp: %[3]s
addressType: IPv4
endpoints:
- addresses: [%[4]s]
  conditions: {ready: true}
  targetRef: {kind: Pod, name: %[1]s-0, namespace: %[2]s}
ports:
- {name: http2, port: 8080, protocol: TCP}
- {name: https, port: 8443, protocol: TCP}
- {name: tcp, port: 9000, protocol: TCP}`, w.name, w.ns, b.ts(), w.ip))
	}

	// ServiceEntry.
	ps := protocolSpec(d[dimProtocol], d[dimExtraPort] == "yes", rng)
	res := d[dimResolution]
	var se strings.Builder
	fmt.Fprintf(&se, "apiVersion: networking.istio.io/v1\nkind: ServiceEntry\nmetadata:\n  name: api\n  namespace: %s\n  creationTimestamp: %s\nspec:\n  hosts: [%s]\n", seNs, b.ts(), seHost)
	if !strings.HasPrefix(exp, "unset") {
		fmt.Fprintf(&se, "  exportTo: %s\n", sub(exp))
	}
	if len(ps.addresses) > 0 {
		fmt.Fprintf(&se, "  addresses: %s\n", yamlList(ps.addresses))
	}
	se.WriteString("  location: MESH_EXTERNAL\n  ports:\n")
	for _, p := range ps.sePorts {
		if p.protocol == "" {
			fmt.Fprintf(&se, "  - {number: %d, name: %s}\n", p.number, p.name)
		} else {
			fmt.Fprintf(&se, "  - {number: %d, name: %s, protocol: %s}\n", p.number, p.name, p.protocol)
		}
	}
	switch res {
	case "STATIC":
		se.WriteString("  resolution: STATIC\n  endpoints:\n  - address: 10.20.0.5\n    labels: {version: v1}\n  - address: 10.20.0.6\n    labels: {version: v2}\n")
	case "DNS+endpoints":
		se.WriteString("  resolution: DNS\n  endpoints:\n  - address: api-1.backend.example.net\n    labels: {version: v1}\n")
	case "DNS+selector":
		se.WriteString("  resolution: DNS\n  workloadSelector:\n    labels: {app: api-vm}\n")
	default:
		fmt.Fprintf(&se, "  resolution: %s\n", res)
	}
	b.add(se.String())
	if res == "DNS+selector" && rng.Intn(2) == 0 {
		b.add(fmt.Sprintf(`apiVersion: networking.istio.io/v1
kind: WorkloadEntry
metadata:
  name: api-vm
  namespace: %s
  creationTimestamp: %s
spec:
  address: 10.30.0.7
  labels: {app: api-vm, version: v1}`, seNs, b.ts()))
	}

	switch dup := d[dimDuplicate]; dup {
	case "same-ns-port":
		b.add(fmt.Sprintf(`apiVersion: networking.istio.io/v1
kind: ServiceEntry
metadata:
  name: api-extra
  namespace: %s
  creationTimestamp: %s
spec:
  hosts: [%s]
  location: MESH_EXTERNAL
  ports:
  - {number: 9443, name: tls-extra, protocol: TLS}
  resolution: DNS`, seNs, b.ts(), seHost))
	case "other-ns-public", "other-ns-to-gw":
		exp := `["*"]`
		if dup == "other-ns-to-gw" {
			exp = yamlList([]string{gwNs})
		}
		b.add(fmt.Sprintf(`apiVersion: networking.istio.io/v1
kind: ServiceEntry
metadata:
  name: api-other
  namespace: other
  creationTimestamp: %s
spec:
  hosts: [%s]
  exportTo: %s
  location: MESH_EXTERNAL
  ports:
  - {number: 8000, name: http-other, protocol: HTTP}
  resolution: DNS`, b.ts(), seHost, exp))
	}

	switch ef := d[dimExtras]; ef {
	case "envoyfilter-gw-ns", "envoyfilter-root", "envoyfilter-other-ns":
		ns, sel := gwNs, fmt.Sprintf("  workloadSelector:\n    labels: {istio: %s}\n", gw.label)
		if ef == "envoyfilter-root" {
			ns, sel = "istio-system", ""
		} else if ef == "envoyfilter-other-ns" {
			ns, sel = "other", ""
		}
		b.add(fmt.Sprintf(`apiVersion: networking.istio.io/v1alpha3
kind: EnvoyFilter
metadata:
  name: ref-api
  namespace: %s
  creationTimestamp: %s
  annotations:
    envoyfilter.istio.io/referenced-services: %s
spec:
%s  configPatches:
  - applyTo: CLUSTER
    match:
      context: GATEWAY
      cluster: {service: %s}
    patch:
      operation: MERGE
      value: {connect_timeout: 5s}`, ns, b.ts(), seHost, sel, seHost))
	}

	if d[dimNoise] == "yes" {
		b.add(fmt.Sprintf(`apiVersion: networking.istio.io/v1
kind: ServiceEntry
metadata:
  name: noise
  namespace: other
  creationTimestamp: %s
spec:
  hosts: [%s]
  location: MESH_EXTERNAL
  ports:
  - {number: 80, name: http, protocol: HTTP}
  resolution: DNS`, b.ts(), noiseHost))
	}

	// Gateway.
	binding := d[dimBinding]
	vsNs := "app"
	switch binding {
	case "short-same-ns":
		vsNs = gwNs
	}
	serverHosts := []string{seHost}
	switch binding {
	case "server-wildcard":
		if rng.Intn(2) == 0 {
			serverHosts = []string{"*"}
		} else {
			serverHosts = []string{"*.example.com"}
		}
	case "server-ns-match":
		serverHosts = []string{vsNs + "/" + seHost}
	case "server-ns-mismatch":
		serverHosts = []string{"other/" + seHost}
	}
	selector := "{istio: " + gw.label + "}"
	if d[dimSelector] == "empty" {
		selector = "{}"
	}
	b.add(fmt.Sprintf(`apiVersion: networking.istio.io/v1
kind: Gateway
metadata:
  name: egress-gw
  namespace: %s
  creationTimestamp: %s
spec:
  selector: %s
  servers:
%s`, gwNs, b.ts(), selector, ps.serverYAML(serverHosts)))

	// Subsets: which subset the route names and which DestinationRules exist.
	routeSubset := ""
	type drSpec struct{ ns, exportTo string }
	var drs []drSpec
	switch d[dimSubsets] {
	case "defined", "defined-no-labels":
		routeSubset = "v1"
		drs = append(drs, drSpec{seNs, ""})
	case "undefined":
		routeSubset = "v3"
		drs = append(drs, drSpec{seNs, ""})
	case "dr-other-ns":
		routeSubset = "v1"
		drs = append(drs, drSpec{"other", ""})
	case "dr-not-exported":
		routeSubset = "v1"
		drs = append(drs, drSpec{seNs, `["."]`})
	case "dr-gw-ns":
		routeSubset = "v1"
		drs = append(drs, drSpec{gwNs, ""})
	case "dr-root-ns":
		routeSubset = "v1"
		drs = append(drs, drSpec{"istio-system", ""})
	}
	subsetsYAML := "  - name: v1\n    labels: {version: v1}\n  - name: v2\n    labels: {version: v2}"
	if d[dimSubsets] == "defined-no-labels" {
		subsetsYAML = "  - name: v1\n  - name: v2"
	}
	for i, dr := range drs {
		exportLine := ""
		if dr.exportTo != "" {
			exportLine = "  exportTo: " + dr.exportTo + "\n"
		}
		b.add(fmt.Sprintf(`apiVersion: networking.istio.io/v1
kind: DestinationRule
metadata:
  name: api-subsets-%d
  namespace: %s
  creationTimestamp: %s
spec:
  host: %s
%s  subsets:
%s`, i, dr.ns, b.ts(), seHost, exportLine, subsetsYAML))
	}

	// VirtualService.
	if binding != "no-vs" {
		b.add(virtualService(binding, vsNs, gwNs, ps, routeSubset, b.ts, b.add))
	}
	// Revision labels on configs.
	target := map[string]string{"vs-canary": "kind: VirtualService", "se-canary": "kind: ServiceEntry\nmetadata:\n  name: api\n", "dr-canary": "kind: DestinationRule"}[revVariant]
	if target != "" {
		for i, doc := range b.docs {
			if strings.Contains(doc, target) {
				b.docs[i] = strings.Replace(doc, "metadata:\n", "metadata:\n  labels: {istio.io/rev: canary}\n", 1)
			}
		}
	}
	clients(b, d[dimClients], gw)
	if hasVis {
		visProbes(b, name)
	}
	listenerObjects(b, d, seNs, ps.sePorts[0].number)
	gapObjects(b, d)
	gatewayVSOrderObjects(b, d[dimGVSOrder])
	gatewayDestPortObjects(b, d[dimGDestPort])
	drMergeObjects(b, d[dimGDRMerge])
	noneSiblingObjects(b, d[dimGNoneSib])
	gatewayServersObjects(b, d[dimGGwServers])
	pathObjects(b, d)
	dnsObjects(b, d)
	lbPassthroughObjects(b, d[dimGLBPass])
	dupTargetObjects(b, d[dimGDupTarget])
	addr32Objects(b, d[dimGAddr32])
	podTLSModeObjects(b, d[dimGPodTLS])
	gwRefs := []string{"istio-system/istio-egressgateway", "egress/egress-gateway"}
	if gatewayAPIObjects(b, d[dimGGwAPI]) {
		gwRefs = append(gwRefs, "egress/egw-istio")
	}
	if d[dimPService] == "spans" {
		gwRefs = append(gwRefs, "egress/egress-gateway-b") // path.service spans: compared too
	}
	roles := map[string]string{}
	for _, r := range gwRefs {
		if strings.HasPrefix(r, gwNs+"/") {
			roles[r] = "gateway-ns"
		} else {
			roles[r] = "other-ns"
		}
	}
	return scenario{Name: name, Dims: d, YAML: b.String(), Gateways: gwRefs, ProxyRole: roles}
}

// virtualService returns the VirtualService of the binding variant (delegates add their
// delegate VirtualService through add first).
func virtualService(binding, vsNs, gwNs string, ps protoSpec, subset string, ts func() string, add func(string)) string {
	gwRef := gwNs + "/egress-gw"
	vsHosts := []string{seHost}
	exportTo := ""
	section := ps.serverKind
	matchPort := ps.serverPort
	switch binding {
	case "short-same-ns", "short-other-ns":
		gwRef = "egress-gw"
	case "legacy-fqdn":
		gwRef = "egress-gw." + gwNs + ".svc.cluster.local"
	case "mesh-only":
		gwRef = "mesh"
	case "hosts-disjoint":
		vsHosts = []string{"elsewhere.example.org"}
	case "wrong-route-type":
		switch ps.serverKind {
		case "http":
			section = "tcp"
		default:
			section = "http"
		}
	case "port-mismatch":
		matchPort = ps.serverPort + 1
	case "vs-exportTo-dot":
		exportTo = `  exportTo: ["."]` + "\n"
	}
	if binding == "mesh-only" {
		// A mesh route: match on the service port, no gateway.
		matchPort = ps.sePorts[0].number
	}
	destPort := ps.sePorts[0].number
	dest := fmt.Sprintf("        host: %s\n        port: {number: %d}\n", seHost, destPort)
	if subset != "" {
		dest += "        subset: " + subset + "\n"
	}
	matchGw := ""
	if gwRef != "mesh" {
		matchGw = fmt.Sprintf("      gateways: [%s]\n", gwRef)
	}
	var route string
	switch section {
	case "http":
		if binding == "delegate" || binding == "delegate-private" {
			delExport := ""
			if binding == "delegate-private" {
				delExport = `  exportTo: ["."]` + "\n"
			}
			add(fmt.Sprintf(`apiVersion: networking.istio.io/v1
kind: VirtualService
metadata:
  name: api-delegate
  namespace: app
  creationTimestamp: %s
spec:
%s  http:
  - route:
    - destination:
%s`, ts(), delExport, strings.TrimRight(dest, "\n")))
			return fmt.Sprintf(`apiVersion: networking.istio.io/v1
kind: VirtualService
metadata:
  name: api-root
  namespace: %s
  creationTimestamp: %s
spec:
  hosts: %s
  gateways: [%s]
  http:
  - match:
    - port: %d
    delegate:
      name: api-delegate
      namespace: app`, gwNs, ts(), yamlList(vsHosts), gwRef, matchPort)
		}
		route = fmt.Sprintf("  http:\n  - match:\n    - port: %d\n%s    route:\n    - destination:\n%s", matchPort, matchGw, dest)
	case "tls":
		route = fmt.Sprintf("  tls:\n  - match:\n    - port: %d\n      sniHosts: %s\n%s    route:\n    - destination:\n%s", matchPort, yamlList(vsHosts), matchGw, dest)
	case "tcp":
		route = fmt.Sprintf("  tcp:\n  - match:\n    - port: %d\n%s    route:\n    - destination:\n%s", matchPort, matchGw, dest)
	}
	return fmt.Sprintf(`apiVersion: networking.istio.io/v1
kind: VirtualService
metadata:
  name: api-route
  namespace: %s
  creationTimestamp: %s
spec:
  hosts: %s
  gateways: [%s]
%s%s`, vsNs, ts(), yamlList(vsHosts), gwRef, exportTo, strings.TrimRight(route, "\n"))
}

// clients adds the client namespaces of the clients dimension (after the revision labels, so
// that none of these objects is labelled for the canary revision).
func clients(b *builder, v string, gw gwWorkload) {
	if v == "none" {
		return
	}
	for _, ns := range []string{"team-a", "team-b"} {
		b.add(fmt.Sprintf("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: %s\n  labels: {istio-injection: enabled}\n  creationTimestamp: %s", ns, b.ts()))
	}
	svcHost := gw.name + "." + gw.ns + ".svc.cluster.local"
	dr := func(name, ns, exportTo, subset string) {
		exp := ""
		if exportTo != "" {
			exp = "  exportTo: " + exportTo + "\n"
		}
		b.add(fmt.Sprintf(`apiVersion: networking.istio.io/v1
kind: DestinationRule
metadata:
  name: %s
  namespace: %s
  creationTimestamp: %s
spec:
%s  host: %s
  subsets:
  - name: %s`, name, ns, b.ts(), exp, svcHost, subset))
	}
	switch v {
	case "dr-vs-ns", "vs-private":
		dr("egressgateway-for-api", "team-a", `["*"]`, "api-egress")
	case "dr-each-client-ns":
		dr("egressgateway-for-api", "team-a", "", "api-egress")
		dr("egressgateway-for-api", "team-b", "", "api-egress")
	case "dr-svc-ns":
		dr("egressgateway-for-api", gw.ns, "", "api-egress")
	case "dr-root-ns":
		dr("egressgateway-for-api", "istio-system", "", "api-egress")
	case "dr-svc-ns-private":
		dr("egressgateway-for-api", gw.ns, `["."]`, "api-egress")
	case "undefined":
		dr("egressgateway-for-api", gw.ns, "", "other-egress")
	case "client-shadows":
		dr("egressgateway-for-api", gw.ns, "", "api-egress")
		dr("egressgateway-local", "team-b", "", "local")
	}
	exp := ""
	if v == "vs-private" {
		exp = `  exportTo: ["."]` + "\n"
	}
	b.add(fmt.Sprintf(`apiVersion: networking.istio.io/v1
kind: VirtualService
metadata:
  name: api-via-egress
  namespace: team-a
  creationTimestamp: %s
spec:
  hosts: [%s]
  gateways: [mesh]
%s  http:
  - match:
    - port: 80
    route:
    - destination:
        host: %s
        subset: api-egress
        port: {number: 80}`, b.ts(), seHost, exp, svcHost))
}

// visPolicy is the serviceEntryVisibility block of a visibility.policy value.
func visPolicy(v string, apply bool) string {
	def, policies := "PUBLIC", ""
	rule := func(vis, rules string) string {
		out := "\n      - visibility: " + vis
		if rules != "" {
			out += "\n        matchingRules:\n        - " + rules
		}
		return out
	}
	switch v {
	case "default-PUBLIC":
	case "default-NAMESPACE":
		def = "NAMESPACE"
	case "default-NONE":
		def = "NONE"
	case "default-unset+labels-NAMESPACE":
		def = ""
		policies = rule("NAMESPACE", "namespaceSelector: {matchLabels: {tier: silver}}")
	case "labels-NAMESPACE":
		policies = rule("NAMESPACE", "namespaceSelector: {matchLabels: {tier: silver}}")
	case "expr-In-NONE":
		policies = rule("NONE", "namespaceSelector: {matchExpressions: [{key: tier, operator: In, values: [gold]}]}")
	case "expr-NotIn-NAMESPACE":
		policies = rule("NAMESPACE", "namespaceSelector: {matchExpressions: [{key: tier, operator: NotIn, values: [gold]}]}")
	case "expr-Exists-PUBLIC":
		def = "NONE"
		policies = rule("PUBLIC", "namespaceSelector: {matchExpressions: [{key: tier, operator: Exists}]}")
	case "expr-DoesNotExist-NAMESPACE":
		policies = rule("NAMESPACE", "namespaceSelector: {matchExpressions: [{key: tier, operator: DoesNotExist}]}")
	case "metadata-name-PUBLIC":
		def = "NAMESPACE"
		policies = rule("PUBLIC", "namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: other}}")
	case "metadata-name-expr-NONE":
		policies = rule("NONE", "namespaceSelector: {matchExpressions: [{key: kubernetes.io/metadata.name, operator: In, values: [app, egress]}]}")
	case "no-rules-NONE":
		policies = rule("NONE", "")
	case "rule-no-matcher-NAMESPACE":
		policies = rule("NAMESPACE", "{}")
	case "first-policy-wins":
		def = "NAMESPACE"
		policies = rule("NONE", "namespaceSelector: {matchLabels: {tier: silver}}") +
			rule("PUBLIC", "namespaceSelector: {matchExpressions: [{key: tier, operator: Exists}]}")
	default:
		panic("visibility.policy value " + v)
	}
	out := "serviceEntryVisibility:"
	if def != "" {
		out += "\n      defaultVisibility: " + def
	}
	out += fmt.Sprintf("\n      applyToSidecars: %t", apply)
	if policies != "" {
		out += "\n      policies:" + policies
	}
	return out
}

// probeHost is the host of the visibility probe entry in namespace ns: unique to that entry.
func probeHost(ns string) string { return "vis-" + ns + ".probe.example" }

// visProbes adds one probe ServiceEntry in each of app, other and egress, for hosts no other
// entry declares, exportTo ".", "*", another namespace or unset, resolution STATIC with an
// endpoint or DNS without workloadSelector (so that a sidecar that sees it always has its
// default cluster). Random choices come from a generator seeded by the scenario name.
func visProbes(b *builder, name string) {
	h := fnv.New64a()
	h.Write([]byte(name))
	r := rand.New(rand.NewSource(int64(h.Sum64())))
	elsewhere := map[string]string{"app": "other", "other": "app", "egress": "app"}
	for i, ns := range []string{"app", "other", "egress"} {
		exp := ""
		switch r.Intn(4) {
		case 0:
			exp = "\n  exportTo: [\".\"]"
		case 1:
			exp = "\n  exportTo: [\"*\"]"
		case 2:
			exp = fmt.Sprintf("\n  exportTo: [%q]", elsewhere[ns])
		}
		res := "resolution: DNS"
		if r.Intn(2) == 0 {
			res = fmt.Sprintf("resolution: STATIC\n  endpoints:\n  - address: 10.252.0.%d", i+1)
		}
		b.add(fmt.Sprintf(`apiVersion: networking.istio.io/v1
kind: ServiceEntry
metadata:
  name: vis-probe
  namespace: %s
  creationTimestamp: %s
spec:
  hosts: [%s]
  location: MESH_EXTERNAL
  ports:
  - {number: 7000, name: tcp-probe, protocol: TCP}%s
  %s`, ns, b.ts(), probeHost(ns), exp, res))
	}
}

// gapObjects adds the objects of the gap.* dimensions (after everything else).
func gapObjects(b *builder, d map[string]string) {
	if d[dimGDynDNS] == "wildcard+subset" {
		b.add(fmt.Sprintf(`apiVersion: networking.istio.io/v1
kind: ServiceEntry
metadata:
  name: wiki
  namespace: other
  creationTimestamp: %s
spec:
  hosts: ["*.wiki.example.net"]
  exportTo: ["*"]
  location: MESH_EXTERNAL
  resolution: DYNAMIC_DNS
  ports:
  - {number: 80, name: http, protocol: HTTP}
  - {number: 443, name: tls, protocol: TLS}
  - {number: 7070, name: grpc, protocol: GRPC}`, b.ts()))
		b.add(fmt.Sprintf(`apiVersion: networking.istio.io/v1
kind: DestinationRule
metadata:
  name: wiki
  namespace: other
  creationTimestamp: %s
spec:
  host: "*.wiki.example.net"
  subsets:
  - {name: v1, labels: {version: v1}}`, b.ts()))
	}
	switch d[dimGEqualAge] {
	case "tcp-noaddr-tie":
		ts := b.ts()
		for _, e := range [][2]string{{"tie-a", "zz-tie.example.net"}, {"tie-b", "aa-tie.example.net"}} {
			b.add(fmt.Sprintf(`apiVersion: networking.istio.io/v1
kind: ServiceEntry
metadata:
  name: %s
  namespace: other
  creationTimestamp: %s
spec:
  hosts: [%s]
  exportTo: ["*"]
  location: MESH_EXTERNAL
  resolution: DNS
  ports:
  - {number: 3310, name: tcp-tie, protocol: TCP}`, e[0], ts, e[1]))
		}
	case "vip-tie":
		b.add(fmt.Sprintf(`apiVersion: networking.istio.io/v1
kind: ServiceEntry
metadata:
  name: tie-vip
  namespace: other
  creationTimestamp: %s
spec:
  hosts: [www-tie.example.net, db-tie.example.net]
  addresses: ["240.240.50.1"]
  exportTo: ["*"]
  location: MESH_EXTERNAL
  resolution: DNS
  ports:
  - {number: 4443, name: tls-tie, protocol: TLS}`, b.ts()))
	}
}

// gatewayServersObjects adds the objects of gap.gatewayServers.
func gatewayServersObjects(b *builder, v string) {
	gateway := func(name, servers string) {
		b.add(fmt.Sprintf(`apiVersion: networking.istio.io/v1
kind: Gateway
metadata:
  name: %s
  namespace: istio-system
  creationTimestamp: %s
spec:
  selector: {istio: egressgateway}
  servers:
%s`, name, b.ts(), servers))
	}
	vs := func(name, gw, hosts, routes string) {
		b.add(fmt.Sprintf(`apiVersion: networking.istio.io/v1
kind: VirtualService
metadata:
  name: %s
  namespace: istio-system
  creationTimestamp: %s
spec:
  hosts: %s
  gateways: [istio-system/%s]
%s`, name, b.ts(), hosts, gw, routes))
	}
	http := "  http:\n  - route:\n    - destination: {host: " + noiseHost + ", port: {number: 80}}"
	tcp := "  tcp:\n  - route:\n    - destination: {host: " + noiseHost + ", port: {number: 80}}"
	switch v {
	case "dup-tls-host":
		gateway("dup-a", "  - port: {number: 9443, name: https-dup-a, protocol: HTTPS}\n    hosts: [dup.example.net]\n    tls: {mode: SIMPLE, credentialName: dup-cert}")
		gateway("dup-b", "  - port: {number: 9443, name: https-dup-b, protocol: HTTPS}\n    hosts: [\"*/dup.example.net\", spare.example.net]\n    tls: {mode: SIMPLE, credentialName: dup-cert}")
		vs("dup-a", "dup-a", "[dup.example.net]", http)
		vs("dup-b", "dup-b", "[dup.example.net, spare.example.net]", http)
	case "second-tcp":
		gateway("tcp-a", "  - port: {number: 9306, name: tcp-a, protocol: TCP}\n    hosts: [tcpa.example.net]")
		gateway("tcp-b", "  - port: {number: 9306, name: tcp-b, protocol: TCP}\n    hosts: [tcpb.example.net]")
		vs("tcp-b", "tcp-b", "[tcpb.example.net]", tcp)
	case "tls-terminate-tcp":
		gateway("term", "  - port: {number: 9444, name: tls-term, protocol: TLS}\n    hosts: [term.example.net]\n    tls: {mode: SIMPLE, credentialName: term-cert}")
		vs("term", "term", "[term.example.net]", tcp)
	}
}

// dupTargetObjects adds the objects of gap.dupTargetPort.
func dupTargetObjects(b *builder, v string) {
	if v == "none" {
		return
	}
	target := ""
	for i, doc := range b.docs {
		if !strings.Contains(doc, "kind: Service\nmetadata:\n  name: istio-egressgateway\n  namespace: istio-system\n") {
			if strings.Contains(doc, "kind: EndpointSlice\nmetadata:\n  name: istio-egressgateway-abcde\n  namespace: istio-system\n") {
				b.docs[i] = strings.Replace(doc, "- {name: http2, port: 8080, protocol: TCP}", "- {name: http2, port: 8080, protocol: TCP}\n- {name: http2-dup, port: 8080, protocol: TCP}", 1)
			}
			continue
		}
		lines := strings.Split(doc, "\n")
		for j, l := range lines {
			if strings.HasPrefix(l, "  - {name: http2, port: 80, targetPort: ") {
				target = strings.TrimSuffix(strings.TrimPrefix(l, "  - {name: http2, port: 80, targetPort: "), ", protocol: TCP}")
				lines = append(lines[:j+1], append([]string{"  - {name: http2-dup, port: 8000, targetPort: " + target + ", protocol: TCP}"}, lines[j+1:]...)...)
				break
			}
		}
		b.docs[i] = strings.Join(lines, "\n")
	}
	if target == "" {
		return
	}
	server := "8000"
	if v == "server-target" {
		server = target
		if _, err := strconv.Atoi(target); err != nil {
			server = "8080" // a named targetPort: the container port it names
		}
	}
	b.add(fmt.Sprintf(`apiVersion: networking.istio.io/v1
kind: ServiceEntry
metadata:
  name: dup
  namespace: other
  creationTimestamp: %s
spec:
  hosts: [dup.example.net]
  exportTo: ["*"]
  location: MESH_EXTERNAL
  resolution: DNS
  ports:
  - {number: 80, name: http, protocol: HTTP}`, b.ts()))
	b.add(fmt.Sprintf(`apiVersion: networking.istio.io/v1
kind: Gateway
metadata:
  name: dup-gw
  namespace: istio-system
  creationTimestamp: %s
spec:
  selector: {istio: egressgateway}
  servers:
  - port: {number: %s, name: http-dup, protocol: HTTP}
    hosts: [dup.example.net]`, b.ts(), server))
	b.add(fmt.Sprintf(`apiVersion: networking.istio.io/v1
kind: VirtualService
metadata:
  name: dup
  namespace: istio-system
  creationTimestamp: %s
spec:
  hosts: [dup.example.net]
  gateways: [mesh, dup-gw]
  http:
  - match: [{gateways: [mesh]}]
    route: [{destination: {host: istio-egressgateway.istio-system.svc.cluster.local, port: {number: 8000}}}]
  - match: [{gateways: [dup-gw]}]
    route: [{destination: {host: dup.example.net, port: {number: 80}}}]`, b.ts()))
}

// podTLSModeObjects labels the istio-system gateway's pods for gap.gatewayPodTLSMode.
func podTLSModeObjects(b *builder, v string) {
	if v != "labelled" {
		return
	}
	w := gwWorkloads["istio-system"]
	for i, doc := range b.docs {
		head := fmt.Sprintf("metadata:\n  name: %s", w.name)
		switch {
		case strings.HasPrefix(doc, "apiVersion: apps/v1\nkind: Deployment\n"+head+"\n  namespace: istio-system\n"):
			b.docs[i] = strings.Replace(doc, "  template:\n    metadata:\n      labels: {", "  template:\n    metadata:\n      labels: {security.istio.io/tlsMode: istio, ", 1)
		case strings.HasPrefix(doc, "apiVersion: v1\nkind: Pod\n"+head+"-0\n  namespace: istio-system\n"):
			b.docs[i] = strings.Replace(doc, "\n  labels: {", "\n  labels: {security.istio.io/tlsMode: istio, ", 1)
		}
	}
}

// addr32Objects adds the objects of gap.singleAddressCIDR.
func addr32Objects(b *builder, v string) {
	res := "STATIC\n  endpoints: [{address: 10.40.0.60}]"
	switch v {
	case "none":
		return
	case "none-res":
		res = "NONE"
	}
	b.add(fmt.Sprintf(`apiVersion: networking.istio.io/v1
kind: ServiceEntry
metadata:
  name: addr32
  namespace: other
  creationTimestamp: %s
spec:
  hosts: [addr32.example.net]
  addresses: ["240.240.60.1/32"]
  exportTo: ["*"]
  location: MESH_EXTERNAL
  resolution: %s
  ports:
  - {number: 8090, name: http-a32, protocol: HTTP}
  - {number: 5434, name: tcp-a32, protocol: TCP}`, b.ts(), res))
}

// lbPassthroughObjects adds the objects of gap.lbPassthrough.
func lbPassthroughObjects(b *builder, v string) {
	if v == "none" {
		return
	}
	b.add(fmt.Sprintf(`apiVersion: networking.istio.io/v1
kind: ServiceEntry
metadata:
  name: lbpass
  namespace: other
  creationTimestamp: %s
spec:
  hosts: [lbpass.example.net]
  exportTo: ["*"]
  location: MESH_EXTERNAL
  resolution: DNS
  ports:
  - {number: 8088, name: http-lb, protocol: HTTP}
  - {number: 8089, name: tcp-lb, protocol: TCP}`, b.ts()))
	policy, subset := "", ""
	switch v {
	case "top":
		policy = "\n  trafficPolicy: {loadBalancer: {simple: PASSTHROUGH}}"
	case "port":
		policy = "\n  trafficPolicy: {portLevelSettings: [{port: {number: 8088}, loadBalancer: {simple: PASSTHROUGH}}]}"
	case "subset":
		subset = ", trafficPolicy: {loadBalancer: {simple: PASSTHROUGH}}"
	}
	b.add(fmt.Sprintf(`apiVersion: networking.istio.io/v1
kind: DestinationRule
metadata:
  name: lbpass
  namespace: other
  creationTimestamp: %s
spec:
  host: lbpass.example.net%s
  subsets:
  - {name: a%s}`, b.ts(), policy, subset))
}

// noneSiblingObjects adds the objects of gap.noneSibling.
func noneSiblingObjects(b *builder, v string) {
	if v == "none" {
		return
	}
	entry := func(name, exportTo, rest string) {
		b.add(fmt.Sprintf(`apiVersion: networking.istio.io/v1
kind: ServiceEntry
metadata:
  name: %s
  namespace: other
  creationTimestamp: %s
spec:
  hosts: [nonesib.example.net]
  exportTo: %s
  location: MESH_EXTERNAL
  ports:
  - {number: 4444, name: tls-sib, protocol: TLS}
%s`, name, b.ts(), exportTo, rest))
	}
	entry("nonesib", `["*"]`, "  resolution: NONE")
	switch v {
	case "dns-sibling":
		entry("nonesib-dns", `["."]`, "  resolution: DNS")
	case "static-sibling":
		entry("nonesib-static", `["."]`, "  resolution: STATIC\n  endpoints:\n  - address: 10.40.0.9")
	}
}

// drMergeObjects adds the objects of gap.drMerge.
func drMergeObjects(b *builder, v string) {
	if v == "none" {
		return
	}
	b.add(fmt.Sprintf(`apiVersion: networking.istio.io/v1
kind: ServiceEntry
metadata:
  name: merge
  namespace: other
  creationTimestamp: %s
spec:
  hosts: [merge.example.net]
  exportTo: ["*"]
  location: MESH_EXTERNAL
  resolution: DNS
  ports:
  - {number: 80, name: http, protocol: HTTP}`, b.ts()))
	exports := []string{"", `["istio-system"]`, ""}
	subsets := []string{"{name: s0}", "{name: s1}", "{name: s2}"}
	switch v {
	case "named-public-superset":
		exports = []string{`["istio-system"]`, `["*"]`, `["istio-system", "app"]`}
	case "duplicate-subset":
		exports = []string{"", ""}
		subsets = []string{"{name: s0}", "{name: s0, trafficPolicy: {tls: {mode: SIMPLE}}}"}
	case "identical-subset":
		exports = []string{"", "", ""}
		subsets = []string{"{name: s0, labels: {v: a}}", "{name: s0, labels: {v: a}}", "{name: s2}"}
	case "superset-duplicate":
		exports = []string{`["istio-system"]`, `["*"]`}
		subsets = []string{"{name: s0}", "{name: s0, trafficPolicy: {tls: {mode: SIMPLE}}}"}
	}
	for i, e := range exports {
		exp := ""
		if e != "" {
			exp = "\n  exportTo: " + e
		}
		b.add(fmt.Sprintf(`apiVersion: networking.istio.io/v1
kind: DestinationRule
metadata:
  name: merge-%d
  namespace: other
  creationTimestamp: %s
spec:
  host: merge.example.net%s
  subsets:
  - %s`, i, b.ts(), exp, subsets[i]))
	}
}

// gatewayDestPortObjects adds the objects of gap.gatewayDestPort.
func gatewayDestPortObjects(b *builder, v string) {
	if v == "none" {
		return
	}
	entry := func(ns, exportTo string, port int) {
		b.add(fmt.Sprintf(`apiVersion: networking.istio.io/v1
kind: ServiceEntry
metadata:
  name: dbj
  namespace: %s
  creationTimestamp: %s
spec:
  hosts: [dbj.example.net]
  exportTo: %s
  location: MESH_EXTERNAL
  resolution: DNS
  ports:
  - {number: %d, name: http-db, protocol: HTTP}`, ns, b.ts(), exportTo, port))
	}
	entry("istio-system", `["."]`, 8080)
	if v == "vs-ns-entry-visible" {
		entry("other", `["*"]`, 9090)
	} else {
		entry("other", `["."]`, 9090)
	}
	b.add(fmt.Sprintf(`apiVersion: networking.istio.io/v1
kind: Gateway
metadata:
  name: port-gw
  namespace: istio-system
  creationTimestamp: %s
spec:
  selector: {istio: egressgateway}
  servers:
  - port: {number: 8082, name: http-port, protocol: HTTP}
    hosts: [dbj.example.net]`, b.ts()))
	b.add(fmt.Sprintf(`apiVersion: networking.istio.io/v1
kind: VirtualService
metadata:
  name: dbj
  namespace: other
  creationTimestamp: %s
spec:
  hosts: [dbj.example.net]
  gateways: [istio-system/port-gw]
  http:
  - route:
    - destination: {host: dbj.example.net}`, b.ts()))
}

// gatewayVSOrderObjects adds the objects of gap.gatewayVSOrder.
func gatewayVSOrderObjects(b *builder, v string) {
	if v == "none" {
		return
	}
	b.add(fmt.Sprintf(`apiVersion: networking.istio.io/v1
kind: ServiceEntry
metadata:
  name: order
  namespace: other
  creationTimestamp: %s
spec:
  hosts: [order.example.net]
  exportTo: ["*"]
  location: MESH_EXTERNAL
  resolution: DNS
  ports:
  - {number: 80, name: http, protocol: HTTP}`, b.ts()))
	b.add(fmt.Sprintf(`apiVersion: networking.istio.io/v1
kind: Gateway
metadata:
  name: order-gw
  namespace: istio-system
  creationTimestamp: %s
spec:
  selector: {istio: egressgateway}
  servers:
  - port: {number: 8081, name: http-order, protocol: HTTP}
    hosts: [order.example.net]`, b.ts()))
	vsMatch := func(name, ns, exportTo, match, dest string) {
		b.add(fmt.Sprintf(`apiVersion: networking.istio.io/v1
kind: VirtualService
metadata:
  name: %s
  namespace: %s
  creationTimestamp: %s
spec:
  hosts: [order.example.net]
  gateways: [istio-system/order-gw]
  exportTo: %s
  http:
  - %sroute:
    - destination: {host: %s, port: {number: 80}}`, name, ns, b.ts(), exportTo, match, dest))
	}
	vs := func(name, ns, exportTo, dest string) { vsMatch(name, ns, exportTo, "", dest) }
	switch v {
	case "prefix-public", "prefix-private":
		vsMatch("order-public", "other", `["*"]`, "match: [{uri: {prefix: /v1}}]\n    ", noiseHost)
		exportTo := `["*"]`
		if v == "prefix-private" {
			exportTo = `["."]`
		}
		vsMatch("order-upload", "istio-system", exportTo, "match: [{uri: {prefix: /v1/upload}}]\n    ", "order.example.net")
		return
	}
	vs("order-public", "other", `["*"]`, noiseHost)
	switch v {
	case "private-dot":
		vs("order-private", "istio-system", `["."]`, "order.example.net")
	case "private-named":
		vs("order-private", "istio-system", `["istio-system"]`, "order.example.net")
	case "exported-by-name":
		vs("order-exported", "other", `["istio-system"]`, "order.example.net")
	case "direct-response", "redirect":
		// a private VirtualService whose route answers itself: a directResponse, or a
		// redirect before a route to the host (the gateway's virtual host holds them)
		action := "  - directResponse: {status: 403}"
		if v == "redirect" {
			action = "  - match: [{uri: {prefix: /old}}]\n    redirect: {uri: /new}\n  - route:\n    - destination: {host: order.example.net, port: {number: 80}}"
		}
		b.add(fmt.Sprintf(`apiVersion: networking.istio.io/v1
kind: VirtualService
metadata:
  name: order-answer
  namespace: istio-system
  creationTimestamp: %s
spec:
  hosts: [order.example.net]
  gateways: [istio-system/order-gw]
  exportTo: ["."]
  http:
%s`, b.ts(), action))
	}
}

// listenerObjects adds the objects of the listener.* dimensions (after everything else).
func listenerObjects(b *builder, d map[string]string, seNs string, apiPort uint32) {
	sidecar := func(spec string) {
		b.add(fmt.Sprintf("apiVersion: networking.istio.io/v1\nkind: Sidecar\nmetadata:\n  name: default\n  namespace: team-a\n  creationTimestamp: %s\nspec:\n%s", b.ts(), spec))
	}
	switch d[dimLSidecar] {
	case "dot-and-root":
		sidecar("  egress:\n  - hosts: [\"./*\", \"istio-system/*\"]")
	case "dot-only":
		// The gateway Service a mesh VirtualService of team-a routes to is not imported: it joins
		// the scope as a VirtualService destination (sidecar.go collectImportedServices).
		sidecar("  egress:\n  - hosts: [\"./*\"]")
	case "omit-se-ns":
		var hosts []string
		for _, ns := range []string{"./*", "app/*", "other/*", "egress/*", "istio-system/*"} {
			if ns != seNs+"/*" {
				hosts = append(hosts, ns)
			}
		}
		sidecar("  egress:\n  - hosts: " + yamlList(hosts))
	case "registry-only":
		sidecar("  outboundTrafficPolicy: {mode: REGISTRY_ONLY}\n  egress:\n  - hosts: [\"*/*\"]")
	case "registry-only-dot":
		sidecar("  outboundTrafficPolicy: {mode: REGISTRY_ONLY}\n  egress:\n  - hosts: [\"./*\", \"istio-system/*\"]")
	case "port-443-tls":
		sidecar("  egress:\n  - port: {number: 443, protocol: TLS, name: tls-egress}\n    hosts: [\"*/*\"]\n  - hosts: [\"*/*\"]")
	case "exact-hosts":
		hosts := []string{seNs + "/" + seHost, "other/" + noiseHost,
			"istio-system/istio-egressgateway.istio-system.svc.cluster.local", "egress/egress-gateway.egress.svc.cluster.local"}
		for _, h := range []string{"db-a", "db-b", "legacy", "secure", "docs", "mysql", "stats", "payments", "ledger", "sniff"} {
			hosts = append(hosts, "other/"+h+".example.net")
		}
		sidecar("  egress:\n  - hosts: " + yamlList(hosts))
	case "port-9000-http":
		sidecar("  egress:\n  - port: {number: 9000, protocol: HTTP, name: http-egress}\n    hosts: [\"*/*\"]\n  - hosts: [\"*/*\"]")
	case "egress-proxy", "egress-proxy-dot", "egress-proxy-no-mode":
		mode, hosts := "mode: ALLOW_ANY, ", `["./*", "istio-system/*"]`
		if d[dimLSidecar] == "egress-proxy-dot" {
			hosts = `["./*"]`
		}
		if d[dimLSidecar] == "egress-proxy-no-mode" {
			mode = ""
		}
		sidecar("  outboundTrafficPolicy: {" + mode + "egressProxy: {host: istio-egressgateway.istio-system.svc.cluster.local, port: {number: 80}}}\n  egress:\n  - hosts: " + hosts)
	}

	entryTo := func(name, host string, port uint32, portName, proto, extra, exportTo string) {
		b.add(fmt.Sprintf(`apiVersion: networking.istio.io/v1
kind: ServiceEntry
metadata:
  name: %s
  namespace: other
  creationTimestamp: %s
spec:
  hosts: [%s]
  exportTo: %s
  location: MESH_EXTERNAL
  ports:
  - {number: %d, name: %s, protocol: %s}
%s`, name, b.ts(), host, exportTo, port, portName, proto, extra))
	}
	entry := func(name, host string, port uint32, portName, proto, extra string) {
		entryTo(name, host, port, portName, proto, extra, `["*"]`)
	}
	const dns = "  resolution: DNS"
	switch d[dimLCompete] {
	case "tcp-tcp-noaddr":
		entry("compete-a", "db-a.example.net", 5432, "tcp-db", "TCP", dns)
		entry("compete-b", "db-b.example.net", 5432, "tcp-db", "TCP", dns)
	case "tcp-tcp-noaddr-vs-a", "tcp-tcp-noaddr-vs-ab":
		entry("compete-a", "db-a.example.net", 5432, "tcp-db", "TCP", dns)
		entry("compete-b", "db-b.example.net", 5432, "tcp-db", "TCP", dns)
		hosts := "[db-a.example.net]"
		if d[dimLCompete] == "tcp-tcp-noaddr-vs-ab" {
			hosts = "[db-a.example.net, db-b.example.net]"
		}
		b.add(fmt.Sprintf(`apiVersion: networking.istio.io/v1
kind: VirtualService
metadata:
  name: db-a-route
  namespace: other
  creationTimestamp: %s
spec:
  hosts: %s
  tcp:
  - route:
    - destination:
        host: db-a.example.net
        port: {number: 5432}`, b.ts(), hosts))
	case "tcp-noaddr-named-addr":
		entry("compete-a", "db-a.example.net", 5432, "tcp-db", "TCP", dns)
		entryTo("compete-b", "payments.example.net", 5432, "tcp-db", "TCP", "  addresses: [\"240.240.20.1\"]\n"+dns, `["team-a"]`)
	case "tcp-tcp-named":
		entry("compete-a", "db-a.example.net", 5432, "tcp-db", "TCP", dns)
		entryTo("compete-b", "db-b.example.net", 5432, "tcp-db", "TCP", dns, `["team-a", "team-b"]`)
	case "tcp443-vs-tls":
		entry("compete-a", "legacy.example.net", 443, "tcp-legacy", "TCP", dns)
		entry("compete-b", "secure.example.net", 443, "tls", "TLS", dns)
	case "tcp80-vs-http-svc":
		entry("compete-a", "docs.example.net", 80, "http", "TCP", dns)
		b.add(fmt.Sprintf(`apiVersion: v1
kind: Service
metadata:
  name: web
  namespace: app
  creationTimestamp: %s
spec:
  type: ClusterIP
  clusterIP: 10.96.1.10
  selector: {app: web}
  ports:
  - {name: http, port: 80, targetPort: 8080, protocol: TCP}`, b.ts()))
	case "mysql-then-tcp-3306":
		entry("compete-a", "mysql.example.net", 3306, "mysql", "MYSQL", dns)
		entry("compete-b", "stats.example.net", 3306, "tcp-stats", "TCP", dns)
	case "tcp-then-mysql-3306":
		entry("compete-a", "stats.example.net", 3306, "tcp-stats", "TCP", dns)
		entry("compete-b", "mysql.example.net", 3306, "mysql", "MYSQL", dns)
	case "tcp-addr":
		entry("compete-a", "payments.example.net", 5432, "tcp-db", "TCP", "  addresses: [\"240.240.20.1\"]\n"+dns)
	case "tcp-cidr":
		entry("compete-a", "ledger.example.net", 5432, "tcp-db", "TCP", "  addresses: [\"240.240.30.0/24\"]\n  resolution: NONE")
	case "unset-addr":
		b.add(fmt.Sprintf(`apiVersion: networking.istio.io/v1
kind: ServiceEntry
metadata:
  name: compete-a
  namespace: other
  creationTimestamp: %s
spec:
  hosts: [sniff.example.net]
  exportTo: ["*"]
  addresses: ["240.240.40.1"]
  location: MESH_EXTERNAL
  ports:
  - {number: 7000, name: port-7000}
  resolution: DNS`, b.ts()))
	}

	var routes []string
	switch d[dimLMeshVS] {
	case "tls", "tls+tcp":
		routes = append(routes, fmt.Sprintf("  tls:\n  - match:\n    - sniHosts: [%s]\n    route:\n    - destination:\n        host: %s\n        port: {number: %d}", seHost, seHost, apiPort))
	}
	switch d[dimLMeshVS] {
	case "tcp", "tls+tcp":
		routes = append(routes, fmt.Sprintf("  tcp:\n  - route:\n    - destination:\n        host: %s", seHost))
	case "tcp-subnet":
		routes = append(routes, fmt.Sprintf("  tcp:\n  - match:\n    - destinationSubnets: [240.240.10.0/24]\n    route:\n    - destination:\n        host: %s\n        port: {number: %d}", seHost, apiPort))
	case "tcp-weight-zero":
		routes = append(routes, fmt.Sprintf("  tcp:\n  - route:\n    - destination:\n        host: %s\n        port: {number: 80}\n      weight: 0\n    - destination:\n        host: %s\n        port: {number: %d}\n      weight: 100", noiseHost, seHost, apiPort))
	}
	if d[dimLMeshVS] == "http-weight-zero" {
		routes = append(routes, fmt.Sprintf("  http:\n  - route:\n    - destination:\n        host: %s\n        port: {number: 80}\n      weight: 0\n    - destination:\n        host: %s\n        port: {number: %d}\n      weight: 70\n    - destination:\n        host: %s\n        port: {number: %d}\n      weight: 30", noiseHost, seHost, apiPort, seHost, apiPort))
	}
	vsHost := seHost
	switch d[dimLMeshVS] {
	case "http-wildcard", "http-unregistered":
		vsHost = "*.example.com"
		if d[dimLMeshVS] == "http-unregistered" {
			vsHost = unknownHost
		}
		routes = append(routes, fmt.Sprintf("  http:\n  - route:\n    - destination:\n        host: %s\n        port: {number: %d}", seHost, apiPort))
	case "http-src-gateways", "http-src-labels":
		gws := ""
		if d[dimLMeshVS] == "http-src-gateways" {
			gws = "\n      gateways: [mesh]"
		}
		routes = append(routes, fmt.Sprintf("  http:\n  - match:\n    - sourceLabels: {app: other}%s\n    route:\n    - destination:\n        host: %s\n        port: {number: 80}\n  - route:\n    - destination:\n        host: %s\n        port: {number: %d}", gws, noiseHost, seHost, apiPort))
	}
	if len(routes) > 0 {
		b.add(fmt.Sprintf(`apiVersion: networking.istio.io/v1
kind: VirtualService
metadata:
  name: api-mesh-l4
  namespace: app
  creationTimestamp: %s
spec:
  hosts: [%q]
  gateways: [mesh]
%s`, b.ts(), vsHost, strings.Join(routes, "\n")))
	}
}

// addCanaryIstiod adds an istiod Deployment of revision canary running with the given
// PILOT_FILTER_GATEWAY_CLUSTER_CONFIG and PILOT_SCOPE_GATEWAY_TO_NAMESPACE.
func addCanaryIstiod(b *builder, filter, scope bool) {
	b.add(fmt.Sprintf(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: istiod-canary
  namespace: istio-system
  labels: {app: istiod, istio: pilot, istio.io/rev: canary}
  creationTimestamp: %s
spec:
  selector:
    matchLabels: {app: istiod, istio.io/rev: canary}
  template:
    metadata:
      labels: {app: istiod, istio: pilot, istio.io/rev: canary}
    spec:
      containers:
      - name: discovery
        image: docker.io/istio/pilot:1.31.0
        env:
        - name: PILOT_FILTER_GATEWAY_CLUSTER_CONFIG
          value: %q
        - name: PILOT_SCOPE_GATEWAY_TO_NAMESPACE
          value: %q`, b.ts(), fmt.Sprint(filter), fmt.Sprint(scope)))
}

// gatewayAPIObjects adds the objects of gap.gatewayAPI and reports whether it added the Gateway
// API gateway workload.
func gatewayAPIObjects(b *builder, v string) bool {
	if v == "none" {
		return false
	}
	svcPort, target, listenerPort := 80, 80, 80
	switch v {
	case "target-port":
		target = 8080
	case "missing-port":
		listenerPort = 81
	}
	from := "Same"
	if v == "route-other-ns-all" {
		from = "All"
	}
	routeNs := "egress"
	if strings.HasPrefix(v, "route-other-ns") {
		routeNs = "other"
	}
	b.add(fmt.Sprintf(`apiVersion: networking.istio.io/v1
kind: ServiceEntry
metadata:
  name: gwapi
  namespace: other
  creationTimestamp: %s
spec:
  hosts: [gwapi.example.net, gwapi2.example.net]
  exportTo: ["*"]
  location: MESH_EXTERNAL
  resolution: DNS
  ports:
  - {number: 80, name: http, protocol: HTTP}
  - {number: 443, name: tls, protocol: TLS}`, b.ts()))
	listeners := fmt.Sprintf("  - {name: http, hostname: gwapi.example.net, port: %d, protocol: HTTP, allowedRoutes: {namespaces: {from: %s}}}", listenerPort, from)
	if v == "two-listeners" {
		listeners += fmt.Sprintf("\n  - {name: http2, hostname: gwapi2.example.net, port: %d, protocol: HTTP, allowedRoutes: {namespaces: {from: Same}}}", listenerPort)
	}
	tls, tcp := strings.HasPrefix(v, "tls-"), strings.HasPrefix(v, "tcp-")
	extraPorts := ""
	if tls {
		mode := "{mode: Passthrough}"
		if v == "tls-terminate" {
			mode = "{mode: Terminate, options: {gateway.istio.io/tls-terminate-mode: ISTIO_MUTUAL}}"
		}
		allowed := ""
		if v == "tls-dup-sni" {
			allowed = ", allowedRoutes: {namespaces: {from: All}}"
		}
		listeners += "\n  - {name: tls, hostname: gwapi.example.net, port: 443, protocol: TLS, tls: " + mode + allowed + "}"
		extraPorts = "\n  - {name: tls, port: 443, targetPort: 443, appProtocol: tls}"
	}
	if tcp {
		listeners += "\n  - {name: tcp, port: 9443, protocol: TCP}"
		extraPorts = "\n  - {name: tcp, port: 9443, targetPort: 9443, appProtocol: tcp}"
	}
	b.add(fmt.Sprintf(`apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata:
  name: egw
  namespace: egress
  creationTimestamp: %s
spec:
  gatewayClassName: istio
  listeners:
%s`, b.ts(), listeners))
	labels := "{gateway.networking.k8s.io/gateway-name: egw, gateway.networking.k8s.io/gateway-class-name: istio}"
	b.add(fmt.Sprintf(`apiVersion: v1
kind: Service
metadata:
  name: egw-istio
  namespace: egress
  creationTimestamp: %s
spec:
  clusterIP: 10.96.50.30
  selector: {gateway.networking.k8s.io/gateway-name: egw}
  ports:
  - {name: status-port, port: 15021, targetPort: 15021, appProtocol: tcp}
  - {name: http, port: %d, targetPort: %d, appProtocol: http}%s`, b.ts(), svcPort, target, extraPorts))
	b.add(fmt.Sprintf(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: egw-istio
  namespace: egress
  labels: %[1]s
  creationTimestamp: %[2]s
spec:
  selector:
    matchLabels: {gateway.networking.k8s.io/gateway-name: egw}
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
  name: egw-istio-0
  namespace: egress
  labels: %s
  creationTimestamp: %s
spec:
  containers:
  - name: istio-proxy
    image: auto
    ports:
    - containerPort: 80
    - containerPort: 8080
    - containerPort: 443
    - containerPort: 9443
status:
  phase: Running
  podIP: 10.10.0.30
  podIPs: [{ip: 10.10.0.30}]
  conditions:
  - type: Ready
    status: "True"`, labels, b.ts()))
	// weighted-missing-host / weighted-missing-service: the gateway's route splits 3:1 with a
	// second backend the gateway has no cluster for (a Hostname no entry declares, a Service that
	// does not exist): that share fails at the gateway (500 NC under Gateway API semantics).
	weight, second := "", ""
	switch v {
	case "weighted-missing-host":
		weight, second = ", weight: 3", ", {kind: Hostname, group: networking.istio.io, name: gone.example.net, port: 80, weight: 1}"
	case "weighted-missing-service":
		weight, second = ", weight: 3", ", {name: gone, port: 80, weight: 1}"
	}
	route := func(name, ns, host, section string) {
		sec := ""
		if section != "" {
			sec = ", sectionName: " + section
		}
		b.add(fmt.Sprintf(`apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: %s
  namespace: %s
  creationTimestamp: %s
spec:
  parentRefs: [{name: egw, namespace: egress%s}]
  hostnames: [%s]
  rules:
  - backendRefs: [{kind: Hostname, group: networking.istio.io, name: %s, port: 80%s}%s]`, name, ns, b.ts(), sec, host, host, weight, second))
	}
	route("forward-gwapi", routeNs, "gwapi.example.net", "")
	if strings.HasPrefix(v, "mesh-route") || strings.HasPrefix(v, "weighted-") {
		ns, port := "other", ""
		switch v {
		case "mesh-route-consumer":
			ns = "app"
		case "mesh-route-port":
			port = ", port: 80"
		}
		b.add(fmt.Sprintf(`apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: direct-gwapi
  namespace: %s
  creationTimestamp: %s
spec:
  parentRefs: [{group: networking.istio.io, kind: ServiceEntry, name: gwapi, namespace: other%s}]
  rules:
  - backendRefs: [{name: egw-istio, namespace: egress, port: %d}]`, ns, b.ts(), port, svcPort))
	}
	if v == "two-listeners" {
		route("forward-gwapi2", "egress", "gwapi2.example.net", "http2")
	}
	if strings.HasPrefix(v, "grpc-") {
		// A GRPCRoute on the gateway's HTTP listener for the same hostname (merged with the
		// HTTPRoute's rules: its method match comes first) and a mesh GRPCRoute sending the
		// sidecars to the gateway, for every sidecar or (grpc-mesh-method) only for requests
		// whose method is List, from namespace app.
		b.add(fmt.Sprintf(`apiVersion: gateway.networking.k8s.io/v1
kind: GRPCRoute
metadata:
  name: forward-gwapi-grpc
  namespace: egress
  creationTimestamp: %s
spec:
  parentRefs: [{name: egw, namespace: egress}]
  hostnames: [gwapi.example.net]
  rules:
  - matches: [{method: {service: pkg.Svc}}]
    backendRefs: [{kind: Hostname, group: networking.istio.io, name: gwapi2.example.net, port: 80}]`, b.ts()))
		ns, match := "other", ""
		if v == "grpc-mesh-method" {
			ns, match = "app", "\n    matches: [{method: {type: RegularExpression, method: List}}]"
		}
		b.add(fmt.Sprintf(`apiVersion: gateway.networking.k8s.io/v1
kind: GRPCRoute
metadata:
  name: direct-gwapi-grpc
  namespace: %s
  creationTimestamp: %s
spec:
  parentRefs: [{group: networking.istio.io, kind: ServiceEntry, name: gwapi, namespace: other}]
  rules:
  - backendRefs: [{name: egw-istio, namespace: egress, port: %d}]%s`, ns, b.ts(), svcPort, match))
	}
	if tls {
		host := "gwapi.example.net"
		if v == "tls-host-mismatch" {
			host = "gwapi2.example.net"
		}
		if v == "tls-dup-sni" {
			b.add(fmt.Sprintf(`apiVersion: gateway.networking.k8s.io/v1
kind: TLSRoute
metadata:
  name: older-gwapi-tls
  namespace: other
  creationTimestamp: %s
spec:
  parentRefs: [{name: egw, namespace: egress}]
  hostnames: [gwapi.example.net]
  rules:
  - backendRefs: [{kind: Hostname, group: networking.istio.io, name: gwapi2.example.net, port: 443}]`, b.ts()))
		}
		b.add(fmt.Sprintf(`apiVersion: gateway.networking.k8s.io/v1
kind: TLSRoute
metadata:
  name: forward-gwapi-tls
  namespace: egress
  creationTimestamp: %s
spec:
  parentRefs: [{name: egw, namespace: egress}]
  hostnames: [%s]
  rules:
  - backendRefs: [{kind: Hostname, group: networking.istio.io, name: %s, port: 443}]`, b.ts(), host, host))
		meshBackend := "{name: egw-istio, namespace: egress, port: 443}"
		if v == "tls-mesh-backend-refused" {
			meshBackend = "{group: gateway.networking.k8s.io, kind: Gateway, name: egw, namespace: egress, port: 443}"
		}
		if v != "tls-gateway-only" {
			b.add(fmt.Sprintf(`apiVersion: gateway.networking.k8s.io/v1alpha2
kind: TLSRoute
metadata:
  name: direct-gwapi-tls
  namespace: other
  creationTimestamp: %s
spec:
  parentRefs: [{group: networking.istio.io, kind: ServiceEntry, name: gwapi, namespace: other, port: 443}]
  rules:
  - backendRefs: [%s]`, b.ts(), meshBackend))
		}
	}
	if tcp {
		ns := "egress"
		if v == "tcp-route-other-ns" {
			ns = "other"
		}
		gwBackend := "{kind: Hostname, group: networking.istio.io, name: gwapi.example.net, port: 443}"
		if v == "tcp-backend-refused" {
			gwBackend = "{kind: ServiceEntry, group: networking.istio.io, name: gwapi, namespace: other, port: 443}"
		}
		b.add(fmt.Sprintf(`apiVersion: gateway.networking.k8s.io/v1alpha2
kind: TCPRoute
metadata:
  name: forward-gwapi-tcp
  namespace: %s
  creationTimestamp: %s
spec:
  parentRefs: [{name: egw, namespace: egress, sectionName: tcp}]
  rules:
  - backendRefs: [%s]`, ns, b.ts(), gwBackend))
		b.add(fmt.Sprintf(`apiVersion: gateway.networking.k8s.io/v1
kind: TCPRoute
metadata:
  name: direct-gwapi-tcp
  namespace: other
  creationTimestamp: %s
spec:
  parentRefs: [{group: networking.istio.io, kind: ServiceEntry, name: gwapi, namespace: other, port: 443}]
  rules:
  - backendRefs: [{name: egw-istio, namespace: egress, port: 9443}]`, b.ts()))
	}
	if v == "classic-empty-selector" {
		b.add(fmt.Sprintf(`apiVersion: networking.istio.io/v1
kind: Gateway
metadata:
  name: classic-any
  namespace: istio-system
  creationTimestamp: %s
spec:
  selector: {}
  servers:
  - port: {number: 8090, name: http-any, protocol: HTTP}
    hosts: ["*/gwapi.example.net"]`, b.ts()))
	}
	return true
}
