package conformance

// Kubernetes Gateway API Gateways: the internal Istio Gateways the plugin predicts
// (rules.ConvertKubeGateways over the loader's snapshot) against those istiod's own Gateway API
// controller generates from the same objects (pilot/test/xds FakeDiscoveryServer with the
// objects in its fake API server; Environment.GatewayAPIController.List). Compared: the set of
// generated Gateways (namespace/name), the Service host names they bind to
// (internal.istio.io/gateway-service), and each server's port (number, name, protocol), hosts
// and TLS mode and credential. Scenarios: the files under testdata/gatewayapi and generated
// Gateways varying class (built in, GatewayClass objects of Istio's or another controller),
// addresses, and per listener the protocol, hostname, allowedRoutes and TLS, and listeners
// sharing a port (distinct, or conflicting: istiod generates nothing for the later one).

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	crand "crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"fmt"
	"math/big"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	networking "istio.io/api/networking/v1alpha3"
	"istio.io/istio/pilot/pkg/config/kube/crd"
	"istio.io/istio/pilot/test/xds"
	"istio.io/istio/pkg/config"
	"istio.io/istio/pkg/config/schema/gvk"
	kubelib "istio.io/istio/pkg/kube"
	istiolog "istio.io/istio/pkg/log"
	"istio.io/istio/pkg/test"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	metadatafake "k8s.io/client-go/metadata/fake"
	k8stesting "k8s.io/client-go/testing"
	gwconsts "sigs.k8s.io/gateway-api/pkg/consts"

	"github.com/kubectl-egress/kubectl-egress/pkg/loader"
	"github.com/kubectl-egress/kubectl-egress/pkg/rules"
	"github.com/kubectl-egress/kubectl-egress/pkg/snapshot"
)

// kubeGatewayScenario is one input: its name and YAML.
type kubeGatewayScenario struct{ name, yaml string }

// generateKubeGateways builds n Gateway scenarios from seed.
func generateKubeGateways(seed int64, n int) []kubeGatewayScenario {
	rng := rand.New(rand.NewSource(seed ^ 0x6b756265677779)) // "kubegwy"
	pick := func(v ...string) string { return v[rng.Intn(len(v))] }
	var out []kubeGatewayScenario
	for i := 0; i < n; i++ {
		var b strings.Builder
		b.WriteString(`apiVersion: v1
kind: Namespace
metadata: {name: egress, labels: {team: ops}}
---
apiVersion: v1
kind: Namespace
metadata: {name: team-a, labels: {team: a, istio-injection: enabled}}
---
apiVersion: v1
kind: Namespace
metadata: {name: team-b, labels: {team: b, istio-injection: enabled}}
---
`)
		// the class: the built-in istio class; a GatewayClass object of Istio's controller;
		// one of another controller's; an object named "istio" that another controller
		// serves (the object wins over the built-in name); no object for a custom name.
		class := pick("istio", "istio", "istio", "egress-class", "foreign-class", "istio-foreign", "other-class")
		switch class {
		case "egress-class":
			b.WriteString("apiVersion: gateway.networking.k8s.io/v1\nkind: GatewayClass\nmetadata: {name: egress-class}\nspec: {controllerName: istio.io/gateway-controller}\n---\n")
		case "foreign-class":
			b.WriteString("apiVersion: gateway.networking.k8s.io/v1\nkind: GatewayClass\nmetadata: {name: foreign-class}\nspec: {controllerName: example.com/other-controller}\n---\n")
		case "istio-foreign":
			class = "istio"
			b.WriteString("apiVersion: gateway.networking.k8s.io/v1\nkind: GatewayClass\nmetadata: {name: istio}\nspec: {controllerName: example.com/other-controller}\n---\n")
		}
		fmt.Fprintf(&b, "apiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata:\n  name: gw-%d\n  namespace: egress\n", i)
		if rng.Intn(5) == 0 {
			b.WriteString("  annotations: {gateway.istio.io/name-override: custom-egress}\n")
		}
		fmt.Fprintf(&b, "spec:\n  gatewayClassName: %s\n", class)
		switch rng.Intn(6) {
		case 0:
			b.WriteString("  addresses:\n  - {type: Hostname, value: manual-egress}\n")
		case 1:
			b.WriteString("  addresses:\n  - {type: Hostname, value: egress-svc.egress.svc.cluster.local}\n")
		case 2:
			b.WriteString("  addresses:\n  - {type: IPAddress, value: 10.0.0.7}\n")
		}
		b.WriteString("  listeners:\n")
		first := 0
		pkiRef, pkiGrant := false, false
		for l, nl := 0, 1+rng.Intn(3); l < nl; l++ {
			proto := pick("HTTP", "HTTP", "HTTPS", "TLS", "TLS", "TCP", "UDP", "http")
			port := []int{80, 443, 8080, 5432}[rng.Intn(4)] + l*1000
			if l == 0 {
				first = port
			} else if rng.Intn(3) == 0 {
				port = first // the same port as the first listener: distinct or conflicting
			}
			fmt.Fprintf(&b, "  - name: l%d\n    port: %d\n    protocol: %s\n", l, port, proto)
			switch rng.Intn(3) {
			case 1:
				b.WriteString("    hostname: api.example.com\n")
			case 2:
				b.WriteString("    hostname: \"*.example.org\"\n")
			}
			switch rng.Intn(5) {
			case 1:
				b.WriteString("    allowedRoutes: {namespaces: {from: Same}}\n")
			case 2:
				b.WriteString("    allowedRoutes: {namespaces: {from: All}}\n")
			case 3:
				b.WriteString("    allowedRoutes: {namespaces: {from: Selector, selector: {matchLabels: {team: a}}}}\n")
			case 4:
				b.WriteString("    allowedRoutes: {namespaces: {from: Selector, selector: {matchExpressions: [{key: team, operator: In, values: [a, b]}]}}}\n")
			}
			if proto == "HTTPS" || proto == "TLS" || rng.Intn(4) == 0 {
				switch rng.Intn(5) {
				case 0:
					b.WriteString("    tls: {mode: Passthrough}\n")
				case 1:
					b.WriteString("    tls: {mode: Terminate, options: {gateway.istio.io/tls-terminate-mode: ISTIO_MUTUAL}}\n")
				case 2:
					b.WriteString("    tls: {mode: Terminate, options: {gateway.istio.io/tls-terminate-mode: ISTIO_SIMPLE}}\n")
				case 3:
					b.WriteString("    tls: {mode: Terminate, options: {gateway.istio.io/tls-terminate-mode: MUTUAL}, certificateRefs: [{name: egress-cert}]}\n")
				default:
					if rng.Intn(3) > 0 { // an HTTPS or TLS listener without tls gets no server
						// the certificate: the Gateway's namespace's Secret; a Secret in namespace
						// pki, granted by a ReferenceGrant there or not (conversion.go buildTLS:
						// RefNotPermitted); a Secret that exists nowhere (buildSecretReference).
						switch rng.Intn(5) {
						case 1:
							b.WriteString("    tls: {certificateRefs: [{name: egress-cert, namespace: pki}]}\n")
							pkiRef = true
						case 2:
							b.WriteString("    tls: {certificateRefs: [{name: egress-cert, namespace: pki}]}\n")
							pkiRef, pkiGrant = true, true
						case 3:
							b.WriteString("    tls: {certificateRefs: [{name: missing-cert}]}\n")
						default:
							b.WriteString("    tls: {certificateRefs: [{name: egress-cert}]}\n")
						}
					}
				}
			}
		}
		b.WriteString("---\n" + egressCertSecret())
		if pkiRef {
			b.WriteString("---\napiVersion: v1\nkind: Namespace\nmetadata: {name: pki}\n---\n" +
				strings.Replace(egressCertSecret(), "namespace: egress}", "namespace: pki}", 1))
		}
		if pkiGrant {
			b.WriteString("---\napiVersion: gateway.networking.k8s.io/v1beta1\nkind: ReferenceGrant\nmetadata: {name: egress-certs, namespace: pki}\n" +
				"spec:\n  from: [{group: gateway.networking.k8s.io, kind: Gateway, namespace: egress}]\n  to: [{group: \"\", kind: Secret}]\n")
		}
		out = append(out, kubeGatewayScenario{fmt.Sprintf("kgw-%04d", i), b.String()})
	}
	return out
}

// egressCertSecret is a TLS Secret egress/egress-cert with a valid self-signed key pair (istiod
// refuses a listener whose certificate Secret is missing or malformed; the plugin does not read
// Secrets and assumes it is valid).
var egressCertSecret = sync.OnceValue(func() string {
	key, err := ecdsa.GenerateKey(elliptic.P256(), crand.Reader)
	if err != nil {
		panic(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "egress.example.com"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour), DNSNames: []string{"egress.example.com"}}
	der, err := x509.CreateCertificate(crand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		panic(err)
	}
	kd, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		panic(err)
	}
	crt := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	k := pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kd})
	return fmt.Sprintf("apiVersion: v1\nkind: Secret\nmetadata: {name: egress-cert, namespace: egress}\ntype: kubernetes.io/tls\ndata:\n  tls.crt: %s\n  tls.key: %s\n",
		base64.StdEncoding.EncodeToString(crt), base64.StdEncoding.EncodeToString(k))
})

// gatewayShape is what is compared of one internal Gateway.
func gatewayShape(ns, name string, ann map[string]string, spec *networking.Gateway) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s/%s service=%s", ns, name, ann[rules.AnnotationGatewayService])
	for _, s := range spec.GetServers() {
		fmt.Fprintf(&b, " server{port=%d/%s/%s hosts=%v", s.GetPort().GetNumber(), s.GetPort().GetName(), s.GetPort().GetProtocol(), s.GetHosts())
		if t := s.GetTls(); t != nil {
			fmt.Fprintf(&b, " tls=%s cred=%q creds=%v", t.GetMode(), t.GetCredentialName(), t.GetCredentialNames())
		}
		b.WriteString("}")
	}
	return b.String()
}

func TestConformanceGatewayAPIGateways(t *testing.T) {
	scenarios := kubeTestdataScenarios(t)
	scenarios = append(scenarios, generateKubeGateways(*seedFlag, max(*countFlag/3, 20))...)
	r := compareKubeConversion(t, scenarios, gvk.Gateway,
		func(snap *snapshot.Snapshot) []string {
			var out []string
			for _, g := range rules.ConvertKubeGateways(snap.KubeGateways, snap.GatewayClasses, snap.Namespaces, snap.ReferenceGrants, snap.SecretKnownMissing) {
				out = append(out, gatewayShape(g.Namespace, g.Name, g.Annotations, &g.Spec))
			}
			return out
		},
		func(c config.Config) string {
			return gatewayShape(c.Namespace, c.Name, c.Annotations, c.Spec.(*networking.Gateway))
		})
	r.report(t, "summary-gatewayapi.txt", fmt.Sprintf("Gateway API Gateways → internal Istio Gateways: %d/%d scenarios agree (%d internal Gateways generated by istiod)\n", r.agree, r.total, r.generated), 5)
	if r.generated == 0 {
		t.Error("istiod generated no internal Gateway: the harness compared nothing")
	}
}

// kubeConversion is the comparison of one Gateway API conversion over scenarios.
type kubeConversion struct {
	agree, total, generated int
	istiod                  [][]string // istiod's shapes, per scenario
	bad                     []string
}

// compareKubeConversion runs every scenario through the plugin (plugin: the shapes of what the
// plugin converts) and through istiod's own Gateway API controller (the configs of kind it
// generates, each shaped by shape), and compares the sorted shapes.
func compareKubeConversion(t *testing.T, scenarios []kubeGatewayScenario, kind config.GroupVersionKind, plugin func(*snapshot.Snapshot) []string, shape func(config.Config) string) *kubeConversion {
	t.Helper()
	silenceIstiodLogs()
	r := &kubeConversion{}
	for _, sc := range scenarios {
		snap, err := loader.FromFiles([]string{"-"}, strings.NewReader(sc.yaml), loader.Options{Lenient: true})
		if err != nil {
			t.Fatalf("%s: plugin loader: %v", sc.name, err)
		}
		mine := plugin(snap)
		var theirs []string
		// An API server serving a Gateway API CRD at v1alpha2 and v1 returns an object written
		// at either version at both; the fake one istiod reads keeps the version written, and
		// istiod watches v1 (TLSRoute and TCPRoute, which have the same fields at both).
		asV1 := asServedToIstiod(sc.yaml)
		err = test.Wrap(func(tt test.Failer) {
			configs, _, err := crd.ParseInputs(asV1)
			if err != nil {
				tt.Fatalf("parse: %v", err)
			}
			s := xds.NewFakeDiscoveryServer(tt, xds.FakeOptions{Configs: configs, KubernetesObjectString: asV1, KubeClientModifier: gatewayAPIBundleVersion})
			for _, c := range s.Env().GatewayAPIController.List(kind, "") {
				theirs = append(theirs, shape(c))
			}
		})
		if err != nil {
			t.Fatalf("%s: istiod: %v", sc.name, err)
		}
		sort.Strings(mine)
		sort.Strings(theirs)
		r.total++
		r.generated += len(theirs)
		r.istiod = append(r.istiod, theirs)
		if strings.Join(mine, "\n") == strings.Join(theirs, "\n") {
			r.agree++
			continue
		}
		r.bad = append(r.bad, fmt.Sprintf("%s:\n  plugin: %s\n  istiod: %s\n%s", sc.name, strings.Join(mine, "\n          "), strings.Join(theirs, "\n          "), sc.yaml))
	}
	return r
}

// kubeTestdataScenarios are the files under testdata/gatewayapi, as scenarios.
func kubeTestdataScenarios(t *testing.T) []kubeGatewayScenario {
	t.Helper()
	var out []kubeGatewayScenario
	files, _ := filepath.Glob(filepath.Join("testdata", "gatewayapi", "*.yaml"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, kubeGatewayScenario{filepath.Base(f), string(b)})
	}
	return out
}

// asServedToIstiod is a scenario's YAML as istiod's fake API server is given it: TLSRoutes and
// TCPRoutes at v1 whatever version they were written at (an API server serving both versions
// returns an object at either; istiod watches v1, and the two have the same fields), and
// HTTPRoutes with the CRD's default matches.
func asServedToIstiod(text string) string {
	text = strings.ReplaceAll(text, "apiVersion: gateway.networking.k8s.io/v1alpha2\nkind: TLSRoute", "apiVersion: gateway.networking.k8s.io/v1\nkind: TLSRoute")
	text = strings.ReplaceAll(text, "apiVersion: gateway.networking.k8s.io/v1alpha2\nkind: TCPRoute", "apiVersion: gateway.networking.k8s.io/v1\nkind: TCPRoute")
	return withDefaultHTTPRouteMatchesYAML(text)
}

// silenceIstiodLogs turns off the logging of the istiod code the harness runs.
func silenceIstiodLogs() {
	for _, s := range istiolog.Scopes() {
		s.SetOutputLevel(istiolog.NoneLevel)
		s.SetStackTraceLevel(istiolog.NoneLevel)
	}
}

// gatewayAPIBundleVersion gives every CRD the fake API server creates the Gateway API
// bundle-version annotation of the release the conformance module pins: istiod ignores
// TLSRoutes and TCPRoutes whose CRD bundle is older than its minimum, or not annotated
// (pkg/kube/kclient/crdwatcher.go minimumVersionFilter), and the fake discovery server creates
// its CRDs without annotations.
func gatewayAPIBundleVersion(c kubelib.Client) {
	fmc, ok := c.Metadata().(*metadatafake.FakeMetadataClient)
	if !ok {
		return
	}
	annotate := func(a k8stesting.Action) (bool, runtime.Object, error) {
		var obj runtime.Object
		switch a := a.(type) {
		case k8stesting.CreateAction:
			obj = a.GetObject()
		case k8stesting.UpdateAction:
			obj = a.GetObject()
		}
		if m, ok := obj.(*metav1.PartialObjectMetadata); ok && strings.HasSuffix(m.Name, ".gateway.networking.k8s.io") {
			if m.Annotations == nil {
				m.Annotations = map[string]string{}
			}
			m.Annotations[gwconsts.BundleVersionAnnotation] = gwconsts.BundleVersion
		}
		return false, nil, nil
	}
	fmc.PrependReactor("create", "customresourcedefinitions", annotate)
	fmc.PrependReactor("update", "customresourcedefinitions", annotate)
}

// report logs the summary, writes it with the disagreements to file in -out, and fails on the
// first max disagreements.
func (r *kubeConversion) report(t *testing.T, file, summary string, max int) {
	t.Helper()
	t.Log(summary)
	_ = os.MkdirAll(*outFlag, 0o755)
	_ = os.WriteFile(filepath.Join(*outFlag, file), []byte(summary+strings.Join(r.bad, "\n")), 0o644)
	for i, b := range r.bad {
		if i == max {
			t.Errorf("... and %d more (%s)", len(r.bad)-max, filepath.Join(*outFlag, file))
			break
		}
		t.Errorf("disagreement: %s", b)
	}
}
