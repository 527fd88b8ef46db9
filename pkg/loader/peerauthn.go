package loader

import (
	"context"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	securityv1 "istio.io/client-go/pkg/apis/security/v1"
	istioclient "istio.io/client-go/pkg/clientset/versioned"

	"github.com/kubectl-egress/kubectl-egress/pkg/snapshot"
)

// readPeerAuthentications lists the PeerAuthentications of every namespace (there are few) and
// records the namespace-wide ones (no selector) with their mTLS mode: what decides auto mTLS
// towards a namespace's services (push_context.go BestEffortInferServiceMTLSMode). A refusal or a
// missing CRD leaves them unread (snap.PeerAuthenticationsUnread says why); it never stops the
// load.
func readPeerAuthentications(ctx context.Context, ic istioclient.Interface, snap *snapshot.Snapshot) {
	items, err := listAll[*securityv1.PeerAuthentication](ctx, pageFn(ic.SecurityV1().PeerAuthentications("").List))
	switch {
	case err == nil:
		snap.PeerAuthenticationsRead = true
		for _, pa := range items {
			if len(pa.Spec.GetSelector().GetMatchLabels()) > 0 {
				continue
			}
			snap.AddPeerAuthentication(pa.Namespace, pa.Name, pa.Spec.GetMtls().GetMode().String(), pa.CreationTimestamp.Time)
		}
	case apierrors.IsForbidden(err):
		snap.PeerAuthenticationsUnread = "forbidden to list peerauthentications.security.istio.io (deploy/clusterrole.yaml lists what kubectl-egress needs)"
	case apierrors.IsNotFound(err):
		snap.PeerAuthenticationsUnread = "peerauthentications.security.istio.io is not served"
	default:
		snap.PeerAuthenticationsUnread = "cannot list peerauthentications.security.istio.io: " + oneLine(err.Error())
	}
}
