package checks

import (
	"fmt"
	"slices"
	"strings"
)

// Preflight modes.
const (
	// ModeLive: the live cluster alone (no -f).
	ModeLive = "live"
	// ModeWhatIf: the -f manifests applied over the live cluster; findings are introduced or
	// existing.
	ModeWhatIf = "what-if"
	// ModeOffline: the -f manifests alone (--offline, or no cluster configured).
	ModeOffline = "offline"
)

// FailOnNone is the --fail-on value that never fails on findings.
const FailOnNone = "none"

// ParseFailOn maps a --fail-on value (error, warning, info or none; any case) to a level
// (LevelError, LevelWarning, LevelInfo) or FailOnNone.
func ParseFailOn(s string) (string, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "error":
		return LevelError, nil
	case "warning":
		return LevelWarning, nil
	case "info":
		return LevelInfo, nil
	case "none":
		return FailOnNone, nil
	}
	return "", fmt.Errorf("--fail-on %q: want error, warning, info or none", s)
}

// PreflightOptions decide what fails a preflight and what is silenced.
type PreflightOptions struct {
	// Mode is ModeLive, ModeWhatIf or ModeOffline (informational; what-if needs a baseline).
	Mode string
	// FailOn is LevelError, LevelWarning, LevelInfo or FailOnNone (ParseFailOn).
	FailOn string
	// FailOnExisting lets findings already present in the baseline fail a what-if run (by
	// default only introduced ones do).
	FailOnExisting bool
	// Suppressions from -S and --suppressions; annotation suppressions come from the snapshot
	// (PreflightResult.Annotations).
	Suppressions []Suppression
}

// PreflightSummary counts the report's findings.
type PreflightSummary struct {
	// Errors, Warnings and Infos count the findings not suppressed, by level.
	Errors   int `json:"errors"`
	Warnings int `json:"warnings"`
	Infos    int `json:"infos"`
	// Suppressed counts the findings a suppression silenced.
	Suppressed int `json:"suppressed"`
	// Introduced, Existing (not suppressed) and Resolved (present without the manifests, gone
	// with them): what-if mode only, else 0.
	Introduced int `json:"introduced"`
	Existing   int `json:"existing"`
	Resolved   int `json:"resolved"`
	// Failing counts the findings that fail the run: not suppressed, at or above failOn, and in
	// what-if mode introduced (or any, with failOnExisting).
	Failing int `json:"failing"`
}

// PreflightReport is the answer of `kubectl egress preflight` (schema PreflightSchemaVersion).
type PreflightReport struct {
	SchemaVersion string `json:"schemaVersion"`
	// Source is "cluster <server>", "files <paths>" or, in what-if mode, both joined by " + "
	// (snapshot.Overlay).
	Source string `json:"source"`
	// Mode is live, what-if or offline.
	Mode string `json:"mode"`
	// FailOn is Error, Warning, Info or none; FailOnExisting as given.
	FailOn         string `json:"failOn"`
	FailOnExisting bool   `json:"failOnExisting"`
	// Checks say what each check examined; Notes what the command assumed (for example that
	// no cluster was configured, so the manifests were checked alone).
	Checks []CheckRun `json:"checks"`
	Notes  []string   `json:"notes,omitempty"`
	// ClientNamespaces are the namespaces whose sidecars preflight modelled: a context
	// "sidecars in every client namespace (N), ..." means these (ExpandContexts).
	ClientNamespaces []string `json:"clientNamespaces,omitempty"`
	// Unknown maps kinds that could not be read to why: the preflight is incomplete (exit 2).
	Unknown map[string]string `json:"unknown,omitempty"`
	Summary PreflightSummary  `json:"summary"`
	// Findings are those not suppressed, worst first; Suppressed those a suppression silenced,
	// each with suppressedBy; Resolved (what-if) those of the live state the manifests remove.
	Findings   []PreflightFinding `json:"findings"`
	Suppressed []PreflightFinding `json:"suppressed"`
	Resolved   []PreflightFinding `json:"resolved,omitempty"`
	// Failed is true when Summary.Failing > 0 (exit code 1).
	Failed bool `json:"failed"`
}

// NewPreflightReport applies the baseline (what-if: base is the live state alone, nil
// otherwise), the suppressions and the threshold to cur's findings.
//
// With a baseline every finding is "introduced" (its ID, resource and field are not among the
// baseline's) or "existing"; baseline findings absent from cur are Resolved. Suppressions are
// tried in order (annotations of cur's snapshot first, then opt.Suppressions); the first that
// matches moves the finding to Suppressed. Each valid suppression that matched nothing becomes a
// SUPPRESSION_UNUSED finding (Info, no status). A finding fails the run when it is not
// suppressed, its level is at least opt.FailOn, and (with a baseline) it is not "existing"
// unless opt.FailOnExisting.
func NewPreflightReport(cur, base *PreflightResult, opt PreflightOptions) *PreflightReport {
	rep := &PreflightReport{SchemaVersion: PreflightSchemaVersion, Source: cur.Source, Mode: opt.Mode, FailOn: opt.FailOn,
		FailOnExisting: opt.FailOnExisting, Checks: append([]CheckRun{}, cur.Checks...), Unknown: cur.Unknown,
		Findings: []PreflightFinding{}, Suppressed: []PreflightFinding{}, ClientNamespaces: cur.ClientNamespaces}
	if rep.FailOn == "" {
		rep.FailOn = LevelError
	}
	findings := append([]PreflightFinding(nil), cur.Findings...)
	if base != nil {
		inBase := map[string]bool{}
		for _, f := range base.Findings {
			inBase[f.baselineKey()] = true
		}
		inCur := map[string]bool{}
		for i := range findings {
			inCur[findings[i].baselineKey()] = true
			findings[i].Status = FindingIntroduced
			if inBase[findings[i].baselineKey()] {
				findings[i].Status = FindingExisting
			}
		}
		for _, f := range base.Findings {
			if !inCur[f.baselineKey()] {
				if !slices.Equal(base.ClientNamespaces, cur.ClientNamespaces) {
					// "every client namespace" of the report means cur's
					f.Contexts = listedContexts(f.Contexts, base.ClientNamespaces)
				}
				rep.Resolved = append(rep.Resolved, f)
			}
		}
	}
	sups := append(append([]Suppression(nil), cur.Annotations...), opt.Suppressions...)
	used := make([]bool, len(sups))
	for _, f := range findings {
		matched := -1
		if f.Code != PreflightSuppressionUnused {
			for i, s := range sups {
				if s.Matches(f) {
					matched = i
					break
				}
			}
		}
		if matched < 0 {
			rep.Findings = append(rep.Findings, f)
			continue
		}
		used[matched] = true
		if len(f.AlsoReportedAs) > 0 {
			// one finding for several codes: a suppression of each of them is in use
			for i, s := range sups {
				used[i] = used[i] || s.Matches(f)
			}
		}
		f.SuppressedBy = sups[matched].ref()
		rep.Suppressed = append(rep.Suppressed, f)
	}
	for i, s := range sups {
		if used[i] || s.Invalid != "" {
			continue
		}
		res := ResourceRef{Kind: "Suppression", Name: s.Where}
		field := ""
		if s.Origin == SuppressedByAnnotation {
			res, field = s.Target, "metadata.annotations["+SuppressAnnotation+"]"
		}
		msg := fmt.Sprintf("Suppression %s (code %s, resource %s) matched no finding.", s.Where, s.Code, s.Resource)
		rep.Findings = append(rep.Findings, NewPreflightFinding(PreflightSuppressionUnused, CheckPreflight, res, field, msg,
			"Remove the suppression, or correct its code or resource pattern (see docs/findings.md for codes)."))
	}
	SortPreflightFindings(rep.Findings)
	SortPreflightFindings(rep.Suppressed)
	SortPreflightFindings(rep.Resolved)
	s := &rep.Summary
	s.Suppressed, s.Resolved = len(rep.Suppressed), len(rep.Resolved)
	for _, f := range rep.Findings {
		switch f.Level {
		case LevelError:
			s.Errors++
		case LevelWarning:
			s.Warnings++
		default:
			s.Infos++
		}
		switch f.Status {
		case FindingIntroduced:
			s.Introduced++
		case FindingExisting:
			s.Existing++
		}
		if Fails(f, rep.FailOn, base != nil && !opt.FailOnExisting) {
			s.Failing++
		}
	}
	rep.Failed = s.Failing > 0
	return rep
}

// Fails reports whether an unsuppressed finding fails a run with threshold failOn (a level or
// FailOnNone); onlyIntroduced (what-if without --fail-on-existing) exempts existing findings.
func Fails(f PreflightFinding, failOn string, onlyIntroduced bool) bool {
	if failOn == FailOnNone || f.SuppressedBy != nil {
		return false
	}
	if onlyIntroduced && f.Status == FindingExisting {
		return false
	}
	return AtLeast(f.Level, failOn)
}
