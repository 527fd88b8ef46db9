package conformance

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	istiolog "istio.io/istio/pkg/log"

	"github.com/kubectl-egress/kubectl-egress/pkg/checks"
	"github.com/kubectl-egress/kubectl-egress/pkg/loader"
	"github.com/kubectl-egress/kubectl-egress/pkg/rules"
	"github.com/kubectl-egress/kubectl-egress/pkg/snapshot"
)

var (
	seedFlag  = flag.Int64("seed", 20261130, "seed of the generated matrix")
	countFlag = flag.Int("n", 600, "number of generated scenarios")
	onlyFlag  = flag.String("only", "", "run only scenarios whose name matches this regexp")
	outFlag   = flag.String("out", "out", "directory for reproducers and the summary (relative to hack/conformance)")
	dumpFlag  = flag.Bool("dump", false, "print every compared cluster with both verdicts")
)

// check is one cluster compared for one gateway workload.
type check struct {
	scenario  *scenario
	gateway   string
	role      string
	filter    bool
	scope     bool
	host      string
	port      uint32
	cluster   string
	subset    string
	plugin    bool // predicted present
	listed    bool // the plugin lists the cluster at all
	reason    string
	cause     string
	istiod    bool
	flagKnown bool // the flag came from the scenario's istiod Deployment
	seShape   string
	tags      []string // mechanisms explaining a disagreement (classify_test.go)
}

// class groups disagreements by shape: cluster kind, the ServiceEntry's resolution and
// endpoint source, and both verdicts.
func (c check) class() string {
	kind := "default"
	if c.subset != "" {
		kind = "subset"
	}
	return fmt.Sprintf("[%s] %s cluster: plugin %s, istiod %s", strings.Join(c.tags, "+"), kind, word(c.plugin), word(c.istiod))
}

func (c check) agree() bool { return c.plugin == c.istiod }

type result struct {
	sc           *scenario
	status       string // "compared", "invalid", "not-checkable", "error"
	detail       string
	checks       []check
	disagreement int
	// route calls (routes_test.go)
	routeChecks       []routeCheck
	routeDisagreement int
	routeSkipped      map[string]int // servers not checkable, by reason
	// export-audit findings (audit_test.go)
	auditChecks       []auditCheck
	auditDisagreement int
	auditUnchecked    map[string]int
	// serviceEntryVisibility (visibility_test.go)
	visChecks       []visCheck
	visDisagreement int
	visUnchecked    map[string]int
	// listener calls through client sidecars (listener_test.go)
	listenerChecks       []listenerCheck
	listenerDisagreement int
	// whole proxy configs (proxyconfig_test.go)
	configChecks []configCheck
	// paths through the egress gateway (paths_test.go)
	pathChecks       []pathCheck
	pathDisagreement int
	// misrouted calls' path verdicts (misroute_test.go)
	misrouteChecks       []misrouteCheck
	misrouteDisagreement int
	configDisagreement   int
	// fixes of failing paths applied and regenerated (fixproof_test.go)
	fixProofs []fixProof
}

func TestConformance(t *testing.T) {
	quietIstio()
	var only *regexp.Regexp
	if *onlyFlag != "" {
		only = regexp.MustCompile(*onlyFlag)
	}
	outDir := *outFlag
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		t.Fatal(err)
	}
	cases, err := caseScenarios(t)
	if err != nil {
		t.Fatal(err)
	}
	gen := generate(*seedFlag, *countFlag)
	// Reproducers of an earlier run would be misleading (read after the cases, so that
	// EGRESS_CASES_DIR=out re-runs the last reproducers).
	old, _ := filepath.Glob(filepath.Join(outDir, "*.yaml"))
	for _, f := range old {
		_ = os.Remove(f)
	}

	start := time.Now()
	var caseResults, genResults []*result
	t.Run("cases", func(t *testing.T) {
		for i := range cases {
			if only != nil && !only.MatchString(cases[i].Name) {
				continue
			}
			caseResults = append(caseResults, runScenario(t, &cases[i]))
		}
	})
	t.Run("generated", func(t *testing.T) {
		for i := range gen {
			if only != nil && !only.MatchString(gen[i].Name) {
				continue
			}
			genResults = append(genResults, runScenario(t, &gen[i]))
		}
	})
	elapsed := time.Since(start)

	var report strings.Builder
	fmt.Fprintf(&report, "conformance: seed %d, %d generated scenarios, %d case files, %s\n\n", *seedFlag, len(genResults), len(caseResults), elapsed.Round(time.Second))
	writeCaseTable(&report, caseResults)
	writeDimensionTables(&report, genResults)
	writeRouteTables(&report, genResults)
	writeAuditTables(&report, genResults)
	writeVisibilityTables(&report, caseResults, genResults)
	writeListenerTables(&report, genResults)
	writeMisrouteTables(&report, "generated scenarios", genResults)
	writeMisrouteTables(&report, "case files", caseResults)
	writeDNSTables(&report, genResults)
	writeConfigTables(&report, "generated scenarios", genResults)
	writeConfigTables(&report, "case files", caseResults)
	writePathTables(&report, "generated scenarios", genResults)
	writePathTables(&report, "case files", caseResults)
	nRefuted := writeFixProofs(&report, caseResults, genResults)
	nDis := writeDisagreements(&report, outDir, append(append([]*result{}, caseResults...), genResults...))
	_ = os.WriteFile(filepath.Join(outDir, "summary.txt"), []byte(report.String()), 0o644)
	fmt.Print(report.String())
	if nDis > 0 {
		t.Errorf("%d disagreements between the plugin and istiod (reproducers in %s)", nDis, outDir)
	}
	if nRefuted > 0 {
		t.Errorf("%d fixes refuted: applied to their scenario, istiod does not make the call work (see FIXES in the summary)", nRefuted)
	}
}

// repoCasesDir holds the repository's case fixtures (one per fault kind).
var repoCasesDir = filepath.Join("..", "..", "testdata", "cases")

// sharedCasesDir returns the shared acceptance set's directory: EGRESS_CASES_DIR (which must
// exist when set), else ../shared/cases beside the repository when it exists, else "".
func sharedCasesDir() (string, error) {
	if d := os.Getenv("EGRESS_CASES_DIR"); d != "" {
		if _, err := os.Stat(d); err != nil {
			return "", fmt.Errorf("EGRESS_CASES_DIR: %w", err)
		}
		return d, nil
	}
	d := filepath.Join("..", "..", "..", "shared", "cases")
	if _, err := os.Stat(d); err != nil {
		return "", nil
	}
	return d, nil
}

func quietIstio() {
	for _, s := range istiolog.Scopes() {
		s.SetOutputLevel(istiolog.NoneLevel)
		s.SetStackTraceLevel(istiolog.NoneLevel)
	}
}

// runScenario compares one scenario for every flag value it fixes (or both, when it names
// none) and returns its checks.
func runScenario(t *testing.T, sc *scenario) *result {
	res := &result{sc: sc, status: "compared", routeSkipped: map[string]int{}, auditUnchecked: map[string]int{}, visUnchecked: map[string]int{}}
	snap, err := pluginSnapshot(sc.YAML, nil)
	if err != nil {
		res.status, res.detail = "error", "plugin loader: "+err.Error()
		t.Errorf("%s: %s", sc.Name, res.detail)
		return res
	}
	var wls []workloadRef
	if len(sc.Gateways) > 0 {
		for _, g := range sc.Gateways {
			w, err := checks.FindWorkload(snap, g)
			if err != nil {
				res.status, res.detail = "error", err.Error()
				t.Errorf("%s: %s", sc.Name, res.detail)
				return res
			}
			wls = append(wls, workloadRef{ns: w.Namespace, name: w.Name, labels: w.Labels})
		}
	} else {
		for _, w := range checks.GatewayWorkloads(snap) {
			wls = append(wls, workloadRef{ns: w.Namespace, name: w.Name, labels: w.Labels})
		}
	}
	in, err := prepareOracle(sc.YAML, snap, wls, withVisibilityNamespaces(snap, sidecarNamespaces(snap)))
	if err != nil {
		if _, ok := err.(invalidError); ok {
			res.status, res.detail = "invalid", err.Error()
			return res
		}
		res.status, res.detail = "error", err.Error()
		t.Errorf("%s: %s", sc.Name, res.detail)
		return res
	}
	// Paths that cross revisions (a client sidecar of one istiod revision calling gateway pods
	// served by another): each revision's istiod output with its flags known, merged after the
	// loop (crossRevisionPaths).
	revOuts := map[string]*istiodOut{}
	allKnown := true
	for _, rev := range in.revisions() {
		rin, err := in.forRevision(rev)
		if err != nil {
			res.status, res.detail = "invalid", err.Error()
			return res
		}
		if rin.notCheckable != "" {
			res.status, res.detail = "not-checkable", rin.notCheckable
			return res
		}
		filters := []bool{false, true}
		known := rin.filterFlag != nil
		if known {
			filters = []bool{*rin.filterFlag}
		}
		scope := rin.scopeFlag != nil && *rin.scopeFlag
		for _, f := range filters {
			psnap := snap
			if !known {
				v := f
				if psnap, err = pluginSnapshot(sc.YAML, &v); err != nil {
					res.status, res.detail = "error", err.Error()
					return res
				}
			}
			iout, err := runIstiod(t, in.kubeYAML, rin, f, scope)
			if err != nil {
				if strings.Contains(err.Error(), "invalid") {
					res.status, res.detail = "invalid", err.Error()
					return res
				}
				res.status, res.detail = "error", "istiod harness: "+err.Error()
				t.Errorf("%s: %s", sc.Name, res.detail)
				return res
			}
			res.pathChecks = append(res.pathChecks, comparePaths(t, psnap, rin.proxies, rin.clients, iout)...)
			if known {
				revOuts[rev] = iout
			} else {
				allKnown = false
			}
			if sc.pathsOnly {
				continue
			}
			res.checks = append(res.checks, compare(t, sc, psnap, rin.proxies, iout.cds, f, scope, known)...)
			res.routeChecks = append(res.routeChecks, compareRoutes(t, sc, psnap, rin.proxies, iout, f, scope, known, res.routeSkipped)...)
			res.auditChecks = append(res.auditChecks, compareAudit(sc, psnap, rin.proxies, iout, f, scope, res.auditUnchecked)...)
			if rev == auditedRevision(psnap) && f == filters[0] {
				res.visChecks = append(res.visChecks, compareVisibility(sc, psnap, iout, res.visUnchecked)...)
			}
			// Sidecars do not read the gateway flags: one comparison per revision.
			if f == filters[0] {
				lcs := compareListeners(t, psnap, rin.clients, iout)
				res.listenerChecks = append(res.listenerChecks, lcs...)
				res.misrouteChecks = append(res.misrouteChecks, compareMisroutes(t, psnap, rin.clients, lcs)...)
				res.configChecks = append(res.configChecks, compareConfigs(t, psnap, rin.proxies, rin.clients, iout)...)
				res.configChecks = append(res.configChecks, compareDRMerges(psnap, rev, iout))
			} else {
				res.configChecks = append(res.configChecks, compareConfigs(t, psnap, rin.proxies, nil, iout)...)
			}
		}
	}
	if len(revOuts) > 1 && allKnown {
		res.pathChecks = append(res.pathChecks, crossRevisionPaths(t, snap, in, revOuts)...)
	}
	if sc.pathsOnly {
		return res
	}
	res.fixProofs = proveFixes(t, sc, res.pathChecks)
	for _, c := range res.auditChecks {
		if !c.agree() {
			res.auditDisagreement++
		}
		if *dumpFlag {
			fmt.Printf("%s audit %s\n", sc.Name, c)
		}
	}
	for _, c := range res.configChecks {
		if !c.agree() {
			res.configDisagreement++
		}
		if *dumpFlag {
			fmt.Printf("%s config %s\n", sc.Name, c)
		}
	}
	for _, c := range res.pathChecks {
		if !c.agree() {
			res.pathDisagreement++
		}
		if *dumpFlag {
			fmt.Printf("%s path %s\n", sc.Name, c)
		}
	}
	for _, c := range res.misrouteChecks {
		if !c.agree() {
			res.misrouteDisagreement++
		}
		if *dumpFlag {
			fmt.Printf("%s misroute %s\n", sc.Name, c)
		}
	}
	for _, c := range res.listenerChecks {
		if !c.agree() {
			res.listenerDisagreement++
		}
		if *dumpFlag {
			fmt.Printf("%s listener %s\n", sc.Name, c)
		}
	}
	for _, c := range res.visChecks {
		if !c.agree() {
			res.visDisagreement++
		}
		if *dumpFlag {
			fmt.Printf("%s visibility %s\n", sc.Name, c)
		}
	}
	for _, c := range res.routeChecks {
		if !c.agree() {
			res.routeDisagreement++
		}
		if *dumpFlag {
			fmt.Printf("%s route %s\n", sc.Name, c)
		}
	}
	for _, c := range res.checks {
		if !c.agree() {
			res.disagreement++
		}
		if *dumpFlag {
			fmt.Printf("%s %s filter=%t %s: plugin %s (cause %s) istiod %s\n", sc.Name, c.gateway, c.filter, c.cluster, word(c.plugin), c.cause, word(c.istiod))
		}
	}
	return res
}

func pluginSnapshot(yaml string, filter *bool) (*snapshot.Snapshot, error) {
	return loader.FromFiles([]string{"-"}, strings.NewReader(yaml), loader.Options{IstioNamespace: "istio-system", FilterGatewayClusters: filter})
}

// compare lists, for every ServiceEntry host, port and gateway workload, every cluster name
// either side knows of (the plugin's list, subsets named by VirtualServices or defined by
// DestinationRules, istiod's clusters for the host) and records both verdicts.
func compare(t *testing.T, sc *scenario, snap *snapshot.Snapshot, proxies []proxySpec, cds map[string]map[string]bool, filter, scope, known bool) []check {
	var out []check
	hosts := map[string]bool{}
	for _, se := range snap.ServiceEntries {
		for _, h := range se.Spec.Hosts {
			hosts[rules.NormalizeHost(h)] = true
		}
	}
	for _, h := range sortedSet(hosts) {
		ports := map[uint32]bool{}
		for _, se := range snap.ServiceEntries {
			for _, sh := range se.Spec.Hosts {
				if rules.NormalizeHost(sh) != h {
					continue
				}
				for _, p := range se.Spec.Ports {
					if !strings.EqualFold(p.GetProtocol(), "UDP") {
						ports[p.GetNumber()] = true
					}
				}
			}
		}
		for _, names := range cds {
			for n := range names {
				if port, _, host, ok := parseCluster(n); ok && host == h {
					ports[port] = true
				}
			}
		}
		subsets := subsetsFor(snap, h)
		shape := seShape(snap, h)
		for _, p := range proxies {
			for _, port := range sortedPorts(ports) {
				rep, err := checks.WhyMissing(snap, checks.WhyMissingOptions{Host: h, Port: port, Gateway: p.ref})
				if err != nil {
					t.Errorf("%s: plugin: %v", sc.Name, err)
					continue
				}
				gv := rep.Gateways[0]
				cands := map[string]bool{fmt.Sprintf("outbound|%d||%s", port, h): true}
				for _, s := range subsets {
					cands[fmt.Sprintf("outbound|%d|%s|%s", port, s, h)] = true
				}
				listed := map[string]checks.Cluster{}
				for _, c := range gv.Clusters {
					cands[c.Name] = true
					listed[c.Name] = c
				}
				for n := range cds[p.ref] {
					if cp, _, ch, ok := parseCluster(n); ok && ch == h && cp == port {
						cands[n] = true
					}
				}
				for _, n := range sortedSet(cands) {
					_, sub, _, _ := parseCluster(n)
					c, isListed := listed[n]
					role := ""
					if sc.ProxyRole != nil {
						role = sc.ProxyRole[p.ref]
					}
					ck := check{scenario: sc, gateway: p.ref, role: role, filter: filter, scope: scope,
						host: h, port: port, cluster: n, subset: sub, plugin: isListed && c.Present, listed: isListed,
						reason: c.Reason, cause: gv.Cause, istiod: cds[p.ref][n], flagKnown: known, seShape: shape}
					if !ck.agree() {
						ck.tags = explainCheck(t, sc, snap, ck, &gv, p, port, filter, known)
					}
					out = append(out, ck)
				}
			}
		}
	}
	return out
}

// explainCheck tags a disagreement. When configs of another istiod revision are in the
// scenario, the plugin is re-run on the objects that revision reads; if that verdict matches
// istiod, the revision mechanism alone explains the disagreement, otherwise the remaining
// mechanisms are evaluated on the filtered input.
func explainCheck(t *testing.T, sc *scenario, snap *snapshot.Snapshot, ck check, gv *checks.GatewayVerdict, p proxySpec, port uint32, filter, known bool) []string {
	if !revisionLabelled(snap, p.rev) {
		return explain(snap, ck, gv, p.rev)
	}
	var fv *bool
	if !known {
		fv = &filter
	}
	fsnap, err := pluginSnapshot(filterRevision(sc.YAML, p.rev), fv)
	if err != nil {
		return explain(snap, ck, gv, p.rev)
	}
	rep, err := checks.WhyMissing(fsnap, checks.WhyMissingOptions{Host: ck.host, Port: port, Gateway: p.ref})
	if err != nil {
		return explain(snap, ck, gv, p.rev)
	}
	fg := rep.Gateways[0]
	present := false
	for _, c := range fg.Clusters {
		if c.Name == ck.cluster {
			present = c.Present
		}
	}
	if present == ck.istiod {
		return []string{tagRevision}
	}
	fck := ck
	fck.plugin = present
	return explain(fsnap, fck, &fg, p.rev)
}

// filterRevision drops Istio objects labelled for another istiod revision than rev.
func filterRevision(all, rev string) string {
	docs, err := splitDocs(all)
	if err != nil {
		return all
	}
	var keep []string
	for _, d := range docs {
		if v, ok := d.labels["istio.io/rev"]; ok && isIstioGroup(d.apiVersion) && v != rev {
			continue
		}
		keep = append(keep, d.text)
	}
	return strings.Join(keep, "\n---\n")
}

// seShape describes the entries for host h: resolution and where endpoints come from.
func seShape(snap *snapshot.Snapshot, h string) string {
	var shapes []string
	for _, se := range snap.ServiceEntries {
		for _, sh := range se.Spec.Hosts {
			if rules.NormalizeHost(sh) != h {
				continue
			}
			sh := se.Spec.Resolution.String()
			switch {
			case len(se.Spec.Endpoints) > 0:
				sh += " with endpoints"
			case se.Spec.WorkloadSelector != nil:
				sh += " with workloadSelector"
			}
			shapes = append(shapes, sh)
		}
	}
	return strings.Join(shapes, "+")
}

// subsetsFor returns the subset names DestinationRules define for host h (exact or wildcard
// host) and the subsets VirtualService destinations name for it.
func subsetsFor(snap *snapshot.Snapshot, h string) []string {
	set := map[string]bool{}
	for _, dr := range snap.DestinationRules {
		dh := strings.ToLower(rules.ResolveShortname(dr.Spec.GetHost(), dr.Namespace))
		if dh == h || (strings.HasPrefix(dh, "*") && strings.HasSuffix(h, dh[1:])) {
			for _, s := range dr.Spec.GetSubsets() {
				set[s.GetName()] = true
			}
		}
	}
	for _, vs := range snap.VirtualServices {
		for _, r := range vs.Spec.GetHttp() {
			for _, d := range r.GetRoute() {
				if strings.EqualFold(d.GetDestination().GetHost(), h) && d.GetDestination().GetSubset() != "" {
					set[d.GetDestination().GetSubset()] = true
				}
			}
		}
		for _, r := range vs.Spec.GetTls() {
			for _, d := range r.GetRoute() {
				if strings.EqualFold(d.GetDestination().GetHost(), h) && d.GetDestination().GetSubset() != "" {
					set[d.GetDestination().GetSubset()] = true
				}
			}
		}
		for _, r := range vs.Spec.GetTcp() {
			for _, d := range r.GetRoute() {
				if strings.EqualFold(d.GetDestination().GetHost(), h) && d.GetDestination().GetSubset() != "" {
					set[d.GetDestination().GetSubset()] = true
				}
			}
		}
	}
	return sortedSet(set)
}

// parseCluster splits "outbound|port|subset|host".
func parseCluster(n string) (uint32, string, string, bool) {
	parts := strings.SplitN(n, "|", 4)
	if len(parts) != 4 || parts[0] != "outbound" {
		return 0, "", "", false
	}
	p, err := strconv.ParseUint(parts[1], 10, 32)
	if err != nil {
		return 0, "", "", false
	}
	return uint32(p), parts[2], parts[3], true
}

func sortedSet(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func sortedPorts(m map[uint32]bool) []uint32 {
	out := make([]uint32, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

func writeCaseTable(w *strings.Builder, rs []*result) {
	if len(rs) == 0 {
		return
	}
	fmt.Fprintf(w, "CASE FILES\n%-72s %-14s %-12s %-12s %-12s %s\n", "CASE", "STATUS", "CLUSTERS", "ROUTE CALLS", "AUDIT", "LISTENER CALLS")
	agree, total, rAgree, rTotal, aAgree, aTotal := 0, 0, 0, 0, 0, 0
	for _, r := range rs {
		a := 0
		for _, c := range r.checks {
			if c.agree() {
				a++
			}
		}
		agree += a
		total += len(r.checks)
		ra := 0
		for _, c := range r.routeChecks {
			if c.agree() {
				ra++
			}
		}
		rAgree += ra
		rTotal += len(r.routeChecks)
		aa := 0
		for _, c := range r.auditChecks {
			if c.agree() {
				aa++
			}
		}
		aAgree += aa
		aTotal += len(r.auditChecks)
		la, lt := listenerTotals([]*result{r})
		st := r.status
		if st == "compared" && (r.disagreement > 0 || r.routeDisagreement > 0 || r.auditDisagreement > 0 || r.listenerDisagreement > 0) {
			st = "DISAGREE"
		}
		if st == "compared" && len(r.checks) == 0 {
			st = "nothing"
			r.detail = "no ServiceEntry: no cluster to compare"
		}
		fmt.Fprintf(w, "%-72s %-14s %-12s %-12s %-12s %d/%d", r.sc.Name, st, fmt.Sprintf("%d/%d", a, len(r.checks)), fmt.Sprintf("%d/%d", ra, len(r.routeChecks)), fmt.Sprintf("%d/%d", aa, len(r.auditChecks)), la, lt)
		if r.detail != "" {
			fmt.Fprintf(w, "  (%s)", oneLine(r.detail, 100))
		}
		w.WriteString("\n")
	}
	la, lt := listenerTotals(rs)
	fmt.Fprintf(w, "%-72s %-14s %-12s %-12s %-12s %d/%d\n\n", "all case files", "", fmt.Sprintf("%d/%d", agree, total), fmt.Sprintf("%d/%d", rAgree, rTotal), fmt.Sprintf("%d/%d", aAgree, aTotal), la, lt)
}

type tally struct{ agree, total, scAgree, scTotal, unexplained int }

// dimCheck is one compared item as the dimension tables see it: its values for the extra
// (per-check) dimensions, and whether it agreed.
type dimCheck struct {
	extra       map[string]string
	agree       bool
	unexplained bool
}

// dimTable is one dimension's tallies, values in declaration order.
type dimTable struct {
	name   string
	values []string
	tal    map[string]*tally
}

// tallyDimensions counts, for every matrix dimension and every extra per-check dimension, the
// agreeing checks and scenarios per value. checks lists a compared scenario's items;
// scenarioAgrees says whether all of them agreed.
func tallyDimensions(rs []*result, extra []dimension, checks func(*result) []dimCheck, scenarioAgrees func(*result) bool) []dimTable {
	isExtra := map[string]bool{}
	for _, d := range extra {
		isExtra[d.name] = true
	}
	var out []dimTable
	for _, d := range append(append([]dimension{}, dimensions...), extra...) {
		t := dimTable{name: d.name, tal: map[string]*tally{}}
		for _, v := range d.values {
			if _, ok := t.tal[v]; !ok {
				t.tal[v] = &tally{}
				t.values = append(t.values, v)
			}
		}
		for _, r := range rs {
			if r.status != "compared" {
				continue
			}
			scVals := map[string]bool{}
			for _, c := range checks(r) {
				v := r.sc.Dims[d.name]
				if isExtra[d.name] {
					v = c.extra[d.name]
				}
				tl := t.tal[v]
				if tl == nil {
					// A value the column does not list (e.g. "n/a" where a dimension does not
					// apply): shown after the listed ones.
					tl = &tally{}
					t.tal[v] = tl
					t.values = append(t.values, v)
				}
				tl.total++
				if c.agree {
					tl.agree++
				} else if c.unexplained {
					tl.unexplained++
				}
				scVals[v] = true
			}
			for v := range scVals {
				t.tal[v].scTotal++
				if scenarioAgrees(r) {
					t.tal[v].scAgree++
				}
			}
		}
		out = append(out, t)
	}
	return out
}

func writeDimensionTables(w *strings.Builder, rs []*result) {
	if len(rs) == 0 {
		return
	}
	status := map[string]int{}
	agree, total, scAgree, scCompared := 0, 0, 0, 0
	for _, r := range rs {
		status[r.status]++
		if r.status != "compared" {
			continue
		}
		scCompared++
		if r.disagreement == 0 {
			scAgree++
		}
		for _, c := range r.checks {
			total++
			if c.agree() {
				agree++
			}
		}
	}
	fmt.Fprintf(w, "GENERATED MATRIX: %d scenarios: %d compared, %d invalid, %d not-checkable, %d errors\n",
		len(rs), status["compared"], status["invalid"], status["not-checkable"], status["error"])
	fmt.Fprintf(w, "clusters agreeing: %d/%d; scenarios agreeing on every cluster: %d/%d\n", agree, total, scAgree, scCompared)
	var conf [2][2]int
	for _, r := range rs {
		for _, c := range r.checks {
			conf[b2i(c.plugin)][b2i(c.istiod)]++
		}
	}
	fmt.Fprintf(w, "verdicts (plugin/istiod): present/present %d, absent/absent %d, present/absent %d, absent/present %d\n",
		conf[1][1], conf[0][0], conf[1][0], conf[0][1])
	w.WriteString("CLUSTERS and SCENARIOS are agree/total; UNEXPLAINED counts disagreements no known mechanism explains (classify_test.go).\n\n")
	for _, r := range rs {
		if r.status == "invalid" || r.status == "error" {
			fmt.Fprintf(w, "  %s %s: %s\n", r.status, r.sc.Name, oneLine(r.detail, 160))
		}
	}
	extra := []dimension{{"proxy", []string{"gateway-ns", "other-ns"}}, {"cluster", []string{"default", "subset"}}}
	tables := tallyDimensions(rs, extra, func(r *result) []dimCheck {
		var out []dimCheck
		for _, c := range r.checks {
			kind := "default"
			if c.subset != "" {
				kind = "subset"
			}
			out = append(out, dimCheck{extra: map[string]string{"proxy": c.role, "cluster": kind}, agree: c.agree(),
				unexplained: len(c.tags) == 1 && c.tags[0] == tagUnexplained})
		}
		return out
	}, func(r *result) bool { return r.disagreement == 0 })
	for _, t := range tables {
		d, order, tal := t, t.values, t.tal
		fmt.Fprintf(w, "%-22s %-28s %-12s %-12s %s\n", strings.ToUpper(d.name), "VALUE", "CLUSTERS", "SCENARIOS", "UNEXPLAINED")
		for _, v := range order {
			tl := tal[v]
			fmt.Fprintf(w, "%-22s %-28s %-12s %-12s %d\n", "", v, fmt.Sprintf("%d/%d", tl.agree, tl.total), fmt.Sprintf("%d/%d", tl.scAgree, tl.scTotal), tl.unexplained)
		}
		w.WriteString("\n")
	}
}

func writeDisagreements(w *strings.Builder, outDir string, rs []*result) int {
	n := 0
	for _, r := range rs {
		if r.disagreement == 0 && r.routeDisagreement == 0 && r.auditDisagreement == 0 && r.visDisagreement == 0 && r.listenerDisagreement == 0 && r.configDisagreement == 0 && r.pathDisagreement == 0 && r.misrouteDisagreement == 0 {
			continue
		}
		file := filepath.Join(outDir, strings.ReplaceAll(r.sc.Name, "/", "_")+".yaml")
		var hdr strings.Builder
		fmt.Fprintf(&hdr, "# conformance reproducer: %s (seed %d)\n", r.sc.Name, *seedFlag)
		fmt.Fprintf(&hdr, "# re-run against istiod: cd hack/conformance && EGRESS_CASES_DIR=<dir with this file> go test -run TestConformance -v . -args -n 0\n")
		if len(r.sc.Gateways) > 0 {
			fmt.Fprintf(&hdr, "# conformance-gateways: %s\n", strings.Join(r.sc.Gateways, ", "))
		}
		if len(r.sc.Dims) > 0 {
			for _, d := range dimensions {
				fmt.Fprintf(&hdr, "#   %s = %s\n", d.name, r.sc.Dims[d.name])
			}
		}
		if n == 0 {
			w.WriteString("DISAGREEMENTS\n")
		}
		for _, c := range r.checks {
			if c.agree() {
				continue
			}
			n++
			flagSrc := "from the istiod Deployment"
			if !c.flagKnown {
				flagSrc = "--filter-gateway-clusters (no istiod Deployment)"
			}
			line := fmt.Sprintf("%s [%s] gateway %s (%s) PILOT_FILTER_GATEWAY_CLUSTER_CONFIG=%t (%s) PILOT_SCOPE_GATEWAY_TO_NAMESPACE=%t cluster %s: plugin %s (listed=%t cause=%s reason=%q) vs istiod %s",
				r.sc.Name, strings.Join(c.tags, "+"), c.gateway, c.role, c.filter, flagSrc, c.scope, c.cluster, word(c.plugin), c.listed, c.cause, c.reason, word(c.istiod))
			fmt.Fprintf(&hdr, "# DISAGREE: %s\n", strings.TrimPrefix(line, r.sc.Name+" "))
			cmd := fmt.Sprintf("#   plugin: kubectl egress why-missing %s --port %d --gateway %s -f %s", c.host, c.port, c.gateway, filepath.Base(file))
			if !c.flagKnown {
				cmd += fmt.Sprintf(" --filter-gateway-clusters=%t", c.filter)
			}
			fmt.Fprintf(&hdr, "%s\n", cmd)
			fmt.Fprintf(w, "  %s\n    reproducer: %s\n", line, file)
		}
		for _, c := range r.auditChecks {
			if c.agree() {
				continue
			}
			n++
			line := fmt.Sprintf("%s [audit] %s", r.sc.Name, c)
			fmt.Fprintf(&hdr, "# DISAGREE: %s\n#   plugin: kubectl egress export-audit -f %s\n", strings.TrimPrefix(line, r.sc.Name+" "), filepath.Base(file))
			fmt.Fprintf(w, "  %s\n    reproducer: %s\n", line, file)
		}
		for _, c := range r.routeChecks {
			if c.agree() {
				continue
			}
			n++
			line := fmt.Sprintf("%s [route] %s", r.sc.Name, c)
			fmt.Fprintf(&hdr, "# DISAGREE: %s\n", strings.TrimPrefix(line, r.sc.Name+" "))
			cmd := fmt.Sprintf("#   plugin: kubectl egress why-missing %s --gateway %s -f %s -o yaml   (routes on port %d)", c.host, c.gateway, filepath.Base(file), c.serverPort)
			if !c.flagKnown {
				cmd += fmt.Sprintf(" --filter-gateway-clusters=%t", c.filter)
			}
			fmt.Fprintf(&hdr, "%s\n", cmd)
			fmt.Fprintf(w, "  %s\n    reproducer: %s\n", line, file)
		}
		for _, c := range r.visChecks {
			if c.agree() {
				continue
			}
			n++
			line := fmt.Sprintf("%s [visibility] %s", r.sc.Name, c)
			fmt.Fprintf(&hdr, "# DISAGREE: %s\n#   plugin: kubectl egress visibility --as-namespace %s -f %s -o yaml   (entry %s/%s)\n",
				strings.TrimPrefix(line, r.sc.Name+" "), c.asNs, filepath.Base(file), c.seNs, c.seName)
			fmt.Fprintf(w, "  %s\n    reproducer: %s\n", line, file)
		}
		for _, c := range r.listenerChecks {
			if c.agree() {
				continue
			}
			n++
			line := fmt.Sprintf("%s [listener] %s", r.sc.Name, c)
			fmt.Fprintf(&hdr, "# DISAGREE: %s\n#   plugin: checks.BuildSidecarView(snap of %s, %q, {app: conformance-client}).Outbound.Resolve(rules.Call{Host: %q, Port: %d, Kind: %q, Address: %q})   (%s)\n",
				strings.TrimPrefix(line, r.sc.Name+" "), filepath.Base(file), c.ns, c.host, c.port, c.kind, c.address, orDash(c.ref))
			fmt.Fprintf(w, "  %s\n    reproducer: %s\n", line, file)
		}
		// A traced call that disagrees: its line and the why-missing --from command.
		traced := func(tag, desc, host string, port uint32, ns, kind string) {
			n++
			line := fmt.Sprintf("%s [%s] %s", r.sc.Name, tag, desc)
			fmt.Fprintf(&hdr, "# DISAGREE: %s\n#   plugin: kubectl egress why-missing %s --port %d --from %s --call %s -f %s\n", strings.TrimPrefix(line, r.sc.Name+" "), host, port, ns, kind, filepath.Base(file))
			fmt.Fprintf(w, "  %s\n    reproducer: %s\n", line, file)
		}
		for _, c := range r.misrouteChecks {
			if !c.agree() {
				traced("misroute", c.String(), c.host, c.port, c.ns, c.kind)
			}
		}
		for _, c := range r.pathChecks {
			if !c.agree() {
				traced("path", c.String(), c.host, c.port, c.ns, c.kind)
			}
		}
		for _, c := range r.configChecks {
			if c.agree() {
				continue
			}
			n++
			line := fmt.Sprintf("%s [config] %s", r.sc.Name, c)
			kind, ref, _ := strings.Cut(c.proxy, " ")
			flag := "--gateway " + ref
			if kind == "sidecar" {
				flag = "--from " + ref
			}
			fmt.Fprintf(&hdr, "# DISAGREE: %s\n#   plugin: kubectl egress proxy-config all %s -f %s --offline\n", strings.TrimPrefix(line, r.sc.Name+" "), flag, filepath.Base(file))
			fmt.Fprintf(w, "  %s\n    reproducer: %s\n", line, file)
		}
		_ = os.WriteFile(file, []byte(hdr.String()+"---\n"+r.sc.YAML), 0o644)
	}
	if n == 0 {
		w.WriteString("DISAGREEMENTS: none\n")
		return 0
	}
	classes := map[string][]string{}
	for _, r := range rs {
		for _, c := range r.checks {
			if !c.agree() {
				k := c.class()
				classes[k] = append(classes[k], r.sc.Name)
			}
		}
		for _, c := range r.auditChecks {
			if !c.agree() {
				k := "[audit] " + c.code + ": istiod has it"
				if c.code == auditSubsetVisible || c.code == auditSEExported {
					k = "[audit] " + c.code + ": istiod lacks it"
				}
				classes[k] = append(classes[k], r.sc.Name)
			}
		}
		for _, c := range r.visChecks {
			if !c.agree() {
				k := "[visibility] " + c.class()
				classes[k] = append(classes[k], r.sc.Name)
			}
		}
		for _, c := range r.routeChecks {
			if !c.agree() {
				k := "[route] " + c.class()
				classes[k] = append(classes[k], r.sc.Name)
			}
		}
		for _, c := range r.listenerChecks {
			if !c.agree() {
				k := "[listener] " + c.class()
				classes[k] = append(classes[k], r.sc.Name)
			}
		}
		for _, c := range r.configChecks {
			for _, d := range c.diffs {
				k := "[config] " + strings.Fields(c.proxy)[0] + " " + d.Section + " " + d.State
				classes[k] = append(classes[k], r.sc.Name)
			}
			if c.err != "" {
				classes["[config] error"] = append(classes["[config] error"], r.sc.Name)
			}
		}
	}
	w.WriteString("\nDISAGREEMENT CLASSES ([mechanisms] cluster kind: verdicts; see docs/conformance.md)\n")
	for _, k := range sortedKeysSlice(classes) {
		scs := map[string]bool{}
		for _, s := range classes[k] {
			scs[s] = true
		}
		names := sortedSet(scs)
		ex := names
		if len(ex) > 5 {
			ex = ex[:5]
		}
		fmt.Fprintf(w, "  %4d clusters in %3d scenarios  %s\n        e.g. %s\n", len(classes[k]), len(names), k, strings.Join(ex, ", "))
	}
	return n
}

func sortedKeysSlice(m map[string][]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func word(p bool) string {
	if p {
		return "PRESENT"
	}
	return "ABSENT"
}

func oneLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > max {
		s = s[:max] + "…"
	}
	return s
}

// caseScenarios reads the repository's case fixtures always, and the shared acceptance set too
// when it is present (EGRESS_CASES_DIR, else ../shared/cases beside the repository).
func caseScenarios(t *testing.T) ([]scenario, error) {
	// The repository's case fixtures always; the shared acceptance set too when it is present
	// (EGRESS_CASES_DIR, else ../shared/cases beside the repository).
	var cases []scenario
	sets := []struct{ prefix, dir string }{{"case/", repoCasesDir}}
	shared, err := sharedCasesDir()
	if err != nil {
		return nil, err
	}
	if shared != "" {
		sets = append(sets, struct{ prefix, dir string }{"shared/", shared})
	} else {
		t.Logf("no shared acceptance set (EGRESS_CASES_DIR unset, no ../shared/cases): the repository's cases only")
	}
	for _, set := range sets {
		files, _ := filepath.Glob(filepath.Join(set.dir, "*.yaml"))
		sort.Strings(files)
		if len(files) == 0 {
			t.Errorf("no case files in %s", set.dir)
		}
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				return nil, err
			}
			// ClusterIP Services without spec.clusterIP get one, as the API server assigns it
			// (assignClusterIPs; docs/conformance.md, harness fixes).
			sc := scenario{Name: set.prefix + strings.TrimSuffix(filepath.Base(f), ".yaml"), YAML: assignClusterIPs(string(b))}
			// Reproducers name the gateway workloads they compared.
			for _, line := range strings.Split(sc.YAML, "\n") {
				if g, ok := strings.CutPrefix(line, "# conformance-gateways: "); ok {
					sc.Gateways = strings.Fields(strings.ReplaceAll(g, ",", " "))
				}
			}
			cases = append(cases, sc)
		}
	}
	return cases, nil
}
