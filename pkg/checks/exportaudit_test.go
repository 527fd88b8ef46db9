package checks

import (
	"strings"
	"testing"
)

func codes(r *AuditReport) []string {
	var out []string
	for _, f := range r.Findings {
		out = append(out, f.Code+" "+f.Ref()+" missing="+strings.Join(f.MissingIn, ","))
	}
	return out
}

func TestExportAudit(t *testing.T) {
	clientNs := "apiVersion: v1\nkind: Namespace\nmetadata: {name: team-b, labels: {istio-injection: enabled}}\n"
	gwSvc := "apiVersion: v1\nkind: Service\nmetadata: {name: istio-egressgateway, namespace: istio-system}\nspec:\n  selector: {istio: egressgateway}\n  ports: [{name: http2, port: 80, targetPort: 8080}]\n"
	meshVS := `
apiVersion: networking.istio.io/v1
kind: VirtualService
metadata: {name: via-egress, namespace: team-b}
spec:
  hosts: [api.example.com]
  gateways: [mesh]
  http:
  - route: [{destination: {host: istio-egressgateway.istio-system.svc.cluster.local, subset: egress, port: {number: 80}}}]
`
	meshVSNoSubset := strings.Replace(meshVS, "subset: egress, ", "", 1)
	hiddenGwSvc := strings.Replace(gwSvc, "namespace: istio-system}", "namespace: istio-system, annotations: {networking.istio.io/exportTo: \".\"}}", 1)
	meshDefault := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: istio, namespace: istio-system}\ndata:\n  mesh: |\n    defaultServiceExportTo: [\".\"]\n"
	backend := "apiVersion: v1\nkind: Service\nmetadata: {name: backend, namespace: team-a, annotations: {networking.istio.io/exportTo: \".\"}}\nspec:\n  selector: {app: backend}\n  ports: [{name: http, port: 80}]\n"
	for _, c := range []struct {
		name string
		docs []string
		want []string
	}{
		{"control", []string{strings.Replace(se, "EXPORT", "", 1), boundVS}, nil},
		{"gateway Service hidden by its exportTo annotation", []string{strings.Replace(se, "EXPORT", "", 1), clientNs, hiddenGwSvc, meshVSNoSubset},
			[]string{"SERVICE_NOT_EXPORTED_TO_CLIENT_NAMESPACE Service istio-system/istio-egressgateway missing=team-b"}},
		{"gateway Service hidden by the mesh default", []string{strings.Replace(se, "EXPORT", "", 1), clientNs, gwSvc, meshVSNoSubset, meshDefault},
			[]string{"SERVICE_NOT_EXPORTED_TO_CLIENT_NAMESPACE Service istio-system/istio-egressgateway missing=team-b"}},
		{"gateway Service visible: control", []string{strings.Replace(se, "EXPORT", "", 1), clientNs, gwSvc, meshVSNoSubset}, nil},
		{"gateway route to a Service private to its namespace", []string{strings.Replace(se, "EXPORT", "", 1), backend,
			strings.Replace(boundVS, "destination: {host: api.example.com", "destination: {host: backend.team-a.svc.cluster.local", 1)},
			[]string{"SERVICE_NOT_EXPORTED_TO_GATEWAY_NAMESPACE Service team-a/backend missing=istio-system"}},
		{"entry private to its namespace", []string{strings.Replace(se, "EXPORT", `exportTo: ["."]`, 1), boundVS},
			[]string{"SE_NOT_EXPORTED_TO_GATEWAY_NAMESPACE ServiceEntry team-a/api missing=istio-system"}},
		{"virtual service private to its namespace", []string{strings.Replace(se, "EXPORT", "", 1), strings.Replace(boundVS, "gateways:", "exportTo: [\".\"]\n  gateways:", 1)},
			[]string{"VS_NOT_EXPORTED_TO_GATEWAY_NAMESPACE VirtualService team-a/api missing=istio-system"}},
		{"gateway subset rule in another client namespace", []string{strings.Replace(se, "EXPORT", "", 1), clientNs, gwSvc, meshVS,
			"apiVersion: networking.istio.io/v1\nkind: DestinationRule\nmetadata: {name: gw, namespace: team-a}\nspec:\n  exportTo: [\"*\"]\n  host: istio-egressgateway.istio-system.svc.cluster.local\n  subsets: [{name: egress}]\n"},
			[]string{"DR_NOT_ON_LOOKUP_PATH DestinationRule team-a/gw missing=team-b"}},
		{"gateway subset rule in the service namespace", []string{strings.Replace(se, "EXPORT", "", 1), clientNs, gwSvc, meshVS,
			"apiVersion: networking.istio.io/v1\nkind: DestinationRule\nmetadata: {name: gw, namespace: istio-system}\nspec:\n  host: istio-egressgateway.istio-system.svc.cluster.local\n  subsets: [{name: egress}]\n"},
			nil},
		{"sidecar imports an entry not exported to it", []string{strings.Replace(se, "EXPORT", `exportTo: ["."]`, 1), clientNs,
			"apiVersion: networking.istio.io/v1\nkind: Sidecar\nmetadata: {name: default, namespace: team-b}\nspec:\n  egress: [{hosts: [\"./*\", \"team-a/api.example.com\"]}]\n"},
			[]string{"SE_NOT_EXPORTED_TO_SIDECAR_IMPORTER ServiceEntry team-a/api missing=team-b"}},
		{"sidecar imports a host from the wrong namespace", []string{strings.Replace(se, "EXPORT", "", 1), clientNs, boundVS,
			"apiVersion: networking.istio.io/v1\nkind: Sidecar\nmetadata: {name: default, namespace: team-b}\nspec:\n  egress: [{hosts: [\"istio-system/api.example.com\"]}]\n"},
			[]string{"SIDECAR_IMPORTS_UNDECLARED_HOST Sidecar team-b/default missing="}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := codes(ExportAudit(snap(t, "false", "false", c.docs...), AuditOptions{}))
			if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
				t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(c.want, "\n"))
			}
		})
	}
}
