package loader

import (
	"fmt"
	"slices"
	"testing"

	networking "istio.io/api/networking/v1alpha3"
	networkingv1 "istio.io/client-go/pkg/apis/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

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

	// Gateway API Gateways of Istio's class: the gateway-name label, and every workload of their
	// namespaces (a gateway Deployment whose labels lack the name is found there); the Istio
	// namespace is read whole already, and another controller's Gateway adds nothing.
	kg := func(ns, class string) *gatewayv1.Gateway {
		return &gatewayv1.Gateway{ObjectMeta: metav1.ObjectMeta{Name: "k", Namespace: ns}, Spec: gatewayv1.GatewaySpec{GatewayClassName: gatewayv1.ObjectName(class)}}
	}
	snap.KubeGateways = []*gatewayv1.Gateway{kg("web-egress", "istio"), kg("istio-system", "istio"), kg("other", "acme"), kg("web-egress", "istio")}
	snap.GatewayClasses = []*gatewayv1.GatewayClass{{ObjectMeta: metav1.ObjectMeta{Name: "acme"}, Spec: gatewayv1.GatewayClassSpec{ControllerName: "acme.io/gateway"}}}
	got = fmt.Sprint(workloadQueries(snap, nil))
	want = "[{istio-system } { istio=egressgateway} { app=istiod} { istio=pilot} { gateway.networking.k8s.io/gateway-name} {web-egress } { app=egress,team=a} {team-a app=vm}]"
	if got != want {
		t.Errorf("Gateway API queries:\n got  %s\n want %s", got, want)
	}
	snap.KubeGateways, snap.GatewayClasses = nil, nil

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
