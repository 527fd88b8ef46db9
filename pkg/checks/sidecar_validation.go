package checks

import (
	"fmt"
	"net"
	"strconv"
	"strings"

	networking "istio.io/api/networking/v1alpha3"
	networkingv1 "istio.io/client-go/pkg/apis/networking/v1"

	"github.com/kubectl-egress/kubectl-egress/pkg/snapshot"
)

// PreflightSidecarRejected: a Sidecar in the input that Istio's validation refuses (its
// outboundTrafficPolicy), so it can never be applied.
const PreflightSidecarRejected = "SIDECAR_REJECTED_BY_VALIDATION"

func init() {
	Catalog = append(Catalog, CatalogEntry{Code: PreflightSidecarRejected, Level: LevelError,
		Description: "A Sidecar in the manifests breaks a rule of Istio's validation. The common ones: an egress host without its namespace (httpbin.org instead of */httpbin.org or ./httpbin.org), a short name (istio-system/istio-egressgateway), or a partial wildcard; an egress listener without hosts; the egress listener without a port (the catch-all) not last; two egress listeners on one port; a port with an unknown protocol or a targetPort; an egressProxy with a mode other than ALLOW_ANY (an unset mode is REGISTRY_ONLY), without a port, or whose host is not a full DNS name; an empty Sidecar. istiod's validating webhook rejects the object, so applying the manifests fails and the namespace keeps what it had (the mesh's outbound policy, or an earlier Sidecar). Checks of the other objects take the Sidecar as written; a traced call through it carries this finding as a warning."})
}

// sidecarRejections returns the rules of Istio's validation that Sidecar sc breaks (field,
// why, fix), at most one per rule.
//
// Mirrors istiod pkg/config/validation/validation.go ValidateSidecar: the workloadSelector, an
// empty Sidecar, the ingress listeners' ports, binds and defaultEndpoint
// (validateSidecarIngressPortAndBind; their tls and connection pool settings are not mirrored),
// the egress listeners' ports, binds, capture modes and hosts
// (validateSidecarEgressPortBindAndCaptureMode, agent.ValidateNamespaceSlashWildcardHostname),
// and validateSidecarOutboundTrafficPolicy (ALLOW_ANY_DYNAMIC_DNS is refused too, but the
// Sidecar CRD's schema has no such mode, and the decoded object no longer says it was
// written). The conformance suite compares it with istiod's (hack/conformance
// validation_test.go).
func sidecarRejections(sc *networkingv1.Sidecar) []seRejection {
	spec := &sc.Spec
	ref := "Sidecar " + sc.Namespace + "/" + sc.Name
	var out []seRejection
	add := func(field, why, fix string) { out = append(out, seRejection{field, why, fix}) }
	if p := selectorProblem(spec.GetWorkloadSelector().GetLabels()); p != "" {
		add("spec.workloadSelector", p, fmt.Sprintf("In %s, select workloads by exact label values.", ref))
	}
	if len(spec.GetEgress()) == 0 && len(spec.GetIngress()) == 0 && spec.GetOutboundTrafficPolicy() == nil && spec.GetInboundConnectionPool() == nil {
		add("spec", "it is empty (no egress, ingress or outboundTrafficPolicy)", fmt.Sprintf("Give %s egress hosts (for example \"./*\" and \"istio-system/*\") or remove it.", ref))
	}
	ports := map[uint32]bool{}
	for i, in := range spec.GetIngress() {
		field := fmt.Sprintf("spec.ingress[%d]", i)
		if in.GetPort() == nil {
			add(field+".port", "an ingress listener has no port", fmt.Sprintf("In %s, give each ingress listener a port.", ref))
			continue
		}
		if why := sidecarPortProblem(in.GetPort().GetName(), in.GetPort().GetProtocol(), in.GetPort().GetNumber(), in.GetPort().GetTargetPort(), in.GetBind()); why != "" {
			add(field+".port", "ingress "+why, fmt.Sprintf("In %s, fix the ingress listener's port.", ref))
		}
		if ports[in.GetPort().GetNumber()] {
			add(field+".port", fmt.Sprintf("two ingress listeners use port %d", in.GetPort().GetNumber()), fmt.Sprintf("In %s, give each ingress listener its own port.", ref))
		}
		ports[in.GetPort().GetNumber()] = true
		if why := defaultEndpointProblem(in.GetDefaultEndpoint()); why != "" {
			add(field+".defaultEndpoint", why, fmt.Sprintf("In %s, set defaultEndpoint to 127.0.0.1:PORT, 0.0.0.0:PORT, [::1]:PORT, [::]:PORT or unix:///path.", ref))
		}
	}
	ports = map[uint32]bool{}
	binds := map[string]bool{}
	catchAll := false
	for i, eg := range spec.GetEgress() {
		field := fmt.Sprintf("spec.egress[%d]", i)
		if p := eg.GetPort(); p == nil {
			switch {
			case catchAll:
				add(field+".port", "it has two egress listeners without a port", fmt.Sprintf("In %s, keep one egress listener without a port, the last one.", ref))
				continue
			case i != len(spec.GetEgress())-1:
				add(field+".port", "an egress listener without a port (the catch-all) is not the last one", fmt.Sprintf("In %s, move the egress listener without a port to the end of spec.egress.", ref))
			default:
				catchAll = true
			}
		} else {
			if why := sidecarEgressPortProblem(eg); why != "" {
				add(field+".port", why, fmt.Sprintf("In %s, fix egress listener %d's port (a number from 1 to 65535, a protocol Istio knows, a DNS-label name).", ref, i))
			}
			if p.GetNumber() == 0 {
				if binds[eg.GetBind()] {
					add(field+".bind", fmt.Sprintf("two egress listeners bind the unix socket %s", eg.GetBind()), fmt.Sprintf("In %s, give each unix socket listener its own socket.", ref))
				}
				binds[eg.GetBind()] = true
			} else {
				if ports[p.GetNumber()] {
					add(field+".port", fmt.Sprintf("two egress listeners use port %d", p.GetNumber()), fmt.Sprintf("In %s, merge the egress listeners of port %d into one.", ref, p.GetNumber()))
				}
				ports[p.GetNumber()] = true
			}
		}
		if len(eg.GetHosts()) == 0 {
			add(field+".hosts", "an egress listener has no hosts", fmt.Sprintf("In %s, list the hosts egress listener %d imports (for example \"./*\" and \"istio-system/*\").", ref, i))
		}
		for _, h := range eg.GetHosts() {
			if why := sidecarHostProblem(h); why != "" {
				add(field+".hosts", "egress "+why, sidecarHostFix(ref, h))
				break
			}
		}
	}
	if why, fix := outboundPolicyRejection(spec.GetOutboundTrafficPolicy(), ref); why != "" {
		add("spec.outboundTrafficPolicy", why, fix)
	}
	return out
}

// outboundPolicyRejection mirrors istiod validateSidecarOutboundTrafficPolicy: an egressProxy
// only with mode ALLOW_ANY, with a full DNS name, with a port, and a valid destination.
func outboundPolicyRejection(p *networking.OutboundTrafficPolicy, ref string) (why, fix string) {
	ep := p.GetEgressProxy()
	if ep == nil {
		return "", ""
	}
	switch {
	case p.GetMode() != networking.OutboundTrafficPolicy_ALLOW_ANY:
		return fmt.Sprintf("outboundTrafficPolicy.egressProxy is set while mode is %s (an unset mode is REGISTRY_ONLY), and an egressProxy is allowed only with mode ALLOW_ANY", p.GetMode()),
			fmt.Sprintf("Set spec.outboundTrafficPolicy.mode: ALLOW_ANY in %s (the egressProxy then takes the calls to unknown hosts), or remove the egressProxy.", ref)
	case !validFQDN(ep.GetHost()):
		return fmt.Sprintf("egressProxy.host %q is not a full DNS name", ep.GetHost()),
			fmt.Sprintf("Write the egressProxy host of %s as the Service's full name (name.namespace.svc.cluster.local).", ref)
	case ep.GetPort() == nil:
		return "egressProxy has no port",
			fmt.Sprintf("Set spec.outboundTrafficPolicy.egressProxy.port.number in %s to the gateway Service port that takes the calls (80 for HTTP).", ref)
	case portNumberProblem(int64(ep.GetPort().GetNumber())) != "":
		return "egressProxy " + portNumberProblem(int64(ep.GetPort().GetNumber())),
			fmt.Sprintf("Set spec.outboundTrafficPolicy.egressProxy.port.number in %s to the gateway Service port that takes the calls (80 for HTTP).", ref)
	case ep.GetSubset() != "" && !isIstioDNSLabel(ep.GetSubset()):
		return fmt.Sprintf("egressProxy.subset %q is not a DNS label", ep.GetSubset()),
			fmt.Sprintf("In %s, name a subset of letters, digits and '-' (as the DestinationRule defines it).", ref)
	}
	return "", ""
}

// sidecarPortProblem mirrors istiod validateSidecarIngressPortAndBind (and the targetPort rule
// of ValidateSidecar): a DNS-label name if set, a known protocol, a port number, an IP bind.
func sidecarPortProblem(name, proto string, number, target uint32, bind string) string {
	switch {
	case target > 0:
		return fmt.Sprintf("port %d sets targetPort, which Sidecars do not take", number)
	case name != "" && !isIstioDNSLabel(name):
		return fmt.Sprintf("port %d's name %q is not a DNS label", number, name)
	case protocolProblem(proto) != "":
		return fmt.Sprintf("port %d's %s", number, protocolProblem(proto))
	case portNumberProblem(int64(number)) != "":
		return portNumberProblem(int64(number))
	case bind != "" && !validIP(bind):
		return fmt.Sprintf("port %d binds %q, which is not an IP address", number, bind)
	}
	return ""
}

// sidecarEgressPortProblem mirrors istiod validateSidecarEgressPortBindAndCaptureMode: port 0
// is a unix socket listener (bind unix://PATH, captureMode DEFAULT or NONE); other ports as
// sidecarPortProblem.
func sidecarEgressPortProblem(eg *networking.IstioEgressListener) string {
	p := eg.GetPort()
	if p.GetNumber() != 0 {
		return sidecarPortProblem(p.GetName(), p.GetProtocol(), p.GetNumber(), p.GetTargetPort(), eg.GetBind())
	}
	switch {
	case p.GetTargetPort() > 0:
		return "port 0 sets targetPort, which Sidecars do not take"
	case p.GetName() != "" && !isIstioDNSLabel(p.GetName()):
		return fmt.Sprintf("port 0's name %q is not a DNS label", p.GetName())
	case protocolProblem(p.GetProtocol()) != "":
		return "port 0's " + protocolProblem(p.GetProtocol())
	case !strings.HasPrefix(eg.GetBind(), "unix://"):
		return "port 0 is a unix socket listener, and its bind is not a unix:// address"
	case unixAddressProblem(strings.TrimPrefix(eg.GetBind(), "unix://")) != "":
		return "port 0's bind: " + unixAddressProblem(strings.TrimPrefix(eg.GetBind(), "unix://"))
	case eg.GetCaptureMode() != networking.CaptureMode_DEFAULT && eg.GetCaptureMode() != networking.CaptureMode_NONE:
		return fmt.Sprintf("port 0 is a unix socket listener, and captureMode %s is not DEFAULT or NONE", eg.GetCaptureMode())
	}
	return ""
}

// defaultEndpointProblem mirrors the defaultEndpoint rules of istiod ValidateSidecar:
// unix://PATH, or HOST:PORT with HOST empty, 127.0.0.1, 0.0.0.0, ::1 or ::.
func defaultEndpointProblem(ep string) string {
	if ep == "" {
		return ""
	}
	if rest, ok := strings.CutPrefix(ep, "unix://"); ok {
		return unixAddressProblem(rest)
	}
	h, p, err := net.SplitHostPort(ep)
	if err != nil {
		return fmt.Sprintf("defaultEndpoint %q is not HOST:PORT", ep)
	}
	if h != "" && h != "127.0.0.1" && h != "0.0.0.0" && h != "::1" && h != "::" {
		return fmt.Sprintf("defaultEndpoint %q names %s; only 127.0.0.1, 0.0.0.0, [::1] and [::] (or a unix socket) are allowed", ep, h)
	}
	n, err := strconv.Atoi(p)
	if err != nil {
		return fmt.Sprintf("defaultEndpoint %q has a port that is not a number", ep)
	}
	return portNumberProblem(int64(n))
}

// sidecarHostFix: how to write egress host h of a Sidecar.
func sidecarHostFix(ref, h string) string {
	if !strings.Contains(h, "/") {
		return fmt.Sprintf("In %s, write each egress host as namespace/host: \"*/%s\" imports %s from every namespace that exports it, \"./%s\" only from the Sidecar's own namespace.", ref, h, h, h)
	}
	return fmt.Sprintf("In %s, write each egress host as namespace/host, with a namespace name, \".\", \"*\" or \"~\" before the slash and a full DNS name (or *, or *.domain) after it.", ref)
}

// sidecarValidationFindings: SIDECAR_REJECTED_BY_VALIDATION for each Sidecar of the input that
// Istio's validation refuses.
func sidecarValidationFindings(snap *snapshot.Snapshot) []PreflightFinding {
	var out []PreflightFinding
	for _, sc := range snap.Sidecars {
		out = append(out, rejectionFindings(PreflightSidecarRejected, "Sidecar", sc.Namespace, sc.Name, "istiod's validating webhook rejects the object and the namespace keeps the mesh's outbound policy.", sidecarRejections(sc))...)
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
