package checks

import (
	"fmt"

	networking "istio.io/api/networking/v1alpha3"
	networkingv1 "istio.io/client-go/pkg/apis/networking/v1"

	"github.com/kubectl-egress/kubectl-egress/pkg/snapshot"
)

// PreflightSidecarRejected: a Sidecar in the input that Istio's validation refuses (its
// outboundTrafficPolicy), so it can never be applied.
const PreflightSidecarRejected = "SIDECAR_REJECTED_BY_VALIDATION"

func init() {
	Catalog = append(Catalog, CatalogEntry{Code: PreflightSidecarRejected, Level: LevelError,
		Description: "A Sidecar in the manifests breaks a rule of Istio's validation of outboundTrafficPolicy: an egressProxy with a mode other than ALLOW_ANY (an unset mode is REGISTRY_ONLY), without a port, or whose host is not a full DNS name. istiod's validating webhook rejects the object, so applying the manifests fails and the namespace keeps the mesh's outbound policy. Checks of the other objects take the Sidecar as written; a traced call through it carries this finding as a warning."})
}

// sidecarRejections returns the rules of Istio's validation that Sidecar sc's
// outboundTrafficPolicy breaks (field, why, fix).
//
// Mirrors istiod pkg/config/validation/validation.go validateSidecarOutboundTrafficPolicy
// (ALLOW_ANY_DYNAMIC_DNS is refused too, but the Sidecar CRD's schema has no such mode, and the
// decoded object no longer says it was written).
func sidecarRejections(sc *networkingv1.Sidecar) []seRejection {
	p := sc.Spec.GetOutboundTrafficPolicy()
	ep := p.GetEgressProxy()
	if ep == nil {
		return nil
	}
	ref := "Sidecar " + sc.Namespace + "/" + sc.Name
	switch {
	case p.GetMode() != networking.OutboundTrafficPolicy_ALLOW_ANY:
		return []seRejection{{"spec.outboundTrafficPolicy.mode",
			fmt.Sprintf("outboundTrafficPolicy.egressProxy is set while mode is %s (an unset mode is REGISTRY_ONLY), and an egressProxy is allowed only with mode ALLOW_ANY", p.GetMode()),
			fmt.Sprintf("Set spec.outboundTrafficPolicy.mode: ALLOW_ANY in %s (the egressProxy then takes the calls to unknown hosts), or remove the egressProxy.", ref)}}
	case !validFQDN(ep.GetHost()):
		return []seRejection{{"spec.outboundTrafficPolicy.egressProxy.host",
			fmt.Sprintf("egressProxy.host %q is not a full DNS name", ep.GetHost()),
			fmt.Sprintf("Write the egressProxy host of %s as the Service's full name (name.namespace.svc.cluster.local).", ref)}}
	case ep.GetPort() == nil:
		return []seRejection{{"spec.outboundTrafficPolicy.egressProxy.port",
			"egressProxy has no port",
			fmt.Sprintf("Set spec.outboundTrafficPolicy.egressProxy.port.number in %s to the gateway Service port that takes the calls (80 for HTTP).", ref)}}
	}
	return nil
}

// sidecarValidationFindings: SIDECAR_REJECTED_BY_VALIDATION for each Sidecar of the input that
// Istio's validation refuses.
func sidecarValidationFindings(snap *snapshot.Snapshot) []PreflightFinding {
	var out []PreflightFinding
	for _, sc := range snap.Sidecars {
		for _, r := range sidecarRejections(sc) {
			out = append(out, NewPreflightFinding(PreflightSidecarRejected, CheckPreflight, ResourceRef{Kind: "Sidecar", Namespace: sc.Namespace, Name: sc.Name}, r.field,
				fmt.Sprintf("Sidecar %s/%s breaks a rule of Istio's validation: %s. istiod's validating webhook rejects the object and the namespace keeps the mesh's outbound policy.", sc.Namespace, sc.Name, r.why), r.fix))
		}
	}
	return out
}

// sidecarRejectedWarnings: the SIDECAR_REJECTED_BY_VALIDATION findings of the Sidecar that
// applies to a traced call, as warnings on its verdict.
func sidecarRejectedWarnings(sc *networkingv1.Sidecar) []Finding {
	if sc == nil {
		return nil
	}
	var out []Finding
	for _, r := range sidecarRejections(sc) {
		out = append(out, Finding{Code: PreflightSidecarRejected, Level: LevelWarning, Resource: "Sidecar " + sc.Namespace + "/" + sc.Name,
			Message: fmt.Sprintf("Sidecar %s/%s breaks a rule of Istio's validation: %s, so the API server rejects it. This verdict takes the Sidecar as written: it holds only once the Sidecar is fixed so that it can be applied.", sc.Namespace, sc.Name, r.why), Fix: r.fix})
	}
	return out
}
