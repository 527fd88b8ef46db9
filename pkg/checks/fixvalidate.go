package checks

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
)

// validatePatched checks an object a fix wrote against Istio's validation rules for the fields
// fixes write (the webhook would reject the object otherwise): exportTo lists and the Service
// exportTo annotation, Sidecar egress hosts, Gateway server hosts, DestinationRule port-level
// settings, a DNS ServiceEntry's hosts, and Service ports. Strict decoding (unknown fields, enum
// values) is the loader's.
//
// Mirrors istio.io/istio pkg/config/validation/validation.go validateExportTo,
// validateNamespaceSlashWildcardHostname (Sidecar and Gateway hosts), validatePortTrafficPolicies
// and ValidateServiceEntry (resolution DNS without endpoints: hosts must be FQDNs), and the API
// server's Service port rules (unique names and numbers).
func validatePatched(kind, ns string, obj map[string]any) error {
	spec, _ := obj["spec"].(map[string]any)
	var errs []error
	switch kind {
	case "ServiceEntry", "VirtualService", "DestinationRule":
		if xs, ok := spec["exportTo"].([]any); ok {
			errs = append(errs, validateExportTo(ns, anyStrings(xs), kind == "ServiceEntry"))
		}
	}
	switch kind {
	case "Service":
		md, _ := obj["metadata"].(map[string]any)
		ann, _ := md["annotations"].(map[string]any)
		if v, ok := ann["networking.istio.io/exportTo"].(string); ok {
			var xs []string
			for _, x := range strings.Split(v, ",") {
				xs = append(xs, strings.TrimSpace(x))
			}
			errs = append(errs, validateExportTo(ns, xs, true))
		}
		names, numbers := map[string]bool{}, map[string]bool{}
		ports, _ := spec["ports"].([]any)
		for _, p := range ports {
			pm, _ := p.(map[string]any)
			name, _ := pm["name"].(string)
			num, _ := pm["port"].(float64)
			proto, _ := pm["protocol"].(string)
			key := fmt.Sprintf("%v/%s", num, proto)
			if num < 1 || num > 65535 {
				errs = append(errs, fmt.Errorf("spec.ports: port %v out of range", num))
			}
			if len(ports) > 1 && name == "" {
				errs = append(errs, errors.New("spec.ports: every port needs a name when there are several"))
			}
			if name != "" {
				for _, m := range validation.IsDNS1123Label(name) {
					errs = append(errs, fmt.Errorf("spec.ports: name %q: %s", name, m))
				}
			}
			if names[name] && name != "" {
				errs = append(errs, fmt.Errorf("spec.ports: duplicate name %q", name))
			}
			if numbers[key] {
				errs = append(errs, fmt.Errorf("spec.ports: duplicate port %v", num))
			}
			names[name], numbers[key] = true, true
		}
	case "Sidecar":
		egress, _ := spec["egress"].([]any)
		for _, e := range egress {
			em, _ := e.(map[string]any)
			hosts, _ := em["hosts"].([]any)
			if len(hosts) == 0 {
				errs = append(errs, errors.New("sidecar: egress listener must contain at least one host"))
			}
			for _, h := range anyStrings(hosts) {
				errs = append(errs, validateNsSlashHost(h, true))
			}
		}
	case "Gateway":
		servers, _ := spec["servers"].([]any)
		for i, s := range servers {
			sm, _ := s.(map[string]any)
			hosts := anyStrings(asList(sm["hosts"]))
			if len(hosts) == 0 {
				errs = append(errs, fmt.Errorf("server %d: server config must contain at least one host", i))
			}
			for _, h := range hosts {
				errs = append(errs, validateNsSlashHost(h, false))
			}
		}
	case "DestinationRule":
		errs = append(errs, validatePortLevel(spec["trafficPolicy"]))
		for _, s := range asList(spec["subsets"]) {
			sm, _ := s.(map[string]any)
			errs = append(errs, validatePortLevel(sm["trafficPolicy"]))
		}
	case "ServiceEntry":
		if r := spec["resolution"]; r != "NONE" && r != "STATIC" && r != nil && slices.ContainsFunc(anyStrings(asList(spec["addresses"])), func(a string) bool { return strings.Contains(a, "/") }) {
			errs = append(errs, errors.New("CIDR addresses are allowed only for NONE/STATIC resolution types"))
		}
		if spec["resolution"] == "DNS" || spec["resolution"] == "DNS_ROUND_ROBIN" {
			if len(asList(spec["endpoints"])) == 0 {
				for _, h := range anyStrings(asList(spec["hosts"])) {
					if bad := validation.IsDNS1123Subdomain(h); len(bad) > 0 || strings.Contains(h, "*") {
						errs = append(errs, fmt.Errorf("hosts must be FQDN if no endpoints are provided for resolution mode %s: %q", spec["resolution"], h))
					}
				}
			}
		}
	}
	return errors.Join(errs...)
}

// validateExportTo mirrors istiod's validateExportTo: ".", "*", "~" (entries and Services only)
// or a namespace name; no duplicates ("." counts as the object's own namespace); "*" and "~"
// alone.
func validateExportTo(ns string, xs []string, allowNone bool) error {
	seen := map[string]bool{}
	var errs []error
	for _, x := range xs {
		key := x
		if x == "." {
			key = ns
		}
		if seen[key] {
			errs = append(errs, fmt.Errorf("duplicate entries in exportTo: %s", x))
			continue
		}
		seen[key] = true
		switch {
		case x == "." || x == "*":
		case x == "~":
			if !allowNone {
				errs = append(errs, errors.New("exportTo: ~ is only valid for a ServiceEntry"))
			}
		default:
			if bad := validation.IsDNS1123Label(x); len(bad) > 0 {
				errs = append(errs, fmt.Errorf("exportTo: %q is not a namespace name", x))
			}
		}
	}
	if seen["*"] && len(xs) > 1 {
		errs = append(errs, errors.New("cannot have both public (*) and non-public exportTo values for a resource"))
	}
	if seen["~"] && len(xs) > 1 {
		errs = append(errs, errors.New("cannot export service entry to no one (~) and someone"))
	}
	return errors.Join(errs...)
}

// validateNsSlashHost mirrors validateNamespaceSlashWildcardHostname: "namespace/host" (the
// namespace part required for Sidecar egress hosts), the namespace ".", "*", "~" or a namespace
// name, the host "*" or a DNS name with an optional leading "*." wildcard.
func validateNsSlashHost(h string, requireNs bool) error {
	ns, host, ok := strings.Cut(h, "/")
	if !ok {
		if requireNs {
			return fmt.Errorf("host %q must be of the form namespace/dnsName", h)
		}
		host, ns = h, ""
	}
	if ns != "" && ns != "." && ns != "*" && ns != "~" && len(validation.IsDNS1123Label(ns)) > 0 {
		return fmt.Errorf("host %q: %q is not a namespace name", h, ns)
	}
	if host == "*" {
		return nil
	}
	if len(validation.IsWildcardDNS1123Subdomain(host)) > 0 && len(validation.IsDNS1123Subdomain(host)) > 0 {
		return fmt.Errorf("host %q: %q is not a DNS name", h, host)
	}
	return nil
}

// validatePortLevel mirrors validatePortTrafficPolicies: each port-level setting names a port
// (1-65535) and sets at least one field.
func validatePortLevel(tp any) error {
	tm, _ := tp.(map[string]any)
	var errs []error
	for _, pl := range asList(tm["portLevelSettings"]) {
		pm, _ := pl.(map[string]any)
		port, _ := pm["port"].(map[string]any)
		n, _ := port["number"].(float64)
		if n < 1 || n > 65535 {
			errs = append(errs, errors.New("portTrafficPolicy must have valid port"))
		}
		if len(pm) < 2 {
			errs = append(errs, errors.New("port traffic policy must have at least one field"))
		}
	}
	return errors.Join(errs...)
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}

func anyStrings(xs []any) []string {
	var out []string
	for _, x := range xs {
		s, _ := x.(string)
		out = append(out, s)
	}
	return out
}
