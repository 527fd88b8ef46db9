package printers

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/kubectl-egress/kubectl-egress/pkg/checks"
)

// Visibility renders a visibility report: a table (NAMESPACE/NAME, HOSTS, POLICY, VISIBILITY,
// SIDECARS, AMBIENT, STATUS, and with --as-namespace SEES), then findings; or JSON/YAML.
func Visibility(w io.Writer, r *checks.VisibilityReport, format string) error {
	if done, err := structured(w, r, format); done {
		return err
	}
	out := w
	var buf bytes.Buffer
	w = &buf
	if s := visibilityShort(r); s != "" {
		fmt.Fprint(w, s)
		if style.Brief {
			return emit(out, buf.Bytes())
		}
		fmt.Fprintln(w)
	}
	if !r.Configured {
		fmt.Fprintln(w, "meshConfig.serviceEntryVisibility is not configured: every ServiceEntry is PUBLIC and only exportTo scopes it.")
	} else {
		fmt.Fprintf(w, "serviceEntryVisibility: defaultVisibility %s, applyToSidecars %t\n", r.DefaultVisibility, r.ApplyToSidecars)
	}
	headers := []string{"NAMESPACE/NAME", "HOSTS", "POLICY", "VISIBILITY", "SIDECARS", "AMBIENT", "STATUS"}
	if r.AsNamespace != "" {
		headers = append(headers, "SIDECAR IN "+r.AsNamespace, "AMBIENT IN "+r.AsNamespace)
	}
	var rows [][]string
	for _, e := range r.Entries {
		ambient := e.Ambient
		switch {
		case e.Waypoint != "":
			ambient += ", via waypoint " + e.Waypoint
		case e.WaypointRefused != "":
			ambient += ", waypoint refused (" + e.WaypointRefused + ")"
		}
		row := []string{e.Namespace + "/" + e.Name, strings.Join(e.Hosts, ","), e.Policy, e.Visibility, e.Sidecars, ambient, orDash(e.Status)}
		if r.AsNamespace != "" {
			sees := yesNo(e.SidecarSees)
			if len(e.SidecarPorts) > 0 {
				sees += " (port " + joinUint(e.SidecarPorts) + " only)"
			}
			row = append(row, sees, yesNo(e.AmbientSees))
		}
		rows = append(rows, row)
	}
	if style.Brief { // without findings the policy line is the short answer
		return emit(out, buf.Bytes())
	}
	if err := Table(w, headers, rows); err != nil {
		return err
	}
	for _, f := range r.Findings {
		fmt.Fprintf(w, "\n%s [%s] %s\n", f.Level, f.Code, f.Message)
		writeWhy(w, f.Code)
		writeFix(w, f.Fix)
	}
	for _, e := range r.Entries {
		if e.Instead != "" {
			fmt.Fprintf(w, "\n%s/%s in %s: %s\n", e.Namespace, e.Name, r.AsNamespace, e.Instead)
		}
		for _, f := range e.Findings {
			fmt.Fprintf(w, "\n%s [%s] %s\n", f.Level, f.Code, f.Message)
			writeWhy(w, f.Code)
			writeFix(w, f.Fix)
		}
	}
	return emit(out, buf.Bytes())
}

func yesNo(b *bool) string {
	switch {
	case b == nil:
		return "-"
	case *b:
		return "yes"
	}
	return "no"
}

func joinUint(ps []uint32) string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = fmt.Sprint(p)
	}
	return strings.Join(out, ", ")
}
