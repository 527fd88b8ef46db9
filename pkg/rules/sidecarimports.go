package rules

import networkingv1 "istio.io/client-go/pkg/apis/networking/v1"

// Imported returns every registry entry the sidecar's egress listeners import (each entry and
// host once, in egress-listener order).
//
// Mirrors istiod pilot/pkg/model/sidecar.go IstioEgressListenerWrapper.Services across the
// scope's egress listeners.
func (o *SidecarOutbound) Imported() []Service {
	return o.index().imported
}

// CDSService returns the entry a sidecar's clusters for host come from: among the imported
// entries for the host, the one istiod keeps for the hostname (ServiceForProxy's choice and
// port merging); nil when none is imported. VirtualService destinations that istiod adds to CDS
// without an import (collectImportedServices) are not included.
//
// Mirrors istiod pilot/pkg/model/sidecar.go collectImportedServices / appendSidecarServices.
func (o *SidecarOutbound) CDSService(host string) *Service {
	chosen, _ := ServiceForProxy(o.ImportedForHost(host), o.Proxy.Namespace)
	return chosen
}

// VirtualServices returns the mesh-bound VirtualServices the sidecar's egress listeners import
// (each once, in egress-listener order).
//
// Mirrors istiod pilot/pkg/model/sidecar.go IstioEgressListenerWrapper.VirtualServices.
func (o *SidecarOutbound) VirtualServices() []*networkingv1.VirtualService {
	return o.index().vses
}
