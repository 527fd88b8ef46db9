package checks

import (
	"encoding/json"
	"fmt"
	corev1 "k8s.io/api/core/v1"
	"slices"
	"sort"
	"strings"

	networking "istio.io/api/networking/v1alpha3"
	networkingv1 "istio.io/client-go/pkg/apis/networking/v1"

	"github.com/kubectl-egress/kubectl-egress/pkg/model"
	"github.com/kubectl-egress/kubectl-egress/pkg/rules"
	"github.com/kubectl-egress/kubectl-egress/pkg/snapshot"
)

// Patches of path failures whose fix is a field of one object: the subset a route names,
// defined in the DestinationRule the client's sidecar applies; the port a route names, added to
// the gateway's Kubernetes Service; TLS originated once only.

// pickPatch returns the first candidate after which the traced call works (each applied to a
// copy of the input and traced again), else the first candidate; nil when there is none. Only
// a trace of why-missing --from searches (tr.opt); the traces it runs, preflight's and a fix's
// re-trace take the first candidate.
func (tr *tracer) pickPatch(cands ...*Patch) *Patch {
	var kept []*Patch
	for _, p := range cands {
		if p != nil {
			kept = append(kept, p)
		}
	}
	if len(kept) == 0 {
		return nil
	}
	if tr.opt == nil || len(kept) == 1 {
		return kept[0]
	}
	opt := *tr.opt
	opt.probe, opt.Port, opt.Call = true, tr.t.Port, tr.t.Call
	for _, p := range kept {
		after, err := ApplyPatch(tr.snap, p)
		if err != nil {
			continue
		}
		if q, err := tracePath(after, opt); err == nil && !q.Failed() {
			return p
		}
	}
	return kept[0]
}

// jsonMap is v (an API object or message) as generic JSON.
func jsonMap(v any) map[string]any {
	js, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	var m map[string]any
	if json.Unmarshal(js, &m) != nil {
		return nil
	}
	return m
}

// nearSubset is the subset of ch (the DestinationRules a proxy applies to the host) whose name
// is one slip away from subset: the same once case, '-', '_' and '.' are ignored, or (for
// names of 4 characters or more with the same digits, and only one such name) an edit distance
// of 1 (2 for names of 8 characters or more). "" when none, or when ch defines subset.
// A route naming such a subset has a typo: the fix is the route's subset, not a second
// definition beside the right one (blind audit 42 R26: docu-flow for docuflow).
//
// For a finding about the route itself (export-audit's, one for every client namespace: vsNs
// set), the rule speaks for the route's author only when it is shared (the Service's or the
// root namespace's) or lives in the route's namespace: a near name in one client namespace's own
// rule says nothing about the others (blind audit 43 F13). For one client's call (vsNs "") the
// rule that client applies decides.
func nearSubset(ch *rules.DRChoice, subset, vsNs string) string {
	if ch == nil || ch.HasSubset(subset) || len(ch.Rules) == 0 || vsNs != "" && ch.Step == "proxy namespace" && ch.Rules[0].Namespace != vsNs {
		return ""
	}
	norm := func(x string) string {
		return strings.NewReplacer("-", "", "_", "", ".", "").Replace(strings.ToLower(x))
	}
	limit := 1
	if len(subset) >= 8 {
		limit = 2
	}
	digits := func(x string) string {
		return strings.Map(func(r rune) rune {
			if r >= '0' && r <= '9' {
				return r
			}
			return -1
		}, x)
	}
	var near []string
	for _, name := range ch.Subsets {
		switch {
		case norm(name) == norm(subset):
			return name
		case len(subset) >= 4 && digits(name) == digits(subset) && levenshtein(name, subset) <= limit:
			// short names and names that differ in a number (v1, v3; pool-2, pool-3) are
			// other versions, not slips (blind audit 44 F09)
			near = append(near, name)
		}
	}
	if len(near) == 1 {
		return near[0]
	}
	return "" // none, or several: no telling which was meant
}

// subsetTypo: the route vsRef ("ns/name") of sidecar v names subset of Service s, which the
// rule the sidecar applies to s does not define while it defines a name one slip away
// (nearSubset), and no rule defines subset under a short name, an alias or a narrower exportTo
// (the other explanations subsetFixes gives): culprit is the route, with the reason and fix.
func subsetTypo(snap *snapshot.Snapshot, v SidecarView, s rules.Service, subset, vsRef string) (culprit, reason, fix string, ok bool) {
	if vsRef == "" || subset == "" {
		return "", "", "", false
	}
	view, drs, root := sidecarDRs(snap, v)
	ch := drs.For(v.Namespace, v.Labels, s.Hostname, s.Namespace)
	near := nearSubset(ch, subset, "")
	if near == "" || shortHostRule(v, drs, view.DestinationRules, s, subset, root) != nil || unexportedSubsetRule(v, drs, view.DestinationRules, s, subset, root) != nil ||
		aliasSubsetRule(model.Aliases(view, v.Flags.MeshConfig)[s.Hostname], drs, view.DestinationRules, subset) != nil {
		return "", "", "", false
	}
	culprit = firstOrigin(snap, vsRef)
	reason, fix = subsetTypoText(culprit, subset, near, ch.Rules[0].Namespace+"/"+ch.Rules[0].Name, s.Hostname)
	return culprit, reason, fix, true
}

// subsetTypoText is the reason and fix of a route (vs, "VirtualService ns/name" or the Gateway
// API route it was generated from) naming subset where DestinationRule dr defines near.
func subsetTypoText(vs, subset, near, dr, host string) (reason, fix string) {
	return fmt.Sprintf("%s names subset %q, and DestinationRule %s, which the sidecar applies to %s, defines %q: a slip in the route's subset", vs, subset, dr, host, near),
		fmt.Sprintf("In %s, set the destination's subset to %q (the name DestinationRule %s defines).", vs, near, dr)
}

// subsetPatches are the candidate fixes of a route to a subset no DestinationRule on the
// sidecar's lookup path defines: the subset added to the rule the sidecar applies to the host
// (the first of the merged rules), or, when none applies, a new rule in the client's namespace
// exported only there (it shadows nothing for other namespaces). The subset is copied from a
// rule for the same host off the lookup path when one defines it (with the tls it gets there,
// when its own policy sets none for the port), else defined without labels (every endpoint of
// the Service); then the same subset with Istio mTLS (the host as SNI) or plaintext to the
// gateway, for a gateway server that expects the other (pickPatch takes the one that works).
//
// Mirrors istiod pilot/pkg/model/push_context.go destinationRule (the lookup: proxy namespace,
// service namespace, root namespace; rules.DRLookup.For), destination_rule.go
// mergeDestinationRule (the merged rules' subsets) and cluster_builder.go buildSubsetCluster (a
// subset cluster exists only when the applied rule defines the subset).
func subsetPatches(v SidecarView, drs *rules.DRLookup, view []*networkingv1.DestinationRule, s rules.Service, port uint32, subset, host string) []*Patch {
	ch := drs.For(v.Namespace, v.Labels, s.Hostname, s.Namespace)
	var src *networkingv1.DestinationRule
	rs := slices.Clone(view)
	sort.SliceStable(rs, func(i, j int) bool { return rs[i].CreationTimestamp.Before(&rs[j].CreationTimestamp) })
	for _, dr := range rs {
		if drs.Host(dr) != strings.ToLower(s.Hostname) {
			continue
		}
		for _, x := range dr.Spec.GetSubsets() {
			if x.GetName() == subset && src == nil {
				src = dr
			}
		}
		if src != nil {
			break
		}
	}
	var defs []map[string]any
	if src != nil {
		for _, x := range asList(specOf(src, "spec")["subsets"]) {
			if xm, _ := x.(map[string]any); xm != nil && xm["name"] == subset {
				if ch != nil {
					inheritTLS(xm, src, port, subset)
				}
				defs = append(defs, xm)
			}
		}
	} else {
		defs = append(defs, map[string]any{"name": subset})
	}
	// The same subset with the tls the gateway server may expect instead (its own policy
	// overrides the rule's top-level tls): Istio mTLS with the host as SNI, or plaintext.
	for _, def := range slices.Clone(defs) {
		for _, tls := range []map[string]any{{"mode": "ISTIO_MUTUAL", "sni": host}, {"mode": "DISABLE"}} {
			alt := jsonMap(def)
			tp, _ := alt["trafficPolicy"].(map[string]any)
			if tp == nil {
				tp = map[string]any{}
			}
			delete(tp, "portLevelSettings")
			tp["tls"] = tls
			alt["trafficPolicy"] = tp
			defs = append(defs, alt)
		}
	}
	var out []*Patch
	for _, def := range defs {
		if ch != nil && len(ch.Rules) > 0 {
			target := ch.Rules[0]
			subsets := append(asList(specOf(target, "spec")["subsets"]), def)
			p := newPatch("networking.istio.io/v1", "DestinationRule", target.Namespace, target.Name, fields{{"spec", fields{{"subsets", subsets}}}})
			p.note = fmt.Sprintf(" (the rule sidecars in %s apply to %s: subset %s added)", v.Namespace, s.Hostname, subset)
			out = append(out, p)
			continue
		}
		spec := fields{{"host", s.Hostname}, {"exportTo", []any{"."}}}
		if selectorShadow(v, drs, view, s) != nil {
			// A workloadSelector rule of the namespace for the host takes a later rule of the
			// same export set into itself (destination_rule.go mergeDestinationRule), which
			// would keep the new one from the pods it does not select: a rule exported as the
			// mesh default stays apart, and other namespaces never read it (it is neither the
			// Service's nor the root namespace's; blind audit 80 c07).
			spec = fields{{"host", s.Hostname}}
		}
		if src != nil && src.Spec.GetTrafficPolicy() != nil {
			spec = append(spec, field{"trafficPolicy", specOf(src, "spec")["trafficPolicy"]})
		}
		spec = append(spec, field{"subsets", []any{def}})
		out = append(out, newObject("networking.istio.io/v1", "DestinationRule", v.Namespace, uniqueDRName(view, v.Namespace, s.Name+"-"+subset), spec))
	}
	return out
}

// sharedSubsetRules are, for each new DestinationRule among cands (created in the client's
// namespace and exported there only), the same rule in namespace ns (the Service's, the second
// step of every client's lookup path) exported to every namespace.
//
// Mirrors istiod pilot/pkg/model/push_context.go destinationRule (the proxy's namespace, then
// rules the Service's namespace exports to it, then the root namespace's).
func sharedSubsetRules(cands []*Patch, ns string) []*Patch {
	var out []*Patch
	for _, p := range cands {
		if p == nil || !p.Create || p.Kind != "DestinationRule" || p.Namespace == ns {
			continue
		}
		var spec fields
		for _, f := range p.set {
			if f.Key == "spec" {
				spec, _ = f.Value.(fields)
			}
		}
		if spec == nil {
			continue
		}
		shared := make(fields, 0, len(spec))
		for _, f := range spec {
			if f.Key == "exportTo" {
				f = field{"exportTo", []any{"*"}}
			}
			shared = append(shared, f)
		}
		out = append(out, newObject(p.APIVersion, p.Kind, ns, p.Name, shared))
	}
	return out
}

// sidecarDRs returns the revision view a sidecar reads, its DestinationRule lookup and the
// root namespace.
func sidecarDRs(snap *snapshot.Snapshot, v SidecarView) (*snapshot.Snapshot, *rules.DRLookup, string) {
	view := RevisionView(snap, v.Revision)
	mc := v.Flags.MeshConfig
	root := mc.GetRootNamespace()
	if root == "" {
		root = snap.IstioNamespace
	}
	return view, model.DestinationRules(view, root, mc.GetDefaultDestinationRuleExportTo()), root
}

// subsetFixes are the candidate fixes of a sidecar's missing subset cluster of Service s: first,
// when a rule on the lookup path defines the subset under a short or partial name of s
// (shortHostRule, returned as short), its host written in full (hostFix); then, when the route
// naming the subset (vsRef, "ns/name") is another namespace's, new rules in the Service's
// namespace for every client (sharedSubsetRules); then subsetPatches.
func subsetFixes(v SidecarView, drs *rules.DRLookup, view []*networkingv1.DestinationRule, aliases []rules.Service, s rules.Service, port uint32, subset, host, root, vsRef string) (cands []*Patch, short *networkingv1.DestinationRule, hostFix *Patch) {
	cands = subsetPatches(v, drs, view, s, port, subset, host)
	if vsNs, _, _ := strings.Cut(vsRef, "/"); vsRef != "" && vsNs != v.Namespace {
		// The route (vsRef, "ns/name") is shared with other namespaces: a rule they all
		// apply (in the Service's namespace, exported everywhere) fixes every client at once.
		cands = append(sharedSubsetRules(cands, s.Namespace), cands...)
	}
	hidden := unexportedSubsetRule(v, drs, view, s, subset, root)
	if hidden != nil {
		// the rule that defines the subset is on the lookup path but not exported to the
		// client's namespace: exporting it is the fix, not a second rule (blind audit 31 #12)
		cands = append([]*Patch{exportToPatch("DestinationRule "+hidden.Namespace+"/"+hidden.Name, hidden.Spec.ExportTo, hidden.Namespace, v.Namespace)}, cands...)
	}
	if short = shortHostRule(v, drs, view, s, subset, root); short != nil {
		hostFix = newPatch("networking.istio.io/v1", "DestinationRule", short.Namespace, short.Name, fields{{"spec", fields{{"host", s.Hostname}}}})
		hostFix.note = " (host written in full)"
		cands = append([]*Patch{hostFix}, cands...)
	} else if hidden == nil {
		// A rule that defines the subset for an ExternalName alias of the Service: the route's
		// cluster is the Service's (route.go GetDestinationCluster follows the alias) and an
		// alias gets no cluster of its own, so its rule's subsets apply nowhere (blind audit 34
		// D2). Returned as short: its host is to be the Service's.
		if short = aliasSubsetRule(aliases, drs, view, subset); short != nil {
			hostFix = newPatch("networking.istio.io/v1", "DestinationRule", short.Namespace, short.Name, fields{{"spec", fields{{"host", s.Hostname}}}})
			hostFix.note = " (host: the Service the alias names)"
			cands = append([]*Patch{hostFix}, cands...)
		}
	}
	return cands, short, hostFix
}

// aliasSubsetRule is the oldest DestinationRule whose host is one of aliases (the ExternalName
// Services that alias the route's Service) and that defines subset, nil when none.
func aliasSubsetRule(aliases []rules.Service, drs *rules.DRLookup, view []*networkingv1.DestinationRule, subset string) *networkingv1.DestinationRule {
	if len(aliases) == 0 {
		return nil
	}
	rs := slices.Clone(view)
	sort.SliceStable(rs, func(i, j int) bool { return rs[i].CreationTimestamp.Before(&rs[j].CreationTimestamp) })
	for _, dr := range rs {
		h := drs.Host(dr)
		if !slices.ContainsFunc(aliases, func(a rules.Service) bool { return strings.EqualFold(a.Hostname, h) }) {
			continue
		}
		if slices.ContainsFunc(dr.Spec.GetSubsets(), func(x *networking.Subset) bool { return x.GetName() == subset }) {
			return dr
		}
	}
	return nil
}

// unexportedSubsetRule is the oldest DestinationRule for the Service s in the Service's or the
// root namespace (the client's lookup path after its own namespace) that defines subset but
// whose exportTo leaves the client's namespace out: istiod does not give it to the client's
// proxies (pilot/pkg/model/push_context.go destinationRule, getExportedDestinationRuleFromNamespace;
// a root-namespace rule exported to "." is kept for the root namespace's own proxies). nil when
// there is none.
func unexportedSubsetRule(v SidecarView, drs *rules.DRLookup, view []*networkingv1.DestinationRule, s rules.Service, subset, root string) *networkingv1.DestinationRule {
	rs := slices.Clone(view)
	sort.SliceStable(rs, func(i, j int) bool { return rs[i].CreationTimestamp.Before(&rs[j].CreationTimestamp) })
	for _, dr := range rs {
		if (dr.Namespace != v.Namespace && dr.Namespace != root && dr.Namespace != s.Namespace) || drs.Host(dr) != strings.ToLower(s.Hostname) {
			continue
		}
		if !slices.ContainsFunc(dr.Spec.GetSubsets(), func(x *networking.Subset) bool { return x.GetName() == subset }) {
			continue
		}
		// (a rule of the client's own namespace too: it is local to its namespace only when its
		// exportTo holds ".", "*" or the namespace: push_context.go setDestinationRules; blind
		// audit 88 c37, an exportTo naming only the gateway's namespace)
		if !rules.ServiceVisible(dr.Namespace, rules.EffectiveExportTo(dr.Spec.ExportTo, drs.DefaultExportTo), v.Namespace) {
			return dr
		}
	}
	return nil
}

// unexportedTLSRule is the oldest DestinationRule for the Service s in the root namespace or the
// Service's own (on the lookup path of a sidecar in v.Namespace: push_context.go
// destinationRule) whose exportTo (or the mesh default) leaves v.Namespace out, and that sets
// tls.mode mode for port (top level, the port's settings, or subset's); nil when none. It is the
// rule meant to make the sidecar originate the TLS a gateway server expects, hidden from the
// client (blind audit 76 c22: a rule in istio-system exported to "." only).
func unexportedTLSRule(v SidecarView, drs *rules.DRLookup, view []*networkingv1.DestinationRule, s rules.Service, port uint32, subset, mode, root string) *networkingv1.DestinationRule {
	rs := slices.Clone(view)
	sort.SliceStable(rs, func(i, j int) bool { return rs[i].CreationTimestamp.Before(&rs[j].CreationTimestamp) })
	for _, dr := range rs {
		if dr.Namespace == v.Namespace || (dr.Namespace != root && dr.Namespace != s.Namespace) || drs.Host(dr) != strings.ToLower(s.Hostname) {
			continue
		}
		if len(dr.Spec.GetWorkloadSelector().GetMatchLabels()) > 0 {
			continue // applies in its own namespace only, whatever its exportTo
		}
		if ruleSetsTLS(dr, port, subset, mode) && !rules.ServiceVisible(dr.Namespace, rules.EffectiveExportTo(dr.Spec.ExportTo, drs.DefaultExportTo), v.Namespace) {
			return dr
		}
	}
	return nil
}

// ruleSetsTLS: DestinationRule dr sets tls.mode mode for port: in the port's settings, else at
// the top level; a subset's own policy, when it has one, decides for the subset.
func ruleSetsTLS(dr *networkingv1.DestinationRule, port uint32, subset, mode string) bool {
	sets := func(tp *networking.TrafficPolicy) bool {
		if tp == nil {
			return false
		}
		for _, pl := range tp.GetPortLevelSettings() {
			if pl.GetPort().GetNumber() == port && pl.GetTls() != nil {
				return pl.GetTls().GetMode().String() == mode
			}
		}
		return tp.GetTls() != nil && tp.GetTls().GetMode().String() == mode
	}
	ok := sets(dr.Spec.GetTrafficPolicy())
	if subset != "" {
		for _, ss := range dr.Spec.GetSubsets() {
			if ss.GetName() == subset && ss.GetTrafficPolicy() != nil {
				ok = sets(ss.GetTrafficPolicy())
			}
		}
	}
	return ok
}

// offPathTLSRule is the oldest DestinationRule for the Service s that sets tls.mode mode for port
// (as unexportedTLSRule reads it) but that istiod never applies to a sidecar in v.Namespace
// whatever its exportTo: it lives in a namespace off the lookup path (not v.Namespace, the root
// namespace or the Service's: push_context.go destinationRule), or it has a workloadSelector
// (applied to the selected workloads of its own namespace only). why says which; nil when none
// (blind audit 78 1b, 1c: the rule the user wrote was never named).
func offPathTLSRule(v SidecarView, drs *rules.DRLookup, view []*networkingv1.DestinationRule, s rules.Service, port uint32, subset, mode, root string) (*networkingv1.DestinationRule, string) {
	rs := slices.Clone(view)
	sort.SliceStable(rs, func(i, j int) bool { return rs[i].CreationTimestamp.Before(&rs[j].CreationTimestamp) })
	for _, dr := range rs {
		if drs.Host(dr) != strings.ToLower(s.Hostname) {
			continue
		}
		why := offPathReason(v, dr, s, root)
		if why == "" {
			continue
		}
		if ruleSetsTLS(dr, port, subset, mode) {
			return dr, why
		}
	}
	return nil, ""
}

// offLookupSubsetRule is offPathTLSRule for a rule that defines subset for the Service s.
func offLookupSubsetRule(v SidecarView, drs *rules.DRLookup, view []*networkingv1.DestinationRule, s rules.Service, subset, root string) (*networkingv1.DestinationRule, string) {
	for _, dr := range view {
		if drs.Host(dr) != strings.ToLower(s.Hostname) || !slices.ContainsFunc(dr.Spec.GetSubsets(), func(x *networking.Subset) bool { return x.GetName() == subset }) {
			continue
		}
		if why := offPathReason(v, dr, s, root); why != "" {
			return dr, why
		}
	}
	return nil, ""
}

// offPathReason says why istiod never applies DestinationRule dr for the Service s to a sidecar
// in v.Namespace whatever its exportTo ("" when it may): a workloadSelector outside the
// sidecar's namespace, or a namespace off the lookup path.
func offPathReason(v SidecarView, dr *networkingv1.DestinationRule, s rules.Service, root string) string {
	switch {
	case len(dr.Spec.GetWorkloadSelector().GetMatchLabels()) > 0 && dr.Namespace != v.Namespace:
		return fmt.Sprintf("it has a workloadSelector, and istiod applies such a rule only to the selected workloads of its own namespace (%s)", dr.Namespace)
	case dr.Namespace != v.Namespace && dr.Namespace != root && dr.Namespace != s.Namespace:
		return fmt.Sprintf("istiod looks a sidecar's rules for %s up in the sidecar's namespace (%s), the Service's (%s) and the root namespace (%s) only, and it lives in %s", s.Hostname, v.Namespace, s.Namespace, root, dr.Namespace)
	case len(dr.Spec.GetWorkloadSelector().GetMatchLabels()) > 0 && !labelsSelect(dr.Spec.GetWorkloadSelector().GetMatchLabels(), v.Labels):
		// (sidecar.go SidecarScope.DestinationRule: a selector rule applies to the workloads it
		// selects; blind audit 91 c44)
		if v.Labels == nil {
			return fmt.Sprintf("its workloadSelector (%s) selects only some workloads of %s, and the pod's labels are not known here (use --pod)", fmtLabels(dr.Spec.GetWorkloadSelector().GetMatchLabels()), v.Namespace)
		}
		return fmt.Sprintf("its workloadSelector (%s) does not select the pod (labels %s)", fmtLabels(dr.Spec.GetWorkloadSelector().GetMatchLabels()), fmtLabels(v.Labels))
	}
	return ""
}

// labelsSelect: every label of sel is in labels with the same value.
func labelsSelect(sel, labels map[string]string) bool {
	for k, val := range sel {
		if got, ok := labels[k]; !ok || got != val {
			return false
		}
	}
	return true
}

// unappliedOrigination: a DestinationRule for the entry s that would originate TLS (SIMPLE or
// MUTUAL) for port cport, which istiod does not apply to this sidecar (offPathTLSRule): the rule
// the user wrote for the call, to name instead of asking for a new one (blind audit 91 c44, c45).
func unappliedOrigination(snap *snapshot.Snapshot, v SidecarView, drs *rules.DRLookup, s rules.Service, cport uint32, subset string) (culprit, why, fix string, ok bool) {
	view, _, root := sidecarDRs(snap, v)
	for _, mode := range []string{"SIMPLE", "MUTUAL"} {
		dr, reason := offPathTLSRule(v, drs, view.DestinationRules, s, cport, subset, mode, root)
		if dr == nil {
			continue
		}
		ref := "DestinationRule " + dr.Namespace + "/" + dr.Name
		fix = fmt.Sprintf("Make %s apply to the client: ", ref)
		switch {
		case len(dr.Spec.GetWorkloadSelector().GetMatchLabels()) > 0 && dr.Namespace == v.Namespace:
			fix += fmt.Sprintf("widen its workloadSelector to select the client's pods (or remove it to cover namespace %s).", v.Namespace)
		case len(dr.Spec.GetWorkloadSelector().GetMatchLabels()) > 0:
			fix += fmt.Sprintf("move it to namespace %s (a rule with a workloadSelector applies only to the selected workloads of its own namespace), or remove its workloadSelector.", v.Namespace)
		default:
			fix += fmt.Sprintf("move it to namespace %s or %s (the lookup path of a sidecar's rules).", v.Namespace, s.Namespace)
		}
		return ref, fmt.Sprintf("%s sets tls.mode %s for it, but %s", ref, mode, reason), fix, true
	}
	return "", "", "", false
}

// shortHostRule is a DestinationRule on the client's lookup path (its own namespace, the root
// namespace, the Service's) that defines subset for the Service s, but names it by its short
// name or a partial one ("name.namespace", which istiod reads as written, a host no Service
// has): istiod reads a host without dots in the rule's own namespace
// (pilot/pkg/model/push_context.go setDestinationRules → config.go ResolveShortnameToFQDN), so
// the rule written in another namespace than the Service's applies to a host that does not
// exist. nil when there is none.
func shortHostRule(v SidecarView, drs *rules.DRLookup, view []*networkingv1.DestinationRule, s rules.Service, subset, root string) *networkingv1.DestinationRule {
	return misnamedSubsetRule(drs, view, s, subset, func(ns string) bool { return ns == v.Namespace || ns == root || ns == s.Namespace })
}

// misnamedSubsetRule is the oldest DestinationRule in a namespace onPath accepts that defines
// subset for the Service s under a short or partial name (shortHostRule's test), nil when none.
func misnamedSubsetRule(drs *rules.DRLookup, view []*networkingv1.DestinationRule, s rules.Service, subset string, onPath func(string) bool) *networkingv1.DestinationRule {
	name, _, _ := strings.Cut(s.Hostname, ".")
	rs := slices.Clone(view)
	sort.SliceStable(rs, func(i, j int) bool { return rs[i].CreationTimestamp.Before(&rs[j].CreationTimestamp) })
	for _, dr := range rs {
		h := strings.ToLower(dr.Spec.GetHost())
		partial := strings.Contains(h, ".") && strings.HasPrefix(strings.ToLower(s.Hostname), h+".") // "name.namespace": read as written
		if (h != name && !partial) || drs.Host(dr) == strings.ToLower(s.Hostname) {
			continue
		}
		if !onPath(dr.Namespace) {
			continue
		}
		if slices.ContainsFunc(dr.Spec.GetSubsets(), func(x *networking.Subset) bool { return x.GetName() == subset }) {
			return dr
		}
	}
	return nil
}

// inheritTLS gives a subset copied out of src the tls it has there for port when its own policy
// sets none for the port (it inherited src's top-level tls, which the rule it moves to may not
// have). Mirrors util.MergeSubsetTrafficPolicy through rules.DRChoice.ClusterTLS.
func inheritTLS(sub map[string]any, src *networkingv1.DestinationRule, port uint32, subset string) {
	t := (&rules.DRChoice{Rules: []*networkingv1.DestinationRule{src}, TrafficPolicy: src.Spec.GetTrafficPolicy()}).ClusterTLS(port, subset)
	if t == nil {
		return
	}
	tp, _ := sub["trafficPolicy"].(map[string]any)
	if tp == nil {
		tp = map[string]any{}
	}
	if _, ok := tp["tls"]; ok {
		return
	}
	for _, pl := range asList(tp["portLevelSettings"]) {
		pm, _ := pl.(map[string]any)
		pp, _ := pm["port"].(map[string]any)
		if n, _ := pp["number"].(float64); uint32(n) == port {
			return
		}
	}
	tp["tls"] = jsonMap(t)
	sub["trafficPolicy"] = tp
}

// uniqueDRName is base, or base with a number, not taken by a DestinationRule of ns.
func uniqueDRName(drs []*networkingv1.DestinationRule, ns, base string) string {
	base = strings.Trim(strings.ToLower(base), "-.")
	if len(base) > 60 {
		base = strings.Trim(base[:60], "-.")
	}
	taken := func(n string) bool {
		return slices.ContainsFunc(drs, func(dr *networkingv1.DestinationRule) bool { return dr.Namespace == ns && dr.Name == n })
	}
	name := base
	for i := 2; taken(name); i++ {
		name = fmt.Sprintf("%s-%d", base, i)
	}
	return name
}

// servicePortPatches are the candidate fixes of a route to a port the gateway's Service does
// not declare: the port added to the Service (every existing port written back, as a merge
// patch replaces the list), targeting a port a kept Gateway server of the Service's gateway
// workload listens on (servers whose hosts cover the host first), named after that server's
// protocol. nil when the Service selects no gateway workload (the fix is then a route change).
//
// Mirrors istiod pilot/pkg/model/gateway.go resolvePorts (a server port is the Service port;
// the gateway listens on its targetPort) and MergeGateways (rules.MergeGatewayServers).
func (tr *tracer) servicePortPatches(s rules.Service, port uint32, host string) []*Patch {
	k := tr.kubeService(s)
	gws := gatewayPodsOf(tr.snap, s)
	if k == nil || len(gws) == 0 {
		return nil
	}
	w := gws[0]
	gview := RevisionView(tr.snap, w.Revision)
	flags := ReadIstiodFlags(gview, w.Revision)
	var first, rest []rules.GatewayServer
	for _, ms := range rules.MergeGatewayServers(gatewaysFor(gview, w, flags.ScopeGWToNs.Value), gatewayTargetPorts(tr.snap, w)) {
		if ms.Dropped != "" || ms.Port == 0 {
			continue
		}
		if serverCovers(ms, host) {
			first = append(first, ms)
		} else {
			rest = append(rest, ms)
		}
	}
	names := map[string]bool{}
	for _, p := range k.Spec.Ports {
		names[p.Name] = true
	}
	var out []*Patch
	seen := map[uint32]bool{}
	for _, ms := range append(first, rest...) {
		if seen[ms.Port] {
			continue
		}
		seen[ms.Port] = true
		proto := strings.ToLower(ms.Server.GetPort().GetProtocol())
		if proto == "" {
			proto = "tcp"
		}
		name := fmt.Sprintf("%s-%d", proto, port)
		for i := 2; names[name]; i++ {
			name = fmt.Sprintf("%s-%d-%d", proto, port, i)
		}
		target, note := ms.Port, fmt.Sprintf(" (port %d added, targeting the gateway listener on %d of Gateway server %s)", port, ms.Port, ms.Ref())
		if c := unprivilegedContainerPort(tr.snap, w, k, ms.Port); c != 0 && ms.Port == ms.Server.GetPort().GetNumber() {
			// the server is bound as written on a port below 1024, which a gateway run
			// unprivileged (Istio's charts do) gets no listener for: the Service port sends it
			// to the container port the pods declare for it instead, and istiod moves the
			// listener there (resolvePorts; blind audit 99 c22)
			target = c
			note = fmt.Sprintf(" (port %d added, targeting container port %d of the gateway pods, where istiod then puts the listener of Gateway server %s)", port, c, ms.Ref())
		}
		ports := asList(specOf(k, "spec")["ports"])
		ports = append(ports, fields{{"name", name}, {"port", port}, {"targetPort", target}, {"protocol", "TCP"}})
		p := newPatch("v1", "Service", k.Namespace, k.Name, fields{{"spec", fields{{"ports", ports}}}})
		p.note = note
		out = append(out, p)
	}
	return out
}

// serverCovers: a server's hosts ("namespace/host" or "host") cover host.
func serverCovers(ms rules.GatewayServer, host string) bool {
	for _, h := range ms.Server.GetHosts() {
		if _, hh, ok := strings.Cut(h, "/"); ok {
			h = hh
		}
		if h == "*" || rules.HostMatches(h, host) {
			return true
		}
	}
	return false
}

// disableTLSPatch is the fix of TLS originated twice on a cluster (port, subset) under the rules
// ch: tls.mode DISABLE where the cluster's tls comes from, for that port only. A port-level
// setting for the port (of the subset, else of the rule) gets tls DISABLE; a subset's own tls
// becomes DISABLE; a top-level tls gets a port-level setting for the port with tls DISABLE and
// the top-level connection pool, load balancer and outlier detection (a port-level setting
// replaces the whole top-level policy for its port). nil when no rule sets the tls.
//
// Mirrors istiod pilot/pkg/networking/util/util.go MergeSubsetTrafficPolicy and
// GetPortLevelTrafficPolicy (rules.DRChoice.ClusterTLS).
func disableTLSPatch(ch *rules.DRChoice, port uint32, subset string) *Patch {
	if ch == nil || ch.ClusterTLS(port, subset) == nil {
		return nil
	}
	disable := map[string]any{"mode": "DISABLE"}
	portEntry := func(tp map[string]any) map[string]any {
		for _, pl := range asList(tp["portLevelSettings"]) {
			pm, _ := pl.(map[string]any)
			pp, _ := pm["port"].(map[string]any)
			if n, _ := pp["number"].(float64); pm != nil && uint32(n) == port {
				return pm
			}
		}
		return nil
	}
	if subset != "" {
		for _, dr := range ch.Rules {
			spec := specOf(dr, "spec")
			subsets := asList(spec["subsets"])
			for _, x := range subsets {
				sm, _ := x.(map[string]any)
				if sm == nil || sm["name"] != subset {
					continue
				}
				// the first definition of the subset decides (mergeDestinationRule)
				tp, _ := sm["trafficPolicy"].(map[string]any)
				pe := portEntry(tp)
				switch {
				case pe != nil:
					pe["tls"] = disable
				case tp != nil && tp["tls"] != nil:
					tp["tls"] = disable
				default:
					return topLevelDisable(ch, port, portEntry)
				}
				return newPatch("networking.istio.io/v1", "DestinationRule", dr.Namespace, dr.Name, fields{{"spec", fields{{"subsets", subsets}}}})
			}
		}
	}
	return topLevelDisable(ch, port, portEntry)
}

func topLevelDisable(ch *rules.DRChoice, port uint32, portEntry func(map[string]any) map[string]any) *Patch {
	for _, dr := range ch.Rules {
		if dr.Spec.GetTrafficPolicy() == nil || dr.Spec.GetTrafficPolicy() != ch.TrafficPolicy {
			continue
		}
		tp, _ := specOf(dr, "spec")["trafficPolicy"].(map[string]any)
		if tp == nil {
			return nil
		}
		if pe := portEntry(tp); pe != nil {
			pe["tls"] = map[string]any{"mode": "DISABLE"}
		} else {
			pe := fields{{"port", fields{{"number", port}}}}
			for _, k := range []string{"connectionPool", "loadBalancer", "outlierDetection"} {
				if tp[k] != nil {
					pe = append(pe, field{k, tp[k]})
				}
			}
			pe = append(pe, field{"tls", fields{{"mode", "DISABLE"}}})
			tp["portLevelSettings"] = append(asList(tp["portLevelSettings"]), pe)
		}
		// portLevelSettings first: it is what changes, and the one-line summary of a fix names
		// the first field (blind audit 38 #01 named connectionPool.tcp.maxConnections)
		ordered := fields{{"portLevelSettings", tp["portLevelSettings"]}}
		for _, k := range sortedKeysOf(tp) {
			if k != "portLevelSettings" {
				ordered = append(ordered, field{k, tp[k]})
			}
		}
		p := newPatch("networking.istio.io/v1", "DestinationRule", dr.Namespace, dr.Name, fields{{"spec", fields{{"trafficPolicy", ordered}}}})
		p.note = fmt.Sprintf(" (tls DISABLE for port %d: the application's TLS passes through as it is)", port)
		return p
	}
	return nil
}

// gatewayDRChoice is the DestinationRule the gateway workload w applies to host (the entry it
// uses for it), as why-missing's evaluation looks it up.
func gatewayDRChoice(snap *snapshot.Snapshot, w Workload, host string) *rules.DRChoice {
	view := RevisionView(snap, w.Revision)
	mc := ReadIstiodFlags(view, w.Revision).MeshConfig
	root := mc.GetRootNamespace()
	if root == "" {
		root = view.IstioNamespace
	}
	chosen, _ := rules.ServiceForProxy(model.Services(view, mc).Shared(host), w.Namespace)
	if chosen == nil {
		return nil
	}
	return model.DestinationRules(view, root, mc.GetDefaultDestinationRuleExportTo()).For(w.Namespace, w.Labels, chosen.Hostname, chosen.Namespace)
}

// originatingRoutes lists the VirtualServices whose http routes, bound to a server of a
// Gateway of workload w, send to the cluster (port, subset) of host: the TLS a DestinationRule
// originates on that cluster serves them (an HTTP server whose route goes to port 443), so
// disabling it there breaks them. Mirrors the gateway's route destinations
// (pilot/pkg/networking/core/gateway.go buildGatewayHTTPRouteConfig; rules.Bind) and the
// one-cluster-per-(port, subset) rule (cluster.go buildOutboundClusters).
func originatingRoutes(snap *snapshot.Snapshot, w Workload, host string, port uint32, subset string) []string {
	return gatewayRoutesTo(snap, w, rules.RouteHTTP, host, port, subset)
}

// gatewayRoutesTo lists the VirtualServices whose routes of type rt (rules.RouteHTTP,
// RouteTLS, RouteTCP), bound to a server of a Gateway of workload w, send to the cluster (port,
// subset) of host.
func gatewayRoutesTo(snap *snapshot.Snapshot, w Workload, rt, host string, port uint32, subset string) []string {
	view := RevisionView(snap, w.Revision)
	flags := ReadIstiodFlags(view, w.Revision)
	opt := rules.BindOptions{ProxyNamespace: w.Namespace, ProxyLabels: w.Labels, DefaultVSExportTo: flags.MeshConfig.GetDefaultVirtualServiceExportTo(), AllVS: view.VirtualServices}
	var out []string
	for _, gw := range gatewaysFor(view, w, flags.ScopeGWToNs.Value) {
		vses := model.VirtualServices(view, opt.DefaultVSExportTo).WithGateway(rules.GatewayName(gw))
		for i, s := range gw.Spec.Servers {
			if rules.ServerRouteType(s) != rt {
				continue
			}
			for _, vs := range vses {
				b := rules.Bind(gw, i, vs, opt)
				if !b.Bound() {
					continue
				}
				for _, d := range b.Dests {
					ref := "VirtualService " + vs.Namespace + "/" + vs.Name
					if d.Direct == 0 && !d.Idle && d.Port == port && d.Subset == subset && strings.EqualFold(d.Host, host) && !slices.Contains(out, ref) {
						out = append(out, ref)
					}
				}
			}
		}
	}
	return out
}

// originationSubsetFix: the fix when the TLS a passthrough route wraps a second time is also
// the origination routes of the gateway rely on: a subset of its own for the origination.
func originationSubsetFix(dr, mode string, port uint32, users []string) string {
	return fmt.Sprintf("Originate TLS in a subset of its own: %s's tls for port %d also originates TLS for the gateway's http routes of %s, so removing it there would send them in plaintext. Move that tls into a subset of DestinationRule %s (for example subsets: [{name: tls-origination, trafficPolicy: {portLevelSettings: [{port: {number: %d}, tls: {mode: %s, ...}}]}}], with the tls settings it has now), point those http routes at subset tls-origination, and leave the cluster the passthrough route uses without tls.",
		"DestinationRule "+dr, port, strings.Join(users, ", "), dr, port, mode)
}

// gatewayOriginationUsers: the egress gateways for which DestinationRule dr (the rule the
// gateway applies to host) originates TLS on port for http routes (originatingRoutes), as
// "gateway NS/NAME (VirtualService ...)", and the first such gateway's namespace. A sidecar that wraps an application's TLS twice with
// that rule should not see it; disabling its tls would break the gateway's origination.
func gatewayOriginationUsers(snap *snapshot.Snapshot, dr, host string, port uint32) ([]string, string) {
	var out []string
	ns := ""
	for _, w := range GatewayWorkloads(snap) {
		if ch := gatewayDRChoice(snap, w, host); ch == nil || ch.Ref() != dr {
			continue
		}
		if users := originatingRoutes(snap, w, host, port, ""); len(users) > 0 {
			out = append(out, fmt.Sprintf("gateway %s (%s)", w.Ref(), strings.Join(users, ", ")))
			if ns == "" {
				ns = w.Namespace
			}
		}
	}
	return out, ns
}

// sidecarScopeFix: the fix for a sidecar that applies a gateway's TLS origination rule to the
// application's TLS: keep the rule for the gateway only.
func sidecarScopeFix(dr string, port uint32, gwNs string, users []string) string {
	where := fmt.Sprintf("Put the rule in the gateway's namespace %s with exportTo [\".\"] and delete it here", gwNs)
	if ns, _, _ := strings.Cut(dr, "/"); ns == gwNs {
		where = fmt.Sprintf("Set exportTo [\".\"] on it (it is in the gateway's namespace %s)", gwNs)
	}
	return fmt.Sprintf("Keep the origination for the gateway only: DestinationRule %s's tls for port %d originates TLS for %s, so removing it would send those calls in plaintext. %s: other namespaces' sidecars then do not apply it. Or send these TLS calls through the gateway as well.",
		dr, port, strings.Join(users, "; "), where)
}

// selectorShadow is a DestinationRule of the sidecar's namespace for the Service s whose
// workloadSelector does not select the sidecar's pod (labels unknown count as not selected),
// when no rule of that namespace without a selector is there for the host: istiod's lookup stops
// at the proxy's namespace once it holds a rule for the host, so the pod gets no rule at all and
// the service's and root namespaces' rules are never read. nil otherwise.
//
// Mirrors istiod pilot/pkg/model/push_context.go destinationRule (the proxy's namespace first)
// and sidecar.go SidecarScope.DestinationRule (a selector rule applies to the pods it selects).
func selectorShadow(v SidecarView, drs *rules.DRLookup, view []*networkingv1.DestinationRule, s rules.Service) *networkingv1.DestinationRule {
	var shadow *networkingv1.DestinationRule
	for _, dr := range view {
		if dr.Namespace != v.Namespace || drs.Host(dr) != strings.ToLower(s.Hostname) {
			continue
		}
		sel := dr.Spec.GetWorkloadSelector().GetMatchLabels()
		if len(sel) == 0 || rules.LabelsSubsetOf(sel, v.Labels) {
			return nil // a rule there applies to the pod
		}
		if shadow == nil {
			shadow = dr
		}
	}
	return shadow
}

// definingRule is the first DestinationRule outside namespace skip for the Service s that
// defines subset, nil when none does.
func definingRule(drs *rules.DRLookup, view []*networkingv1.DestinationRule, s rules.Service, subset, skip string) *networkingv1.DestinationRule {
	for _, dr := range view {
		if dr.Namespace != skip && drs.Host(dr) == strings.ToLower(s.Hostname) && slices.ContainsFunc(dr.Spec.GetSubsets(), func(x *networking.Subset) bool { return x.GetName() == subset }) {
			return dr
		}
	}
	return nil
}

// unprivilegedContainerPort: for a gateway listener port below 1024, a port from 1024 up that no
// port of Service svc targets: port+8000 (Istio's charts map 80 to 8080 and 443 to 8443) when
// the pods declare it or declare no single other free port, else the one free container port
// they declare; 0 when port is 1024 or more.
//
// Mirrors istiod pilot/pkg/networking/core/gateway.go buildGatewayListeners (a pod marked
// unprivileged gets no listener below 1024) with resolvePorts (the targetPort is the listener).
func unprivilegedContainerPort(snap *snapshot.Snapshot, w Workload, svc *corev1.Service, port uint32) uint32 {
	if port >= 1024 {
		return 0
	}
	targeted := targetedPorts(snap, w, svc)
	var cands []uint32
	for k, n := range workloadNamedPorts(snap, w) {
		if _, pr, _ := strings.Cut(k, "/"); pr != "TCP" || n < 1024 || targeted[n] || (n >= 15000 && n < 15100) || slices.Contains(cands, n) {
			continue
		}
		cands = append(cands, n)
	}
	if slices.Contains(cands, port+8000) || !targeted[port+8000] && !slices.Contains(cands, port+8000) && len(cands) != 1 {
		// (declared or not: Envoy listens where istiod says, and container ports are
		// informational)
		return port + 8000
	}
	if len(cands) == 1 {
		return cands[0]
	}
	return 0
}
