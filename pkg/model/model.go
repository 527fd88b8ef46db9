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
func View(snap *snapshot.Snapshot, rev string) *snapshot.Snapshot {
	return memo(snap, viewKey{RevKey(rev)}, func() *snapshot.Snapshot {
		v := *snap
		v.ServiceEntries = filterRev[*networkingv1.ServiceEntry](snap.ServiceEntries, rev)
		v.VirtualServices = filterRev[*networkingv1.VirtualService](snap.VirtualServices, rev)
		v.DestinationRules = filterRev[*networkingv1.DestinationRule](snap.DestinationRules, rev)
		v.Gateways = filterRev[*networkingv1.Gateway](snap.Gateways, rev)
		v.Sidecars = filterRev[*networkingv1.Sidecar](snap.Sidecars, rev)
		v.WorkloadEntries = filterRev[*networkingv1.WorkloadEntry](snap.WorkloadEntries, rev)
		v.EnvoyFilters = filterRev[*networkingv1alpha3.EnvoyFilter](snap.EnvoyFilters, rev)
		return &v
	})
}

type drKey struct{ root, export string }

// DestinationRules returns the DestinationRule index of a revision view (rules.NewDRLookup),
// built once per root namespace and defaultDestinationRuleExportTo.
func DestinationRules(view *snapshot.Snapshot, rootNs string, defaultExportTo []string) *rules.DRLookup {
	return memo(view, drKey{rootNs, strings.Join(defaultExportTo, ",")}, func() *rules.DRLookup {
		return rules.NewDRLookup(view.DestinationRules, rootNs, defaultExportTo)
	})
}
