package printers

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"

	"github.com/kubectl-egress/kubectl-egress/pkg/checks"
)

// JUnit XML elements (the common Ant/Jenkins/Surefire dialect).
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Skipped    int             `xml:"skipped,attr"`
	Properties *junitProps     `xml:"properties,omitempty"`
	Cases      []junitTestCase `xml:"testcase"`
}

type junitProps struct {
	Props []junitProp `xml:"property"`
}

type junitProp struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitTestCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Failure   *junitFailure `xml:"failure,omitempty"`
	Error     *junitFailure `xml:"error,omitempty"`
	Skipped   *junitSkipped `xml:"skipped,omitempty"`
	SystemOut *junitText    `xml:"system-out,omitempty"`
}

type junitText struct {
	Text string `xml:",cdata"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",cdata"`
}

type junitSkipped struct {
	Message string `xml:"message,attr"`
}

// JUnit writes the report as JUnit XML: <testsuites name="kubectl-egress preflight"> with one
// <testsuite> per check (why-missing, export-audit, explain-listener, visibility, preflight) and
// in it one <testcase name="Kind namespace/name" classname="kubectl-egress.CHECK"> per resource
// with findings of that check. A testcase has a <failure> (type = the EGR ids) listing the
// findings that fail the run (at or above --fail-on; in what-if mode only introduced ones unless
// --fail-on-existing), <system-out> with the others, and <skipped> when all its findings are
// suppressed. A check without findings gets one passing testcase "no findings". An incomplete
// preflight (kinds not readable) adds an <error> testcase "input" to the preflight suite.
func JUnit(w io.Writer, r *checks.PreflightReport, tool ToolInfo) error {
	onlyIntroduced := r.Mode == checks.ModeWhatIf && !r.FailOnExisting
	type group struct {
		res      string
		findings []checks.PreflightFinding
	}
	byCheck := map[string][]*group{}
	find := func(check, res string) *group {
		for _, g := range byCheck[check] {
			if g.res == res {
				return g
			}
		}
		g := &group{res: res}
		byCheck[check] = append(byCheck[check], g)
		return g
	}
	for _, f := range append(append([]checks.PreflightFinding(nil), r.Findings...), r.Suppressed...) {
		g := find(f.Check, f.Resource.String())
		g.findings = append(g.findings, f)
	}
	out := junitSuites{Name: tool.Name + " preflight"}
	for _, check := range checks.PreflightChecks {
		s := junitSuite{Name: check, Properties: &junitProps{Props: []junitProp{
			{Name: "source", Value: r.Source}, {Name: "mode", Value: r.Mode}, {Name: "failOn", Value: r.FailOn}, {Name: "version", Value: tool.Version}}}}
		for _, c := range r.Checks {
			if c.Name == check {
				s.Properties.Props = append(s.Properties.Props, junitProp{Name: "targets", Value: fmt.Sprint(c.Targets)})
				for _, n := range c.Notes {
					s.Properties.Props = append(s.Properties.Props, junitProp{Name: "note", Value: n})
				}
			}
		}
		for _, g := range byCheck[check] {
			tc := junitTestCase{Name: g.res, Classname: "kubectl-egress." + check}
			var failing, other []string
			var ids []string
			suppressed := 0
			for _, f := range g.findings {
				line := findingLine(f)
				switch {
				case f.SuppressedBy != nil:
					suppressed++
					other = append(other, "suppressed by "+f.SuppressedBy.Where+": "+line)
				case checks.Fails(f, r.FailOn, onlyIntroduced):
					failing = append(failing, line)
					if !containsStr(ids, f.ID) {
						ids = append(ids, f.ID)
					}
				default:
					other = append(other, line)
				}
			}
			switch {
			case len(failing) > 0:
				msg := fmt.Sprintf("%d finding(s) at or above %s", len(failing), r.FailOn)
				tc.Failure = &junitFailure{Message: msg, Type: strings.Join(ids, ","), Text: strings.Join(failing, "\n\n")}
				s.Failures++
			case suppressed == len(g.findings):
				tc.Skipped = &junitSkipped{Message: fmt.Sprintf("%d finding(s) suppressed", suppressed)}
				s.Skipped++
			}
			if len(other) > 0 {
				tc.SystemOut = &junitText{Text: strings.Join(other, "\n\n")}
			}
			s.Cases = append(s.Cases, tc)
		}
		if check == checks.CheckPreflight && len(r.Unknown) > 0 {
			var why []string
			for _, k := range sortedMapKeys(r.Unknown) {
				why = append(why, checks.PluralKind(k)+": "+r.Unknown[k])
			}
			s.Cases = append(s.Cases, junitTestCase{Name: "input", Classname: "kubectl-egress.preflight",
				Error: &junitFailure{Message: "the preflight is incomplete: some kinds could not be read", Type: "INPUT_UNKNOWN", Text: strings.Join(why, "\n")}})
			s.Errors++
		}
		if len(s.Cases) == 0 {
			s.Cases = append(s.Cases, junitTestCase{Name: "no findings", Classname: "kubectl-egress." + check})
		}
		s.Tests = len(s.Cases)
		out.Tests += s.Tests
		out.Failures += s.Failures
		out.Errors += s.Errors
		out.Skipped += s.Skipped
		out.Suites = append(out.Suites, s)
	}
	return writeJUnit(w, out)
}

// JUnitError writes the JUnit XML of a preflight that could not check anything (the cluster or
// the input could not be read): one suite "preflight" whose one testcase "input" is an <error>
// with the message, so that a CI step that collects the file shows why the gate failed instead
// of an empty file (blind audit 108, as SARIFError does for code scanning).
func JUnitError(w io.Writer, msg string) error {
	s := junitSuite{Name: checks.CheckPreflight, Tests: 1, Errors: 1, Cases: []junitTestCase{{Name: "input", Classname: "kubectl-egress.preflight",
		Error: &junitFailure{Message: "the preflight could not run: its input could not be read", Type: "INPUT_ERROR", Text: msg}}}}
	out := junitSuites{Name: "kubectl-egress preflight", Tests: 1, Errors: 1, Suites: []junitSuite{s}}
	return writeJUnit(w, out)
}

// writeJUnit writes the document with its XML header, indented.
func writeJUnit(w io.Writer, out junitSuites) error {
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(out); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// findingLine renders a finding for a JUnit failure or system-out: level, ids, field, status,
// message, contexts and fix.
func findingLine(f checks.PreflightFinding) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s [%s %s] %s", f.Level, f.ID, f.Code, f.Resource)
	if f.Field != "" {
		fmt.Fprintf(&b, " (%s)", f.Field)
	}
	if f.Status != "" {
		fmt.Fprintf(&b, " [%s]", f.Status)
	}
	fmt.Fprintf(&b, "\n%s", f.Message)
	for _, c := range f.Contexts {
		fmt.Fprintf(&b, "\nseen: %s", c)
	}
	if f.Fix != "" {
		fmt.Fprintf(&b, "\nfix:\n%s", f.Fix)
	}
	return b.String()
}

func containsStr(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}
