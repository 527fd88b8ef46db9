package checks

import (
	"strings"
	"testing"
)

// drPortFindings on two shapes (blind audit 51 f2): a ServiceEntry port 8080 whose targetPort
// 8443 a DestinationRule's top-level portLevelSettings names (the fix names 8080), and a
// Kubernetes Service whose DestinationRule subset names a port it has in no form (the fix lists
// its ports). Controls: a setting on a declared port, a wildcard host, a host nobody declares.
func TestDRPortFindings(t *testing.T) {
	snap := loadYAML(t, `
apiVersion: networking.istio.io/v1
kind: ServiceEntry
metadata: {name: edi, namespace: partners}
spec:
  hosts: [edi.partner.example]
  ports: [{number: 8080, name: http, protocol: HTTP, targetPort: 8443}]
  resolution: DNS
---
apiVersion: networking.istio.io/v1
kind: DestinationRule
metadata: {name: edi-tls, namespace: partners}
spec:
  host: edi.partner.example
  trafficPolicy:
    portLevelSettings:
    - port: {number: 8443}
      tls: {mode: SIMPLE}
---
apiVersion: v1
kind: Service
metadata: {name: billing, namespace: shop}
spec:
  selector: {app: billing}
  ports: [{name: grpc, port: 9090, targetPort: 9090}, {name: http, port: 80, targetPort: 8080}]
---
apiVersion: networking.istio.io/v1
kind: DestinationRule
metadata: {name: billing, namespace: shop}
spec:
  host: billing
  trafficPolicy:
    portLevelSettings:
    - port: {number: 9090}
      connectionPool: {http: {http2MaxRequests: 10}}
  subsets:
  - name: v2
    labels: {version: v2}
    trafficPolicy:
      portLevelSettings:
      - port: {number: 7070}
        loadBalancer: {simple: ROUND_ROBIN}
---
apiVersion: networking.istio.io/v1
kind: DestinationRule
metadata: {name: wild, namespace: shop}
spec:
  host: "*.partner.example"
  trafficPolicy:
    portLevelSettings: [{port: {number: 1}, tls: {mode: SIMPLE}}]
---
apiVersion: networking.istio.io/v1
kind: DestinationRule
metadata: {name: nobody, namespace: shop}
spec:
  host: nobody.example
  trafficPolicy:
    portLevelSettings: [{port: {number: 1}, tls: {mode: SIMPLE}}]
`)
	var got []string
	for _, f := range drPortFindings(snap) {
		got = append(got, f.Resource.String()+" "+f.Field+": "+f.Fix)
	}
	want := []string{
		"DestinationRule partners/edi-tls spec.trafficPolicy.portLevelSettings[0].port.number: Set trafficPolicy.portLevelSettings[0].port.number of DestinationRule partners/edi-tls to 8080 (the port edi.partner.example declares; its targetPort 8443 stays where the connection goes).",
		"DestinationRule shop/billing spec.subsets[0].trafficPolicy.portLevelSettings[0].port.number: Set subsets[0].trafficPolicy.portLevelSettings[0].port.number of DestinationRule shop/billing to a port billing.shop.svc.cluster.local declares (80, 9090), or remove the setting.",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
