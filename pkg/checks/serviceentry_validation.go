package checks

import (
	"fmt"
	"slices"
	"strings"

	networking "istio.io/api/networking/v1alpha3"
	networkingv1 "istio.io/client-go/pkg/apis/networking/v1"

	"github.com/kubectl-egress/kubectl-egress/pkg/snapshot"
)

// PreflightSERejected: a ServiceEntry in the input that Istio's validation refuses, so it can
// never be applied and istiod never sees it.
const PreflightSERejected = "SE_REJECTED_BY_VALIDATION"

func init() {
	Catalog = append(Catalog, CatalogEntry{Code: PreflightSERejected, Level: LevelError,
		Description: "A ServiceEntry in the manifests sets CIDR addresses (a.b.c.d/n) with resolution DNS or DNS_ROUND_ROBIN, which Istio's validation refuses (CIDR addresses are allowed only with resolution NONE or STATIC): the API server rejects the object (the CRD's rules, or istiod's validating webhook), so applying the manifests fails and the mesh never gets the entry. Checks of the other objects take the entry as written; a verdict about one of its hosts carries this finding as a warning."})
}

// seValidationFindings: SE_REJECTED_BY_VALIDATION for every ServiceEntry whose addresses hold a
// CIDR while its resolution is DNS or DNS_ROUND_ROBIN (preflight; offline input is not
// validated by an API server).
//
// Mirrors istio pkg/config/validation/validation.go ValidateServiceEntry ("CIDR addresses are
// allowed only for NONE/STATIC resolution types"), which the ServiceEntry CRD's validation rules
// enforce on the API server too.
func seValidationFindings(snap *snapshot.Snapshot) []PreflightFinding {
	var out []PreflightFinding
	for _, se := range snap.ServiceEntries {
		res := se.Spec.GetResolution()
		if res != networking.ServiceEntry_DNS && res != networking.ServiceEntry_DNS_ROUND_ROBIN {
			continue
		}
		var cidrs []string
		for _, a := range se.Spec.GetAddresses() {
			if strings.Contains(a, "/") {
				cidrs = append(cidrs, a)
			}
		}
		if len(cidrs) == 0 {
			continue
		}
		ref := "ServiceEntry " + se.Namespace + "/" + se.Name
		out = append(out, NewPreflightFinding(PreflightSERejected, CheckPreflight, ResourceRef{Kind: "ServiceEntry", Namespace: se.Namespace, Name: se.Name}, "spec.addresses",
			fmt.Sprintf("%s sets CIDR addresses (%s) with resolution %s: Istio's validation allows CIDR addresses only with resolution NONE or STATIC, so the API server rejects the object and the mesh never gets it.", ref, strings.Join(cidrs, ", "), res),
			fmt.Sprintf("In %s, list single addresses (no /n) if the host resolves in DNS, or use resolution NONE (the sidecar passes calls to the CIDR straight through; no endpoints at a gateway) or STATIC with the servers as endpoints.", ref)))
	}
	return out
}

// seRejectedWarnings: the SE_REJECTED_BY_VALIDATION findings of the entries that declare host,
// as warnings on a verdict about host, which takes them as written (blind audit 71 S1: the
// path said OK through an entry preflight called rejected, without a word of it).
func seRejectedWarnings(snap *snapshot.Snapshot, host string) []Finding {
	rejected := snap.Derived(seRejectedKey{}, func() any { return seValidationFindings(snap) }).([]PreflightFinding)
	var out []Finding
	for _, f := range rejected {
		se, _ := findObject(snap, snapshot.KindServiceEntry, f.Resource.Namespace, f.Resource.Name).(*networkingv1.ServiceEntry)
		if se == nil || !slices.Contains(se.Spec.Hosts, host) {
			continue
		}
		out = append(out, Finding{Code: f.Code, Level: LevelWarning, Resource: f.Resource.String(),
			Message: f.Message + " This verdict takes the entry as written: it holds only once the entry is fixed so that it can be applied.", Fix: f.Fix})
	}
	return out
}

type seRejectedKey struct{}
