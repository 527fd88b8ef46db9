package checks

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	networking "istio.io/api/networking/v1alpha3"
	networkingv1 "istio.io/client-go/pkg/apis/networking/v1"

	"github.com/kubectl-egress/kubectl-egress/pkg/rules"
	"github.com/kubectl-egress/kubectl-egress/pkg/snapshot"
)

// PreflightVSRejected: a VirtualService in the input that Istio's validation refuses, so it can
// never be applied and istiod never sees it.
const PreflightVSRejected = "VS_REJECTED_BY_VALIDATION"

func init() {
	Catalog = append(Catalog, CatalogEntry{Code: PreflightVSRejected, Level: LevelError,
		Description: "A VirtualService in the manifests breaks a rule of Istio's validation. The common ones: a tls route's sniHosts not covered by the VirtualService's hosts; a tls route without a match or without sniHosts; a gateway named neither namespace/name nor a single name; the host \"*\" on a VirtualService that applies to sidecars; two hosts that overlap; an http route with neither route, redirect nor directResponse, or with two of them; a destination host \"*\", a subset name that is not a DNS label, a port outside 1..65535; no http, tls or tcp routes at all; an exportTo entry that is not a namespace. istiod's validating webhook rejects the object, so applying the manifests fails and the mesh keeps the VirtualService it had, if any. Checks of the other objects take the VirtualService as written; a verdict about one of its hosts carries this finding as a warning."})
}

// vsRejections returns the rules of Istio's validation that VirtualService vs breaks (field,
// why, fix), at most one per rule.
//
// Mirrors istiod pkg/config/validation/validation.go ValidateVirtualService: delegate rules,
// validateGatewayNames, the hosts (ValidateWildcardDomain, "*" for the mesh, duplicates), the
// routes present, virtualservice.go validateHTTPRoute (validateHTTPRouteConflict,
// validateHTTPRouteMatchRequest's ports, labels, gateways, sourceNamespace and string matches,
// the destinations and weights, mirror, redirect, direct response status, timeout),
// validateTLSRoute (validateTLSMatch, validateSniHost), validateTCPRoute, validateExportTo.
// Header operations, CORS, fault injection, retries and rewrites are not mirrored. The
// conformance suite compares it with istiod's (hack/conformance validation_test.go).
func vsRejections(vs *networkingv1.VirtualService) []seRejection {
	spec := &vs.Spec
	ref := "VirtualService " + vs.Namespace + "/" + vs.Name
	var out []seRejection
	add := func(field, why, fix string) { out = append(out, seRejection{field, why, fix}) }
	if len(spec.GetHosts()) == 0 {
		switch {
		case len(spec.GetGateways()) > 0:
			add("spec.gateways", "it has no hosts (a delegate) and names gateways, which a delegate may not", fmt.Sprintf("In %s, list the hosts it routes, or remove its gateways if it is a delegate.", ref))
		case len(spec.GetTls()) > 0 || len(spec.GetTcp()) > 0:
			add("spec.hosts", "it has no hosts (a delegate) and has tls or tcp routes, which a delegate may not", fmt.Sprintf("In %s, list the hosts it routes.", ref))
		}
	}
	toGateway := len(spec.GetGateways()) > 0 && !slices.Contains(spec.GetGateways(), rules.MeshGateway)
	if p := gatewayNamesProblem(spec.GetGateways()); p != "" {
		add("spec.gateways", p, gatewayNamesFix(ref))
	}
	allValid := true
	for _, h := range spec.GetHosts() {
		if p := wildcardDomainProblem(h); p != "" && !validIP(h) {
			allValid = false
			add("spec.hosts", fmt.Sprintf("host %q is not a DNS name: %s", h, p), fmt.Sprintf("In %s, write each host as a bare DNS name (api.example.com: no scheme, port or path; a wildcard only as the first label, *.example.com).", ref))
			break
		} else if p == "" && !toGateway && h == "*" {
			allValid = false
			add("spec.hosts", "it has the host \"*\" and applies to sidecars (its gateways are unset or list mesh), which Istio refuses", fmt.Sprintf("In %s, name the hosts it routes (a wildcard such as *.example.com is allowed).", ref))
			break
		}
	}
	if allValid {
	dup:
		for i, a := range spec.GetHosts() {
			for _, b := range spec.GetHosts()[i+1:] {
				if rules.HostMatches(a, b) {
					add("spec.hosts", fmt.Sprintf("its hosts %s and %s overlap", a, b), fmt.Sprintf("In %s, keep one of %s and %s.", ref, a, b))
					break dup
				}
			}
		}
	}
	if len(spec.GetHttp()) == 0 && len(spec.GetTls()) == 0 && len(spec.GetTcp()) == 0 {
		add("spec", "it has no http, tls or tcp routes", fmt.Sprintf("Give %s the routes it is for, or remove it.", ref))
	}
	for i, r := range spec.GetHttp() {
		if why := httpRouteProblem(r, len(spec.GetHosts()) == 0); why != "" {
			add(fmt.Sprintf("spec.http[%d]", i), why, fmt.Sprintf("In %s, correct http route %d so that Istio's validation accepts it.", ref, i))
		}
	}
	for i, r := range spec.GetTls() {
		if why := tlsRouteProblem(r, spec.GetHosts(), toGateway); why != "" {
			fix := fmt.Sprintf("In %s, correct tls route %d so that Istio's validation accepts it.", ref, i)
			if strings.Contains(why, "not covered by the hosts") {
				fix = fmt.Sprintf("In %s, add the SNI host to spec.hosts (a tls route's sniHosts must be among the VirtualService's hosts), or correct the SNI host.", ref)
			}
			add(fmt.Sprintf("spec.tls[%d]", i), why, fix)
		}
	}
	for i, r := range spec.GetTcp() {
		if why := tcpRouteProblem(r); why != "" {
			add(fmt.Sprintf("spec.tcp[%d]", i), why, fmt.Sprintf("In %s, correct tcp route %d so that Istio's validation accepts it.", ref, i))
		}
	}
	if p := exportToProblem(vs.Namespace, spec.GetExportTo(), false); p != "" {
		add("spec.exportTo", p, fmt.Sprintf("In %s, list each namespace once (\".\" is the VirtualService's own namespace), and use \"*\" alone.", ref))
	}
	return out
}

// gatewayNamesProblem mirrors istiod validateGatewayNames (not gateway semantics): each name
// namespace/name with both DNS labels, or a single name that is a DNS name ("mesh", "gw",
// the legacy gw.namespace).
func gatewayNamesProblem(names []string) string {
	for _, g := range names {
		ns, name, ok := strings.Cut(g, "/")
		if !ok {
			if p := fqdnProblem(g); p != "" {
				return fmt.Sprintf("gateway %q is not a name: %s", g, p)
			}
			continue
		}
		switch {
		case ns == "" || name == "":
			return fmt.Sprintf("gateway %q has an empty namespace or name", g)
		case !isIstioDNSLabel(ns):
			return fmt.Sprintf("gateway %q names the namespace %q, which is not a namespace name", g, ns)
		case !isIstioDNSLabel(name):
			return fmt.Sprintf("gateway %q names %q, which is not a Gateway name (a DNS label)", g, name)
		}
	}
	return ""
}

func gatewayNamesFix(ref string) string {
	return fmt.Sprintf("In %s, name each gateway as namespace/name (istio-system/istio-egressgateway), or \"mesh\" for the sidecars.", ref)
}

// httpRouteProblem mirrors istiod validateHTTPRoute for the fields mirrored (vsRejections).
func httpRouteProblem(r *networking.HTTPRoute, delegate bool) string {
	if r.GetDelegate() != nil && !delegate {
		// a root route (validateHTTPRouteConflict RootRoute)
		if r.GetRedirect() != nil || r.GetRoute() != nil {
			return "a route with a delegate may have neither route nor redirect"
		}
	} else {
		switch {
		case delegate && r.GetDelegate() != nil:
			return "a delegate's route cannot delegate again"
		case r.GetRedirect() != nil && (len(r.GetRoute()) > 0 || r.GetFault() != nil || r.GetRewrite() != nil || r.GetDirectResponse() != nil):
			return "it has a redirect and also a route, fault, rewrite or directResponse"
		case r.GetRedirect() == nil && r.GetDirectResponse() != nil && (len(r.GetRoute()) > 0 || r.GetFault() != nil || r.GetRewrite() != nil):
			return "it has a directResponse and also a route, fault or rewrite"
		case r.GetRedirect() == nil && r.GetDirectResponse() == nil && len(r.GetRoute()) == 0:
			return "it has no route, redirect or directResponse"
		case r.GetMirror() != nil && len(r.GetMirrors()) > 0:
			return "it has both mirror and mirrors"
		}
	}
	for _, m := range r.GetMatch() {
		if m == nil {
			continue
		}
		for _, sm := range []struct {
			where string
			m     *networking.StringMatch
		}{{"scheme", m.GetScheme()}, {"method", m.GetMethod()}, {"authority", m.GetAuthority()}} {
			if p := stringMatchProblem(sm.m, sm.where); p != "" {
				return p
			}
		}
		// the uri: its regex only (validateStringMatchRegexp; an empty prefix passes)
		if _, re := m.GetUri().GetMatchType().(*networking.StringMatch_Regex); re {
			if p := stringMatchProblem(m.GetUri(), "uri"); p != "" {
				return p
			}
		}
		for _, k := range sortedKeysOf(m.GetHeaders()) {
			if p := stringMatchProblem(m.GetHeaders()[k], "headers"); p != "" {
				return p
			}
		}
		for _, k := range sortedKeysOf(m.GetQueryParams()) {
			if p := stringMatchProblem(m.GetQueryParams()[k], "queryParams"); p != "" {
				return p
			}
		}
		if m.GetPort() != 0 && portNumberProblem(int64(m.GetPort())) != "" {
			return "match " + portNumberProblem(int64(m.GetPort()))
		}
		if p := labelsProblem(m.GetSourceLabels()); p != "" {
			return "match sourceLabels: " + p
		}
		if p := gatewayNamesProblem(m.GetGateways()); p != "" {
			return "match " + p
		}
		if ns := m.GetSourceNamespace(); ns != "" && !isIstioDNSLabel(ns) {
			return fmt.Sprintf("match sourceNamespace %q is not a namespace name", ns)
		}
	}
	if p := destinationProblem(r.GetMirror()); p != "" {
		return "mirror " + p
	}
	for _, m := range r.GetMirrors() {
		if m.GetDestination() == nil {
			return "a mirror has no destination"
		}
		if p := destinationProblem(m.GetDestination()); p != "" {
			return "mirror " + p
		}
	}
	if rd := r.GetRedirect(); rd != nil {
		switch {
		case rd.GetUri() != "" && rd.GetPrefixRewrite() != "":
			return "its redirect sets both uri and prefixRewrite"
		case rd.GetUri() == "" && rd.GetPrefixRewrite() == "" && rd.GetAuthority() == "" && rd.GetRedirectPort() == nil && rd.GetScheme() == "":
			return "its redirect sets none of uri, authority, scheme or port"
		case rd.GetRedirectCode() != 0 && (rd.GetRedirectCode() < 300 || rd.GetRedirectCode() > 399):
			return fmt.Sprintf("its redirect code %d is not 3xx", rd.GetRedirectCode())
		case rd.GetScheme() != "" && rd.GetScheme() != "http" && rd.GetScheme() != "https":
			return fmt.Sprintf("its redirect scheme %q is not http or https", rd.GetScheme())
		case rd.GetPort() > 0 && portNumberProblem(int64(rd.GetPort())) != "":
			return "its redirect " + portNumberProblem(int64(rd.GetPort()))
		}
		if rd.GetPrefixRewrite() != "" {
			for _, m := range r.GetMatch() {
				if _, prefix := m.GetUri().GetMatchType().(*networking.StringMatch_Prefix); m.GetUri() != nil && !prefix {
					return "its redirect's prefixRewrite needs every uri match to be a prefix match"
				}
			}
		}
	}
	if dr := r.GetDirectResponse(); dr != nil && (dr.GetStatus() < 200 || dr.GetStatus() > 600) {
		return fmt.Sprintf("its directResponse status %d is not an HTTP status (200-599)", dr.GetStatus())
	}
	if p := routeDestinationsProblem(r.GetRoute()); p != "" {
		return p
	}
	if t := r.GetTimeout(); t != nil {
		if d := t.AsDuration(); d < time.Millisecond || d%time.Millisecond != 0 {
			return fmt.Sprintf("its timeout %s is under 1ms or finer than milliseconds", d)
		}
	}
	return ""
}

// tlsRouteProblem mirrors istiod validateTLSRoute, validateTLSMatch and validateSniHost.
func tlsRouteProblem(r *networking.TLSRoute, hosts []string, toGateway bool) string {
	if len(r.GetMatch()) == 0 {
		return "a tls route has no match (it needs sniHosts)"
	}
	for _, m := range r.GetMatch() {
		if len(m.GetSniHosts()) == 0 {
			return "a tls match has no sniHosts"
		}
		for _, sni := range m.GetSniHosts() {
			if p := wildcardDomainProblem(sni); p != "" {
				if validIP(sni) {
					continue // (a warning only)
				}
				return fmt.Sprintf("SNI host %q is not a DNS name: %s", sni, p)
			}
			if !slices.ContainsFunc(hosts, func(h string) bool { return rules.HostSubsetOf(sni, h) }) {
				return fmt.Sprintf("SNI host %q is not covered by the hosts %s", sni, fmtList(hosts))
			}
		}
		if p := l4MatchProblem(m.GetDestinationSubnets(), m.GetPort(), m.GetSourceLabels(), m.GetGateways()); p != "" {
			return p
		}
	}
	if len(r.GetRoute()) == 0 {
		return "a tls route has no route"
	}
	return routeDestinationsProblem(r.GetRoute())
}

// tcpRouteProblem mirrors istiod validateTCPRoute and validateTCPMatch.
func tcpRouteProblem(r *networking.TCPRoute) string {
	for _, m := range r.GetMatch() {
		if p := l4MatchProblem(m.GetDestinationSubnets(), m.GetPort(), m.GetSourceLabels(), m.GetGateways()); p != "" {
			return p
		}
	}
	if len(r.GetRoute()) == 0 {
		return "a tcp route has no route"
	}
	return routeDestinationsProblem(r.GetRoute())
}

func l4MatchProblem(subnets []string, port uint32, sourceLabels map[string]string, gateways []string) string {
	for _, s := range subnets {
		if p := ipSubnetProblem(s); p != "" {
			return fmt.Sprintf("match destinationSubnet %q: %s", s, p)
		}
	}
	if port != 0 && portNumberProblem(int64(port)) != "" {
		return "match " + portNumberProblem(int64(port))
	}
	if p := labelsProblem(sourceLabels); p != "" {
		return "match sourceLabels: " + p
	}
	if p := gatewayNamesProblem(gateways); p != "" {
		return "match " + p
	}
	return ""
}

// routeDestinationsProblem mirrors istiod validateRouteDestinations and, for http routes,
// validateHTTPRouteDestinations (their destinations and weights; header operations are not
// mirrored).
func routeDestinationsProblem[D interface {
	GetDestination() *networking.Destination
	GetWeight() int32
}](ds []D) string {
	var total int32
	for _, d := range ds {
		if d.GetDestination() == nil {
			return "a route has no destination"
		}
		if p := destinationProblem(d.GetDestination()); p != "" {
			return "route " + p
		}
		if d.GetWeight() < 0 {
			return fmt.Sprintf("a route has the weight %d", d.GetWeight())
		}
		total += d.GetWeight()
	}
	if len(ds) > 1 && total == 0 {
		return "its route destinations' weights add up to 0"
	}
	return ""
}

// destinationProblem mirrors istiod validateDestination: a host that is not "*" and a DNS name
// (a wildcard first label allowed), a subset that is a DNS label, a port in 1..65535.
func destinationProblem(d *networking.Destination) string {
	if d == nil {
		return ""
	}
	if d.GetHost() == "*" {
		return "destination host \"*\" is not a host"
	}
	if p := wildcardDomainProblem(d.GetHost()); p != "" {
		return fmt.Sprintf("destination host %q: %s", d.GetHost(), p)
	}
	if d.GetSubset() != "" && !isIstioDNSLabel(d.GetSubset()) {
		return fmt.Sprintf("destination subset %q is not a DNS label", d.GetSubset())
	}
	if d.GetPort() != nil && portNumberProblem(int64(d.GetPort().GetNumber())) != "" {
		return "destination " + portNumberProblem(int64(d.GetPort().GetNumber()))
	}
	return ""
}

// stringMatchProblem mirrors istiod validateStringMatch (an empty prefix, a regex Go's RE2
// does not compile or longer than 1024).
func stringMatchProblem(m *networking.StringMatch, where string) string {
	switch t := m.GetMatchType().(type) {
	case *networking.StringMatch_Prefix:
		if t.Prefix == "" {
			return fmt.Sprintf("its %s match has an empty prefix", where)
		}
	case *networking.StringMatch_Regex:
		if t.Regex == "" {
			return fmt.Sprintf("its %s match has an empty regex", where)
		}
		if len(t.Regex) > 1024 {
			return fmt.Sprintf("its %s regex is longer than 1024 characters", where)
		}
		if _, err := regexp.Compile(t.Regex); err != nil {
			return fmt.Sprintf("its %s regex does not compile as RE2: %v", where, err)
		}
	}
	return ""
}

// vsValidationFindings: VS_REJECTED_BY_VALIDATION for each VirtualService of the input that
// Istio's validation refuses (the ones istiod generates from Gateway API routes are not
// applied by anyone, and are left out).
func vsValidationFindings(snap *snapshot.Snapshot) []PreflightFinding {
	var out []PreflightFinding
	for _, vs := range snap.VirtualServices {
		if len(rules.GeneratedFrom(vs.Annotations, vs.Namespace)) == 0 {
			out = append(out, rejectionFindings(PreflightVSRejected, "VirtualService", vs.Namespace, vs.Name, "istiod's validating webhook rejects the object, so it never routes anything.", vsRejections(vs))...)
		}
	}
	return out
}
