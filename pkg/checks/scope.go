package checks

import (
	"fmt"
	"net/netip"
	"sort"
	"strings"

	"github.com/kubectl-egress/kubectl-egress/pkg/model"
	"github.com/kubectl-egress/kubectl-egress/pkg/rules"
	"github.com/kubectl-egress/kubectl-egress/pkg/snapshot"
)

// Namespaces lists the namespaces of a snapshot, sorted: its Namespace objects, plus (for
// manifests, which often hold no Namespace objects) every namespace an object lives in.
func Namespaces(snap *snapshot.Snapshot) []string {
	seen := map[string]bool{}
	add := func(ns string) {
		if ns != "" {
			seen[ns] = true
		}
	}
	for _, n := range snap.Namespaces {
		add(n.Name)
	}
	for _, o := range snap.ServiceEntries {
		add(o.Namespace)
	}
	for _, o := range snap.VirtualServices {
		add(o.Namespace)
	}
	for _, o := range snap.DestinationRules {
		add(o.Namespace)
	}
	for _, o := range snap.Gateways {
		add(o.Namespace)
	}
	for _, o := range snap.Sidecars {
		add(o.Namespace)
	}
	for _, o := range snap.WorkloadEntries {
		add(o.Namespace)
	}
	for _, o := range snap.Services {
		add(o.Namespace)
	}
	for _, o := range snap.Deployments {
		add(o.Namespace)
	}
	for _, o := range snap.Pods {
		add(o.Namespace)
	}
	out := make([]string, 0, len(seen))
	for ns := range seen {
		out = append(out, ns)
	}
	sort.Strings(out)
	return out
}

// UnknownNamespace says whether ns is known not to exist in the snapshot: no Namespace object and
// no object lives there. It is false whenever Namespaces could not be read (a namespace-scoped
// user cannot tell).
func UnknownNamespace(snap *snapshot.Snapshot, ns string) bool {
	if ns == "" {
		return false
	}
	if _, unread := snap.Unknown[snapshot.KindNamespace]; unread {
		return false
	}
	for _, n := range Namespaces(snap) {
		if n == ns {
			return false
		}
	}
	return true
}

// NearNames returns the candidates closest to name (two edits or fewer, or sharing a prefix of
// at least 3 characters), at most 5, closest first.
func NearNames(name string, candidates []string) []string {
	type cand struct {
		d int
		s string
	}
	var cs []cand
	for _, c := range candidates {
		d := levenshtein(name, c)
		switch {
		case c == name:
		case d <= 2:
			cs = append(cs, cand{d, c})
		case len(name) >= 3 && (strings.HasPrefix(c, name) || strings.HasPrefix(name, c)):
			cs = append(cs, cand{3, c})
		}
	}
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].d < cs[j].d })
	var out []string
	for i, c := range cs {
		if i == 5 {
			break
		}
		out = append(out, c.s)
	}
	return out
}

// HostReferenced says whether any object of the snapshot names host: a ServiceEntry declares or
// covers it (hosts, addresses, endpoint addresses), a Service is it, or a VirtualService,
// Gateway, DestinationRule or Sidecar names it exactly (hosts, destinations, egress hosts). A host
// nothing names is most likely a typo; one a route names but no entry declares is a diagnosis
// (HOST_NOT_FOUND).
func HostReferenced(snap *snapshot.Snapshot, host string) bool {
	host = rules.NormalizeHost(host)
	same := func(h string) bool {
		if i := strings.LastIndex(h, "/"); i >= 0 { // Gateway and Sidecar hosts: ns/host
			h = h[i+1:]
		}
		return rules.NormalizeHost(h) == host
	}
	for _, se := range snap.ServiceEntries {
		for _, h := range se.Spec.GetHosts() {
			if same(h) || rules.HostMatches(rules.NormalizeHost(h), host) || intendedHost(h) == host {
				return true
			}
		}
		for _, a := range se.Spec.GetAddresses() {
			if a == host {
				return true
			}
			// an IP inside a CIDR the entry declares (a /32 included: blind audit 90 c20,
			// c22, c23, where such a call was refused as undeclared)
			if p, err := netip.ParsePrefix(a); err == nil {
				if ip, err := netip.ParseAddr(host); err == nil && p.Contains(ip) {
					return true
				}
			}
		}
		for _, ep := range se.Spec.GetEndpoints() {
			if ep.GetAddress() == host {
				return true
			}
		}
	}
	for _, svc := range snap.Services {
		if fq := rules.KubeServiceHost(svc); fq == host || svc.Name+"."+svc.Namespace == host || svc.Name+"."+svc.Namespace+".svc" == host {
			return true
		}
	}
	for _, vs := range snap.VirtualServices {
		for _, h := range vs.Spec.GetHosts() {
			if same(h) {
				return true
			}
		}
		for _, r := range vs.Spec.GetHttp() {
			for _, d := range r.GetRoute() {
				if same(d.GetDestination().GetHost()) {
					return true
				}
			}
		}
		for _, r := range vs.Spec.GetTls() {
			for _, d := range r.GetRoute() {
				if same(d.GetDestination().GetHost()) {
					return true
				}
			}
			for _, m := range r.GetMatch() {
				for _, h := range m.GetSniHosts() {
					if same(h) {
						return true
					}
				}
			}
		}
		for _, r := range vs.Spec.GetTcp() {
			for _, d := range r.GetRoute() {
				if same(d.GetDestination().GetHost()) {
					return true
				}
			}
		}
	}
	for _, gw := range snap.Gateways {
		for _, s := range gw.Spec.GetServers() {
			for _, h := range s.GetHosts() {
				if same(h) {
					return true
				}
			}
		}
	}
	for _, dr := range snap.DestinationRules {
		if same(dr.Spec.GetHost()) {
			return true
		}
	}
	for _, sc := range snap.Sidecars {
		for _, e := range sc.Spec.GetEgress() {
			for _, h := range e.GetHosts() {
				if same(h) {
					return true
				}
			}
		}
	}
	// Gateway API routes: their hostnames and backends (a Hostname, or a Service by its
	// cluster-local name), and the Gateways' listener hostnames (blind audit 66 h04, where a
	// Service only a backendRef named was "named by nothing").
	for _, r := range model.KubeRoutes(snap) {
		for _, h := range r.Hostnames {
			if same(string(h)) {
				return true
			}
		}
		for _, b := range r.BackendRefs {
			group, kind := rules.KubeBackendGroupKind(b)
			ns := r.Namespace
			if b.Namespace != nil && *b.Namespace != "" {
				ns = string(*b.Namespace)
			}
			switch {
			case group == "networking.istio.io" && kind == "Hostname" && same(string(b.Name)):
				return true
			case group == "" && kind == "Service" && same(string(b.Name)+"."+ns+".svc."+rules.DefaultDomain):
				return true
			}
		}
	}
	for _, g := range snap.KubeGateways {
		for _, l := range g.Spec.Listeners {
			if l.Hostname != nil && same(string(*l.Hostname)) {
				return true
			}
		}
	}
	return false
}

// podNotFound is the error for a --pod that names no pod of the snapshot, with the closest pod
// names (in the same namespace first) when there are some.
func podNotFound(snap *snapshot.Snapshot, pod string) error {
	var refs []string
	for _, p := range snap.Pods {
		refs = append(refs, p.Namespace+"/"+p.Name)
	}
	sort.Strings(refs)
	if near := NearNames(pod, refs); len(near) > 0 {
		return fmt.Errorf("pod %s not found; did you mean %s?", pod, strings.Join(near, ", "))
	}
	return fmt.Errorf("pod %s not found", pod)
}
