package conformance

import (
	"encoding/json"
	"flag"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-egress/kubectl-egress/pkg/checks"
)

// fixProof is the fix of one failing path, applied to the scenario's manifests and regenerated
// with istiod.
type fixProof struct {
	check pathCheck
	// result: "proven" (the plugin's re-trace works and istiod's path with the fix applied
	// reaches the host's cluster), "prose" (advice, not machine-checkable), "insufficient" (the
	// plugin says the change is not enough and istiod agrees the call still fails), "refuted"
	// (the plugin and istiod disagree on the path with the fix applied, or the patched manifests
	// are invalid for istiod), "unchecked" (the path with the fix is not one istiod's side can
	// follow through the gateway), "beyond simulation" (the plugin says the change is not enough
	// because of a later fault istiod's configuration cannot show: TLS originated to a port the
	// entry declares plaintext, which fails at the external server; istiod's path reaches the
	// cluster).
	result string
	detail string
	// then: for an "insufficient" fix whose next change the plugin says makes the call work with
	// it (FixCheck.ThenProven): "proven" when istiod's path with both changes applied reaches
	// the host's cluster, "refuted" when it does not or they cannot be applied, "" otherwise.
	then, thenDetail string
}

// proveFixes applies each distinct patch of the failing paths to the scenario's manifests, runs
// the paths of the patched scenario against istiod once per patch, and classifies each fix.
func proveFixes(t *testing.T, sc *scenario, pcs []pathCheck) []fixProof {
	var out []fixProof
	byPatch := map[string][]pathCheck{}
	patches := map[string]*checks.Patch{}
	for _, c := range pcs {
		tr := c.trace
		if tr == nil || !tr.Failed() || tr.Cause == checks.CauseInputUnknown {
			continue
		}
		if tr.Patch == nil {
			out = append(out, fixProof{check: c, result: "prose", detail: tr.Cause})
			continue
		}
		k := tr.Patch.Ref() + " " + string(tr.Patch.Merge)
		byPatch[k] = append(byPatch[k], c)
		patches[k] = tr.Patch
	}
	keys := make([]string, 0, len(byPatch))
	for k := range byPatch {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	// Regenerating costs a run of istiod per patch: every case file's fixes are proven, and
	// those of one generated scenario in -fix-every (by name, so the sample is the same for a
	// seed), at most -fix-max distinct patches each; the others are counted as not sampled.
	sampled := sc.Dims == nil || *fixEveryFlag <= 1 || fnv32(sc.Name)%uint32(*fixEveryFlag) == 0
	for i, k := range keys {
		if !sampled || (*fixMaxFlag > 0 && sc.Dims != nil && i >= *fixMaxFlag) {
			for _, c := range byPatch[k] {
				out = append(out, fixProof{check: c, result: "not sampled"})
			}
			continue
		}
		p := patches[k]
		patched, err := patchScenarioYAML(sc.YAML, p)
		if d := p.Derived(); d != nil && err == nil {
			// the change istiod's deployment controller makes from it (a Gateway API Gateway's
			// annotations copied onto the Service it deploys): the manifests hold that Service
			// written out, and the harness runs no deployment controller
			patched, err = patchScenarioYAML(patched, d)
		}
		var after *result
		if err == nil {
			psc := &scenario{Name: sc.Name + " + fix " + p.Ref(), YAML: patched, Gateways: sc.Gateways, ProxyRole: sc.ProxyRole, pathsOnly: true}
			after = runScenario(t, psc)
		}
		for _, c := range byPatch[k] {
			fp := classifyFix(c, p, after, err)
			if fc := c.trace.FixCheck; fp.result == "insufficient" && fc != nil && fc.ThenProven && fc.ThenPatch != nil {
				fp.then, fp.thenDetail = proveThen(t, sc, patched, c, fc.ThenPatch)
			}
			out = append(out, fp)
		}
	}
	return out
}

// proveThen applies the next change (FixCheck.ThenPatch) on top of the first and runs istiod
// on the result: the plugin says the call then works.
func proveThen(t *testing.T, sc *scenario, patched string, c pathCheck, p *checks.Patch) (string, string) {
	both, err := patchScenarioYAML(patched, p)
	if err != nil {
		return "refuted", "cannot apply the next change: " + err.Error()
	}
	r := runScenario(t, &scenario{Name: sc.Name + " + fix + next " + p.Ref(), YAML: both, Gateways: sc.Gateways, ProxyRole: sc.ProxyRole, pathsOnly: true})
	if r == nil || r.status != "compared" {
		return "refuted", "istiod did not run on both changes"
	}
	var outcomes []string
	for _, a := range r.pathChecks {
		if a.ns != c.ns || a.host != c.host || a.port != c.port || a.kind != c.kind {
			continue
		}
		outcomes = append(outcomes, a.istiod)
		if !istiodPathWorks(a.istiod) {
			// the scenario as the first fix left it, to reproduce with the plugin
			file := filepath.Join(*outFlag, strings.ReplaceAll(sc.Name, "/", "_")+"-first-fix.yaml")
			_ = os.WriteFile(file, []byte("# conformance: the scenario with the first fix applied; the plugin says the next change ("+p.Ref()+") makes the call work, istiod does not\n"+patched), 0o644)
			return "refuted", "istiod with both changes: " + strings.Join(outcomes, " | ") + " (reproducer: " + file + ")"
		}
	}
	if len(outcomes) == 0 {
		return "", ""
	}
	return "proven", ""
}

// classifyFix compares the plugin's fix check with istiod's path for the same call in the
// patched scenario.
func classifyFix(c pathCheck, p *checks.Patch, after *result, applyErr error) fixProof {
	fc := c.trace.FixCheck
	plugin := "no check"
	if fc != nil {
		plugin = fc.Result
		if fc.Cause != "" {
			plugin += " (" + fc.Cause + ")"
		}
	}
	fp := fixProof{check: c}
	if applyErr != nil || after == nil || after.status != "compared" {
		why := "cannot apply"
		if applyErr != nil {
			why += ": " + applyErr.Error()
		} else if after != nil {
			why = after.status + ": " + after.detail
		}
		fp.result, fp.detail = "refuted", fmt.Sprintf("%s; plugin %s", why, plugin)
		if fc != nil && fc.Result == checks.FixInvalid {
			fp.result = "insufficient" // both reject the change
		}
		return fp
	}
	var outcomes []string
	works, fails := 0, 0
	for _, a := range after.pathChecks {
		if a.ns != c.ns || a.host != c.host || a.port != c.port || a.kind != c.kind {
			continue
		}
		outcomes = append(outcomes, a.istiod)
		if istiodPathWorks(a.istiod) {
			works++
		} else {
			fails++
		}
	}
	if works+fails == 0 {
		fp.result, fp.detail = "unchecked", "the call no longer goes through a gateway istiod's side follows; plugin "+plugin
		return fp
	}
	proven := fc != nil && fc.Result == checks.FixProven
	switch {
	case proven && fc.Cause == checks.PathRouteMatchAssumed && works == 0:
		// with the fix the plugin's call reaches a gateway virtual host whose routes all have
		// conditions a plain GET / does not meet (ROUTE_MATCH_NOT_TRACED): istiod's simulated
		// GET / gets no route there, as the path comparison reads that cause; both say the
		// plain request still fails
		fp.result = "insufficient"
	case proven && fc.Cause == checks.PathAnsweredByRoute && works == 0:
		// with the fix the call reaches the gateway, where a route answers it itself (a
		// directResponse: ROUTE_ANSWERS_ITSELF); istiod's simulation reads a direct response as
		// no route to a cluster (istiodPathOutcome): both say nothing leaves the mesh
		fp.result = "insufficient"
	case proven && fails == 0:
		fp.result = "proven"
	case !proven && fc != nil && fc.Result == checks.FixInsufficient && works == 0:
		fp.result = "insufficient"
	case fc != nil && fc.Result == checks.FixInsufficient && fc.Cause == checks.PathTLSToPlaintext && fails == 0:
		// istiod builds the TLS origination as configured; the failure is the external
		// server's (its plaintext port answering a TLS handshake), outside the simulation
		fp.result = "beyond simulation"
	default:
		fp.result = "refuted"
	}
	fp.detail = fmt.Sprintf("plugin %s; istiod %s", plugin, strings.Join(outcomes, " | "))
	return fp
}

// istiodPathWorks: istiod's outcome of a path reaches the host's cluster (present, with
// endpoints, TLS originated once), or the sidecar's cluster is ORIGINAL_DST (a headless
// gateway Service: the call goes out to the address the client dialed, without an error; the
// plugin's re-trace says so too, OK with a PATH_BYPASSES_GATEWAY warning).
func istiodPathWorks(o string) bool {
	if strings.HasSuffix(o, ": original destination") {
		return true
	}
	main, _, _ := strings.Cut(o, ", mirror ")
	main = strings.TrimSuffix(main, " (HTTP/2 into a TCP chain)") // a warning after the outcome
	return strings.Contains(main, " → ") && !strings.HasSuffix(main, "(absent)") && !strings.HasSuffix(main, "(no endpoints)") && !strings.HasSuffix(main, "(TLS originated twice)") && !strings.HasSuffix(main, "(plaintext to a TLS port)")
}

// patchScenarioYAML applies p to the manifests: the document of the object merged with the
// patch (RFC 7386, the library the plugin uses), or the new object appended, created now (as
// the API server stamps it: the newest object, which matters where istiod orders by creation
// time, such as DestinationRules merged for one host).
func patchScenarioYAML(all string, p *checks.Patch) (string, error) {
	if p.Create {
		var obj map[string]any
		if err := json.Unmarshal(p.Merge, &obj); err != nil {
			return "", err
		}
		if md, ok := obj["metadata"].(map[string]any); ok {
			if _, set := md["creationTimestamp"]; !set {
				md["creationTimestamp"] = time.Now().UTC().Format(time.RFC3339)
			}
		}
		js, err := json.Marshal(obj)
		if err != nil {
			return "", err
		}
		y, err := yaml.JSONToYAML(js)
		if err != nil {
			return "", err
		}
		return strings.TrimRight(all, "\n") + "\n---\n" + string(y), nil
	}
	chunks := strings.Split(all, "\n---\n")
	for i, ch := range chunks {
		var m map[string]any
		if yaml.Unmarshal([]byte(ch), &m) != nil || m == nil {
			continue
		}
		md, _ := m["metadata"].(map[string]any)
		kind, _ := m["kind"].(string)
		name, _ := md["name"].(string)
		ns, _ := md["namespace"].(string)
		if ns == "" {
			ns = "default"
		}
		if kind != p.Kind || name != p.Name || ns != p.Namespace {
			continue
		}
		js, err := json.Marshal(m)
		if err != nil {
			return "", err
		}
		merged, err := jsonpatch.MergePatch(js, p.Merge)
		if err != nil {
			return "", err
		}
		y, err := yaml.JSONToYAML(merged)
		if err != nil {
			return "", err
		}
		chunks[i] = strings.TrimRight(string(y), "\n")
		return strings.Join(chunks, "\n---\n"), nil
	}
	return "", fmt.Errorf("%s is not in the manifests", p.Ref())
}

// writeFixProofs writes the counts of fixes proven, not machine-checkable, not enough on their
// own and refuted, with each refuted fix; it returns the number refuted.
var (
	fixEveryFlag = flag.Int("fix-every", 5, "prove the patched fixes of one generated scenario in N (case files: always)")
	fixMaxFlag   = flag.Int("fix-max", 3, "distinct patches regenerated per sampled generated scenario (0: all)")
)

func fnv32(s string) uint32 {
	h := fnv.New32a()
	h.Write([]byte(s))
	return h.Sum32()
}

func writeFixProofs(w *strings.Builder, sets ...[]*result) int {
	counts := map[string]int{}
	byCause := map[string]map[string]int{}
	var refuted []string
	next := map[string]int{}
	for _, rs := range sets {
		for _, r := range rs {
			for _, f := range r.fixProofs {
				counts[f.result]++
				cause := f.check.trace.Cause
				if byCause[cause] == nil {
					byCause[cause] = map[string]int{}
				}
				byCause[cause][f.result]++
				if f.result == "insufficient" && f.check.trace.FixCheck != nil {
					fc := f.check.trace.FixCheck
					next[cause+" → "+fc.Cause+" at "+fc.At]++
				}
				if f.result == "refuted" {
					tr := f.check.trace
					refuted = append(refuted, fmt.Sprintf("  %s: %s: fix %s: %s", r.sc.Name, f.check, tr.Patch.Ref(), f.detail))
				}
				if f.then != "" {
					counts["then "+f.then]++
				}
				if f.then == "refuted" {
					tr := f.check.trace
					refuted = append(refuted, fmt.Sprintf("  %s: %s: fix %s, then %s: %s", r.sc.Name, f.check, tr.Patch.Ref(), tr.FixCheck.ThenPatch.Ref(), f.thenDetail))
				}
			}
		}
	}
	total := 0
	for _, n := range counts {
		total += n
	}
	if total == 0 {
		return 0
	}
	fmt.Fprintf(w, "FIXES of failing paths (each patch applied to its scenario's manifests, regenerated with istiod)\n")
	fmt.Fprintf(w, "fixes proven: %d; not machine-checkable: %d; not enough on their own (istiod agrees): %d; refuted: %d; with the fix, the call no longer through a compared gateway: %d; not enough for a reason istiod's configuration cannot show (TLS to a plaintext port): %d; patched but not sampled (-fix-every %d, -fix-max %d): %d\n",
		counts["proven"], counts["prose"], counts["insufficient"], counts["refuted"], counts["unchecked"], counts["beyond simulation"], *fixEveryFlag, *fixMaxFlag, counts["not sampled"])
	causes := make([]string, 0, len(byCause))
	for c := range byCause {
		causes = append(causes, c)
	}
	sort.Strings(causes)
	for _, c := range causes {
		m := byCause[c]
		fmt.Fprintf(w, "  %-42s proven %d, not machine-checkable %d, insufficient %d, refuted %d, unchecked %d\n", c, m["proven"], m["prose"], m["insufficient"], m["refuted"], m["unchecked"])
	}
	nexts := make([]string, 0, len(next))
	for k := range next {
		nexts = append(nexts, k)
	}
	sort.Strings(nexts)
	for _, k := range nexts {
		fmt.Fprintf(w, "  not enough on its own: %s ×%d\n", k, next[k])
	}
	fmt.Fprintf(w, "  not enough on their own, with the next change the plugin names as well: proven by istiod %d, refuted %d\n", counts["then proven"], counts["then refuted"])
	for _, l := range refuted {
		w.WriteString(l + "\n")
	}
	w.WriteString("\n")
	return len(refuted)
}
