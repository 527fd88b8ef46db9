package checks

import (
	"fmt"
	networkingapi "istio.io/api/networking/v1alpha3"
	"slices"
	"sort"
	"strconv"
	"strings"

	networkingv1 "istio.io/client-go/pkg/apis/networking/v1"

	"github.com/kubectl-egress/kubectl-egress/pkg/model"
	"github.com/kubectl-egress/kubectl-egress/pkg/rules"
	"github.com/kubectl-egress/kubectl-egress/pkg/snapshot"
)

// AuditSchemaVersion identifies the JSON/YAML shape of an AuditReport.
const AuditSchemaVersion = "kubectl-egress.io/export-audit/v1"

// Export-audit finding codes (catalogued in Catalog).
const (
	AuditSENotExportedToGateway = "SE_NOT_EXPORTED_TO_GATEWAY_NAMESPACE"
	AuditVSNotExportedToGateway = "VS_NOT_EXPORTED_TO_GATEWAY_NAMESPACE"
	AuditSENotExportedToClient  = "SE_NOT_EXPORTED_TO_CLIENT_NAMESPACE"
	AuditDRNotOnLookupPath      = "DR_NOT_ON_LOOKUP_PATH"
	AuditSubsetUndefined        = "SUBSET_NOT_DEFINED_ANYWHERE"
	AuditDuplicateHost          = "DUPLICATE_HOST_VISIBLE"
	AuditDRShadowed             = "DR_SHADOWED"
	AuditSidecarImportHidden    = "SE_NOT_EXPORTED_TO_SIDECAR_IMPORTER"
	AuditSidecarImportUnknown   = "SIDECAR_IMPORTS_UNDECLARED_HOST"
	AuditSvcNotExportedToClient = "SERVICE_NOT_EXPORTED_TO_CLIENT_NAMESPACE"
	AuditSvcNotExportedToGW     = "SERVICE_NOT_EXPORTED_TO_GATEWAY_NAMESPACE"
	AuditSEExportedEverywhere   = "SE_EXPORTED_BEYOND_USE"
	AuditDRNotExportedToClient  = "DR_NOT_EXPORTED_TO_CLIENT_NAMESPACE"
	AuditDRTLSNotExportedToGW   = "DR_TLS_NOT_EXPORTED_TO_GATEWAY_NAMESPACE"
	AuditVSMeshNoClient         = "VS_MESH_ROUTES_EXPORTED_TO_NO_CLIENT"
	AuditDelegateNotExported    = "VS_DELEGATE_NOT_EXPORTED_TO_ROOT_NAMESPACE"
)

func init() {
	Catalog = append(Catalog,
		CatalogEntry{AuditSENotExportedToGateway, LevelError, "NC", "A ServiceEntry is the destination of a route bound to a gateway, but its exportTo excludes the gateway pod's namespace, where istiod decides what the gateway sees."},
		CatalogEntry{AuditVSNotExportedToGateway, LevelError, "NR", "A VirtualService lists a Gateway, but its exportTo excludes the namespace of the gateway pods, where it is evaluated."},
		CatalogEntry{AuditDelegateNotExported, LevelError, "NR", "A VirtualService bound to a gateway delegates http routes to a VirtualService whose exportTo leaves out the root's namespace: istiod drops the delegating route, so the gateway gets no route from it."},
		CatalogEntry{AuditSENotExportedToClient, LevelError, "NC", "A mesh route visible in a client namespace targets a host no entry exports to that namespace."},
		CatalogEntry{AuditDRNotOnLookupPath, LevelError, "NC", "A route needs a subset that only a DestinationRule off the proxy's lookup path defines (istiod looks in the proxy's namespace, then the service's, then the root namespace; exportTo does not change that)."},
		CatalogEntry{AuditSubsetUndefined, LevelError, "NC", "A route names a subset that the DestinationRule the proxy applies for the host does not define: no rule defines it, or a rule of the proxy's own namespace hides the one that does."},
		CatalogEntry{AuditDRNotExportedToClient, LevelError, "NC", "A route needs a subset that a DestinationRule on the proxy's lookup path (the service's namespace or the root namespace) defines, but the rule's exportTo leaves the proxy's namespace out."},
		CatalogEntry{AuditDRTLSNotExportedToGW, LevelError, "", "A gateway's route sends plaintext to a port the entry declares HTTPS or TLS, and the DestinationRule that would originate TLS there sits on the gateway's lookup path (the host's or the root namespace) but its exportTo leaves the gateway's namespace out: the external server gets plaintext (400, or a reset)."},
		CatalogEntry{AuditDuplicateHost, LevelWarning, "", "Two or more entries for one host are visible in one namespace; istiod uses one of them."},
		CatalogEntry{AuditSidecarImportHidden, LevelError, "NC/BlackHoleCluster", "A Sidecar's egress hosts import a host from a namespace, but no entry for it there is exported to the Sidecar's namespace: the import brings nothing (a Sidecar only selects among the services already exported to its namespace)."},
		CatalogEntry{AuditSidecarImportUnknown, LevelWarning, "", "A Sidecar's egress hosts name a host that no ServiceEntry or Service in that namespace declares (the namespace part selects the entry's namespace, not the host's domain)."},
		CatalogEntry{AuditVSMeshNoClient, LevelWarning, "", "A VirtualService that sends a host through an egress gateway binds the mesh, but its exportTo reaches no namespace whose pods run sidecars (it leaves out its own, or its own runs none): no sidecar applies its mesh routes, and the calls go straight out, bypassing the gateway."},
		CatalogEntry{AuditSvcNotExportedToClient, LevelError, "NC", "A mesh route visible in a client namespace targets a Kubernetes Service (the egress gateway's own, for example) that its networking.istio.io/exportTo annotation or meshConfig.defaultServiceExportTo hides from that namespace."},
		CatalogEntry{AuditSvcNotExportedToGW, LevelError, "NC", "A route bound to a gateway targets a Kubernetes Service that its networking.istio.io/exportTo annotation or meshConfig.defaultServiceExportTo hides from the gateway pod's namespace."},
		CatalogEntry{AuditSEExportedEverywhere, LevelInfo, "", "A ServiceEntry is exported to every namespace while the mesh restricts egress (REGISTRY_ONLY, or Sidecars that import only some hosts); exporting it only to the namespaces that use it keeps it out of the others' registries."},
		CatalogEntry{AuditDRShadowed, LevelInfo, "", "A DestinationRule in the proxy's namespace hides the service namespace's rule for the same host."},
	)
}

// AuditReport is the answer of `kubectl egress export-audit`.
type AuditReport struct {
	SchemaVersion string `json:"schemaVersion"`
	Source        string `json:"source"`
	// Scope says what was audited, in words: "all namespaces", or "namespace team-a" with where
	// the namespace came from (-n, or the kubeconfig context's namespace).
	Scope string `json:"scope,omitempty"`
	// FindingsElsewhere counts the findings an audit of every namespace has beyond this one's
	// (only when the audit is limited to a namespace).
	FindingsElsewhere int             `json:"findingsElsewhere,omitempty"`
	Resources         []AuditResource `json:"resources"`
	Findings          []AuditFinding  `json:"findings"`
	// Unknown maps a kind the audit needs to why it could not be read; the audit is then
	// incomplete (exit 2).
	Unknown map[string]string `json:"unknown,omitempty"`
}

// AuditResource is one resource with its effective export set.
type AuditResource struct {
	Kind      string   `json:"kind"`
	Namespace string   `json:"namespace"`
	Name      string   `json:"name"`
	ExportTo  []string `json:"exportTo"`
	// NeededIn lists the namespaces whose proxies need the resource.
	NeededIn []string `json:"neededIn,omitempty"`
}

// AuditFinding is one gap, over-exposure or shadowing.
type AuditFinding struct {
	Code      string   `json:"code"`
	Level     string   `json:"level"`
	Kind      string   `json:"kind"`
	Namespace string   `json:"namespace"`
	Name      string   `json:"name"`
	ExportTo  []string `json:"exportTo"`
	NeededIn  []string `json:"neededIn,omitempty"`
	MissingIn []string `json:"missingIn,omitempty"`
	// Impact in the seed's §5 terms (503 NC at the gateway, 404 NR, ...), naming the proxy.
	Impact  string `json:"impact"`
	Message string `json:"message"`
	Fix     string `json:"fix,omitempty"`
	// Field is the field of the resource the finding is about, when the code's default does not
	// say it (a subset named in a tls route, not an http one).
	Field string `json:"field,omitempty"`
	// Entry is the ServiceEntry ("namespace/name") a finding on the mesh ConfigMap is about
	// (serviceEntryVisibility caps its exportTo), "" otherwise.
	Entry string `json:"entry,omitempty"`
	// widen writes Fix when the report is written, for findings whose fix widens an exportTo:
	// one change adding every namespace of MissingIn (the namespaces come in one by one).
	widen func(missing []string) string
	// neededTails, missingTails: further namespaces of NeededIn and MissingIn, shared lists never
	// written to (export-audit's replay for alike client namespaces adds them by reference);
	// added when the report is written.
	neededTails, missingTails [][]string
}

// Ref returns "Kind namespace/name".
func (f AuditFinding) Ref() string { return f.Kind + " " + f.Namespace + "/" + f.Name }

// AuditOptions restricts the audit to findings about resources in Namespace ("" = all).
type AuditOptions struct {
	Namespace string
	// unshared works every client namespace's route destinations out on its own instead of
	// replaying what a namespace that sees the destination alike recorded (exportaudit_share.go):
	// slower, the same report. Tests compare the two.
	unshared bool
	// noResourceNeeds leaves the resources' NeededIn empty and the findings' NeededIn partial
	// (preflight reads only the resources' count and the findings' other fields; on a large
	// mesh the lists are namespaces × resources names).
	noResourceNeeds bool
}

// ExportAuditUnshared is ExportAudit with every client namespace's route destinations worked
// out on its own (nothing shared between namespaces): the reference the shared audit is tested
// against (hack/conformance TestConformancePreflightSharing). Slower; the same report.
func ExportAuditUnshared(snap *snapshot.Snapshot, opt AuditOptions) *AuditReport {
	opt.unshared = true
	return ExportAudit(snap, opt)
}

// ClientNamespaces returns namespaces whose pods run sidecars: labelled istio-injection=enabled,
// or istio.io/rev without an istio-injection label (the injection webhook's namespace selectors:
// sidecarInjected).
func ClientNamespaces(snap *snapshot.Snapshot) []string {
	return slices.Clone(snap.Derived(clientNamespacesKey{}, func() any { return clientNamespaces(snap) }).([]string))
}

type clientNamespacesKey struct{}

func clientNamespaces(snap *snapshot.Snapshot) []string {
	var out []string
	for _, n := range snap.Namespaces {
		if sidecarInjected(n.Labels, nil, nil) {
			out = append(out, n.Name)
		}
	}
	sort.Strings(out)
	return out
}

type auditor struct {
	snap     *snapshot.Snapshot
	flags    IstiodFlags
	vsExport []string
	drs      *rules.DRLookup
	vsIndex  *model.VirtualServiceIndex
	registry *model.Registry
	rootNs   string
	svcOpt   rules.ServiceOptions
	findings map[string]*AuditFinding
	// needs maps a resource ref to the namespaces that need it (repeats removed when the report
	// is written).
	needs map[resKey]*[]string
	// everyClient: needs lists that also hold every client namespace (clients), added when
	// the list is read (a mesh route exported everywhere is needed in each: on a large mesh
	// that is namespaces × routes names to copy, which preflight never reads).
	everyClient map[*[]string]bool
	clients     []string
	// tails: further namespaces of a needs list, shared slices that are never written to
	// (clientsShared appends the alike namespaces of a destination to each list it needs by
	// reference, not by copy); neededIn adds them.
	tails map[*[]string][][]string
	// noResourceNeeds: the report's resources, and the findings' NeededIn, name no namespaces
	// (preflight counts the resources and reads the findings' other fields only).
	noResourceNeeds bool
	// share replays a client destination's effects for namespaces that see it alike
	// (exportaudit_share.go); nil when unshared.
	share *auditShare
	// meshRoutes: the mesh VirtualServices and their sidecar destinations (built on first use).
	meshRoutes *[]meshRoute
}

// ExportAudit checks exportTo across ServiceEntries, VirtualServices and DestinationRules
// against the namespaces of the proxies that need them: every gateway workload's namespace for
// the VirtualServices listing its Gateways, their destinations and referenced subsets; every
// client namespace for the mesh routes it sees, their destinations and subsets. It also
// reports hosts with several visible entries and DestinationRules shadowed in a proxy's
// namespace. Pure function of the snapshot (seed §4.2, §2.5).
func ExportAudit(snap *snapshot.Snapshot, opt AuditOptions) *AuditReport {
	flags := ReadIstiodFlags(snap, snap.Revision)
	snap = RevisionView(snap, snap.Revision)
	mc := flags.MeshConfig
	a := &auditor{snap: snap, flags: flags, vsExport: mc.GetDefaultVirtualServiceExportTo(), rootNs: mc.GetRootNamespace(),
		svcOpt: ServiceOptions(snap, mc), findings: map[string]*AuditFinding{}, needs: map[resKey]*[]string{}, noResourceNeeds: opt.noResourceNeeds}
	if a.rootNs == "" {
		a.rootNs = snap.IstioNamespace
	}
	a.drs = model.DestinationRules(snap, a.rootNs, mc.GetDefaultDestinationRuleExportTo())
	a.vsIndex = model.VirtualServices(snap, a.vsExport)
	a.registry = model.Services(snap, mc)
	if !opt.unshared {
		a.share = newAuditShare(snap, a.drs, a.rootNs)
	}

	for _, w := range GatewayWorkloads(snap) {
		a.gateway(w)
	}
	if a.share != nil {
		a.clientsShared(ClientNamespaces(snap))
	} else {
		for _, ns := range ClientNamespaces(snap) {
			a.client(ns)
		}
	}
	a.meshRoutesUnseen()
	a.sidecarImports()
	a.duplicates()
	meshMode := ""
	if p := mc.GetOutboundTrafficPolicy(); p != nil {
		meshMode = p.GetMode().String()
	}
	a.exportedBeyondUse(meshMode)

	rep := &AuditReport{SchemaVersion: AuditSchemaVersion, Source: snap.Source, Resources: []AuditResource{}, Findings: []AuditFinding{}}
	// Every kind the audit reads: the mesh ConfigMap holds the default exportTo of each kind and
	// the ServiceEntry visibility cap; Sidecars' imports are audited and show where entries are
	// used.
	for _, k := range []string{snapshot.KindNamespace, snapshot.KindServiceEntry, snapshot.KindVirtualService, snapshot.KindDestinationRule,
		snapshot.KindGateway, snapshot.KindService, snapshot.KindDeployment, snapshot.KindPod, snapshot.KindConfigMap, snapshot.KindSidecar, snapshot.KindGatewayAPI, snapshot.KindGatewayAPICRD} {
		if k == snapshot.KindConfigMap && flags.MeshUnknown == "" {
			continue // the mesh ConfigMap itself was read
		}
		if why, ok := snap.Unknown[k]; ok {
			if rep.Unknown == nil {
				rep.Unknown = map[string]string{}
			}
			rep.Unknown[k] = why
		}
	}
	for _, se := range snap.ServiceEntries {
		exp := []string{}
		if ss := a.registry.ForEntry(se); len(ss) > 0 {
			exp = ss[0].ExportTo
		}
		rep.Resources = append(rep.Resources, a.resource("ServiceEntry", se.Namespace, se.Name, exp))
	}
	for _, vs := range snap.VirtualServices {
		rep.Resources = append(rep.Resources, a.resource("VirtualService", vs.Namespace, vs.Name, rules.EffectiveExportTo(vs.Spec.ExportTo, a.vsExport)))
	}
	for _, dr := range snap.DestinationRules {
		rep.Resources = append(rep.Resources, a.resource("DestinationRule", dr.Namespace, dr.Name, rules.EffectiveExportTo(dr.Spec.ExportTo, mc.GetDefaultDestinationRuleExportTo())))
	}
	for _, f := range a.findings {
		if opt.Namespace == "" || f.Namespace == opt.Namespace {
			f.MissingIn = withTails(f.MissingIn, f.missingTails)
			if !a.noResourceNeeds {
				f.NeededIn = withTails(f.NeededIn, f.neededTails)
			}
			f.neededTails, f.missingTails = nil, nil
			sort.Strings(f.MissingIn)
			sort.Strings(f.NeededIn)
			f.MissingIn, f.NeededIn = slices.Compact(f.MissingIn), slices.Compact(f.NeededIn)
			if f.widen != nil && len(f.MissingIn) > 0 {
				f.Fix = f.widen(f.MissingIn)
			}
			rep.Findings = append(rep.Findings, *f)
		}
	}
	sort.Slice(rep.Findings, func(i, j int) bool {
		a, b := rep.Findings[i], rep.Findings[j]
		if levelRank(a.Level) != levelRank(b.Level) {
			return levelRank(a.Level) < levelRank(b.Level)
		}
		if a.Ref() != b.Ref() {
			return a.Ref() < b.Ref()
		}
		if a.Code != b.Code {
			return a.Code < b.Code
		}
		return a.Entry < b.Entry // (findings on the mesh ConfigMap, one per entry)
	})
	if opt.Namespace != "" {
		var keep []AuditResource
		for _, r := range rep.Resources {
			if r.Namespace == opt.Namespace {
				keep = append(keep, r)
			}
		}
		rep.Resources = keep
	}
	sort.Slice(rep.Resources, func(i, j int) bool {
		x, y := rep.Resources[i], rep.Resources[j]
		return x.Kind+" "+x.Namespace+"/"+x.Name < y.Kind+" "+y.Namespace+"/"+y.Name
	})
	return rep
}

// sidecarImports audits explicit Sidecar egress imports "ns/host" (not "*/..." nor "ns/*"): the
// namespaces of the Sidecar's proxies need an entry for host in ns exported to them.
//
// Mirrors istiod pilot/pkg/model/sidecar.go convertIstioListenerToWrapper / selectServices: the
// namespace part matches the entry's own namespace, and only services exported to the
// Sidecar's namespace are candidates (servicesExportedToNamespace, servicesForExactHosts).
func (a *auditor) sidecarImports() {
	for _, sc := range a.snap.Sidecars {
		ref := "Sidecar " + sc.Namespace + "/" + sc.Name
		for _, e := range sc.Spec.GetEgress() {
			for _, h := range e.GetHosts() {
				ns, host, ok := strings.Cut(h, "/")
				if !ok || strings.HasPrefix(ns, "~") || ns == "*" || host == "*" || strings.HasPrefix(host, "*") {
					continue
				}
				if ns == "." {
					ns = sc.Namespace
				}
				host = rules.NormalizeHost(host)
				var declared []rules.Service
				for _, s := range a.registry.ForHost(host) {
					if s.Namespace == ns {
						declared = append(declared, s)
					}
				}
				if len(declared) == 0 {
					a.add(AuditFinding{Code: AuditSidecarImportUnknown, Kind: "Sidecar", Namespace: sc.Namespace, Name: sc.Name,
						NeededIn: []string{sc.Namespace}, Impact: "the import selects nothing; the host stays unknown to these proxies",
						Message: fmt.Sprintf("%s imports %q, but no ServiceEntry or Service in namespace %s declares %s.", ref, h, ns, host),
						Fix:     fmt.Sprintf("name the namespace of the entry that declares %s (egress hosts \"<entry namespace>/%s\")", host, host)})
					continue
				}
				visible := false
				for _, s := range declared {
					a.need(s.Kind, s.Namespace, s.Name, sc.Namespace)
					if rules.ServiceVisible(s.Namespace, s.ExportTo, sc.Namespace) {
						visible = true
					}
				}
				if visible {
					continue
				}
				s := declared[0]
				if s.Kind != rules.KindServiceEntry {
					continue
				}
				a.add(AuditFinding{Code: AuditSidecarImportHidden, Kind: s.Kind, Namespace: s.Namespace, Name: s.Name, ExportTo: s.ExportTo,
					NeededIn: []string{sc.Namespace}, MissingIn: []string{sc.Namespace},
					Impact:  fmt.Sprintf("sidecars in %s (%s imports %q) lack the host: 503 NC for routes to it, BlackHoleCluster/502 under REGISTRY_ONLY", sc.Namespace, ref, h),
					Message: fmt.Sprintf("%s imports %q, but %s is exported to %s, not %s: the import brings nothing.", ref, h, s.Ref(), fmtList(s.ExportTo), sc.Namespace),
					widen:   widenExportTo(s.Ref(), s.DeclaredExportTo, s.Namespace)})
			}
		}
	}
}

// levelRank orders levels worst first.
func levelRank(l string) int {
	switch l {
	case LevelError:
		return 0
	case LevelWarning:
		return 1
	}
	return 2
}

// AtLeast reports whether level is as bad as or worse than threshold (info < warning < error).
func AtLeast(level, threshold string) bool {
	return levelRank(level) <= levelRank(threshold)
}

func (a *auditor) resource(kind, ns, name string, exp []string) AuditResource {
	if a.noResourceNeeds {
		return AuditResource{Kind: kind, Namespace: ns, Name: name, ExportTo: exp}
	}
	needed := a.neededIn(kind, ns, name)
	sort.Strings(needed)
	return AuditResource{Kind: kind, Namespace: ns, Name: name, ExportTo: exp, NeededIn: slices.Compact(needed)}
}

func (a *auditor) need(kind, resNs, name, ns string) {
	p := a.needsOf(kind, resNs, name)
	appendNs(p, ns)
	a.share.recordNeed(p, ns)
}

// needsOf is the list of namespaces that need the resource.
func (a *auditor) needsOf(kind, ns, name string) *[]string {
	k := resKey{kind, ns, name}
	p := a.needs[k]
	if p == nil {
		p = new([]string)
		a.needs[k] = p
	}
	return p
}

// appendNs adds ns to the list unless it is its last element (namespaces come in runs; repeats
// are removed when the report is written).
func appendNs(l *[]string, ns string) {
	if n := len(*l); n == 0 || (*l)[n-1] != ns {
		*l = append(*l, ns)
	}
}

// neededIn lists the namespaces that need the resource (with repeats).
func (a *auditor) neededIn(kind, ns, name string) []string {
	p := a.needs[resKey{kind, ns, name}]
	if p == nil {
		return nil
	}
	tails := a.tails[p]
	if a.everyClient[p] {
		tails = append(slices.Clip(tails), a.clients)
	}
	return withTails(*p, tails)
}

// withTails is l followed by the names of every tail, in a new list when there are tails.
func withTails(l []string, tails [][]string) []string {
	if len(tails) == 0 {
		return l
	}
	size := len(l)
	for _, t := range tails {
		size += len(t)
	}
	out := make([]string, 0, size)
	out = append(out, l...)
	for _, t := range tails {
		out = append(out, t...)
	}
	return out
}

// resKey identifies a resource (kind, namespace, name) without building its text.
type resKey struct{ kind, ns, name string }

// merge adds the namespaces to the finding with this code about this resource when there is one
// already (and reports whether there was), so that callers build a finding's text only once.
func (a *auditor) merge(code, kind, ns, name, neededIn, missingIn string) bool {
	old, ok := a.findings[code+" "+kind+" "+ns+"/"+name]
	if !ok {
		return false
	}
	a.share.recordFinding(old, []string{neededIn}, []string{missingIn})
	if l := old.MissingIn; missingIn != "" && (len(l) == 0 || l[len(l)-1] != missingIn) {
		old.MissingIn = append(l, missingIn)
	}
	if l := old.NeededIn; neededIn != "" && (len(l) == 0 || l[len(l)-1] != neededIn) {
		old.NeededIn = append(l, neededIn)
	}
	return true
}

// add records a finding, merging namespaces into an existing one with the same code and resource.
func (a *auditor) add(f AuditFinding) {
	key := f.Code + " " + f.Ref()
	if f.Entry != "" {
		key += " " + f.Entry // (findings on the mesh ConfigMap, one per entry it caps)
	}
	if old, ok := a.findings[key]; ok {
		a.share.recordFinding(old, f.NeededIn, f.MissingIn)
		// Repeats are removed when the report is written (namespaces come in runs).
		for _, n := range f.MissingIn {
			if l := old.MissingIn; len(l) == 0 || l[len(l)-1] != n {
				old.MissingIn = append(l, n)
			}
		}
		for _, n := range f.NeededIn {
			if l := old.NeededIn; len(l) == 0 || l[len(l)-1] != n {
				old.NeededIn = append(l, n)
			}
		}
		return
	}
	if c, ok := Lookup(f.Code); ok && f.Level == "" {
		f.Level = c.Level
	}
	a.findings[key] = &f
	a.share.recordFinding(&f, f.NeededIn, f.MissingIn)
}

// gatewayRoutesImpact is what calls meet at gateway w when vs's routes are not built there: no
// virtual host for HTTP routes (404 NR); no filter chain for tls and tcp routes (the connection
// is refused or reset; blind audit 76 W2).
func gatewayRoutesImpact(vs *networkingv1.VirtualService, w Workload) string {
	http, other := len(vs.Spec.GetHttp()) > 0, len(vs.Spec.GetTls())+len(vs.Spec.GetTcp()) > 0
	switch {
	case http && other:
		return fmt.Sprintf("404 NR for HTTP and connections refused or reset for TLS/TCP at gateway %s: its routes are not built there", w.Ref())
	case other:
		return fmt.Sprintf("connections refused or reset at gateway %s: its tls/tcp routes are not built there, so no filter chain takes them", w.Ref())
	}
	return fmt.Sprintf("404 NR at gateway %s: its routes are not built there", w.Ref())
}

// gateway audits what gateway workload w needs.
func (a *auditor) gateway(w Workload) {
	gws := gatewaysFor(a.snap, w, a.flags.ScopeGWToNs.Value)
	names := map[string]bool{}
	for _, g := range gws {
		names[rules.GatewayName(g)] = true
	}
	for _, vs := range a.withAnyGateway(names) {
		var gw string
		for _, g := range rules.VSGateways(vs) {
			if names[g] {
				gw = g
			}
		}
		vsRef := "VirtualService " + vs.Namespace + "/" + vs.Name
		a.need("VirtualService", vs.Namespace, vs.Name, w.Namespace)
		exp := rules.EffectiveExportTo(vs.Spec.ExportTo, a.vsExport)
		if origin := rules.GeneratedFrom(vs.Annotations, vs.Namespace); len(origin) > 0 && origin[0].Kind != "Gateway" && !rules.VirtualServiceVisible(vs.Namespace, exp, w.Namespace) {
			// Generated from a Gateway API route, which has no exportTo: the mesh default
			// hides it, and the finding names the route (what the user wrote) with a fix
			// that can be applied (blind audit 64 c06).
			o := origin[0]
			impact := fmt.Sprintf("404 NR at gateway %s: its routes are not built there", w.Ref())
			if o.Kind == "TCPRoute" || o.Kind == "TLSRoute" {
				// no tcp or tls route: no filter chain for it, the connection is closed
				impact = fmt.Sprintf("connections closed at gateway %s: its %s routes are not built there, so no filter chain takes them", w.Ref(), strings.ToLower(strings.TrimSuffix(o.Kind, "Route")))
			}
			a.add(AuditFinding{Code: AuditVSNotExportedToGateway, Kind: o.Kind, Namespace: o.Namespace, Name: o.Name, ExportTo: exp,
				NeededIn: []string{w.Namespace}, MissingIn: []string{w.Namespace},
				Impact:  impact,
				Message: fmt.Sprintf("%s %s/%s is attached to Gateway %s, but a Gateway API route has no exportTo: the VirtualService istiod generates from it takes meshConfig.defaultVirtualServiceExportTo, %s, which excludes %s, the namespace of gateway pod %s where it is evaluated.", o.Kind, o.Namespace, o.Name, gw, fmtList(exp), w.Namespace, w.Ref()),
				Fix:     generatedNotVisibleFix(o, w)})
		} else if !rules.VirtualServiceVisible(vs.Namespace, exp, w.Namespace) {
			a.add(AuditFinding{Code: AuditVSNotExportedToGateway, Kind: "VirtualService", Namespace: vs.Namespace, Name: vs.Name, ExportTo: exp,
				NeededIn: []string{w.Namespace}, MissingIn: []string{w.Namespace},
				Impact:  gatewayRoutesImpact(vs, w),
				Message: fmt.Sprintf("%s lists Gateway %s, but exportTo %s excludes %s, the namespace of gateway pod %s where it is evaluated.", vsRef, gw, fmtList(exp), w.Namespace, w.Ref()),
				widen:   widenExportTo(vsRef, vs.Spec.ExportTo, vs.Namespace)})
		}
		dests, problems := a.vsIndex.Merged(vs)
		for _, p := range problems {
			// a delegate istiod drops for not being exported to the root's namespace
			// (virtualservice.go mergeVirtualServices; blind audit 57 #124)
			if p.Delegate == nil || p.Missing {
				continue
			}
			dexp := rules.EffectiveExportTo(p.Delegate.Spec.ExportTo, a.vsExport)
			dref := "VirtualService " + p.Name
			impact, level := fmt.Sprintf("404 NR at gateway %s: the delegating route of %s yields nothing", w.Ref(), vsRef), ""
			if slices.ContainsFunc(vs.Spec.GetHttp(), func(r *networkingapi.HTTPRoute) bool { return r.GetDelegate() == nil && len(r.GetMatch()) == 0 }) {
				// the root keeps a route without conditions: the requests the delegate was to
				// route go there instead, not to a 404 (blind audit 60 r3d)
				impact, level = fmt.Sprintf("at gateway %s the delegated routes never apply: their requests take %s's other route", w.Ref(), vsRef), LevelWarning
			}
			a.add(AuditFinding{Code: AuditDelegateNotExported, Level: level, Kind: "VirtualService", Namespace: p.Delegate.Namespace, Name: p.Delegate.Name, ExportTo: dexp,
				NeededIn: []string{vs.Namespace}, MissingIn: []string{vs.Namespace},
				Impact:  impact,
				Message: fmt.Sprintf("%s delegates http routes to %s, whose exportTo %s leaves out %s, the root's namespace: istiod drops the delegating route, so gateway %s gets no route from it.", vsRef, dref, fmtList(dexp), vs.Namespace, w.Ref()),
				widen:   widenExportTo(dref, p.Delegate.Spec.ExportTo, p.Delegate.Namespace)})
		}
		for _, d := range dests {
			if !a.routeUsedBy(d, gw, vs.Namespace) {
				continue
			}
			a.destination(d, w.Namespace, w.Labels, "gateway "+w.Ref(), true)
			a.originationHidden(w, d, vsRef)
		}
	}
}

// originationHidden: the gateway's http route d sends plaintext to a port the entry declares
// HTTPS or TLS, and the DestinationRule that would originate TLS there is on the gateway's
// lookup path but not exported to its namespace (the traced path's TLS_NOT_ORIGINATED_AT_GATEWAY,
// notOriginatedAt, names the same rule; blind audit 39 G04, where export-audit found no gap).
func (a *auditor) originationHidden(w Workload, d rules.Dest, vsRef string) {
	if d.Kind != rules.RouteHTTP || d.Mirror || d.Idle || d.Direct != 0 || d.Port == 0 || d.Host == "" {
		return
	}
	diag, ok := notOriginatedAt(a.snap, w, rules.ClusterName(d.Port, d.Subset, strings.ToLower(d.Host)))
	if !ok || diag.hidden == nil {
		return
	}
	dr := diag.hidden
	a.need("DestinationRule", dr.Namespace, dr.Name, w.Namespace)
	if a.merge(AuditDRTLSNotExportedToGW, "DestinationRule", dr.Namespace, dr.Name, w.Namespace, w.Namespace) {
		return
	}
	ref := "DestinationRule " + dr.Namespace + "/" + dr.Name
	exp := rules.EffectiveExportTo(dr.Spec.GetExportTo(), a.flags.MeshConfig.GetDefaultDestinationRuleExportTo())
	a.add(AuditFinding{Code: AuditDRTLSNotExportedToGW, Kind: "DestinationRule", Namespace: dr.Namespace, Name: dr.Name, ExportTo: exp,
		NeededIn: []string{w.Namespace}, MissingIn: []string{w.Namespace},
		Impact:  fmt.Sprintf("plaintext to %s port %d at gateway %s (route from %s): the server answers 400 or resets", d.Host, d.Port, w.Ref(), vsRef),
		Message: fmt.Sprintf("%s originates TLS for %s port %d, which the entry declares HTTPS or TLS, but its exportTo %s excludes %s, the namespace of gateway %s, whose route from %s sends plaintext there.", ref, d.Host, d.Port, fmtList(exp), w.Namespace, w.Ref(), vsRef),
		widen:   widenExportTo(ref, dr.Spec.GetExportTo(), dr.Namespace)})
}

// withAnyGateway returns the root VirtualServices listing one of the gateways in names
// ("namespace/name"), in snapshot order.
func (a *auditor) withAnyGateway(names map[string]bool) []*networkingv1.VirtualService {
	if len(names) == 1 {
		for n := range names {
			return a.vsIndex.WithGateway(n)
		}
	}
	pos := map[*networkingv1.VirtualService]int{}
	for i, vs := range a.snap.VirtualServices {
		pos[vs] = i
	}
	var out []*networkingv1.VirtualService
	seen := map[*networkingv1.VirtualService]bool{}
	for n := range names {
		for _, vs := range a.vsIndex.WithGateway(n) {
			if !seen[vs] {
				seen[vs] = true
				out = append(out, vs)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return pos[out[i]] < pos[out[j]] })
	return out
}

// routeUsedBy: the route applies to gateway gw (or to sidecars for gw == "mesh") judging by its
// match.gateways only (a route without match, or a match without gateways, applies to every
// gateway the VirtualService lists).
//
// Mirrors istiod pilot/pkg/networking/core/route/route.go TranslateRoute / sourceMatchHTTP
// (match.gateways) and l4SingleMatch for tls/tcp routes.
func (a *auditor) routeUsedBy(d rules.Dest, gw, vsNs string) bool {
	lists := rules.MatchGateways(d)
	if len(lists) == 0 {
		return true
	}
	for _, l := range lists {
		if len(l) == 0 {
			return true
		}
		for _, g := range l {
			if rules.ResolveGatewayName(g, vsNs) == gw {
				return true
			}
		}
	}
	return false
}

// client audits what sidecars in namespace ns need for the mesh routes they see: the
// VirtualServices listing "mesh" (or no gateways) that are exported to ns.
//
// Mirrors istiod pilot/pkg/model/push_context.go VirtualServicesForGateway (gateway "mesh",
// exportTo from the proxy's namespace) and destinationRule (the subset's lookup path).
func (a *auditor) client(ns string) {
	if a.meshRoutes == nil {
		a.meshRoutes = a.indexMeshRoutes()
	}
	for _, r := range *a.meshRoutes {
		if !rules.VirtualServiceVisible(r.vs.Namespace, r.exportTo, ns) {
			continue
		}
		appendNs(r.needs, ns)
		for i, d := range r.dests {
			if !a.l4RouteOnSidecar(d, ns) {
				continue
			}
			a.clientDestination(r.shares[i], d, ns)
		}
	}
}

// meshRoutesUnseen: VS_MESH_ROUTES_EXPORTED_TO_NO_CLIENT for a VirtualService that binds the mesh
// and a Gateway (the egress pattern), in a namespace whose pods run sidecars, whose exportTo
// leaves that namespace out and is seen by no namespace with sidecars: its mesh routes apply
// nowhere (blind audit 54 a3, where the path warned and export-audit found no gap).
//
// Mirrors istiod pilot/pkg/model/push_context.go initVirtualServices (exportTo without "." or
// the own namespace: exportedToNamespaceByGateway only) and virtualservice.go
// SelectVirtualServices.
func (a *auditor) meshRoutesUnseen() {
	if a.meshRoutes == nil {
		a.meshRoutes = a.indexMeshRoutes()
	}
	clients := ClientNamespaces(a.snap)
	for _, r := range *a.meshRoutes {
		vs := r.vs
		if len(clients) == 0 || slices.ContainsFunc(clients, func(ns string) bool { return rules.VirtualServiceVisible(vs.Namespace, r.exportTo, ns) }) {
			continue
		}
		other, ok := meshAndGateway(vs)
		through := "through Gateway " + other
		if !ok && routesToAnyGatewayService(a.snap, a.registry, vs) {
			// a mesh-only route to a gateway's Service (the egress pattern in two objects, as
			// Gateway API mesh routes always are; blind audit 64 c07/c07b)
			ok, through = true, "to an egress gateway's Service"
		}
		if !ok {
			continue
		}
		ref := "VirtualService " + vs.Namespace + "/" + vs.Name
		hosts := strings.Join(vs.Spec.GetHosts(), ", ")
		if origin := rules.GeneratedFrom(vs.Annotations, vs.Namespace); len(origin) > 0 && origin[0].Kind != "Gateway" {
			// generated from a Gateway API mesh route, which has no exportTo: the mesh default
			// decides, and the fix is where the route lives or the default
			o := origin[0]
			oref := o.Kind + " " + o.Namespace + "/" + o.Name
			a.add(AuditFinding{Code: AuditVSMeshNoClient, Kind: o.Kind, Namespace: o.Namespace, Name: o.Name, ExportTo: r.exportTo,
				Impact:  "calls from sidecars bypass the egress gateway (the route is built in no namespace with sidecars)",
				Message: fmt.Sprintf("%s sends %s from sidecars %s, but a Gateway API route has no exportTo: the VirtualService istiod generates from it takes meshConfig.defaultVirtualServiceExportTo, %s, which reaches no namespace whose pods run sidecars (namespaces with sidecars: %s): no sidecar applies it, so the calls go straight out.", oref, hosts, through, fmtList(r.exportTo), fmtNamespaces(clients)),
				Fix:     fmt.Sprintf("Create a copy of %s in each namespace whose pods call %s (there it applies to that namespace's sidecars), or add those namespaces (or \"*\") to meshConfig.defaultVirtualServiceExportTo.", oref, hosts)})
			continue
		}
		if slices.Contains(clients, vs.Namespace) {
			a.add(AuditFinding{Code: AuditVSMeshNoClient, Kind: "VirtualService", Namespace: vs.Namespace, Name: vs.Name, ExportTo: r.exportTo,
				NeededIn: []string{vs.Namespace}, MissingIn: []string{vs.Namespace},
				Impact:  fmt.Sprintf("calls from sidecars in %s bypass the egress gateway (its mesh routes are not built there)", vs.Namespace),
				Message: fmt.Sprintf("%s sends %s %s and binds the mesh, but its exportTo %s leaves out its own namespace %s (a VirtualService's namespace sees it only when exportTo lists \".\" or the namespace) and lists no other namespace with sidecars: no sidecar applies its mesh routes, so the calls go straight out.", ref, hosts, through, fmtList(r.exportTo), vs.Namespace),
				widen:   widenExportTo(ref, vs.Spec.ExportTo, vs.Namespace)})
			continue
		}
		// its own namespace runs no sidecars either (a namespace for configuration): the
		// clients' namespaces are not known from the input (blind audit 55 p12)
		a.add(AuditFinding{Code: AuditVSMeshNoClient, Kind: "VirtualService", Namespace: vs.Namespace, Name: vs.Name, ExportTo: r.exportTo,
			Impact:  "calls from sidecars bypass the egress gateway (its mesh routes are built in no namespace with sidecars)",
			Message: fmt.Sprintf("%s sends %s %s and binds the mesh, but its exportTo %s reaches no namespace whose pods run sidecars (its own, %s, runs none; namespaces with sidecars: %s): no sidecar applies its mesh routes, so the calls go straight out.", ref, hosts, through, fmtList(r.exportTo), vs.Namespace, fmtNamespaces(clients)),
			Fix:     meshNoClientFix(hosts, ref, r.exportTo, other != "")})
	}
}

// meshNoClientFix: widen the exportTo of a mesh route that reaches no namespace with sidecars;
// one that also binds a Gateway keeps what it has for the gateway.
func meshNoClientFix(hosts, ref string, exportTo []string, bindsGateway bool) string {
	if bindsGateway {
		return fmt.Sprintf("Add the namespaces whose pods call %s to spec.exportTo of %s (or \"*\"), keeping %s for the gateway.", hosts, ref, fmtList(exportTo))
	}
	return fmt.Sprintf("Add the namespaces whose pods call %s to spec.exportTo of %s (or \"*\").", hosts, ref)
}

// meshRoute is a VirtualService listing "mesh" (or no gateways) with its destinations used by
// sidecars, read once for every client namespace.
type meshRoute struct {
	vs       *networkingv1.VirtualService
	exportTo []string
	needs    *[]string
	dests    []rules.Dest
	shares   []*destShare // nil entries when unshared
}

func (a *auditor) indexMeshRoutes() *[]meshRoute {
	out := []meshRoute{}
	for _, vs := range a.vsIndex.WithGateway(rules.MeshGateway) {
		r := meshRoute{vs: vs, exportTo: rules.EffectiveExportTo(vs.Spec.ExportTo, a.vsExport), needs: a.needsOf("VirtualService", vs.Namespace, vs.Name)}
		dests, _ := a.vsIndex.Merged(vs)
		for _, d := range dests {
			if a.routeUsedBy(d, rules.MeshGateway, vs.Namespace) {
				r.dests = append(r.dests, d)
				r.shares = append(r.shares, a.share.forDest())
			}
		}
		out = append(out, r)
	}
	return &out
}

// anyHostSeen: a proxy of namespace ns holds a service for one of the VirtualService's hosts.
// A sidecar's tls and tcp routes apply only on the listeners of services it holds (istiod
// pilot/pkg/networking/core/listener.go buildSidecarOutboundListeners builds those listeners
// per service; tls.go buildSidecarOutboundTLSFilterChainOpts, tcp routes likewise).
func (a *auditor) anyHostSeen(vs *networkingv1.VirtualService, ns string) bool {
	if vs == nil {
		return true
	}
	for _, h := range vs.Spec.GetHosts() {
		h = strings.ToLower(rules.ResolveShortname(h, vs.Namespace))
		if strings.HasPrefix(h, "*") {
			return true // (a wildcard host: not decided here)
		}
		if chosen, _ := rules.ServiceForProxy(a.registry.Shared(h), ns); chosen != nil {
			return true
		}
	}
	return false
}

// l4RouteOnSidecar: a tls or tcp route whose mesh matches all name ports applies on sidecars of
// namespace ns only when the service ns holds for one of the VirtualService's hosts declares
// one of those ports; where ns holds a host with other ports only, no filter chain takes the
// route and its destination is never used there (blind audit 105 c29, a false DR_NOT_ON_LOOKUP_PATH for a namespace whose own
// entry for the host declares another port). HTTP routes and wildcard hosts are not narrowed.
//
// Mirrors istiod pilot/pkg/networking/core/listener.go buildSidecarOutboundListeners (a
// listener per service port the proxy holds) and tls.go buildSidecarOutboundTLSFilterChainOpts
// / tcp likewise (a route applies when its match.port is 0 or the listener's port).
func (a *auditor) l4RouteOnSidecar(d rules.Dest, ns string) bool {
	ports := l4MeshPorts(d)
	if len(ports) == 0 {
		return true
	}
	held := false
	for _, h := range d.Root.Spec.GetHosts() {
		h = strings.ToLower(rules.ResolveShortname(h, d.Root.Namespace))
		if strings.HasPrefix(h, "*") {
			return true
		}
		chosen, _ := rules.ServiceForProxy(a.registry.Shared(h), ns)
		if chosen == nil {
			continue
		}
		held = true
		for _, p := range chosen.Ports {
			if ports[p.Number] {
				return true
			}
		}
	}
	// a namespace holding none of the hosts is left to destination (anyHostSeen words that)
	return !held
}

// l4MeshPorts: the ports a tls or tcp route's matches for sidecars name, or nil when the route
// is http or one of those matches (or none at all) takes any port.
func l4MeshPorts(d rules.Dest) map[uint32]bool {
	if d.Kind == rules.RouteHTTP || d.Root == nil {
		return nil
	}
	ports := map[uint32]bool{}
	applies := func(gws []string, port uint32) bool {
		if len(gws) > 0 && !slices.ContainsFunc(gws, func(g string) bool { return rules.ResolveGatewayName(g, d.Declared.Namespace) == rules.MeshGateway }) {
			return false // this match is for a gateway, not for sidecars
		}
		if port == 0 {
			return true
		}
		ports[port] = true
		return false
	}
	type match struct {
		gateways []string
		port     uint32
	}
	var ms []match
	for _, m := range d.TLS.GetMatch() {
		ms = append(ms, match{m.GetGateways(), m.GetPort()})
	}
	for _, m := range d.TCP.GetMatch() {
		ms = append(ms, match{m.GetGateways(), m.GetPort()})
	}
	if len(ms) == 0 {
		return nil // (no match, or neither a tls nor a tcp route)
	}
	for _, m := range ms {
		if applies(m.gateways, m.port) {
			return nil
		}
	}
	return ports // (empty for matches of gateways only: routeUsedBy decides)
}

// destination checks that the proxy namespace ns sees the destination's service and subset.
func (a *auditor) destination(d rules.Dest, ns string, labels map[string]string, proxy string, gateway bool) {
	// A mirror destination is a cluster of the route, not a route (route/route.go
	// translateRoute): without it only the mirrored copies are dropped, not a 503 NC for the
	// call. The traced paths warn about it (GATEWAY_MIRROR_CLUSTER_ABSENT).
	if d.Mirror {
		return
	}
	if d.Idle {
		return // weight 0 among several destinations: istiod sends it nothing
	}
	h := strings.ToLower(d.Host)
	services := a.registry.Shared(h)
	if len(services) == 0 {
		return // why-missing reports HOST_NOT_FOUND; nothing to export
	}
	for _, s := range services {
		a.need(s.Kind, s.Namespace, s.Name, ns)
	}
	chosen, _ := rules.ServiceForProxy(services, ns)
	vsRef := "VirtualService " + d.Declared.Namespace + "/" + d.Declared.Name
	if chosen == nil {
		s := services[0]
		code := AuditSENotExportedToClient
		if gateway {
			code = AuditSENotExportedToGateway
		}
		if s.Kind == rules.KindServiceEntry && a.merge(code, s.Kind, s.Namespace, s.Name, ns, ns) {
			return
		}
		// what the route answers for the missing cluster: 503 NC, 500 NC for a Gateway API HTTP
		// route, a closed connection for a tls or tcp route (notFoundAnswer)
		status := string(notFoundAnswerFor(d.Kind, d.Declared))
		impact := fmt.Sprintf("%s at %s (route %s targets a cluster the proxy lacks)", status, proxy, vsRef)
		if !gateway && d.Kind != rules.RouteHTTP && !a.anyHostSeen(d.Declared, ns) {
			// a tls or tcp route applies on a sidecar only to the chains of services it holds:
			// when none of the route's hosts is one, no chain takes the route and the call
			// leaves as if there were none (blind audit 75 c21, where NC was promised)
			impact = fmt.Sprintf("%s does not apply at %s (no service there declares its hosts, so no filter chain takes its %s route): calls leave through PassthroughCluster under ALLOW_ANY, or get BlackHoleCluster under REGISTRY_ONLY, without the route", vsRef, proxy, d.Kind)
		}
		if gateway {
			impact = fmt.Sprintf("%s at %s (route from %s)", status, proxy, vsRef)
		}
		if v := s.Visibility; s.Kind == rules.KindServiceEntry && v.Configured && v.ApplyToSidecars && a.flags.MeshConfigAt != "" && rules.ServiceVisible(s.Namespace, s.UncappedExportTo, ns) {
			// The entry's own exportTo includes ns; meshConfig.serviceEntryVisibility caps it
			// (seed 002): widening exportTo changes nothing, the mesh config is to change, as
			// why-missing says (blind audit 108 V15f, where the fix widened exportTo).
			cmNs, cmName, _ := strings.Cut(a.flags.MeshConfigAt, "/")
			policy := "defaultVisibility"
			if v.Policy >= 0 {
				policy = fmt.Sprintf("policies[%d]", v.Policy)
			}
			a.add(AuditFinding{Code: code, Kind: "ConfigMap", Namespace: cmNs, Name: cmName, Field: "data.mesh", Entry: s.Namespace + "/" + s.Name, ExportTo: s.ExportTo,
				NeededIn: []string{ns}, MissingIn: []string{ns}, Impact: impact,
				Message: fmt.Sprintf("%s is the destination of a route of %s evaluated in namespace %s; its exportTo %s includes %s, but meshConfig.serviceEntryVisibility (%s: %s, applyToSidecars: true) caps it to %s, which does not.", s.Ref(), vsRef, ns, fmtList(s.UncappedExportTo), ns, policy, v.Visibility, fmtList(s.ExportTo)),
				Fix:     fmt.Sprintf("# ConfigMap %s, key mesh\nserviceEntryVisibility:\n  policies:\n  - visibility: PUBLIC   # before the policy that matched namespace %s\n    matchingRules:\n    - namespaceSelector: {matchLabels: {<a label of %s>: <value>}}", a.flags.MeshConfigAt, s.Namespace, s.Namespace)})
			return
		}
		if s.Kind == rules.KindServiceEntry {
			a.add(AuditFinding{Code: code, Kind: s.Kind, Namespace: s.Namespace, Name: s.Name, ExportTo: s.ExportTo,
				NeededIn: []string{ns}, MissingIn: []string{ns}, Impact: impact,
				Message: fmt.Sprintf("%s is the destination of a route of %s evaluated in namespace %s, but its exportTo %s does not include %s.", s.Ref(), vsRef, ns, fmtList(s.ExportTo), ns),
				widen:   widenExportTo(s.Ref(), s.DeclaredExportTo, s.Namespace)})
		}
		if s.Kind == rules.KindService {
			// A Kubernetes Service is hidden by its networking.istio.io/exportTo annotation or
			// by meshConfig.defaultServiceExportTo (push_context.go initServiceRegistry,
			// serviceregistry/kube/conversion.go ConvertService).
			code = AuditSvcNotExportedToClient
			if gateway {
				code = AuditSvcNotExportedToGW
			}
			if a.merge(code, s.Kind, s.Namespace, s.Name, ns, ns) {
				return
			}
			from := "meshConfig.defaultServiceExportTo"
			if len(s.DeclaredExportTo) > 0 {
				from = "its annotation networking.istio.io/exportTo"
			}
			a.add(AuditFinding{Code: code, Kind: s.Kind, Namespace: s.Namespace, Name: s.Name, ExportTo: s.ExportTo,
				NeededIn: []string{ns}, MissingIn: []string{ns}, Impact: impact,
				Message: fmt.Sprintf("%s is the destination of a route of %s evaluated in namespace %s, but %s exports it to %s, not %s.", s.Ref(), vsRef, ns, from, fmtList(s.ExportTo), ns),
				widen:   widenServiceExportTo(s.Name, s.DeclaredExportTo, s.Namespace)})
		}
		return
	}
	dr := a.drs.For(ns, labels, h, chosen.Namespace)
	a.shadowed(dr, h, chosen.Namespace, ns, proxy)
	if d.Subset == "" {
		return
	}
	if !gateway && d.Kind != rules.RouteHTTP && !a.anyHostSeen(d.Declared, ns) {
		// a tls or tcp route applies on a sidecar only to the chains of services it holds:
		// where none of its hosts is one, its subset is never used (as l4RouteOnSidecar)
		return
	}
	if dr.HasSubset(d.Subset) {
		for _, r := range dr.Rules {
			a.need("DestinationRule", r.Namespace, r.Name, ns)
		}
		return
	}
	if _, unread := a.snap.Unknown[snapshot.KindDestinationRule]; unread {
		// the rules could not be read: that none defines the subset is not known (blind audit
		// 102 c25b, a false Error on a mesh whose rule defines it); the report lists the kind
		// as unread
		return
	}
	// Who defines the subset, off the lookup path?
	var definer *networkingv1.DestinationRule
	for _, r := range a.snap.DestinationRules {
		if strings.ToLower(rules.ResolveShortname(r.Spec.GetHost(), r.Namespace)) != h {
			continue
		}
		for _, s := range r.Spec.Subsets {
			if s.GetName() == d.Subset {
				definer = r
			}
		}
	}
	cluster := rules.ClusterName(d.Port, d.Subset, h)
	if d.Port == 0 {
		// a destination without a port takes the Service's only port, else the port called
		// (route/route.go GetDestinationCluster)
		if len(chosen.Ports) == 1 {
			cluster = rules.ClusterName(chosen.Ports[0].Number, d.Subset, h)
		} else {
			cluster = "outbound|<port called>|" + d.Subset + "|" + h
		}
	}
	answer := notFoundAnswerFor(d.Kind, d.Declared) // 503 NC, 500 NC, or closed for tls/tcp
	if definer == nil {
		if mis := misnamedSubsetRule(a.drs, a.snap.DestinationRules, *chosen, d.Subset, func(string) bool { return true }); mis != nil {
			// A rule defines the subset under a short or partial name of the host: istiod reads
			// it for another host (pilot/pkg/model/push_context.go setDestinationRules).
			a.add(AuditFinding{Code: AuditSubsetUndefined, Kind: "DestinationRule", Namespace: mis.Namespace, Name: mis.Name,
				Field:    "spec.host",
				ExportTo: rules.EffectiveExportTo(mis.Spec.ExportTo, a.drs.DefaultExportTo), NeededIn: []string{ns}, MissingIn: []string{ns},
				Impact: fmt.Sprintf("%s at %s: %s is never built", answer, proxy, cluster),
				Message: fmt.Sprintf("%s routes to subset %q of %s; DestinationRule %s/%s defines it, but its host %q is not %s's full name, so istiod applies it to %s, a host no Service has.",
					vsRef, d.Subset, h, mis.Namespace, mis.Name, mis.Spec.GetHost(), h, a.drs.Host(mis)),
				Fix: fmt.Sprintf("In DestinationRule %s/%s, write spec.host in full: %s (and keep the rule in the client's namespace, %s's or the root namespace).", mis.Namespace, mis.Name, h, chosen.Namespace)})
			return
		}
		msg := fmt.Sprintf("%s routes to subset %q of %s, which no DestinationRule defines.", vsRef, d.Subset, h)
		fix := fmt.Sprintf("apiVersion: networking.istio.io/v1\nkind: DestinationRule\nmetadata:\n  name: %s\n  namespace: %s\nspec:\n  host: %s\n  subsets:\n  - name: %s", strings.ReplaceAll(h, ".", "-"), chosen.Namespace, h, d.Subset)
		if dr != nil && len(dr.Rules) > 0 {
			// A rule applies to the proxy for the host (a new rule elsewhere on the lookup
			// path would not: the first one found wins, blind audit 42 R26): define the
			// subset there, or correct a slip in the route's subset name.
			applied := dr.Rules[0].Namespace + "/" + dr.Rules[0].Name
			if near := nearSubset(dr, d.Subset, d.Declared.Namespace); near != "" {
				msg, fix = subsetTypoText(vsRef, d.Subset, near, applied, h)
				msg = upperFirst(msg) + "."
			} else if dr.Step == "proxy namespace" && dr.Rules[0].Namespace != d.Declared.Namespace {
				// one client namespace's own rule: the others the route reaches apply the
				// shared ones (blind audit 43 F13), so say both
				msg = fmt.Sprintf("%s routes to subset %q of %s, which no DestinationRule defines: neither DestinationRule %s, which sidecars in %s apply to the host, nor a rule in %s or the root namespace, which the route's other client namespaces apply.", vsRef, d.Subset, h, applied, dr.Rules[0].Namespace, chosen.Namespace)
				fix = fmt.Sprintf("Define subset %q in a DestinationRule for %s in namespace %s, exported to the namespaces the route reaches, and in DestinationRule %s, which takes precedence for sidecars in %s; or route to a subset these rules define.", d.Subset, h, chosen.Namespace, applied, dr.Rules[0].Namespace)
			} else {
				msg = fmt.Sprintf("%s routes to subset %q of %s, which DestinationRule %s, the rule %s applies to the host, does not define (nor does any other).", vsRef, d.Subset, h, applied, proxy)
				fix = fmt.Sprintf("Define subset %q in DestinationRule %s (with the labels of its endpoints, or none).", d.Subset, applied)
				if len(dr.Subsets) > 0 {
					fix = strings.TrimSuffix(fix, ".") + fmt.Sprintf(", or route to one of its subsets (%s).", strings.Join(dr.Subsets, ", "))
				}
			}
		}
		a.add(AuditFinding{Code: AuditSubsetUndefined, Kind: "VirtualService", Namespace: d.Declared.Namespace, Name: d.Declared.Name,
			Field:    fmt.Sprintf("spec.%s[%d].route[].destination.subset", d.Kind, d.RouteIndex),
			ExportTo: rules.EffectiveExportTo(d.Declared.Spec.ExportTo, a.vsExport), NeededIn: []string{ns}, MissingIn: []string{ns},
			Impact:  fmt.Sprintf("%s at %s: %s is never built", answer, proxy, cluster),
			Message: msg,
			Fix:     fix})
		return
	}
	drRef := "DestinationRule " + definer.Namespace + "/" + definer.Name
	a.need("DestinationRule", definer.Namespace, definer.Name, ns)
	if definer.Namespace == ns || definer.Namespace == chosen.Namespace || definer.Namespace == a.rootNs {
		// The rule is on the lookup path. A rule of the proxy's own namespace for the host
		// was applied instead (DR_SHADOWED says so), or the rule is not exported here.
		if dr != nil && dr.Step == "proxy namespace" && definer.Namespace != ns {
			own := dr.Rules[0]
			a.add(AuditFinding{Code: AuditSubsetUndefined, Kind: "DestinationRule", Namespace: own.Namespace, Name: own.Name,
				Field:    "spec.subsets",
				ExportTo: rules.EffectiveExportTo(own.Spec.ExportTo, a.drs.DefaultExportTo), NeededIn: []string{ns}, MissingIn: []string{ns},
				Impact:  fmt.Sprintf("%s at %s: %s is never built", answer, proxy, cluster),
				Message: fmt.Sprintf("%s routes to subset %q of %s, but for %s istiod applies DestinationRule %s/%s (the proxy's namespace comes first on the lookup path), which does not define it; %s does, but rules of different namespaces never merge.", vsRef, d.Subset, h, proxy, own.Namespace, own.Name, drRef),
				Fix:     fmt.Sprintf("Define subset %q in DestinationRule %s/%s (as %s defines it), or delete that rule so %s applies.", d.Subset, own.Namespace, own.Name, drRef, drRef)})
			return
		}
		exp := rules.EffectiveExportTo(definer.Spec.ExportTo, a.drs.DefaultExportTo)
		a.add(AuditFinding{Code: AuditDRNotExportedToClient, Kind: "DestinationRule", Namespace: definer.Namespace, Name: definer.Name,
			Field: "spec.exportTo", ExportTo: exp, NeededIn: []string{ns}, MissingIn: []string{ns},
			Impact: fmt.Sprintf("%s at %s: %s is never built", answer, proxy, cluster),
			Message: fmt.Sprintf("%s defines subset %q of %s, and is on the lookup path of %s (%s), but its exportTo %s leaves %s out.",
				drRef, d.Subset, h, proxy, lookupPath(ns, chosen.Namespace, a.rootNs), fmtList(exp), ns),
			widen: widenExportTo(drRef, definer.Spec.ExportTo, definer.Namespace)})
		return
	}
	a.add(AuditFinding{Code: AuditDRNotOnLookupPath, Kind: "DestinationRule", Namespace: definer.Namespace, Name: definer.Name,
		ExportTo: rules.EffectiveExportTo(definer.Spec.ExportTo, a.drs.DefaultExportTo), NeededIn: []string{ns}, MissingIn: []string{ns},
		Impact: fmt.Sprintf("%s at %s: %s is never built", answer, proxy, cluster),
		Message: fmt.Sprintf("%s defines subset %q of %s, a host owned by namespace %s. For %s istiod looks up DestinationRules in %s, %s, so the rule only takes effect for proxies in %s whatever its exportTo.",
			drRef, d.Subset, h, chosen.Namespace, proxy, lookupPath(ns, chosen.Namespace, a.rootNs), "and nowhere else", definer.Namespace),
		Fix: fmt.Sprintf("# move %s to namespace %s (the service's namespace), exported to \"*\":\nmetadata:\n  name: %s\n  namespace: %s", drRef, chosen.Namespace, definer.Name, chosen.Namespace)})
}

// duplicates reports hosts for which several entries are visible in one proxy namespace.
func (a *auditor) duplicates() {
	hosts := map[string]bool{}
	for _, se := range a.snap.ServiceEntries {
		for _, h := range se.Spec.Hosts {
			hosts[rules.NormalizeHost(h)] = true
		}
	}
	namespaces := map[string]bool{}
	for _, n := range a.snap.Namespaces {
		namespaces[n.Name] = true
	}
	gatewayNs := map[string]bool{}
	for _, w := range GatewayWorkloads(a.snap) {
		namespaces[w.Namespace] = true
		gatewayNs[w.Namespace] = true
	}
	var hs []string
	for h := range hosts {
		hs = append(hs, h)
	}
	sort.Strings(hs)
	scopeOf := map[string]rules.SidecarScope{}
	for _, h := range hs {
		services := a.registry.ForHost(h)
		if len(services) < 2 {
			continue
		}
		var nss []string
		for n := range namespaces {
			nss = append(nss, n)
		}
		sort.Strings(nss)
		for _, ns := range nss {
			scoped := services
			if !gatewayNs[ns] {
				// an entry the namespace's Sidecar excludes is not in its proxies' scope
				// (blind audit 63 b5)
				sc, ok := scopeOf[ns]
				if !ok {
					sc = rules.NewSidecarScope(namespaceSidecar(a.snap, ns), "")
					scopeOf[ns] = sc
				}
				scoped = withoutExcluded(services, sc, ns, h)
			}
			chosen, visible := rules.ServiceForProxy(scoped, ns)
			if len(visible) < 2 {
				continue
			}
			rule := "entries exported to the namespace first, then public ones, oldest first"
			if !gatewayNs[ns] {
				// sidecars: the namespace's own entry first (sidecar.go selectServices under
				// PILOT_UNIFIED_SIDECAR_SCOPE; rules.EgressListener's service choice)
				if i := slices.IndexFunc(visible, func(s rules.Service) bool { return s.Namespace == ns }); i >= 0 {
					c := visible[i]
					chosen = &c
				}
				rule = "sidecars take an entry of their own namespace first, then entries exported to the namespace, then public ones, oldest first"
			}
			fix := "keep one entry per host, or narrow the others' exportTo"
			if r, f, ok := kubeServicePrecedence(*chosen, visible, h); ok {
				rule, fix = r, f
			}
			if allMerged(*chosen, visible) {
				continue // one service for the proxies: its ports merged
			}
			var others []string
			for _, s := range visible {
				if s.Ref() != chosen.Ref() {
					others = append(others, s.Ref())
				}
			}
			a.add(AuditFinding{Code: AuditDuplicateHost, Kind: chosen.Kind, Namespace: chosen.Namespace, Name: chosen.Name, ExportTo: chosen.ExportTo,
				NeededIn: []string{ns}, MissingIn: nil,
				Impact:  fmt.Sprintf("proxies in %s use %s for %s; %s", ns, chosen.Ref(), h, ignoredOrMerged(*chosen, visible)),
				Message: fmt.Sprintf("%d entries declare %s and are visible in %s: %s is used (%s).", len(visible), h, ns, chosen.Ref(), rule),
				Fix:     fix})
		}
	}
}

func exportToYAML(ref string, declared []string, ownNs, addNs string) string {
	return exportToPatch(ref, declared, ownNs, addNs).Text()
}

// exportToPatch is exportToYAML's change as a patch of the resource "Kind ns/name".
func exportToPatch(ref string, declared []string, ownNs, addNs string) *Patch {
	return exportToPatchAll(ref, declared, ownNs, []string{addNs})
}

// exportToPatchAll is exportToPatch adding every namespace of add.
func exportToPatchAll(ref string, declared []string, ownNs string, add []string) *Patch {
	return refPatch(ref, fields{{"spec", fields{{"exportTo", widenedExportToAll(declared, ownNs, add)}}}})
}

// widenExportTo is the fix of an audit finding that exports the resource ("Kind ns/name") to
// the namespaces it is missing in, written when the report is (AuditFinding.widen).
//
// Beyond maxListedNamespaces namespaces to add, it exports the resource to every namespace
// instead and says how many need it: on a large mesh a resource hidden from the namespaces of a
// route exported everywhere is missing in hundreds, and a fix listing each of them is neither
// readable nor what an operator would apply (export-audit -o json still lists them, missingIn).
func widenExportTo(ref string, declared []string, ownNs string) func([]string) string {
	return func(missing []string) string {
		if n := addedNamespaces(declared, ownNs, missing); n > maxListedNamespaces {
			p := refPatch(ref, fields{{"spec", fields{{"exportTo", []string{rules.ExportPublic}}}}})
			p.note = everyNamespaceNote(n)
			return p.Text()
		}
		return exportToPatchAllText(ref, declared, ownNs, missing)
	}
}

// maxListedNamespaces is the most namespaces an exportTo fix lists (widenExportTo).
const maxListedNamespaces = 10

// addedNamespaces is how many namespaces widening declared to missing adds.
func addedNamespaces(declared []string, ownNs string, missing []string) int {
	if len(missing) <= maxListedNamespaces {
		return len(missing) // (at most this many: no need to count exactly)
	}
	return len(widenedExportToAll(declared, ownNs, missing)) - len(keptExportTo(declared))
}

// everyNamespaceNote follows the resource in a fix that exports it to every namespace.
func everyNamespaceNote(n int) string {
	return fmt.Sprintf(" (%d more namespaces need it: \"*\" exports it to every namespace; export-audit -o json lists them under missingIn)", n)
}

// exportToPatchAllText is exportToPatchAll(...).Text() written directly: an audit of a large
// mesh writes thousands of these, each listing up to every namespace, and only the text is kept
// (TestExportToPatchAllText holds the two to the same bytes).
func exportToPatchAllText(ref string, declared []string, ownNs string, add []string) string {
	list := widenedExportToAll(declared, ownNs, add)
	var b strings.Builder
	b.Grow(len(ref) + 24 + 8*len(list))
	b.WriteString("# ")
	b.WriteString(ref)
	b.WriteString("\nspec:\n  exportTo:")
	for _, x := range list {
		b.WriteString("\n  - ")
		b.WriteString(strconv.Quote(x))
	}
	return b.String()
}

// widenServiceExportTo is widenExportTo for a Kubernetes Service's exportTo annotation.
// (beyond maxListedNamespaces: "*", as widenExportTo).
func widenServiceExportTo(name string, declared []string, ownNs string) func([]string) string {
	return func(missing []string) string {
		if n := addedNamespaces(declared, ownNs, missing); n > maxListedNamespaces {
			p := newPatch("v1", "Service", ownNs, name, fields{{"apiVersion", "v1"}, {"kind", "Service"},
				{"metadata", fields{{"name", name}, {"namespace", ownNs}, {"annotations", fields{{"networking.istio.io/exportTo", rules.ExportPublic}}}}}})
			p.note = everyNamespaceNote(n)
			return p.Text()
		}
		return serviceExportToPatchAll(name, declared, ownNs, missing).Text()
	}
}

// widenedExportToAll is widenedExportTo with every namespace of add.
func widenedExportToAll(declared []string, ownNs string, add []string) []string {
	keep := widenedExportTo(declared, ownNs, add[0])
	keep = slices.Grow(keep, len(add)-1)
	first := len(keep) // keep[:first]: what the resource declares, and add[0]
	private := slices.Contains(keep, rules.ExportPrivate)
	// add is usually sorted and without repeats (a finding's MissingIn, every namespace of a
	// large mesh): a repeat is then the previous name; otherwise a set finds repeats
	var seen map[string]bool
	sorted := slices.IsSorted(add)
	if !sorted {
		seen = make(map[string]bool, len(add))
	}
	for i, n := range add[1:] {
		switch {
		case n == ownNs && private, slices.Contains(keep[:first], n):
			continue
		case sorted && n == add[i]:
			continue
		case !sorted && seen[n]:
			continue
		}
		if !sorted {
			seen[n] = true
		}
		keep = append(keep, n)
	}
	return keep
}

// widenedExportTo is declared with addNs added ("." kept, "~" dropped, "." when it declares
// nothing and the mesh default hid it).
func widenedExportTo(declared []string, ownNs, addNs string) []string {
	keep := keptExportTo(declared)
	if addNs != ownNs || !slices.Contains(keep, rules.ExportPrivate) {
		keep = append(keep, addNs)
	}
	return keep
}

// keptExportTo is what a widened exportTo keeps of declared ("~" dropped, "." when nothing is
// left).
func keptExportTo(declared []string) []string {
	keep := []string{}
	for _, x := range declared {
		if x != rules.ExportNone {
			keep = append(keep, x)
		}
	}
	if len(keep) == 0 {
		keep = []string{rules.ExportPrivate}
	}
	return keep
}

// serviceExportToPatch is the annotation that adds namespace addNs to a Kubernetes Service's
// exportTo (keeping what it declares; "." when it declares nothing and the mesh default hid it).
func serviceExportToPatch(name string, declared []string, ownNs, addNs string) *Patch {
	return serviceExportToPatchAll(name, declared, ownNs, []string{addNs})
}

// kubeServiceExportFix: the culprit and the patch that widen Kubernetes Service s's exportTo to
// addNs. For the Service istiod deploys for a Gateway API Gateway, which its deployment
// controller re-applies, that is the Gateway: the annotation goes in its
// spec.infrastructure.annotations (or its own annotations without infrastructure), which istiod
// copies onto the Service (gatewaycommon/deploymentcontroller.go extractInfrastructureAnnotations,
// kube-gateway.yaml; blind audit 53 t-f1g, whose fix edited the generated Service).
func kubeServiceExportFix(snap *snapshot.Snapshot, s rules.Service, addNs string) (string, *Patch) {
	p := serviceExportToPatch(s.Name, s.DeclaredExportTo, s.Namespace, addNs)
	if snap == nil {
		return s.Ref(), p
	}
	g := kubeGatewayServing(snap, s)
	if g == nil {
		return s.Ref(), p
	}
	value := strings.Join(widenedExportToAll(s.DeclaredExportTo, s.Namespace, []string{addNs}), ",")
	ann := fields{{"annotations", fields{{"networking.istio.io/exportTo", value}}}}
	gp := newPatch("gateway.networking.k8s.io/v1", "Gateway", g.Namespace, g.Name, fields{{"metadata", ann}})
	if g.Spec.Infrastructure != nil && g.Spec.Infrastructure.Annotations != nil {
		// (istiod copies these instead of the Gateway's own annotations when they are set)
		gp = newPatch("gateway.networking.k8s.io/v1", "Gateway", g.Namespace, g.Name, fields{{"spec", fields{{"infrastructure", ann}}}})
	}
	gp.note = fmt.Sprintf(" (istiod copies it onto Service %s/%s, which it deploys and rewrites)", s.Namespace, s.Name)
	gp.derived = p
	return "Gateway " + g.Namespace + "/" + g.Name, gp
}

// serviceExportToPatchAll is serviceExportToPatch adding every namespace of add.
func serviceExportToPatchAll(name string, declared []string, ownNs string, add []string) *Patch {
	return newPatch("v1", "Service", ownNs, name, fields{{"apiVersion", "v1"}, {"kind", "Service"},
		{"metadata", fields{{"name", name}, {"namespace", ownNs}, {"annotations", fields{{"networking.istio.io/exportTo", strings.Join(widenedExportToAll(declared, ownNs, add), ",")}}}}}})
}

// shadowed reports a DestinationRule in the proxy's namespace that hides the rule the
// service's own namespace has for the same host.
func (a *auditor) shadowed(dr *rules.DRChoice, h, svcNs, ns, proxy string) {
	if dr == nil || dr.Step != "proxy namespace" || svcNs == ns {
		return
	}
	for _, r := range a.snap.DestinationRules {
		if r.Namespace != svcNs || strings.ToLower(rules.ResolveShortname(r.Spec.GetHost(), r.Namespace)) != h {
			continue
		}
		own := dr.Rules[0]
		a.add(AuditFinding{Code: AuditDRShadowed, Kind: "DestinationRule", Namespace: own.Namespace, Name: own.Name,
			ExportTo: rules.EffectiveExportTo(own.Spec.ExportTo, a.drs.DefaultExportTo), NeededIn: []string{ns},
			Impact: fmt.Sprintf("%s applies DestinationRule %s/%s, not %s/%s", proxy, own.Namespace, own.Name, r.Namespace, r.Name),
			Message: fmt.Sprintf("DestinationRule %s/%s in the proxy's namespace hides DestinationRule %s/%s of the service's namespace for %s; rules from different namespaces never merge.",
				own.Namespace, own.Name, r.Namespace, r.Name, h),
			Fix: "merge the two rules into one, or delete the one in " + ns})
		return
	}
}

// lookupPath lists the namespaces istiod searches for a proxy in ns and a service in svcNs.
func lookupPath(ns, svcNs, rootNs string) string {
	path := []string{ns}
	for _, n := range []string{svcNs, rootNs} {
		if !slices.Contains(path, n) {
			path = append(path, n)
		}
	}
	return strings.Join(path, " then ")
}

// exportedBeyondUse suggests narrowing a ServiceEntry exported to every namespace when the mesh
// shows the intent to restrict egress: meshConfig.outboundTrafficPolicy REGISTRY_ONLY, or client
// namespaces whose namespace-wide Sidecar does not import the entry. The namespaces known to use
// the entry are its own, those whose proxies need it for a route (gateway or mesh), and those
// whose Sidecars import it; the suggestion keeps exactly those. Pods calling the host directly
// from a namespace without a Sidecar leave no trace in config, so the message asks the
// operator to add such namespaces.
//
// Visibility as istiod decides it: pilot/pkg/model/push_context.go IsServiceVisible /
// servicesExportedToNamespace; Sidecar imports: pilot/pkg/model/sidecar.go selectServices.
func (a *auditor) exportedBeyondUse(meshMode string) {
	registryOnly := meshMode == rules.RegistryOnly
	clients := ClientNamespaces(a.snap)
	// The namespace-wide Sidecar of each client namespace (nil: none, imports everything).
	type nsScope struct {
		ns    string
		scope rules.SidecarScope
	}
	var restricted []nsScope
	for _, ns := range clients {
		sc := rules.SelectSidecar(a.snap.Sidecars, a.rootNs, ns, nil)
		if sc == nil {
			continue
		}
		restricted = append(restricted, nsScope{ns, rules.NewSidecarScope(sc, meshMode)})
	}
	if !registryOnly && len(restricted) == 0 {
		return
	}
	for _, se := range a.snap.ServiceEntries {
		services := a.registry.ForEntry(se)
		if len(services) == 0 || !slices.Contains(services[0].ExportTo, rules.ExportPublic) {
			continue
		}
		users := map[string]bool{se.Namespace: true}
		for _, n := range a.neededIn(rules.KindServiceEntry, se.Namespace, se.Name) {
			users[n] = true
		}
		// A mesh VirtualService for the host (routing it to an egress gateway, say) applies in
		// the client namespaces it is visible to, and its routes there need the entry: without
		// it the sidecars build no chain or virtual host for the host (blind audit 29 #10,
		// where exporting the entry to its users only broke the calls).
		for _, vs := range a.vsIndex.Relevant(services[0].Hostname, nil) {
			if !slices.Contains(rules.VSGateways(vs), rules.MeshGateway) {
				continue
			}
			exp := rules.EffectiveExportTo(vs.Spec.ExportTo, a.vsExport)
			for _, ns := range clients {
				if !users[ns] && rules.VirtualServiceVisible(vs.Namespace, exp, ns) {
					users[ns] = true
				}
			}
		}
		var notImporting []string
		for _, r := range restricted {
			imported := false
			for _, el := range r.scope.Egress {
				if len(el.SelectServices(services, r.ns)) > 0 || namesHost(el.Hosts, services) {
					imported = true
					break
				}
			}
			if imported {
				users[r.ns] = true
			} else {
				notImporting = append(notImporting, r.ns)
			}
		}
		// Sidecars with a workloadSelector import for some pods of their namespace.
		for _, sc := range a.snap.Sidecars {
			if len(sc.Spec.GetWorkloadSelector().GetLabels()) == 0 || users[sc.Namespace] {
				continue
			}
			for _, el := range rules.NewSidecarScope(sc, meshMode).Egress {
				if len(el.SelectServices(services, sc.Namespace)) > 0 || namesHost(el.Hosts, services) {
					users[sc.Namespace] = true
					break
				}
			}
		}
		unused := 0
		for _, ns := range clients {
			if !users[ns] {
				unused++
			}
		}
		if unused == 0 || (!registryOnly && len(notImporting) == 0) {
			continue
		}
		var why string
		switch {
		case len(notImporting) > 0:
			why = fmt.Sprintf("the Sidecars of %d client namespace(s) (%s) do not import it", len(notImporting), fmtNamespaces(notImporting))
		default:
			why = "meshConfig.outboundTrafficPolicy is REGISTRY_ONLY (only registered hosts are reachable)"
		}
		keep := []string{rules.ExportPrivate}
		var used []string
		for n := range users {
			if n != se.Namespace {
				used = append(used, n)
			}
		}
		sort.Strings(used)
		keep = append(keep, used...)
		ref := "ServiceEntry " + se.Namespace + "/" + se.Name
		alternative := fmt.Sprintf("If the other namespaces should reach %s, route to it or, where a Sidecar restricts egress, import it (egress host %q). ", services[0].Hostname, se.Namespace+"/"+services[0].Hostname)
		known := "only its own namespace"
		if len(used) > 0 {
			known = "its own namespace and " + fmtNamespaces(used)
		}
		a.add(AuditFinding{Code: AuditSEExportedEverywhere, Kind: rules.KindServiceEntry, Namespace: se.Namespace, Name: se.Name,
			ExportTo: services[0].ExportTo, NeededIn: append([]string{se.Namespace}, used...),
			Impact: fmt.Sprintf("every namespace's proxies receive %s although %d client namespace(s) have no known use for it", ref, unused),
			Message: fmt.Sprintf("%s is exported to every namespace, but %s. Known users: %s (routes that need it, Sidecars that import it). %sIf not, export it only where it is used (fix below), adding any namespace whose pods call the host directly.",
				ref, why, known, alternative),
			Fix: fmt.Sprintf("# %s\nspec:\n  exportTo:\n%s", ref, strings.TrimRight(yamlItems(keep), "\n"))})
	}
}

// namesHost: some egress host "ns/host" names one of the services' hosts by its host part (a
// wildcard host part other than "*" counts), whatever its namespace part: the Sidecar means to
// use the host even when it imports it from the wrong namespace (SIDECAR_IMPORTS_UNDECLARED_HOST).
func namesHost(egressHosts []string, services []rules.Service) bool {
	for _, eh := range egressHosts {
		ns, h, ok := strings.Cut(eh, "/")
		if !ok || strings.HasPrefix(ns, "~") || h == "*" {
			continue
		}
		h = rules.NormalizeHost(h)
		for _, s := range services {
			if h == s.Hostname || rules.HostSubsetOf(s.Hostname, h) {
				return true
			}
		}
	}
	return false
}

// fmtNamespaces lists up to five namespaces, then a count of the rest.
func fmtNamespaces(ns []string) string {
	if len(ns) <= 5 {
		return strings.Join(ns, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(ns[:5], ", "), len(ns)-5)
}
