package checks

import (
	"fmt"
	"sort"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/kubectl-egress/kubectl-egress/pkg/snapshot"
)

// PathClientRevisionUnserved: the client asks for an istiod revision (istio.io/rev on its
// namespace or pod) that no istiod of the input serves, while the input holds istiod
// Deployments for other revisions. Unless the name is a revision tag, no injector answers for
// it and the pods run no proxy. Found by blind audit 99 c07: a namespace labelled
// istio.io/rev=canary with only the default istiod was traced as injected, OK.
const PathClientRevisionUnserved = "CLIENT_REVISION_NOT_SERVED"

func init() {
	Catalog = append(Catalog,
		CatalogEntry{Code: PathClientRevisionUnserved, Level: LevelWarning,
			Description: "The client's namespace (or pod) asks for an Istio revision (istio.io/rev) that no istiod Deployment in the input serves. If the name is a revision tag, the istiod it points at injects and serves the pods; if not, no sidecar injector answers for it, the pods run no proxy, and their calls leave directly, through no egress gateway. The trace assumes a sidecar."},
	)
}

// clientRevisionUnserved is the CLIENT_REVISION_NOT_SERVED warning for a client of revision rev
// (its namespace's or pod's istio.io/rev; "" or "default" is the default revision), what asks
// for it ("Namespace ns" or "Pod ns/name"), or nil when an istiod of the input serves rev or the
// input holds no istiod at all (then nothing is known about revisions).
//
// Mirrors the sidecar injector's webhooks (one per installed revision, selecting
// istio.io/rev=<revision>, plus one per revision tag), as istioctl's revision and tag commands
// describe them.
func clientRevisionUnserved(snap *snapshot.Snapshot, rev, what string) *Finding {
	if revKey(rev) == "" || istiodFor(snap, rev) != nil {
		return nil
	}
	served := map[string]bool{}
	for _, d := range snap.Deployments {
		if r, ok := istiodRevision(d); ok {
			served[r] = true
		}
	}
	if len(served) == 0 {
		return nil
	}
	var list []string
	for r := range served {
		list = append(list, r)
	}
	sort.Strings(list)
	f := finding(PathClientRevisionUnserved, what, fmt.Sprintf("%s asks for Istio revision %s (label %s=%s), but no istiod Deployment in the input serves it (revisions served: %s). If %s is a revision tag, the istiod it points at injects and serves these pods; if not, no sidecar injector answers for it, the pods run no proxy, and their calls go straight out, through no egress gateway. The trace assumes a sidecar.", what, rev, RevisionLabel, rev, fmtList(list), rev),
		fmt.Sprintf("Check with `istioctl tag list` that %s is a tag of an installed revision (`istioctl tag set %s --revision <revision>` makes it one), or label %s with %s=<an installed revision> and restart the pods.", rev, rev, what, RevisionLabel))
	return &f
}

// revisionSubject names what asks for revision rev: the pod (workload, labels) when its own
// istio.io/rev label does, else namespace ns.
func revisionSubject(ns, workload string, labels map[string]string, rev string) string {
	if workload != "" && labels[RevisionLabel] == rev && rev != "" {
		return "Pod " + workload
	}
	return "Namespace " + ns
}

// clientRevisionFindings: CLIENT_REVISION_NOT_SERVED for each client namespace whose istio.io/rev
// no istiod of the input serves.
func clientRevisionFindings(snap *snapshot.Snapshot) []PreflightFinding {
	var out []PreflightFinding
	for _, ns := range ClientNamespaces(snap) {
		rev := NamespaceLabels(snap, ns)[RevisionLabel]
		if f := clientRevisionUnserved(snap, rev, "Namespace "+ns); f != nil {
			out = append(out, NewPreflightFinding(f.Code, CheckPreflight, ResourceRef{Kind: "Namespace", Name: ns}, "metadata.labels", f.Message, f.Fix))
		}
	}
	return out
}

// istiodRevision is the revision an istiod Deployment serves ("default" without istio.io/rev),
// false when d is no istiod (label app=istiod or istio=pilot on it, or on its pod template when
// it has no labels of its own).
func istiodRevision(d *appsv1.Deployment) (string, bool) {
	l := d.Labels
	if len(l) == 0 {
		l = d.Spec.Template.Labels
	}
	if l["app"] != "istiod" && l["istio"] != "pilot" {
		return "", false
	}
	r := l[RevisionLabel]
	if r == "" {
		r = d.Spec.Template.Labels[RevisionLabel]
	}
	if r == "" {
		r = "default"
	}
	return r, true
}
