package loader

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/kubectl-egress/kubectl-egress/pkg/rules"
	"github.com/kubectl-egress/kubectl-egress/pkg/snapshot"
)

// addSyntheticKubeGateways adds, for each managed Kubernetes Gateway API Gateway of an Istio
// class whose Service the manifests lack, the Service and Deployment istiod deploys for it (its
// deployment controller renders them from the kube-gateway template): the Service
// <name>-<class> selecting gateway.networking.k8s.io/gateway-name=<name>, with the status port
// and one port per distinct listener port (targetPort the same), and a Deployment whose pods
// carry that label. Each is recorded in Assumptions.SyntheticKubeGateways.
//
// Mirrors istiod pilot/pkg/config/kube/gatewaycommon/deploymentcontroller.go extractServicePorts
// and manifests/charts/istio-control/istio-discovery/files/kube-gateway.yaml.
func addSyntheticKubeGateways(snap *snapshot.Snapshot) {
	for _, gw := range snap.KubeGateways {
		if gw == nil || !rules.KubeGatewayIstioClass(string(gw.Spec.GatewayClassName), snap.GatewayClasses) || !rules.KubeGatewayManaged(gw) {
			continue
		}
		if _, taken := rules.KubeGatewayClassTaken(string(gw.Spec.GatewayClassName), snap.GatewayClasses); taken {
			continue // istiod's deployment controller deploys nothing for a class another controller holds
		}
		name := rules.KubeGatewayServiceName(gw)
		sel := map[string]string{rules.KubeGatewayNameLabel: gw.Name}
		if existing := findService(snap, gw.Namespace, name); existing != nil {
			// The Service is given: a Deployment only when no workload carries its selector
			// and the input has no Deployment of that name (one whose pods lack the selector is
			// the gateway's, mislabelled: the Service then has no endpoints, which the checks
			// report; assuming a second one would hide it).
			if len(existing.Spec.Selector) > 0 && !hasWorkload(snap, gw.Namespace, existing.Spec.Selector) && !hasDeployment(snap, gw.Namespace, name) {
				snap.Deployments = append(snap.Deployments, kubeGatewayDeployment(gw, name, existing.Spec.Selector))
				snap.Assumptions.SyntheticKubeGateways = append(snap.Assumptions.SyntheticKubeGateways, gw.Namespace+"/"+name)
			}
			continue
		}
		tcp := "tcp"
		svc := &corev1.Service{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Service"},
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: gw.Namespace, Labels: maps.Clone(sel), CreationTimestamp: gw.CreationTimestamp},
			Spec: corev1.ServiceSpec{Selector: maps.Clone(sel), Ports: []corev1.ServicePort{
				{Name: "status-port", Port: 15021, Protocol: corev1.ProtocolTCP, AppProtocol: &tcp, TargetPort: intstr.FromInt32(15021)},
			}},
		}
		seen := map[int32]bool{}
		used := map[string]bool{"status-port": true}
		for i, l := range gw.Spec.Listeners {
			if seen[int32(l.Port)] {
				continue
			}
			seen[int32(l.Port)] = true
			base := portNameFromListener(string(l.Name))
			if base == "" {
				base = fmt.Sprintf("%s-%d", strings.ToLower(string(l.Protocol)), i)
			}
			pn := base
			for suffix := fmt.Sprintf("-%d", l.Port); used[pn]; suffix += "x" {
				pn = base + suffix // uniquePortName
			}
			used[pn] = true
			app := strings.ToLower(string(l.Protocol))
			svc.Spec.Ports = append(svc.Spec.Ports, corev1.ServicePort{Name: pn, Port: int32(l.Port), Protocol: corev1.ProtocolTCP, AppProtocol: &app, TargetPort: intstr.FromInt32(int32(l.Port))})
		}
		snap.Services = append(snap.Services, svc)
		if !hasWorkload(snap, gw.Namespace, sel) {
			snap.Deployments = append(snap.Deployments, kubeGatewayDeployment(gw, name, sel))
		}
		snap.Assumptions.SyntheticKubeGateways = append(snap.Assumptions.SyntheticKubeGateways, gw.Namespace+"/"+name)
	}
}

// kubeGatewayDeployment is the Deployment istiod deploys for a managed Gateway: pods labelled
// with sel, the Gateway's name and class, and its revision.
func kubeGatewayDeployment(gw *gatewayv1.Gateway, name string, sel map[string]string) *appsv1.Deployment {
	podLabels := maps.Clone(sel)
	podLabels[rules.KubeGatewayNameLabel] = gw.Name
	podLabels[rules.KubeGatewayClassLabel] = string(gw.Spec.GatewayClassName)
	podLabels["gateway.istio.io/managed"] = "istio.io-gateway-controller"
	podLabels["service.istio.io/canonical-name"] = name
	if rev := gw.Labels["istio.io/rev"]; rev != "" {
		podLabels["istio.io/rev"] = rev
	}
	replicas := int32(1)
	return &appsv1.Deployment{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: gw.Namespace, Labels: maps.Clone(podLabels), CreationTimestamp: gw.CreationTimestamp},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: maps.Clone(sel)},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: podLabels}},
		},
	}
}

func findService(snap *snapshot.Snapshot, ns, name string) *corev1.Service {
	for _, s := range snap.Services {
		if s != nil && s.Namespace == ns && s.Name == name {
			return s
		}
	}
	return nil
}

// hasWorkload: a Deployment (its pod template) or Pod in ns carries every label of sel.
// hasDeployment: the input holds Deployment ns/name.
func hasDeployment(snap *snapshot.Snapshot, ns, name string) bool {
	return slices.ContainsFunc(snap.Deployments, func(d *appsv1.Deployment) bool { return d != nil && d.Namespace == ns && d.Name == name })
}

func hasWorkload(snap *snapshot.Snapshot, ns string, sel map[string]string) bool {
	for _, d := range snap.Deployments {
		if d != nil && d.Namespace == ns && isSubset(sel, d.Spec.Template.Labels) {
			return true
		}
	}
	for _, p := range snap.Pods {
		if p != nil && p.Namespace == ns && isSubset(sel, p.Labels) {
			return true
		}
	}
	return false
}

// portNameFromListener mirrors sanitizeListenerNameForPort: '.' becomes '-', at most 63
// characters.
func portNameFromListener(n string) string {
	n = strings.ReplaceAll(n, ".", "-")
	if len(n) > 63 {
		n = n[:63]
	}
	return n
}
