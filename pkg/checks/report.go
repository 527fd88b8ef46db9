package checks

import (
	"encoding/json"
	"slices"

	"github.com/kubectl-egress/kubectl-egress/pkg/rules"
)

// SchemaVersion identifies the JSON/YAML shape of a why-missing Report. It changes only when a
// field is removed or its meaning changes; new fields may be added within a version.
const SchemaVersion = "kubectl-egress.io/why-missing/v1"

// Result of one diagnostic step.
type Result string

const (
	// Pass: the step's condition holds for this gateway.
	Pass Result = "pass"
	// Fail: the step's condition does not hold; the first failing step is the verdict's cause.
	Fail Result = "fail"
	// Warn: the condition holds for the cluster but something on the path will still fail
	// (for example the route does not bind, or the cluster has no endpoints).
	Warn Result = "warn"
	// Unknown: the input needed was not readable (RBAC, an unresolvable valueFrom); the
	// verdict states the assumption made instead.
	Unknown Result = "unknown"
	// Skipped: the step does not apply (for example the route check when the flag is off).
	Skipped Result = "skipped"
	// NotChecked: the step needs live proxy state this version does not read yet.
	NotChecked Result = "not-checked"
)

// Report is the whole answer of `kubectl egress why-missing HOST`.
type Report struct {
	SchemaVersion string `json:"schemaVersion"`
	// Host as asked (lower-cased, trailing dot removed).
	Host string `json:"host"`
	// Port asked with --port; 0 when every declared port is considered.
	Port uint32 `json:"port,omitempty"`
	// Source: "cluster ..." or "files ...".
	Source string `json:"source"`
	// Services lists every registry entry (ServiceEntry or Service) that declares Host.
	Services []ServiceRef `json:"services"`
	// Suggestions are near matches when no entry declares Host.
	Suggestions []string `json:"suggestions,omitempty"`
	// Gateways holds one verdict per gateway workload diagnosed.
	Gateways []GatewayVerdict `json:"gateways"`
	// Present is true when every expected cluster is present on every gateway diagnosed.
	Present bool `json:"present"`
	// Path is the call traced from a client workload (--from, --pod), hop by hop.
	Path *PathTrace `json:"path,omitempty"`
	// UntracedPaths are the mesh routes that send the host to a gateway Service, listed when no
	// client was named: the paths why-missing did not trace, each with the command that does.
	UntracedPaths []GatewayRoute `json:"untracedPaths,omitempty"`
	// Waypoints: when no client was named, the entries of the host bound to an ambient
	// waypoint, each with how to trace an ambient client's call through it.
	Waypoints []string `json:"waypoints,omitempty"`
	// Symptom relates --symptom to the verdicts (nil without --symptom).
	Symptom *SymptomVerdict `json:"symptom,omitempty"`
}

// ServiceRef identifies a registry entry that declares the host.
type ServiceRef struct {
	Kind      string   `json:"kind"`
	Namespace string   `json:"namespace"`
	Name      string   `json:"name"`
	Hosts     []string `json:"hosts"`
	Ports     []Port   `json:"ports"`
	ExportTo  []string `json:"exportTo"`
	// ExportToBeforeVisibility is the entry's effective exportTo before
	// meshConfig.serviceEntryVisibility capped it to ExportTo (set only when the cap changed it).
	ExportToBeforeVisibility []string `json:"exportToBeforeVisibility,omitempty"`
	// ExportToAssumed says what the effective exportTo rests on that could not be read (the
	// mesh ConfigMap, the namespaces' labels), "" when nothing.
	ExportToAssumed string `json:"exportToAssumed,omitempty"`
	// Resolution is the ServiceEntry resolution (DNS, DNS_ROUND_ROBIN, STATIC, NONE,
	// DYNAMIC_DNS) or the Service kind (ClusterIP, Headless, ExternalName).
	Resolution string `json:"resolution"`
	Location   string `json:"location,omitempty"`
}

// Port is a declared service port.
type Port struct {
	Number   uint32 `json:"number"`
	Name     string `json:"name,omitempty"`
	Protocol string `json:"protocol,omitempty"`
}

// GatewayVerdict is the diagnosis for one gateway workload.
type GatewayVerdict struct {
	// Gateway is the workload as "namespace/name" (the Deployment, or the Pod without one).
	Gateway   string `json:"gateway"`
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	// Revision is the istiod revision serving the workload ("" = default).
	Revision string `json:"revision,omitempty"`
	// Present is true when every needed cluster is predicted in the gateway's CDS.
	Present bool `json:"present"`
	// Clusters are the clusters the gateway needs for Host, each predicted present or absent.
	Clusters []Cluster `json:"clusters"`
	// Cause is the stable code of the first failing step (see Catalog), or "OK".
	Cause string `json:"cause"`
	// Culprit is the resource to change, as "Kind namespace/name" ("" when none).
	Culprit string `json:"culprit,omitempty"`
	// Message explains the cause in one or two sentences.
	Message string `json:"message"`
	// Fix is a concrete change, usually a YAML fragment.
	Fix string `json:"fix,omitempty"`
	// Patch is the fix as a manifest change (Fix is rendered from it); nil when the fix is
	// advice.
	Patch *Patch `json:"patch,omitempty"`
	// Answers say what clients get when the cause is a route to a cluster the gateway lacks:
	// "503 NC", "500 NC" (a Gateway API HTTP route) or "closed (NC)" (a TLS or TCP route).
	Answers []NotFoundAnswer `json:"answers,omitempty"`
	// Assumptions made where input was unknown (for example the flag's value).
	Assumptions []string `json:"assumptions,omitempty"`
	// Notes say where generated names come from (Kubernetes Gateway API), and which Gateway API
	// objects naming the host belong to another controller (ignored, as istiod ignores them).
	Notes []string `json:"notes,omitempty"`
	// Warnings are further findings that do not decide presence (route binding, endpoints).
	Warnings []Finding `json:"warnings,omitempty"`
	// Routes are the attempts of the VirtualServices relevant to the host to bind the servers of
	// the Gateways that select this workload (seed §2.3), one per (Gateway server, VirtualService).
	Routes []RouteBinding `json:"routes,omitempty"`
	// Steps are the §3.7 checks and decision-tree steps, in order.
	Steps []Step `json:"steps"`
	// Live is the evidence read from the running proxy and istiod (nil with --no-live, -f
	// without --config-dump).
	Live *LiveState `json:"live,omitempty"`
	// emptyCluster: the host's cluster has no endpoints at this gateway (the endpoints step),
	// recorded even when an earlier step decided Cause: a traced call that reaches the cluster
	// meets it (path.go gatewayHop).
	emptyCluster *clusterFailure
}

// clusterFailure is a failure of one cluster with its culprit and fix.
type clusterFailure struct {
	culprit, msg, fix string
	patch             *Patch
}

// RouteBinding is one VirtualService against one Gateway server of the workload.
type RouteBinding struct {
	// Gateway is the Gateway resource "namespace/name"; Server the index in spec.servers.
	Gateway  string `json:"gateway"`
	Server   int    `json:"server"`
	Port     uint32 `json:"port"`
	Protocol string `json:"protocol"`
	// RouteType is the VirtualService section the server takes: http, tls or tcp.
	RouteType      string `json:"routeType"`
	VirtualService string `json:"virtualService"`
	// Result is BOUND or why not (GATEWAY_NOT_LISTED, VS_NOT_EXPORTED_TO_GATEWAY_NAMESPACE,
	// HOSTS_DISJOINT, ROUTE_TYPE_MISMATCH, NO_ROUTE_MATCHES_SERVER, AUTO_PASSTHROUGH_SERVER).
	Result string `json:"result"`
	// Hosts are the virtual host domains (http) or matched hosts (tls, tcp); SNIHosts the SNI
	// names of the applying tls matches.
	Hosts    []string `json:"hosts,omitempty"`
	SNIHosts []string `json:"sniHosts,omitempty"`
	// CoversHost: the binding answers requests for the asked host (its authority or SNI).
	CoversHost bool `json:"coversHost"`
	// Destinations are the clusters the applying routes send to, in route order.
	Destinations []string `json:"destinations,omitempty"`
}

// Cluster is one predicted Envoy cluster, in the columns of `istioctl proxy-config clusters`.
type Cluster struct {
	// Name is `outbound|<port>|<subset>|<host>`.
	Name            string `json:"name"`
	FQDN            string `json:"fqdn"`
	Port            uint32 `json:"port"`
	Subset          string `json:"subset,omitempty"`
	Direction       string `json:"direction"`
	Type            string `json:"type"`
	DestinationRule string `json:"destinationRule,omitempty"`
	// TLS is the tls.mode the DestinationRule sets for this port and subset (SIMPLE, MUTUAL,
	// ISTIO_MUTUAL, DISABLE; "" when none): what the proxy originates upstream.
	TLS     string `json:"tls,omitempty"`
	Present bool   `json:"present"`
	// Needed is true for the clusters the verdict depends on: the host's default clusters
	// (for --port, or every port) and subset clusters a route bound to the gateway uses.
	// Other subset clusters a DestinationRule defines are listed for completeness.
	Needed bool `json:"needed"`
	// Reason says why the cluster is absent ("" when present).
	Reason string `json:"reason,omitempty"`
	// Actual is what the proxy holds (seed §3.7 step e): "present", "absent" or "warming";
	// "" when no config dump was read.
	Actual string `json:"actual,omitempty"`
	// trimmedBy is the Sidecar whose egress listeners with a port keep the Service's port out
	// of the proxy's view ("" otherwise): the resource to change.
	trimmedBy string
	// trimmed is the Service trimmedBy keeps out (or keeps port Port of out).
	trimmed rules.Service
}

// LiveState is what was read from the running proxy and istiod (seed §3.7 steps d and e).
type LiveState struct {
	// Pod read, and where the dump came from ("port-forward ns/pod:15000", "file PATH").
	Pod        string `json:"pod,omitempty"`
	DumpSource string `json:"dumpSource,omitempty"`
	// Sync is istiod's sync state per xDS type (CDS, LDS, RDS, EDS): SYNCED, STALE, NOT SENT,
	// ERROR; Istiod the instance asked and IstioVersion the proxy's version it reports.
	Sync         map[string]string `json:"sync,omitempty"`
	Istiod       string            `json:"istiod,omitempty"`
	IstioVersion string            `json:"istioVersion,omitempty"`
	// NotChecked lists what could not be read, with the reason.
	NotChecked []string `json:"notChecked,omitempty"`
}

// Step is one check with its result and evidence.
type Step struct {
	// ID is the seed's §3.7 letter (a-e) or a decision-tree step name.
	ID       string     `json:"id"`
	Name     string     `json:"name"`
	Result   Result     `json:"result"`
	Summary  string     `json:"summary"`
	Evidence []Evidence `json:"evidence,omitempty"`
}

// Evidence names a resource and the field values that decided a step.
type Evidence struct {
	// Resource is "Kind namespace/name".
	Resource string `json:"resource"`
	// Field is a path such as spec.exportTo.
	Field string `json:"field,omitempty"`
	Value string `json:"value,omitempty"`
	Note  string `json:"note,omitempty"`
}

// Finding is a catalogued message about a resource (see Catalog).
type Finding struct {
	Code     string `json:"code"`
	Level    string `json:"level"`
	Resource string `json:"resource,omitempty"`
	Message  string `json:"message"`
	Fix      string `json:"fix,omitempty"`
	// Proxy is set on explain-listener findings about a hop past the proxy explained: the
	// gateway ("gateway NS/NAME") where the traced call fails.
	Proxy string `json:"proxy,omitempty"`
	// Patch is the manifest change Fix writes out, when the fix is one (not in the output:
	// Fix holds its text). Used to merge fixes that change the same resource.
	Patch *Patch `json:"-"`
}

// String returns the result as written in output.
func (r Result) String() string { return string(r) }

// Fails reports whether a call through some diagnosed gateway fails: a cluster is absent, or the
// verdict's cause is an Error (404 NR for a route that does not bind, 503 UH for a cluster with
// no endpoints), whether or not the cluster is present.
func (r *Report) Fails() bool {
	if !r.Present {
		return true
	}
	for _, g := range r.Gateways {
		if _, ok := g.CallsFail(); ok {
			return true
		}
	}
	return false
}

// TracedCallFails: the traced call (--from, --pod) fails, or it goes straight out, bypassing
// the egress gateway, while a diagnosed gateway fails for the host too (a route meant for the
// gateway that does not bind there, say): the egress setup is broken both ways (blind audit 97
// c16, where why-missing exited 0 beside its own gateway verdict ROUTE_NOT_BOUND). False
// without a traced call.
func (r *Report) TracedCallFails() bool {
	if r.Path == nil {
		return false
	}
	if r.Path.Failed() {
		return true
	}
	bypass := false
	for _, w := range r.Path.Warnings {
		bypass = bypass || w.Code == PathDirect
	}
	return bypass && len(r.Gateways) > 0 && r.Fails()
}

// CallsFail: the gateway's verdict names a fault calls meet although the cluster may be
// present: its cause is an Error, or one of its findings is (a route that loops back to the
// gateway, say: blind audit 63 b7, where the verdict said OK and the exit code was 0 beside
// that Error). The Error finding is returned (the cause itself when it is the Error).
func (g GatewayVerdict) CallsFail() (Finding, bool) {
	if e, ok := Lookup(g.Cause); ok && e.Level == LevelError {
		return Finding{Code: g.Cause, Level: LevelError, Resource: g.Culprit, Message: g.Message, Fix: g.Fix}, true
	}
	for _, w := range g.Warnings {
		if w.Level == LevelError {
			return w, true
		}
	}
	return Finding{}, false
}

// DropRepeatedWarnings removes from each gateway verdict the warnings the traced path already
// carries (the same code, resource and message: a route status disagreement, a route CRD
// istiod ignores), so the report says each once (blind audit 70 F7).
func (r *Report) DropRepeatedWarnings() {
	if r.Path == nil || len(r.Path.Warnings) == 0 {
		return
	}
	for i := range r.Gateways {
		r.Gateways[i].Warnings = slices.DeleteFunc(r.Gateways[i].Warnings, func(w Finding) bool {
			return slices.ContainsFunc(r.Path.Warnings, func(p Finding) bool {
				return p.Code == w.Code && p.Resource == w.Resource && p.Message == w.Message
			})
		})
	}
}

// MergeExportToFixes: when the traced path's fix (or one of its warnings) and a gateway's verdict
// each widen the exportTo of the same resource (the client's namespace for its mesh route, the
// gateway's for its gateway route), each fix lists both: applied one after the other as written,
// the second would drop what the first added (blind audit 98 c07).
func (r *Report) MergeExportToFixes() {
	if r.Path == nil {
		return
	}
	lists := map[string][]string{} // resource → the exportTo lists the fixes write
	sources := map[string]int{}
	var order []string
	note := func(p *Patch) {
		if l, ok := exportToOnly(p); ok {
			if _, seen := lists[p.Ref()]; !seen {
				order = append(order, p.Ref())
			}
			lists[p.Ref()] = append(lists[p.Ref()], l...)
			sources[p.Ref()]++
		}
	}
	note(r.Path.Patch)
	for i := range r.Gateways {
		note(r.Gateways[i].Patch)
	}
	warned := map[string]bool{}
	for _, w := range r.Path.Warnings {
		if _, ok := exportToOnly(w.Patch); ok {
			warned[w.Patch.Ref()] = true
			note(w.Patch)
		}
	}
	for _, ref := range order {
		if sources[ref] < 2 {
			continue
		}
		union := sortedUnique(lists[ref])
		if slices.Contains(union, rules.ExportPublic) {
			union = []string{rules.ExportPublic}
		}
		p := refPatch(ref, fields{{"spec", fields{{"exportTo", union}}}})
		replace := func(old *Patch) *Patch {
			if l, ok := exportToOnly(old); ok && old.Ref() == ref && !slices.Equal(sortedUnique(l), union) {
				return p
			}
			return old
		}
		if q := replace(r.Path.Patch); q != r.Path.Patch {
			r.Path.Patch, r.Path.Fix, r.Path.FixCheck = q, q.Text(), nil
		}
		for i := range r.Gateways {
			if q := replace(r.Gateways[i].Patch); q != r.Gateways[i].Patch {
				r.Gateways[i].Patch, r.Gateways[i].Fix = q, q.Text()
			}
		}
		if warned[ref] {
			for i, w := range r.Path.Warnings {
				if q := replace(w.Patch); q != w.Patch {
					r.Path.Warnings[i].Patch, r.Path.Warnings[i].Fix = q, q.Text()
				}
			}
		}
	}
}

// exportToOnly is the exportTo list a patch of an existing object writes when that is all it
// changes.
func exportToOnly(p *Patch) ([]string, bool) {
	if p == nil || p.Create {
		return nil, false
	}
	var m struct {
		Spec map[string]json.RawMessage `json:"spec"`
	}
	if json.Unmarshal(p.Merge, &m) != nil || len(m.Spec) != 1 || m.Spec["exportTo"] == nil {
		return nil, false
	}
	var l []string
	if json.Unmarshal(m.Spec["exportTo"], &l) != nil {
		return nil, false
	}
	return l, true
}

func sortedUnique(xs []string) []string {
	out := slices.Clone(xs)
	slices.Sort(out)
	return slices.Compact(out)
}
