package conformance

// Whole proxy configs (sixth comparison kind): for every gateway and every client sidecar of a
// scenario, istiod's generated clusters, listeners and routes are serialised as an Envoy config
// dump (simDump) and compared with the plugin's whole prediction (checks.ProxyConfig /
// SidecarProxyConfig) by checks.DiffProxyConfig — the same code as `proxy-config --diff`:
// every outbound cluster by name and type, every listener by name and filter chain
// destinations, every route configuration by name and virtual host domains.

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/kubectl-egress/kubectl-egress/pkg/checks"
	"github.com/kubectl-egress/kubectl-egress/pkg/envoy"
	"github.com/kubectl-egress/kubectl-egress/pkg/snapshot"
)

// configCheck is the comparison of one proxy's whole config.
type configCheck struct {
	proxy    string // "gateway ns/name" or "sidecar ns"
	compared map[string]int
	diffs    []checks.ResourceDiff
	err      string
}

func (c configCheck) agree() bool { return c.err == "" && len(c.diffs) == 0 }

func (c configCheck) String() string {
	if c.err != "" {
		return c.proxy + ": " + c.err
	}
	var parts []string
	for _, d := range c.diffs {
		parts = append(parts, fmt.Sprintf("%s %s %s (%s)", strings.TrimSuffix(d.Section, "s"), d.Name, d.State, d.Detail))
	}
	return c.proxy + ": " + strings.Join(parts, "; ")
}

// compareConfigs compares every gateway (proxies) and client sidecar (clients) istiod built for
// one revision and flag value with the plugin's prediction on snap.
func compareConfigs(t *testing.T, snap *snapshot.Snapshot, proxies, clients []proxySpec, out *istiodOut) []configCheck {
	var res []configCheck
	compare := func(name string, rep *checks.ProxyConfigReport, sim *proxySim) {
		c := configCheck{proxy: name}
		b, _ := simDump(t, sim.sim, "")
		d, err := envoy.ParseConfigDump(b)
		if err != nil {
			c.err = "istiod's dump does not parse: " + err.Error()
			res = append(res, c)
			return
		}
		diff := checks.DiffProxyConfig(rep, d, "istiod", nil)
		c.compared, c.diffs = diff.Compared, diff.Differences
		if strings.HasPrefix(name, "gateway ") {
			// the order of a gateway virtual host's routes (GATEWAY_ROUTE_SHADOWED rests on it)
			n, diffs := routeOrderDiffs(rep, d)
			c.compared["route orders"] = n
			c.diffs = append(c.diffs, diffs...)
		}
		res = append(res, c)
	}
	for _, p := range proxies {
		sim := out.sims[p.ref]
		if sim == nil {
			continue
		}
		rep, err := checks.ProxyConfig(snap, checks.ProxyConfigOptions{Gateway: p.ref})
		if err != nil {
			res = append(res, configCheck{proxy: "gateway " + p.ref, err: "plugin: " + err.Error()})
			continue
		}
		compare("gateway "+p.ref, rep, sim)
	}
	for _, p := range clients {
		sim := out.sidecarSims[p.ns]
		if sim == nil {
			continue
		}
		rep := checks.SidecarProxyConfig(snap, p.ns, p.labels)
		if p.podRef != "" {
			// The scenario's own client Pod (its proxy.istio.io/config annotation, dns_test.go).
			var err error
			if rep, err = checks.ProxyConfig(snap, checks.ProxyConfigOptions{Pod: p.podRef}); err != nil {
				res = append(res, configCheck{proxy: "sidecar " + p.ns, err: "plugin: " + err.Error()})
				continue
			}
		}
		compare("sidecar "+p.ns, rep, sim)
	}
	return res
}

// routeOrderDiffs compares, for every virtual host of the plugin's predicted route
// configurations that istiod's dump has too, the clusters of its routes in order (a route
// splitting by weight counts each of its clusters): istiod's order of the VirtualServices bound
// to a gateway, with catch-all routes moved last (route.go SortVHostRoutes), decides which route
// takes a request. It returns the virtual hosts compared and the differences.
func routeOrderDiffs(rep *checks.ProxyConfigReport, d *envoy.Dump) (int, []checks.ResourceDiff) {
	actual := map[string][]string{}
	for _, rc := range d.Routes {
		for _, vh := range rc.VirtualHosts {
			actual[rc.Name+"/"+vh.Name] = vh.Clusters
		}
	}
	n := 0
	var out []checks.ResourceDiff
	for _, rc := range rep.Routes {
		for _, vh := range rc.VirtualHosts {
			a, ok := actual[rc.Name+"/"+vh.Name]
			if !ok {
				continue
			}
			var p []string
			for _, r := range vh.Routes {
				switch {
				case len(r.Weighted) > 0:
					p = append(p, r.Weighted...)
				case r.Cluster != "":
					p = append(p, r.Cluster)
				}
			}
			n++
			if !slices.Equal(p, a) {
				out = append(out, checks.ResourceDiff{Section: checks.SectionRoutes, Name: rc.Name + "/" + vh.Name, State: checks.DiffDifferent,
					Detail: fmt.Sprintf("route order: predicted %s, istiod %s", strings.Join(p, " "), strings.Join(a, " "))})
			}
		}
	}
	return n, out
}

// writeConfigTables reports whole-config agreement per resource kind: resources compared on the
// plugin's side, and those that differ (missing from istiod, extra in istiod, different).
func writeConfigTables(w *strings.Builder, label string, rs []*result) {
	compared := map[string]int{}
	differ := map[string]int{}
	proxies, agree := 0, 0
	merges, mergeHosts, mergeDiffer := 0, 0, 0
	for _, r := range rs {
		for _, c := range r.configChecks {
			if c.proxy == drMergeProxy {
				merges++
				mergeHosts += c.compared["duplicate subsets"]
				mergeDiffer += len(c.diffs)
				continue
			}
			proxies++
			if c.agree() {
				agree++
			}
			for k, n := range c.compared {
				compared[k] += n
			}
			for _, d := range c.diffs {
				differ[d.Section+" "+d.State]++
			}
		}
	}
	if proxies == 0 {
		return
	}
	fmt.Fprintf(w, "WHOLE PROXY CONFIGS, %s (checks.ProxyConfig vs istiod's CDS/LDS/RDS through checks.DiffProxyConfig)\n", label)
	fmt.Fprintf(w, "proxies agreeing on every resource: %d/%d\n", agree, proxies)
	for _, s := range []string{checks.SectionClusters, checks.SectionListeners, checks.SectionRoutes} {
		fmt.Fprintf(w, "%s: %d predicted; missing from istiod %d, extra in istiod %d, different %d\n", s, compared[s],
			differ[s+" "+checks.DiffMissing], differ[s+" "+checks.DiffExtra], differ[s+" "+checks.DiffDifferent])
	}
	fmt.Fprintf(w, "gateway virtual hosts whose route order was compared (counted in routes, different): %d\n", compared["route orders"])
	fmt.Fprintf(w, "DestinationRule merges (istiod's duplicate-subset metric vs rules.DRLookup.MergeDrops): %d pushes, %d hosts dropping a subset, %d differ\n", merges, mergeHosts, mergeDiffer)
	w.WriteString("\n")
}
