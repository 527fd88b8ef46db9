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
func ExportAudit(w io.Writer, r *checks.AuditReport, format string) error {
	if done, err := structured(w, r, format); done {
		return err
	}
	out := w
	var buf bytes.Buffer
	if err := exportAuditText(&buf, r); err != nil {
		return err
	}
	return emit(out, buf.Bytes())
}

func exportAuditText(w io.Writer, r *checks.AuditReport) error {
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
	var rows [][]string
	for _, f := range r.Findings {
		fix := "see below"
		if f.Fix == "" {
			fix = "-"
		}
		rows = append(rows, []string{f.Level, f.Code, f.Kind, f.Namespace + "/" + f.Name, strings.Join(f.ExportTo, ","),
			orDash(strings.Join(f.NeededIn, ",")), orDash(strings.Join(f.MissingIn, ",")), f.Impact, fix})
	}
	if err := Table(w, []string{"LEVEL", "CODE", "KIND", "NAMESPACE/NAME", "EXPORT TO", "NEEDED IN", "MISSING IN", "IMPACT", "FIX"}, rows); err != nil {
		return err
	}
	for _, f := range r.Findings {
		if _, err := fmt.Fprintf(w, "\n%s [%s] %s\n  %s\n", f.Level, f.Code, f.Ref(), f.Message); err != nil {
			return err
		}
		writeWhy(w, f.Code)
		writeFix(w, f.Fix)
	}
	return nil
}
