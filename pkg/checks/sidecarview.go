package checks

import (
	"fmt"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	"google.golang.org/protobuf/encoding/protojson"
	meshv1alpha1 "istio.io/api/mesh/v1alpha1"
	networkingv1 "istio.io/client-go/pkg/apis/networking/v1"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-egress/kubectl-egress/pkg/model"
	"github.com/kubectl-egress/kubectl-egress/pkg/rules"
	"github.com/kubectl-egress/kubectl-egress/pkg/snapshot"
)

// SidecarView is the predicted outbound configuration of a sidecar proxy in one namespace, and
// what it was derived from.
type SidecarView struct {
	Namespace string
	Labels    map[string]string
	Revision  string
	Flags     IstiodFlags
	Scope     rules.SidecarScope
	// DNS is the proxy's DNS capture metadata.
	DNS      DNSCapture
	Outbound *rules.SidecarOutbound
	// DRs is the DestinationRule lookup of the proxy's revision (shared, built once).
	DRs *rules.DRLookup
	// PredictedAddresses: some entries' status.addresses are the tool's guess of what istiod's
	// allocator writes (snapshot.PredictAllocations; manifests carry no status).
	PredictedAddresses bool
}

// AllServices returns every registry entry of the snapshot (one per ServiceEntry host, one per
// Kubernetes Service) with the mesh config's defaultServiceExportTo and serviceEntryVisibility
// applied.
//
// The slice is the model's registry (model.Services), shared: callers must not modify it.
func AllServices(snap *snapshot.Snapshot, flags IstiodFlags) []rules.Service {
	return model.Services(snap, flags.MeshConfig).All
}

// namespaceSidecar returns the Sidecar resource that applies to a pod without labels in ns
// (the one BuildSidecarView(snap, ns, nil) uses), nil when none does.
func namespaceSidecar(snap *snapshot.Snapshot, ns string) *networkingv1.Sidecar {
	rev := workloadRevision(snap, ns, nil)
	view := RevisionView(snap, rev)
	root := ReadIstiodFlags(view, rev).MeshConfig.GetRootNamespace()
	if root == "" {
		root = snap.IstioNamespace
	}
	return rules.SelectSidecar(view.Sidecars, root, ns, nil)
}

// endpointAddresses returns the addresses of a service's endpoints on a port: for a
// ServiceEntry service, those of every entry for its host name in its namespace that declares the
// port (inline endpoint addresses, the addresses of the WorkloadEntries and Pods its
// workloadSelector selects, and for a DNS entry without either its host name); for a Kubernetes
// Service, nothing (its pods' endpoints are not modelled).
//
// Mirrors istiod pilot/pkg/model/push_context.go ServiceEndpointsByPort (instances indexed by host
// name and namespace) and serviceentry/conversion.go convertServiceEntryToInstances.
func endpointAddresses(snap *snapshot.Snapshot, reg *model.Registry, s rules.Service, port uint32) []string {
	if s.Kind == rules.KindService {
		// A headless Service's endpoints: the addresses of the pods its selector matches in
		// its namespace (istiod reads them from the EndpointSlices Kubernetes writes for
		// them; a live load reads the pods of gateway workloads only).
		if s.Resolution != "Headless" || len(s.WorkloadSelector) == 0 {
			return nil
		}
		var out []string
		for _, p := range snap.Pods {
			if p.Namespace == s.Namespace && p.DeletionTimestamp == nil && p.Status.PodIP != "" && rules.LabelsSubsetOf(s.WorkloadSelector, p.Labels) {
				out = append(out, p.Status.PodIP)
			}
		}
		return out
	}
	if s.Kind != rules.KindServiceEntry {
		return nil
	}
	var out []string
	for _, e := range reg.Shared(s.Hostname) {
		if e.Kind != rules.KindServiceEntry || e.Namespace != s.Namespace || !hasPort(e, port) {
			continue
		}
		switch {
		case e.Endpoints > 0:
			out = append(out, e.EndpointAddresses...)
		case len(e.WorkloadSelector) > 0:
			for _, we := range snap.WorkloadEntries {
				if we.Namespace == e.Namespace && rules.LabelsSubsetOf(e.WorkloadSelector, we.Spec.GetLabels()) && we.Spec.GetAddress() != "" {
					out = append(out, we.Spec.GetAddress())
				}
			}
			for _, p := range snap.Pods {
				if p.Namespace == e.Namespace && rules.LabelsSubsetOf(e.WorkloadSelector, p.Labels) && p.Status.PodIP != "" {
					out = append(out, p.Status.PodIP)
				}
			}
		case rules.IsDNSResolution(e):
			out = append(out, e.Hostname)
		}
	}
	return out
}

// BuildSidecarView predicts the outbound listeners and routes of a sidecar proxy in namespace ns
// whose pod carries labels (nil: a pod no workloadSelector matches). The istiod revision is the
// pod's istio.io/rev label, else the namespace's, else --revision; the configuration is the one
// that revision reads. The Sidecar resource is chosen as istiod does (rules.SelectSidecar); the
// outbound traffic policy comes from it, else meshConfig, else ALLOW_ANY.
//
// Source: seed §1.2, §2.1–§2.2; istiod pilot/pkg/model/push_context.go getSidecarScope and
// pilot/pkg/networking/core/listener.go buildSidecarOutboundListeners (see
// rules.BuildSidecarOutbound).
func BuildSidecarView(snap *snapshot.Snapshot, ns string, labels map[string]string) SidecarView {
	return BuildSidecarViewFor(snap, ns, labels, nil)
}

// BuildSidecarViewFor is BuildSidecarView for a pod with these annotations (its
// proxy.istio.io/config can turn DNS capture on or off).
func BuildSidecarViewFor(snap *snapshot.Snapshot, ns string, labels, annotations map[string]string) SidecarView {
	v, p := sidecarHeader(snap, ns, labels, annotations)
	v.Outbound = rules.BuildSidecarOutbound(p)
	return v
}

// sidecarHeader is BuildSidecarViewFor without the outbound configuration (Outbound nil): the
// view's revision, flags, scope and DNS capture, and the proxy BuildSidecarOutbound predicts it
// for.
func sidecarHeader(snap *snapshot.Snapshot, ns string, labels, annotations map[string]string) (SidecarView, rules.SidecarProxy) {
	rev := workloadRevision(snap, ns, labels)
	view := RevisionView(snap, rev)
	flags := ReadIstiodFlags(view, rev)
	mc := flags.MeshConfig
	root := mc.GetRootNamespace()
	if root == "" {
		root = snap.IstioNamespace
	}
	mode := ""
	if p := mc.GetOutboundTrafficPolicy(); p != nil {
		mode = p.GetMode().String()
	}
	scope := rules.NewSidecarScope(rules.SelectSidecar(view.Sidecars, root, ns, labels), mode)
	p := rules.SidecarProxy{
		Namespace: ns, Labels: labels, Scope: scope,
		Services:          AllServices(view, flags),
		HostIndex:         model.Services(view, flags.MeshConfig).HostNamespaceIndex(),
		Exported:          model.Services(view, flags.MeshConfig).ExportIndex(),
		VirtualServices:   view.VirtualServices,
		DefaultVSExportTo: mc.GetDefaultVirtualServiceExportTo(),
		Aliases:           model.Aliases(view, flags.MeshConfig),
		DestCache:         model.DestCache(view),
		Endpoints: func(s rules.Service, port uint32) []string {
			return endpointAddresses(view, model.Services(view, flags.MeshConfig), s, port)
		},
	}
	dns := ReadDNSCapture(mc, annotations)
	// nodeUsesAutoallocatedIPs: capture, and the allocator on or DNS_AUTO_ALLOCATE; with the
	// allocator off istiod's older per-push allocation gives the addresses.
	p.AutoAllocated = dns.Capture && (flags.IPAutoallocateOn() || dns.AutoAllocate)
	if p.AutoAllocated && !flags.IPAutoallocateOn() {
		p.LegacyIPv4 = rules.LegacyAutoAllocate(p.Services)
	}
	drs := model.DestinationRules(view, root, mc.GetDefaultDestinationRuleExportTo())
	return SidecarView{Namespace: ns, Labels: labels, Revision: rev, Flags: flags, Scope: scope, DNS: dns, DRs: drs, PredictedAddresses: len(snap.Assumptions.PredictedAddresses) > 0}, p
}

// CallAddress is the destination address a client of this sidecar connects to when it calls
// host: the first address of imported (the first entry the sidecar imports for host, nil:
// none) as the proxy sees it (its own, else the auto-allocated one when the proxy uses it).
// With DNS capture the agent's DNS proxy answers from istiod's name table, which also answers
// a name under a wildcard entry ("*.example.net") with that entry's address when no exact
// entry has one (the most specific wildcard first); "" when neither gives one.
//
// Mirrors istiod pkg/dns/server/name_table.go BuildNameTable (entries with addresses only,
// GetAllAddressesForProxy) and the agent's pkg/dns/client/dns.go LookupTable.lookupHost.
func (v SidecarView) CallAddress(host string, imported *rules.Service) string {
	if rules.IsIP(host) {
		return host // a call to an address goes to that address
	}
	if imported != nil {
		if a := firstAddress(v.Outbound.Proxy.ServiceAddresses(*imported)); a != "" {
			return a
		}
	}
	if !v.DNS.Capture {
		return ""
	}
	// The agent's name table answers a host with the addresses of the first imported service
	// for that host name that has any (pilot/pkg/dns/server name_table.go BuildNameTable): a
	// sibling entry for the same host (another port, another namespace) can give the address
	// even when the entry declaring the called port has none.
	if imported != nil {
		for _, s := range v.Outbound.ImportedForHost(imported.Hostname) {
			for _, a := range v.Outbound.Proxy.ServiceAddresses(s) {
				if rules.IsIP(a) {
					return a
				}
			}
		}
	}
	labels := strings.Split(host, ".")
	for i := 1; i < len(labels); i++ {
		for _, w := range v.Outbound.ImportedForHost("*." + strings.Join(labels[i:], ".")) {
			for _, a := range v.Outbound.Proxy.ServiceAddresses(w) {
				if rules.IsIP(a) {
					return a
				}
			}
		}
	}
	return ""
}

// reservedAddress: a is in 240.0.0.0/4, the reserved range no DNS server hands out, where
// istiod's allocator and hand-written virtual IPs live: only the sidecar's DNS proxy (DNS
// capture) answers a name with such an address.
func reservedAddress(a string) bool {
	ip, err := netip.ParseAddr(a)
	return err == nil && reservedRange.Contains(ip)
}

var reservedRange = netip.MustParsePrefix("240.0.0.0/4")

// ReservedAddressNote: for a sidecar without DNS capture, a call by name to imported, whose
// address is reserved (reservedAddress), goes to that address only when the client dials it
// itself: resolved through DNS, the name gives the host's real address, which the entry's
// listener does not match (blind audit 112 c33). The trace keeps the entry's address, as every
// call to an entry with addresses; the note says what it assumes. "" when that is not the case.
//
// Mirrors the agent's DNS proxy (pkg/dns/client, on with ISTIO_META_DNS_CAPTURE only), which
// alone answers from istiod's name table (pilot/pkg/dns/server name_table.go BuildNameTable).
func (v SidecarView) ReservedAddressNote(host string, imported *rules.Service) string {
	if imported == nil || v.DNS.Capture || rules.IsIP(host) {
		return ""
	}
	a := firstAddress(v.Outbound.Proxy.ServiceAddresses(*imported))
	if a == "" || !reservedAddress(a) {
		return ""
	}
	return fmt.Sprintf("%s gives %s the address %s, in 240.0.0.0/4, which no DNS server answers with: only the sidecar's DNS proxy would, and DNS capture is off (%s). The call is traced to %s, as from a client that dials it (by IP, or a hosts entry); one that resolves %s through DNS dials its real address instead, which the entry's listener does not match (trace it with --address).", imported.Ref(), host, a, MetaDNSCapture, a, host)
}

// Proxy metadata that changes which listener a call takes.
const (
	MetaDNSCapture      = "ISTIO_META_DNS_CAPTURE"
	MetaDNSAutoAllocate = "ISTIO_META_DNS_AUTO_ALLOCATE"
	// ProxyConfigAnnotation is the pod annotation overriding meshConfig.defaultConfig.
	ProxyConfigAnnotation = "proxy.istio.io/config"
)

// DNSCapture is what a sidecar's proxy metadata says about DNS capture.
type DNSCapture struct {
	// Capture: ISTIO_META_DNS_CAPTURE is true; AutoAllocate: ISTIO_META_DNS_AUTO_ALLOCATE is.
	Capture, AutoAllocate bool
	// From says where the capture setting came from ("" = not set anywhere).
	From string
}

// ReadDNSCapture reads the DNS proxy metadata of a sidecar: meshConfig.defaultConfig
// proxyMetadata, overridden key by key by the pod's proxy.istio.io/config annotation (nil
// annotations: a namespace's pods in general). Values are booleans as the agent reads them
// (strconv.ParseBool; anything else is false).
//
// Mirrors istiod pilot/pkg/model/context.go NodeMetadata (DNSCapture, DNSAutoAllocate are
// StringBool metadata the agent sends from ISTIO_META_* variables) and the injector's merge of
// meshConfig.defaultConfig with the annotation (pkg/kube/inject, mesh.ApplyProxyConfig).
func ReadDNSCapture(mc *meshv1alpha1.MeshConfig, annotations map[string]string) DNSCapture {
	var d DNSCapture
	meta := map[string]string{}
	from := map[string]string{}
	for k, v := range mc.GetDefaultConfig().GetProxyMetadata() {
		meta[k], from[k] = v, "meshConfig.defaultConfig.proxyMetadata"
	}
	if a := annotations[ProxyConfigAnnotation]; a != "" {
		if pc, err := parseProxyConfig(a); err == nil {
			for k, v := range pc.GetProxyMetadata() {
				meta[k], from[k] = v, "the pod's "+ProxyConfigAnnotation+" annotation"
			}
		}
	}
	truth := func(k string) bool {
		b, err := strconv.ParseBool(strings.TrimSpace(meta[k]))
		return err == nil && b
	}
	d.Capture, d.AutoAllocate, d.From = truth(MetaDNSCapture), truth(MetaDNSAutoAllocate), from[MetaDNSCapture]
	return d
}

func parseProxyConfig(text string) (*meshv1alpha1.ProxyConfig, error) {
	js, err := yaml.YAMLToJSON([]byte(text))
	if err != nil {
		return nil, err
	}
	pc := &meshv1alpha1.ProxyConfig{}
	if err := (protojson.UnmarshalOptions{DiscardUnknown: true}).Unmarshal(js, pc); err != nil {
		return nil, err
	}
	return pc, nil
}

// autoAddressFix: the second half of a fix for entries (refs) sharing a 0.0.0.0 listener, whose
// chains DNS capture with istiod's address allocation would set apart: what keeps each from an
// allocated address of its own on this proxy ("" when nothing would: resolution NONE). The
// first half gives each entry spec.addresses.
//
// Mirrors istiod pilot/pkg/model/service.go nodeUsesAutoallocatedIPs and
// pilot/pkg/networking/serviceentry/ip_autoallocation.go shouldV2AutoAllocateIPFromPieces (blind
// audit 110 c33: the fix said to turn on DNS capture, which was on, when the entries opted out).
func (v SidecarView) autoAddressFix(refs ...string) string {
	switch {
	case !v.DNS.Capture:
		return "or turn on DNS capture (" + MetaDNSCapture + "=true in meshConfig.defaultConfig.proxyMetadata or the pod's " + ProxyConfigAnnotation + " annotation) so istiod's address allocator gives each host its own listener"
	case !v.Outbound.Proxy.AutoAllocated:
		return "or turn istiod's address allocator back on (" + EnvIPAutoallocate + "=true, its default; DNS capture is already on) so each host gets its own listener"
	}
	var optOut, none, waiting []string
	for _, ref := range refs {
		for _, s := range v.Outbound.Proxy.Services {
			if s.Ref() != ref || len(s.Addresses) > 0 || s.AutoIPv4 != "" || s.Kind != rules.KindServiceEntry {
				continue
			}
			switch {
			case strings.EqualFold(s.Labels[rules.AutoAllocateLabel], "false"):
				optOut = appendUnique(optOut, ref)
			case s.Resolution == "NONE":
				none = appendUnique(none, ref)
			case !strings.HasPrefix(s.Hostname, "*"):
				waiting = appendUnique(waiting, ref)
			}
		}
	}
	var parts []string
	if len(optOut) > 0 {
		parts = append(parts, "or remove the label "+rules.AutoAllocateLabel+"=false from "+strings.Join(optOut, " and ")+" (DNS capture is on: istiod then gives each host its own address and listener)")
	}
	if len(none) > 0 {
		verb := "has"
		if len(none) > 1 {
			verb = "have"
		}
		parts = append(parts, "("+strings.Join(none, " and ")+" "+verb+" resolution NONE, which istiod gives no address, so only spec.addresses sets "+plural(len(none), "it", "them")+" apart)")
	}
	if len(waiting) > 0 {
		parts = append(parts, "(istiod has not written status.addresses for "+strings.Join(waiting, " and ")+" yet; once its allocator does, each host gets its own listener)")
	}
	return strings.Join(parts, " ")
}

func appendUnique(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

// DNSNote says how the view binds entries without addresses (for the notes of
// explain-listener and proxy-config).
func (v SidecarView) DNSNote() string {
	switch {
	case v.DNS.Capture && v.Outbound.Proxy.LegacyIPv4 != nil:
		return "DNS capture is on (" + MetaDNSCapture + " from " + v.DNS.From + ") with " + MetaDNSAutoAllocate + " and " + EnvIPAutoallocate + "=false in istiod: ServiceEntries without addresses (wildcard hosts and resolution NONE aside) listen on the address istiod's older per-push allocation gives them (240.240.0.0/16, from a hash of namespace/host)"
	case v.DNS.Capture && v.Outbound.Proxy.AutoAllocated && v.PredictedAddresses:
		return "DNS capture is on (" + MetaDNSCapture + " from " + v.DNS.From + "): ServiceEntries without addresses listen on the address istiod's allocator gives each host (status.addresses, from " + snapshot.AutoallocateIPv4Prefix + "). The manifests carry no status, so the addresses shown for them are a guess; what holds is that each host gets an address and a listener of its own"
	case v.DNS.Capture && v.Outbound.Proxy.AutoAllocated:
		return "DNS capture is on (" + MetaDNSCapture + " from " + v.DNS.From + "): ServiceEntries without addresses listen on the address istiod assigned them (status.addresses); one not assigned yet listens on 0.0.0.0 until it is, and so do those istiod gives none (resolution NONE, wildcard hosts without DYNAMIC_DNS, the label " + rules.AutoAllocateLabel + "=false)"
	case v.DNS.Capture:
		return "DNS capture is on (" + MetaDNSCapture + " from " + v.DNS.From + ") but istiod assigns no addresses (" + EnvIPAutoallocate + "=false): ServiceEntries without addresses listen on 0.0.0.0"
	}
	return "DNS capture is off (" + MetaDNSCapture + " is not set in meshConfig.defaultConfig.proxyMetadata or the pod's " + ProxyConfigAnnotation + "): ServiceEntries without addresses listen on 0.0.0.0"
}
