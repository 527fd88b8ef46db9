package conformance

// DNS capture and address auto-allocation (generate_dns_test.go): the harness hands istiod the
// ServiceEntries' status.addresses (config.Config.Status, kept by crd.ParseInputs, checked
// against istiod's own services by checkStatusAddresses), PILOT_ENABLE_IP_AUTOALLOCATE per
// revision (features.EnableIPAutoallocate, runIstiod) and each client sidecar's
// ISTIO_META_DNS_CAPTURE / ISTIO_META_DNS_AUTO_ALLOCATE as node metadata (dnsMetadata: the
// injector's merge of meshConfig.defaultConfig with the pod's proxy.istio.io/config, read as
// the agent sends it). A sidecar with DNS capture calls a ServiceEntry host on the address its
// DNS proxy answers: istiod's name table for that proxy (pkg/dns/server BuildNameTable, looked
// up as the agent does, wildcards included); the plugin's prediction of that address is
// compared too (listenerCheck.pluginAddr).

import (
	"encoding/json"
	"fmt"
	"net/netip"
	"slices"
	"strings"

	meshconfig "istio.io/api/mesh/v1alpha1"
	networking "istio.io/api/networking/v1alpha3"
	"istio.io/istio/pilot/pkg/features"
	"istio.io/istio/pilot/pkg/model"
	autoallocate "istio.io/istio/pilot/pkg/networking/serviceentry"
	"istio.io/istio/pilot/test/xds"
	"istio.io/istio/pkg/config"

	"github.com/kubectl-egress/kubectl-egress/pkg/snapshot"
	"istio.io/istio/pkg/config/host"
	"istio.io/istio/pkg/config/mesh"
	"istio.io/istio/pkg/config/schema/gvk"
	dnsProto "istio.io/istio/pkg/dns/proto"

	"github.com/kubectl-egress/kubectl-egress/pkg/checks"
)

// sidecarDNS is a client sidecar's DNS capture metadata as istiod received it and istiod's
// DNS name table for it.
type sidecarDNS struct {
	capture, autoAllocate bool
	// allocator is the revision's PILOT_ENABLE_IP_AUTOALLOCATE.
	allocator bool
	table     *dnsProto.NameTable
}

// word describes the sidecar's DNS state as istiod sees it (model/service.go
// nodeUsesAutoallocatedIPs: capture, and the allocator or DNS_AUTO_ALLOCATE).
func (d *sidecarDNS) word() string {
	switch {
	case d == nil || !d.capture:
		return "capture off"
	case d.allocator:
		return "capture on, allocator on"
	case d.autoAllocate:
		return "capture+DNS_AUTO_ALLOCATE, allocator off"
	}
	return "capture on, allocator off"
}

// dnsMetadata derives a sidecar's DNS_CAPTURE and DNS_AUTO_ALLOCATE node metadata as the
// injector and agent do: meshConfig.defaultConfig merged with the pod's proxy.istio.io/config
// (pkg/config/mesh ApplyProxyConfig, proxyMetadata merged key by key), the proxyMetadata
// ISTIO_META_* variables turned into node metadata (the agent strips the prefix) and decoded
// as istiod decodes node metadata (model.StringBool: a value that is not a boolean is an error).
func dnsMetadata(mc *meshconfig.MeshConfig, annotations map[string]string) (capture, auto bool, err error) {
	if a := annotations[checks.ProxyConfigAnnotation]; a != "" {
		if mc, err = mesh.ApplyProxyConfig(a, mc); err != nil {
			return false, false, fmt.Errorf("%s: %v", checks.ProxyConfigAnnotation, err)
		}
	}
	raw := map[string]string{}
	for k, v := range mc.GetDefaultConfig().GetProxyMetadata() {
		if k == checks.MetaDNSCapture || k == checks.MetaDNSAutoAllocate {
			raw[strings.TrimPrefix(k, "ISTIO_META_")] = v
		}
	}
	js, _ := json.Marshal(raw)
	var nm model.NodeMetadata
	if err := json.Unmarshal(js, &nm); err != nil {
		return false, false, fmt.Errorf("node metadata %s: %v", js, err)
	}
	return bool(nm.DNSCapture), bool(nm.DNSAutoAllocate), nil
}

// statusAddressCount counts the ServiceEntries whose status lists addresses.
// applyPredictedAddresses appends to the status of each ServiceEntry config the addresses the
// plugin's snapshot predicted for it (Assumptions.PredictedAddresses), in the snapshot's order.
func applyPredictedAddresses(cfgs []config.Config, snap *snapshot.Snapshot) {
	for i := range cfgs {
		c := &cfgs[i]
		if c.GroupVersionKind.Kind != gvk.ServiceEntry.Kind {
			continue
		}
		for _, se := range snap.ServiceEntries {
			if se == nil || se.Namespace != c.Namespace || se.Name != c.Name {
				continue
			}
			for _, a := range se.Status.GetAddresses() {
				if !snap.Predicted(se.Namespace, se.Name, a.GetHost()) {
					continue
				}
				st, _ := c.Status.(*networking.ServiceEntryStatus)
				if st == nil {
					st = &networking.ServiceEntryStatus{}
				}
				st.Addresses = append(st.Addresses, &networking.ServiceEntryAddress{Host: a.GetHost(), Value: a.GetValue()})
				c.Status = st
			}
		}
	}
}

func statusAddressCount(in *revisionInput) int {
	n := 0
	for _, c := range in.configs {
		if c.GroupVersionKind.Kind != gvk.ServiceEntry.Kind {
			continue
		}
		if st, ok := c.Status.(*networking.ServiceEntryStatus); ok && len(st.GetAddresses()) > 0 {
			n++
		}
	}
	return n
}

// checkStatusAddresses proves that the scenario's status.addresses reached istiod: with the
// allocator flag on, every ServiceEntry istiod may give an allocated address
// (ShouldV2AutoAllocateIPFromConfig) and whose status lists an IPv4 address for a host must be
// a service carrying that address (the last IPv4 one listed, conversion.go).
func checkStatusAddresses(s *xds.FakeDiscoveryServer, in *revisionInput) error {
	if !features.EnableIPAutoallocate {
		return nil
	}
	for _, c := range in.configs {
		if c.GroupVersionKind.Kind != gvk.ServiceEntry.Kind || !autoallocate.ShouldV2AutoAllocateIPFromConfig(c) {
			continue
		}
		want := map[string]string{}
		byHost := autoallocate.GetHostAddressesFromConfig(c)
		for _, h := range c.Spec.(*networking.ServiceEntry).GetHosts() {
			for _, a := range byHost[h] {
				if a.Is4() {
					want[h] = a.String()
				}
			}
		}
		for h, a := range want {
			// One of istiod's services for the host in the entry's namespace carries it (a
			// sibling entry for the same host, resolution NONE say, is a service without one).
			var have []string
			for _, svc := range s.ServiceEntryRegistry.Services() {
				if svc.Hostname == host.Name(h) && svc.Attributes.Namespace == c.Namespace {
					have = append(have, svc.AutoAllocatedIPv4Address)
				}
			}
			if len(have) == 0 {
				return fmt.Errorf("ServiceEntry %s/%s host %s: no istiod service", c.Namespace, c.Name, h)
			}
			if !slices.Contains(have, a) {
				return fmt.Errorf("ServiceEntry %s/%s host %s: status address %s, istiod's services have %q", c.Namespace, c.Name, h, a, have)
			}
		}
	}
	return nil
}

// nameTableAddress is the first IPv4 address the DNS proxy answers for h from istiod's name
// table ("" when the table has no entry: the agent asks the upstream resolver). Lookup as the
// agent's LookupTable.lookupHost: the host, else the most specific "*.<suffix>" entry.
func nameTableAddress(t *dnsProto.NameTable, h string) string {
	if t == nil {
		return ""
	}
	ni := t.GetTable()[h]
	if ni == nil {
		labels := strings.Split(h, ".")
		for i := range labels {
			if x := t.GetTable()["*."+strings.Join(labels[i+1:], ".")]; x != nil && i+1 < len(labels) {
				ni = x
				break
			}
		}
	}
	for _, ip := range ni.GetIps() {
		if a, err := netip.ParseAddr(ip); err == nil && a.Is4() {
			return a.String()
		}
	}
	return ""
}

// dnsCall adjusts a planned call for a sidecar with DNS capture: a ServiceEntry host the name
// table answers is called on that address (else the planned address: the agent asks the
// upstream resolver). It returns the call, istiod's DNS answer and the plugin's predicted one
// ("" = none; both "" with compared false when the call is not a DNS-captured ServiceEntry
// call, or the plugin's entry has a CIDR, which no name table lists).
func dnsCall(d *sidecarDNS, v checks.SidecarView, call listenerCall) (out listenerCall, istiodAddr, pluginAddr string, compared bool) {
	if d == nil || !d.capture || !strings.HasPrefix(call.source, "service-entry") {
		return call, "", "", false
	}
	istiodAddr = nameTableAddress(d.table, call.host)
	if istiodAddr != "" {
		call.address = istiodAddr
	}
	imp := v.Outbound.FirstImportedForHost(call.host)
	pluginAddr = v.CallAddress(call.host, imp)
	if pluginAddr != "" && imp != nil {
		for _, a := range imp.Addresses {
			if p, err := netip.ParsePrefix(a); err == nil && !p.IsSingleIP() && p.Masked().Addr().String() == pluginAddr {
				return call, "", "", false
			}
		}
	}
	return call, istiodAddr, pluginAddr, true
}

// addressKind classifies a call address for the DNS tables.
func addressKind(addr string) string {
	switch {
	case addr == defaultCallAddress:
		return "external (no address)"
	case strings.HasPrefix(addr, "240.240.1."):
		return "allocated (status)"
	}
	return "spec.addresses or older allocation"
}

// writeDNSTables reports the listener calls of the scenarios with DNS objects.
func writeDNSTables(w *strings.Builder, rs []*result) {
	agree, total, addrAgree, addrTotal, scAgree, scTotal := 0, 0, 0, 0, 0, 0
	byKind := map[string][2]int{}
	byProxy := map[string][2]int{}
	for _, r := range rs {
		if r.status != "compared" || r.sc.Dims[dimDCapture] == "" || r.sc.Dims[dimDCapture] == "none" {
			continue
		}
		scTotal++
		ok := true
		for _, c := range r.listenerChecks {
			if !strings.HasPrefix(c.ns, "dns-") {
				continue
			}
			total++
			a := c.agree()
			if a {
				agree++
			} else {
				ok = false
			}
			if c.dnsCompared {
				addrTotal++
				if c.pluginAddr == c.dnsAddr {
					addrAgree++
				}
			}
			k := addressKind(c.address)
			x := byKind[k]
			x[1]++
			if a {
				x[0]++
			}
			byKind[k] = x
			pk := c.dnsProxy
			y := byProxy[pk]
			y[1]++
			if a {
				y[0]++
			}
			byProxy[pk] = y
		}
		if ok {
			scAgree++
		}
	}
	if scTotal == 0 {
		return
	}
	fmt.Fprintf(w, "DNS CAPTURE (client sidecars of dns-a/dns-b: ISTIO_META_DNS_CAPTURE, status.addresses, PILOT_ENABLE_IP_AUTOALLOCATE; calls on istiod's DNS name table address)\n")
	fmt.Fprintf(w, "listener calls agreeing: %d/%d; call addresses agreeing (plugin's predicted address vs istiod's name table): %d/%d; scenarios agreeing on every call: %d/%d\n",
		agree, total, addrAgree, addrTotal, scAgree, scTotal)
	for _, k := range sortedKeysAnyInt(byProxy) {
		fmt.Fprintf(w, "  proxy %-44s %d/%d\n", k, byProxy[k][0], byProxy[k][1])
	}
	for _, k := range sortedKeysAnyInt(byKind) {
		fmt.Fprintf(w, "  call address %-37s %d/%d\n", k, byKind[k][0], byKind[k][1])
	}
	w.WriteString("\n")
}

func sortedKeysAnyInt(m map[string][2]int) []string {
	set := map[string]bool{}
	for k := range m {
		set[k] = true
	}
	return sortedSet(set)
}
