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
		Description: "A ServiceEntry in the manifests breaks a rule of Istio's validation: CIDR addresses (a.b.c.d/n) with resolution DNS or DNS_ROUND_ROBIN; endpoints with resolution NONE; more than one endpoint with DNS_ROUND_ROBIN; several hosts with a port that is neither HTTP nor TLS (unless resolution NONE); both a workloadSelector and endpoints; two ports with one number or one name; the host \"*\"; DYNAMIC_DNS with a host that is not a wildcard, with addresses or endpoints, or with a port that is not HTTP, HTTP2, GRPC or TLS. The API server rejects the object (the CRD's rules, or istiod's validating webhook), so applying the manifests fails and the mesh never gets the entry. Checks of the other objects take the entry as written; a verdict about one of its hosts carries this finding as a warning."})
}

// seRejection is one rule of Istio's validation a ServiceEntry breaks: the field, what is
// wrong, and the fix.
type seRejection struct{ field, why, fix string }

// seRejections returns the rules of Istio's validation that se breaks (errors only; warnings
// let the entry be applied).
//
// Mirrors istio pkg/config/validation/validation.go ValidateServiceEntry (the CIDR, endpoints,
// workloadSelector, duplicate port, multiple-host and DYNAMIC_DNS errors).
func seRejections(se *networkingv1.ServiceEntry) []seRejection {
	spec := &se.Spec
	ref := "ServiceEntry " + se.Namespace + "/" + se.Name
	res := spec.GetResolution()
	var out []seRejection
	add := func(field, why, fix string) { out = append(out, seRejection{field, why, fix}) }
	var cidrs []string
	for _, a := range spec.GetAddresses() {
		if strings.Contains(a, "/") {
			cidrs = append(cidrs, a)
		}
	}
	if len(cidrs) > 0 && res != networking.ServiceEntry_NONE && res != networking.ServiceEntry_STATIC {
		add("spec.addresses", fmt.Sprintf("it sets CIDR addresses (%s) with resolution %s: CIDR addresses are allowed only with resolution NONE or STATIC", strings.Join(cidrs, ", "), res),
			fmt.Sprintf("In %s, list single addresses (no /n) if the host resolves in DNS, or use resolution NONE (the sidecar passes calls to the CIDR straight through; no endpoints at a gateway) or STATIC with the servers as endpoints.", ref))
	}
	if slices.Contains(spec.GetHosts(), "*") {
		add("spec.hosts", "it declares the host \"*\", which no ServiceEntry may", fmt.Sprintf("In %s, name the hosts (a wildcard such as *.example.com is allowed).", ref))
	}
	if spec.GetWorkloadSelector() != nil && len(spec.GetEndpoints()) > 0 {
		add("spec.endpoints", "it sets both a workloadSelector and endpoints; only one is allowed", fmt.Sprintf("In %s, keep either the workloadSelector (endpoints from WorkloadEntries and pods) or the endpoints.", ref))
	}
	numbers, names := map[uint32]bool{}, map[string]bool{}
	for _, p := range spec.GetPorts() {
		if numbers[p.GetNumber()] {
			add("spec.ports", fmt.Sprintf("it declares port %d twice", p.GetNumber()), fmt.Sprintf("In %s, declare each port number once.", ref))
		}
		if p.GetName() != "" && names[p.GetName()] {
			add("spec.ports", fmt.Sprintf("it declares the port name %q twice", p.GetName()), fmt.Sprintf("In %s, give each port its own name.", ref))
		}
		numbers[p.GetNumber()], names[p.GetName()] = true, true
	}
	switch res {
	case networking.ServiceEntry_NONE:
		if len(spec.GetEndpoints()) > 0 {
			add("spec.endpoints", "it lists endpoints with resolution NONE, which takes none",
				fmt.Sprintf("In %s, use resolution STATIC (endpoints are IP addresses) or DNS (endpoints are names) to keep the endpoints, or remove them.", ref))
		}
	case networking.ServiceEntry_DNS_ROUND_ROBIN:
		if len(spec.GetEndpoints()) > 1 {
			add("spec.endpoints", fmt.Sprintf("it lists %d endpoints with resolution DNS_ROUND_ROBIN, which takes at most one", len(spec.GetEndpoints())),
				fmt.Sprintf("In %s, use resolution DNS to keep several endpoints, or keep one.", ref))
		}
	case networking.ServiceEntry_DYNAMIC_DNS:
		for _, h := range spec.GetHosts() {
			if !strings.HasPrefix(h, "*") {
				add("spec.hosts", fmt.Sprintf("resolution DYNAMIC_DNS needs wildcard hosts, and %s is not one", h), fmt.Sprintf("In %s, use resolution DNS for %s, or a wildcard host.", ref, h))
				break
			}
		}
		if len(spec.GetAddresses()) > 0 || len(spec.GetEndpoints()) > 0 {
			add("spec.resolution", "resolution DYNAMIC_DNS takes neither addresses nor endpoints", fmt.Sprintf("In %s, remove the addresses and endpoints, or use resolution DNS.", ref))
		}
		for _, p := range spec.GetPorts() {
			switch strings.ToUpper(p.GetProtocol()) {
			case "HTTP", "HTTP2", "GRPC", "TLS":
				continue
			}
			add("spec.ports", fmt.Sprintf("resolution DYNAMIC_DNS supports only HTTP, HTTP2, GRPC and TLS ports, and port %d is %s", p.GetNumber(), orDash(p.GetProtocol())), fmt.Sprintf("In %s, declare that port in an entry with resolution DNS.", ref))
			break
		}
	}
	if res != networking.ServiceEntry_NONE && len(spec.GetHosts()) > 1 {
		for _, p := range spec.GetPorts() {
			switch strings.ToUpper(p.GetProtocol()) {
			case "HTTP", "HTTP2", "HTTP_PROXY", "GRPC", "GRPC-WEB", "HTTPS", "TLS":
				continue
			}
			add("spec.hosts", fmt.Sprintf("it declares %d hosts with port %d of protocol %s, neither HTTP nor TLS: plain TCP cannot tell the hosts apart, so several hosts need resolution NONE", len(spec.GetHosts()), p.GetNumber(), orDash(p.GetProtocol())),
				fmt.Sprintf("Split %s into one entry per host (each with its own addresses for the TCP port), or declare the port HTTP or TLS if that is what it carries.", ref))
			break
		}
	}
	return out
}

// seValidationFindings: SE_REJECTED_BY_VALIDATION for every ServiceEntry that breaks a rule of
// Istio's validation (seRejections; preflight: offline input is not validated by an API server).
func seValidationFindings(snap *snapshot.Snapshot) []PreflightFinding {
	var out []PreflightFinding
	for _, se := range snap.ServiceEntries {
		ref := "ServiceEntry " + se.Namespace + "/" + se.Name
		for _, r := range seRejections(se) {
			out = append(out, NewPreflightFinding(PreflightSERejected, CheckPreflight, ResourceRef{Kind: "ServiceEntry", Namespace: se.Namespace, Name: se.Name}, r.field,
				fmt.Sprintf("%s breaks a rule of Istio's validation: %s. The API server rejects the object and the mesh never gets it.", ref, r.why), r.fix))
		}
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
