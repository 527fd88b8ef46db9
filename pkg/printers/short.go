package printers

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/kubectl-egress/kubectl-egress/pkg/checks"
)

// The short answer: every text output starts with the verdict in one or two lines — what,
// where, why (the cause code and the resource at fault) and the fix in one line — then the
// detail. --brief prints the short answer alone.

// fixSummary says a fix in one line: a one-line fix as it is; a YAML fragment as the field it
// changes and the resource it changes ("# Kind namespace/name" heads the fragments).
func fixSummary(fix, culprit string) string {
	fix = strings.TrimSpace(fix)
	if fix == "" {
		return ""
	}
	lines := strings.Split(fix, "\n")
	if len(lines) == 1 && !strings.HasPrefix(lines[0], "#") {
		return lines[0]
	}
	below := "YAML below"
	if style.Brief {
		below = "YAML without --brief"
	}
	// advice in words before the YAML (a likely typo to correct first, say): that sentence is
	// the summary, not the object after it (blind audit 33 V01)
	if !strings.HasPrefix(lines[0], "#") && !strings.HasPrefix(lines[0], "apiVersion:") && strings.HasSuffix(strings.TrimSpace(lines[0]), ":") && strings.Contains(lines[0], " ") {
		return strings.TrimSuffix(strings.TrimSpace(lines[0]), ":") + " (YAML below)"
	}
	// the same advice as a YAML comment ahead of a new object (the fix stays valid YAML)
	// (or ahead of a fragment: "# move DestinationRule ... to namespace ...:"; blind audit 105,
	// where the summary read "change move ...")
	if len(lines) > 1 && strings.HasPrefix(lines[0], "# ") && strings.HasSuffix(strings.TrimSpace(lines[0]), ":") {
		return strings.TrimSuffix(strings.TrimSpace(strings.TrimPrefix(lines[0], "# ")), ":") + " (" + below + ")"
	}
	// new objects (no "# Kind namespace/name" header naming the resource to change)
	if objs := fixObjects(lines); len(objs) > 0 && !strings.HasPrefix(lines[0], "#") {
		return fmt.Sprintf("apply %s (%s)", strings.Join(objs, " and "), below)
	}
	target := culprit
	if strings.HasPrefix(lines[0], "#") { // the resource the fragment changes
		target = strings.TrimSpace(strings.TrimPrefix(lines[0], "#"))
	}
	var path string
	var stack []fixKey
	skip := map[string]bool{"apiVersion": true, "kind": true, "metadata.name": true, "metadata.namespace": true}
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if t == "" || t == "---" {
			continue
		}
		if strings.HasPrefix(t, "#") {
			continue
		}
		if path != "" {
			break
		}
		indent := len(l) - len(strings.TrimLeft(l, " "))
		if strings.HasPrefix(t, "- ") || t == "-" {
			if len(stack) > 0 {
				path = joinKeys(stack)
			}
			continue
		}
		name, val, ok := strings.Cut(t, ":")
		if !ok {
			continue
		}
		for len(stack) > 0 && stack[len(stack)-1].indent >= indent {
			stack = stack[:len(stack)-1]
		}
		stack = append(stack, fixKey{indent, name})
		if v := strings.TrimSpace(val); v != "" && !strings.HasPrefix(v, "#") {
			if p := joinKeys(stack); !skip[p] {
				path = p
			}
		}
	}
	// a label map is written whole (the fix's labels replace the old ones): name the map, not
	// its first key
	for _, m := range []string{".matchLabels.", ".labels.", ".selector."} {
		if i := strings.Index(path+".", m); i >= 0 && i+len(m) <= len(path)+1 {
			path = path[:i+len(m)-1]
			break
		}
	}
	switch {
	case path != "" && target != "":
		return fmt.Sprintf("change %s of %s (%s)", path, target, below)
	case target != "":
		return fmt.Sprintf("change %s (%s)", target, below)
	}
	return "apply the " + below
}

func joinKeys(ks []fixKey) string {
	var parts []string
	for _, k := range ks {
		parts = append(parts, k.name)
	}
	return strings.Join(parts, ".")
}

// fixKey is a key of a YAML fix and its indent.
type fixKey struct {
	indent int
	name   string
}

// fixObjects names the whole objects a YAML fix holds ("Gateway istio-system/egress-80"), one
// per document; none when the fix is a fragment of one resource.
func fixObjects(lines []string) []string {
	var out []string
	var kind, name, ns string
	inMeta := false
	flush := func() {
		if kind != "" && name != "" {
			ref := name
			if ns != "" {
				ref = ns + "/" + name
			}
			out = append(out, kind+" "+ref)
		}
		kind, name, ns, inMeta = "", "", "", false
	}
	for _, l := range lines {
		t := strings.TrimSpace(l)
		switch {
		case t == "---":
			flush()
		case strings.HasPrefix(l, "kind:"):
			kind = strings.TrimSpace(strings.TrimPrefix(l, "kind:"))
		case strings.HasPrefix(l, "metadata:"):
			inMeta = true
		case inMeta && strings.HasPrefix(l, "  name:"):
			name = strings.Trim(strings.TrimSpace(strings.TrimPrefix(l, "  name:")), `"'`)
		case inMeta && strings.HasPrefix(l, "  namespace:"):
			ns = strings.Trim(strings.TrimSpace(strings.TrimPrefix(l, "  namespace:")), `"'`)
		case l != "" && !strings.HasPrefix(l, " "):
			inMeta = false
		}
	}
	flush()
	return out
}

// fixLine is the second line of a short answer: "  Fix: ..." ("" when there is no fix).
func fixLine(fix, culprit string) string {
	if s := fixSummary(fix, culprit); s != "" {
		return "  Fix: " + s + "\n"
	}
	return ""
}

// whyMissingShort is why-missing's short answer for the gateways: the first gateway without
// the cluster, its cause, culprit and fix; or PRESENT on every gateway.
func whyMissingShort(r *checks.Report) string {
	target := r.Host
	if r.Port != 0 {
		target += ":" + strconv.Itoa(int(r.Port))
	}
	if len(r.Gateways) == 0 {
		return ""
	}
	for _, g := range r.Gateways {
		if g.Cause == checks.CauseInputUnknown {
			_, why, _ := strings.Cut(g.Message, ": ")
			why, _, _ = strings.Cut(why, "; ")
			why, _, _ = strings.Cut(why, ". With")
			return fmt.Sprintf("UNKNOWN: no verdict for %s on gateway %s: %s.\n", target, g.Gateway, strings.TrimSuffix(why, "."))
		}
	}
	var absent []checks.GatewayVerdict
	for _, g := range r.Gateways {
		if !g.Present {
			absent = append(absent, g)
		}
	}
	if len(absent) == 0 {
		// The cluster is there, but the verdict names a fault (a Gateway that applies to no
		// workload, no endpoints, ...): that fault is the answer.
		for _, g := range r.Gateways {
			if f, ok := g.CallsFail(); ok {
				if f.Resource == "" {
					return fmt.Sprintf("PRESENT, but calls fail: %s has its cluster on gateway %s: cause %s\n", target, g.Gateway, f.Code) + fixLine(f.Fix, f.Resource)
				}
				return fmt.Sprintf("PRESENT, but calls fail: %s has its cluster on gateway %s: cause %s, culprit %s\n", target, g.Gateway, f.Code, f.Resource) + fixLine(f.Fix, f.Resource)
			}
		}
		where := "gateway " + r.Gateways[0].Gateway
		if n := len(r.Gateways); n > 1 {
			where = fmt.Sprintf("all %d gateways", n)
		}
		return fmt.Sprintf("PRESENT: %s has its cluster on %s.\n", target, where)
	}
	g := absent[0]
	more := ""
	if n := len(absent) - 1; n > 0 {
		more = fmt.Sprintf(" (and on %d more of %d gateways)", n, len(r.Gateways))
	}
	s := fmt.Sprintf("ABSENT: no cluster for %s on gateway %s%s: cause %s", target, g.Gateway, more, g.Cause)
	if g.Culprit != "" {
		s += ", culprit " + g.Culprit
	}
	return s + "\n" + fixLine(g.Fix, g.Culprit)
}

// pathShort is the short answer of a traced call: writePath's verdict line and the fix.
func pathShort(p *checks.PathTrace) string {
	var b strings.Builder
	b.WriteString(pathVerdictLine(p))
	b.WriteString(fixLine(p.Fix, p.Culprit))
	if p.Fix == "" && p.Cause == checks.PathOK {
		// "OK, but bypasses the egress gateway": the bypass warning's fix is the answer's
		// (blind audit 107: --brief printed the verdict alone)
		for _, w := range p.Warnings {
			if w.Code == checks.PathDirect && w.Fix != "" {
				b.WriteString(fixLine(w.Fix, w.Resource))
				break
			}
		}
	}
	if c := p.FixCheck; c != nil && c.Result != checks.FixProven {
		b.WriteString("  " + fixCheckLine(p) + "\n")
	}
	return b.String()
}

// levelVerdict is the verdict word of a finding level: FAIL for an error, WARN for a warning,
// OK otherwise.
func levelVerdict(level string) string {
	switch level {
	case checks.LevelError:
		return "FAIL"
	case checks.LevelWarning:
		return "WARN"
	}
	return "OK"
}

// worstFinding returns the first finding of the highest level (nil for none).
func worstFinding(fs []checks.Finding) *checks.Finding {
	var best *checks.Finding
	rank := map[string]int{checks.LevelError: 3, checks.LevelWarning: 2, checks.LevelInfo: 1}
	for i := range fs {
		if best == nil || rank[fs[i].Level] > rank[best.Level] {
			best = &fs[i]
		}
	}
	return best
}

// explainListenerShort: where the call goes, and the worst finding with its fix.
func explainListenerShort(r *checks.ListenerReport) string {
	p := r.Proxy
	who := p.Type + " " + p.Namespace
	if p.Workload != "" {
		who = p.Type + " " + p.Workload
	}
	target := r.Host
	if r.Port != 0 {
		target += ":" + strconv.Itoa(int(r.Port))
	}
	what := fmt.Sprintf("port %d on %s", r.Port, who)
	if r.Host != "" {
		what = fmt.Sprintf("%s from %s", target, who)
		if len(r.Calls) > 0 {
			c := r.Calls[0]
			what = fmt.Sprintf("%s call to %s", strings.ToUpper(c.Kind), what)
			switch {
			case c.Result.Error != "":
				what += ": " + c.Result.Error
			case c.Result.Cluster != "":
				what += " goes to " + c.Result.Cluster
			case c.Result.DirectResponse == 1:
				what += " gets a redirect"
			case c.Result.DirectResponse != 0:
				what += fmt.Sprintf(" gets a direct response %d", c.Result.DirectResponse)
			}
		}
	}
	f := worstFinding(r.Findings)
	if (f == nil || f.Level != checks.LevelError) && len(r.NoVerdict) > 0 {
		return "UNKNOWN: no verdict for " + what + ": " + strings.Join(r.NoVerdict, "; ") + ".\n"
	}
	if f == nil || f.Level == checks.LevelInfo {
		return "OK: " + what + "\n"
	}
	s := strings.TrimSuffix(fmt.Sprintf("%s: %s; %s %s", levelVerdict(f.Level), what, f.Code, f.Resource), " ")
	if n := len(r.Findings) - 1; n > 0 {
		s += moreFindings(n)
	}
	return s + "\n" + fixLine(f.Fix, f.Resource)
}

// moreFindings says how many findings the short answer leaves to the detail.
func moreFindings(n int) string {
	return fmt.Sprintf(" (and %d more finding(s))", n)
}

// exportAuditShort: the count of gaps and the worst one with its fix.
func exportAuditShort(r *checks.AuditReport) string {
	if len(r.Findings) == 0 {
		return ""
	}
	errs, warns := 0, 0
	for _, f := range r.Findings {
		switch f.Level {
		case checks.LevelError:
			errs++
		case checks.LevelWarning:
			warns++
		}
	}
	f := r.Findings[0] // sorted worst first
	verdict := levelVerdict(f.Level)
	s := fmt.Sprintf("%s: %d exportTo gap(s) (%d error(s), %d warning(s)); first: %s %s", verdict, len(r.Findings), errs, warns, f.Ref(), f.Code)
	if len(f.MissingIn) > 0 {
		s += ", missing in " + nsList(f.MissingIn, false)
	} else if len(f.NeededIn) > 0 {
		s += ", used in " + nsList(f.NeededIn, false)
	}
	return s + "\n" + fixLine(f.Fix, f.Ref())
}

// preflightShort: the verdict with the counts, and the worst finding with its fix.
func preflightShort(r *checks.PreflightReport) string {
	s := preflightVerdict(r) + " (" + summaryCounts(r) + ").\n"
	if len(r.Findings) == 0 {
		return s
	}
	f := checks.WorstPreflightFinding(r.Findings)
	if f.Level == checks.LevelInfo {
		// informational findings are listed below; none is a "worst" to act on first
		return s
	}
	line := fmt.Sprintf("  Worst: %s [%s] %s", f.Level, f.Code, f.Resource)
	if f.Field != "" {
		line += " (" + f.Field + ")"
	}
	if fs := fixSummary(f.Fix, f.Resource.String()); fs != "" {
		line += "; fix: " + fs
	}
	return s + line + "\n"
}

// visibilityShort: the worst warning or error of a visibility report with its fix ("" when
// there is none: the policy line is the short answer then).
func visibilityShort(r *checks.VisibilityReport) string {
	fs := append([]checks.Finding(nil), r.Findings...)
	for _, e := range r.Entries {
		fs = append(fs, e.Findings...)
	}
	f := worstFinding(fs)
	if f == nil || f.Level == checks.LevelInfo {
		return ""
	}
	s := fmt.Sprintf("%s: [%s] %s", levelVerdict(f.Level), f.Code, f.Message)
	if n := len(fs) - 1; n > 0 {
		s += moreFindings(n)
	}
	return s + "\n" + fixLine(f.Fix, f.Resource)
}
