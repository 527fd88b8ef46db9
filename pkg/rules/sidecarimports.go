package rules

import networkingv1 "istio.io/client-go/pkg/apis/networking/v1"

// Imported returns every registry entry the sidecar's egress listeners import (each entry and
// host once, in egress-listener order).
//
// Mirrors istiod pilot/pkg/model/sidecar.go IstioEgressListenerWrapper.Services across the
// scope's egress listeners.
func (o *SidecarOutbound) Imported() []Service {
	var out []Service
	seen := map[string]bool{}
	for _, v := range o.views {
		for _, s := range v.services {
			k := s.Ref() + "|" + s.Hostname
			if !seen[k] {
				seen[k] = true
				out = append(out, s)
			}
		}
	}
	return out
}

// CDSService returns the entry a sidecar's clusters for host come from: among the imported
// entries for the host, the one istiod keeps for the hostname (ServiceForProxy's choice and
// port merging); nil when none is imported. VirtualService destinations that istiod adds to CDS
// without an import (collectImportedServices) are not included.
//
// Mirrors istiod pilot/pkg/model/sidecar.go collectImportedServices / appendSidecarServices.
func (o *SidecarOutbound) CDSService(host string) *Service {
	var cands []Service
	for _, s := range o.Imported() {
		if s.Hostname == host {
			cands = append(cands, s)
		}
	}
	chosen, _ := ServiceForProxy(cands, o.Proxy.Namespace)
	return chosen
}

// VirtualServices returns the mesh-bound VirtualServices the sidecar's egress listeners import
// (each once, in egress-listener order).
//
// Mirrors istiod pilot/pkg/model/sidecar.go IstioEgressListenerWrapper.VirtualServices.
func (o *SidecarOutbound) VirtualServices() []*networkingv1.VirtualService {
	var out []*networkingv1.VirtualService
	seen := map[string]bool{}
	for _, v := range o.views {
		for _, vs := range v.vses {
			k := vs.Namespace + "/" + vs.Name
			if !seen[k] {
				seen[k] = true
				out = append(out, vs)
			}
		}
	}
	return out
}
