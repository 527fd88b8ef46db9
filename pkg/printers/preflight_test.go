package printers

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-egress/kubectl-egress/pkg/checks"
	"github.com/kubectl-egress/kubectl-egress/pkg/loader"
	"github.com/kubectl-egress/kubectl-egress/pkg/snapshot"
)

// fixtures are the preflight test meshes of pkg/checks.
var fixtures = filepath.Join("..", "checks", "testdata", "preflight")

func loadFixture(t *testing.T, files ...string) *snapshot.Snapshot {
	t.Helper()
	var paths []string
	for _, f := range files {
		paths = append(paths, filepath.Join(fixtures, f))
	}
	s, err := loader.FromFiles(paths, nil, loader.Options{Lenient: true})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// reports returns real preflight reports that together use every optional field: offline with
// a -S suppression, an unused suppression and locations; what-if (release.yaml over
// control.yaml) with introduced, existing and resolved findings and an annotation suppression.
func reports(t *testing.T) map[string]*checks.PreflightReport {
	t.Helper()
	sup1, err := checks.ParseSuppressFlag("EGR0201=ServiceEntry team-a/*")
	if err != nil {
		t.Fatal(err)
	}
	sup2, err := checks.ParseSuppressFlag("EGR0404=*")
	if err != nil {
		t.Fatal(err)
	}
	off := checks.Preflight(loadFixture(t, "control.yaml", "release.yaml"))
	for i := range off.Findings {
		if off.Findings[i].Resource.Name == "search-api" {
			off.Findings[i].Location = &checks.SourceLocation{File: "testdata/release.yaml", Line: 22}
		}
	}
	offline := checks.NewPreflightReport(off, nil, checks.PreflightOptions{Mode: checks.ModeOffline, FailOn: checks.LevelError, Suppressions: []checks.Suppression{sup1, sup2}})

	base := loadFixture(t, "control.yaml")
	cur := snapshot.Overlay(base, loadFixture(t, "release.yaml"))
	whatIf := checks.NewPreflightReport(checks.Preflight(cur), checks.Preflight(base), checks.PreflightOptions{Mode: checks.ModeWhatIf, FailOn: checks.LevelWarning})
	// A baseline that already has every finding, plus one the manifests remove.
	resolvedBase := checks.Preflight(cur)
	resolvedBase.Findings = append(resolvedBase.Findings, checks.NewPreflightFinding(checks.AuditDuplicateHost, checks.CheckExportAudit,
		checks.ResourceRef{Kind: "ServiceEntry", Namespace: "team-a", Name: "gone"}, "", "gone", ""))
	existing := checks.NewPreflightReport(checks.Preflight(cur), resolvedBase, checks.PreflightOptions{Mode: checks.ModeWhatIf, FailOn: checks.LevelError})
	incomplete := checks.NewPreflightReport(&checks.PreflightResult{Source: "cluster x", Unknown: map[string]string{"Sidecar": "forbidden to list sidecars.networking.istio.io"}},
		nil, checks.PreflightOptions{Mode: checks.ModeLive, FailOn: checks.FailOnNone})
	return map[string]*checks.PreflightReport{"offline": offline, "what-if": whatIf, "existing": existing, "incomplete": incomplete}
}

func compile(t *testing.T, path, url string) *jsonschema.Schema {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource(url, doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(url)
	if err != nil {
		t.Fatalf("compile %s: %v", path, err)
	}
	return s
}

func validate(t *testing.T, s *jsonschema.Schema, name string, data []byte) {
	t.Helper()
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("%s: not JSON: %v", name, err)
	}
	if err := s.Validate(inst); err != nil {
		t.Errorf("%s does not validate: %v", name, err)
	}
}

// TestPreflightJSONValidatesAgainstSchema: -o json and -o yaml of real reports validate against
// docs/preflight.schema.json, and the schema rejects a document with a wrong field.
func TestPreflightJSONValidatesAgainstSchema(t *testing.T) {
	s := compile(t, filepath.Join("..", "..", "docs", "preflight.schema.json"), "https://github.com/kubectl-egress/kubectl-egress/docs/preflight.schema.json")
	seen := map[string]bool{}
	for name, rep := range reports(t) {
		var js, ys bytes.Buffer
		if err := Preflight(&js, rep, FormatJSON, DefaultTool); err != nil {
			t.Fatal(err)
		}
		validate(t, s, name+" json", js.Bytes())
		if err := Preflight(&ys, rep, FormatYAML, DefaultTool); err != nil {
			t.Fatal(err)
		}
		j, err := yaml.YAMLToJSON(ys.Bytes())
		if err != nil {
			t.Fatalf("%s yaml: %v", name, err)
		}
		validate(t, s, name+" yaml", j)
		for _, k := range []string{`"suppressedBy"`, `"status"`, `"location"`, `"resolved"`, `"unknown"`, `"contexts"`, `"field"`, `"envoyFlag"`} {
			if strings.Contains(js.String(), k) {
				seen[k] = true
			}
		}
	}
	for _, k := range []string{`"suppressedBy"`, `"status"`, `"location"`, `"resolved"`, `"unknown"`, `"contexts"`, `"field"`, `"envoyFlag"`} {
		if !seen[k] {
			t.Errorf("no report exercised %s: the schema test does not cover it", k)
		}
	}
	bad := []byte(`{"schemaVersion":"kubectl-egress.io/preflight/v1","source":"x","mode":"sideways","failOn":"Error","failOnExisting":false,"checks":[],"summary":{"errors":0,"warnings":0,"infos":0,"suppressed":0,"introduced":0,"existing":0,"resolved":0,"failing":0},"findings":[],"suppressed":[],"failed":false}`)
	inst, _ := jsonschema.UnmarshalJSON(bytes.NewReader(bad))
	if s.Validate(inst) == nil {
		t.Errorf("the schema accepted mode \"sideways\"")
	}
}

// TestSARIFValidatesAgainstSchema: -o sarif of real reports validates against the OASIS SARIF
// 2.1.0 schema, with one rule per catalogue code (EGR ids), levels mapped, resources in
// logicalLocations, suppressions and baseline states.
func TestSARIFValidatesAgainstSchema(t *testing.T) {
	s := compile(t, filepath.Join("testdata", "sarif-schema-2.1.0.json"), SARIFSchemaURI)
	// The schema is really enforced: a result without a message is not SARIF.
	noMessage, _ := jsonschema.UnmarshalJSON(strings.NewReader(`{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"x"}},"results":[{"ruleId":"EGR0104"}]}]}`))
	if s.Validate(noMessage) == nil {
		t.Fatalf("the SARIF schema accepted a result without a message")
	}
	for name, rep := range reports(t) {
		var b bytes.Buffer
		if err := Preflight(&b, rep, FormatSARIF, ToolInfo{Name: "kubectl-egress", Version: "v0.1.0", InformationURI: DefaultTool.InformationURI}); err != nil {
			t.Fatal(err)
		}
		validate(t, s, name+" sarif", b.Bytes())
		var log struct {
			Version string `json:"version"`
			Runs    []struct {
				Tool struct {
					Driver struct {
						Name  string `json:"name"`
						Rules []struct {
							ID                   string `json:"id"`
							Name                 string `json:"name"`
							DefaultConfiguration struct {
								Level string `json:"level"`
							} `json:"defaultConfiguration"`
						} `json:"rules"`
					} `json:"driver"`
				} `json:"tool"`
				Invocations []struct {
					ExitCode int `json:"exitCode"`
				} `json:"invocations"`
				Results []struct {
					RuleID        string `json:"ruleId"`
					RuleIndex     int    `json:"ruleIndex"`
					Level         string `json:"level"`
					BaselineState string `json:"baselineState"`
					Locations     []struct {
						PhysicalLocation *struct {
							ArtifactLocation struct {
								URI string `json:"uri"`
							} `json:"artifactLocation"`
						} `json:"physicalLocation"`
						LogicalLocations []struct {
							FullyQualifiedName string `json:"fullyQualifiedName"`
						} `json:"logicalLocations"`
					} `json:"locations"`
					Suppressions []struct {
						Kind string `json:"kind"`
					} `json:"suppressions"`
				} `json:"results"`
			} `json:"runs"`
		}
		if err := json.Unmarshal(b.Bytes(), &log); err != nil {
			t.Fatal(err)
		}
		run := log.Runs[0]
		if len(run.Tool.Driver.Rules) != len(checks.Catalog) {
			t.Errorf("%s: %d rules, want one per catalogue code (%d)", name, len(run.Tool.Driver.Rules), len(checks.Catalog))
		}
		for _, r := range run.Tool.Driver.Rules {
			e, ok := checks.LookupID(r.ID)
			if !ok || e.ID() != r.ID || e.Code != r.Name || r.DefaultConfiguration.Level != SARIFLevel(e.Level) {
				t.Errorf("%s: rule %+v does not match the catalogue", name, r)
			}
		}
		wantExit := 0
		if rep.Failed {
			wantExit = 1
		}
		if len(rep.Unknown) > 0 {
			wantExit = 2
		}
		if run.Invocations[0].ExitCode != wantExit {
			t.Errorf("%s: invocation exitCode %d, want %d", name, run.Invocations[0].ExitCode, wantExit)
		}
		if len(run.Results) != len(rep.Findings)+len(rep.Suppressed) {
			t.Errorf("%s: %d results for %d findings + %d suppressed", name, len(run.Results), len(rep.Findings), len(rep.Suppressed))
		}
		suppressed := 0
		for i, res := range run.Results {
			if run.Tool.Driver.Rules[res.RuleIndex].ID != res.RuleID {
				t.Errorf("%s: result %d ruleIndex %d is rule %s, not %s", name, i, res.RuleIndex, run.Tool.Driver.Rules[res.RuleIndex].ID, res.RuleID)
			}
			var f checks.PreflightFinding
			if i < len(rep.Findings) {
				f = rep.Findings[i]
			} else {
				f = rep.Suppressed[i-len(rep.Findings)]
			}
			if res.Level != SARIFLevel(f.Level) || res.Locations[0].LogicalLocations[0].FullyQualifiedName != f.Resource.String() {
				t.Errorf("%s: result %+v for finding %s %s", name, res, f.ID, f.Resource)
			}
			if (f.Location != nil) != (res.Locations[0].PhysicalLocation != nil) {
				t.Errorf("%s: %s physicalLocation %v, finding location %v", name, f.ID, res.Locations[0].PhysicalLocation, f.Location)
			}
			want := map[string]string{checks.FindingIntroduced: "new", checks.FindingExisting: "unchanged"}[f.Status]
			if res.BaselineState != want {
				t.Errorf("%s: %s baselineState %q, want %q", name, f.ID, res.BaselineState, want)
			}
			if len(res.Suppressions) > 0 {
				suppressed++
				wantKind := "external"
				if f.SuppressedBy.Origin == checks.SuppressedByAnnotation {
					wantKind = "inSource"
				}
				if res.Suppressions[0].Kind != wantKind {
					t.Errorf("%s: suppression kind %s, want %s", name, res.Suppressions[0].Kind, wantKind)
				}
			}
		}
		if suppressed != len(rep.Suppressed) {
			t.Errorf("%s: %d results with suppressions, want %d", name, suppressed, len(rep.Suppressed))
		}
	}
}

type junitDoc struct {
	XMLName  xml.Name `xml:"testsuites"`
	Tests    int      `xml:"tests,attr"`
	Failures int      `xml:"failures,attr"`
	Errors   int      `xml:"errors,attr"`
	Skipped  int      `xml:"skipped,attr"`
	Suites   []struct {
		Name     string `xml:"name,attr"`
		Tests    int    `xml:"tests,attr"`
		Failures int    `xml:"failures,attr"`
		Errors   int    `xml:"errors,attr"`
		Skipped  int    `xml:"skipped,attr"`
		Cases    []struct {
			Name      string `xml:"name,attr"`
			Classname string `xml:"classname,attr"`
			Failure   *struct {
				Message string `xml:"message,attr"`
				Type    string `xml:"type,attr"`
				Text    string `xml:",chardata"`
			} `xml:"failure"`
			Error   *struct{} `xml:"error"`
			Skipped *struct {
				Message string `xml:"message,attr"`
			} `xml:"skipped"`
			SystemOut string `xml:"system-out"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

// TestJUnit: one testsuite per check, counts that add up, a failure per resource with failing
// findings (typed with the EGR ids), skipped when every finding of the resource is suppressed.
func TestJUnit(t *testing.T) {
	for name, rep := range reports(t) {
		var b bytes.Buffer
		if err := Preflight(&b, rep, FormatJUnit, DefaultTool); err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(b.String(), "<?xml") {
			t.Errorf("%s: no XML declaration", name)
		}
		var doc junitDoc
		if err := xml.Unmarshal(b.Bytes(), &doc); err != nil {
			t.Fatalf("%s: %v\n%s", name, err, b.String())
		}
		var suites []string
		tests, failures, errs, skipped := 0, 0, 0, 0
		for _, s := range doc.Suites {
			suites = append(suites, s.Name)
			f, sk, e := 0, 0, 0
			for _, c := range s.Cases {
				if c.Classname != "kubectl-egress."+s.Name || c.Name == "" {
					t.Errorf("%s: testcase %q classname %q in suite %s", name, c.Name, c.Classname, s.Name)
				}
				if c.Failure != nil {
					f++
					for _, id := range strings.Split(c.Failure.Type, ",") {
						if _, ok := checks.LookupID(id); !ok {
							t.Errorf("%s: failure type %q is not an EGR id", name, c.Failure.Type)
						}
						if !strings.Contains(c.Failure.Text, id) {
							t.Errorf("%s: failure text does not name %s", name, id)
						}
					}
				}
				if c.Skipped != nil {
					sk++
				}
				if c.Error != nil {
					e++
				}
			}
			if s.Tests != len(s.Cases) || s.Failures != f || s.Skipped != sk || s.Errors != e {
				t.Errorf("%s: suite %s counts tests=%d failures=%d skipped=%d errors=%d, cases say %d/%d/%d/%d", name, s.Name, s.Tests, s.Failures, s.Skipped, s.Errors, len(s.Cases), f, sk, e)
			}
			tests, failures, errs, skipped = tests+s.Tests, failures+s.Failures, errs+s.Errors, skipped+s.Skipped
		}
		if strings.Join(suites, ",") != strings.Join(checks.PreflightChecks, ",") {
			t.Errorf("%s: suites %v", name, suites)
		}
		if doc.Tests != tests || doc.Failures != failures || doc.Errors != errs || doc.Skipped != skipped {
			t.Errorf("%s: testsuites totals %+v", name, doc)
		}
		if (failures > 0) != rep.Failed {
			t.Errorf("%s: %d failures but report failed=%v", name, failures, rep.Failed)
		}
		if (errs > 0) != (len(rep.Unknown) > 0) {
			t.Errorf("%s: %d errors, unknown %v", name, errs, rep.Unknown)
		}
	}
}

// TestPreflightTable: the table names every finding, marks what-if statuses and ends with the
// summary line.
func TestPreflightTable(t *testing.T) {
	reps := reports(t)
	var b bytes.Buffer
	if err := Preflight(&b, reps["what-if"], FormatTable, DefaultTool); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"LEVEL", "STATUS", "EGR0104", "NOT_EXPORTED_TO_GATEWAY_NAMESPACE", "ServiceEntry team-a/api-example", "introduced", "Fix:", "FAIL:"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	b.Reset()
	if err := Preflight(&b, reps["offline"], FormatTable, DefaultTool); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "STATUS") || !strings.Contains(b.String(), "Suppressed (") || !strings.Contains(b.String(), "file: testdata/release.yaml:22") {
		t.Errorf("offline table:\n%s", b.String())
	}
	if err := Preflight(&b, reps["offline"], "xml", DefaultTool); err == nil {
		t.Errorf("-o xml accepted")
	}
}

// More than GroupThreshold alike findings share one table row and one described example;
// --details (details=true) and the structured formats list every one.
func TestPreflightTableGroupsAlikeFindings(t *testing.T) {
	var fs []checks.PreflightFinding
	for i := 0; i < 7; i++ {
		fs = append(fs, checks.NewPreflightFinding(checks.AuditSENotExportedToClient, checks.CheckExportAudit,
			checks.ResourceRef{Kind: "ServiceEntry", Namespace: "team-a", Name: string(rune('a' + i))}, "", "hidden", "fix"))
	}
	fs = append(fs, checks.NewPreflightFinding(checks.AuditSENotExportedToGateway, checks.CheckExportAudit,
		checks.ResourceRef{Kind: "ServiceEntry", Namespace: "team-b", Name: "x"}, "", "hidden from the gateway", "fix"))
	r := &checks.PreflightReport{SchemaVersion: checks.PreflightSchemaVersion, Source: "test", Mode: checks.ModeOffline, FailOn: "Error", Findings: fs}
	var grouped, all bytes.Buffer
	if err := PreflightWith(&grouped, r, FormatTable, DefaultTool, false); err != nil {
		t.Fatal(err)
	}
	if err := PreflightWith(&all, r, FormatTable, DefaultTool, true); err != nil {
		t.Fatal(err)
	}
	g := grouped.String()
	for _, want := range []string{"7 ServiceEntries, e.g. ServiceEntry team-a/a", "and 6 more SE_NOT_EXPORTED_TO_CLIENT_NAMESPACE finding(s)", "ServiceEntry team-b/x", "--details lists each one"} {
		if !strings.Contains(g, want) {
			t.Errorf("grouped table lacks %q:\n%s", want, g)
		}
	}
	if strings.Contains(g, "ServiceEntry team-a/g") {
		t.Errorf("grouped table names every member of the group:\n%s", g)
	}
	a := all.String()
	for _, name := range []string{"a", "b", "c", "d", "e", "f", "g"} {
		if !strings.Contains(a, "ServiceEntry team-a/"+name) {
			t.Errorf("--details table lacks ServiceEntry team-a/%s", name)
		}
	}
	if strings.Contains(a, "e.g.") {
		t.Errorf("--details table still groups:\n%s", a)
	}
	if got := checks.PluralKind("Gateway") + " " + checks.PluralKind("ServiceEntry") + " " + checks.PluralKind("Host") + " " + checks.PluralKind("WorkloadEntry"); got != "Gateways ServiceEntries Hosts WorkloadEntries" {
		t.Errorf("plurals: %s", got)
	}
}

// TestPreflightTableGroupsOneResource: alike findings about one resource seen from several
// namespaces count as one resource, not as many (blind audit 75 c20: "14 ServiceEntries" for one).
func TestPreflightTableGroupsOneResource(t *testing.T) {
	var fs []checks.PreflightFinding
	for i := 0; i < 6; i++ {
		f := checks.NewPreflightFinding(checks.AuditSENotExportedToClient, checks.CheckExportAudit,
			checks.ResourceRef{Kind: "ServiceEntry", Namespace: "ext", Name: "graph"}, "", fmt.Sprintf("hidden from ns-%d", i), "fix")
		fs = append(fs, f)
	}
	r := &checks.PreflightReport{SchemaVersion: checks.PreflightSchemaVersion, Source: "test", Mode: checks.ModeOffline, FailOn: "Error", Findings: fs}
	var b bytes.Buffer
	if err := PreflightWith(&b, r, FormatTable, DefaultTool, false); err != nil {
		t.Fatal(err)
	}
	g := b.String()
	for _, want := range []string{"ServiceEntry ext/graph (6 findings)", "and 5 more SE_NOT_EXPORTED_TO_CLIENT_NAMESPACE finding(s) like it on the same ServiceEntry"} {
		if !strings.Contains(g, want) {
			t.Errorf("table lacks %q:\n%s", want, g)
		}
	}
	if strings.Contains(g, "6 ServiceEntries") || strings.Contains(g, "other ServiceEntries") {
		t.Errorf("one resource counted as several:\n%s", g)
	}
}

// TestSARIFErrorValidates: the log of a run that could not read its input is valid SARIF 2.1.0:
// one run, no results, an invocation that failed with the exit code and the error.
func TestSARIFErrorValidates(t *testing.T) {
	s := compile(t, filepath.Join("testdata", "sarif-schema-2.1.0.json"), SARIFSchemaURI)
	var b bytes.Buffer
	if err := SARIFError(&b, DefaultTool, 2, "cannot reach the API server at https://127.0.0.1:1: connection refused"); err != nil {
		t.Fatal(err)
	}
	validate(t, s, "error sarif", b.Bytes())
	var log struct {
		Runs []struct {
			Results     []any `json:"results"`
			Invocations []struct {
				ExecutionSuccessful bool `json:"executionSuccessful"`
				ExitCode            int  `json:"exitCode"`
				Notifications       []struct {
					Level   string `json:"level"`
					Message struct {
						Text string `json:"text"`
					} `json:"message"`
				} `json:"toolExecutionNotifications"`
			} `json:"invocations"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(b.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	if len(log.Runs) != 1 || len(log.Runs[0].Results) != 0 || len(log.Runs[0].Invocations) != 1 {
		t.Fatalf("want one run, no results, one invocation:\n%s", b.String())
	}
	inv := log.Runs[0].Invocations[0]
	if inv.ExecutionSuccessful || inv.ExitCode != 2 || len(inv.Notifications) != 1 || inv.Notifications[0].Level != "error" ||
		!strings.Contains(inv.Notifications[0].Message.Text, "cannot reach") {
		t.Errorf("invocation: %+v", inv)
	}
}

// A preflight that could not read its input writes a JUnit document whose one testcase is an
// error carrying the message, not an empty file (blind audit 108).
func TestJUnitErrorDocument(t *testing.T) {
	var b bytes.Buffer
	if err := JUnitError(&b, "ci/empty: no Kubernetes objects in the input"); err != nil {
		t.Fatal(err)
	}
	var doc junitSuites
	if err := xml.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Errors != 1 || len(doc.Suites) != 1 || len(doc.Suites[0].Cases) != 1 {
		t.Fatalf("%+v", doc)
	}
	c := doc.Suites[0].Cases[0]
	if c.Error == nil || c.Error.Text != "ci/empty: no Kubernetes objects in the input" || c.Failure != nil {
		t.Errorf("%+v", c)
	}
}
