package e2e

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/kubectl-egress/kubectl-egress/pkg/checks"
)

// auditCases: the exportTo faults of the repository's fixtures (and of the shared acceptance set,
// when present) with the culprit and where it is missing, and control cases that must produce
// no Error finding.
var auditCases = []struct {
	file string
	// want lists "CODE Kind ns/name missing=ns,..." of every Error finding; empty for controls.
	want []string
}{
	{fxExportPrivate, []string{"SE_NOT_EXPORTED_TO_GATEWAY_NAMESPACE " + fxExportPrivateSE + " missing=istio-egress"}},
	{"dr-subset-rule-off-the-lookup-path.yaml", []string{"DR_NOT_ON_LOOKUP_PATH DestinationRule orders/catalog-egress-subset missing=shipping"}},
	{"se-exported-by-name-not-to-gateway-namespace.yaml", []string{"SE_NOT_EXPORTED_TO_GATEWAY_NAMESPACE ServiceEntry checkout/tax-service missing=istio-system"}},
	{"dr-exportto-names-own-namespace-control.yaml", nil},
	{fxFQDNControl, nil},
	{"cluster-filter-keeps-delegate-destination-control.yaml", nil},
	{"cluster-filter-push-bug-valid-config-control.yaml", nil},
	{fxBound, nil},
	{"01-se-exportto-dot-hidden-from-egress-gateway.yaml", []string{"SE_NOT_EXPORTED_TO_GATEWAY_NAMESPACE ServiceEntry team-a/api-example missing=istio-system"}},
	{"02-dr-subset-in-other-client-namespace.yaml", []string{"DR_NOT_ON_LOOKUP_PATH DestinationRule team-a/egressgateway-for-api missing=team-b"}},
	{"seed-S6-4.2-se-exportto-dot-team-a-gateway-in-istio-system.yaml", []string{"SE_NOT_EXPORTED_TO_GATEWAY_NAMESPACE ServiceEntry team-a/httpbin-ext missing=istio-system"}},
	{"04-dr-exportto-names-own-namespace-1-20.yaml", nil},
	{"07-gateway-ref-legacy-fqdn-form-control.yaml", nil},
	{"24-filter-gateway-cluster-config-delegate-vs.yaml", nil},
	{"26-filter-gateway-cluster-config-cds-not-pushed-1-7.yaml", nil},
	{"seed-S5-3.5-gateway-flag-true-gateway-and-vs-bound.yaml", nil},
}

func auditErrors(t *testing.T, r result) []string {
	t.Helper()
	var rep checks.AuditReport
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("export-audit -o json: %v\n%s", err, r)
	}
	if rep.SchemaVersion != checks.AuditSchemaVersion {
		t.Errorf("schemaVersion %q", rep.SchemaVersion)
	}
	var out []string
	for _, f := range rep.Findings {
		if f.Level == checks.LevelError {
			out = append(out, f.Code+" "+f.Ref()+" missing="+strings.Join(f.MissingIn, ","))
		}
	}
	return out
}

// TestExportAudit runs export-audit live (through kubectl) and offline on the same case and
// checks both find exactly the expected Error findings, with exit code 1 when there are some.
func TestExportAudit(t *testing.T) {
	pluginBinary(t)
	for _, c := range auditCases {
		if !haveCase(t, c.file) {
			continue
		}
		t.Run(strings.TrimSuffix(c.file, ".yaml"), func(t *testing.T) {
			applyCase(t, c.file)
			wantCode := 0
			if len(c.want) > 0 {
				wantCode = 1
			}
			live := egress(t, "export-audit", "-A", "-o", "json", "--kubeconfig", env.kubeconfig)
			off := egressDirect(t, "export-audit", "-o", "json", "-f", casePath(c.file))
			for mode, r := range map[string]result{"live": live, "offline": off} {
				if r.code != wantCode {
					t.Errorf("%s: exit code %d, want %d\n%s", mode, r.code, wantCode, r)
				}
				if got := auditErrors(t, r); !slices.Equal(got, c.want) {
					t.Errorf("%s: Error findings\n  %v\nwant\n  %v", mode, got, c.want)
				}
			}
		})
	}
}
