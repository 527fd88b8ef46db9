package checks

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/kubectl-egress/kubectl-egress/pkg/model"
	"github.com/kubectl-egress/kubectl-egress/pkg/rules"
	"github.com/kubectl-egress/kubectl-egress/pkg/snapshot"
)

// VisibilitySchemaVersion identifies the JSON/YAML shape of a VisibilityReport.
const VisibilitySchemaVersion = "kubectl-egress.io/visibility/v1"

// Status condition types and reasons istiod writes for serviceEntryVisibility (seed 002).
const (
	ConditionVisibilityApplied = "istio.io/VisibilityApplied"
	ConditionWaypointBound     = "istio.io/WaypointBound"
	ReasonCrossNamespaceWP     = rules.WaypointCrossNamespace
	LabelUseWaypoint           = rules.LabelUseWaypoint
	LabelUseWaypointNamespace  = rules.LabelUseWaypointNamespace
)

// Visibility finding codes.
const (
	VisStatusDrift         = "VISIBILITY_STATUS_DRIFT"
	VisHiddenEverywhere    = "VISIBILITY_HIDES_FROM_EVERYONE"
	VisWaypointForbidden   = "CROSS_NAMESPACE_WAYPOINT_FORBIDDEN"
	VisRuleNeverMatches    = "VISIBILITY_RULE_NEVER_MATCHES"
	VisPolicyMatchesAll    = "VISIBILITY_POLICY_MATCHES_ALL"
	VisNotImported         = "NOT_IMPORTED_BY_SIDECAR_EGRESS_HOSTS"
	VisWaypointUnpublished = "WAYPOINT_ENTRY_NOT_PUBLISHED"
)

func init() {
	Catalog = append(Catalog,
		CatalogEntry{VisStatusDrift, LevelWarning, "", "The entry's istio.io/VisibilityApplied condition disagrees with the visibility the mesh config resolves to (stale status, or another istiod)."},
		CatalogEntry{VisHiddenEverywhere, LevelWarning, "", "The entry is hidden from every sidecar and gateway (NONE, or NAMESPACE capping an exportTo that excludes its own namespace)."},
		CatalogEntry{VisWaypointForbidden, LevelError, "", "A NAMESPACE-visibility entry is bound to a waypoint in another namespace; istiod refuses the binding (CrossNamespaceWaypointForbidden)."},
		CatalogEntry{VisRuleNeverMatches, LevelWarning, "", "A matchingRule has no matcher or an invalid namespaceSelector; it never matches (fail closed)."},
		CatalogEntry{VisNotImported, LevelWarning, "BlackHoleCluster/502", "The entry is exported to the namespace, but the Sidecar resource there does not import it (egress hosts): its proxies do not know the host (a Sidecar's egress hosts select among the services exported to its namespace; what they leave out is unknown there). Often intended (a Sidecar narrows egress on purpose); a fault when workloads there call the host."},
		CatalogEntry{VisWaypointUnpublished, LevelWarning, "", "A ServiceEntry names a waypoint (istio.io/use-waypoint on it or its namespace), but its serviceEntryVisibility is NONE: istiod does not publish it to ztunnel at all, so ambient clients' calls to its host go straight out, through no waypoint, and istiod writes no status condition that says so (istio/istio#60908)."},
		CatalogEntry{VisPolicyMatchesAll, LevelInfo, "", "A policy without matchingRules matches every ServiceEntry: later policies and defaultVisibility are never used."},
	)
}

// VisibilityReport is the answer of `kubectl egress visibility`.
type VisibilityReport struct {
	SchemaVersion string `json:"schemaVersion"`
	Source        string `json:"source"`
	// Configured is false when meshConfig.serviceEntryVisibility is absent: nothing changes.
	Configured        bool              `json:"configured"`
	DefaultVisibility string            `json:"defaultVisibility,omitempty"`
	ApplyToSidecars   bool              `json:"applyToSidecars"`
	AsNamespace       string            `json:"asNamespace,omitempty"`
	Entries           []VisibilityEntry `json:"entries"`
	// Findings about the mesh config itself.
	Findings []Finding `json:"findings,omitempty"`
}

// VisibilityEntry is one ServiceEntry's resolved visibility and what each data plane does.
type VisibilityEntry struct {
	Namespace string   `json:"namespace"`
	Name      string   `json:"name"`
	Hosts     []string `json:"hosts"`
	// Policy is "policies[i]", "defaultVisibility" or "not configured".
	Policy          string            `json:"policy"`
	Visibility      string            `json:"visibility"`
	NamespaceLabels map[string]string `json:"namespaceLabels,omitempty"`
	// ExportTo is the effective exportTo (declared or mesh default); SidecarExportTo what
	// sidecars and gateways use after the cap (equal unless applyToSidecars).
	ExportTo        []string `json:"exportTo"`
	SidecarExportTo []string `json:"sidecarExportTo"`
	// Sidecars describes the classic data plane: "capped to own namespace", "unchanged
	// (applyToSidecars false)", "hidden".
	Sidecars string `json:"sidecars"`
	// Ambient describes ztunnel/waypoints: "all namespaces", "own namespace only", "not published".
	Ambient string `json:"ambient"`
	// Waypoint is the waypoint ("namespace/name") istiod binds the entry to, for an entry that
	// asks for one (istio.io/use-waypoint on it or its namespace); WaypointRefused is the reason
	// of the istio.io/WaypointBound condition istiod writes when it refuses the binding.
	Waypoint        string `json:"waypoint,omitempty"`
	WaypointRefused string `json:"waypointRefused,omitempty"`
	// AmbientAddresses are, per host, the addresses ztunnel knows the host by (spec.addresses,
	// else the ones istiod allocated in the entry's status); a host without any is left out.
	AmbientAddresses map[string][]string `json:"ambientAddresses,omitempty"`
	// Status is the entry's VisibilityApplied condition reason ("" when absent).
	Status string `json:"status,omitempty"`
	// For AsNamespace: whether a sidecar/gateway and an ambient workload there get the entry,
	// and what happens instead when not.
	SidecarSees *bool `json:"sidecarSees,omitempty"`
	// SidecarPorts: the entry's ports a sidecar in AsNamespace gets when its Sidecar's egress
	// listeners (each with a port) keep only some of them; empty when it gets all or none.
	SidecarPorts []uint32  `json:"sidecarPorts,omitempty"`
	AmbientSees  *bool     `json:"ambientSees,omitempty"`
	Instead      string    `json:"instead,omitempty"`
	Findings     []Finding `json:"findings,omitempty"`
}

// VisibilityOptions selects entries: Host ("" = all), Namespace ("" = all), and the namespace
// of a workload to answer for (AsNamespace).
type VisibilityOptions struct {
	Host        string
	Namespace   string
	AsNamespace string
}

// Visibility resolves meshConfig.serviceEntryVisibility for every selected ServiceEntry: the
// policy that matched, the visibility, its effect on sidecars/gateways (exportTo capped only
// with applyToSidecars, never widened) and on ambient (always honoured), the status condition
// compared with the prediction, cross-namespace waypoint bindings istiod refuses, and for
// --as-namespace what a workload there gets and, when hidden, what happens instead (hidden
// means absent: DNS falls through, traffic is passthrough, a PUBLIC entry for the same host
// serves outsiders). Pure function of the snapshot (seed 002; istiod
// pilot/pkg/model/serviceentry_visibility.go, push_context.go serviceExportTo,
// serviceentry/conversion.go, ambient/waypoints.go fetchWaypointForService).
func Visibility(snap *snapshot.Snapshot, opt VisibilityOptions) *VisibilityReport {
	flags := ReadIstiodFlags(snap, snap.Revision)
	mc := flags.MeshConfig
	cfg := mc.GetServiceEntryVisibility()
	rep := &VisibilityReport{SchemaVersion: VisibilitySchemaVersion, Source: snap.Source, Configured: cfg != nil,
		ApplyToSidecars: cfg.GetApplyToSidecars(), AsNamespace: opt.AsNamespace, Entries: []VisibilityEntry{}}
	if cfg != nil {
		rep.DefaultVisibility = strings.TrimPrefix(cfg.GetDefaultVisibility().String(), "VISIBILITY_")
		if rep.DefaultVisibility == "UNSPECIFIED" {
			rep.DefaultVisibility = rules.VisibilityPublic
		}
	}
	for i, p := range cfg.GetPolicies() {
		if len(p.GetMatchingRules()) == 0 && i < len(cfg.GetPolicies())-1 {
			rep.Findings = append(rep.Findings, finding(VisPolicyMatchesAll, "meshConfig.serviceEntryVisibility", fmt.Sprintf("policies[%d] has no matchingRules: it matches every ServiceEntry, so policies after it and defaultVisibility are never used", i), ""))
		} else if len(p.GetMatchingRules()) == 0 {
			rep.Findings = append(rep.Findings, finding(VisPolicyMatchesAll, "meshConfig.serviceEntryVisibility", fmt.Sprintf("policies[%d] has no matchingRules: it matches every ServiceEntry, so defaultVisibility is never used", i), ""))
		}
	}
	view := RevisionView(snap, snap.Revision)
	registry := model.Services(view, mc)
	vsIndex := model.VirtualServices(view, mc.GetDefaultVirtualServiceExportTo())
	var sidecarDests map[string]bool
	host := rules.NormalizeHost(opt.Host)
	var sidecarFor *SidecarView
	nsRev := snap.Revision
	nsAmbient := false
	if opt.AsNamespace != "" {
		nsAmbient, _ = ambientClient(snap, opt.AsNamespace, nil)
		nsRev = workloadRevision(snap, opt.AsNamespace, nil)
		if sv := BuildSidecarView(snap, opt.AsNamespace, nil); sv.Scope.Sidecar != nil {
			sidecarFor = &sv
		}
	}
	entries := view.ServiceEntries
	var nsView *snapshot.Snapshot
	if opt.AsNamespace != "" && model.RevKey(nsRev) != model.RevKey(snap.Revision) {
		// The namespace's sidecars are served by another revision: its entries are listed too
		// (blind audit 33 U01: an entry labelled for the namespace's revision was missing).
		nsView = RevisionView(snap, nsRev)
		for _, se := range nsView.ServiceEntries {
			if !slices.Contains(entries, se) {
				entries = append(slices.Clip(entries), se)
			}
		}
	}
	for _, se := range entries {
		if opt.Namespace != "" && se.Namespace != opt.Namespace {
			continue
		}
		if host != "" && !slices.ContainsFunc(se.Spec.Hosts, func(h string) bool { return rules.NormalizeHost(h) == host }) {
			continue
		}
		ss := registry.ForEntry(se)
		if len(ss) == 0 && nsView != nil {
			ss = model.Services(nsView, mc).ForEntry(se)
		}
		if len(ss) == 0 {
			continue
		}
		s := ss[0]
		v := s.Visibility
		e := VisibilityEntry{Namespace: se.Namespace, Name: se.Name, Hosts: se.Spec.Hosts, Visibility: v.Visibility,
			ExportTo: s.UncappedExportTo, SidecarExportTo: s.ExportTo}
		switch {
		case !v.Configured:
			e.Policy = "not configured"
		case v.Policy >= 0:
			e.Policy = fmt.Sprintf("policies[%d]", v.Policy)
		default:
			e.Policy = "defaultVisibility"
		}
		if v.Configured {
			e.NamespaceLabels = NamespaceLabels(snap, se.Namespace)
		}
		ref := "ServiceEntry " + se.Namespace + "/" + se.Name
		for _, p := range v.Problems {
			e.Findings = append(e.Findings, finding(VisRuleNeverMatches, "meshConfig.serviceEntryVisibility", p, ""))
		}
		switch {
		case !v.Configured || !v.ApplyToSidecars:
			e.Sidecars = "unchanged (exportTo only; applyToSidecars is false)"
		case slices.Contains(s.ExportTo, rules.ExportNone):
			e.Sidecars = "hidden from every sidecar and gateway"
		case slices.Equal(s.ExportTo, s.UncappedExportTo):
			e.Sidecars = "unchanged (PUBLIC)"
		default:
			e.Sidecars = "capped to its own namespace"
		}
		switch v.Visibility {
		case rules.VisibilityNone:
			e.Ambient = "not published (no status condition is written: istio/istio#60908)"
		case rules.VisibilityNamespace:
			e.Ambient = "own namespace only"
		default:
			e.Ambient = "all namespaces"
		}
		if v.Configured && v.ApplyToSidecars && slices.Contains(s.ExportTo, rules.ExportNone) && !slices.Contains(s.UncappedExportTo, rules.ExportNone) {
			e.Findings = append(e.Findings, finding(VisHiddenEverywhere, ref, fmt.Sprintf("%s resolves to %s and applyToSidecars caps exportTo %s to [\"~\"]: no sidecar or gateway gets it.", ref, v.Visibility, fmtList(s.UncappedExportTo)), ""))
		}
		// Status condition.
		for _, c := range se.Status.Conditions {
			if c.GetType() == ConditionVisibilityApplied {
				e.Status = c.GetReason()
			}
		}
		want := ""
		if v.Configured {
			switch v.Visibility {
			case rules.VisibilityPublic:
				want = "Public"
			case rules.VisibilityNamespace:
				want = "Namespace"
			}
		}
		if e.Status != "" && e.Status != want {
			msg := fmt.Sprintf("%s has condition %s reason %s, but the mesh config resolves it to %s", ref, ConditionVisibilityApplied, e.Status, v.Visibility)
			if !v.Configured {
				msg = fmt.Sprintf("%s still carries %s reason %s although serviceEntryVisibility is not configured", ref, ConditionVisibilityApplied, e.Status)
			}
			e.Findings = append(e.Findings, finding(VisStatusDrift, ref, msg+" (status written by ambient istiod only: PILOT_ENABLE_AMBIENT and AMBIENT_ENABLE_STATUS).", ""))
		}
		// Waypoint binding (ambient): every refusal istiod reports, and a bound entry ztunnel
		// cannot recognise calls to. A NONE entry is not published to ambient at all.
		if v.Visibility == rules.VisibilityNone {
			// A NONE entry is not published to ztunnel: a waypoint it names is never on its
			// calls' path, and no condition says so (services.go serviceEntriesInfo; blind
			// audit 35 A10).
			if b := waypointBinding(snap, view, se, rules.VisibilityPublic); b.Asked && !b.OptedOut && !b.Managed {
				e.Findings = append(e.Findings, finding(VisWaypointUnpublished, ref, fmt.Sprintf("%s names waypoint %s (label %s on the %s), but its serviceEntryVisibility is NONE: istiod does not publish it to ztunnel, so ambient clients' calls to %s bypass the waypoint, and no status condition says so.", ref, b.Waypoint, rules.LabelUseWaypoint, strings.ToLower(b.From), strings.Join(se.Spec.Hosts, ", ")),
					fmt.Sprintf("Give %s the visibility PUBLIC or NAMESPACE (a meshConfig.serviceEntryVisibility policy that matches it before the one that makes it NONE), or remove the waypoint label if the entry is meant for no one.", ref)))
			}
		}
		if v.Visibility != rules.VisibilityNone {
			b := waypointBinding(snap, view, se, v.Visibility)
			switch {
			case !b.Asked:
			case b.Accepted && b.NotReady:
				e.WaypointRefused = rules.WaypointNotReady
			case b.Accepted:
				e.Waypoint = b.Waypoint.String()
			default:
				e.WaypointRefused = b.Reason
			}
			for _, x := range ss {
				if addrs, _, _ := rules.AmbientAddresses(se, x.Hostname, flags.IPAutoallocateOn()); len(addrs) > 0 {
					if e.AmbientAddresses == nil {
						e.AmbientAddresses = map[string][]string{}
					}
					e.AmbientAddresses[x.Hostname] = addrs
				}
			}
			fs := []*Finding{bindingFinding(b, se, snap.GatewayAPIUnread), statusAddressFinding(snap, b), bindingStatusFinding(snap, b, se), waypointAnnotationFinding(snap, b, se), waypointIgnoredRoutes(snap, b, se)}
			for _, x := range ss {
				fs = append(fs, noAddressFinding(b, se, x.Hostname, flags.IPAutoallocateOn()))
			}
			if b.Asked && b.Accepted {
				applying, _, _ := routesOnEntry(snap, se, 0, b.Waypoint)
				for _, f := range waypointBackendsUndeclared(snap, view, flags, applying) {
					fs = append(fs, &f)
				}
			}
			for _, f := range fs {
				if f != nil {
					e.Findings = append(e.Findings, *f)
				}
			}
		}
		if opt.AsNamespace != "" {
			side := rules.ServiceVisible(se.Namespace, s.ExportTo, opt.AsNamespace)
			if !side && opt.AsNamespace == se.Namespace && meshRoutesTo(vsIndex, s, se.Namespace) &&
				noOtherVisible(registry, s.Hostname, se.Namespace) && firstInNamespace(registry, s.Hostname, se.Namespace) == s.Ref() {
				// istiod's default sidecar scope imports a VirtualService destination found in
				// the proxy's own namespace without a visibility check (pilot/pkg/model/sidecar.go
				// collectImportedServices; istio-semantics R2.2 quirk).
				side = true
				e.Sidecars += "; sidecars in " + se.Namespace + " still get it: a VirtualService they use routes to it (istiod skips the visibility check for destinations in the proxy's own namespace)"
			}
			if side && !model.InRevision(se.Labels, nsRev) {
				// The namespace's sidecars are served by an istiod revision that does not read
				// the entry (its istio.io/rev label names another: model.InRevision, istiod
				// LabelsInRevision); exportTo does not matter there (blind audit 33 U01v).
				side = false
				e.Sidecars += fmt.Sprintf("; sidecars in %s are served by istiod revision %s, which does not read this entry (labelled istio.io/rev=%s): remove the label for every revision to read it", opt.AsNamespace, orDefault(nsRev), se.Labels[RevisionLabel])
			}
			if sidecarFor != nil && sidecarDests == nil {
				sidecarDests = sidecarDestinationHosts(sidecarFor)
			}
			if held, ok := heldInstead(sidecarFor, s); side && ok {
				// The namespace's sidecars hold another declaration of the host (one per host
				// name, sidecar.go appendSidecarServices) and istiod does not merge this one
				// into it: DUPLICATE_HOST_VISIBLE and the traced calls say so; importing it
				// would change nothing.
				side = false
				e.Sidecars += fmt.Sprintf("; sidecars in %s use %s for %s instead, and ignore this entry (%s)", opt.AsNamespace, held.Ref(), s.Hostname, rules.NotMergedReason(held, s))
			} else if side && sidecarFor != nil && nsAmbient {
				// (an ambient namespace: its workloads have no sidecar, and the Sidecar
				// resource does not apply to them; blind audit 35 A14)
			} else if side && sidecarFor != nil && !importedBySidecar(sidecarFor, sidecarDests, s) {
				// A Sidecar resource narrows what the namespace's proxies import (its egress
				// hosts), whatever exportTo allows (pilot/pkg/model/sidecar.go selectServices).
				side = false
				sc := sidecarFor.Scope
				fix := fmt.Sprintf("add %q (or %q) to the egress hosts of Sidecar %s", se.Namespace+"/"+s.Hostname, se.Namespace+"/*", sc.Ref())
				why := "does not import it"
				if x, _ := sidecarExclusion(*sidecarFor, se.Namespace, s.Hostname); x != "" {
					// an exclusion removes it whatever the list imports (blind audit 58 f6-02)
					why = fmt.Sprintf("excludes it with %q", x)
					fix = fmt.Sprintf("remove (or narrow) the exclusion %q from the egress hosts of Sidecar %s, if these proxies are to reach %s", x, sc.Ref(), s.Hostname)
				}
				e.Findings = append(e.Findings, finding(VisNotImported, "Sidecar "+sc.Ref(),
					fmt.Sprintf("%s is exported to %s, but Sidecar %s (egress hosts %s) %s: the host is unknown to proxies in %s%s.", ref, fmtList(s.ExportTo), sc.Ref(), fmtList(egressHosts(sc)), why, opt.AsNamespace, unknownHostFate(sc)),
					fix))
			} else if side && sidecarFor != nil {
				if kept, all := sidecarKeptPorts(sidecarFor, sidecarDests, s); len(all) > 0 && len(kept) == 0 {
					// Every egress listener has a port and the entry declares none of them.
					side = false
					sc := sidecarFor.Scope
					lps, _ := portedEgress(sc.Sidecar)
					e.Findings = append(e.Findings, finding(VisNotImported, "Sidecar "+sc.Ref(),
						fmt.Sprintf("%s is exported to %s, but the egress listeners of Sidecar %s have ports (%s) and the entry declares none of them (%s): a listener with a port imports only that port of a service, so the host is unknown to proxies in %s.", ref, fmtList(s.ExportTo), sc.Ref(), joinPorts(lps), joinPorts(all), opt.AsNamespace),
						fmt.Sprintf("add an egress listener to Sidecar %s for port %d (or one without a port) whose hosts include %q", sc.Ref(), all[0], se.Namespace+"/"+s.Hostname)))
				} else if len(kept) < len(all) {
					e.SidecarPorts = kept
					e.Sidecars += fmt.Sprintf("; in %s only port %s: the egress listeners of Sidecar %s have ports, and each imports only its own port", opt.AsNamespace, joinPorts(kept), sidecarFor.Scope.Ref())
				}
			}
			amb := v.Visibility == rules.VisibilityPublic || (v.Visibility == rules.VisibilityNamespace && se.Namespace == opt.AsNamespace)
			e.SidecarSees, e.AmbientSees = &side, &amb
			if nsAmbient {
				// The namespace's workloads are ambient: what ztunnel sees decides, not
				// exportTo, the Sidecar or REGISTRY_ONLY (blind audit 35 A13, A15).
				if !amb {
					e.Instead = fmt.Sprintf("%s is ambient: ztunnel does not know this entry there, so the calls go to %s's own addresses, through no waypoint (REGISTRY_ONLY and Sidecar resources do not apply to ambient workloads)", opt.AsNamespace, s.Hostname)
				}
			} else if !side || !amb {
				mode := "ALLOW_ANY" // istiod's default mesh config
				if p := mc.GetOutboundTrafficPolicy(); p != nil {
					mode = p.GetMode().String()
				}
				e.Instead = instead(registry, se.Namespace, se.Name, s.Hostname, opt.AsNamespace, mode)
			}
		}
		rep.Entries = append(rep.Entries, e)
	}
	sort.Slice(rep.Entries, func(i, j int) bool {
		a, b := rep.Entries[i], rep.Entries[j]
		return a.Namespace+"/"+a.Name < b.Namespace+"/"+b.Name
	})
	return rep
}

func finding(code, resource, msg, fix string) Finding {
	lvl := LevelWarning
	if c, ok := Lookup(code); ok {
		lvl = c.Level
	}
	return Finding{Code: code, Level: lvl, Resource: resource, Message: msg, Fix: fix}
}

// instead says what a workload in ns gets for host when this entry is hidden from it.
func instead(registry *model.Registry, seNs, seName, host, ns, outboundMode string) string {
	services := registry.ForHost(host)
	chosen, _ := rules.ServiceForProxy(services, ns)
	if chosen != nil && !(chosen.Namespace == seNs && chosen.Name == seName) {
		return fmt.Sprintf("hidden means absent, not blocked: %s (visible in %s) serves %s there instead", chosen.Ref(), ns, host)
	}
	fallback := "traffic to the entry's addresses is passed through (PassthroughCluster, ALLOW_ANY)"
	if strings.Contains(outboundMode, "REGISTRY_ONLY") {
		fallback = "traffic goes to BlackHoleCluster (REGISTRY_ONLY): 502 for HTTP, reset for TCP"
	}
	return "hidden means absent, not blocked: DNS for " + host + " falls through to the upstream resolver and " + fallback
}

// heldInstead: the declaration of s's host that the sidecars of v hold when it is another one
// and s is not merged into it.
func heldInstead(v *SidecarView, s rules.Service) (rules.Service, bool) {
	if v == nil {
		return rules.Service{}, false
	}
	held, ok := v.Outbound.ScopeService(s.Hostname)
	if !ok || held.Ref() == s.Ref() || slices.Contains(held.MergedFrom, s.Ref()) {
		return rules.Service{}, false
	}
	return held, true
}

// importedBySidecar: the Sidecar's egress listeners import the entry, or a VirtualService they
// import routes to its host (collectImportedServices adds such destinations to CDS); dests are
// those hosts (sidecarDestinationHosts).
func importedBySidecar(v *SidecarView, dests map[string]bool, s rules.Service) bool {
	for _, x := range v.Outbound.ImportedForHost(s.Hostname) {
		if x.Ref() == s.Ref() {
			return true
		}
	}
	return dests[strings.ToLower(s.Hostname)]
}

// sidecarKeptPorts: the ports of s (UDP left out: no cluster) a proxy under v's Sidecar gets,
// and all of them. An egress listener with a port keeps only that port of each service it
// imports, through its hosts or through the destinations of the VirtualServices it imports
// (mirrors istiod pilot/pkg/model/sidecar.go serviceMatchingListenerPort, used by
// matchingService and collectImportedServices); a listener without a port keeps every port.
func sidecarKeptPorts(v *SidecarView, dests map[string]bool, s rules.Service) (kept, all []uint32) {
	for _, p := range s.Ports {
		if p.Protocol != rules.ProtoUDP {
			all = append(all, p.Number)
		}
	}
	listenerPorts, ported := portedEgress(v.Scope.Sidecar)
	if !ported {
		return all, all
	}
	keep := map[uint32]bool{}
	if x, ok := v.Outbound.ScopeService(s.Hostname); ok && x.Ref() == s.Ref() {
		// the sidecar's service for the host, with the ports of every listener merged
		// (appendSidecarServices)
		for _, p := range x.Ports {
			keep[p.Number] = true
		}
	}
	for _, x := range v.Outbound.ImportedForHost(s.Hostname) {
		if x.Ref() == s.Ref() {
			for _, p := range x.Ports {
				keep[p.Number] = true
			}
		}
	}
	if dests[strings.ToLower(s.Hostname)] {
		for _, p := range listenerPorts {
			keep[p] = true
		}
	}
	for _, p := range all {
		if keep[p] {
			kept = append(kept, p)
		}
	}
	return kept, all
}

func joinPorts(ps []uint32) string {
	var out []string
	for _, p := range ps {
		out = append(out, fmt.Sprint(p))
	}
	return strings.Join(out, ", ")
}

// sidecarDestinationHosts returns the destination hosts (lower-case) of the VirtualServices the
// sidecar's egress listeners import (delegates not followed).
func sidecarDestinationHosts(v *SidecarView) map[string]bool {
	out := map[string]bool{}
	for _, vs := range v.Outbound.VirtualServices() {
		dests, _ := rules.MergedRoutes(vs, nil, nil)
		for _, d := range dests {
			out[strings.ToLower(d.Host)] = true
		}
	}
	return out
}

func egressHosts(sc rules.SidecarScope) []string {
	var out []string
	for _, e := range sc.Egress {
		out = append(out, e.Hosts...)
	}
	return out
}

// noOtherVisible: no other entry for host is visible in ns (the services imported first win the
// hostname de-duplication, pilot/pkg/model/sidecar.go appendSidecarServices).
func noOtherVisible(registry *model.Registry, host, ns string) bool {
	chosen, _ := rules.ServiceForProxy(registry.ForHost(host), ns)
	return chosen == nil
}

// firstInNamespace returns the oldest entry in ns declaring host: the one istiod's
// ServiceIndex.HostnameAndNamespace holds for (host, ns).
func firstInNamespace(registry *model.Registry, host, ns string) string {
	for _, s := range registry.ForHost(host) { // sorted oldest first
		if s.Namespace == ns {
			return s.Ref()
		}
	}
	return ""
}

// meshRoutesTo reports whether a VirtualService that sidecars in ns use (gateways include "mesh",
// exported to ns) routes to the service's host on one of its ports (a destination without a
// port matches every port).
//
// Mirrors istiod pilot/pkg/model/sidecar.go collectImportedServices and
// serviceMatchingVirtualServicePorts (VirtualService destinations of the default sidecar scope).
func meshRoutesTo(vsIndex *model.VirtualServiceIndex, svc rules.Service, ns string) bool {
	host := svc.Hostname
	vsExport := vsIndex.DefaultExportTo()
	for _, vs := range vsIndex.RoutingTo(host) {
		if !slices.Contains(rules.VSGateways(vs), rules.MeshGateway) {
			continue
		}
		if !rules.VirtualServiceVisible(vs.Namespace, rules.EffectiveExportTo(vs.Spec.ExportTo, vsExport), ns) {
			continue
		}
		dests, _ := vsIndex.Merged(vs)
		for _, d := range dests {
			if !strings.EqualFold(d.Host, host) {
				continue
			}
			if d.Port == 0 || slices.ContainsFunc(svc.Ports, func(p rules.ServicePort) bool { return p.Number == d.Port }) {
				return true
			}
		}
	}
	return false
}

// unknownHostFate says what becomes of a call to a host the sidecars of scope sc do not know
// (the catch-alls: httproute.go buildCatchAllVirtualHost, listener_builder.go
// buildOutboundCatchAllNetworkFiltersOnly), naming where the policy comes from.
func unknownHostFate(sc rules.SidecarScope) string {
	from := sc.PolicyFrom
	switch {
	case sc.OutboundTrafficPolicy == rules.RegistryOnly:
		return fmt.Sprintf(", and outboundTrafficPolicy REGISTRY_ONLY (%s) answers their calls to it with 502 (TCP: the connection is closed)", from)
	case sc.EgressProxy != "":
		return fmt.Sprintf(", so their calls to it go to the egressProxy of Sidecar %s (%s)", sc.Ref(), sc.EgressProxy)
	}
	return ", so their calls to it leave through PassthroughCluster, without the entry's routes, DestinationRule or egress gateway"
}
