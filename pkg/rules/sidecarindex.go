package rules

import (
	"sync"

	networkingv1 "istio.io/client-go/pkg/apis/networking/v1"
)

// outboundIndex holds what SidecarOutbound's accessors would otherwise recompute on every call:
// the imported entries (also by host name), the imported VirtualServices, the listeners by port
// and the route configurations by name. Built on first use; a SidecarOutbound is not changed
// after BuildSidecarOutbound returns.
type outboundIndex struct {
	once           sync.Once
	imported       []Service
	importedByHost map[string][]Service
	vses           []*networkingv1.VirtualService
	byPort         map[uint32][]*Listener

	routesMu sync.Mutex
	routes   map[string]*RouteConfig
}

func (o *SidecarOutbound) index() *outboundIndex {
	x := &o.idx
	x.once.Do(func() {
		seen := map[string]bool{}
		x.importedByHost = map[string][]Service{}
		for _, v := range o.views {
			for _, s := range v.services {
				k := s.Ref() + "|" + s.Hostname
				if !seen[k] {
					seen[k] = true
					x.imported = append(x.imported, s)
					x.importedByHost[s.Hostname] = append(x.importedByHost[s.Hostname], s)
				}
			}
		}
		seenVS := map[string]bool{}
		for _, v := range o.views {
			for _, vs := range v.vses {
				k := vs.Namespace + "/" + vs.Name
				if !seenVS[k] {
					seenVS[k] = true
					x.vses = append(x.vses, vs)
				}
			}
		}
		x.byPort = map[uint32][]*Listener{}
		for _, l := range o.Listeners {
			x.byPort[l.Port] = append(x.byPort[l.Port], l)
		}
		x.routes = map[string]*RouteConfig{}
	})
	return x
}

// ImportedForHost returns the imported entries whose host name is host, in Imported order.
func (o *SidecarOutbound) ImportedForHost(host string) []Service {
	return o.index().importedByHost[host]
}
