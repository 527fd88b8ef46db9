package printers

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/kubectl-egress/kubectl-egress/pkg/checks"
)

// Output formats accepted by -o.
const (
	FormatTable = "table"
	FormatJSON  = "json"
	FormatYAML  = "yaml"
)

// Formats lists the -o values.
var Formats = []string{FormatTable, FormatJSON, FormatYAML}

// WhyMissing renders a why-missing report in format (table, json or yaml). The JSON and YAML
// shapes are checks.Report (schema checks.SchemaVersion, documented in docs/why-missing.md).
func WhyMissing(w io.Writer, r *checks.Report, format string) error {
	if done, err := structured(w, r, format); done {
		return err
	}
	return whyMissingTable(w, r)
}

// structured writes v as JSON or YAML when format asks for it (done = true), rejects unknown
// formats (done = true, with an error), and leaves the table format to the caller.
func structured(w io.Writer, v any, format string) (done bool, err error) {
	switch format {
	case FormatJSON:
		return true, writeJSON(w, v)
	case FormatYAML:
		return true, writeYAML(w, v)
	case FormatTable, "":
		return false, nil
	}
	return true, fmt.Errorf("unknown output format %q (want one of %s)", format, strings.Join(Formats, ", "))
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func writeYAML(w io.Writer, v any) error {
	b, err := yaml.Marshal(v)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

func whyMissingTable(w io.Writer, r *checks.Report) error {
	var b bytes.Buffer
	target := r.Host
	if r.Port != 0 {
		target += ":" + strconv.Itoa(int(r.Port))
	}
	if style.Brief {
		var s string
		if sv := r.Symptom; sv != nil {
			s = symptomLine(r, sv)
		}
		if r.Path != nil {
			s += pathShort(r.Path)
		} else {
			s += whyMissingShort(r)
			// ambient clients go through the waypoint, not the gateways above (blind audit 78
			// 7a-7c: the short answer named an assumed gateway only)
			for _, wp := range r.Waypoints {
				s += "  Ambient: " + wp + "\n"
			}
		}
		return emit(w, []byte(s))
	}
	if r.Path == nil {
		if s := whyMissingShort(r); s != "" {
			b.WriteString(s + "\n")
		}
	}
	if sv := r.Symptom; sv != nil {
		fmt.Fprintf(&b, "%s  %s\n", symptomLine(r, sv), sv.Message)
		if len(sv.Hops) > 0 {
			fmt.Fprintf(&b, "  Hops of this path that can produce %s:\n", sv.Symptom)
			for _, h := range sv.Hops {
				fmt.Fprintf(&b, "    %s %s: %s\n", h.Proxy, h.Step, strings.ToUpper(h.Result.String()))
			}
		}
		b.WriteString("\n")
	}
	if p := r.Path; p != nil {
		writePath(&b, p)
		if len(r.Gateways) > 0 && p.Failed() && !pathReachesGateway(p) {
			// The call stops before any gateway: what follows is what a gateway needs once the
			// PATH's fix sends the call there, not the fix itself (blind audit 30 #09).
			b.WriteString("\nThe gateways' clusters for the host (the call stops before any gateway: fix the PATH first; a gateway needs what follows only once the call gets there):\n\n")
		} else if len(r.Gateways) > 0 {
			b.WriteString("\nThe gateways' clusters for the host:\n\n")
		} else {
			b.WriteString("\n")
		}
	}
	fmt.Fprintf(&b, "HOST %s   (%s)\n", target, r.Source)
	if len(r.Services) == 0 {
		if unreadRegistry(r) {
			// entries or Services could not be read (all or some namespaces): "none declares
			// it" would be a fact the tool does not have (blind audit 102 c31, c33)
			fmt.Fprintf(&b, "No ServiceEntry or Service that could be read declares %s.\n", r.Host)
		} else {
			fmt.Fprintf(&b, "No ServiceEntry or Service declares %s.\n", r.Host)
		}
		for _, s := range r.Suggestions {
			fmt.Fprintf(&b, "  did you mean: %s\n", s)
		}
	}
	for _, s := range r.Services {
		var ports []string
		for _, p := range s.Ports {
			ports = append(ports, fmt.Sprintf("%d/%s", p.Number, orDash(p.Protocol)))
		}
		export := strings.Join(s.ExportTo, ",")
		if len(s.ExportToBeforeVisibility) > 0 {
			export = strings.Join(s.ExportToBeforeVisibility, ",") + " (capped to " + export + " by meshConfig.serviceEntryVisibility)"
		}
		if s.ExportToAssumed != "" {
			export += " (" + s.ExportToAssumed + ")"
		}
		fmt.Fprintf(&b, "Declared by %s %s/%s: host %s, ports %s, resolution %s, exportTo %s\n",
			s.Kind, s.Namespace, s.Name, strings.Join(s.Hosts, ","), strings.Join(ports, ","), s.Resolution, export)
	}
	for _, w := range r.Waypoints {
		fmt.Fprintf(&b, "Ambient: %s\n", w)
	}
	for _, g := range r.Gateways {
		b.WriteString("\n")
		verdict, cause := "PRESENT", g.Cause
		switch {
		case g.Cause == checks.CauseInputUnknown:
			verdict = "UNKNOWN"
		case !g.Present:
			verdict = "ABSENT"
		default:
			if f, ok := g.CallsFail(); ok {
				// the cluster is there, but the verdict names a fault calls meet (the Error
				// finding's code when the cause itself is OK: a route looping back)
				verdict, cause = "PRESENT, but calls fail:", f.Code
			}
		}
		fmt.Fprintf(&b, "GATEWAY %s: %s   cause %s", g.Gateway, verdict, cause)
		if g.Culprit != "" {
			fmt.Fprintf(&b, "   culprit %s", g.Culprit)
		}
		b.WriteString("\n")
		fmt.Fprintf(&b, "  %s\n", g.Message)
		if u := checks.DocURLOf(g.Cause); u != "" && g.Cause != checks.CauseOK {
			fmt.Fprintf(&b, "  Why: %s\n", u)
		}
		for _, a := range g.Assumptions {
			fmt.Fprintf(&b, "  Assumption: %s\n", a)
		}
		for _, n := range g.Notes {
			fmt.Fprintf(&b, "  Note: %s\n", n)
		}
		switch {
		case g.Fix != "" && r.Path != nil && r.Path.Failed() && r.Path.Fix != "" && g.Culprit != "" && g.Culprit == r.Path.Culprit:
			// the traced call fails on the same object: its fix, above, is this one (blind
			// audit 107: the same fix twice in other words)
			fmt.Fprintf(&b, "  Fix: the path's fix above (the same %s).\n", g.Culprit)
		case g.Fix != "":
			b.WriteString("  Fix:\n")
			for _, l := range strings.Split(g.Fix, "\n") {
				fmt.Fprintf(&b, "    %s\n", l)
			}
		}
		b.WriteString("\n")
		var rows [][]string
		for _, s := range g.Steps {
			rows = append(rows, []string{"(" + s.ID + ") " + s.Name, strings.ToUpper(s.Result.String()), s.Summary})
			for _, e := range s.Evidence {
				rows = append(rows, []string{"", "", "  " + evidenceText(e)})
			}
		}
		if err := indented(&b, []string{"CHECK", "RESULT", "EVIDENCE"}, rows); err != nil {
			return err
		}
		b.WriteString("\n")
		rows = rows[:0]
		hasActual := g.Live != nil && g.Live.DumpSource != ""
		for _, c := range g.Clusters {
			cds := "PRESENT"
			if !c.Present {
				cds = "ABSENT"
			}
			row := []string{c.FQDN, strconv.Itoa(int(c.Port)), orDash(c.Subset), c.Direction, orDash(c.Type), orDash(istioctlRef(c.DestinationRule)), cds}
			if hasActual {
				row = append(row, strings.ToUpper(orDash(c.Actual)))
			}
			rows = append(rows, row)
		}
		headers := []string{"SERVICE FQDN", "PORT", "SUBSET", "DIRECTION", "TYPE", "DESTINATION RULE", "CDS"}
		if hasActual {
			headers = []string{"SERVICE FQDN", "PORT", "SUBSET", "DIRECTION", "TYPE", "DESTINATION RULE", "PREDICTED", "ACTUAL"}
		}
		if len(rows) == 0 {
			b.WriteString("  (no cluster predicted for this host)\n")
		} else if err := indented(&b, headers, rows); err != nil {
			return err
		}
		if g.Live != nil {
			if g.Live.DumpSource != "" {
				fmt.Fprintf(&b, "  actual: %s\n", g.Live.DumpSource)
			}
			if len(g.Live.Sync) > 0 {
				fmt.Fprintf(&b, "  sync (istiod %s, proxy %s): CDS %s, LDS %s, EDS %s, RDS %s\n", orDash(g.Live.Istiod), orDash(g.Live.IstioVersion),
					g.Live.Sync["CDS"], g.Live.Sync["LDS"], g.Live.Sync["EDS"], g.Live.Sync["RDS"])
			}
			for _, n := range g.Live.NotChecked {
				fmt.Fprintf(&b, "  not checked: %s\n", n)
			}
		}
		if len(g.Routes) > 0 {
			b.WriteString("\n")
			rows = rows[:0]
			for _, r := range g.Routes {
				hosts := strings.Join(r.Hosts, ",")
				if len(r.SNIHosts) > 0 {
					hosts += " sni=" + strings.Join(r.SNIHosts, ",")
				}
				rows = append(rows, []string{r.Gateway, fmt.Sprintf("#%d %d/%s", r.Server, r.Port, r.Protocol), r.VirtualService, r.Result, orDash(hosts), orDash(strings.Join(r.Destinations, ","))})
			}
			if err := indented(&b, []string{"GATEWAY", "SERVER", "VIRTUAL SERVICE", "BINDING", "HOSTS", "ROUTE DESTINATIONS"}, rows); err != nil {
				return err
			}
		}
		for _, f := range g.Warnings {
			fmt.Fprintf(&b, "  %s [%s] %s\n", f.Level, f.Code, f.Message)
		}
	}
	if len(r.UntracedPaths) > 0 {
		b.WriteString("\nNot traced: client sidecars reach this host through a gateway Service, and the\ncall can also fail between the sidecar and the gateway. Trace a client's call hop by hop:\n")
		for _, p := range r.UntracedPaths {
			export := "the mesh default exportTo"
			if len(p.ExportTo) > 0 {
				export = "exportTo " + strings.Join(p.ExportTo, ",")
			}
			route := "VirtualService " + p.VirtualService + " (" + export + ")"
			if p.Route != "" {
				route = p.Route // generated from a Gateway API route: name what the user wrote
			}
			fmt.Fprintf(&b, "  %s → Service %s (gateway %s)\n    %s\n", route, p.Service, strings.Join(p.Gateways, ", "), p.Trace)
		}
	}
	return emit(w, b.Bytes())
}

// symptomLine says whether the configuration explains the symptom the user sees.
func symptomLine(r *checks.Report, sv *checks.SymptomVerdict) string {
	verdict := "explained"
	if !sv.Matches {
		verdict = "not explained by the configuration"
		if r.Path == nil {
			verdict = "not explained by the gateways' clusters"
		}
	}
	return fmt.Sprintf("SYMPTOM %s: %s\n", sv.Symptom, verdict)
}

// pathVerdictLine is the first line of a traced call: what, from where, the verdict, the cause
// and the culprit.
func pathVerdictLine(p *checks.PathTrace) string {
	var b strings.Builder
	verdict := "OK"
	switch {
	case p.Cause == checks.CauseInputUnknown:
		verdict = "UNKNOWN"
	case p.Failed():
		verdict = "FAILS"
	case p.Level == checks.LevelWarning:
		verdict = "WARNING"
	}
	for _, w := range p.Warnings {
		if verdict == "OK" && w.Code == checks.PathDirect {
			// it works, but not the way the configuration says it should
			verdict = "OK, but bypasses the egress gateway (" + w.Resource + ")"
			if strings.HasPrefix(w.Message, "Part of the calls") {
				verdict = "OK, but part of the calls bypass the egress gateway (" + w.Resource + ")"
			}
			if strings.Contains(w.Message, " workloads of namespace ") && strings.Contains(w.Message, " send this call straight out") {
				verdict = "OK, but some workloads bypass the egress gateway (" + w.Resource + ")"
			}
			break
		}
	}
	if verdict == "OK" {
		for _, w := range p.Warnings {
			if w.Code == checks.PathHTTP2Downgraded {
				// the configuration routes the call, but gRPC fails on the downgraded hop
				verdict = "OK for HTTP/1.1, but gRPC calls fail on the hop to the gateway (" + w.Resource + ")"
				break
			}
			if w.Code == checks.PathGatewayOtherEntry {
				// routed, but to another entry's destination at the gateway
				verdict = "ROUTED, but the gateway sends it where another entry for the host says (" + w.Resource + ")"
				break
			}
			if w.Code == checks.ListenerRouteShadowed {
				// routed, by the earlier VirtualService's catch-all (or match-everything regex):
				// routes of the later one never apply
				verdict = "ROUTED, but an earlier route takes requests another route is meant for (" + w.Resource + ")"
				break
			}
			if w.Code == checks.PathHTTP2ThroughTCP {
				// routed, but the host receives HTTP/2 cleartext
				verdict = "ROUTED, but the host receives HTTP/2 cleartext, which HTTP/1.1-only servers reject (" + w.Resource + ")"
				break
			}
		}
	}
	if verdict == "OK" {
		// the call works, and a warning says something about it that --brief would hide
		// (blind audit 37: the entry actually used, named only in a warning)
		n, first := 0, -1
		for i, w := range p.Warnings {
			if w.Level == checks.LevelWarning {
				if first < 0 {
					first = i
				}
				n++
			}
		}
		if n > 0 {
			verdict = fmt.Sprintf("OK, with %d warning(s) (first: %s %s)", n, p.Warnings[first].Code, p.Warnings[first].Resource)
		}
	}
	fmt.Fprintf(&b, "PATH %s %s:%d from %s: %s", strings.ToUpper(p.Call), p.Host, p.Port, p.Client, verdict)
	if p.Cause != checks.PathOK {
		fmt.Fprintf(&b, "   cause %s", p.Cause)
		if f := pathFlag(p); f != "" {
			fmt.Fprintf(&b, " (%s)", f)
		}
	}
	if p.Culprit != "" {
		fmt.Fprintf(&b, "   culprit %s", p.Culprit)
	}
	return b.String() + "\n"
}

// fixCheckLine says what tracing the call again with the fix applied gave ("" for a fix that is
// advice, not a manifest change).
func fixCheckLine(p *checks.PathTrace) string {
	c := p.FixCheck
	if c == nil {
		return ""
	}
	switch c.Result {
	case checks.FixProven:
		if c.Cause == checks.PathRouteMatchAssumed {
			return "Checked: traced again with this change applied, the call reaches the gateway's virtual host for the host, whose routes all have conditions a plain GET / does not meet: requests that meet one are routed, the others get 404 NR (ROUTE_MATCH_NOT_TRACED)."
		}
		if c.Message != "" {
			return "Checked: traced again with this change applied, the call works once the credential it reads is in place: " + c.Message
		}
		return "Checked: traced again with this change applied, the call works."
	case checks.FixInvalid:
		return "Not checked: this change does not pass Istio's validation (" + c.Message + "); take it as a direction only."
	}
	at := c.Cause
	if c.At != "" {
		at = c.At + ": " + c.Cause
	}
	var line string
	if at == "" {
		line = "Not enough on its own: after this change the call still fails (" + c.Message + ")."
	} else {
		line = "Not enough on its own: after this change the call still fails at " + at + "."
	}
	if c.Then == "" {
		return line
	}
	// the next failure's fix, indented under the line (the caller indents the first line)
	then := "Then"
	if c.Culprit != "" {
		then += ", in " + c.Culprit
	}
	if c.ThenProven {
		then += " (checked: with both changes applied, the call works)"
	}
	return line + "\n  " + then + ":\n    " + strings.ReplaceAll(strings.TrimRight(c.Then, "\n"), "\n", "\n    ")
}

// writePath prints a traced call: the verdict first, then the fix, then each hop.
func writePath(b *bytes.Buffer, p *checks.PathTrace) {
	b.WriteString(strings.TrimSuffix(pathVerdictLine(p), "\n"))
	fmt.Fprintf(b, "\n  %s\n", p.Message)
	if u := checks.DocURLOf(p.Cause); u != "" && p.Cause != checks.PathOK {
		fmt.Fprintf(b, "  Why: %s\n", u)
	}
	if p.Fix != "" {
		b.WriteString("  Fix:\n")
		for _, l := range strings.Split(p.Fix, "\n") {
			fmt.Fprintf(b, "    %s\n", l)
		}
		if c := fixCheckLine(p); c != "" {
			b.WriteString("  " + c + "\n")
		}
	}
	b.WriteString("\n")
	var rows [][]string
	for _, h := range p.Hops {
		rows = append(rows, []string{h.Proxy, h.Step, strings.ToUpper(h.Result.String()), h.Summary})
		for _, e := range h.Evidence {
			rows = append(rows, []string{"", "", "", "  " + evidenceText(e)})
		}
	}
	_ = indented(b, []string{"PROXY", "STEP", "RESULT", "WHAT HAPPENS"}, rows)
	fixed := false
	for _, f := range p.Warnings {
		fmt.Fprintf(b, "  %s [%s] %s%s\n", f.Level, f.Code, resourcePrefix(f.Resource), f.Message)
		if (f.Code == checks.PathDirect || f.Code == checks.PathGatewayOtherEntry || f.Code == checks.PathHTTP2Downgraded) && f.Fix != "" && !fixed && p.Fix == "" {
			// the bypass (or the other entry at the gateway) the verdict line names: how to
			// send the call where the configuration means it to go (blind audit 33: bypass
			// verdicts showed no fix; 101 c40: nor did the other entry's)
			fixed = true
			fmt.Fprintf(b, "    Fix: %s\n", strings.ReplaceAll(strings.TrimRight(f.Fix, "\n"), "\n", "\n      "))
		}
	}
	for _, n := range p.Notes {
		fmt.Fprintf(b, "  Note: %s\n", n)
	}
}

func evidenceText(e checks.Evidence) string {
	s := e.Resource
	if e.Field != "" {
		s += " " + e.Field
	}
	if e.Value != "" {
		s += "=" + e.Value
	}
	if e.Note != "" {
		s += " (" + e.Note + ")"
	}
	return s
}

func indented(b *bytes.Buffer, headers []string, rows [][]string) error {
	var t bytes.Buffer
	if err := table(&t, headers, rows, style.Width-2); err != nil {
		return err
	}
	for _, l := range strings.Split(strings.TrimRight(t.String(), "\n"), "\n") {
		b.WriteString("  " + strings.TrimRight(l, " ") + "\n")
	}
	return nil
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// Structured writes v as JSON or YAML (format json or yaml).
func Structured(w io.Writer, v any, format string) error {
	done, err := structured(w, v, format)
	if !done {
		return fmt.Errorf("format %q is not structured", format)
	}
	return err
}

// pathReachesGateway: some hop of the trace is at a gateway.
func pathReachesGateway(p *checks.PathTrace) bool {
	for _, h := range p.Hops {
		if strings.HasPrefix(h.Proxy, "gateway ") {
			return true
		}
	}
	return p.Gateway != ""
}

// pathFlag is what the client sees, for the verdict line: the response flag, with the HTTP status
// when a missing cluster answers one ("503 NC", "500 NC": a Gateway API route's missing or
// refused backend answers 500, with the flag NC).
func pathFlag(p *checks.PathTrace) string {
	switch {
	case p.Flag == "NC" && (p.Answer == checks.Answer500 || p.Answer == checks.Answer503):
		return string(p.Answer)
	case p.Flag == "500":
		return "500 NC"
	}
	return p.Flag
}

// unreadRegistry: a verdict of r rests on ServiceEntries or Services that could not be read (its
// cause is INPUT_UNKNOWN and names them).
func unreadRegistry(r *checks.Report) bool {
	unread := func(cause, msg string) bool {
		return cause == checks.CauseInputUnknown && (strings.Contains(msg, "ServiceEntries") || strings.Contains(msg, "Services"))
	}
	if r.Path != nil && unread(r.Path.Cause, r.Path.Message) {
		return true
	}
	for _, g := range r.Gateways {
		if unread(g.Cause, g.Message) {
			return true
		}
	}
	return false
}
