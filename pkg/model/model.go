// Package model is kubectl-egress's push context: the indexes istiod's PushContext keeps,
// built once per snapshot (and per istiod revision) and read by every command, instead of each
// question re-scanning the snapshot.
//
// Data flows one way: a loader fills a snapshot; this package derives its indexes on first use
// and keeps them with the snapshot (snapshot.Derived); checks (pkg/checks) read the indexes and
// the decisions of pkg/rules, which stay the single source of each istiod rule. Every index
// returns what the corresponding linear function of pkg/rules returns, in the same order; the
// tests of this package compare them on every case file and on a generated mesh.
//
// Mirrors istiod pilot/pkg/model/push_context.go (initServiceRegistry, initVirtualServices,
// setDestinationRules): one push context per istiod revision, built once, read per proxy.
package model

import (
	"strings"

	networkingv1 "istio.io/client-go/pkg/apis/networking/v1"
	networkingv1alpha3 "istio.io/client-go/pkg/apis/networking/v1alpha3"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/kubectl-egress/kubectl-egress/pkg/rules"
	"github.com/kubectl-egress/kubectl-egress/pkg/snapshot"
)

// RevisionLabel is the label that binds config, a workload or a namespace to an istiod revision.
const RevisionLabel = "istio.io/rev"

// memo returns the value kept with snap under key, building it on first use.
func memo[K comparable, V any](snap *snapshot.Snapshot, key K, build func() V) V {
	return snap.Derived(key, func() any { return build() }).(V)
}

// RevKey normalises a revision name: "" and "default" are the default revision.
func RevKey(r string) string {
	if r == "" || r == "default" {
		return ""
	}
	return r
}

// InRevision reports whether an Istio config object with labels l is read by the istiod of
// revision rev: objects without an istio.io/rev label are global; a labelled object is read
// only by the revision it names. The default revision's istiod runs with REVISION=default.
//
// Mirrors istiod pkg/config/model.go LabelsInRevision, used by
// pilot/pkg/config/kube/crdclient/client.go (revision tags are not modelled).
func InRevision(l map[string]string, rev string) bool {
	v, ok := l[RevisionLabel]
	if !ok {
		return true
	}
	return RevKey(v) == RevKey(rev)
}

func filterRev[T interface{ GetLabels() map[string]string }](in []T, rev string) []T {
	out := make([]T, 0, len(in))
	for _, o := range in {
		if InRevision(o.GetLabels(), rev) {
			out = append(out, o)
		}
	}
	return out
}

type viewKey struct{ rev string }

// View returns the part of snap the istiod of revision rev reads: a shallow copy holding only
// the Istio configuration of that revision (ServiceEntries, VirtualServices,
// DestinationRules, Gateways, Sidecars, WorkloadEntries, EnvoyFilters); Kubernetes objects are
// shared by every revision. The view is built once per snapshot and revision, so indexes kept
// with it are shared by every question about that revision.
//
// The view of a view for the same revision is the view itself (a copy changed after it was
// made is not): asking again must neither convert its Gateway API objects twice nor build its
// indexes again.
func View(snap *snapshot.Snapshot, rev string) *snapshot.Snapshot {
	if p := snap.ViewOf; p != nil && snap.ViewRev == RevKey(rev) && View(p, rev) == snap {
		return snap
	}
	return memo(snap, viewKey{RevKey(rev)}, func() *snapshot.Snapshot {
		v := *snap
		v.ViewOf, v.ViewRev = snap, RevKey(rev)
		v.ServiceEntries = filterRev[*networkingv1.ServiceEntry](snap.ServiceEntries, rev)
		v.VirtualServices = filterRev[*networkingv1.VirtualService](snap.VirtualServices, rev)
		v.DestinationRules = filterRev[*networkingv1.DestinationRule](snap.DestinationRules, rev)
		v.Gateways = filterRev[*networkingv1.Gateway](snap.Gateways, rev)
		v.Sidecars = filterRev[*networkingv1.Sidecar](snap.Sidecars, rev)
		v.WorkloadEntries = filterRev[*networkingv1.WorkloadEntry](snap.WorkloadEntries, rev)
		v.EnvoyFilters = filterRev[*networkingv1alpha3.EnvoyFilter](snap.EnvoyFilters, rev)
		kgws := filterRev[*gatewayv1.Gateway](snap.KubeGateways, rev)
		routes := filterRev[*gatewayv1.HTTPRoute](snap.HTTPRoutes, rev)
		grpcRoutes := filterRev[*gatewayv1.GRPCRoute](snap.GRPCRoutes, rev)
		tlsRoutes := filterRev[*gatewayv1.TLSRoute](snap.TLSRoutes, rev)
		tcpRoutes := filterRev[*gatewayv1.TCPRoute](snap.TCPRoutes, rev)
		// istiod ignores a route kind whose CRD is older than it supports
		// (rules.KubeCRDIgnored)
		if crdIgnored(snap, "GRPCRoute") {
			grpcRoutes = nil
		}
		if crdIgnored(snap, "TLSRoute") {
			tlsRoutes = nil
		}
		if crdIgnored(snap, "TCPRoute") {
			tcpRoutes = nil
		}
		if und := Undiscovered(snap, rev); len(und) > 0 {
			kgws = filterNs(kgws, und)
			routes = filterNs(routes, und)
			grpcRoutes = filterNs(grpcRoutes, und)
			tlsRoutes = filterNs(tlsRoutes, und)
			tcpRoutes = filterNs(tcpRoutes, und)
			v.ServiceEntries = filterNs(v.ServiceEntries, und)
			v.VirtualServices = filterNs(v.VirtualServices, und)
			v.DestinationRules = filterNs(v.DestinationRules, und)
			v.Gateways = filterNs(v.Gateways, und)
			v.Sidecars = filterNs(v.Sidecars, und)
			v.WorkloadEntries = filterNs(v.WorkloadEntries, und)
			v.EnvoyFilters = filterNs(v.EnvoyFilters, und)
			v.Services = filterNs(v.Services, und)
		}
		// The Kubernetes Gateway API, as istiod's Gateway API controller turns it into Istio
		// configuration: Gateways of an Istio class into one internal Gateway per listener,
		// HTTPRoutes, GRPCRoutes, TLSRoutes and TCPRoutes bound to them or to a Service or ServiceEntry (the
		// mesh) into VirtualServices (rules.ConvertKubeGateways, rules.ConvertHTTPAndGRPCRoutes,
		// rules.ConvertTLSRoutes, rules.ConvertTCPRoutes). Its routes are read per revision
		// (LabelsInRevision); Gateways by revision tag in istiod, here by the same label.
		if len(kgws) > 0 {
			v.Gateways = append(v.Gateways, rules.ConvertKubeGateways(kgws, snap.GatewayClasses, snap.Namespaces, snap.ReferenceGrants, snap.SecretKnownMissing)...)
		}
		if len(routes)+len(grpcRoutes)+len(tlsRoutes)+len(tcpRoutes) > 0 {
			in := rules.KubeRouteInputs{Gateways: kgws, Classes: snap.GatewayClasses, Namespaces: snap.Namespaces, Grants: snap.ReferenceGrants,
				Services: v.Services, ServiceEntries: v.ServiceEntries}
			v.VirtualServices = append(v.VirtualServices, rules.ConvertHTTPAndGRPCRoutes(routes, grpcRoutes, in)...)
			v.VirtualServices = append(v.VirtualServices, rules.ConvertTLSRoutes(tlsRoutes, in)...)
			v.VirtualServices = append(v.VirtualServices, rules.ConvertTCPRoutes(tcpRoutes, in)...)
		}
		return &v
	})
}

type undiscoveredKey struct{ rev string }

// Undiscovered returns the namespaces the istiod of revision rev does not discover: with
// meshConfig.discoverySelectors set, istiod reads namespaced objects (Istio configuration and
// Kubernetes Services alike) only in namespaces whose labels match one of the selectors. Only
// namespaces the input holds are judged (their labels are known); nil when every namespace is
// discovered, the selectors are unset or invalid, or the namespaces could not be read.
//
// Mirrors istiod pkg/kube/namespace/filter.go discoveryNamespacesFilter (selectorsChanged,
// Filter: an object in a namespace that no selector matches is dropped), applied to Istio
// configuration by pilot/pkg/config/kube/crdclient/client.go (ComposeFilters(namespaceFilter,
// inRevision, ...)).
func Undiscovered(snap *snapshot.Snapshot, rev string) map[string]bool {
	return discovery(snap, rev).undiscovered
}

// DiscoveryUnknown returns the namespaces holding Istio configuration or Services that the input
// has no Namespace object for, while meshConfig.discoverySelectors of revision rev are set and
// the name label alone (kubernetes.io/metadata.name) matches none of them: whether istiod
// discovers them depends on labels nobody read. They are treated as discovered; verdicts that
// rest on their objects say so.
func DiscoveryUnknown(snap *snapshot.Snapshot, rev string) map[string]bool {
	return discovery(snap, rev).unknown
}

type discoveryResult struct{ undiscovered, unknown map[string]bool }

func discovery(snap *snapshot.Snapshot, rev string) discoveryResult {
	return memo(snap, undiscoveredKey{RevKey(rev)}, func() discoveryResult {
		src := snap.MeshConfigs[RevKey(rev)]
		if src == nil {
			src = snap.MeshConfigs[""]
		}
		if src == nil || src.Config == nil || len(src.Config.GetDiscoverySelectors()) == 0 {
			return discoveryResult{}
		}
		_, nsUnread := snap.Unknown[snapshot.KindNamespace]
		var sels []labels.Selector
		for _, ds := range src.Config.GetDiscoverySelectors() {
			ls := &metav1.LabelSelector{MatchLabels: ds.GetMatchLabels()}
			for _, e := range ds.GetMatchExpressions() {
				ls.MatchExpressions = append(ls.MatchExpressions, metav1.LabelSelectorRequirement{Key: e.GetKey(), Operator: metav1.LabelSelectorOperator(e.GetOperator()), Values: e.GetValues()})
			}
			sel, err := metav1.LabelSelectorAsSelector(ls)
			if err != nil {
				return discoveryResult{} // istiod keeps its previous filter on an invalid selector
			}
			sels = append(sels, sel)
		}
		selected := func(name string, nsLabels map[string]string) bool {
			// The API server labels every namespace kubernetes.io/metadata.name=<name>
			// (manifests usually omit it).
			l := labels.Set{corev1.LabelMetadataName: name}
			for k, v := range nsLabels {
				l[k] = v
			}
			for _, sel := range sels {
				if sel.Matches(l) {
					return true
				}
			}
			return false
		}
		var r discoveryResult
		known := map[string]bool{}
		for _, ns := range snap.Namespaces {
			if nsUnread {
				// Namespaces could not be listed: no label is known, every namespace holding
				// configuration is taken as discovered (and said to be unknown, below).
				break
			}
			known[ns.Name] = true
			if !selected(ns.Name, ns.Labels) {
				if r.undiscovered == nil {
					r.undiscovered = map[string]bool{}
				}
				r.undiscovered[ns.Name] = true
			}
		}
		note := func(ns string) {
			if ns == "" || known[ns] || (!nsUnread && selected(ns, nil)) {
				return
			}
			if r.unknown == nil {
				r.unknown = map[string]bool{}
			}
			r.unknown[ns] = true
		}
		for _, o := range snap.ServiceEntries {
			note(o.Namespace)
		}
		for _, o := range snap.VirtualServices {
			note(o.Namespace)
		}
		for _, o := range snap.DestinationRules {
			note(o.Namespace)
		}
		for _, o := range snap.Gateways {
			note(o.Namespace)
		}
		for _, o := range snap.Services {
			note(o.Namespace)
		}
		return r
	})
}

func filterNs[T interface{ GetNamespace() string }](in []T, drop map[string]bool) []T {
	out := make([]T, 0, len(in))
	for _, o := range in {
		if !drop[o.GetNamespace()] {
			out = append(out, o)
		}
	}
	return out
}

type drKey struct{ root, export string }

// DestinationRules returns the DestinationRule index of a revision view (rules.NewDRLookup),
// built once per root namespace and defaultDestinationRuleExportTo.
func DestinationRules(view *snapshot.Snapshot, rootNs string, defaultExportTo []string) *rules.DRLookup {
	return memo(view, drKey{rootNs, strings.Join(defaultExportTo, ",")}, func() *rules.DRLookup {
		return rules.NewDRLookup(view.DestinationRules, rootNs, defaultExportTo)
	})
}

// crdIgnored says whether istiod ignores every object of a Gateway API kind because of its CRD
// (a CRD the input does not hold is taken as recent enough).
func crdIgnored(snap *snapshot.Snapshot, kind string) bool {
	c, ok := snap.GatewayAPICRDs[kind]
	if !ok {
		return false
	}
	ign, _ := rules.KubeCRDIgnored(kind, c.Version, c.Annotated)
	return ign
}
