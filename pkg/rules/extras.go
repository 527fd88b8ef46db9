package rules

import (
	"encoding/json"
	"strings"

	"google.golang.org/protobuf/encoding/protojson"

	meshv1alpha1 "istio.io/api/mesh/v1alpha1"
	networkingv1alpha3 "istio.io/client-go/pkg/apis/networking/v1alpha3"
)

// ReferencedServicesAnnotation lists services an EnvoyFilter's patches reference, so that
// PILOT_FILTER_GATEWAY_CLUSTER_CONFIG keeps their clusters (comma-separated "host" or
// "ns/host").
const ReferencedServicesAnnotation = "envoyfilter.istio.io/referenced-services"

// Extra is a service reference that keeps a gateway cluster independently of VirtualServices.
type Extra struct {
	// Namespace is set for "ns/host" references (then the service must be in that namespace).
	Namespace string
	Host      string
	// Source is "meshConfig.extensionProviders[<name>].<kind>" or "EnvoyFilter ns/name".
	Source string
}

// extensionProviderKinds are the provider kinds whose `service` istiod keeps for gateways.
var extensionProviderKinds = map[string]bool{
	"envoyExtAuthzHttp": true, "envoyExtAuthzGrpc": true, "zipkin": true, "datadog": true,
	"skywalking": true, "opentelemetry": true, "envoyHttpAls": true, "envoyTcpAls": true,
	"envoyOtelAls": true, "sds": true,
}

// ExtraServices returns the services kept for a gateway proxy besides VirtualService
// destinations: the `service` of every meshConfig.extensionProviders entry of the kinds above
// (used or not), and the referenced-services annotation of every EnvoyFilter in the root
// namespace or the proxy's namespace whose workloadSelector is empty or selects the proxy.
//
// Mirrors istiod pilot/pkg/model/push_context.go extraServicesForProxy and
// pilot/pkg/model/envoyfilter.go convertToEnvoyFilterWrapper (seed §4.4 edge cases).
func ExtraServices(mc *meshv1alpha1.MeshConfig, efs []*networkingv1alpha3.EnvoyFilter, rootNs, proxyNs string, proxyLabels map[string]string) []Extra {
	var out []Extra
	for _, p := range mc.GetExtensionProviders() {
		b, err := protojson.Marshal(p)
		if err != nil {
			continue
		}
		var m map[string]json.RawMessage
		if json.Unmarshal(b, &m) != nil {
			continue
		}
		for kind, raw := range m {
			if !extensionProviderKinds[kind] {
				continue
			}
			var body struct {
				Service string `json:"service"`
			}
			if json.Unmarshal(raw, &body) == nil && body.Service != "" {
				e := parseRef(body.Service)
				e.Source = "meshConfig.extensionProviders[" + p.GetName() + "]." + kind
				out = append(out, e)
			}
		}
	}
	for _, ef := range efs {
		if ef.Namespace != rootNs && ef.Namespace != proxyNs {
			continue
		}
		if !LabelsSubsetOf(ef.Spec.GetWorkloadSelector().GetLabels(), proxyLabels) {
			continue
		}
		for _, r := range strings.Split(ef.Annotations[ReferencedServicesAnnotation], ",") {
			if r = strings.TrimSpace(r); r != "" {
				e := parseRef(r)
				e.Source = "EnvoyFilter " + ef.Namespace + "/" + ef.Name
				out = append(out, e)
			}
		}
	}
	return out
}

func parseRef(s string) Extra {
	if ns, h, ok := strings.Cut(s, "/"); ok {
		return Extra{Namespace: ns, Host: NormalizeHost(h)}
	}
	return Extra{Host: NormalizeHost(s)}
}
