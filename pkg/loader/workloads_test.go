package loader

import (
	"fmt"
	"slices"
	"testing"

	networking "istio.io/api/networking/v1alpha3"
	networkingv1 "istio.io/client-go/pkg/apis/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-egress/kubectl-egress/pkg/snapshot"
)

func TestWorkloadQueries(t *testing.T) {
	snap := snapshot.NewEmpty("test", "istio-system", "")
	gw := func(sel map[string]string) *networkingv1.Gateway {
		return &networkingv1.Gateway{ObjectMeta: metav1.ObjectMeta{Name: "g", Namespace: "istio-system"}, Spec: networking.Gateway{Selector: sel}}
	}
	snap.Gateways = []*networkingv1.Gateway{gw(map[string]string{"istio": "egressgateway"}), gw(map[string]string{"app": "egress", "team": "a"})}
	snap.ServiceEntries = []*networkingv1.ServiceEntry{{ObjectMeta: metav1.ObjectMeta{Name: "vm", Namespace: "team-a"},
		Spec: networking.ServiceEntry{WorkloadSelector: &networking.WorkloadSelector{Labels: map[string]string{"app": "vm"}}}}}
	got := fmt.Sprint(workloadQueries(snap, []string{"team-b", "", "istio-system"}))
	want := "[{istio-system } {team-b } { istio=egressgateway} { app=istiod} { istio=pilot} { app=egress,team=a} {team-a app=vm}]"
	if got != want {
		t.Errorf("queries:\n got  %s\n want %s", got, want)
	}

	// A Gateway selecting every workload, or too many selectors: one cluster-wide LIST.
	snap.Gateways = append(snap.Gateways, gw(nil))
	if got := workloadQueries(snap, nil); !slices.Equal(got, []workloadQuery{{}}) {
		t.Errorf("empty selector: got %v, want one cluster-wide query", got)
	}
	snap.Gateways = nil
	for i := 0; i < maxSelectorQueries; i++ {
		snap.Gateways = append(snap.Gateways, gw(map[string]string{"n": fmt.Sprint(i)}))
	}
	if got := workloadQueries(snap, nil); !slices.Equal(got, []workloadQuery{{}}) {
		t.Errorf("%d selectors: got %d queries, want one cluster-wide query", maxSelectorQueries, len(got))
	}
}
