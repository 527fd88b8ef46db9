package checks

import (
	"fmt"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	"github.com/kubectl-egress/kubectl-egress/pkg/rules"
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
		ws := clientWorkloadsIn(snap, ns)
		if len(ws) == 0 {
			return nil
		}
		for _, w := range ws {
			if why, ann = captureBypass(w.annotations, port, addr, host); why == "" {
				return nil
			}
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

// nsWorkloadRef is a Pod or a Deployment's pod template of one namespace, as the checks of its
// data plane read it.
type nsWorkloadRef struct {
	ref                 string // "Pod ns/name", "Deployment ns/name"
	labels, annotations map[string]string
	// gateway: the workload is a gateway's own proxy (a Gateway API gateway's Deployment, which
	// istiod labels sidecar.istio.io/inject=false, or a gateway workload), no client of the
	// namespace (blind audit 106: "runs no proxy" for the <gateway>-istio Deployment)
	gateway bool
}

// runsGatewayProxy: labels and annotations of a pod (template) that runs a gateway's proxy: istiod's
// gateway Deployment (gateway.networking.k8s.io/gateway-name, istio.io/gateway-name) or a pod
// injected with the gateway template.
func runsGatewayProxy(labels, annotations map[string]string) bool {
	return labels[rules.KubeGatewayNameLabel] != "" || labels["istio.io/gateway-name"] != "" || strings.Contains(annotations["inject.istio.io/templates"], "gateway")
}

type workloadsByNsKey struct{}

// clientWorkloadsIn is workloadsIn without the gateways' own proxies.
func clientWorkloadsIn(snap *snapshot.Snapshot, ns string) []nsWorkloadRef {
	var out []nsWorkloadRef
	for _, w := range workloadsIn(snap, ns) {
		if !w.gateway {
			out = append(out, w)
		}
	}
	return out
}

// workloadsIn lists the Pods and Deployments of namespace ns in the input (indexed once per
// snapshot).
func workloadsIn(snap *snapshot.Snapshot, ns string) []nsWorkloadRef {
	return snap.Derived(workloadsByNsKey{}, func() any {
		out := map[string][]nsWorkloadRef{}
		gws := map[string]bool{}
		for _, w := range gatewayWorkloads(snap) {
			gws[w.Kind+" "+w.Ref()] = true
		}
		for _, p := range snap.Pods {
			ref := "Pod " + p.Namespace + "/" + p.Name
			out[p.Namespace] = append(out[p.Namespace], nsWorkloadRef{ref, p.Labels, p.Annotations, gws[ref] || runsGatewayProxy(p.Labels, p.Annotations)})
		}
		for _, d := range snap.Deployments {
			ref := "Deployment " + d.Namespace + "/" + d.Name
			out[d.Namespace] = append(out[d.Namespace], nsWorkloadRef{ref, d.Spec.Template.Labels, d.Spec.Template.Annotations, gws[ref] || runsGatewayProxy(d.Spec.Template.Labels, d.Spec.Template.Annotations)})
		}
		return out
	}).(map[string][]nsWorkloadRef)[ns]
}

// partlyBypassingClient is the PATH_BYPASSES_GATEWAY warning, asked with --from (no pod), for the
// workloads of namespace ns in the input whose calls to addr:port leave the sidecar out while
// others' do not: they run no proxy (sidecarInjected), or their annotations leave the call out
// of the redirection (captureBypass). The trace stands for the others. nil when none does, or
// all do (unmeshedClient, uncapturedClient).
func partlyBypassingClient(snap *snapshot.Snapshot, ns string, port uint32, addr, host string) *Finding {
	ws := clientWorkloadsIn(snap, ns)
	nl := NamespaceLabels(snap, ns)
	var out, whys []string
	for _, w := range ws {
		if w.labels[rules.LabelDataplaneMode] == "ambient" {
			continue
		}
		why := ""
		if !sidecarInjected(nl, w.labels, w.annotations) {
			why = "runs no proxy"
		} else if b, ann := captureBypass(w.annotations, port, addr, host); b != "" {
			why = "leaves the call out of its sidecar's redirection (" + ann + ")"
		}
		if why != "" {
			out = append(out, w.ref)
			whys = append(whys, w.ref+" "+why)
		}
	}
	if len(out) == 0 || len(out) == len(ws) {
		return nil
	}
	list := whys
	if len(list) > 3 {
		list = append(list[:3:3], fmt.Sprintf("and %d more", len(whys)-3))
	}
	f := finding(PathDirect, out[0], fmt.Sprintf("%d of the %d workloads of namespace %s in the input send this call straight out, through no sidecar or egress gateway: %s. The trace is for the others.", len(out), len(ws), ns, strings.Join(list, "; ")),
		fmt.Sprintf("If their calls are meant to go through the mesh, give %s a sidecar that sees them (no sidecar.istio.io/inject: \"false\", no traffic.sidecar.istio.io annotation leaving out port %d to %s), and restart the pods.", strings.Join(out[:min(len(out), 3)], ", "), port, host))
	return &f
}

// someWorkloadUninjected: a Pod or Deployment of namespace ns in the input runs no proxy (and is
// not ambient).
func someWorkloadUninjected(snap *snapshot.Snapshot, ns string) bool {
	nl := NamespaceLabels(snap, ns)
	for _, w := range clientWorkloadsIn(snap, ns) {
		if w.labels[rules.LabelDataplaneMode] != "ambient" && !sidecarInjected(nl, w.labels, w.annotations) {
			return true
		}
	}
	return false
}
