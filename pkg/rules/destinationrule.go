package rules

import (
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"

	networking "istio.io/api/networking/v1alpha3"
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
	// TrafficPolicy is the merged rule's top-level traffic policy: the first rule's that sets one.
	TrafficPolicy *networking.TrafficPolicy
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

// consolidated is one entry of istiod's consolidated DestinationRule lists: rules for one host
// merged into the first one (subsets appended, the first traffic policy kept), with the first
// rule's workload selector and the export set they were merged under.
type consolidated struct {
	rules    []*networkingv1.DestinationRule
	exportTo []string // a set (sorted, unique)
	selector map[string]string
	hasSel   bool
	once     sync.Once // builds choice: lookups run concurrently (preflight's workers)
	choice   *DRChoice
}

// drIndex is one of istiod's DestinationRule indexes: per namespace, the consolidated lists per
// host (exact and wildcard hosts in one map; MostSpecificHost tells them apart).
type drIndex map[string]map[string][]*consolidated

// DRLookup is the DestinationRule index of one push.
type DRLookup struct {
	RootNamespace string
	// DefaultExportTo is meshConfig.defaultDestinationRuleExportTo.
	DefaultExportTo []string
	rules           []*networkingv1.DestinationRule
	hosts           map[*networkingv1.DestinationRule]string
	// namespaceLocal, exportedByNamespace and rootLocal (under RootNamespace) are istiod's
	// destinationRuleIndex.
	namespaceLocal, exportedByNamespace, rootLocal drIndex
}

// NewDRLookup indexes rules as istiod does: sorted (rules with a workloadSelector first, then
// oldest first, then by name and namespace), then merged per host into the namespace-local,
// exported and root-local lists (exportTo decides which).
//
// Mirrors istiod pilot/pkg/model/push_context.go setDestinationRules and
// sortConfigBySelectorAndCreationTime, destination_rule.go mergeDestinationRule
// (ENABLE_ENHANCED_DESTINATIONRULE_MERGE=true, the default).
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
		hosts: make(map[*networkingv1.DestinationRule]string, len(rs)), namespaceLocal: drIndex{}, exportedByNamespace: drIndex{}, rootLocal: drIndex{}}
	privateDefault := slices.Contains(defaultExportTo, ExportPrivate)
	for _, dr := range rs {
		l.hosts[dr] = strings.ToLower(ResolveShortname(dr.Spec.GetHost(), dr.Namespace))
		exp := l.exportTo(dr)
		set := sortedCopy(exp)
		set = slices.Compact(set)
		if len(set) == 0 || slices.Contains(set, ExportPublic) || slices.Contains(set, ExportPrivate) || slices.Contains(set, dr.Namespace) {
			l.namespaceLocal.merge(dr.Namespace, l.hosts[dr], dr, set)
		}
		privateOnly := (len(set) == 0 && privateDefault) || (len(set) == 1 && (set[0] == ExportPrivate || set[0] == dr.Namespace))
		switch {
		case !privateOnly:
			l.exportedByNamespace.merge(dr.Namespace, l.hosts[dr], dr, set)
		case dr.Namespace == rootNs:
			l.rootLocal.merge(rootNs, l.hosts[dr], dr, set)
		}
	}
	return l
}

// merge adds dr for host to namespace ns of the index.
//
// Mirrors istiod destination_rule.go mergeDestinationRule: the incoming rule is merged into every
// earlier entry whose export set equals its own, or is a non-empty subset of it (then it is also
// appended on its own), and whose workload selector is compatible; whether it is also appended as
// an entry of its own is decided by the last entry looked at.
func (x drIndex) merge(ns, host string, dr *networkingv1.DestinationRule, set []string) {
	byHost := x[ns]
	if byHost == nil {
		byHost = map[string][]*consolidated{}
		x[ns] = byHost
	}
	sel := dr.Spec.GetWorkloadSelector()
	newEntry := func() *consolidated {
		return &consolidated{rules: []*networkingv1.DestinationRule{dr}, exportTo: set, selector: sel.GetMatchLabels(), hasSel: sel != nil}
	}
	list := byHost[host]
	if len(list) == 0 {
		byHost[host] = []*consolidated{newEntry()}
		return
	}
	appendSeparately := true
	for _, m := range list {
		switch {
		case slices.Equal(set, m.exportTo):
			appendSeparately = false
		case len(m.exportTo) > 0 && supersetOf(set, m.exportTo):
			appendSeparately = true
		default:
			appendSeparately = true
			continue
		}
		bothWithout := sel == nil && !m.hasSel
		bothWith := sel != nil && m.hasSel
		selectorsMatch := maps.Equal(sel.GetMatchLabels(), m.selector)
		if bothWith && !selectorsMatch {
			appendSeparately = true
			continue
		}
		if bothWithout || (bothWith && selectorsMatch) {
			appendSeparately = false
		}
		m.rules = append(m.rules, dr)
	}
	if appendSeparately {
		byHost[host] = append(byHost[host], newEntry())
	}
}

func supersetOf(a, b []string) bool {
	for _, x := range b {
		if !slices.Contains(a, x) {
			return false
		}
	}
	return true
}

// merged turns a consolidated entry into the choice it gives a proxy (built once).
func (m *consolidated) merged() *DRChoice {
	m.once.Do(func() {
		c := &DRChoice{Rules: m.rules, SubsetLabels: map[string]map[string]string{}}
		for _, dr := range m.rules {
			for _, s := range dr.Spec.Subsets {
				if !slices.Contains(c.Subsets, s.GetName()) {
					c.Subsets = append(c.Subsets, s.GetName())
					c.SubsetLabels[s.GetName()] = s.GetLabels()
				}
			}
			if c.TrafficPolicy == nil {
				c.TrafficPolicy = dr.Spec.GetTrafficPolicy()
			}
		}
		m.choice = c
	})
	return m.choice
}

func (l *DRLookup) exportTo(dr *networkingv1.DestinationRule) []string {
	if dr.Spec.GetWorkloadSelector() != nil {
		return []string{ExportPrivate}
	}
	return dr.Spec.ExportTo
}

func (l *DRLookup) host(dr *networkingv1.DestinationRule) string {
	if h, ok := l.hosts[dr]; ok {
		return h
	}
	return strings.ToLower(ResolveShortname(dr.Spec.GetHost(), dr.Namespace))
}

// Host returns a DestinationRule's host as istiod resolves it (short names against its
// namespace, lower case).
func (l *DRLookup) Host(dr *networkingv1.DestinationRule) string { return l.host(dr) }

// For returns the DestinationRule a proxy in proxyNs with proxyLabels applies to the service
// svcHost in svcNs, or nil. Search order: (1) the proxy's namespace (for a proxy in the root
// namespace: root-namespace rules private to it); (2) rules exported from the service's
// namespace to the proxy; (3) rules exported from the root namespace. Each step takes the most
// specific matching host (exact before wildcard, longer wildcard first). A host found in step
// (1) ends the search; in steps (2) and (3) only entries exported to the proxy's namespace
// count, and the search goes on when there are none. Among the entries found, one with a
// workloadSelector selecting the proxy (a rule of the proxy's namespace) wins, else the last one
// without a selector; rules merged into an entry (same host and namespace, see merge) add their
// subsets.
//
// Mirrors istiod pilot/pkg/model/push_context.go destinationRule,
// getExportedDestinationRuleFromNamespace, config.go MostSpecificHostMatch and sidecar.go
// SidecarScope.DestinationRule (seed §2.5 "우선순위").
func (l *DRLookup) For(proxyNs string, proxyLabels map[string]string, svcHost, svcNs string) *DRChoice {
	svcHost = strings.ToLower(svcHost)
	var list []*consolidated
	step := ""
	if proxyNs != l.RootNamespace {
		list, step = mostSpecificList(l.namespaceLocal[proxyNs], svcHost), "proxy namespace"
	} else {
		list, step = mostSpecificList(l.rootLocal[l.RootNamespace], svcHost), "root namespace (private)"
	}
	if list == nil && svcNs != "" {
		list, step = exportedTo(mostSpecificList(l.exportedByNamespace[svcNs], svcHost), proxyNs), "service namespace"
	}
	if len(list) == 0 {
		list, step = exportedTo(mostSpecificList(l.exportedByNamespace[l.RootNamespace], svcHost), proxyNs), "root namespace"
	}
	var catchAll *consolidated
	for _, m := range list {
		if !m.hasSel {
			catchAll = m
		}
		if m.hasSel && m.rules[0].Namespace == proxyNs && LabelsSubsetOf(m.selector, proxyLabels) {
			return withStep(m.merged(), step)
		}
	}
	if catchAll == nil {
		return nil
	}
	return withStep(catchAll.merged(), step)
}

func withStep(c *DRChoice, step string) *DRChoice {
	out := *c
	out.Step = step
	return &out
}

// mostSpecificList returns the entries of the host that best matches svcHost (nil when none
// matches; a non-nil empty list is never stored).
func mostSpecificList(byHost map[string][]*consolidated, svcHost string) []*consolidated {
	if len(byHost) == 0 {
		return nil
	}
	if l, ok := byHost[svcHost]; ok {
		return l
	}
	best, found := "", false
	for h := range byHost {
		if !isWildcard(h) || !strings.HasSuffix(strings.TrimPrefix(svcHost, "*"), h[1:]) {
			continue
		}
		if !found || len(h) > len(best) || (len(h) == len(best) && h < best) {
			best, found = h, true
		}
	}
	if !found {
		return nil
	}
	return byHost[best]
}

// exportedTo keeps the entries exported to proxyNs (no exportTo, "*", or the namespace).
func exportedTo(list []*consolidated, proxyNs string) []*consolidated {
	var out []*consolidated
	for _, m := range list {
		if len(m.exportTo) == 0 || slices.Contains(m.exportTo, ExportPublic) || slices.Contains(m.exportTo, proxyNs) {
			out = append(out, m)
		}
	}
	return out
}

// ClusterHTTPSettings returns the connectionPool.http settings of the cluster for port and
// subset ("" = the default cluster) under the chosen rules (nil when none applies or none sets
// them), merged as ClusterTLS merges tls: a port-level setting replaces the top-level policy, a
// subset's connection pool overrides it, a subset port-level setting replaces it.
//
// Mirrors istiod pilot/pkg/networking/util/util.go MergeSubsetTrafficPolicy and
// GetPortLevelTrafficPolicy.
func (c *DRChoice) ClusterHTTPSettings(port uint32, subset string) *networking.ConnectionPoolSettings_HTTPSettings {
	if c == nil {
		return nil
	}
	portLevel := func(tp *networking.TrafficPolicy) (*networking.ConnectionPoolSettings, bool) {
		for _, pl := range tp.GetPortLevelSettings() {
			if pl.GetPort() != nil && pl.GetPort().GetNumber() == port {
				return pl.GetConnectionPool(), true
			}
		}
		return tp.GetConnectionPool(), false
	}
	pool, _ := portLevel(c.TrafficPolicy)
	if subset != "" {
		for _, dr := range c.Rules {
			for _, s := range dr.Spec.GetSubsets() {
				if s.GetName() != subset || s.GetTrafficPolicy() == nil {
					continue
				}
				if sp, hasPortLevel := portLevel(s.GetTrafficPolicy()); sp != nil || hasPortLevel {
					pool = sp
				}
				return pool.GetHttp()
			}
		}
	}
	return pool.GetHttp()
}

// ClusterTLS returns the tls settings of the cluster for port and subset ("" = the default
// cluster) under the chosen rules (nil when none applies or it sets no tls): a port-level
// setting for the port replaces the whole top-level policy, its tls included even when it sets
// none; a subset's policy (itself narrowed to its port-level setting) overrides the tls, and a
// subset port-level setting replaces it even when it sets none.
//
// Mirrors istiod pilot/pkg/networking/util/util.go MergeSubsetTrafficPolicy and
// GetPortLevelTrafficPolicy, pilot/pkg/model/destination_rule.go MergeTrafficPolicy.
func (c *DRChoice) ClusterTLS(port uint32, subset string) *networking.ClientTLSSettings {
	t := c.ClusterTLSAsWritten(port, subset)
	if InvalidMutualTLS(t) {
		// istiod cannot build the client certificate: it logs the error and leaves the
		// cluster without TLS (cluster_tls.go constructUpstreamTLS, applyUpstreamTLSSettings)
		return nil
	}
	return t
}

// SidecarDropsCredential: istiod gives a sidecar no TLS context for tls t (SIMPLE or MUTUAL with
// a credentialName that is not a configmap:// reference) from rules c without a
// workloadSelector: such a cluster of a sidecar sends plaintext. Gateways are not concerned.
//
// Mirrors istiod pilot/pkg/networking/core/cluster_tls.go buildUpstreamClusterTLSContext
// (privilegedCredentialLookup && cb.sidecarProxy() && !opts.isDrWithSelector).
func SidecarDropsCredential(c *DRChoice, t *networking.ClientTLSSettings) bool {
	if c == nil || t == nil || t.GetCredentialName() == "" || strings.HasPrefix(t.GetCredentialName(), "configmap://") {
		return false
	}
	if m := t.GetMode(); m != networking.ClientTLSSettings_SIMPLE && m != networking.ClientTLSSettings_MUTUAL {
		return false
	}
	return len(c.Rules) == 0 || c.Rules[0].Spec.GetWorkloadSelector() == nil
}

// InvalidMutualTLS: tls mode MUTUAL without credentialName and without a client certificate and
// private key. Istio's validation refuses it; applied anyway, istiod builds the cluster without
// TLS (pilot/pkg/networking/core/cluster_tls.go constructUpstreamTLS: "client certificate and
// private key must not be empty").
func InvalidMutualTLS(t *networking.ClientTLSSettings) bool {
	return t.GetMode() == networking.ClientTLSSettings_MUTUAL && t.GetCredentialName() == "" &&
		(t.GetClientCertificate() == "" || t.GetPrivateKey() == "")
}

// ClusterTLSAsWritten is ClusterTLS before istiod's check of the client certificate (an invalid
// MUTUAL setting is returned as written).
func (c *DRChoice) ClusterTLSAsWritten(port uint32, subset string) *networking.ClientTLSSettings {
	if c == nil {
		return nil
	}
	portLevel := func(tp *networking.TrafficPolicy) (*networking.TrafficPolicy, bool) {
		for _, pl := range tp.GetPortLevelSettings() {
			if pl.GetPort() != nil && pl.GetPort().GetNumber() == port {
				return &networking.TrafficPolicy{Tls: pl.GetTls()}, true
			}
		}
		return tp, false
	}
	original, _ := portLevel(c.TrafficPolicy)
	if subset == "" {
		return original.GetTls()
	}
	var subsetPolicy *networking.TrafficPolicy
	found := false
	for _, dr := range c.Rules {
		for _, s := range dr.Spec.GetSubsets() {
			if s.GetName() == subset && !found {
				subsetPolicy, found = s.GetTrafficPolicy(), true
			}
		}
	}
	if subsetPolicy == nil {
		return original.GetTls()
	}
	sp, hasPortLevel := portLevel(subsetPolicy)
	if original == nil {
		return sp.GetTls()
	}
	if sp.GetTls() != nil || hasPortLevel {
		return sp.GetTls()
	}
	return original.GetTls()
}

// ClusterLoadBalancer returns the loadBalancer settings of the cluster for port and subset (""
// = the default cluster) under the chosen rules, merged as ClusterHTTPSettings merges the
// connection pool; nil when none applies.
//
// Mirrors istiod pilot/pkg/networking/util/util.go MergeSubsetTrafficPolicy and
// GetPortLevelTrafficPolicy.
func (c *DRChoice) ClusterLoadBalancer(port uint32, subset string) *networking.LoadBalancerSettings {
	if c == nil {
		return nil
	}
	portLevel := func(tp *networking.TrafficPolicy) (*networking.LoadBalancerSettings, bool) {
		for _, pl := range tp.GetPortLevelSettings() {
			if pl.GetPort() != nil && pl.GetPort().GetNumber() == port {
				return pl.GetLoadBalancer(), true
			}
		}
		return tp.GetLoadBalancer(), false
	}
	lb, _ := portLevel(c.TrafficPolicy)
	if subset != "" {
		for _, dr := range c.Rules {
			for _, s := range dr.Spec.GetSubsets() {
				if s.GetName() != subset || s.GetTrafficPolicy() == nil {
					continue
				}
				if sl, hasPortLevel := portLevel(s.GetTrafficPolicy()); sl != nil || hasPortLevel {
					lb = sl
				}
				return lb
			}
		}
	}
	return lb
}

// ClusterTypeUnder returns the type of a cluster of type ctype for port and subset once the
// chosen rules apply: a loadBalancer simple PASSTHROUGH makes it ORIGINAL_DST (Envoy connects
// to the address the application dialed); a dynamic forward proxy cluster keeps its type.
//
// Mirrors istiod pilot/pkg/networking/core/cluster_traffic_policy.go applyLoadBalancer (its
// early return for CLUSTER_PROVIDED clusters, then case PASSTHROUGH).
func ClusterTypeUnder(ctype string, c *DRChoice, port uint32, subset string) string {
	if ctype == "" || ctype == "DYNAMIC_FORWARD_PROXY" || ctype == "ORIGINAL_DST" {
		return ctype
	}
	if c.ClusterLoadBalancer(port, subset).GetSimple() == networking.LoadBalancerSettings_PASSTHROUGH {
		return "ORIGINAL_DST"
	}
	return ctype
}
