package checks

import (
	"maps"
	"slices"
	"strings"

	"github.com/kubectl-egress/kubectl-egress/pkg/rules"
	"github.com/kubectl-egress/kubectl-egress/pkg/snapshot"
)

// export-audit in two layers: what a client namespace's sidecars need for one mesh route
// destination (the services they see for its host, the DestinationRule on the lookup path, the
// subset) depends on the namespace only through
//   - the services of the host: one of them in the namespace, or an exportTo naming it;
//   - the DestinationRules of the host (or of a wildcard host): one in the namespace, or an
//     exportTo naming it (the mesh default included);
//   - the namespace being the root namespace.
// A namespace for which none of these holds sees the destination as every other such namespace
// does, so the first one's effects (the resources it needs, the findings it adds to) are
// recorded and replayed for the others with their own name. The calls happen in the same order
// as without sharing, so the report is the same byte for byte (TestPreflightSharingChangesNothing
// and the conformance suite's TestConformancePreflightSharing compare the two).
//
// istiod keeps the same split: push_context.go initServiceRegistry and setDestinationRules index
// public and namespace-restricted config separately, and a proxy's view is the public part plus
// what is exported to or declared in its namespace.

// auditEffect is a resource need (needs != nil: the list of namespaces that need it) or a
// finding, with whether the namespace is added to its NeededIn and MissingIn.
type auditEffect struct {
	needs           *[]string
	finding         *AuditFinding
	needed, missing bool
}

// destShare is what is known of one route destination: the namespaces that do not see it alike
// (special) and the effects the first namespace that does recorded.
type destShare struct {
	special  map[string]bool
	effects  []auditEffect
	recorded bool
}

type auditShare struct {
	// drMention: per DestinationRule host, the namespaces its rules live in or are exported to
	// by name; drAll: the same for wildcard hosts and the mesh default exportTo (they can apply
	// to any host), and the root namespace.
	drMention map[string]map[string]bool
	drAll     map[string]bool
	// special: per host, the namespaces its services or DestinationRules name.
	special map[string]map[string]bool
	// rec is the recording in progress (nil: none); recNs its namespace; recBad is set when
	// an effect names another namespace than recNs (not replayable).
	rec    *[]auditEffect
	recNs  string
	recBad bool
}

// noNamespace is a namespace name no object can have: the namespace no config names.
const noNamespace = "\x00"

func newAuditShare(snap *snapshot.Snapshot, drs *rules.DRLookup, rootNs string) *auditShare {
	s := &auditShare{drMention: map[string]map[string]bool{}, drAll: map[string]bool{rootNs: true},
		special: map[string]map[string]bool{}}
	for _, n := range drs.DefaultExportTo {
		s.drAll[n] = true
	}
	for _, r := range snap.DestinationRules {
		h := drs.Host(r)
		set := s.drAll
		if strings.HasPrefix(h, "*") {
			// a wildcard rule may apply to any host
		} else if set = s.drMention[h]; set == nil {
			set = map[string]bool{}
			s.drMention[h] = set
		}
		set[r.Namespace] = true
		for _, n := range r.Spec.GetExportTo() {
			set[n] = true
		}
	}
	return s
}

// specialFor returns the namespaces that may see host h's services or DestinationRules
// otherwise than a namespace no config names: the services' own namespaces, the namespaces
// their exportTo names (rules.ServiceVisible differs from noNamespace's only for those), and
// the namespaces the host's DestinationRules live in or name.
func (a *auditor) specialFor(h string) map[string]bool {
	s := a.share
	if set, ok := s.special[h]; ok {
		return set
	}
	set := map[string]bool{}
	for n := range s.drMention[h] {
		set[n] = true
	}
	for _, svc := range a.registry.Shared(h) {
		set[svc.Namespace] = true
		for _, n := range svc.ExportTo {
			if rules.ServiceVisible(svc.Namespace, svc.ExportTo, n) != rules.ServiceVisible(svc.Namespace, svc.ExportTo, noNamespace) {
				set[n] = true
			}
		}
	}
	s.special[h] = set
	return set
}

// destSpecial: the namespaces that may see destination d unlike the others: those of its host
// (specialFor) and, for a tls or tcp route, those of the route's hosts, whose services decide
// whether a filter chain takes the route (anyHostSeen, l4RouteOnSidecar).
func (a *auditor) destSpecial(d rules.Dest) map[string]bool {
	set := a.specialFor(strings.ToLower(d.Host))
	if d.Kind == rules.RouteHTTP || d.Root == nil {
		return set
	}
	merged := maps.Clone(set)
	for _, h := range d.Root.Spec.GetHosts() {
		for n := range a.specialFor(strings.ToLower(rules.ResolveShortname(h, d.Root.Namespace))) {
			merged[n] = true
		}
	}
	return merged
}

// clientDestination is destination() for the sidecars of client namespace ns, replayed from
// another namespace's recording when ns sees the destination alike.
func (a *auditor) clientDestination(ds *destShare, d rules.Dest, ns string) {
	s := a.share
	if s == nil || s.drAll[ns] {
		a.destination(d, ns, nil, "sidecars in "+ns, false)
		return
	}
	if ds.special == nil {
		ds.special = a.destSpecial(d)
	}
	switch {
	case ds.special[ns]:
		a.destination(d, ns, nil, "sidecars in "+ns, false)
	case ds.recorded:
		for _, e := range ds.effects {
			if e.needs != nil {
				appendNs(e.needs, ns)
				continue
			}
			if e.needed {
				appendNs(&e.finding.NeededIn, ns)
			}
			if e.missing {
				appendNs(&e.finding.MissingIn, ns)
			}
		}
	default:
		rec := []auditEffect{}
		s.rec, s.recNs, s.recBad = &rec, ns, false
		a.destination(d, ns, nil, "sidecars in "+ns, false)
		if !s.recBad {
			ds.effects, ds.recorded = rec, true
		}
		s.rec = nil
	}
}

// forDest is a new destination's share (nil when unshared).
func (s *auditShare) forDest() *destShare {
	if s == nil {
		return nil
	}
	return &destShare{}
}

func (s *auditShare) recordNeed(p *[]string, ns string) {
	if s == nil || s.rec == nil {
		return
	}
	if ns != s.recNs {
		s.recBad = true
		return
	}
	*s.rec = append(*s.rec, auditEffect{needs: p})
}

func (s *auditShare) recordFinding(f *AuditFinding, neededIn, missingIn []string) {
	if s == nil || s.rec == nil {
		return
	}
	e := auditEffect{finding: f, needed: s.names(neededIn), missing: s.names(missingIn)}
	*s.rec = append(*s.rec, e)
}

// names reports whether the list holds the recording's namespace; any other namespace makes
// the recording not replayable.
func (s *auditShare) names(list []string) bool {
	has := false
	for _, n := range list {
		switch n {
		case "":
		case s.recNs:
			has = true
		default:
			s.recBad = true
		}
	}
	return has
}

// clientsShared is client(ns) for every client namespace of nss (in order), with what a
// namespace that sees a destination alike needs filled in for all such namespaces at once: the
// work that can create a finding or name the namespace in a text (the namespaces special for a
// destination, and the first alike one, which records) is done namespace by namespace in
// namespace order, as client does it, so every finding is created by the same namespace with the
// same words; the recorded effects are then appended for the other alike namespaces in one go
// per destination instead of one walk of every mesh route per namespace. The report is the same
// (the lists of namespaces are sorted when it is written); tests compare it with the unshared
// audit.
func (a *auditor) clientsShared(nss []string) {
	if a.meshRoutes == nil {
		a.meshRoutes = a.indexMeshRoutes()
	}
	routes := *a.meshRoutes
	n := len(nss)
	idx := make(map[string]int, n)
	for i, ns := range nss {
		idx[ns] = i
	}
	// visible[ri]: the namespaces route ri is visible in (nil: every one); visibleAt[ri] their
	// indexes in order.
	visible := make([][]bool, len(routes))
	visibleAt := make([][]int, len(routes))
	for ri, r := range routes {
		if slices.Contains(r.exportTo, rules.ExportPublic) {
			if a.everyClient == nil {
				a.everyClient = map[*[]string]bool{}
			}
			a.everyClient[r.needs], a.clients = true, nss
			continue
		}
		vis := make([]bool, n)
		for i, ns := range nss {
			if rules.VirtualServiceVisible(r.vs.Namespace, r.exportTo, ns) {
				vis[i] = true
				visibleAt[ri] = append(visibleAt[ri], i)
				appendNs(r.needs, ns)
			}
		}
		visible[ri] = vis
	}
	sees := func(ri, i int) bool { return visible[ri] == nil || visible[ri][i] }
	s := a.share
	// drAt[i]: namespace i is one the DestinationRules of any host may name (s.drAll);
	// plain: the other namespaces, in order, and plainFrom[i] the first of them at i or later.
	drAt := make([]bool, n)
	var plain []string
	plainFrom := make([]int, n+1)
	for i, ns := range nss {
		plainFrom[i] = len(plain)
		if drAt[i] = s.drAll[ns]; !drAt[i] {
			plain = append(plain, ns)
		}
	}
	plainFrom[n] = len(plain)
	alike := func(ds *destShare, i int) bool { return !drAt[i] && (len(ds.special) == 0 || !ds.special[nss[i]]) }
	// nextAlike is the first namespace from i on that sees route ri and destination ds alike.
	nextAlike := func(ri int, ds *destShare, i int) int {
		for ; i < n; i++ {
			if sees(ri, i) && alike(ds, i) {
				return i
			}
		}
		return -1
	}
	type item struct{ r, d int }
	work := make([][]item, n)
	recordedAt := map[*destShare]int{}
	for ri, r := range routes {
		for di, d := range r.dests {
			ds := r.shares[di]
			if ds.special == nil {
				ds.special = a.destSpecial(d)
			}
			for _, set := range []map[string]bool{ds.special, s.drAll} {
				for ns := range set {
					if i, ok := idx[ns]; ok && sees(ri, i) {
						work[i] = append(work[i], item{ri, di})
					}
				}
			}
			if i := nextAlike(ri, ds, 0); i >= 0 {
				work[i] = append(work[i], item{ri, di})
			}
		}
	}
	for i, ns := range nss {
		items := work[i]
		slices.SortFunc(items, func(x, y item) int {
			if x.r != y.r {
				return x.r - y.r
			}
			return x.d - y.d
		})
		items = slices.Compact(items)
		for _, it := range items {
			ds, d := routes[it.r].shares[it.d], routes[it.r].dests[it.d]
			if !a.l4RouteOnSidecar(d, ns) {
				// no filter chain there takes the route (alike namespaces agree: the
				// route's hosts single them out too, destSpecial)
				if alike(ds, i) {
					ds.effects, ds.recorded = nil, true
					recordedAt[ds] = i
				}
				continue
			}
			if !alike(ds, i) {
				a.destination(d, ns, nil, "sidecars in "+ns, false)
				continue
			}
			rec := []auditEffect{}
			s.rec, s.recNs, s.recBad = &rec, ns, false
			a.destination(d, ns, nil, "sidecars in "+ns, false)
			s.rec = nil
			if !s.recBad {
				ds.effects, ds.recorded = rec, true
				recordedAt[ds] = i
			} else if j := nextAlike(it.r, ds, i+1); j >= 0 {
				// not replayable: the next alike namespace works it out (and records) itself
				work[j] = append(work[j], it)
			}
		}
	}
	// The other alike namespaces of each recorded destination take its effects. The list of
	// them is shared by every needs list the destination adds to (a.tails), never copied: a
	// route seen everywhere to a host no config singles a namespace out for takes a tail of
	// plain itself.
	for ri, r := range routes {
		for _, ds := range r.shares {
			at, ok := recordedAt[ds]
			if !ok || len(ds.effects) == 0 {
				continue
			}
			var names []string
			switch {
			case visible[ri] != nil:
				for _, i := range visibleAt[ri] {
					if i > at && alike(ds, i) {
						names = append(names, nss[i])
					}
				}
			case len(ds.special) == 0:
				names = plain[plainFrom[at+1]:]
			default:
				names = make([]string, 0, len(plain)-plainFrom[at+1])
				for _, ns := range plain[plainFrom[at+1]:] {
					if !ds.special[ns] {
						names = append(names, ns)
					}
				}
			}
			if len(names) == 0 {
				continue
			}
			for _, e := range ds.effects {
				switch {
				case e.needs != nil:
					if a.tails == nil {
						a.tails = map[*[]string][][]string{}
					}
					a.tails[e.needs] = append(a.tails[e.needs], names)
				default:
					if e.needed {
						e.finding.neededTails = append(e.finding.neededTails, names)
					}
					if e.missing {
						e.finding.missingTails = append(e.finding.missingTails, names)
					}
				}
			}
		}
	}
}
