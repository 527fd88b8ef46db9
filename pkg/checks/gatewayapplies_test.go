package checks

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// A VirtualService routes a host through a Gateway that applies to no gateway workload: the
// verdict names the Gateway and the reason (selector, namespace scope, revision). Each reason is
// tested on a second setup differing in everything else; controls: the Gateway applies, or it
// applies to another gateway workload.
func TestGatewayDoesNotApply(t *testing.T) {
	entry := func(ns, host string, port int) string {
		return strings.NewReplacer("@NS@", ns, "@HOST@", host, "@PORT@", strconv.Itoa(port)).Replace(`
apiVersion: networking.istio.io/v1
kind: ServiceEntry
metadata: {name: ext, namespace: @NS@}
spec:
  hosts: [@HOST@]
  resolution: DNS
  ports: [{number: @PORT@, name: http, protocol: HTTP}]
`)
	}
	gateway := func(ns, name, selector, labels string, port int) string {
		return strings.NewReplacer("@NS@", ns, "@NAME@", name, "@SEL@", selector, "@LABELS@", labels, "@PORT@", strconv.Itoa(port)).Replace(`
apiVersion: networking.istio.io/v1
kind: Gateway
metadata: {name: @NAME@, namespace: @NS@, labels: {@LABELS@}}
spec:
  selector: {@SEL@}
  servers: [{port: {number: @PORT@, name: http, protocol: HTTP}, hosts: ["*"]}]
`)
	}
	vs := func(ns, host, gw string, port int) string {
		return strings.NewReplacer("@NS@", ns, "@HOST@", host, "@GW@", gw, "@PORT@", strconv.Itoa(port)).Replace(`
apiVersion: networking.istio.io/v1
kind: VirtualService
metadata: {name: via-gw, namespace: @NS@}
spec:
  hosts: [@HOST@]
  gateways: [@GW@]
  http:
  - route: [{destination: {host: @HOST@, port: {number: @PORT@}}}]
`)
	}
	teamB := "apiVersion: v1\nkind: Namespace\nmetadata: {name: team-b}\n"
	otherGW := "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: partner-egress, namespace: istio-system}\nspec:\n  selector: {matchLabels: {app: partner-egress}}\n  template:\n    metadata: {labels: {app: partner-egress}}\n    spec: {containers: [{name: istio-proxy, image: auto}]}\n"
	for _, c := range []struct {
		name, scope, host string
		port              uint32
		docs              []string
		cause, culprit    string
		reason            string
	}{
		{"selector, istio-system", "false", "api.example.com", 80, []string{entry("team-a", "api.example.com", 80), gateway("istio-system", "egress-x", "app: egressgateway", "", 80), vs("team-a", "api.example.com", "istio-system/egress-x", 80)},
			CauseGatewayNotApplied, "Gateway istio-system/egress-x", "selector app=egressgateway does not match"},
		{"selector, Gateway beside the VirtualService", "false", "shop.example.net", 8080, []string{teamB, entry("team-b", "shop.example.net", 8080), gateway("team-b", "out", "istio: egress-gw", "", 8080), vs("team-b", "shop.example.net", "out", 8080)},
			CauseGatewayNotApplied, "Gateway team-b/out", "selector istio=egress-gw does not match"},
		{"namespace scope, team-a", "true", "api.example.com", 80, []string{entry("team-a", "api.example.com", 80), gateway("team-a", "egress-local", "istio: egressgateway", "", 80), vs("team-a", "api.example.com", "egress-local", 80)},
			CauseGatewayNotApplied, "Gateway team-a/egress-local", "PILOT_SCOPE_GATEWAY_TO_NAMESPACE=true"},
		{"namespace scope, team-b", "true", "shop.example.net", 8080, []string{teamB, entry("team-b", "shop.example.net", 8080), gateway("team-b", "out", "istio: egressgateway", "", 8080), vs("team-b", "shop.example.net", "team-b/out", 8080)},
			CauseGatewayNotApplied, "Gateway team-b/out", "PILOT_SCOPE_GATEWAY_TO_NAMESPACE=true"},
		{"revision, canary", "false", "api.example.com", 80, []string{entry("team-a", "api.example.com", 80), gateway("istio-system", "egress-x", "istio: egressgateway", "istio.io/rev: canary", 80), vs("team-a", "api.example.com", "istio-system/egress-x", 80)},
			CauseGatewayNotApplied, "Gateway istio-system/egress-x", "istio.io/rev=canary"},
		{"revision, 1-30", "false", "shop.example.net", 8080, []string{teamB, entry("team-b", "shop.example.net", 8080), gateway("team-b", "out", "istio: egressgateway", "istio.io/rev: 1-30", 8080), vs("team-b", "shop.example.net", "team-b/out", 8080)},
			CauseGatewayNotApplied, "Gateway team-b/out", "istio.io/rev=1-30"},
		{"control: the Gateway applies", "false", "shop.example.net", 8080, []string{teamB, entry("team-b", "shop.example.net", 8080), gateway("team-b", "out", "istio: egressgateway", "", 8080), vs("team-b", "shop.example.net", "team-b/out", 8080)},
			CauseOK, "", ""},
		{"control: the Gateway applies to another gateway workload", "false", "shop.example.net", 8080, []string{teamB, otherGW, entry("team-b", "shop.example.net", 8080), gateway("istio-system", "partner", "app: partner-egress", "", 8080), vs("team-b", "shop.example.net", "istio-system/partner", 8080)},
			CauseOK, "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			v := verdict(t, snap(t, "false", c.scope, c.docs...), c.host, c.port)
			if v.Cause != c.cause || v.Culprit != c.culprit || !strings.Contains(v.Message, c.reason) {
				t.Errorf("cause %s culprit %q: %s\nwant %s %q mentioning %q", v.Cause, v.Culprit, v.Message, c.cause, c.culprit, c.reason)
			}
		})
	}
}

// A Gateway whose selector matches a dedicated gateway's pods, kept off them by
// PILOT_SCOPE_GATEWAY_TO_NAMESPACE, is that gateway's: the view of another gateway workload must
// not blame it for not selecting that one (re-pointing the selector would send the route's
// traffic to the wrong pods), and preflight reports the fault once.
func TestGatewayMeantForOtherWorkload(t *testing.T) {
	snap, err := loadPathFixture(filepath.Join("testdata", "paths", "gateway-scoped-namespace-dedicated-pods-elsewhere.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	r, err := WhyMissing(snap, WhyMissingOptions{Host: "settle.partner-bank.example", Port: 9443, Gateway: "istio-system/istio-egressgateway"})
	if err != nil {
		t.Fatal(err)
	}
	if g := r.Gateways[0]; g.Cause == CauseGatewayNotApplied {
		t.Errorf("istio-system's gateway is blamed for a Gateway meant for egress-partners: %s (fix %q)", g.Message, g.Fix)
	}
	var errs []string
	for _, f := range Preflight(snap).Findings {
		if f.Level == LevelError {
			errs = append(errs, f.Code+" "+f.Resource.Kind+" "+f.Resource.Namespace+"/"+f.Resource.Name)
			if strings.Contains(f.Fix, "selector") {
				t.Errorf("preflight suggests changing a selector: %s", f.Fix)
			}
		}
	}
	if len(errs) != 1 || errs[0] != CauseGatewayNotApplied+" Gateway istio-system/partner-egress" {
		t.Errorf("preflight errors %q, want one %s on Gateway istio-system/partner-egress", errs, CauseGatewayNotApplied)
	}
}
