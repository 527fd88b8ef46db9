package model

import (
	"net/netip"
	"slices"
	"sort"
	"sync"

	meshv1alpha1 "istio.io/api/mesh/v1alpha1"
	networkingv1 "istio.io/client-go/pkg/apis/networking/v1"

	"github.com/kubectl-egress/kubectl-egress/internal/lazy"
	"github.com/kubectl-egress/kubectl-egress/pkg/rules"
	"github.com/kubectl-egress/kubectl-egress/pkg/snapshot"
)

// NamespaceMetadataNameLabel is the label the API server sets on every namespace.
const NamespaceMetadataNameLabel = "kubernetes.io/metadata.name"

// NamespaceLabels returns a namespace's labels as the API server stores them: with
// kubernetes.io/metadata.name always set (manifests often omit it; a namespace that is not in
// the input is assumed to exist with only that label).
func NamespaceLabels(snap *snapshot.Snapshot, ns string) map[string]string {
	out := map[string]string{NamespaceMetadataNameLabel: ns}
	if n := snap.Namespace(ns); n != nil {
		for k, v := range n.Labels {
			out[k] = v
		}
	}
	return out
}

// ServiceOptions returns the registry options of a mesh config: its defaultServiceExportTo,
// its serviceEntryVisibility, and the snapshot's namespace labels.
func ServiceOptions(snap *snapshot.Snapshot, mc *meshv1alpha1.MeshConfig) rules.ServiceOptions {
	return rules.ServiceOptions{
		DefaultExportTo: mc.GetDefaultServiceExportTo(),
		Visibility:      mc.GetServiceEntryVisibility(),
		NamespaceLabels: func(ns string) map[string]string { return NamespaceLabels(snap, ns) },
	}
}

// Registry is the service registry of one revision view under one mesh config: every
// ServiceEntry host and Kubernetes Service as a rules.Service, converted once, indexed by host
// name and by address.
//
// Mirrors istiod pilot/pkg/model/push_context.go initServiceRegistry (ServiceIndex: services by
// hostname and namespace, exportTo maps).
type Registry struct {
	// All is every entry, oldest first (rules.SortByCreation).
	All []rules.Service
	// byHost holds, per host name, the entries in rules.ServicesForHost order.
	byHost map[string][]rules.Service
	// shared lists the host names with two or more entries, sorted.
	shared []string
	// entryServices holds the services of each ServiceEntry of the view, in view order;
	// entryPos the position of each entry.
	entryServices [][]rules.Service
	entryPos      map[*networkingv1.ServiceEntry]int
	// byIP and cidrs index ServiceEntry addresses by the entry's position in the view.
	byIP  map[netip.Addr][]int
	cidrs []cidrEntry

	exported  *lazy.Map[string, []rules.Service]
	exportIdx *rules.ExportIndex
	hostNs    func() map[string]map[string]rules.Service
}

type cidrEntry struct {
	prefix netip.Prefix
	entry  int
}

type registryKey struct{ mc *meshv1alpha1.MeshConfig }

type aliasKey struct{ mc *meshv1alpha1.MeshConfig }

type destCacheKey struct{}

// Aliases returns rules.AliasIndex of the registry of a revision view under mesh config mc,
// built once (istiod's resolveServiceAliases runs once per push context).
func Aliases(view *snapshot.Snapshot, mc *meshv1alpha1.MeshConfig) map[string][]rules.Service {
	return memo(view, aliasKey{mc}, func() map[string][]rules.Service { return rules.AliasIndex(Services(view, mc).All) })
}

// DestCache returns the route-destination cache every sidecar of a revision view shares.
func DestCache(view *snapshot.Snapshot) *rules.DestCache {
	return memo(view, destCacheKey{}, func() *rules.DestCache { return &rules.DestCache{} })
}

// Services returns the registry of a revision view under mesh config mc, built once.
func Services(view *snapshot.Snapshot, mc *meshv1alpha1.MeshConfig) *Registry {
	return memo(view, registryKey{mc}, func() *Registry { return newRegistry(view, ServiceOptions(view, mc)) })
}

func newRegistry(view *snapshot.Snapshot, opt rules.ServiceOptions) *Registry {
	r := &Registry{byHost: map[string][]rules.Service{}, byIP: map[netip.Addr][]int{}}
	labels := map[string]map[string]string{}
	cached := opt
	cached.NamespaceLabels = func(ns string) map[string]string {
		l, ok := labels[ns]
		if !ok && opt.NamespaceLabels != nil {
			l = opt.NamespaceLabels(ns)
			labels[ns] = l
		}
		return l
	}
	// one service per entry host and per Kubernetes Service: size r.All once
	n := len(view.Services)
	for _, se := range view.ServiceEntries {
		n += len(se.Spec.Hosts)
	}
	r.All = make([]rules.Service, 0, n)
	r.entryServices = make([][]rules.Service, len(view.ServiceEntries))
	r.entryPos = make(map[*networkingv1.ServiceEntry]int, len(view.ServiceEntries))
	for i, se := range view.ServiceEntries {
		r.entryPos[se] = i
		ss := rules.ServiceEntryServices(se, cached)
		r.entryServices[i] = ss
		r.All = append(r.All, ss...)
		for _, s := range ss {
			r.byHost[s.Hostname] = append(r.byHost[s.Hostname], s)
		}
		for _, a := range se.Spec.Addresses {
			if p, err := netip.ParsePrefix(a); err == nil {
				r.cidrs = append(r.cidrs, cidrEntry{p, i})
			} else if x, err := netip.ParseAddr(a); err == nil {
				r.byIP[x] = append(r.byIP[x], i)
			}
		}
	}
	for _, svc := range view.Services {
		s := rules.KubeService(svc, opt.DefaultExportTo)
		r.All = append(r.All, s)
		r.byHost[s.Hostname] = append(r.byHost[s.Hostname], s)
	}
	rules.SortByCreation(r.All)
	for h, ss := range r.byHost {
		rules.SortByCreation(ss)
		if len(ss) > 1 {
			r.shared = append(r.shared, h)
		}
	}
	sort.Strings(r.shared)
	// (built on first use: a question about one host through a gateway does not read it; r.All
	// is in creation order already)
	r.hostNs = sync.OnceValue(func() map[string]map[string]rules.Service { return rules.HostNamespaceIndexSorted(r.All) })
	r.exportIdx = rules.NewExportIndex(r.All)
	r.exported = lazy.New(func(ns string) []rules.Service { return r.exportIdx.For(ns) })
	return r
}

// ForEntry returns the services of a ServiceEntry of the view (rules.ServiceEntryServices: one
// per host), nil for an entry that is not in the view. Callers must not modify it.
func (r *Registry) ForEntry(se *networkingv1.ServiceEntry) []rules.Service {
	if i, ok := r.entryPos[se]; ok {
		return r.entryServices[i]
	}
	return nil
}

// ForHost returns the entries for a host name, as rules.ServicesForHost does (a copy).
func (r *Registry) ForHost(host string) []rules.Service {
	return slices.Clone(r.byHost[rules.NormalizeHost(host)])
}

// Shared returns the entries for a host name like ForHost, without copying: callers must not
// modify the slice or its elements.
func (r *Registry) Shared(host string) []rules.Service {
	return r.byHost[rules.NormalizeHost(host)]
}

// SharedHosts returns the host names two or more entries declare, sorted. Callers must not
// modify it.
func (r *Registry) SharedHosts() []string { return r.shared }

// EntriesForHost returns the ServiceEntry services for a host name (no Kubernetes Services).
func (r *Registry) EntriesForHost(host string) []rules.Service {
	var out []rules.Service
	for _, s := range r.byHost[rules.NormalizeHost(host)] {
		if s.Kind == rules.KindServiceEntry {
			out = append(out, s)
		}
	}
	return out
}

// Hosts returns every host name of the registry, sorted.
func (r *Registry) Hosts() []string {
	out := make([]string, 0, len(r.byHost))
	for h := range r.byHost {
		out = append(out, h)
	}
	sort.Strings(out)
	return out
}

// ForAddress returns the ServiceEntry services whose addresses contain ip, as
// rules.ServicesForAddress does.
func (r *Registry) ForAddress(ip string) []rules.Service {
	addr, err := netip.ParseAddr(ip)
	if err != nil {
		return nil
	}
	idx := slices.Clone(r.byIP[addr])
	for _, c := range r.cidrs {
		if c.prefix.Contains(addr) {
			idx = append(idx, c.entry)
		}
	}
	slices.Sort(idx)
	idx = slices.Compact(idx)
	var out []rules.Service
	for _, i := range idx {
		out = append(out, r.entryServices[i]...)
	}
	rules.SortByCreation(out)
	return out
}

// HostNamespaceIndex is rules.HostNamespaceIndex(All), built once. Callers must not modify it.
func (r *Registry) HostNamespaceIndex() map[string]map[string]rules.Service { return r.hostNs() }

// ExportedTo returns the entries visible in namespace ns in istiod's order
// (rules.ServicesExportedTo), computed once per namespace. Callers must not modify it.
func (r *Registry) ExportedTo(ns string) []rules.Service { return r.exported.Get(ns) }

// FirstExportedTo returns the first service for host in ExportedTo(ns)'s order (those exported
// to ns but not to every namespace first, then the public ones, each in creation order),
// without listing what ns sees: found false when no service of host is visible in ns.
func (r *Registry) FirstExportedTo(ns, host string) (rules.Service, bool) {
	pub := -1
	ss := r.byHost[rules.NormalizeHost(host)]
	for i := range ss {
		if slices.Contains(ss[i].ExportTo, rules.ExportPublic) {
			if pub < 0 {
				pub = i
			}
			continue
		}
		if rules.ServiceVisible(ss[i].Namespace, ss[i].ExportTo, ns) {
			return ss[i], true
		}
	}
	if pub < 0 {
		return rules.Service{}, false
	}
	return ss[pub], true
}

// ExportIndex is rules.NewExportIndex(All), built once: what a sidecar's egress listener sees
// before its imports (rules.SidecarProxy.Exported).
func (r *Registry) ExportIndex() *rules.ExportIndex { return r.exportIdx }

type entriesByHostKey struct{}

// ServiceEntriesByHost indexes the snapshot's ServiceEntries by each host they declare
// (normalised), in the snapshot's order, built once per snapshot (a revision's view has its own).
// Callers must not modify it.
func ServiceEntriesByHost(snap *snapshot.Snapshot) map[string][]*networkingv1.ServiceEntry {
	return memo(snap, entriesByHostKey{}, func() map[string][]*networkingv1.ServiceEntry {
		m := map[string][]*networkingv1.ServiceEntry{}
		for _, se := range snap.ServiceEntries {
			var seen []string
			for _, h := range se.Spec.Hosts {
				if n := rules.NormalizeHost(h); !slices.Contains(seen, n) {
					seen = append(seen, n)
					m[n] = append(m[n], se)
				}
			}
		}
		return m
	})
}
