package checks

import (
	"slices"
	"strings"
	"testing"

	"github.com/kubectl-egress/kubectl-egress/pkg/loader"
	"github.com/kubectl-egress/kubectl-egress/pkg/snapshot"
)

// discoveryMesh is a mesh whose istiod discovers only namespaces matching selectors (the
// meshConfig.discoverySelectors YAML), with an egress gateway in istio-system and the given
// namespace labels and objects.
func discoveryMesh(selectors, objects string) string {
	return `apiVersion: v1
kind: ConfigMap
metadata: {name: istio, namespace: istio-system}
data:
  mesh: |-
    discoverySelectors:
` + selectors + `
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: istiod, namespace: istio-system}
spec:
  selector: {matchLabels: {app: istiod}}
  template:
    metadata: {labels: {app: istiod}}
    spec: {containers: [{name: discovery, image: pilot}]}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: istio-egressgateway, namespace: istio-system}
spec:
  selector: {matchLabels: {istio: egressgateway}}
  template:
    metadata: {labels: {istio: egressgateway}}
    spec: {containers: [{name: istio-proxy, image: auto}]}
---
apiVersion: v1
kind: Service
metadata: {name: istio-egressgateway, namespace: istio-system}
spec:
  selector: {istio: egressgateway}
  ports: [{name: http2, port: 80, targetPort: 8080}, {name: https, port: 443, targetPort: 8443}]
---
` + objects
}

// TestDiscoverySelectors: objects in a namespace that meshConfig.discoverySelectors leave out
// do not exist for istiod (pkg/kube/namespace/filter.go, applied to Istio configuration by
// crdclient): why-missing says the host is not found and blames the namespace, preflight
// reports the namespace, and labelling it (the fix) makes the cluster present. Two shapes: a
// ServiceEntry routed through the gateway (matchLabels selector, fix patch), and a Kubernetes
// Service (a forward proxy) selected with matchExpressions (prose fix).
func TestDiscoverySelectors(t *testing.T) {
	for _, c := range []struct {
		name, host, selectors, ns, objects, fixHas string
		labelled                                   string // the namespace object once fixed
	}{
		{"entry and route in an unselected namespace", "pick.warehouse-robots.example",
			"    - matchLabels:\n        mesh.example.io/discovery: \"on\"", "egress-routes", `apiVersion: v1
kind: Namespace
metadata: {name: istio-system, labels: {mesh.example.io/discovery: "on"}}
---
apiVersion: v1
kind: Namespace
metadata: {name: egress-routes}
---
apiVersion: networking.istio.io/v1
kind: ServiceEntry
metadata: {name: warehouse-robots, namespace: egress-routes}
spec:
  hosts: [pick.warehouse-robots.example]
  resolution: DNS
  ports: [{number: 80, name: http, protocol: HTTP}]
---
apiVersion: networking.istio.io/v1
kind: Gateway
metadata: {name: robots-egress, namespace: istio-system}
spec:
  selector: {istio: egressgateway}
  servers: [{port: {number: 80, name: http, protocol: HTTP}, hosts: [pick.warehouse-robots.example]}]
---
apiVersion: networking.istio.io/v1
kind: VirtualService
metadata: {name: robots-via-egress, namespace: egress-routes}
spec:
  hosts: [pick.warehouse-robots.example]
  gateways: [istio-system/robots-egress]
  http:
  - route: [{destination: {host: pick.warehouse-robots.example, port: {number: 80}}}]
`, "mesh.example.io/discovery: \"on\"", "metadata: {name: egress-routes, labels: {mesh.example.io/discovery: \"on\"}}"},
		{"forward proxy Service in a namespace outside the expression", "squid.corp-proxy.svc.cluster.local",
			"    - matchExpressions:\n      - {key: team, operator: In, values: [platform, payments]}", "corp-proxy", `apiVersion: v1
kind: Namespace
metadata: {name: istio-system, labels: {team: platform}}
---
apiVersion: v1
kind: Namespace
metadata: {name: corp-proxy, labels: {team: networking}}
---
apiVersion: v1
kind: Service
metadata: {name: squid, namespace: corp-proxy}
spec:
  selector: {app: squid}
  ports: [{name: http-proxy, port: 3128}]
`, "Label namespace corp-proxy", "metadata: {name: corp-proxy, labels: {team: payments}}"},
	} {
		snap, err := loader.FromFiles([]string{"-"}, strings.NewReader(discoveryMesh(c.selectors, c.objects)), loader.Options{})
		if err != nil {
			t.Fatal(err)
		}
		r, err := WhyMissing(snap, WhyMissingOptions{Host: c.host, Gateway: "istio-system/istio-egressgateway"})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		v := r.Gateways[0]
		if v.Present || v.Cause != CauseHostNotFound || v.Culprit != "Namespace "+c.ns || !strings.Contains(v.Fix, c.fixHas) {
			t.Errorf("%s: present=%v cause %s culprit %q fix %q; want absent, %s, Namespace %s, a fix with %q", c.name, v.Present, v.Cause, v.Culprit, v.Fix, CauseHostNotFound, c.ns, c.fixHas)
		}
		pf := Preflight(snap)
		if !slices.ContainsFunc(pf.Findings, func(f PreflightFinding) bool {
			return f.Code == PreflightNotDiscovered && f.Resource.Kind == "Namespace" && f.Resource.Name == c.ns
		}) && strings.Contains(c.objects, "networking.istio.io") {
			t.Errorf("%s: preflight has no %s for namespace %s", c.name, PreflightNotDiscovered, c.ns)
		}
		// The fix: the namespace labelled so that a selector matches it.
		fixed := strings.Replace(c.objects, "metadata: {name: "+c.ns+"}", c.labelled, 1)
		fixed = strings.Replace(fixed, "metadata: {name: "+c.ns+", labels: {team: networking}}", c.labelled, 1)
		snap2, err := loader.FromFiles([]string{"-"}, strings.NewReader(discoveryMesh(c.selectors, fixed)), loader.Options{})
		if err != nil {
			t.Fatal(err)
		}
		r2, err := WhyMissing(snap2, WhyMissingOptions{Host: c.host, Gateway: "istio-system/istio-egressgateway"})
		if err != nil {
			t.Fatalf("%s, labelled: %v", c.name, err)
		}
		if v := r2.Gateways[0]; !v.Present {
			t.Errorf("%s, labelled: cluster still absent (%s: %s)", c.name, v.Cause, v.Message)
		}
	}
}

// TestDiscoverySelectorsNameLabel: the API server labels every namespace
// kubernetes.io/metadata.name=<name>, so a selector on that label selects namespaces whose
// manifests omit it; a namespace the input has no object for is taken as discovered, and the
// verdict says so.
func TestDiscoverySelectorsNameLabel(t *testing.T) {
	objects := `apiVersion: v1
kind: Namespace
metadata: {name: istio-system}
---
apiVersion: v1
kind: Namespace
metadata: {name: egress-routes}
---
apiVersion: networking.istio.io/v1
kind: ServiceEntry
metadata: {name: robots, namespace: egress-routes}
spec:
  hosts: [pick.robots.example]
  resolution: DNS
  ports: [{number: 80, name: http, protocol: HTTP}]
`
	byName := "    - matchExpressions:\n      - {key: kubernetes.io/metadata.name, operator: In, values: [istio-system, egress-routes]}"
	snap, err := loader.FromFiles([]string{"-"}, strings.NewReader(discoveryMesh(byName, objects)), loader.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := WhyMissing(snap, WhyMissingOptions{Host: "pick.robots.example", Gateway: "istio-system/istio-egressgateway"})
	if err != nil {
		t.Fatal(err)
	}
	if v := r.Gateways[0]; !v.Present {
		t.Errorf("selected by the name label: cause %s (%s), want the cluster present", v.Cause, v.Message)
	}
	// Without the Namespace object of egress-routes and a selector on another label: unknown,
	// taken as discovered, said in an assumption.
	other := "    - matchLabels: {mesh: \"on\"}"
	noNs := strings.Replace(objects, "apiVersion: v1\nkind: Namespace\nmetadata: {name: egress-routes}\n---\n", "", 1)
	noNs = strings.Replace(noNs, "metadata: {name: istio-system}", "metadata: {name: istio-system, labels: {mesh: \"on\"}}", 1)
	snap, err = loader.FromFiles([]string{"-"}, strings.NewReader(discoveryMesh(other, noNs)), loader.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r, err = WhyMissing(snap, WhyMissingOptions{Host: "pick.robots.example", Gateway: "istio-system/istio-egressgateway"})
	if err != nil {
		t.Fatal(err)
	}
	v := r.Gateways[0]
	if !v.Present || !slices.ContainsFunc(v.Assumptions, func(a string) bool {
		return strings.Contains(a, "namespace egress-routes") && strings.Contains(a, "labels are unknown")
	}) {
		t.Errorf("namespace not in the input: present=%v assumptions %q, want present with an assumption naming egress-routes", v.Present, v.Assumptions)
	}
	// Namespaces that could not be listed (RBAC): every namespace holding configuration is
	// taken as discovered, and the verdict says its labels are unknown.
	snap, err = loader.FromFiles([]string{"-"}, strings.NewReader(discoveryMesh(other, objects)), loader.Options{})
	if err != nil {
		t.Fatal(err)
	}
	snap.Namespaces = nil
	snap.Unknown[snapshot.KindNamespace] = "forbidden"
	r, err = WhyMissing(snap, WhyMissingOptions{Host: "pick.robots.example", Gateway: "istio-system/istio-egressgateway"})
	if err != nil {
		t.Fatal(err)
	}
	v = r.Gateways[0]
	if !slices.ContainsFunc(v.Assumptions, func(a string) bool {
		return strings.Contains(a, "namespace egress-routes") && strings.Contains(a, "labels are unknown")
	}) {
		t.Errorf("namespaces unread: assumptions %q, want one naming egress-routes", v.Assumptions)
	}
}
