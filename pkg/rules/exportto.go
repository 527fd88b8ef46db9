package rules

import "slices"

// ExportTo values (seed §4.2; istiod pkg/config/visibility).
const (
	ExportPublic  = "*"
	ExportPrivate = "."
	ExportNone    = "~"
)

// EffectiveExportTo returns declared when it is non-empty, else the mesh default
// (meshConfig.defaultServiceExportTo / defaultVirtualServiceExportTo /
// defaultDestinationRuleExportTo), else ["*"].
//
// Mirrors istiod pilot/pkg/model/push_context.go initDefaultExportMaps and serviceExportTo
// (services), virtualservice_controller.go copyDefaultExportToSet (virtual services).
func EffectiveExportTo(declared, meshDefault []string) []string {
	if len(declared) > 0 {
		return declared
	}
	if len(meshDefault) > 0 {
		return meshDefault
	}
	return []string{ExportPublic}
}

// ServiceVisible reports whether a service (ServiceEntry or Kubernetes Service) in namespace
// svcNs with the effective exportTo set is visible to a proxy whose config namespace is proxyNs.
// "*" wins over everything, "~" hides from everyone, "." and the service's own namespace mean the
// own namespace, any other value names a namespace. An exportTo of ["other"] does NOT include
// the service's own namespace.
//
// Mirrors istiod pilot/pkg/model/push_context.go initServiceRegistry (indexing) and
// IsServiceVisible (seed §2.4 gate (1), §4.2).
func ServiceVisible(svcNs string, exportTo []string, proxyNs string) bool {
	if slices.Contains(exportTo, ExportPublic) {
		return true
	}
	if slices.Contains(exportTo, ExportNone) {
		return false
	}
	for _, e := range exportTo {
		if e == ExportPrivate || e == svcNs {
			if proxyNs == svcNs {
				return true
			}
			continue
		}
		if e == proxyNs {
			return true
		}
	}
	return false
}

// VirtualServiceVisible reports whether a VirtualService in vsNs with the effective exportTo set
// is used by a proxy in proxyNs ("." means vsNs; "~" is not valid for VirtualServices and
// hides it).
//
// Mirrors istiod pilot/pkg/model/push_context.go initVirtualServices (publicByGateway,
// privateByNamespaceAndGateway, exportedToNamespaceByGateway) and VirtualServicesForGateway
// (seed §4.2: evaluated in the gateway POD's namespace).
func VirtualServiceVisible(vsNs string, exportTo []string, proxyNs string) bool {
	if slices.Contains(exportTo, ExportPublic) {
		return true
	}
	if slices.Contains(exportTo, ExportNone) {
		return false
	}
	for _, e := range exportTo {
		if e == ExportPrivate {
			e = vsNs
		}
		if e == proxyNs {
			return true
		}
	}
	return false
}
