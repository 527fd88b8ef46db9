package checks

import (
	networkingv1 "istio.io/client-go/pkg/apis/networking/v1"
	networkingv1alpha3 "istio.io/client-go/pkg/apis/networking/v1alpha3"

	"github.com/kubectl-egress/kubectl-egress/pkg/snapshot"
)

// inRevision reports whether an Istio config object with labels l is read by the istiod of
// revision rev: objects without an istio.io/rev label are global; a labelled object is read
// only by the revision it names. The default revision's istiod runs with REVISION=default.
//
// Mirrors istiod pkg/config/model.go LabelsInRevision, used by
// pilot/pkg/config/kube/crdclient/client.go (revision tags are not modelled).
func inRevision(l map[string]string, rev string) bool {
	v, ok := l[RevisionLabel]
	if !ok {
		return true
	}
	return revKey(v) == revKey(rev)
}

func filterRev[T interface{ GetLabels() map[string]string }](in []T, rev string) []T {
	out := make([]T, 0, len(in))
	for _, o := range in {
		if inRevision(o.GetLabels(), rev) {
			out = append(out, o)
		}
	}
	return out
}

// RevisionView returns a shallow copy of snap holding only the Istio configuration the istiod
// of revision rev reads (ServiceEntries, VirtualServices, DestinationRules, Gateways, Sidecars,
// WorkloadEntries, EnvoyFilters). Kubernetes objects are shared by every revision.
func RevisionView(snap *snapshot.Snapshot, rev string) *snapshot.Snapshot {
	v := *snap
	v.ServiceEntries = filterRev[*networkingv1.ServiceEntry](snap.ServiceEntries, rev)
	v.VirtualServices = filterRev[*networkingv1.VirtualService](snap.VirtualServices, rev)
	v.DestinationRules = filterRev[*networkingv1.DestinationRule](snap.DestinationRules, rev)
	v.Gateways = filterRev[*networkingv1.Gateway](snap.Gateways, rev)
	v.Sidecars = filterRev[*networkingv1.Sidecar](snap.Sidecars, rev)
	v.WorkloadEntries = filterRev[*networkingv1.WorkloadEntry](snap.WorkloadEntries, rev)
	v.EnvoyFilters = filterRev[*networkingv1alpha3.EnvoyFilter](snap.EnvoyFilters, rev)
	return &v
}
