package printers

import (
	"bytes"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/kubectl-egress/kubectl-egress/pkg/checks"
)

// Output formats only `preflight` accepts.
const (
	FormatSARIF = "sarif"
	FormatJUnit = "junit"
)

// PreflightFormats lists the -o values of `kubectl egress preflight`.
var PreflightFormats = []string{FormatTable, FormatJSON, FormatYAML, FormatSARIF, FormatJUnit}

// ToolInfo names the tool in SARIF and JUnit output.
type ToolInfo struct {
	// Name is "kubectl-egress"; Version the plugin version ("dev" for unreleased builds);
	// InformationURI the project page.
	Name           string
	Version        string
	InformationURI string
}

// DefaultTool is kubectl-egress with an unknown version.
var DefaultTool = ToolInfo{Name: "kubectl-egress", Version: "dev", InformationURI: checks.ProjectURL}

// Preflight renders a preflight report in format: table (findings worst first, then each
// finding's message, contexts, the page that explains it and fix, the suppressed findings and a summary
// line), json or yaml (checks.PreflightReport, schema checks.PreflightSchemaVersion, JSON
// Schema docs/preflight.schema.json), sarif (SARIF 2.1.0, see SARIF) or junit (JUnit XML, see
// JUnit). Errors: an unknown format, or the writer's error.
//
// The table groups findings: more than GroupThreshold findings with the same level, id, check,
// resource kind, field and status share one row ("N resources, e.g. ...") and one described
// example; PreflightDetails lists every one. The other formats always list every finding.
func Preflight(w io.Writer, r *checks.PreflightReport, format string, tool ToolInfo) error {
	return PreflightWith(w, r, format, tool, false)
}

// GroupThreshold is the number of alike findings the preflight table still lists one by one.
const GroupThreshold = 5

// PreflightWith is Preflight; details lists every finding in the table instead of grouping
// alike ones (--details).
func PreflightWith(w io.Writer, r *checks.PreflightReport, format string, tool ToolInfo, details bool) error {
	switch format {
	case FormatSARIF:
		return SARIF(w, r, tool)
	case FormatJUnit:
		return JUnit(w, r, tool)
	case FormatJSON, FormatYAML:
		_, err := structured(w, r, format)
		return err
	case FormatTable, "":
		var b bytes.Buffer
		if style.Brief {
			b.WriteString(preflightShort(r))
		} else if err := preflightTable(&b, r, details); err != nil {
			return err
		}
		return emit(w, b.Bytes())
	}
	return fmt.Errorf("unknown output format %q (want one of %s)", format, strings.Join(PreflightFormats, ", "))
}

// findingGroup is one row of the grouped table: alike findings (same level, id, check, resource
// kind, field and status), in report order.
type findingGroup struct {
	findings []checks.PreflightFinding
}

func groupFindings(fs []checks.PreflightFinding, details bool) []findingGroup {
	type key struct{ level, id, check, kind, field, status string }
	var out []findingGroup
	for _, g := range groupAlike(fs, details, func(f checks.PreflightFinding) key {
		return key{f.Level, f.ID, f.Check, f.Resource.Kind, f.Field, f.Status}
	}) {
		out = append(out, findingGroup{g})
	}
	return out
}

// groupAlike groups the items with the same key, in order of first appearance; groups of at
// most GroupThreshold are listed one by one, where their first item stood. details: every item
// alone.
func groupAlike[T any, K comparable](items []T, details bool, key func(T) K) [][]T {
	var out [][]T
	if details {
		for _, it := range items {
			out = append(out, []T{it})
		}
		return out
	}
	pos := map[K]int{}
	for _, it := range items {
		k := key(it)
		i, ok := pos[k]
		if !ok {
			i = len(out)
			pos[k] = i
			out = append(out, nil)
		}
		out[i] = append(out[i], it)
	}
	var flat [][]T
	for _, g := range out {
		if len(g) > GroupThreshold {
			flat = append(flat, g)
			continue
		}
		for _, it := range g {
			flat = append(flat, []T{it})
		}
	}
	return flat
}

// distinctResources is how many resources the findings are about.
func distinctResources(fs []checks.PreflightFinding) int {
	seen := map[string]bool{}
	for _, f := range fs {
		seen[f.Resource.String()] = true
	}
	return len(seen)
}

func preflightTable(w io.Writer, r *checks.PreflightReport, details bool) error {
	whatIf := r.Mode == checks.ModeWhatIf
	fmt.Fprintf(w, "%s\n", preflightShort(r))
	fmt.Fprintf(w, "Preflight of %s (%s), failing on %s", r.Source, r.Mode, r.FailOn)
	if whatIf {
		if r.FailOnExisting {
			fmt.Fprint(w, ", introduced and existing findings")
		} else {
			fmt.Fprint(w, ", introduced findings only")
		}
	}
	fmt.Fprintln(w, ".")
	for _, k := range sortedMapKeys(r.Unknown) {
		fmt.Fprintf(w, "Could not read %s: %s (the preflight is incomplete).\n", checks.PluralKind(k), r.Unknown[k])
	}
	notes := append([]string(nil), r.Notes...)
	for _, c := range r.Checks {
		for _, n := range c.Notes {
			notes = append(notes, c.Name+": "+n)
		}
	}
	for _, n := range notes {
		fmt.Fprintf(w, "Note: %s.\n", n)
	}
	fmt.Fprintln(w)
	if len(r.Findings) == 0 {
		fmt.Fprintln(w, "No findings.")
	} else {
		headers := []string{"LEVEL", "ID", "CODE", "CHECK", "RESOURCE", "FIELD"}
		if whatIf {
			headers = append(headers, "STATUS")
		}
		groups := groupFindings(r.Findings, details)
		var rows [][]string
		grouped := false
		for _, g := range groups {
			f := g.findings[0]
			res := f.Resource.String()
			if n := len(g.findings); n > 1 {
				// count resources, not findings: one resource seen from many namespaces is one
				// resource (blind audit 75 c20, "14 ServiceEntries" for one)
				if m := distinctResources(g.findings); m > 1 {
					res = fmt.Sprintf("%d %s, e.g. %s", m, checks.PluralKind(f.Resource.Kind), res)
				} else {
					res = fmt.Sprintf("%s (%d findings)", res, n)
				}
				grouped = true
			}
			row := []string{f.Level, f.ID, f.Code, f.Check, res, orDash(f.Field)}
			if whatIf {
				row = append(row, orDash(f.Status))
			}
			rows = append(rows, row)
		}
		if err := Table(w, headers, rows); err != nil {
			return err
		}
		for _, g := range groups {
			writeFindingDetail(w, g.findings[0])
			if n := len(g.findings); n > 1 {
				if m := distinctResources(g.findings); m > 1 {
					fmt.Fprintf(w, "  and %d more %s finding(s) like it, on %d %s in all (--details lists each one)\n", n-1, g.findings[0].Code, m, checks.PluralKind(g.findings[0].Resource.Kind))
				} else {
					fmt.Fprintf(w, "  and %d more %s finding(s) like it on the same %s, seen from other places (--details lists each one)\n", n-1, g.findings[0].Code, g.findings[0].Resource.Kind)
				}
			}
		}
		if grouped {
			fmt.Fprintf(w, "\nAlike findings (more than %d of one id, check, kind and field) share one row; --details lists each one, and -o json|yaml|sarif|junit always do.\n", GroupThreshold)
		}
	}
	if len(r.Suppressed) > 0 {
		fmt.Fprintf(w, "\nSuppressed (%d):\n", len(r.Suppressed))
		for _, f := range r.Suppressed {
			reason := ""
			if f.SuppressedBy.Reason != "" {
				reason = ": " + f.SuppressedBy.Reason
			}
			fmt.Fprintf(w, "  %s %s %s %s, by %s%s\n", f.Level, f.ID, f.Code, f.Resource, f.SuppressedBy.Where, reason)
		}
	}
	if whatIf && len(r.Resolved) > 0 {
		fmt.Fprintf(w, "\nResolved by the manifests (%d):\n", len(r.Resolved))
		for _, f := range r.Resolved {
			fmt.Fprintf(w, "  %s %s %s %s\n", f.Level, f.ID, f.Code, f.Resource)
		}
	}
	_, err := fmt.Fprintf(w, "\n%s\n", SummaryLine(r))
	return err
}

func writeFindingDetail(w io.Writer, f checks.PreflightFinding) {
	field := ""
	if f.Field != "" {
		field = " (" + f.Field + ")"
	}
	status := ""
	if f.Status != "" {
		status = " [" + f.Status + "]"
	}
	fmt.Fprintf(w, "\n%s [%s %s] %s%s%s\n  %s\n", f.Level, f.ID, f.Code, f.Resource, field, status, f.Message)
	if f.Location != nil {
		if f.Location.Line > 0 {
			fmt.Fprintf(w, "  file: %s:%d\n", f.Location.File, f.Location.Line)
		} else {
			fmt.Fprintf(w, "  file: %s\n", f.Location.File)
		}
	}
	for _, c := range f.Contexts {
		fmt.Fprintf(w, "  seen: %s\n", c)
	}
	if len(f.AlsoReportedAs) > 0 {
		fmt.Fprintf(w, "  also reported as: %s (the same fault, seen by another check)\n", strings.Join(f.AlsoReportedAs, ", "))
	}
	if f.Doc != "" {
		fmt.Fprintf(w, "  Why: %s\n", f.Doc)
	}
	writeFix(w, f.Fix)
}

// SummaryLine is the one-line result of a preflight: counts by level, suppressed, what-if
// counts, and PASS or FAIL with the reason.
func SummaryLine(r *checks.PreflightReport) string {
	return summaryCounts(r) + ". " + preflightVerdict(r) + "."
}

// summaryCounts counts the findings by level, the suppressed ones and the what-if counts.
func summaryCounts(r *checks.PreflightReport) string {
	s := r.Summary
	line := fmt.Sprintf("%d error(s), %d warning(s), %d info; %d suppressed", s.Errors, s.Warnings, s.Infos, s.Suppressed)
	if r.Mode == checks.ModeWhatIf {
		line += fmt.Sprintf("; %d introduced, %d existing, %d resolved by the manifests", s.Introduced, s.Existing, s.Resolved)
	}
	return line
}

// preflightVerdict is PASS, FAIL or INCOMPLETE with the reason.
func preflightVerdict(r *checks.PreflightReport) string {
	s := r.Summary
	switch {
	case len(r.Unknown) > 0:
		return "INCOMPLETE: some kinds could not be read (exit 2)"
	case r.Failed:
		what := "finding(s)"
		if r.Mode == checks.ModeWhatIf && !r.FailOnExisting {
			what = "introduced finding(s)"
		}
		return fmt.Sprintf("FAIL: %d %s at or above %s", s.Failing, what, r.FailOn)
	}
	return fmt.Sprintf("PASS: nothing fails at %s", r.FailOn)
}

func sortedMapKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
