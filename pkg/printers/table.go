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
// spaces, cells left-aligned and never wrapped, like kubectl's and istioctl's tabwriter output.
func Table(w io.Writer, headers []string, rows [][]string) error {
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
