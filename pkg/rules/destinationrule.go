package rules

import (
	"slices"
	"sort"
	"strings"

	networkingv1 "istio.io/client-go/pkg/apis/networking/v1"
)

// DRChoice is the DestinationRule a proxy applies to a service, after merging.
type DRChoice struct {
	// Rules are the merged DestinationRules, the first one first (it names the cluster's
	// DESTINATION RULE column, as istiod's `istio.config` metadata does).
	Rules []*networkingv1.DestinationRule
	// Subsets are the subset names in merge order (first definition wins); SubsetLabels their
	// endpoint labels.
	Subsets      []string
	SubsetLabels map[string]map[string]string
	// Step says where it was found: "proxy namespace", "root namespace (private)",
	// "service namespace", "root namespace".
	Step string
}

// Ref returns "namespace/name" of the first rule, or "".
func (c *DRChoice) Ref() string {
	if c == nil || len(c.Rules) == 0 {
		return ""
	}
	return c.Rules[0].Namespace + "/" + c.Rules[0].Name
}

// HasSubset reports whether the chosen rules define subset name.
func (c *DRChoice) HasSubset(name string) bool {
	return c != nil && slices.Contains(c.Subsets, name)
}

// DRLookup is the DestinationRule index of one push.
type DRLookup struct {
	RootNamespace string
	// DefaultExportTo is meshConfig.defaultDestinationRuleExportTo.
	DefaultExportTo []string
	rules           []*networkingv1.DestinationRule
	// byNs holds the rules of each namespace in the sorted order; hosts each rule's resolved
	// host.
	byNs  map[string][]*networkingv1.DestinationRule
	hosts map[*networkingv1.DestinationRule]string
}

// NewDRLookup indexes rules (sorted: rules with a workloadSelector first, then oldest first,
// then by name and namespace).
//
// Mirrors istiod pilot/pkg/model/push_context.go setDestinationRules and
// sortConfigBySelectorAndCreationTime.
func NewDRLookup(rules []*networkingv1.DestinationRule, rootNs string, defaultExportTo []string) *DRLookup {
	rs := slices.Clone(rules)
	sort.SliceStable(rs, func(i, j int) bool {
		a, b := rs[i], rs[j]
		as, bs := a.Spec.GetWorkloadSelector() != nil, b.Spec.GetWorkloadSelector() != nil
		if as != bs {
			return as
		}
		if !a.CreationTimestamp.Equal(&b.CreationTimestamp) {
			return a.CreationTimestamp.Before(&b.CreationTimestamp)
		}
		if a.Name != b.Name {
			return a.Name < b.Name
		}
		return a.Namespace < b.Namespace
	})
	l := &DRLookup{RootNamespace: rootNs, DefaultExportTo: defaultExportTo, rules: rs,
		byNs: map[string][]*networkingv1.DestinationRule{}, hosts: make(map[*networkingv1.DestinationRule]string, len(rs))}
	for _, dr := range rs {
		l.byNs[dr.Namespace] = append(l.byNs[dr.Namespace], dr)
		l.hosts[dr] = strings.ToLower(ResolveShortname(dr.Spec.GetHost(), dr.Namespace))
	}
	return l
}

func (l *DRLookup) exportTo(dr *networkingv1.DestinationRule) []string {
	if dr.Spec.GetWorkloadSelector() != nil {
		return []string{ExportPrivate}
	}
	return dr.Spec.ExportTo
}

// inNamespaceLocal: the rule applies to proxies in its own namespace.
func (l *DRLookup) inNamespaceLocal(dr *networkingv1.DestinationRule) bool {
	e := l.exportTo(dr)
	return len(e) == 0 || slices.Contains(e, ExportPublic) || slices.Contains(e, ExportPrivate) || slices.Contains(e, dr.Namespace)
}

// privateOnly: the rule is exported to its own namespace only.
func (l *DRLookup) privateOnly(dr *networkingv1.DestinationRule) bool {
	e := l.exportTo(dr)
	if len(e) == 0 {
		return slices.Contains(l.DefaultExportTo, ExportPrivate)
	}
	return len(e) == 1 && (e[0] == ExportPrivate || e[0] == dr.Namespace)
}

func (l *DRLookup) host(dr *networkingv1.DestinationRule) string {
	if h, ok := l.hosts[dr]; ok {
		return h
	}
	return strings.ToLower(ResolveShortname(dr.Spec.GetHost(), dr.Namespace))
}

// For returns the DestinationRule a proxy in proxyNs with proxyLabels applies to the service
// svcHost in svcNs, or nil. Search order: (1) the proxy's namespace (for a proxy in the root
// namespace: root-namespace rules private to it); (2) rules exported from the service's
// namespace to the proxy; (3) rules exported from the root namespace. Each step takes the most
// specific matching host (exact before wildcard, longer wildcard first); if that host's rules
// are not exported to the proxy the search goes on with the next step. Rules for the same host
// in one step merge (subsets concatenated, first wins) when their exportTo sets are equal;
// otherwise the later rule wins. A rule with a workloadSelector only applies to proxies in its
// namespace whose labels it selects, and then wins.
//
// Mirrors istiod pilot/pkg/model/push_context.go destinationRule, config.go
// MostSpecificHostMatch, destination_rule.go mergeDestinationRule and sidecar.go
// SidecarScope.DestinationRule (seed §2.5 "우선순위").
func (l *DRLookup) For(proxyNs string, proxyLabels map[string]string, svcHost, svcNs string) *DRChoice {
	svcHost = strings.ToLower(svcHost)
	type step struct {
		name   string
		ns     string
		filter func(*networkingv1.DestinationRule) bool
		// exported applies the per-proxy exportTo filter after the host is chosen
		exported bool
	}
	steps := []step{}
	if proxyNs != l.RootNamespace {
		steps = append(steps, step{"proxy namespace", proxyNs, func(dr *networkingv1.DestinationRule) bool {
			return dr.Namespace == proxyNs && l.inNamespaceLocal(dr)
		}, false})
	} else {
		steps = append(steps, step{"root namespace (private)", proxyNs, func(dr *networkingv1.DestinationRule) bool {
			return dr.Namespace == proxyNs && l.privateOnly(dr)
		}, false})
	}
	steps = append(steps,
		step{"service namespace", svcNs, func(dr *networkingv1.DestinationRule) bool {
			return dr.Namespace == svcNs && !l.privateOnly(dr)
		}, true},
		step{"root namespace", l.RootNamespace, func(dr *networkingv1.DestinationRule) bool {
			return dr.Namespace == l.RootNamespace && !l.privateOnly(dr)
		}, true},
	)
	for _, st := range steps {
		var bucket []*networkingv1.DestinationRule
		for _, dr := range l.byNs[st.ns] {
			if st.filter(dr) {
				bucket = append(bucket, dr)
			}
		}
		best, ok := mostSpecific(bucket, l.host, svcHost)
		if !ok {
			continue
		}
		var cands []*networkingv1.DestinationRule
		for _, dr := range bucket {
			if l.host(dr) != best {
				continue
			}
			if st.exported {
				e := l.exportTo(dr)
				if !(len(e) == 0 || slices.Contains(e, ExportPublic) || slices.Contains(e, proxyNs)) {
					continue
				}
			}
			cands = append(cands, dr)
		}
		if len(cands) == 0 {
			continue
		}
		if c := l.choose(cands, proxyNs, proxyLabels); c != nil {
			c.Step = st.name
			return c
		}
	}
	return nil
}

func (l *DRLookup) choose(cands []*networkingv1.DestinationRule, proxyNs string, proxyLabels map[string]string) *DRChoice {
	for _, dr := range cands {
		if ws := dr.Spec.GetWorkloadSelector(); ws != nil && dr.Namespace == proxyNs && LabelsSubsetOf(ws.GetMatchLabels(), proxyLabels) {
			return merged([]*networkingv1.DestinationRule{dr})
		}
	}
	var plain []*networkingv1.DestinationRule
	for _, dr := range cands {
		if dr.Spec.GetWorkloadSelector() == nil {
			plain = append(plain, dr)
		}
	}
	if len(plain) == 0 {
		return nil
	}
	last := plain[len(plain)-1]
	var group []*networkingv1.DestinationRule
	for _, dr := range plain {
		if slices.Equal(l.exportTo(dr), l.exportTo(last)) {
			group = append(group, dr)
		}
	}
	return merged(group)
}

func merged(group []*networkingv1.DestinationRule) *DRChoice {
	c := &DRChoice{Rules: group, SubsetLabels: map[string]map[string]string{}}
	for _, dr := range group {
		for _, s := range dr.Spec.Subsets {
			if !slices.Contains(c.Subsets, s.GetName()) {
				c.Subsets = append(c.Subsets, s.GetName())
				c.SubsetLabels[s.GetName()] = s.GetLabels()
			}
		}
	}
	return c
}

// mostSpecific returns the DestinationRule host in bucket that best matches svcHost: the exact
// host, else the longest wildcard whose suffix svcHost ends with.
func mostSpecific(bucket []*networkingv1.DestinationRule, hostOf func(*networkingv1.DestinationRule) string, svcHost string) (string, bool) {
	best, found := "", false
	for _, dr := range bucket {
		h := hostOf(dr)
		if h == svcHost {
			return h, true
		}
		if isWildcard(h) && strings.HasSuffix(svcHost, h[1:]) {
			if !found || len(h) > len(best) || (len(h) == len(best) && h < best) {
				best, found = h, true
			}
		}
	}
	return best, found
}
