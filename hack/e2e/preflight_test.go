package e2e

import (
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/yaml"

	"github.com/kubectl-egress/kubectl-egress/pkg/checks"
)

// preflightCases: for each case file (the repository's fixtures, each named by its kind, then
// the shared acceptance set's when it is present), the findings `preflight` must report, as
// "CODE Kind namespace/name". The repository's fixtures follow the same rules as the shared
// cases of their kind, listed below by the shared numbers. The codes come from the other e2e tables for the same case
// (cases_test.go: why-missing causes; exportaudit_test.go; explainlistener_test.go;
// visibility_test.go), or from the case's `# expect:` where no table covers it (11, 27, S2).
// Controls (want nil) must have no Error finding and exit 0:
//   - 04, 07, 24, 26, S5: the control cases of cases_test.go and exportaudit_test.go;
//   - 28, S1, S3: valid configuration (28 is a control-plane bug only live evidence shows);
//   - 17: its fault is about a host no resource names (grpc.example.com): preflight has no
//     host to ask about, so it finds nothing (explain-listener with that host does);
//   - S4: no VirtualService routes httpbin.org through the gateway, so preflight does not
//     diagnose it; the seed (§2.4, §3.4) calls the missing cluster "normal" in that state.
var preflightCases = []struct {
	file string
	want []string
}{
	{fxExportPrivate, []string{"NOT_EXPORTED_TO_GATEWAY_NAMESPACE " + fxExportPrivateSE, "SE_NOT_EXPORTED_TO_GATEWAY_NAMESPACE " + fxExportPrivateSE}},
	{"dr-subset-rule-off-the-lookup-path.yaml", []string{"DR_NOT_ON_LOOKUP_PATH DestinationRule orders/catalog-egress-subset"}},
	{"dr-exportto-names-own-namespace-control.yaml", nil},
	{"gateway-bare-name-resolves-in-route-namespace.yaml", []string{"GATEWAY_REF_UNRESOLVED VirtualService web/maps-via-gateway"}},
	{fxFQDNControl, nil},
	{"tls-passthrough-server-given-http-routes.yaml", []string{"GATEWAY_LISTENER_WITHOUT_CHAINS Gateway istio-system/vault-passthrough", "HTTP_ROUTES_ON_PASSTHROUGH_SERVER VirtualService vault-client/vault-egress", "HTTP_ROUTES_IGNORED_ON_TCP_PORT VirtualService vault-client/vault-egress"}},
	{"gatewayapi-tls-passthrough-server-given-http-routes.yaml", []string{"GATEWAY_LISTENER_WITHOUT_CHAINS Gateway istio-system/egress-tls", "GATEWAY_API_ROUTE_NOT_ACCEPTED HTTPRoute vault-client/vault-from-egress", "HTTP_ROUTES_IGNORED_ON_TCP_PORT HTTPRoute vault-client/vault-to-egress"}},
	{"gateway-service-lacks-mesh-hop-port.yaml", []string{"GATEWAY_SERVICE_LACKS_PORT Service outbound/outbound-gateway"}},
	{"route-names-undeclared-gateway-subset.yaml", []string{"SUBSET_NOT_DEFINED_ANYWHERE VirtualService newsroom/feeds-egress"}},
	{"tcp-entries-share-port-without-vips.yaml", []string{"FILTER_CHAIN_DROPPED ServiceEntry analytics/warehouse-replica", "TCP_CATCH_ALL_ON_PORT ServiceEntry analytics/warehouse-primary"}},
	{"tcp-entry-on-443-captures-other-https.yaml", []string{"TCP_CATCH_ALL_ON_TLS_PORT ServiceEntry monitoring/telemetry-sink"}},
	{"tcp-entry-shadowed-by-http-service-port.yaml", []string{"HTTP_CHAIN_SHADOWS_TCP_ENTRY ServiceEntry store/legacy-erp"}},
	{"grpc-host-without-entry-on-http-port.yaml", nil},
	{"https-entry-with-port-level-simple-tls.yaml", []string{"TLS_ORIGINATED_TWICE DestinationRule billing/invoice-api-tls"}},
	{"resolution-none-forwarded-by-gateway.yaml", []string{"NO_ENDPOINTS ServiceEntry uploads/blob-store"}},
	{fxSidecarScope, []string{"NOT_IMPORTED_BY_SIDECAR_EGRESS_HOSTS Sidecar reports/default"}},
	{"cluster-filter-keeps-delegate-destination-control.yaml", nil},
	{"cluster-filter-push-bug-valid-config-control.yaml", nil},
	{fxDuplicateRR, []string{"DUPLICATE_HOST_VISIBLE ServiceEntry crm/partner-feed"}},
	{"dns-round-robin-valid-entry-control.yaml", nil},
	{"ip-authority-not-in-gateway-virtual-hosts.yaml", []string{"NO_VIRTUAL_HOST VirtualService factory/plc-through-gateway"}},
	{"http-entry-gets-hcm-listener.yaml", nil},
	{"tcp-entry-without-address-takes-port.yaml", []string{"TCP_CATCH_ALL_ON_PORT ServiceEntry sessions/redis-cloud"}},
	{"tcp-entry-with-vip-narrows-listener.yaml", nil},
	{fxUnreferenced, nil},
	{fxBound, nil},
	{"se-exported-by-name-not-to-gateway-namespace.yaml", []string{"NOT_EXPORTED_TO_GATEWAY_NAMESPACE ServiceEntry checkout/tax-service", "SE_NOT_EXPORTED_TO_GATEWAY_NAMESPACE ServiceEntry checkout/tax-service"}},
	{"01-se-exportto-dot-hidden-from-egress-gateway.yaml", []string{"NOT_EXPORTED_TO_GATEWAY_NAMESPACE ServiceEntry team-a/api-example", "SE_NOT_EXPORTED_TO_GATEWAY_NAMESPACE ServiceEntry team-a/api-example"}},
	{"02-dr-subset-in-other-client-namespace.yaml", []string{"DR_NOT_ON_LOOKUP_PATH DestinationRule team-a/egressgateway-for-api"}},
	{"04-dr-exportto-names-own-namespace-1-20.yaml", nil},
	{"06-gateway-short-name-resolves-in-vs-namespace.yaml", []string{"GATEWAY_REF_UNRESOLVED VirtualService team-a/api-via-egress"}},
	{"07-gateway-ref-legacy-fqdn-form-control.yaml", nil},
	{"08-http-routes-on-tls-passthrough-server.yaml", []string{"GATEWAY_LISTENER_WITHOUT_CHAINS Gateway istio-system/istio-egressgateway", "HTTP_ROUTES_ON_PASSTHROUGH_SERVER VirtualService team-a/api-via-egress", "HTTP_ROUTES_IGNORED_ON_TCP_PORT VirtualService team-a/api-via-egress"}},
	{"10-egress-gateway-service-lacks-port.yaml", []string{"GATEWAY_SERVICE_LACKS_PORT Service istio-system/istio-egressgateway"}},
	{"11-subset-referenced-but-not-defined.yaml", []string{"SUBSET_NOT_DEFINED_ANYWHERE VirtualService team-a/api-via-egress"}},
	{"12-tcp-serviceentries-3306-without-addresses.yaml", []string{"FILTER_CHAIN_DROPPED ServiceEntry team-a/stats-db", "TCP_CATCH_ALL_ON_PORT ServiceEntry team-a/orders-db"}},
	{"14-tcp-serviceentry-on-443-hijacks-https.yaml", []string{"TCP_CATCH_ALL_ON_TLS_PORT ServiceEntry team-a/search-api"}},
	{"16-tcp-serviceentry-vs-http-services-port-80.yaml", []string{"HTTP_CHAIN_SHADOWS_TCP_ENTRY ServiceEntry team-a/docs-site"}},
	{"17-grpc-external-on-port-owned-by-http-service.yaml", nil},
	{"19-https-serviceentry-plus-dr-simple-double-tls.yaml", []string{"TLS_ORIGINATED_TWICE DestinationRule team-a/api-example-tls"}},
	{"20-serviceentry-resolution-none-behind-gateway.yaml", []string{"NO_ENDPOINTS ServiceEntry team-a/api-example"}},
	{"22-sidecar-egress-hosts-omit-serviceentry-namespace.yaml", []string{"NOT_IMPORTED_BY_SIDECAR_EGRESS_HOSTS Sidecar team-a/default"}},
	{"24-filter-gateway-cluster-config-delegate-vs.yaml", nil},
	{"26-filter-gateway-cluster-config-cds-not-pushed-1-7.yaml", nil},
	{"27-dns-round-robin-duplicate-host.yaml", []string{"DUPLICATE_HOST_VISIBLE ServiceEntry team-a/partner-svc-1"}},
	{"28-dns-round-robin-new-serviceentry-cluster-missing.yaml", nil},
	{"30-call-by-ip-host-not-in-gateway-vhosts.yaml", []string{"NO_VIRTUAL_HOST VirtualService team-a/legacy-via-egress"}},
	{"seed-S1-3.2-se-http-sidecar-hcm-rds.yaml", nil},
	{"seed-S2-3.3-se-tcp-no-addresses.yaml", []string{"TCP_CATCH_ALL_ON_PORT ServiceEntry default/httpbin-ext", "HTTP_CHAIN_SHADOWS_TCP_ENTRY ServiceEntry default/httpbin-ext"}},
	{"seed-S3-3.3-se-tcp-with-address-240.0.0.10.yaml", nil},
	{"seed-S4-3.4-gateway-flag-true-no-vs.yaml", nil},
	{"seed-S5-3.5-gateway-flag-true-gateway-and-vs-bound.yaml", nil},
	{"seed-S6-4.2-se-exportto-dot-team-a-gateway-in-istio-system.yaml", []string{"NOT_EXPORTED_TO_GATEWAY_NAMESPACE ServiceEntry team-a/httpbin-ext", "SE_NOT_EXPORTED_TO_GATEWAY_NAMESPACE ServiceEntry team-a/httpbin-ext"}},
}

func parsePreflight(t *testing.T, mode string, r result) checks.PreflightReport {
	t.Helper()
	var rep checks.PreflightReport
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("%s: stdout is not a JSON preflight report: %v\n%s", mode, err, r)
	}
	if rep.SchemaVersion != checks.PreflightSchemaVersion {
		t.Errorf("%s: schemaVersion %q", mode, rep.SchemaVersion)
	}
	return rep
}

// findingSet renders the findings as sorted "LEVEL ID CODE Resource field" rows.
func findingSet(fs []checks.PreflightFinding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, strings.Join([]string{f.Level, f.ID, f.Code, f.Resource.String(), f.Field}, " "))
	}
	sort.Strings(out)
	return out
}

func hasFinding(fs []checks.PreflightFinding, want string) *checks.PreflightFinding {
	for i, f := range fs {
		if f.Code+" "+f.Resource.String() == want {
			return &fs[i]
		}
		// a fault two checks see is one finding listing the other code (alsoReportedAs)
		for _, alias := range f.AlsoReportedAs {
			if _, code, _ := strings.Cut(alias, " "); code+" "+f.Resource.String() == want {
				return &fs[i]
			}
		}
	}
	return nil
}

func wantExit(rep checks.PreflightReport) int {
	for _, f := range rep.Findings {
		if f.Level == checks.LevelError {
			return 1
		}
	}
	return 0
}

// TestPreflightCases runs preflight on every case offline (-f CASE --offline) and live (the
// case applied, through kubectl plugin discovery): each fault is reported with the right code
// and resource, controls have no Error finding, the exit code follows the Error findings, and
// live and offline report the same findings.
func TestPreflightCases(t *testing.T) {
	pluginBinary(t)
	for _, c := range preflightCases {
		if !haveCase(t, c.file) {
			continue
		}
		t.Run(strings.TrimSuffix(c.file, ".yaml"), func(t *testing.T) {
			off := egressDirect(t, "preflight", "-f", casePath(c.file), "--offline", "-o", "json")
			offRep := parsePreflight(t, "offline", off)
			if offRep.Mode != checks.ModeOffline {
				t.Errorf("offline: mode %q", offRep.Mode)
			}
			for _, want := range c.want {
				f := hasFinding(offRep.Findings, want)
				if f == nil {
					t.Errorf("offline: finding %q missing; have\n  %s", want, strings.Join(findingSet(offRep.Findings), "\n  "))
					continue
				}
				if e, ok := checks.Lookup(f.Code); !ok || e.ID() != f.ID || f.Doc == "" || f.Source == "" {
					t.Errorf("offline: %s has ID %s, doc %q, source %q", f.Code, f.ID, f.Doc, f.Source)
				}
			}
			if c.want == nil {
				for _, f := range offRep.Findings {
					if f.Level == checks.LevelError {
						t.Errorf("control case: Error finding %s %s %s: %s", f.ID, f.Code, f.Resource, f.Message)
					}
				}
			}
			if off.code != wantExit(offRep) {
				t.Errorf("offline: exit %d, want %d\n%s", off.code, wantExit(offRep), off)
			}

			applyCase(t, c.file)
			live := egress(t, "preflight", "-o", "json", "--kubeconfig", env.kubeconfig)
			liveRep := parsePreflight(t, "live", live)
			if liveRep.Mode != checks.ModeLive || len(liveRep.Unknown) > 0 {
				t.Errorf("live: mode %q unknown %v", liveRep.Mode, liveRep.Unknown)
			}
			if live.code != off.code {
				t.Errorf("live: exit %d, offline %d\n%s", live.code, off.code, live)
			}
			if a, b := findingSet(liveRep.Findings), findingSet(offRep.Findings); !slices.Equal(a, b) {
				t.Errorf("live and offline findings differ:\n live:    %s\n offline: %s", strings.Join(a, "\n          "), strings.Join(b, "\n          "))
			}
		})
	}
}

// TestPreflightWarningsFailOnWarning: a case with only Warning findings exits 0 by default and
// 1 with --fail-on warning.
func TestPreflightWarningsFailOnWarning(t *testing.T) {
	pluginBinary(t)
	f := casePath(fxDuplicateRR)
	if r := egressDirect(t, "preflight", "-f", f, "--offline"); r.code != 0 {
		t.Errorf("default --fail-on error: exit %d\n%s", r.code, r)
	}
	if r := egressDirect(t, "preflight", "-f", f, "--offline", "--fail-on", "warning"); r.code != 1 {
		t.Errorf("--fail-on warning: exit %d\n%s", r.code, r)
	}
}

// TestPreflightFormats: every -o format gives the same exit code, live and offline, for a fault
// (exit 1) and a control (exit 0), and each output parses as its format.
func TestPreflightFormats(t *testing.T) {
	pluginBinary(t)
	for _, c := range []struct {
		file string
		code int
	}{
		{fxExportPrivate, 1},
		{fxFQDNControl, 0},
	} {
		applyCase(t, c.file)
		for _, format := range []string{"table", "json", "yaml", "sarif", "junit"} {
			for mode, r := range map[string]result{
				"offline": egressDirect(t, "preflight", "-f", casePath(c.file), "--offline", "-o", format),
				"live":    egress(t, "preflight", "-o", format, "--kubeconfig", env.kubeconfig),
			} {
				if r.code != c.code || r.stderr != "" {
					t.Errorf("%s %s -o %s: exit %d, want %d; stderr %q", c.file, mode, format, r.code, c.code, r.stderr)
				}
				checkFormat(t, c.file+" "+mode, format, r, c.code)
			}
		}
	}
}

func checkFormat(t *testing.T, name, format string, r result, code int) {
	t.Helper()
	switch format {
	case "table":
		want := "PASS:"
		if code == 1 {
			want = "FAIL:"
		}
		if !strings.Contains(r.stdout, want) {
			t.Errorf("%s table: no %q line\n%s", name, want, r.stdout)
		}
	case "json", "yaml":
		data := []byte(r.stdout)
		if format == "yaml" {
			var err error
			if data, err = yaml.ToJSON(data); err != nil {
				t.Errorf("%s yaml: %v", name, err)
				return
			}
		}
		var rep checks.PreflightReport
		if err := json.Unmarshal(data, &rep); err != nil || rep.SchemaVersion != checks.PreflightSchemaVersion || rep.Failed != (code == 1) {
			t.Errorf("%s %s: err %v schema %q failed %v", name, format, err, rep.SchemaVersion, rep.Failed)
		}
	case "sarif":
		var log struct {
			Version string `json:"version"`
			Runs    []struct {
				Invocations []struct {
					ExitCode int `json:"exitCode"`
				} `json:"invocations"`
				Results []struct {
					RuleID string `json:"ruleId"`
					Level  string `json:"level"`
				} `json:"results"`
			} `json:"runs"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &log); err != nil || log.Version != "2.1.0" || len(log.Runs) != 1 || log.Runs[0].Invocations[0].ExitCode != code {
			t.Errorf("%s sarif: err %v version %q runs %d", name, err, log.Version, len(log.Runs))
			return
		}
		errors := 0
		for _, res := range log.Runs[0].Results {
			if !strings.HasPrefix(res.RuleID, "EGR") {
				t.Errorf("%s sarif: ruleId %q", name, res.RuleID)
			}
			if res.Level == "error" {
				errors++
			}
		}
		if (errors > 0) != (code == 1) {
			t.Errorf("%s sarif: %d error results, exit %d", name, errors, code)
		}
	case "junit":
		var doc struct {
			Failures int `xml:"failures,attr"`
			Suites   []struct {
				Name string `xml:"name,attr"`
			} `xml:"testsuite"`
		}
		if err := xml.Unmarshal([]byte(r.stdout), &doc); err != nil || len(doc.Suites) != len(checks.PreflightChecks) || (doc.Failures > 0) != (code == 1) {
			t.Errorf("%s junit: err %v suites %d failures %d", name, err, len(doc.Suites), doc.Failures)
		}
	}
}

// whatIfRelease narrows the exportTo of fxFQDNControl's ServiceEntry to its own namespace: the
// gateway in egress-system loses the cluster.
const whatIfRelease = `apiVersion: networking.istio.io/v1
kind: ServiceEntry
metadata:
  name: weather-api
  namespace: reporting
spec:
  hosts: [weather.example.org]
  exportTo: ["."]
  location: MESH_EXTERNAL
  resolution: DNS
  ports:
  - {number: 8080, name: http-weather, protocol: HTTP}
`

// fixRelease exports fxExportPrivate's ServiceEntry to the gateway's namespace too.
const fixRelease = `apiVersion: networking.istio.io/v1
kind: ServiceEntry
metadata:
  name: fx-rates
  namespace: payments
spec:
  exportTo: [".", istio-egress]
  hosts: [rates.example.net]
  location: MESH_EXTERNAL
  ports:
  - {number: 8080, name: http-rates, protocol: HTTP}
  resolution: DNS
`

// harmlessRelease adds an unrelated, well-formed ServiceEntry.
const harmlessRelease = `apiVersion: networking.istio.io/v1
kind: ServiceEntry
metadata:
  name: docs-example
  namespace: payments
spec:
  hosts: [docs.example.org]
  location: MESH_EXTERNAL
  resolution: DNS
  ports:
  - {number: 80, name: http, protocol: HTTP}
`

// TestPreflightWhatIf: manifests over a live control case that introduce a fault are reported
// as introduced and fail; an existing live fault alone does not fail by default (it does with
// --fail-on-existing); the live cluster is not changed.
func TestPreflightWhatIf(t *testing.T) {
	pluginBinary(t)
	dir := t.TempDir()
	release := filepath.Join(dir, "release.yaml")
	harmless := filepath.Join(dir, "harmless.yaml")
	if err := os.WriteFile(release, []byte(whatIfRelease), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(harmless, []byte(harmlessRelease), 0o644); err != nil {
		t.Fatal(err)
	}

	applyCase(t, fxFQDNControl)
	r := egress(t, "preflight", "-f", release, "-o", "json", "--kubeconfig", env.kubeconfig)
	if r.code != 1 {
		t.Errorf("introduced fault: exit %d, want 1\n%s", r.code, r)
	}
	rep := parsePreflight(t, "what-if", r)
	if rep.Mode != checks.ModeWhatIf || !strings.HasPrefix(rep.Source, "cluster ") || !strings.Contains(rep.Source, "files "+release) {
		t.Errorf("mode %q source %q", rep.Mode, rep.Source)
	}
	f := hasFinding(rep.Findings, "NOT_EXPORTED_TO_GATEWAY_NAMESPACE ServiceEntry reporting/weather-api")
	if f == nil || f.Status != checks.FindingIntroduced || f.ID != "EGR0104" {
		t.Errorf("want EGR0104 introduced on ServiceEntry reporting/weather-api; have %v", findingSet(rep.Findings))
	} else if f.Location == nil || f.Location.File != release || f.Location.Line != 2 {
		t.Errorf("EGR0104 location %+v, want %s:2", f.Location, release)
	}
	// The control's own Info findings (LEGACY_GATEWAY_REF, STRICT_DNS) are existing; every Error is
	// introduced by the release.
	for _, f := range rep.Findings {
		if f.Level == checks.LevelError && f.Status != checks.FindingIntroduced {
			t.Errorf("%s %s: status %q, want introduced", f.ID, f.Resource, f.Status)
		}
	}
	// One introduced fault (export-audit's view of it is folded into the EGR0104 finding).
	if rep.Summary.Introduced != 1 || rep.Summary.Failing != rep.Summary.Errors {
		t.Errorf("summary %+v", rep.Summary)
	}
	// SARIF marks it new.
	r = egress(t, "preflight", "-f", release, "-o", "sarif", "--kubeconfig", env.kubeconfig)
	if r.code != 1 || !strings.Contains(r.stdout, `"baselineState": "new"`) {
		t.Errorf("sarif what-if: exit %d, no baselineState new\n%s", r.code, r)
	}
	// The live object is unchanged: preflight only reads.
	if got := kubectl(t, "get", "serviceentry", "weather-api", "-n", "reporting", "-o", "jsonpath={.spec.exportTo}", "--kubeconfig", env.kubeconfig); strings.TrimSpace(got.stdout) != "" {
		t.Errorf("live ServiceEntry exportTo changed to %q", got.stdout)
	}

	// The fault is live already; harmless manifests do not fail the run by default.
	applyCase(t, fxExportPrivate)
	r = egress(t, "preflight", "-f", harmless, "-o", "json", "--kubeconfig", env.kubeconfig)
	if r.code != 0 {
		t.Errorf("existing fault only: exit %d, want 0\n%s", r.code, r)
	}
	rep = parsePreflight(t, "what-if existing", r)
	f = hasFinding(rep.Findings, "NOT_EXPORTED_TO_GATEWAY_NAMESPACE "+fxExportPrivateSE)
	if f == nil || f.Status != checks.FindingExisting || rep.Summary.Failing != 0 || rep.Failed {
		t.Errorf("want EGR0104 existing and nothing failing; summary %+v findings %v", rep.Summary, findingSet(rep.Findings))
	}
	r = egress(t, "preflight", "-f", harmless, "--fail-on-existing", "--kubeconfig", env.kubeconfig)
	if r.code != 1 || !strings.Contains(r.stdout, "existing") {
		t.Errorf("--fail-on-existing: exit %d, want 1\n%s", r.code, r)
	}
	// Fixing it in the manifests resolves it.
	fix := filepath.Join(dir, "fix.yaml")
	if err := os.WriteFile(fix, []byte(fixRelease), 0o644); err != nil {
		t.Fatal(err)
	}
	r = egress(t, "preflight", "-f", fix, "-o", "json", "--kubeconfig", env.kubeconfig)
	rep = parsePreflight(t, "what-if fix", r)
	if r.code != 0 || hasFinding(rep.Findings, "NOT_EXPORTED_TO_GATEWAY_NAMESPACE "+fxExportPrivateSE) != nil ||
		hasFinding(rep.Resolved, "NOT_EXPORTED_TO_GATEWAY_NAMESPACE "+fxExportPrivateSE) == nil {
		t.Errorf("fix: exit %d, findings %v, resolved %v", r.code, findingSet(rep.Findings), findingSet(rep.Resolved))
	}
}

// TestPreflightSuppressionsLive: a suppress annotation on the live resource silences its
// finding (counted, listed as suppressed), -S silences another, and an unused -S is reported.
func TestPreflightSuppressionsLive(t *testing.T) {
	pluginBinary(t)
	applyCase(t, fxExportPrivate)
	if r := kubectl(t, "annotate", "serviceentry", "fx-rates", "-n", "payments", checks.SuppressAnnotation+"=EGR0104: moving to the gateway namespace next release", "--kubeconfig", env.kubeconfig); r.code != 0 {
		t.Fatalf("kubectl annotate: %s", r)
	}
	r := egress(t, "preflight", "-o", "json", "--kubeconfig", env.kubeconfig)
	rep := parsePreflight(t, "annotation", r)
	// export-audit's SE_NOT_EXPORTED_TO_GATEWAY_NAMESPACE (EGR0201) is the same fault, folded
	// into the EGR0104 finding: the annotation silences both, and preflight passes.
	if r.code != 0 || hasFinding(rep.Findings, "NOT_EXPORTED_TO_GATEWAY_NAMESPACE "+fxExportPrivateSE) != nil ||
		hasFinding(rep.Findings, "SE_NOT_EXPORTED_TO_GATEWAY_NAMESPACE "+fxExportPrivateSE) != nil {
		t.Errorf("annotation: exit %d, findings %v", r.code, findingSet(rep.Findings))
	}
	s := hasFinding(rep.Suppressed, "NOT_EXPORTED_TO_GATEWAY_NAMESPACE "+fxExportPrivateSE)
	if s == nil || s.SuppressedBy == nil || s.SuppressedBy.Origin != checks.SuppressedByAnnotation || !strings.Contains(s.SuppressedBy.Reason, "next release") ||
		!slices.Contains(s.AlsoReportedAs, "EGR0201 SE_NOT_EXPORTED_TO_GATEWAY_NAMESPACE") {
		t.Errorf("suppressed %v", rep.Suppressed)
	}
	// -S by the folded code is in use (it matches the merged finding), -S EGR0312 silences
	// fx-audit's Info, and the -S that matches nothing is reported.
	r = egress(t, "preflight", "-o", "json", "-S", "SE_NOT_EXPORTED_TO_GATEWAY_NAMESPACE=ServiceEntry payments/*", "-S", "EGR0312=ServiceEntry payments/fx-audit", "-S", "EGR0302=ServiceEntry nowhere/*", "--kubeconfig", env.kubeconfig)
	rep = parsePreflight(t, "-S", r)
	if r.code != 0 || rep.Summary.Suppressed != 2 || hasFinding(rep.Findings, "SUPPRESSION_UNUSED Suppression -S EGR0302=ServiceEntry nowhere/*") == nil ||
		hasFinding(rep.Findings, "SUPPRESSION_UNUSED Suppression -S SE_NOT_EXPORTED_TO_GATEWAY_NAMESPACE=ServiceEntry payments/*") != nil {
		t.Errorf("-S: exit %d summary %+v findings %v", r.code, rep.Summary, findingSet(rep.Findings))
	}
	r = egress(t, "preflight", "-o", "sarif", "-S", "EGR0312=ServiceEntry payments/fx-audit", "--kubeconfig", env.kubeconfig)
	if r.code != 0 || strings.Count(r.stdout, `"suppressions"`) != 2 || !strings.Contains(r.stdout, `"kind": "inSource"`) || !strings.Contains(r.stdout, `"kind": "external"`) {
		t.Errorf("sarif suppressions: exit %d\n%s", r.code, r.stdout)
	}
}

// TestPreflightBadInput: usage and input errors are one line on stderr with exit 2.
func TestPreflightBadInput(t *testing.T) {
	pluginBinary(t)
	f := casePath(fxFQDNControl)
	for _, args := range [][]string{
		{"preflight", "-f", f, "--offline", "-S", "EGR0104"},
		{"preflight", "-f", f, "--offline", "-S", "EGR0999=ServiceEntry a/b"},
		{"preflight", "-f", f, "--offline", "--suppressions", filepath.Join(t.TempDir(), "nope.yaml")},
		{"preflight", "-f", f, "--offline", "-o", "xml"},
		{"preflight", "--offline"},
	} {
		r := egressDirect(t, args...)
		if r.code != 2 {
			t.Errorf("%v: exit %d, want 2\n%s", args, r.code, r)
		}
		checkOneLineError(t, r)
	}
	r := egress(t, "preflight", "--kubeconfig", env.kubeconfig, "--server", "https://127.0.0.1:1", "--request-timeout", "2s")
	if r.code != 2 {
		t.Errorf("unreachable server: exit %d, want 2\n%s", r.code, r)
	}
	checkOneLineError(t, r)
}

// TestStrictManifests: what a CI gate could not read fails it. A misspelled kind, an apiVersion
// Istio does not serve, an unknown field, an empty file, an object defined twice and an endless
// input are each one line `file:line: what is wrong` with exit 2, offline and in what-if mode
// over the real API server; --lenient lets the first ones through as warnings.
func TestStrictManifests(t *testing.T) {
	pluginBinary(t)
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	se := "apiVersion: networking.istio.io/v1\nkind: ServiceEntry\nmetadata: {name: api, namespace: team-a}\nspec:\n  hosts: [api.example.com]\n  ports: [{number: 80, name: http, protocol: HTTP}]\n"
	cases := []struct {
		name, file, want string
		lenientOK        bool
	}{
		{"misspelled kind", write("kind.yaml", strings.Replace(se, "kind: ServiceEntry", "kind: ServiceEntri", 1)), `kind.yaml:1: ServiceEntri api: unknown kind "ServiceEntri" in the networking.istio.io API group (did you mean ServiceEntry?)`, true},
		{"unserved apiVersion", write("version.yaml", strings.Replace(se, "networking.istio.io/v1", "networking.istio.io/v2", 1)), "version.yaml:1: ServiceEntry api: apiVersion networking.istio.io/v2 does not serve ServiceEntry", true},
		{"unknown field", write("field.yaml", strings.Replace(se, "hosts:", "hostz:", 1)), `field.yaml:5: ServiceEntry api: spec: unknown field "hostz"`, true},
		{"empty file", write("empty.yaml", ""), "empty.yaml: no Kubernetes objects in the input", true},
		{"defined twice", write("twice.yaml", se+"---\n"+se), "twice.yaml:8: ServiceEntry team-a/api is defined twice (first at " + filepath.Join(dir, "twice.yaml") + ":1)", true},
		{"endless input", "/dev/zero", "/dev/zero: larger than 1 MiB (--max-input-size)", false},
		{"misspelled Gateway API kind", write("gwkind.yaml", "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoot\nmetadata: {name: r, namespace: team-a}\nspec: {}\n"), `gwkind.yaml:1: HTTPRoot r: unknown kind "HTTPRoot" in the gateway.networking.k8s.io API group (did you mean HTTPRoute?)`, true},
		{"misspelled mesh setting", write("meshtypo.yaml", se+"---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: istio, namespace: istio-system}\ndata:\n  mesh: |\n    defaultServiceExportToo: [\".\"]\n"), `meshtypo.yaml:8: ConfigMap istio-system/istio: key mesh: unknown field "defaultServiceExportToo" (istiod ignores it: the setting has no effect)`, true},
	}
	for _, c := range cases {
		for _, mode := range []string{"offline", "what-if"} {
			args := []string{"preflight", "-f", c.file, "--max-input-size", "1"}
			var r result
			if mode == "offline" {
				r = egressDirect(t, append(args, "--offline")...)
			} else {
				r = egress(t, append(args, "--kubeconfig", env.kubeconfig)...)
			}
			if r.code != 2 || !strings.Contains(r.stderr, c.want) || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 || strings.Contains(r.stderr, "goroutine") {
				t.Errorf("%s, %s: exit %d, want 2 and one line containing %q\n%s", c.name, mode, r.code, c.want, r)
			}
		}
		if c.lenientOK {
			r := egressDirect(t, "preflight", "-f", c.file, "--offline", "--lenient")
			if r.code == 2 || !strings.Contains(r.stderr, "warning: ") {
				t.Errorf("%s, --lenient: exit %d, want a warning and a verdict\n%s", c.name, r.code, r)
			}
		}
	}
	// why-missing reads the same way.
	r := egressDirect(t, "why-missing", "api.example.com", "-f", cases[0].file)
	if r.code != 2 || !strings.Contains(r.stderr, "did you mean ServiceEntry?") {
		t.Errorf("why-missing on a misspelled kind: exit %d\n%s", r.code, r)
	}
	// Every other file the user names is capped the same way: a saved config dump, a
	// suppressions file.
	mesh := write("mesh.yaml", se)
	for _, args := range [][]string{
		{"why-missing", "api.example.com", "-f", mesh, "--config-dump", "/dev/zero"},
		{"explain-listener", "--from", "team-a", "--port", "80", "-f", mesh, "--config-dump", "/dev/zero"},
		{"preflight", "--offline", "-f", mesh, "--suppressions", "/dev/zero"},
	} {
		r := egressDirect(t, append(args, "--max-input-size", "1")...)
		if r.code != 2 || !strings.Contains(r.stderr, "/dev/zero: larger than 1 MiB (--max-input-size)") || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 {
			t.Errorf("%v: exit %d, want 2 and one line saying /dev/zero is larger than the cap\n%s", args, r.code, r)
		}
	}
}
