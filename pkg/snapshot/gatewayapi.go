package snapshot

import (
	"encoding/json"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// GatewayAPIGroup is the Kubernetes Gateway API's group.
const GatewayAPIGroup = "gateway.networking.k8s.io"

// GatewayAPIKinds are the Gateway API kinds that can carry egress traffic: a Gateway of an Istio
// class becomes gateway configuration in istiod, and routes become VirtualServices.
var GatewayAPIKinds = []string{"Gateway", "HTTPRoute", "GRPCRoute", "TLSRoute", "TCPRoute"}

// GatewayAPIObject is the part of a Gateway API Gateway or route that says which hosts it
// concerns. kubectl-egress does not model what istiod generates from these objects yet; it
// reads them so that no verdict about a host they route rests silently on their absence.
type GatewayAPIObject struct {
	Kind      string `json:"kind"`
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	// GatewayClass is a Gateway's spec.gatewayClassName.
	GatewayClass string `json:"gatewayClass,omitempty"`
	// Hostnames are a route's spec.hostnames, or a Gateway's listeners' hostnames.
	Hostnames []string `json:"hostnames,omitempty"`
	// ParentRefs and BackendRefs are a route's references.
	ParentRefs  []GatewayAPIRef `json:"parentRefs,omitempty"`
	BackendRefs []GatewayAPIRef `json:"backendRefs,omitempty"`
}

// Ref is "Kind namespace/name".
func (o GatewayAPIObject) Ref() string { return o.Kind + " " + o.Namespace + "/" + o.Name }

// GatewayAPIRef is a parentRef or backendRef (group "" is the core group; kind defaults as the
// Gateway API defines: Gateway for parents, Service for backends).
type GatewayAPIRef struct {
	Group     string `json:"group,omitempty"`
	Kind      string `json:"kind"`
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	Port      int32  `json:"port,omitempty"`
}

// ParseGatewayAPIObject reads the fields kubectl-egress uses from a Gateway API object's JSON
// (unknown fields are ignored: the object is not modelled, only attributed to hosts). ns is the
// namespace to use when metadata has none.
func ParseGatewayAPIObject(kind string, js []byte, ns string) (GatewayAPIObject, error) {
	var raw struct {
		Metadata metav1.ObjectMeta `json:"metadata"`
		Spec     struct {
			GatewayClassName string `json:"gatewayClassName"`
			Listeners        []struct {
				Hostname string `json:"hostname"`
			} `json:"listeners"`
			Hostnames  []string  `json:"hostnames"`
			ParentRefs []refJSON `json:"parentRefs"`
			Rules      []struct {
				BackendRefs []struct {
					refJSON
					Filters []filterJSON `json:"filters"`
				} `json:"backendRefs"`
				Filters []filterJSON `json:"filters"`
			} `json:"rules"`
		} `json:"spec"`
	}
	if err := json.Unmarshal(js, &raw); err != nil {
		return GatewayAPIObject{}, err
	}
	o := GatewayAPIObject{Kind: kind, Namespace: raw.Metadata.Namespace, Name: raw.Metadata.Name, GatewayClass: raw.Spec.GatewayClassName}
	if o.Namespace == "" {
		o.Namespace = ns
	}
	if kind == "Gateway" {
		for _, l := range raw.Spec.Listeners {
			if l.Hostname != "" {
				o.Hostnames = append(o.Hostnames, l.Hostname)
			}
		}
		return o, nil
	}
	o.Hostnames = raw.Spec.Hostnames
	for _, p := range raw.Spec.ParentRefs {
		o.ParentRefs = append(o.ParentRefs, p.ref(GatewayAPIGroup, "Gateway", o.Namespace))
	}
	// Backends, and the backends requests are mirrored to (RequestMirror filters of a rule or
	// of a backend): both get clusters.
	mirror := func(fs []filterJSON) {
		for _, f := range fs {
			if f.RequestMirror != nil {
				o.BackendRefs = append(o.BackendRefs, f.RequestMirror.BackendRef.ref("", "Service", o.Namespace))
			}
		}
	}
	for _, r := range raw.Spec.Rules {
		for _, b := range r.BackendRefs {
			o.BackendRefs = append(o.BackendRefs, b.ref("", "Service", o.Namespace))
			mirror(b.Filters)
		}
		mirror(r.Filters)
	}
	return o, nil
}

type filterJSON struct {
	RequestMirror *struct {
		BackendRef refJSON `json:"backendRef"`
	} `json:"requestMirror"`
}

type refJSON struct {
	Group     *string `json:"group"`
	Kind      *string `json:"kind"`
	Namespace string  `json:"namespace"`
	Name      string  `json:"name"`
	Port      int32   `json:"port"`
}

func (r refJSON) ref(group, kind, ns string) GatewayAPIRef {
	out := GatewayAPIRef{Group: group, Kind: kind, Namespace: r.Namespace, Name: r.Name, Port: r.Port}
	if r.Group != nil {
		out.Group = *r.Group
	}
	if r.Kind != nil {
		out.Kind = *r.Kind
	}
	if out.Namespace == "" {
		out.Namespace = ns
	}
	return out
}

// GatewayAPICRD is what istiod reads of a Gateway API CRD: its name and the
// gateway.networking.k8s.io/bundle-version annotation (Annotated false when it has none).
type GatewayAPICRD struct {
	Name      string `json:"name"`
	Version   string `json:"version,omitempty"`
	Annotated bool   `json:"annotated"`
}
