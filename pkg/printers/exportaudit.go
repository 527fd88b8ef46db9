package printers

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/kubectl-egress/kubectl-egress/pkg/checks"
)

// ExportAudit renders an export-audit report: a table (KIND, NAMESPACE/NAME, EXPORT TO,
// NEEDED IN, MISSING IN, IMPACT, FIX) sorted by severity, or the AuditReport as JSON/YAML.
//
// The table groups findings as preflight's does: more than GroupThreshold findings with the same
// level, code and kind share one row ("N ServiceEntries, e.g. ...") and one described example,
// and a list of more than listThreshold namespaces shows its first and last ones and the count.
// ExportAuditWith(details) lists every finding and namespace; JSON and YAML always do.
func ExportAudit(w io.Writer, r *checks.AuditReport, format string) error {
	return ExportAuditWith(w, r, format, false)
}

// ExportAuditWith is ExportAudit; details lists every finding and every namespace in the table
// (--details).
func ExportAuditWith(w io.Writer, r *checks.AuditReport, format string, details bool) error {
	if done, err := structured(w, r, format); done {
		return err
	}
	out := w
	var buf bytes.Buffer
	if err := exportAuditText(&buf, r, details); err != nil {
		return err
	}
	return emit(out, buf.Bytes())
}

// listThreshold is the number of namespaces the export-audit table still lists one by one.
const listThreshold = 8

// nsList joins namespaces; more than listThreshold are shortened to the first three, the last
// and the count, unless details.
func nsList(ns []string, details bool) string {
	if details || len(ns) <= listThreshold {
		return strings.Join(ns, ",")
	}
	return fmt.Sprintf("%s,…,%s (%d namespaces)", strings.Join(ns[:3], ","), ns[len(ns)-1], len(ns))
}

// groupAudit groups alike findings (same level, code and kind) of more than GroupThreshold, in
// report order (groupAlike).
func groupAudit(fs []checks.AuditFinding, details bool) [][]checks.AuditFinding {
	type key struct{ level, code, kind string }
	return groupAlike(fs, details, func(f checks.AuditFinding) key { return key{f.Level, f.Code, f.Kind} })
}

func exportAuditText(w io.Writer, r *checks.AuditReport, details bool) error {
	if s := exportAuditShort(r); s != "" {
		fmt.Fprint(w, s)
		if style.Brief {
			return nil
		}
		fmt.Fprintln(w)
	}
	// Without findings the output is short already: the scope read and the all-clear.
	for k, why := range r.Unknown {
		fmt.Fprintf(w, "Could not read %s: %s\n", checks.PluralKind(k), why)
	}
	if r.Scope != "" {
		fmt.Fprintf(w, "Scope: %s, %d resource(s) checked (%s).\n", r.Scope, len(r.Resources), r.Source)
	}
	if r.FindingsElsewhere > 0 {
		fmt.Fprintf(w, "%d more finding(s) in other namespaces: run with -A to see them.\n", r.FindingsElsewhere)
	}
	if len(r.Findings) == 0 {
		if len(r.Unknown) > 0 {
			// not an all-clear: what could not be read may hold the gaps
			_, err := fmt.Fprintln(w, "INCOMPLETE: no exportTo gap found in what could be read (exit 2).")
			return err
		}
		if r.Scope != "" {
			_, err := fmt.Fprintln(w, "No exportTo gaps in this scope.")
			return err
		}
		_, err := fmt.Fprintf(w, "No exportTo gaps: %d resource(s) checked (%s).\n", len(r.Resources), r.Source)
		return err
	}
	groups := groupAudit(r.Findings, details)
	var rows [][]string
	grouped := false
	for _, g := range groups {
		f := g[0]
		fix := "see below"
		if f.Fix == "" {
			fix = "-"
		}
		name := f.Namespace + "/" + f.Name
		if len(g) > 1 {
			name = fmt.Sprintf("%d %s, e.g. %s", len(g), checks.PluralKind(f.Kind), name)
			grouped = true
		}
		rows = append(rows, []string{f.Level, f.Code, f.Kind, name, strings.Join(f.ExportTo, ","),
			orDash(nsList(f.NeededIn, details)), orDash(nsList(f.MissingIn, details)), f.Impact, fix})
	}
	if err := Table(w, []string{"LEVEL", "CODE", "KIND", "NAMESPACE/NAME", "EXPORT TO", "NEEDED IN", "MISSING IN", "IMPACT", "FIX"}, rows); err != nil {
		return err
	}
	for _, g := range groups {
		f := g[0]
		if _, err := fmt.Fprintf(w, "\n%s [%s] %s\n  %s\n", f.Level, f.Code, f.Ref(), f.Message); err != nil {
			return err
		}
		writeWhy(w, f.Code)
		writeFix(w, f.Fix)
		if len(g) > 1 {
			fmt.Fprintf(w, "  and %d more %s finding(s) like it on other %s (--details lists each one)\n", len(g)-1, f.Code, checks.PluralKind(f.Kind))
		}
	}
	if grouped {
		fmt.Fprintf(w, "\nAlike findings (more than %d of one code and kind) share one row, and lists of more than %d namespaces are shortened; --details lists each one, and -o json|yaml always do.\n", GroupThreshold, listThreshold)
	}
	return nil
}
