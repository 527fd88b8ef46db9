// Package printers renders check results: tables in the style of kubectl and
// `istioctl proxy-config` (borderless, whitespace-aligned, UPPERCASE headers), JSON and YAML.
package printers

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/kubectl-egress/kubectl-egress/pkg/checks"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"
)

// Table writes a borderless table with headers and rows, columns separated by at least three
// spaces, cells left-aligned, like kubectl's and istioctl's tabwriter output. Cells are not
// wrapped unless the style has a width the table does not fit in: then the widest columns are
// narrowed first and their cells wrapped within the column (see Style).
func Table(w io.Writer, headers []string, rows [][]string) error {
	return table(w, headers, rows, style.Width)
}

// colSep is the space between two table columns.
const colSep = 3

// minColumn is the narrowest a column is wrapped to.
const minColumn = 12

// table is Table fitted to max columns (0: no limit).
func table(w io.Writer, headers []string, rows [][]string, max int) error {
	nat := make([]int, len(headers))
	words := make([]int, len(headers))
	heads := make([]int, len(headers))
	for i, h := range headers {
		nat[i] = width(h)
		words[i] = width(h) // headers are not wrapped
		heads[i] = width(h)
	}
	for _, r := range rows {
		for i, c := range r {
			if i < len(nat) {
				nat[i] = maxInt(nat[i], width(c))
				// a wrapped cell's continuation lines are indented two more columns
				words[i] = maxInt(words[i], longestWord(c)+len(c)-len(strings.TrimLeft(c, " "))+2)
			}
		}
	}
	if ws := fitColumns(nat, words, heads, colSep, max, minColumn); ws != nil {
		wrapped := make([][]string, len(rows))
		for k, r := range rows {
			wrapped[k] = make([]string, len(r))
			for i, c := range r {
				if i < len(ws) {
					c = wrapCell(c, ws[i])
				}
				wrapped[k][i] = c
			}
		}
		rows = wrapped
	}
	var buf bytes.Buffer
	t := tablewriter.NewTable(&buf,
		tablewriter.WithRenderer(renderer.NewBlueprint(tw.Rendition{
			Borders: tw.BorderNone,
			Settings: tw.Settings{
				Separators: tw.Separators{ShowHeader: tw.Off, ShowFooter: tw.Off, BetweenRows: tw.Off, BetweenColumns: tw.Off},
				Lines:      tw.Lines{ShowTop: tw.Off, ShowBottom: tw.Off, ShowHeaderLine: tw.Off, ShowFooterLine: tw.Off},
			},
		})),
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithHeaderAlignment(tw.AlignLeft),
		tablewriter.WithRowAlignment(tw.AlignLeft),
		tablewriter.WithHeaderAutoWrap(tw.WrapNone),
		tablewriter.WithRowAutoWrap(tw.WrapNone),
		tablewriter.WithPadding(tw.Padding{Left: "", Right: "   ", Overwrite: true}),
		tablewriter.WithTrimSpace(tw.Off),
	)
	t.Header(toAny(headers)...)
	for _, r := range rows {
		if err := t.Append(r); err != nil {
			return err
		}
	}
	if err := t.Render(); err != nil {
		return err
	}
	for _, l := range strings.SplitAfter(buf.String(), "\n") {
		if l == "" {
			continue
		}
		if _, err := io.WriteString(w, strings.TrimRight(l, " \n")+"\n"); err != nil {
			return err
		}
	}
	return nil
}

func toAny(s []string) []any {
	out := make([]any, len(s))
	for i, x := range s {
		out[i] = x
	}
	return out
}

// writeWhy prints the link to the docs/causes page that explains a finding code, if any.
func writeWhy(w io.Writer, code string) {
	if u := checks.DocURLOf(code); u != "" {
		fmt.Fprintf(w, "  Why: %s\n", u)
	}
}

// writeFix prints a finding's fix under "  Fix:", each line indented like the other commands'
// (multi-line YAML stays readable and paste-ready).
func writeFix(w io.Writer, fix string) {
	if fix == "" {
		return
	}
	fmt.Fprintln(w, "  Fix:")
	for _, l := range strings.Split(fix, "\n") {
		fmt.Fprintf(w, "    %s\n", l)
	}
}
