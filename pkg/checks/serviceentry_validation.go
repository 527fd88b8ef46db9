package checks

import (
	"fmt"
	"net/netip"
	"regexp"
	"slices"
	"strconv"
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
	if why := exportToRejection(se.Namespace, spec.GetExportTo()); why != "" {
		add("spec.exportTo", why, fmt.Sprintf("In %s, list each namespace once (\".\" is the entry's own namespace), and use \"*\" or \"~\" alone.", ref))
	}
	numbers, names := map[uint32]bool{}, map[string]bool{}
	for _, p := range spec.GetPorts() {
		if !dns1123Label.MatchString(p.GetName()) {
			add("spec.ports", fmt.Sprintf("port %d's name %q is not a DNS label (lower-case letters, digits and '-', starting and ending with a letter or digit)", p.GetNumber(), p.GetName()),
				fmt.Sprintf("In %s, name port %d with lower-case letters, digits and '-' (for example %s).", ref, p.GetNumber(), suggestedPortName(p.GetName(), p.GetProtocol(), p.GetNumber())))
		}
		if numbers[p.GetNumber()] {
			add("spec.ports", fmt.Sprintf("it declares port %d twice", p.GetNumber()), fmt.Sprintf("In %s, declare each port number once.", ref))
		}
		if p.GetName() != "" && names[p.GetName()] {
			add("spec.ports", fmt.Sprintf("it declares the port name %q twice", p.GetName()), fmt.Sprintf("In %s, give each port its own name.", ref))
		}
		numbers[p.GetNumber()], names[p.GetName()] = true, true
	}
	switch res {
	case networking.ServiceEntry_STATIC:
		for _, e := range spec.GetEndpoints() {
			if a := e.GetAddress(); a != "" && !strings.HasPrefix(a, "unix://") && !validIP(a) {
				add("spec.endpoints", fmt.Sprintf("endpoint %s is not an IP address, which resolution STATIC needs", a),
					fmt.Sprintf("In %s, use resolution DNS to keep endpoints that are names, or list the servers' IP addresses.", ref))
				break
			}
		}
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
	}
	if (res == networking.ServiceEntry_DNS || res == networking.ServiceEntry_DNS_ROUND_ROBIN) && len(spec.GetEndpoints()) == 0 {
		for _, h := range spec.GetHosts() {
			if !validFQDN(h) {
				add("spec.hosts", fmt.Sprintf("resolution %s without endpoints resolves the hosts themselves, and %s is not a full DNS name (a wildcard or upper-case letters are refused)", res, h),
					fmt.Sprintf("In %s, use resolution NONE for a wildcard host (the sidecar passes the calls through to the address the client resolved) or DYNAMIC_DNS (HTTP and TLS ports), or write the host in lower case.", ref))
				break
			}
		}
	}
	switch res {
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

var (
	dns1123Label = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)
	notLabelRun  = regexp.MustCompile(`[^a-z0-9-]+`)
)

// validIP: an IPv4 or IPv6 address.
func validIP(a string) bool {
	_, err := netip.ParseAddr(a)
	return err == nil
}

// validFQDN mirrors istio pkg/config/validation/agent ValidateFQDN: at most 255 characters, a
// top-level label that is not all digits, and every label a DNS-1123 label (a trailing dot
// allowed).
func validFQDN(h string) bool {
	if h == "" || len(h) > 255 {
		return false
	}
	parts := strings.Split(h, ".")
	if _, err := strconv.Atoi(parts[len(parts)-1]); err == nil {
		return false
	}
	for i, l := range parts {
		if i == len(parts)-1 && l == "" {
			return true
		}
		if len(l) > 63 || !dns1123Label.MatchString(l) {
			return false
		}
	}
	return true
}

// exportToRejection mirrors istio pkg/config/validation/validation.go validateExportTo for a
// ServiceEntry in namespace ns: no entry twice ("." counts as ns), "*" and "~" alone, and each
// other entry "." or a DNS-1123 label. "" when valid.
func exportToRejection(ns string, exportTo []string) string {
	seen := map[string]bool{}
	for _, e := range exportTo {
		key := e
		if e == "." {
			key = ns
		}
		if seen[key] {
			return fmt.Sprintf("its exportTo lists %s twice (\".\" is namespace %s)", e, ns)
		}
		seen[key] = true
		if e != "*" && e != "~" && e != "." && !dns1123Label.MatchString(e) {
			return fmt.Sprintf("its exportTo entry %q is not a namespace name", e)
		}
	}
	if len(exportTo) > 1 && (seen["*"] || seen["~"]) {
		return fmt.Sprintf("its exportTo %s mixes \"*\" or \"~\" with other entries", fmtList(exportTo))
	}
	return ""
}

// suggestedPortName: a valid port name for one that is not (lower case, '_' and other characters
// as '-'), or protocol-number.
func suggestedPortName(name, proto string, number uint32) string {
	n := strings.Trim(notLabelRun.ReplaceAllString(strings.ToLower(name), "-"), "-")
	if n == "" {
		n = fmt.Sprintf("%s-%d", strings.ToLower(orDash(proto)), number)
	}
	return n
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
