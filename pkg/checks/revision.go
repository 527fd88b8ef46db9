package checks

import (
	"github.com/kubectl-egress/kubectl-egress/pkg/model"
	"github.com/kubectl-egress/kubectl-egress/pkg/snapshot"
)

// inRevision reports whether an Istio config object with labels l is read by the istiod of
// revision rev (model.InRevision: istiod's LabelsInRevision).
func inRevision(l map[string]string, rev string) bool { return model.InRevision(l, rev) }

// RevisionView returns the configuration the istiod of revision rev reads (model.View, built
// once per snapshot and revision).
func RevisionView(snap *snapshot.Snapshot, rev string) *snapshot.Snapshot {
	return model.View(snap, rev)
}
