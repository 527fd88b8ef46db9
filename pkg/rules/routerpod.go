package rules

import (
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// IsRouterPod reports a pod spec shaped like a gateway (ROUTER) proxy, as Istio's gateway
// injection and charts produce it: the injection template "gateway"
// (inject.istio.io/templates), the proxy started as `proxy router`, or a pod whose only
// container is istio-proxy (the gateway chart's image: auto). istiod itself learns the proxy
// type from the proxy's own start arguments (model.Proxy.Type); this is the closest a reader of
// the API objects gets. Ingress gateways (istio=ingressgateway) are left out of the egress
// gateway list unless a Gateway selects them explicitly.
func IsRouterPod(l, annotations map[string]string, spec corev1.PodSpec) bool {
	if l["istio"] == "ingressgateway" {
		return false
	}
	for _, t := range strings.Split(annotations["inject.istio.io/templates"], ",") {
		if strings.TrimSpace(t) == "gateway" {
			return true
		}
	}
	for _, c := range spec.Containers {
		if c.Name == "istio-proxy" && slices.Contains(c.Args, "router") {
			return true
		}
	}
	return len(spec.Containers) == 1 && spec.Containers[0].Name == "istio-proxy"
}
