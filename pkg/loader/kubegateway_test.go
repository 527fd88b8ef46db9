package loader

import (
	"slices"
	"strings"
	"testing"
)

// TestSyntheticKubeGateways: a managed Gateway API Gateway without its Service gets the Service
// and Deployment istiod deploys (status port and one port per distinct listener port, pods
// labelled with the Gateway's name), and no `istio: egressgateway` workload is assumed beside
// it; a Service written by hand is kept and only a Deployment is added; a Gateway of another
// class gets nothing.
func TestSyntheticKubeGateways(t *testing.T) {
	gw := func(name, class string) string {
		return "apiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: " + name + ", namespace: egress}\nspec:\n  gatewayClassName: " + class + "\n  listeners:\n  - {name: http, port: 80, protocol: HTTP}\n  - {name: http.alt, port: 80, protocol: HTTP, hostname: a.example.com}\n  - {name: tls, port: 443, protocol: TLS, tls: {mode: Passthrough}}\n"
	}
	own := "apiVersion: v1\nkind: Service\nmetadata: {name: hand-istio, namespace: egress}\nspec:\n  selector: {app: hand}\n  ports: [{name: http, port: 80, targetPort: 8080}]\n"
	in := strings.Join([]string{gw("egw", "istio"), gw("hand", "istio"), own, gw("other", "envoy")}, "\n---\n")
	snap, err := FromFiles([]string{"-"}, strings.NewReader(in), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if snap.Assumptions.SyntheticGateway {
		t.Error("an istio: egressgateway workload was assumed beside a Gateway API gateway")
	}
	if got := strings.Join(snap.Assumptions.SyntheticKubeGateways, ","); got != "egress/egw-istio,egress/hand-istio" {
		t.Errorf("assumed %q", got)
	}
	var svcs, deps []string
	for _, s := range snap.Services {
		var ports []string
		for _, p := range s.Spec.Ports {
			ports = append(ports, p.Name+":"+p.TargetPort.String())
		}
		svcs = append(svcs, s.Name+" "+strings.Join(ports, ","))
	}
	for _, d := range snap.Deployments {
		deps = append(deps, d.Name+" "+d.Spec.Template.Labels["gateway.networking.k8s.io/gateway-name"]+" "+d.Spec.Template.Labels["app"])
	}
	slices.Sort(svcs)
	slices.Sort(deps)
	if got := strings.Join(svcs, "; "); got != "egw-istio status-port:15021,http:80,tls:443; hand-istio http:8080" {
		t.Errorf("services: %s", got)
	}
	if got := strings.Join(deps, "; "); got != "egw-istio egw ; hand-istio hand hand" {
		t.Errorf("deployments: %s", got)
	}
}
