package checks

import (
	"fmt"
	"net/netip"
	"path"
	"regexp"
	"strconv"
	"strings"

	"github.com/kubectl-egress/kubectl-egress/pkg/rules"
)

// The building blocks of Istio's validating webhook (istio pkg/config/validation/agent and
// pkg/config/labels), each returning "" when the value passes, else why it does not. The
// conformance suite compares the validations built from them with istiod's own
// (hack/conformance validation_test.go).

var (
	// istio pkg/config/labels dns1123LabelFmt: letters of either case, digits and '-'.
	istioDNSLabel = regexp.MustCompile(`^[a-zA-Z0-9](?:[-a-zA-Z0-9]*[a-zA-Z0-9])?$`)
	// istio pkg/config/labels wildcardPrefix: "*", or a label optionally prefixed by "*" or "*-".
	istioWildcardLabel = regexp.MustCompile(`^(\*|(\*|\*-)?[a-zA-Z0-9](?:[-a-zA-Z0-9]*[a-zA-Z0-9])?)$`)
	// istio pkg/config/labels tagRegexp and labelValueRegexp (Kubernetes label keys and values).
	istioLabelKey   = regexp.MustCompile(`^([a-zA-Z0-9](?:[-a-zA-Z0-9]*[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[-a-zA-Z0-9]*[a-zA-Z0-9])?)*/)?((?:[A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$`)
	istioLabelValue = regexp.MustCompile(`^((?:[A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$`)
)

// isIstioDNSLabel mirrors istio pkg/config/labels IsDNS1123Label (at most 63 characters; upper
// case allowed).
func isIstioDNSLabel(s string) bool { return len(s) <= 63 && istioDNSLabel.MatchString(s) }

// dnsLabelsProblem mirrors istio pkg/config/validation/agent ValidateDNS1123Labels: a top-level
// label that is not all digits, and every label a DNS label (a trailing dot allowed).
func dnsLabelsProblem(domain string) string {
	parts := strings.Split(domain, ".")
	if _, err := strconv.Atoi(parts[len(parts)-1]); err == nil {
		return fmt.Sprintf("its last label %q is all digits", parts[len(parts)-1])
	}
	for i, l := range parts {
		if i == len(parts)-1 && l == "" {
			return ""
		}
		if !isIstioDNSLabel(l) {
			return fmt.Sprintf("%q is not a DNS label (letters, digits and '-')", l)
		}
	}
	return ""
}

// dnsLengthProblem mirrors istio agent CheckDNS1123Preconditions.
func dnsLengthProblem(name string) string {
	switch {
	case len(name) > 255:
		return "it is longer than 255 characters"
	case name == "":
		return "it is empty"
	}
	return ""
}

// fqdnProblem mirrors istio agent ValidateFQDN: a full DNS name (no wildcard).
func fqdnProblem(name string) string {
	if p := dnsLengthProblem(name); p != "" {
		return p
	}
	return dnsLabelsProblem(name)
}

// wildcardDomainProblem mirrors istio agent ValidateWildcardDomain: a DNS name whose first
// label may be a wildcard ("*", "*foo", "*-foo").
func wildcardDomainProblem(name string) string {
	if p := dnsLengthProblem(name); p != "" {
		return p
	}
	first, rest, more := strings.Cut(name, ".")
	if len(first) > 63 || !istioWildcardLabel.MatchString(first) {
		return fmt.Sprintf("%q is not a DNS label or a wildcard", first)
	}
	if more {
		return dnsLabelsProblem(rest)
	}
	return ""
}

// ipSubnetProblem mirrors istio agent ValidateIPSubnet: an IP address, or a CIDR block when the
// value has one "/".
func ipSubnetProblem(s string) string {
	if strings.Count(s, "/") == 1 {
		if _, err := netip.ParsePrefix(s); err != nil {
			return "it is not a valid CIDR block"
		}
		return ""
	}
	if !validIP(s) {
		return "it is not an IP address"
	}
	return ""
}

// portNumberProblem mirrors istio agent ValidatePort.
func portNumberProblem(n int64) string {
	if n < 1 || n > 65535 {
		return fmt.Sprintf("port %d is outside 1..65535", n)
	}
	return ""
}

// protocolProblem mirrors istio pkg/config/validation ValidateProtocol: empty (sniffed) or a
// protocol Istio knows.
func protocolProblem(p string) string {
	if p != "" && rules.ParseProtocol(p) == rules.ProtoUnsupported {
		return fmt.Sprintf("protocol %q is not one Istio knows (HTTP, HTTPS, HTTP2, GRPC, GRPC-WEB, HTTP_PROXY, TLS, TCP, UDP, MONGO, REDIS, MYSQL)", p)
	}
	return ""
}

// labelsProblem mirrors istio pkg/config/labels Instance.Validate (Kubernetes label keys and
// values).
func labelsProblem(labels map[string]string) string {
	for _, k := range sortedKeysOf(labels) {
		m := istioLabelKey.FindStringSubmatch(k)
		switch {
		case m == nil:
			return fmt.Sprintf("label key %q is not a valid label name", k)
		case len(m[1]) > 0 && len(m[1])-1 > 253:
			return fmt.Sprintf("label key %q has a prefix longer than 253 characters", k)
		case len(m[2]) > 63:
			return fmt.Sprintf("label key %q has a name longer than 63 characters", k)
		case !istioLabelValue.MatchString(labels[k]):
			return fmt.Sprintf("label value %q (key %s) is not a valid label value", labels[k], k)
		}
	}
	return ""
}

// selectorProblem mirrors istio pkg/config/validation ValidateAlphaWorkloadSelector's errors
// (an empty key, a '*' in a key or value).
func selectorProblem(labels map[string]string) string {
	for _, k := range sortedKeysOf(labels) {
		v := labels[k]
		switch {
		case k == "":
			return "a workloadSelector label has an empty key"
		case strings.Contains(k, "*") || strings.Contains(v, "*"):
			return fmt.Sprintf("the workloadSelector label %s=%s has a wildcard, which selectors do not support", k, v)
		}
	}
	return ""
}

// unixAddressProblem mirrors istio pkg/config/validation ValidateUnixAddress (addr without the
// unix:// prefix): an abstract socket (@...) or an absolute path to a file.
func unixAddressProblem(addr string) string {
	switch {
	case addr == "":
		return "the unix socket address is empty"
	case strings.HasPrefix(addr, "@"):
		return ""
	case !path.IsAbs(addr) || strings.HasSuffix(addr, "/"):
		return fmt.Sprintf("%s is not an absolute path to a file", addr)
	}
	return ""
}

// exportToProblem mirrors istio pkg/config/validation validateExportTo for an object in
// namespace ns (isServiceEntry: "~" is allowed): no entry twice ("." counts as ns), "*" and "~"
// alone, and each other entry "." or a DNS label. "" when valid.
func exportToProblem(ns string, exportTo []string, isServiceEntry bool) string {
	seen := map[string]bool{}
	for _, e := range exportTo {
		key := e
		if e == "." {
			key = ns
		}
		switch {
		case seen[key]:
			return fmt.Sprintf("its exportTo lists %s twice (\".\" is namespace %s)", e, ns)
		case e == "~" && !isServiceEntry:
			return "its exportTo has \"~\", which only ServiceEntries may use"
		case key != "*" && key != "~" && !isIstioDNSLabel(key):
			return fmt.Sprintf("its exportTo entry %q is not a namespace name", e)
		}
		seen[key] = true
	}
	if len(exportTo) > 1 && (seen["*"] || seen["~"]) {
		return fmt.Sprintf("its exportTo %s mixes \"*\" or \"~\" with other entries", fmtList(exportTo))
	}
	return ""
}

// sidecarHostProblem mirrors istio agent ValidateNamespaceSlashWildcardHostname for a Sidecar
// egress host (isGateway false): "namespace/dnsName", the namespace "*", ".", a DNS label, each
// optionally "~"-prefixed; the name "*" or a DNS name with a dot, a wildcard only as the whole
// first label ("*.example.com").
func sidecarHostProblem(h string) string {
	ns, name, ok := strings.Cut(h, "/")
	if !ok {
		return fmt.Sprintf("host %q is not of the form namespace/host (for example */%s or ./%s)", h, h, h)
	}
	if ns == "" || name == "" {
		return fmt.Sprintf("host %q has an empty namespace or name", h)
	}
	if n := strings.TrimPrefix(ns, "~"); n != "" && n != "*" && n != "." && !isIstioDNSLabel(n) {
		return fmt.Sprintf("host %q names the namespace %q, which is not a namespace name", h, ns)
	}
	if name != "*" && !strings.Contains(name, ".") {
		return fmt.Sprintf("host %q is a short name; write the full name (for example %s.%s.svc.cluster.local, or */%s.example.com for an external host)", h, name, ns, name)
	}
	if p := wildcardDomainProblem(name); p != "" {
		return fmt.Sprintf("host %q: %s", h, p)
	}
	if p := partialWildcardProblem(name); p != "" {
		return fmt.Sprintf("host %q: %s", h, p)
	}
	return ""
}

// partialWildcardProblem mirrors istio agent ValidatePartialWildCard: a '*' only as "*" or as a
// whole first label.
func partialWildcardProblem(h string) string {
	if strings.Contains(h, "*") && len(h) != 1 && !strings.HasPrefix(h, "*.") {
		return fmt.Sprintf("%s has a partial wildcard; only a whole first label may be '*' (*.example.com)", h)
	}
	return ""
}
