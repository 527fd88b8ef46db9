package checks

import (
	"slices"
	"strings"
)

// One fault, two views: preflight traces the path from each client namespace and also takes
// each gateway's verdict, and a fault at the gateway (TLS originated twice, say) is seen by both
// under the same code, blaming the same resource and field, in each view's own words. Listed
// twice it reads as two faults. mergePathAndGateway keeps the first of the two with the contexts
// of both. Findings of the same code that are not the two views of one call stay apart (two
// subsets missing from one DestinationRule are two faults).
func mergePathAndGateway(fs []PreflightFinding) []PreflightFinding {
	type place struct{ id, kind, ns, name, field string }
	first := make(map[place]int, len(fs))
	out := make([]PreflightFinding, 0, len(fs))
	for _, f := range fs {
		k := place{f.ID, f.Resource.Kind, f.Resource.Namespace, f.Resource.Name, f.Field}
		if i, ok := first[k]; ok && f.Resource.Name != "" && (pathAndGateway(out[i], f) || listenerAndPath(out[i], f) || faultPerResource[f.Code]) {
			for _, c := range f.Contexts {
				if !slices.Contains(out[i].Contexts, c) {
					out[i].Contexts = append(out[i].Contexts, c)
				}
			}
			continue
		}
		if _, ok := first[k]; !ok {
			first[k] = len(out)
		}
		out = append(out, f)
	}
	return out
}

// faultPerResource are the codes whose findings about one resource are one fault whatever
// calls and ports saw them: an unprivileged gateway's Service with targetPorts below 1024 is
// fixed once for every port and every client.
var faultPerResource = map[string]bool{GatewayPrivilegedPort: true}

// pathAndGateway: one finding was seen only on traced paths ("path from sidecar in NS, KIND
// host:port"), the other only in gateway verdicts ("gateway NS/NAME, host:port"), for a common
// host:port.
func pathAndGateway(a, b PreflightFinding) bool {
	calls := func(f PreflightFinding, prefix string) []string {
		var out []string
		for _, c := range f.Contexts {
			if !strings.HasPrefix(c, prefix) {
				return nil
			}
			if rest, ok := strings.CutSuffix(c, " (every declared port)"); ok {
				// a gateway verdict for every port of the host: "host:*"
				out = append(out, rest[strings.LastIndex(rest, " ")+1:]+":*")
				continue
			}
			out = append(out, c[strings.LastIndex(c, " ")+1:])
		}
		return out
	}
	for _, p := range [][2]PreflightFinding{{a, b}, {b, a}} {
		g := calls(p[1], "gateway ")
		for _, hp := range calls(p[0], "path from ") {
			host := hp
			if i := strings.LastIndex(hp, ":"); i > 0 {
				host = hp[:i]
			}
			if slices.Contains(g, hp) || slices.Contains(g, host+":*") {
				return true
			}
		}
	}
	return false
}

// resourceWide are codes that preflight checks once per resource, with a field, and that the
// why-missing verdicts it collects also carry as warnings, without one: a route status that
// disagrees with the prediction, a route CRD istiod ignores, an entry validation rejects. The
// verdict's copy is the same fault (blind audit 67: EGR0906 and EGR0137 listed twice).
var resourceWide = map[string]bool{PreflightRouteStatusDiffers: true, PreflightCRDTooOld: true, PreflightSERejected: true}

// mergeFieldless folds a finding of a resourceWide code without a field into a finding of the
// same code about the same resource with one: its contexts are added. Otherwise it stays.
func mergeFieldless(fs []PreflightFinding) []PreflightFinding {
	type key struct{ code, kind, ns, name string }
	withField := map[key]int{}
	for i, f := range fs {
		if resourceWide[f.Code] && f.Field != "" {
			if _, ok := withField[key{f.Code, f.Resource.Kind, f.Resource.Namespace, f.Resource.Name}]; !ok {
				withField[key{f.Code, f.Resource.Kind, f.Resource.Namespace, f.Resource.Name}] = i
			}
		}
	}
	if len(withField) == 0 {
		return fs
	}
	drop := map[int]bool{}
	for i, f := range fs {
		if !resourceWide[f.Code] || f.Field != "" {
			continue
		}
		j, ok := withField[key{f.Code, f.Resource.Kind, f.Resource.Namespace, f.Resource.Name}]
		if !ok {
			continue
		}
		for _, c := range f.Contexts {
			if !slices.Contains(fs[j].Contexts, c) {
				fs[j].Contexts = append(fs[j].Contexts, c)
			}
		}
		drop[i] = true
	}
	out := make([]PreflightFinding, 0, len(fs)-len(drop))
	for i, f := range fs {
		if !drop[i] {
			out = append(out, f)
		}
	}
	return out
}

// listenerAndPath: one finding was seen only on client sidecars' listeners ("sidecar in NS,
// port P"), the other only on traced paths ("path from sidecar in NS, KIND host:P"), for a
// common namespace and port: the same chain seen from the listener and from the call (blind
// audit 68 case 12: FILTER_CHAIN_DROPPED listed twice for one ServiceEntry).
func listenerAndPath(a, b PreflightFinding) bool {
	at := func(f PreflightFinding, path bool) []string {
		var out []string
		for _, c := range f.Contexts {
			if path {
				rest, ok := strings.CutPrefix(c, "path from sidecar in ")
				ns, call, ok2 := strings.Cut(rest, ", ")
				i := strings.LastIndex(call, ":")
				if !ok || !ok2 || i < 0 {
					return nil
				}
				out = append(out, ns+" "+call[i+1:])
				continue
			}
			rest, ok := strings.CutPrefix(c, "sidecar in ")
			ns, port, ok2 := strings.Cut(rest, ", port ")
			if !ok || !ok2 {
				return nil
			}
			out = append(out, ns+" "+port)
		}
		return out
	}
	for _, p := range [][2]PreflightFinding{{a, b}, {b, a}} {
		l := at(p[0], false)
		for _, np := range at(p[1], true) {
			if slices.Contains(l, np) {
				return true
			}
		}
	}
	return false
}

// sameFault maps a code of export-audit to the code under which the gateway's verdict and the
// traced paths report the same fault of the same resource: a ServiceEntry whose exportTo
// excludes the gateway's namespace is SE_NOT_EXPORTED_TO_GATEWAY_NAMESPACE in export-audit and
// NOT_EXPORTED_TO_GATEWAY_NAMESPACE where a call fails on it.
var sameFault = map[string]string{
	AuditSENotExportedToGateway: CauseNotExported,
}

// sameFaultIf maps a code to the code under which the same fault of the same resource is
// reported, for the findings that meet the condition only: a route whose cluster is missing
// because no DestinationRule defines its subset is the VirtualService's undefined subset
// (export-audit's SUBSET_NOT_DEFINED_ANYWHERE), not another fault of the route.
var sameFaultIf = map[string][]sameFaultCond{
	ListenerClusterAbsent: {{AuditSubsetUndefined, func(f PreflightFinding) bool {
		// (blamed on the route, or on the rule of the proxy's namespace that hides the one
		// defining the subset: blind audit 99 c13, two Errors for one fault)
		return (f.Resource.Kind == "VirtualService" || f.Resource.Kind == "DestinationRule") && strings.Contains(f.Message, noSubsetReason)
	}}, {AuditDRNotExportedToClient, func(f PreflightFinding) bool {
		// ... or the DestinationRule that defines the subset but is not exported to the
		// client's namespace: export-audit's DR_NOT_EXPORTED_TO_CLIENT_NAMESPACE about it
		return f.Resource.Kind == "DestinationRule" && strings.Contains(f.Message, noSubsetReason)
	}}},
	// A gateway sending plaintext to a TLS port because the rule that would originate TLS is not
	// exported to its namespace: export-audit's DR_TLS_NOT_EXPORTED_TO_GATEWAY_NAMESPACE about
	// that rule.
	PathNotOriginated: {{AuditDRTLSNotExportedToGW, func(f PreflightFinding) bool { return f.Resource.Kind == "DestinationRule" }}},
	// A traced call that goes straight out because istiod ignores the Gateway API routes for
	// its host (their CRD): the CRD's GATEWAY_API_CRD_TOO_OLD.
	PathDirect: {{PreflightCRDTooOld, func(f PreflightFinding) bool { return f.Resource.Kind == "CustomResourceDefinition" }}},
	PathGatewayNotListen: {
		// The traced call finds no listener because the Gateway it blames applies to no
		// gateway workload (the namespace scope, a revision): the gateway verdict's
		// GATEWAY_DOES_NOT_APPLY about that Gateway says the same.
		{CauseGatewayNotApplied, func(f PreflightFinding) bool { return f.Resource.Kind == "Gateway" }},
		// ... or because the VirtualService's routes do not bind to the server: its
		// ROUTE_NOT_BOUND about that VirtualService.
		{CauseRouteNotBound, func(f PreflightFinding) bool { return f.Resource.Kind == "VirtualService" }},
		// ... or because the Gateway API route meant for the listener does not attach: its
		// GATEWAY_API_ROUTE_NOT_ACCEPTED.
		{PreflightRouteNotAccepted, func(f PreflightFinding) bool {
			return strings.HasSuffix(f.Resource.Kind, "Route")
		}},
	},
	// A Gateway's server istiod skips (explain-listener, per port) is why the routes bound to
	// it are never built (the gateway verdict's ROUTE_NOT_BOUND about that Gateway).
	ListenerServerDropped: {{CauseRouteNotBound, func(f PreflightFinding) bool { return f.Resource.Kind == "Gateway" }}},
	// A call the gateway's TCP server takes because istiod skipped the server for its host
	// (the traced path's CALL_REACHES_ANOTHER_SERVICE about the skipped server's Gateway): the
	// gateway verdict's ROUTE_NOT_BOUND about that Gateway.
	PathWrongService: {{CauseRouteNotBound, func(f PreflightFinding) bool { return f.Resource.Kind == "Gateway" }}},
	// A traced TLS call whose SNI no chain of the gateway's listener matches, blamed on the
	// VirtualService whose tls routes leave the host out: its ROUTE_NOT_BOUND for the host.
	// ... or on the Gateway whose server istiod skipped (a duplicate TLS host): its
	// ROUTE_NOT_BOUND says the routes bound to that server are never built.
	PathGatewayNoChain: {{CauseRouteNotBound, func(f PreflightFinding) bool {
		return f.Resource.Kind == "VirtualService" || f.Resource.Kind == "Gateway"
	}}},
	// A traced HTTP call that gets 404 NR at the gateway because the VirtualService meant for
	// it does not bind (exportTo, hosts, match.port): that VirtualService's ROUTE_NOT_BOUND.
	PathGatewayNoRoute: {{CauseRouteNotBound, func(f PreflightFinding) bool { return f.Resource.Kind == "VirtualService" }}},
	// export-audit's view of a VirtualService hidden from the gateway's namespace: the same
	// VirtualService's ROUTE_NOT_BOUND (blind audit 29 #19: three Errors for one exportTo).
	AuditVSNotExportedToGateway: {{CauseRouteNotBound, func(f PreflightFinding) bool { return f.Resource.Kind == "VirtualService" }}},
	// export-audit's view of a delegate VirtualService hidden from its root's namespace: the
	// traced path's GATEWAY_NO_ROUTE_FOR_HOST, or the gateway verdict's
	// NOT_REFERENCED_BY_BOUND_ROUTE (PILOT_FILTER_GATEWAY_CLUSTER_CONFIG), about the same
	// delegate (blind audit 57 #124).
	AuditDelegateNotExported: {{PathGatewayNoRoute, func(f PreflightFinding) bool { return f.Resource.Kind == "VirtualService" }},
		{CauseNotReferenced, func(f PreflightFinding) bool { return f.Resource.Kind == "VirtualService" }}},
	// export-audit's view of a mesh VirtualService no sidecar sees: the traced path's
	// PATH_BYPASSES_GATEWAY about the same VirtualService (blind audit 54 a3).
	AuditVSMeshNoClient: {{PathDirect, func(f PreflightFinding) bool { return f.Resource.Kind == "VirtualService" }}},
	// tls routes a terminating server ignores: the VirtualService's ROUTE_NOT_BOUND.
	ListenerTLSOnTerminating: {{CauseRouteNotBound, func(f PreflightFinding) bool { return f.Resource.Kind == "VirtualService" }}},
	// http routes a passthrough server ignores (so the VirtualService has no tls route for
	// it): the VirtualService's ROUTE_NOT_BOUND.
	ListenerHTTPOnPassthrough: {{CauseRouteNotBound, func(f PreflightFinding) bool { return f.Resource.Kind == "VirtualService" }}},
}

// mergeRouteCaused folds a gateway verdict's PORT_NOT_DECLARED about an entry (its contexts all
// "gateway G, host:P") into a ROUTE_CLUSTER_ABSENT finding about a VirtualService that names the
// same missing cluster outbound|P||host on the same gateway (in its message or contexts): the
// route sending the host to a port no entry declares (an older catch-all taking the traffic
// meant for another route, or a typo while the entry declares the port clients call) is the
// fault, and declaring the port would only make that route's wrong destination work. The
// entry's finding is listed in AlsoReportedAs, as mergeSameFault does.
func mergeRouteCaused(fs []PreflightFinding) []PreflightFinding {
	// the routes' findings, once: each entry finding is matched against these only
	var routes []int
	for j, r := range fs {
		if r.Code == ListenerClusterAbsent && r.Resource.Kind == "VirtualService" {
			routes = append(routes, j)
		}
	}
	if len(routes) == 0 {
		return fs
	}
	drop := map[int]bool{}
	for i, f := range fs {
		if f.Code != CausePortNotDeclared || len(f.Contexts) == 0 {
			continue
		}
		target := -1
		for _, c := range f.Contexts {
			gw, hp, ok := strings.Cut(strings.TrimPrefix(c, "gateway "), ", ")
			i := strings.LastIndex(hp, ":")
			if !ok || !strings.HasPrefix(c, "gateway ") || i <= 0 {
				target = -1
				break
			}
			cluster := "outbound|" + hp[i+1:] + "||" + hp[:i]
			j := -1
			for _, k := range routes {
				r := fs[k]
				if strings.Contains(r.Message, cluster) &&
					(strings.Contains(r.Message, "gateway "+gw+" ") || slices.ContainsFunc(r.Contexts, func(rc string) bool { return strings.HasPrefix(rc, "gateway "+gw+", ") })) {
					j = k
					break
				}
			}
			if j < 0 || (target >= 0 && j != target) {
				target = -1
				break
			}
			target = j
		}
		if target < 0 {
			continue
		}
		p := &fs[target]
		for _, c := range f.Contexts {
			if !slices.Contains(p.Contexts, c) {
				p.Contexts = append(p.Contexts, c)
			}
		}
		if alias := strings.TrimSpace(f.ID + " " + f.Code); !slices.Contains(p.AlsoReportedAs, alias) {
			p.AlsoReportedAs = append(p.AlsoReportedAs, alias)
		}
		drop[i] = true
	}
	return withoutDropped(fs, drop)
}

// sameFaultCond is one alias of sameFaultIf: the code it folds into, when the finding meets the
// condition.
type sameFaultCond struct {
	to   string
	when func(PreflightFinding) bool
}

// mergeSameFault folds a finding whose code sameFault maps into the finding of the mapped code
// about the same resource, when there is one: its contexts are added, and its ID and code are
// listed in AlsoReportedAs (a suppression of either code suppresses the merged finding). Without
// such a finding it stays as it is.
func mergeSameFault(fs []PreflightFinding) []PreflightFinding {
	type key struct{ code, kind, ns, name string }
	// Several findings of the primary code can be about one resource (one per gateway whose
	// namespace the entry is hidden from): each lists the alias; the first takes its contexts.
	primary := map[key][]int{}
	for i, f := range fs {
		k := key{f.Code, f.Resource.Kind, f.Resource.Namespace, f.Resource.Name}
		primary[k] = append(primary[k], i)
	}
	drop := map[int]bool{}
	for i, f := range fs {
		to, ok := sameFault[f.Code]
		for _, c := range sameFaultIf[f.Code] {
			if c.when(f) && len(primary[key{c.to, f.Resource.Kind, f.Resource.Namespace, f.Resource.Name}]) > 0 {
				to, ok = c.to, true
				break
			}
		}
		if !ok {
			continue
		}
		js := primary[key{to, f.Resource.Kind, f.Resource.Namespace, f.Resource.Name}]
		if len(js) == 0 {
			continue
		}
		p := &fs[js[0]]
		for _, c := range f.Contexts {
			if !slices.Contains(p.Contexts, c) {
				p.Contexts = append(p.Contexts, c)
			}
		}
		alias := strings.TrimSpace(f.ID + " " + f.Code)
		for _, j := range js {
			if !slices.Contains(fs[j].AlsoReportedAs, alias) {
				fs[j].AlsoReportedAs = append(fs[j].AlsoReportedAs, alias)
			}
		}
		drop[i] = true
	}
	return withoutDropped(fs, drop)
}

// withoutDropped returns fs without the findings whose index drop marks (fs itself when none).
func withoutDropped(fs []PreflightFinding, drop map[int]bool) []PreflightFinding {
	if len(drop) == 0 {
		return fs
	}
	out := make([]PreflightFinding, 0, len(fs)-len(drop))
	for i, f := range fs {
		if !drop[i] {
			out = append(out, f)
		}
	}
	return out
}

// mergeCallKinds folds findings of one code, level, resource and field seen only on traced
// paths of the same host and port with different call kinds ("path from sidecar in NS, HTTP
// h:443" and "..., TLS h:443": preflight traces each kind a port's routes name) into the
// first: the same fault, explained for each kind, listed once with both contexts (blind audits
// 95 c45 and 99 c34, c45: one row twice).
func mergeCallKinds(fs []PreflightFinding) []PreflightFinding {
	type key struct{ code, level, res, field, where string }
	// where: the contexts without their call kinds ("path from sidecar in NS, h:443", ...);
	// kinds: the kinds they name
	split := func(f PreflightFinding) (where string, kinds []string, ok bool) {
		var ws []string
		for _, c := range f.Contexts {
			i := strings.LastIndex(c, ", ")
			if !strings.HasPrefix(c, "path from ") || i < 0 {
				return "", nil, false
			}
			kind, hp, ok := strings.Cut(c[i+2:], " ")
			if !ok || strings.ToUpper(kind) != kind {
				return "", nil, false
			}
			ws = append(ws, c[:i]+", "+hp)
			if !slices.Contains(kinds, kind) {
				kinds = append(kinds, kind)
			}
		}
		slices.Sort(ws)
		return strings.Join(slices.Compact(ws), "; "), kinds, len(ws) > 0
	}
	first := map[key]int{}
	firstKinds := map[int][]string{}
	drop := map[int]bool{}
	for i, f := range fs {
		where, kinds, ok := split(f)
		if !ok {
			continue
		}
		k := key{f.Code, f.Level, f.Resource.String(), f.Field, where}
		j, seen := first[k]
		if !seen || slices.ContainsFunc(kinds, func(x string) bool { return slices.Contains(firstKinds[j], x) }) {
			// (the same clients and call kind with another message: another fault, kept)
			if !seen {
				first[k], firstKinds[i] = i, kinds
			}
			continue
		}
		for _, c := range f.Contexts {
			if !slices.Contains(fs[j].Contexts, c) {
				fs[j].Contexts = append(fs[j].Contexts, c)
			}
		}
		firstKinds[j] = append(firstKinds[j], kinds...)
		drop[i] = true
	}
	return withoutDropped(fs, drop)
}
