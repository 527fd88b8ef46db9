package checks

import (
	"fmt"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	"github.com/kubectl-egress/kubectl-egress/pkg/snapshot"
)

// The pod annotations that narrow which outbound connections istio-init (or istio-cni) redirects
// to the sidecar (https://istio.io/latest/docs/reference/config/annotations/).
const (
	annExcludeOutboundPorts    = "traffic.sidecar.istio.io/excludeOutboundPorts"
	annIncludeOutboundPorts    = "traffic.sidecar.istio.io/includeOutboundPorts"
	annExcludeOutboundIPRanges = "traffic.sidecar.istio.io/excludeOutboundIPRanges"
	annIncludeOutboundIPRanges = "traffic.sidecar.istio.io/includeOutboundIPRanges"
)

// captureBypass says why a TCP connection to addr:port from a pod with annotations a is not
// redirected to its sidecar, and the annotation that decides it; "" when it is redirected (or
// may be). addr is the address the application dials: "" when it is the host's DNS answer, an
// external (public) address this tool cannot know.
//
// Mirrors istio tools/istio-iptables/pkg/capture/run.go (IptablesConfigurator.Run): in the
// ISTIO_OUTPUT chain, excluded ports return first, then excluded IP ranges, then included ports
// are redirected, then included IP ranges ("*", the injector's default, redirects the rest; a
// list redirects only those ranges; the rest is not redirected).
func captureBypass(a map[string]string, port uint32, addr, host string) (why, ann string) {
	p := strconv.FormatUint(uint64(port), 10)
	if slices.Contains(splitList(a[annExcludeOutboundPorts]), p) {
		return fmt.Sprintf("its annotation %s lists port %d, so connections to port %d are never redirected to the sidecar", annExcludeOutboundPorts, port, port), annExcludeOutboundPorts
	}
	ip, _ := netip.ParseAddr(addr)
	if ip.IsValid() {
		for _, c := range splitList(a[annExcludeOutboundIPRanges]) {
			if pf, err := netip.ParsePrefix(c); err == nil && pf.Contains(ip) {
				return fmt.Sprintf("its annotation %s holds %s, which contains %s, the address the call goes to, so it is never redirected to the sidecar", annExcludeOutboundIPRanges, c, addr), annExcludeOutboundIPRanges
			}
		}
	}
	if slices.Contains(splitList(a[annIncludeOutboundPorts]), p) {
		return "", ""
	}
	inc, set := a[annIncludeOutboundIPRanges]
	if !set {
		return "", ""
	}
	ranges := splitList(inc)
	if slices.Contains(ranges, "*") {
		return "", ""
	}
	var prefixes []netip.Prefix
	for _, c := range ranges {
		if pf, err := netip.ParsePrefix(c); err == nil {
			prefixes = append(prefixes, pf)
		}
	}
	if ip.IsValid() {
		if slices.ContainsFunc(prefixes, func(pf netip.Prefix) bool { return pf.Contains(ip) }) {
			return "", ""
		}
		return fmt.Sprintf("its annotation %s limits the redirection to %s, which does not contain %s, the address the call goes to", annIncludeOutboundIPRanges, strings.Join(ranges, ", "), addr), annIncludeOutboundIPRanges
	}
	// the host's DNS answer, a public address: redirected only if a range may hold one
	if slices.ContainsFunc(prefixes, func(pf netip.Prefix) bool { return !nonPublic(pf) }) {
		return "", ""
	}
	list := strings.Join(ranges, ", ")
	if list == "" {
		list = "no range"
	}
	return fmt.Sprintf("its annotation %s limits the redirection to %s (addresses inside the cluster), and %s resolves to an external address outside them", annIncludeOutboundIPRanges, list, host), annIncludeOutboundIPRanges
}

// nonPublic: every address of pf is private, shared, loopback, link-local or reserved (no DNS
// answer for an external host falls in it).
func nonPublic(pf netip.Prefix) bool {
	for _, r := range []string{"10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16", "240.0.0.0/4", "fc00::/7", "fe80::/10", "::1/128"} {
		b := netip.MustParsePrefix(r)
		if b.Bits() <= pf.Bits() && b.Contains(pf.Addr()) {
			return true
		}
	}
	return false
}

func splitList(s string) []string {
	var out []string
	for _, x := range strings.Split(s, ",") {
		if x = strings.TrimSpace(x); x != "" {
			out = append(out, x)
		}
	}
	return out
}

// uncapturedClient is the PATH_BYPASSES_GATEWAY warning for a call the client's sidecar never
// sees: the pod (workload, with annotations a) narrows its outbound redirection so that a
// connection to addr:port is left out (captureBypass). Asked with --from (no pod), it holds when
// every workload of namespace ns in the input leaves the call out. nil otherwise.
func uncapturedClient(snap *snapshot.Snapshot, ns, workload string, a map[string]string, port uint32, addr, host string) *Finding {
	what, why, ann := "", "", ""
	if workload != "" || a != nil {
		if why, ann = captureBypass(a, port, addr, host); why == "" {
			return nil
		}
		what = "Pod " + workload
		if workload == "" {
			what = "The client pod in " + ns
		}
	} else {
		n := 0
		for _, p := range snap.Pods {
			if p.Namespace != ns {
				continue
			}
			if why, ann = captureBypass(p.Annotations, port, addr, host); why == "" {
				return nil
			}
			n++
		}
		for _, d := range snap.Deployments {
			if d.Namespace != ns {
				continue
			}
			if why, ann = captureBypass(d.Spec.Template.Annotations, port, addr, host); why == "" {
				return nil
			}
			n++
		}
		if n == 0 {
			return nil
		}
		what = "Every workload of namespace " + ns + " in the input"
		why = strings.Replace(why, "its annotation", "each one's annotation", 1)
	}
	msg := fmt.Sprintf("%s has a sidecar that never sees this call: %s. The call leaves the pod directly, through no sidecar or egress gateway, and no mesh setting applies to it.", what, why)
	fix := fmt.Sprintf("If the call is meant to go through the mesh, change %s on %s (in its Deployment's pod template) so that it no longer leaves out port %d to %s, and restart the pods.", ann, strings.ToLower(what[:1])+what[1:], port, host)
	f := finding(PathDirect, strings.TrimPrefix(what, "Every workload of "), msg, fix)
	if strings.HasPrefix(what, "Every workload of namespace ") {
		f.Resource = "Namespace " + ns
	}
	return &f
}

type captureAnnotatedKey struct{}

// captureAnnotated: the namespaces with a Pod or Deployment pod template carrying an annotation
// that narrows the outbound redirection (worked out once per snapshot; nil when none has).
func captureAnnotated(snap *snapshot.Snapshot) map[string]bool {
	return snap.Derived(captureAnnotatedKey{}, func() any {
		has := func(a map[string]string) bool {
			for _, k := range []string{annExcludeOutboundPorts, annExcludeOutboundIPRanges, annIncludeOutboundIPRanges} {
				if _, ok := a[k]; ok {
					return true
				}
			}
			return false
		}
		var out map[string]bool
		add := func(ns string) {
			if out == nil {
				out = map[string]bool{}
			}
			out[ns] = true
		}
		for _, p := range snap.Pods {
			if has(p.Annotations) {
				add(p.Namespace)
			}
		}
		for _, d := range snap.Deployments {
			if has(d.Spec.Template.Annotations) {
				add(d.Namespace)
			}
		}
		return out
	}).(map[string]bool)
}
