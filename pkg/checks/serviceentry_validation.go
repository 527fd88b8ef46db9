package checks

import (
	"fmt"
	"strings"

	networking "istio.io/api/networking/v1alpha3"

	"github.com/kubectl-egress/kubectl-egress/pkg/snapshot"
)

// PreflightSERejected: a ServiceEntry in the input that Istio's validation refuses, so it can
// never be applied and istiod never sees it.
const PreflightSERejected = "SE_REJECTED_BY_VALIDATION"

func init() {
	Catalog = append(Catalog, CatalogEntry{Code: PreflightSERejected, Level: LevelError,
		Description: "A ServiceEntry in the manifests sets CIDR addresses (a.b.c.d/n) with resolution DNS or DNS_ROUND_ROBIN, which Istio's validation refuses (CIDR addresses are allowed only with resolution NONE or STATIC): the API server rejects the object (the CRD's rules, or istiod's validating webhook), so applying the manifests fails and the mesh never gets the entry. Checks of the other objects take the entry as written."})
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
