package checks

import (
	"fmt"
	"sort"
	"strings"

	"github.com/kubectl-egress/kubectl-egress/pkg/rules"
	"github.com/kubectl-egress/kubectl-egress/pkg/snapshot"
)

// The Gateway API CRD version gate (issue #17): istiod watches a route kind only when its CRD
// comes from a Gateway API release at least as new as the one it was built for (TLSRoute
// v1.5.0, TCPRoute v1.6.0, GRPCRoute v1.1.0), read from the CRD's bundle-version annotation; an
// older CRD, or one without the annotation, and istiod ignores every route of the kind, writing
// no status, so they fail silently. The model leaves them out as istiod does (model.View); this
// says so where they matter.

// PreflightCRDTooOld: routes of a kind istiod ignores because of its CRD.
const PreflightCRDTooOld = "GATEWAY_API_CRD_TOO_OLD"

func init() {
	Catalog = append(Catalog, CatalogEntry{Code: PreflightCRDTooOld, Level: LevelError,
		Description: "Routes of a Kubernetes Gateway API kind (TLSRoute, TCPRoute, GRPCRoute) exist, but the kind's CRD comes from a Gateway API release older than the one istiod requires (TLSRoute v1.5.0, TCPRoute v1.6.0, GRPCRoute v1.1.0), or lacks its gateway.networking.k8s.io/bundle-version annotation. istiod then ignores every route of that kind: it generates no configuration from them and writes no status, so the traffic they route goes elsewhere or nowhere."})
}

// ignoredKind is a route kind istiod ignores because of its CRD, with the routes it ignores.
type ignoredKind struct {
	kind, crd, why string
	routes         []string
}

type ignoredKindsKey struct{}

// crdIgnoredKinds lists the route kinds of the snapshot istiod ignores because of their CRDs
// (rules.KubeCRDIgnored), once per snapshot.
func crdIgnoredKinds(snap *snapshot.Snapshot) []ignoredKind {
	if len(snap.GatewayAPICRDs) == 0 {
		return nil
	}
	return snap.Derived(ignoredKindsKey{}, func() any {
		var out []ignoredKind
		for kind, crd := range snap.GatewayAPICRDs {
			ign, why := rules.KubeCRDIgnored(kind, crd.Version, crd.Annotated)
			if !ign {
				continue
			}
			k := ignoredKind{kind: kind, crd: crd.Name, why: why}
			for _, o := range snap.GatewayAPI {
				if o.Kind == kind {
					k.routes = append(k.routes, o.Ref())
				}
			}
			sort.Strings(k.routes)
			out = append(out, k)
		}
		sort.Slice(out, func(i, j int) bool { return out[i].kind < out[j].kind })
		return out
	}).([]ignoredKind)
}

// crdUpgradeFix is the fix for a kind whose CRD istiod ignores.
func crdUpgradeFix(k ignoredKind) string {
	// The install replaces every route kind's CRD: it must be recent enough for all of them.
	all := rules.KubeCRDMinimumAll()
	return fmt.Sprintf("Install the Gateway API CRDs of release %s or newer (%s needs %s; the other route kinds istiod reads need up to %s, and an install replaces them all; the experimental channel has TLSRoute and TCPRoute), for example `kubectl apply --server-side -f https://github.com/kubernetes-sigs/gateway-api/releases/download/%s/experimental-install.yaml`, then check that istiod writes the routes' status; see https://istio.io/latest/docs/tasks/traffic-management/ingress/gateway-api/.",
		all, k.kind, rules.KubeCRDMinimum(k.kind), all, all)
}

// crdFindings: GATEWAY_API_CRD_TOO_OLD for every route kind istiod ignores while routes of it
// exist (preflight).
func crdFindings(snap *snapshot.Snapshot) []PreflightFinding {
	var out []PreflightFinding
	for _, k := range crdIgnoredKinds(snap) {
		if len(k.routes) == 0 {
			continue
		}
		shown := k.routes
		if len(shown) > 5 {
			shown = append(shown[:5:5], fmt.Sprintf("and %d more", len(k.routes)-5))
		}
		out = append(out, NewPreflightFinding(PreflightCRDTooOld, CheckPreflight, ResourceRef{Kind: "CustomResourceDefinition", Name: k.crd},
			"metadata.annotations["+rules.AnnotationBundleVersion+"]",
			fmt.Sprintf("istiod ignores every %s: %s. These routes change nothing in the mesh and get no status: %s.", k.kind, k.why, strings.Join(shown, ", ")),
			crdUpgradeFix(k)))
	}
	return out
}

// crdIgnoredFor: for a verdict about host, the routes istiod ignores because of their CRD that
// name the host (a hostname matching it, a backendRef naming it, a ServiceEntry parent declaring
// it), as findings (Warning) to add to the verdict.
func crdIgnoredFor(snap *snapshot.Snapshot, host string) []Finding {
	kinds := crdIgnoredKinds(snap)
	if len(kinds) == 0 {
		return nil
	}
	entries := entryHosts(snap)
	host = rules.NormalizeHost(host)
	var out []Finding
	for _, k := range kinds {
		var hit []string
		for _, o := range snap.GatewayAPI {
			if o.Kind != k.kind {
				continue
			}
			for _, h := range gatewayAPIHosts(o, entries) {
				if rules.HostMatches(h, host) {
					hit = append(hit, o.Ref())
					break
				}
			}
		}
		if len(hit) == 0 {
			continue
		}
		sort.Strings(hit)
		out = append(out, Finding{Code: PreflightCRDTooOld, Level: LevelWarning, Resource: "CustomResourceDefinition " + k.crd,
			Message: fmt.Sprintf("%s %s, but istiod ignores every %s (%s), so this verdict leaves them out as istiod does.", strings.Join(hit, ", "), verbFor(len(hit)), k.kind, k.why),
			Fix:     crdUpgradeFix(k)})
	}
	return out
}

// crdIgnoredKind says whether istiod ignores every object of kind because of its CRD.
func crdIgnoredKind(snap *snapshot.Snapshot, kind string) bool {
	for _, k := range crdIgnoredKinds(snap) {
		if k.kind == kind {
			return true
		}
	}
	return false
}

func verbFor(n int) string {
	if n == 1 {
		return "routes this host"
	}
	return "route this host"
}

// gatewayCRDUnreadNote: the note for a verdict when the Gateway API CRDs could not be read.
func gatewayCRDUnreadNote(snap *snapshot.Snapshot) string {
	if snap.GatewayAPICRDsUnread == "" {
		return ""
	}
	return "the Gateway API CRDs could not be read (" + snap.GatewayAPICRDsUnread + "): TLSRoutes, TCPRoutes and GRPCRoutes are taken as istiod reads them, which it does only when their CRDs are recent enough"
}
