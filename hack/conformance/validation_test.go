package conformance

// Validation: which Istio objects istiod's validating webhook refuses, against which ones the
// plugin reports as rejected by validation (preflight's *_REJECTED_BY_VALIDATION findings).
//
// istiod's side is the validation function of each kind's schema (the webhook's
// pkg/config/validation functions: ValidateServiceEntry, ValidateSidecar, ValidateVirtualService,
// ...), run on the object as istiod's crd conversion decodes it. The objects are every Istio
// document of the generated matrix and the case files, and objects of a mutation generator that
// breaks (or keeps) one rule of validation at a time.

import (
	"fmt"
	"math/rand"
	"regexp"
	"sort"
	"strings"
	"testing"

	"istio.io/istio/pilot/pkg/config/kube/crd"
	"istio.io/istio/pkg/config/schema/collections"
	"istio.io/istio/pkg/config/schema/resource"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-egress/kubectl-egress/pkg/checks"
	"github.com/kubectl-egress/kubectl-egress/pkg/loader"
)

// rejectionCodes: the plugin's finding per kind for an object Istio's validation refuses.
var rejectionCodes = map[string]string{
	"ServiceEntry":    checks.PreflightSERejected,
	"Sidecar":         checks.PreflightSidecarRejected,
	"VirtualService":  checks.PreflightVSRejected,
	"Gateway":         checks.PreflightGatewayRejected,
	"DestinationRule": checks.PreflightDRRejected,
}

// istiodRejects runs istiod's validation of the one Istio object in text: "" when it passes,
// else the error. decoded is false when istiod's conversion cannot decode it at all.
func istiodRejects(text string) (reason string, decoded bool) {
	var obj crd.IstioKind
	if err := yaml.Unmarshal([]byte(text), &obj); err != nil {
		return "", false
	}
	gvk := obj.GroupVersionKind()
	s, ok := collections.PilotGatewayAPI().FindByGroupVersionAliasesKind(resource.FromKubernetesGVK(&gvk))
	if !ok {
		return "", false
	}
	cfg, err := crd.ConvertObject(s, &obj, "")
	if err != nil {
		return "", false
	}
	if _, err := s.ValidateConfig(*cfg); err != nil {
		return err.Error(), true
	}
	return "", true
}

// pluginRejects: the plugin's rejection findings for the object kind ns/name in a snapshot of
// text alone ("" when none).
func pluginRejects(text, kind, ns, name string) (string, error) {
	snap, err := loader.FromFiles([]string{"-"}, strings.NewReader(text), loader.Options{Lenient: true})
	if err != nil {
		return "", err
	}
	var out []string
	for _, f := range checks.Preflight(snap).Findings {
		if f.Code == rejectionCodes[kind] && f.Resource.Kind == kind && f.Resource.Namespace == ns && f.Resource.Name == name {
			out = append(out, f.Message)
		}
	}
	return strings.Join(out, " | "), nil
}

type validationObject struct {
	origin string // scenario or generator dimension values
	text   string
}

func TestConformanceValidation(t *testing.T) {
	silenceIstiodLogs()
	var objs []validationObject
	cases, err := caseScenarios(t)
	if err != nil {
		t.Fatal(err)
	}
	for _, sc := range append(cases, generate(*seedFlag, *countFlag)...) {
		docs, err := splitDocs(sc.YAML)
		if err != nil {
			t.Fatalf("%s: %v", sc.Name, err)
		}
		for _, d := range docs {
			if rejectionCodes[d.kind] != "" && isIstioGroup(d.apiVersion) {
				objs = append(objs, validationObject{sc.Name, d.text})
			}
		}
	}
	fromMatrix := len(objs)
	objs = append(objs, generateValidationObjects(*seedFlag, max(*countFlag*4, 400))...)

	type tally struct{ total, agree, rejected int }
	per := map[string]*tally{}
	var bad []string
	undecodable := 0
	reasons := map[string]int{}
	for _, o := range objs {
		docs, err := splitDocs(o.text)
		if err != nil || len(docs) != 1 {
			t.Fatalf("%s: not one document: %v", o.origin, err)
		}
		d := docs[0]
		ns := d.namespace
		if ns == "" {
			ns = "default"
		}
		want, decoded := istiodRejects(d.text)
		if !decoded {
			undecodable++
			continue
		}
		got, err := pluginRejects(d.text, d.kind, ns, d.name)
		if err != nil {
			bad = append(bad, fmt.Sprintf("%s: %s %s/%s: the plugin cannot load what istiod decodes: %v\n%s", o.origin, d.kind, ns, d.name, err, d.text))
			continue
		}
		tl := per[d.kind]
		if tl == nil {
			tl = &tally{}
			per[d.kind] = tl
		}
		tl.total++
		if want != "" {
			tl.rejected++
			for _, line := range strings.Split(want, "\n") {
				if line = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), "* ")); line != "" && !strings.Contains(line, "errors occurred") && !strings.Contains(line, "error occurred") {
					reasons[d.kind+": "+ruleShape(line)]++
				}
			}
		}
		if (want != "") == (got != "") {
			tl.agree++
			continue
		}
		bad = append(bad, fmt.Sprintf("%s: %s %s/%s: istiod's validation: %s; plugin: %s\n%s", o.origin, d.kind, ns, d.name, orNone(want, "accepted"), orNone(got, "accepted"), d.text))
	}
	kinds := make([]string, 0, len(per))
	for k := range per {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	var parts []string
	for _, k := range kinds {
		tl := per[k]
		parts = append(parts, fmt.Sprintf("%s %d/%d (%d rejected by istiod)", k, tl.agree, tl.total, tl.rejected))
	}
	summary := fmt.Sprintf("Validation: the plugin's rejections agree with istiod's validation on %s; %d objects from the matrix and case files, %d generated; %d not decodable by istiod (skipped)\n",
		strings.Join(parts, ", "), fromMatrix, len(objs)-fromMatrix, undecodable)
	rs := make([]string, 0, len(reasons))
	for k, v := range reasons {
		rs = append(rs, fmt.Sprintf("  %5d  %s", v, k))
	}
	sort.Strings(rs)
	summary += fmt.Sprintf("istiod's reasons (%d distinct, digits and quoted values elided):\n%s\n", len(rs), strings.Join(rs, "\n"))
	r := &kubeConversion{bad: bad}
	r.report(t, "summary-validation.txt", summary, 5)
	for _, k := range kinds {
		if tl := per[k]; tl.rejected == 0 || tl.rejected == tl.total {
			t.Errorf("%s: istiod rejected %d of %d objects: the generator does not exercise both outcomes", k, tl.rejected, tl.total)
		}
	}
}

var (
	quotedValue = regexp.MustCompile(`"[^"]*"`)
	digits      = regexp.MustCompile(`[0-9]+`)
)

// ruleShape: an istiod validation message with its values elided, to count the rules seen.
func ruleShape(msg string) string {
	return digits.ReplaceAllString(quotedValue.ReplaceAllString(msg, `"X"`), "N")
}

func orNone(s, none string) string {
	if s == "" {
		return none
	}
	return s
}

// generateValidationObjects: n ServiceEntries and Sidecars, each drawn from dimensions of the
// fields Istio's validation reads; most values are valid, so that one object usually breaks
// one rule (or none).
func generateValidationObjects(seed int64, n int) []validationObject {
	rng := rand.New(rand.NewSource(seed + 7))
	pick := func(vals ...string) string { return vals[rng.Intn(len(vals))] }
	// often: the first value (valid) with probability p, else any of the others.
	often := func(p float64, vals ...string) string {
		if rng.Float64() < p {
			return vals[0]
		}
		return vals[1+rng.Intn(len(vals)-1)]
	}
	var out []validationObject
	for i := 0; i < n; i++ {
		dims := map[string]string{}
		var b strings.Builder
		switch i % 5 {
		case 2:
			b.WriteString(validationVirtualService(i, often, pick))
		case 3:
			b.WriteString(validationGateway(i, often))
		case 4:
			b.WriteString(validationDestinationRule(i, often))
		}
		if i%5 >= 2 {
			out = append(out, validationObject{origin: fmt.Sprintf("validation-%04d", i), text: b.String()})
			continue
		}
		if i%5 == 0 {
			dims["hosts"] = often(0.5, `["api.example.com"]`, `["*.example.com"]`, `["a.example.com", "b.example.com"]`, `["*"]`, `["api.example.com:443"]`, `["https://api.example.com"]`, `["API.Example.com"]`, `["api"]`, `["10.1.2.3"]`, `["*api.example.com"]`, `["api.*.com"]`, `[]`, `["api.example.123"]`, `["api_x.example.com"]`, `["*.example.com", "api.example.com"]`)
			dims["addresses"] = often(0.6, `[]`, `["10.0.0.1"]`, `["10.0.0.0/24"]`, `["not-an-ip"]`, `["10.0.0.0/33"]`, `["2001:db8::/64"]`, `["10.0.0.1", "10.0.0.2"]`)
			dims["resolution"] = pick("NONE", "STATIC", "DNS", "DNS_ROUND_ROBIN", "DYNAMIC_DNS")
			dims["location"] = often(0.6, "MESH_EXTERNAL", "MESH_INTERNAL")
			port := func() string {
				return fmt.Sprintf("{number: %s, name: %s, protocol: %s%s}",
					often(0.85, "443", "0", "70000", "8443"), often(0.6, "https", "HTTPS", "http_1", `""`, "tls-port", "Tls"),
					often(0.3, "HTTPS", "HTTP", "TLS", "TCP", `""`, "MONGO", "http", "HTTP2", "GRPC", "FOO", "tls"),
					often(0.8, "", ", targetPort: 8443", ", targetPort: 70000"))
			}
			ports := []string{port()}
			switch rng.Intn(5) {
			case 0:
				ports = append(ports, port())
			case 1:
				ports = append(ports, fmt.Sprintf("{number: 80, name: %s, protocol: %s}", pick("http", "https"), pick("HTTP", "TCP", "")))
			}
			dims["ports"] = "[" + strings.Join(ports, ", ") + "]"
			dims["endpoints"] = often(0.5, "", `[{address: 1.2.3.4}]`, `[{address: api.example.com}]`, `[{address: 1.2.3.4}, {address: 1.2.3.5}]`, `[{address: "unix:///var/run/a.sock"}]`, `[{address: api.example.com, ports: {https: 9443}}]`, `[{address: 1.2.3.4, ports: {undefined: 9443}}]`, `[{address: bad_name.example.com}]`, `[{address: 1.2.3.4, labels: {"app": "a b"}}]`, `[{address: 1.2.3.4, ports: {https: 70000}}]`)
			dims["workloadSelector"] = often(0.8, "", `{labels: {app: ext}}`, `{labels: {app: "*"}}`, `{labels: {}}`)
			dims["exportTo"] = often(0.6, "", `["."]`, `["*"]`, `[".", "team-b"]`, `["*", "."]`, `["Bad_NS"]`, `["~"]`, `[".", "team-a"]`, `["team-b", "team-b"]`)
			dims["waypoint"] = often(0.9, "", "waypoint")
			fmt.Fprintf(&b, "apiVersion: networking.istio.io/v1\nkind: ServiceEntry\nmetadata:\n  name: se-%04d\n  namespace: team-a\n", i)
			if dims["waypoint"] != "" {
				b.WriteString("  labels:\n    istio.io/use-waypoint: waypoint\n")
			}
			fmt.Fprintf(&b, "spec:\n  hosts: %s\n  addresses: %s\n  ports: %s\n  resolution: %s\n  location: %s\n", dims["hosts"], dims["addresses"], dims["ports"], dims["resolution"], dims["location"])
			if dims["endpoints"] != "" {
				fmt.Fprintf(&b, "  endpoints: %s\n", dims["endpoints"])
			}
			if dims["workloadSelector"] != "" {
				fmt.Fprintf(&b, "  workloadSelector: %s\n", dims["workloadSelector"])
			}
			if dims["exportTo"] != "" {
				fmt.Fprintf(&b, "  exportTo: %s\n", dims["exportTo"])
			}
		} else {
			egressHosts := func() string {
				return often(0.5, `["*/*"]`, `["./*"]`, `["httpbin.org"]`, `["*/httpbin.org"]`, `["team-a/*", "istio-system/*"]`, `["bad_ns/*"]`, `["*/api"]`, `["*/api.*.com"]`, `["~/*"]`, `[]`, `["/api.example.com"]`, `["./*", "./*"]`, `["*/*", "./api.example.com"]`, `["*/*.example.com"]`, `["~team-b/*"]`, `["istio-system/*"]`)
			}
			listener := func(last bool) string {
				p := often(0.5, "", "{number: 80, name: http, protocol: HTTP}", "{number: 443, name: tls, protocol: TLS}", "{number: 0, name: uds, protocol: HTTP}", "{number: 70000, protocol: TCP}", "{number: 80, name: HTTP, protocol: HTTP}", "{number: 80, name: http_x, protocol: HTTP}", "{number: 80, protocol: FOO}", "{number: 8080, protocol: HTTP, targetPort: 9090}")
				if p == "" && !last && rng.Intn(3) > 0 {
					p = "{number: 9000, protocol: TCP}"
				}
				s := "  - hosts: " + egressHosts() + "\n"
				if p != "" {
					s += "    port: " + p + "\n"
				}
				if bind := often(0.85, "", "127.0.0.1", "not-an-ip", "unix:///var/run/x.sock"); bind != "" {
					s += "    bind: " + bind + "\n"
				}
				if cm := often(0.9, "", "NONE", "IPTABLES"); cm != "" {
					s += "    captureMode: " + cm + "\n"
				}
				return s
			}
			fmt.Fprintf(&b, "apiVersion: networking.istio.io/v1\nkind: Sidecar\nmetadata:\n  name: sc-%04d\n  namespace: team-a\nspec:\n", i)
			if sel := often(0.75, "", "{labels: {app: client}}", "{labels: {}}", `{labels: {app: "*"}}`); sel != "" {
				b.WriteString("  workloadSelector: " + sel + "\n")
			}
			nl := often(0.6, "1", "0", "2", "3")
			var ls []string
			for j := 0; j < int(nl[0]-'0'); j++ {
				ls = append(ls, listener(j == int(nl[0]-'0')-1))
			}
			if len(ls) > 0 {
				b.WriteString("  egress:\n" + strings.Join(ls, ""))
			}
			if mode := often(0.4, "", "REGISTRY_ONLY", "ALLOW_ANY"); mode != "" || rng.Intn(2) == 0 {
				b.WriteString("  outboundTrafficPolicy:\n")
				if mode != "" {
					b.WriteString("    mode: " + mode + "\n")
				}
				if ep := often(0.5, "", "{host: istio-egressgateway.istio-system.svc.cluster.local, port: {number: 80}}", "{host: istio-egressgateway, port: {number: 80}}", "{host: istio-egressgateway.istio-system.svc.cluster.local}", `{host: "*", port: {number: 80}}`, "{host: istio-egressgateway.istio-system.svc.cluster.local, port: {number: 0}}", "{host: istio-egressgateway.istio-system.svc.cluster.local, subset: V_1, port: {number: 80}}", "{host: istio-egressgateway.istio-system.svc.cluster.local, subset: v1, port: {number: 80}}"); ep != "" {
					b.WriteString("    egressProxy: " + ep + "\n")
				}
			}
			if ing := often(0.85, "", "  ingress:\n  - port: {number: 9080, name: http, protocol: HTTP}\n    defaultEndpoint: 127.0.0.1:8080\n", "  ingress:\n  - port: {number: 9080, protocol: HTTP}\n    defaultEndpoint: 10.0.0.1:8080\n"); ing != "" {
				b.WriteString(ing)
			}
			dims["sidecar"] = "see text"
		}
		out = append(out, validationObject{origin: fmt.Sprintf("validation-%04d", i), text: b.String()})
	}
	return out
}

// validationVirtualService: a VirtualService drawn from dimensions of the fields Istio's
// validation reads (hosts, gateways, http/tls/tcp routes, their matches and destinations,
// exportTo); header operations, CORS, faults, retries and rewrites are not drawn (the plugin
// does not mirror them).
func validationVirtualService(i int, often func(float64, ...string) string, pick func(...string) string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "apiVersion: networking.istio.io/v1\nkind: VirtualService\nmetadata:\n  name: vs-%04d\n  namespace: team-a\nspec:\n", i)
	hosts := often(0.55, `["api.example.com"]`, `["*.example.com"]`, `["*"]`, `["api.example.com", "*.example.com"]`, `["api.example.com:443"]`, `[]`, `["10.0.0.1"]`, `["API.example.com"]`, `["api.example.com", "web.example.com"]`)
	if hosts != "[]" || pick("a", "b") == "a" {
		b.WriteString("  hosts: " + hosts + "\n")
	}
	if gws := often(0.5, "", "[mesh]", "[mesh, istio-system/egress]", "[istio-system/egress]", "[egress]", "[egress.istio-system]", "[istio_system/egress]", `["istio-system/"]`, "[istio-system/egress_gw]"); gws != "" {
		b.WriteString("  gateways: " + gws + "\n")
	}
	dest := func() string {
		return fmt.Sprintf("{host: %s%s%s}", often(0.8, "api.example.com", `"*"`, "istio-egressgateway.istio-system.svc.cluster.local", "bad_host.example.com"),
			often(0.8, "", ", subset: v1", ", subset: v_1"), often(0.8, "", ", port: {number: 443}", ", port: {number: 0}", ", port: {number: 70000}"))
	}
	kinds := often(0.3, "http", "tls", "tcp", "", "http+tls", "tcp+tls")
	if strings.Contains(kinds, "http") {
		b.WriteString("  http:\n")
		match := often(0.5, "", "[{port: 80}]", "[{port: 70000}]", "[{gateways: [mesh]}]", "[{gateways: [\"bad/ns/x\"]}]", "[{sourceNamespace: Team_A}]", `[{uri: {prefix: ""}}]`, `[{uri: {regex: "("}}]`, `[{uri: {exact: "/v1"}}]`, "[{sourceLabels: {app: \"a b\"}}]", `[{headers: {x-team: {regex: "["}}}]`)
		if match != "" {
			b.WriteString("  - match: " + match + "\n    ")
		} else {
			b.WriteString("  - ")
		}
		switch often(0.5, "route", "two-zero", "redirect", "redirect+route", "redirect-empty", "direct", "direct-bad", "none", "mirror", "timeout-bad", "redirect-code") {
		case "route":
			b.WriteString("route: [{destination: " + dest() + "}]\n")
		case "two-zero":
			b.WriteString("route: [{destination: " + dest() + ", weight: 0}, {destination: {host: web.example.com}, weight: 0}]\n")
		case "redirect":
			b.WriteString("redirect: {authority: www.example.com}\n")
		case "redirect+route":
			b.WriteString("redirect: {authority: www.example.com}\n    route: [{destination: " + dest() + "}]\n")
		case "redirect-empty":
			b.WriteString("redirect: {redirectCode: 301}\n")
		case "redirect-code":
			b.WriteString("redirect: {authority: www.example.com, redirectCode: 200}\n")
		case "direct":
			b.WriteString("directResponse: {status: 503}\n")
		case "direct-bad":
			b.WriteString("directResponse: {status: 700}\n")
		case "none":
			b.WriteString("timeout: 5s\n")
		case "mirror":
			b.WriteString("route: [{destination: " + dest() + "}]\n    mirror: " + dest() + "\n")
		case "timeout-bad":
			b.WriteString("route: [{destination: " + dest() + "}]\n    timeout: 0.0005s\n")
		}
	}
	if strings.Contains(kinds, "tls") {
		b.WriteString("  tls:\n")
		if m := often(0.2, "[{sniHosts: [api.example.com], port: 443}]", "", "[{port: 443}]", "[{sniHosts: [other.example.com]}]", "[{sniHosts: [\"*.example.com\"]}]", "[{sniHosts: [a.api.example.com]}]", "[{sniHosts: [api.example.com], destinationSubnets: [\"10.0.0.0/33\"]}]", "[{sniHosts: [api.example.com], gateways: [mesh]}]"); m != "" {
			b.WriteString("  - match: " + m + "\n    route: [{destination: " + dest() + "}]\n")
		} else {
			b.WriteString("  - route: [{destination: " + dest() + "}]\n")
		}
	}
	if strings.Contains(kinds, "tcp") {
		b.WriteString("  tcp:\n")
		m := often(0.5, "[{port: 5432}]", "", "[{port: 70000}]", "[{destinationSubnets: [\"10.0.0.0/33\"]}]", "[{destinationSubnets: [\"10.0.0.0/24\"]}]")
		r := often(0.85, "route: [{destination: "+dest()+"}]", "")
		switch {
		case m != "" && r != "":
			b.WriteString("  - match: " + m + "\n    " + r + "\n")
		case m != "":
			b.WriteString("  - match: " + m + "\n")
		case r != "":
			b.WriteString("  - " + r + "\n")
		default:
			b.WriteString("  - match: [{port: 5432}]\n")
		}
	}
	if e := often(0.8, "", `["."]`, `["~"]`, `["*", "."]`, `[".", "team-a"]`); e != "" {
		b.WriteString("  exportTo: " + e + "\n")
	}
	return b.String()
}

// validationGateway: a Gateway drawn from dimensions of the fields Istio's validation reads
// (name, servers, hosts, ports, binds, TLS settings).
func validationGateway(i int, often func(float64, ...string) string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "apiVersion: networking.istio.io/v1\nkind: Gateway\nmetadata:\n  name: %s\n  namespace: istio-system\nspec:\n  selector: {istio: egressgateway}\n",
		often(0.9, fmt.Sprintf("gw-%04d", i), fmt.Sprintf("gw.%04d", i)))
	n := often(0.5, "1", "2", "0")
	if n == "0" {
		b.WriteString("  servers: []\n")
		return b.String()
	}
	b.WriteString("  servers:\n")
	for j := 0; j < int(n[0]-'0'); j++ {
		proto := often(0.3, "HTTP", "HTTPS", "TLS", "TCP", "HTTP2", "", "FOO", "tls")
		name := often(0.8, fmt.Sprintf("p-%d", j), "", "p-0")
		num := often(0.85, "443", "80", "0", "70000")
		port := fmt.Sprintf("{number: %s, protocol: %q", num, proto)
		if name != "" {
			port += ", name: " + name
		}
		if often(0.9, "", "t") != "" {
			port += ", targetPort: 8443"
		}
		port += "}"
		fmt.Fprintf(&b, "  - port: %s\n    hosts: %s\n", port, often(0.5, `["api.example.com"]`, `["*"]`, `["istio-system/api.example.com"]`, `["team_a/api.example.com"]`, `["api"]`, `[]`, `["10.0.0.1"]`, `["*/api.*.com"]`, `["./*.example.com"]`, `["/api.example.com"]`, `["~/api.example.com"]`))
		if bind := often(0.9, "", "0.0.0.0", "not-an-ip", "unix:///var/run/gw.sock"); bind != "" {
			b.WriteString("    bind: " + bind + "\n")
		}
		if tls := often(0.4, "", "{mode: PASSTHROUGH}", "{mode: SIMPLE, credentialName: api-cert}", "{mode: SIMPLE}", "{mode: ISTIO_MUTUAL}", "{mode: ISTIO_MUTUAL, credentialName: api-cert}", "{mode: MUTUAL, credentialName: api-cert}", "{mode: MUTUAL, serverCertificate: /c.pem, privateKey: /k.pem}", "{httpsRedirect: true}", "{mode: SIMPLE, credentialName: a, serverCertificate: /c.pem, privateKey: /k.pem}", "{mode: SIMPLE, serverCertificate: /c.pem, privateKey: /k.pem, caCrl: /crl.pem}", "{mode: AUTO_PASSTHROUGH, credentialName: a}"); tls != "" {
			b.WriteString("    tls: " + tls + "\n")
		}
	}
	return b.String()
}

// validationDestinationRule: a DestinationRule drawn from dimensions of the fields Istio's
// validation reads (host, subsets, traffic policy TLS and port settings, exportTo, selector);
// outlier detection, connection pool and load balancer values are not drawn.
func validationDestinationRule(i int, often func(float64, ...string) string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "apiVersion: networking.istio.io/v1\nkind: DestinationRule\nmetadata:\n  name: dr-%04d\n  namespace: team-a\nspec:\n  host: %s\n", i,
		often(0.7, "api.example.com", `"*.example.com"`, "api.example.com:443", `"*"`, "istio-egressgateway.istio-system.svc.cluster.local", "bad_host.example.com"))
	tlsOf := func() string {
		return often(0.3, "{mode: SIMPLE}", "{mode: SIMPLE, credentialName: api-ca}", "{mode: MUTUAL}", "{mode: MUTUAL, credentialName: client-cert}", "{mode: MUTUAL, clientCertificate: /c.pem, privateKey: /k.pem}", "{mode: SIMPLE, insecureSkipVerify: true, credentialName: api-ca}", "{mode: SIMPLE, insecureSkipVerify: true}", "{mode: ISTIO_MUTUAL, sni: api.example.com}", "{mode: SIMPLE, credentialName: api-ca, caCertificates: /ca.pem}", "{mode: DISABLE}")
	}
	switch often(0.4, "tls", "", "empty", "ports", "ports-noport", "ports-empty", "lb", "tunnel+proxy") {
	case "tls":
		b.WriteString("  trafficPolicy:\n    tls: " + tlsOf() + "\n")
	case "empty":
		b.WriteString("  trafficPolicy: {}\n")
	case "ports":
		b.WriteString("  trafficPolicy:\n    portLevelSettings:\n    - port: {number: 443}\n      tls: " + tlsOf() + "\n")
	case "ports-noport":
		b.WriteString("  trafficPolicy:\n    portLevelSettings:\n    - tls: " + tlsOf() + "\n")
	case "ports-empty":
		b.WriteString("  trafficPolicy:\n    portLevelSettings:\n    - port: {number: 443}\n")
	case "lb":
		b.WriteString("  trafficPolicy:\n    loadBalancer: {simple: ROUND_ROBIN}\n")
	case "tunnel+proxy":
		b.WriteString("  trafficPolicy:\n    tunnel: {protocol: CONNECT, targetHost: proxy.example.com, targetPort: 3128}\n    proxyProtocol: {version: V1}\n")
	}
	switch often(0.5, "", "one", "dup", "underscore", "labels", "policy-empty", "policy-tls") {
	case "one":
		b.WriteString("  subsets:\n  - name: v1\n    labels: {version: v1}\n")
	case "dup":
		b.WriteString("  subsets:\n  - name: v1\n  - name: v1\n")
	case "underscore":
		b.WriteString("  subsets:\n  - name: tls_origination\n")
	case "labels":
		b.WriteString("  subsets:\n  - name: v1\n    labels: {version: \"v 1\"}\n")
	case "policy-empty":
		b.WriteString("  subsets:\n  - name: v1\n    trafficPolicy: {}\n")
	case "policy-tls":
		b.WriteString("  subsets:\n  - name: v1\n    trafficPolicy:\n      tls: " + tlsOf() + "\n")
	}
	if e := often(0.7, "", `["."]`, `["*"]`, `["~"]`, `[".", "team-b"]`, `["team-a"]`); e != "" {
		b.WriteString("  exportTo: " + e + "\n")
	}
	if sel := often(0.8, "", "{matchLabels: {app: client}}", `{matchLabels: {app: "*"}}`); sel != "" {
		b.WriteString("  workloadSelector: " + sel + "\n")
	}
	return b.String()
}
