package rules

import (
	"fmt"
	"maps"
	"net/netip"
	"slices"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"

	meshv1alpha1 "istio.io/api/mesh/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	networkingv1 "istio.io/client-go/pkg/apis/networking/v1"
)

// Service kinds.
const (
	KindServiceEntry = "ServiceEntry"
	KindService      = "Service"
)

// ExportToAnnotation is the Kubernetes Service annotation istiod reads as exportTo
// (pilot/pkg/serviceregistry/kube/conversion.go ConvertService: comma separated, trimmed).
const ExportToAnnotation = "networking.istio.io/exportTo"

// ServicePort is one declared port of a registry entry.
type ServicePort struct {
	Number uint32
	Name   string
	// Protocol is istiod's protocol for the port (ParseProtocol, KubePortProtocol); "" is
	// unsupported (sniffed on sidecars).
	Protocol string
	// TargetPort is the ServiceEntry port's targetPort or a Kubernetes Service port's numeric
	// targetPort (0 = unset or named).
	TargetPort uint32
	// AppProtocol is a Kubernetes Service port's appProtocol ("" when unset), which istiod reads
	// instead of the name.
	AppProtocol string
	// EndpointPort is, for a ServiceEntry with inline endpoints, the port every endpoint
	// serves this port on (its ports[name], else targetPort, else the number), 0 when they
	// differ or there are no inline endpoints (serviceentry/conversion.go convertEndpoint).
	EndpointPort uint32
}

// Service is one registry entry (a ServiceEntry host or a Kubernetes Service) for one hostname,
// the unit istiod builds clusters from.
type Service struct {
	Kind      string
	Namespace string
	Name      string
	Hostname  string
	Ports     []ServicePort
	// DeclaredExportTo is the resource's own exportTo; ExportTo is the effective set (mesh
	// default applied).
	DeclaredExportTo []string
	ExportTo         []string
	// Resolution: NONE, STATIC, DNS, DNS_ROUND_ROBIN, DYNAMIC_DNS for ServiceEntries;
	// ClusterIP, Headless, ExternalName for Services.
	Resolution string
	// ExternalName is an ExternalName Service's target host (lower case): routes to the
	// Service go to the target's clusters (istiod's Alias resolution).
	ExternalName     string
	Location         string
	Addresses        []string
	Endpoints        int
	WorkloadSelector map[string]string
	Created          metav1.Time
	Annotations      map[string]string
	// Visibility is the entry's resolved meshConfig.serviceEntryVisibility (ServiceEntries only);
	// UncappedExportTo is the effective exportTo before the visibility cap.
	Visibility       SEVisibility
	UncappedExportTo []string
	// Labels are the resource's metadata labels; EndpointLabels the labels of each inline
	// endpoint (ServiceEntry spec.endpoints).
	Labels         map[string]string
	EndpointLabels []map[string]string
	// EndpointAddresses are the addresses of the inline endpoints (ServiceEntry spec.endpoints)
	// or, for Kubernetes Services, nothing (pods are not modelled here).
	EndpointAddresses []string
	// MergedFrom lists other entries whose ports istiod merged into this one.
	MergedFrom []string
	// AutoIPv4 is the IPv4 address istiod's IP allocator assigned to this host (the entry's
	// status.addresses), for an entry that may use one: no spec.addresses, resolution other than
	// NONE, not opted out with the label networking.istio.io/enable-autoallocate-ip=false.
	// Proxies with DNS capture bind their listeners to it (SidecarProxy.AutoAllocated).
	AutoIPv4 string
}

// AutoAllocateLabel opts a ServiceEntry out of automatic address allocation when "false".
const AutoAllocateLabel = "networking.istio.io/enable-autoallocate-ip"

// autoIPv4 returns the IPv4 address status.addresses assigns to host, "" when the entry may not
// use one.
//
// Mirrors istiod pilot/pkg/networking/serviceentry/ip_autoallocation.go
// shouldV2AutoAllocateIPFromPieces and getHostAddressesFromServiceEntryStatus (the last IPv4
// address listed for the host wins), as convertServices reads them.
func autoIPv4(se *networkingv1.ServiceEntry, host string) string {
	if len(se.Spec.Addresses) > 0 || se.Spec.Resolution.String() == "NONE" || strings.EqualFold(se.Labels[AutoAllocateLabel], "false") {
		return ""
	}
	v4 := ""
	for _, a := range se.Status.GetAddresses() {
		if a.GetHost() != host {
			continue
		}
		if ip, err := netip.ParseAddr(a.GetValue()); err == nil && ip.Is4() {
			v4 = ip.String()
		}
	}
	return v4
}

// serviceAddresses: a ServiceEntry's addresses as istiod's services carry them: an IP as it is,
// a CIDR of one address (/32, /128) as that address, other CIDRs as written; anything else is
// dropped.
//
// Mirrors istiod pilot/pkg/serviceregistry/serviceentry/conversion.go convertServices ("/32
// mask. Remove the /32 and make it a normal IP address"; an address that parses as neither is
// skipped).
func serviceAddresses(addrs []string) []string {
	if len(addrs) == 0 {
		return addrs
	}
	out := make([]string, 0, len(addrs))
	for _, a := range addrs {
		if _, err := netip.ParseAddr(a); err == nil {
			out = append(out, a)
		} else if p, err := netip.ParsePrefix(a); err == nil {
			if p.Bits() == p.Addr().BitLen() {
				out = append(out, p.Addr().String())
			} else {
				out = append(out, a)
			}
		}
	}
	return out
}

// ServiceOptions are the mesh settings that shape registry entries.
type ServiceOptions struct {
	// DefaultExportTo is meshConfig.defaultServiceExportTo.
	DefaultExportTo []string
	// Visibility is meshConfig.serviceEntryVisibility (nil = not configured).
	Visibility *meshv1alpha1.ServiceEntryVisibility
	// NamespaceLabels returns a namespace's labels (nil when unknown).
	NamespaceLabels func(ns string) map[string]string
}

// Ref returns "Kind namespace/name".
func (s Service) Ref() string { return s.Kind + " " + s.Namespace + "/" + s.Name }

// ServiceEntryServices converts a ServiceEntry into one Service per host, applying the mesh's
// defaultServiceExportTo when the entry has none, then the serviceEntryVisibility cap.
//
// Mirrors istiod pilot/pkg/serviceregistry/serviceentry/conversion.go convertServices (one
// service per host; addresses do not change the cluster name) and push_context.go
// serviceExportTo.
func ServiceEntryServices(se *networkingv1.ServiceEntry, opt ServiceOptions) []Service {
	var nsLabels map[string]string
	if opt.NamespaceLabels != nil {
		nsLabels = opt.NamespaceLabels(se.Namespace)
	}
	vis := ResolveSEVisibility(opt.Visibility, nsLabels)
	uncapped := EffectiveExportTo(se.Spec.ExportTo, opt.DefaultExportTo)
	var ports []ServicePort
	for _, p := range se.Spec.Ports {
		ep := uint32(0)
		for i, e := range se.Spec.GetEndpoints() {
			n := e.GetPorts()[p.GetName()]
			if n == 0 {
				n = p.GetTargetPort()
			}
			if n == 0 {
				n = p.GetNumber()
			}
			if i > 0 && n != ep {
				ep = 0
				break
			}
			ep = n
		}
		ports = append(ports, ServicePort{Number: p.GetNumber(), Name: p.GetName(), Protocol: ParseProtocol(p.GetProtocol()), TargetPort: p.GetTargetPort(), EndpointPort: ep})
	}
	out := make([]Service, 0, len(se.Spec.Hosts))
	for _, h := range se.Spec.Hosts {
		out = append(out, Service{
			Kind: KindServiceEntry, Namespace: se.Namespace, Name: se.Name,
			Hostname:         NormalizeHost(h),
			Ports:            ports,
			DeclaredExportTo: se.Spec.ExportTo,
			ExportTo:         CapExportTo(uncapped, se.Namespace, vis),
			UncappedExportTo: uncapped,
			Visibility:       vis,
			Resolution:       se.Spec.Resolution.String(),
			Location:         se.Spec.Location.String(),
			Addresses:        serviceAddresses(se.Spec.Addresses),
			AutoIPv4:         autoIPv4(se, h),
			Endpoints:        len(se.Spec.Endpoints),
			WorkloadSelector: se.Spec.GetWorkloadSelector().GetLabels(),
			Created:          se.CreationTimestamp,
			Annotations:      se.Annotations,
			Labels:           se.Labels,
			EndpointLabels:   endpointLabels(se),
			EndpointAddresses: func() []string {
				var a []string
				for _, e := range se.Spec.Endpoints {
					a = append(a, e.GetAddress())
				}
				return a
			}(),
		})
	}
	return out
}

func endpointLabels(se *networkingv1.ServiceEntry) []map[string]string {
	out := make([]map[string]string, 0, len(se.Spec.Endpoints))
	for _, e := range se.Spec.Endpoints {
		out = append(out, e.GetLabels())
	}
	return out
}

// KubeServiceHost returns the cluster-local FQDN of a Kubernetes Service.
func KubeServiceHost(svc *corev1.Service) string {
	return svc.Name + "." + svc.Namespace + ".svc." + DefaultDomain
}

// KubeService converts a Kubernetes Service into a registry entry.
//
// Mirrors istiod pilot/pkg/serviceregistry/kube/conversion.go ConvertService (exportTo
// annotation, ExternalName as Alias, clusterIP None as Passthrough).
func KubeService(svc *corev1.Service, defaultExportTo []string) Service {
	// Kubernetes Services are never capped by serviceEntryVisibility.
	var declared []string
	if a := svc.Annotations[ExportToAnnotation]; a != "" {
		for _, e := range strings.Split(a, ",") {
			declared = append(declared, strings.TrimSpace(e))
		}
	}
	res := "ClusterIP"
	switch {
	case svc.Spec.Type == corev1.ServiceTypeExternalName:
		res = "ExternalName"
	case svc.Spec.ClusterIP == corev1.ClusterIPNone:
		res = "Headless"
	}
	var ports []ServicePort
	for _, p := range svc.Spec.Ports {
		proto := KubePortProtocol(p.Port, p.Name, p.Protocol, p.AppProtocol)
		sp := ServicePort{Number: uint32(p.Port), Name: p.Name, Protocol: proto, TargetPort: uint32(p.TargetPort.IntVal)}
		if p.AppProtocol != nil {
			sp.AppProtocol = *p.AppProtocol
		}
		ports = append(ports, sp)
	}
	return Service{
		Kind: KindService, Namespace: svc.Namespace, Name: svc.Name,
		Hostname: KubeServiceHost(svc), Ports: ports,
		DeclaredExportTo: declared, ExportTo: EffectiveExportTo(declared, defaultExportTo),
		Resolution: res, Location: "MESH_INTERNAL", Created: svc.CreationTimestamp, ExternalName: externalName(svc),
		Annotations: svc.Annotations, Labels: svc.Labels, WorkloadSelector: svc.Spec.Selector,
		Addresses: clusterIPs(svc),
	}
}

// ExternalNameOf is an ExternalName Service's target, lower case ("" for other Services).
func ExternalNameOf(svc *corev1.Service) string { return externalName(svc) }

// externalName is an ExternalName Service's target, lower case ("" for other Services). A
// trailing dot stays: istiod copies spec.externalName as it is (kube/conversion.go
// ConvertService), so a route to the alias goes to a cluster named with the dot, which no entry
// builds.
func externalName(svc *corev1.Service) string {
	if svc.Spec.Type != corev1.ServiceTypeExternalName {
		return ""
	}
	return strings.ToLower(svc.Spec.ExternalName) // kept as written: istiod does not strip a trailing dot
}

// clusterIPs returns the Service's cluster IP. A manifest without spec.clusterIP gets one from
// the API server when applied; offline the address is unknown, so a placeholder
// "<clusterIP of ns/name>" stands for it (the proxy binds a listener to it, not to 0.0.0.0).
func clusterIPs(svc *corev1.Service) []string {
	switch {
	case svc.Spec.ClusterIP == corev1.ClusterIPNone || svc.Spec.Type == corev1.ServiceTypeExternalName:
		return nil
	case svc.Spec.ClusterIP == "":
		return []string{"<clusterIP of " + svc.Namespace + "/" + svc.Name + ">"}
	}
	return []string{svc.Spec.ClusterIP}
}

// ServicesForHost returns every registry entry whose hostname equals host (case-insensitive).
func ServicesForHost(ses []*networkingv1.ServiceEntry, svcs []*corev1.Service, host string, opt ServiceOptions) []Service {
	host = NormalizeHost(host)
	var out []Service
	for _, se := range ses {
		for _, s := range ServiceEntryServices(se, opt) {
			if s.Hostname == host {
				out = append(out, s)
			}
		}
	}
	for _, svc := range svcs {
		if KubeServiceHost(svc) == host {
			out = append(out, KubeService(svc, opt.DefaultExportTo))
		}
	}
	SortByCreation(out)
	return out
}

// ServicesForAddress returns the ServiceEntry services whose addresses contain ip (an address
// or a CIDR), for requests made to an IP instead of a name (seed §2.2 addresses).
func ServicesForAddress(ses []*networkingv1.ServiceEntry, ip string, opt ServiceOptions) []Service {
	addr, err := netip.ParseAddr(ip)
	if err != nil {
		return nil
	}
	var out []Service
	for _, se := range ses {
		hit := false
		for _, a := range se.Spec.Addresses {
			if p, err := netip.ParsePrefix(a); err == nil && p.Contains(addr) {
				hit = true
			} else if x, err := netip.ParseAddr(a); err == nil && x == addr {
				hit = true
			}
		}
		if hit {
			out = append(out, ServiceEntryServices(se, opt)...)
		}
	}
	SortByCreation(out)
	return out
}

// SortByCreation orders services oldest first; services of equal age by istiod's service name
// (a ServiceEntry service is named after its host, a Kubernetes Service after the Service), then
// namespace. Creation times have a resolution of one second, so ties are common.
//
// Mirrors istiod pilot/pkg/model/push_context.go SortServicesByCreationTime (Attributes.Name,
// set by serviceentry/conversion.go convertServices and kube/conversion.go ConvertService).
func SortByCreation(s []Service) {
	sort.SliceStable(s, func(i, j int) bool {
		a, b := s[i], s[j]
		if !a.Created.Equal(&b.Created) {
			return a.Created.Before(&b.Created)
		}
		if an, bn := a.serviceName(), b.serviceName(); an != bn {
			return an < bn
		}
		return a.Namespace < b.Namespace
	})
}

// serviceName is istiod's Service.Attributes.Name: the host of a ServiceEntry service, the name
// of a Kubernetes Service.
func (s Service) serviceName() string {
	if s.Kind == KindServiceEntry {
		return s.Hostname
	}
	return s.Name
}

// ServiceForProxy picks, among the registry entries for one hostname, the one a proxy in proxyNs
// keeps: only entries visible to proxyNs count; entries exported to proxyNs privately or by name
// come before public ones (each group oldest first); the first wins, except that a Kubernetes
// Service replaces a ServiceEntry; a later entry in the same namespace with the same
// resolution, registry, labels, workload selector and exportTo has its ports merged in. Returns
// nil when none is visible. visible lists every visible entry in that order.
//
// Mirrors istiod pilot/pkg/model/push_context.go servicesExportedToNamespace and
// pilot/pkg/model/sidecar.go appendSidecarServices / canMergeServices (hostname
// de-duplication), as used by DefaultSidecarScopeForGateway (seed §2.4 gate (1)).
func ServiceForProxy(services []Service, proxyNs string) (chosen *Service, visible []Service) {
	if len(services) == 1 { // the common case, without sorting
		if !ServiceVisible(services[0].Namespace, services[0].ExportTo, proxyNs) {
			return nil, nil
		}
		c := services[0]
		return &c, []Service{c}
	}
	visible = ServicesExportedTo(services, proxyNs)
	for i := range visible {
		s := visible[i]
		switch {
		case chosen == nil:
			c := s
			chosen = &c
		case chosen.Kind == KindService && s.Kind != KindService:
		case chosen.Kind != KindService && s.Kind == KindService:
			c := s
			chosen = &c
		case samePorts(chosen.Ports, s.Ports) || !canMerge(*chosen, s):
		default:
			c := *chosen
			c.Ports = slices.Clone(chosen.Ports)
			for _, p := range s.Ports {
				if !slices.ContainsFunc(c.Ports, func(q ServicePort) bool { return q.Number == p.Number }) {
					c.Ports = append(c.Ports, p)
				}
			}
			c.MergedFrom = append(slices.Clone(c.MergedFrom), s.Ref())
			chosen = &c
		}
	}
	return chosen, visible
}

// NotMergedReason says why istiod does not merge the ports of b into a (canMerge false), ""
// when it would merge them.
func NotMergedReason(a, b Service) string {
	switch {
	case a.Kind != b.Kind:
		return "a Kubernetes Service is never merged with a ServiceEntry"
	case a.Namespace != b.Namespace:
		return "entries of different namespaces are never merged"
	case a.Resolution != b.Resolution:
		return fmt.Sprintf("their resolutions differ (%s, %s)", a.Resolution, b.Resolution)
	case !maps.Equal(a.Labels, b.Labels):
		return "their labels differ"
	case !maps.Equal(a.WorkloadSelector, b.WorkloadSelector):
		return "their workloadSelectors differ"
	case !sameSet(a.DeclaredExportTo, b.DeclaredExportTo):
		return "their exportTo differ"
	}
	return ""
}

func samePorts(a, b []ServicePort) bool {
	return slices.Equal(a, b)
}

// canMerge mirrors istiod pilot/pkg/model/sidecar.go canMergeServices. Attributes.ExportTo
// there is the entry's own spec.exportTo (nil when unset, serviceentry/conversion.go
// convertServices), not the effective set: an unset exportTo never equals ["*"].
func canMerge(a, b Service) bool {
	return NotMergedReason(a, b) == ""
}

func sameSet(a, b []string) bool {
	x, y := slices.Clone(a), slices.Clone(b)
	slices.Sort(x)
	slices.Sort(y)
	return slices.Equal(slices.Compact(x), slices.Compact(y))
}

func containsStr(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// ClusterType returns the Envoy cluster type istiod gives the service's clusters on a gateway
// (forGateway) or a sidecar, or "" when it builds no cluster (ExternalName).
//
// Mirrors istiod pilot/pkg/networking/core/cluster.go convertResolution and
// cluster_builder.go buildCluster (a gateway cannot use ORIGINAL_DST, so NONE becomes EDS)
// (seed §2.2 resolution table).
func ClusterType(s Service, forGateway bool) string {
	switch s.Resolution {
	case "DNS":
		return "STRICT_DNS"
	case "DNS_ROUND_ROBIN":
		return "LOGICAL_DNS"
	case "STATIC", "ClusterIP":
		return "EDS"
	case "NONE", "Headless":
		if forGateway {
			return "EDS"
		}
		return "ORIGINAL_DST"
	case "DYNAMIC_DNS":
		if IsDynamicForwardProxy(s) {
			return "DYNAMIC_FORWARD_PROXY"
		}
		return "EDS"
	case "ExternalName":
		return ""
	}
	return "EDS"
}

// IsDynamicForwardProxy reports whether istiod builds the service's clusters as Envoy dynamic
// forward proxies: a wildcard host with resolution DYNAMIC_DNS. Such a service gets one cluster
// per HTTP, TLS, GRPC or HTTP2 port (DynamicForwardProxyPort) and no subset clusters.
//
// Mirrors istiod pilot/pkg/networking/core/cluster.go buildOutboundClusters (DYNAMIC_DNS branch)
// and cluster_builder.go applyDestinationRule ("DFP clusters don't support subsets").
func IsDynamicForwardProxy(s Service) bool {
	return isWildcard(s.Hostname) && s.Resolution == "DYNAMIC_DNS"
}

// DynamicForwardProxyPort reports whether a port of a dynamic forward proxy service gets a
// cluster (HTTP, TLS, GRPC, HTTP2; cluster.go buildOutboundClusters).
func DynamicForwardProxyPort(protocol string) bool {
	switch protocol {
	case ProtoHTTP, ProtoTLS, ProtoGRPC, ProtoHTTP2:
		return true
	}
	return false
}

// IsDNSResolution reports whether the service's clusters are STRICT_DNS or LOGICAL_DNS.
func IsDNSResolution(s Service) bool {
	return s.Resolution == "DNS" || s.Resolution == "DNS_ROUND_ROBIN"
}

// DNSEndpointLabels returns the label sets of the endpoints istiod gives a DNS-resolved
// ServiceEntry: the host name itself (no labels) when the entry lists no endpoints and has no
// workloadSelector; else its inline endpoints; else the workloads (WorkloadEntries, Pods)
// selected — passed in as selected. A DNS cluster (or subset cluster) whose endpoints are empty
// after subset label filtering is not generated.
//
// Mirrors istiod pilot/pkg/serviceregistry/serviceentry/conversion.go
// convertServiceEntryToInstances and pilot/pkg/networking/core/cluster_builder.go buildCluster
// (push metric pilot_dns_cluster_without_endpoints).
func DNSEndpointLabels(s Service, selected []map[string]string) []map[string]string {
	switch {
	case s.Endpoints == 0 && len(s.WorkloadSelector) == 0:
		return []map[string]string{nil}
	case s.Endpoints > 0:
		return s.EndpointLabels
	}
	return selected
}

// AnyEndpointMatches reports whether some endpoint carries every label of subsetLabels.
func AnyEndpointMatches(endpoints []map[string]string, subsetLabels map[string]string) bool {
	for _, l := range endpoints {
		if LabelsSubsetOf(subsetLabels, l) {
			return true
		}
	}
	return false
}
