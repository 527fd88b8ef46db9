// Package rules mirrors, one pure function each, the parts of istiod's config generation that
// decide whether a gateway (ROUTER) proxy gets an outbound cluster and a route for a host.
//
// Every exported function names the istiod function whose behaviour it mirrors (module
// istio.io/istio, 1.31 line) and the seed guide section it implements (../shared/seeds/000_*.txt).
// Nothing here reads a cluster or a file: inputs are istio.io/client-go objects and plain values.
// The conformance suite (hack/conformance) compares these predictions with istiod's own output.
package rules

// DefaultDomain is the cluster domain used for short-name expansion (meshConfig trustDomain is
// unrelated); a real istiod's crdclient sets config Meta.Domain to it.
const DefaultDomain = "cluster.local"

// MeshGateway is the reserved gateway name meaning "every sidecar".
const MeshGateway = "mesh"
