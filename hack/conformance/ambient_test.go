package conformance

// Ambient: which waypoint istiod binds each ServiceEntry to, and the addresses ztunnel knows each
// host by. The plugin's prediction is checks.Visibility's per-entry Waypoint, WaypointRefused and
// AmbientAddresses (rules.BindWaypoint, rules.AmbientAddresses, serviceEntryVisibility); istiod's
// is its own ambient index (pilot/pkg/serviceregistry/ambient, run by the fake discovery server
// with PILOT_ENABLE_AMBIENT): model.AmbientIndexes.ServiceInfo("<namespace>/<host>"), its
// Waypoint.ResourceName and Waypoint.Error.Reason (the istio.io/WaypointBound condition), and its
// Service.Addresses. An entry istiod does not publish (visibility NONE) has no ServiceInfo.
//
// Generated: waypoints (Gateways) of class istio-waypoint, another Istio class, or a GatewayClass
// object carrying istio.io/waypoint-for; the traffic type on the Gateway (service, all,
// workload, none, absent); the HBONE listener's allowedRoutes (absent, Same, All, a Selector that
// matches or not, a Selector without a selector); ready (status addresses) or not (status
// conditions only); entries labelled istio.io/use-waypoint (a waypoint, a missing one, "none",
// empty) with or without istio.io/use-waypoint-namespace, or bound through their namespace's
// labels, or managed by the mesh controller; resolution DNS, STATIC, NONE, DYNAMIC_DNS (a
// wildcard host); spec addresses (IPs, a CIDR) or status addresses with and without the
// opt-out label; PILOT_ENABLE_IP_AUTOALLOCATE on or off; serviceEntryVisibility unset, a
// NAMESPACE default, or a NONE policy for some namespaces.

import (
	"fmt"
	"math/rand"
	"net/netip"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"istio.io/istio/pilot/pkg/features"
	"istio.io/istio/pilot/test/xds"
	"istio.io/istio/pkg/config/mesh"
	istiolog "istio.io/istio/pkg/log"
	"istio.io/istio/pkg/test"

	"github.com/kubectl-egress/kubectl-egress/pkg/checks"
	"github.com/kubectl-egress/kubectl-egress/pkg/loader"
	"sigs.k8s.io/yaml"
)

// ambientScenario is one generated input, its mesh config text and the allocator flag.
type ambientScenario struct {
	name, yaml, meshText string
	autoallocate         bool
	// entries lists "namespace/name" → hosts, for the comparison.
	entries map[string][]string
}

// generateAmbient builds n scenarios from seed.
func generateAmbient(seed int64, n int) []ambientScenario {
	rng := rand.New(rand.NewSource(seed ^ 0x616d6269656e74)) // "ambient"
	pick := func(v ...string) string { return v[rng.Intn(len(v))] }
	var out []ambientScenario
	for i := 0; i < n; i++ {
		sc := ambientScenario{name: fmt.Sprintf("ambient-%04d", i), entries: map[string][]string{}, autoallocate: rng.Intn(4) != 0}
		var b strings.Builder
		add := func(format string, a ...any) {
			fmt.Fprintf(&b, format, a...)
			b.WriteString("\n---\n")
		}
		ts := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		next := func() string { ts = ts.Add(time.Minute); return ts.Format(time.RFC3339) }

		// Namespaces: ext and other hold entries, wp holds waypoints (ext may too).
		nsLabels := map[string][]string{
			"ext":   {"tier: " + pick("gold", "silver", "bronze")},
			"other": {"tier: " + pick("gold", "silver", "bronze")},
			"wp":    {"tier: gold"},
		}
		switch pick("none", "none", "ns-label", "ns-label-other-ns", "ns-none") {
		case "ns-label":
			nsLabels["ext"] = append(nsLabels["ext"], "istio.io/use-waypoint: "+pick("wp1", "wp1", "missing"))
		case "ns-label-other-ns":
			nsLabels["ext"] = append(nsLabels["ext"], "istio.io/use-waypoint: "+pick("wp1", "wp2"), "istio.io/use-waypoint-namespace: wp")
		case "ns-none":
			nsLabels["ext"] = append(nsLabels["ext"], "istio.io/use-waypoint: none")
		}
		if rng.Intn(3) == 0 {
			nsLabels["other"] = append(nsLabels["other"], "istio.io/use-waypoint: wp1", "istio.io/use-waypoint-namespace: "+pick("wp", "ext"))
		}
		for _, ns := range []string{"ext", "other", "wp"} {
			add("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: %s\n  labels: {%s}", ns, strings.Join(nsLabels[ns], ", "))
		}
		add("apiVersion: v1\nkind: Namespace\nmetadata: {name: istio-system}")

		// A GatewayClass object for a custom waypoint class, sometimes with a traffic type.
		if rng.Intn(2) == 0 {
			lbl := ""
			if tt := pick("", "service", "all", "workload"); tt != "" {
				lbl = "\n  labels: {istio.io/waypoint-for: " + tt + "}"
			}
			add("apiVersion: gateway.networking.k8s.io/v1\nkind: GatewayClass\nmetadata:\n  name: custom-waypoint%s\nspec:\n  controllerName: istio.io/mesh-controller", lbl)
		}

		// Waypoints wp1 (in wp or ext) and wp2 (in wp).
		wpNs := map[string]string{}
		for j, name := range []string{"wp1", "wp2"} {
			if j == 1 && rng.Intn(6) == 0 {
				continue
			}
			ns := "wp"
			if j == 0 && rng.Intn(2) == 0 {
				ns = "ext"
			}
			wpNs[name] = ns
			class := pick("istio-waypoint", "istio-waypoint", "istio-waypoint", "custom-waypoint", "istio")
			labels := ""
			if tt := pick("", "", "", "service", "all", "all", "workload", "none"); tt != "" {
				labels = "\n  labels: {istio.io/waypoint-for: " + tt + "}"
			}
			allowed := ""
			switch pick("absent", "absent", "Same", "All", "All", "All", "selector-gold", "selector-silver", "selector-none") {
			case "Same":
				allowed = "\n    allowedRoutes: {namespaces: {from: Same}}"
			case "All":
				allowed = "\n    allowedRoutes: {namespaces: {from: All}}"
			case "selector-gold":
				allowed = "\n    allowedRoutes: {namespaces: {from: Selector, selector: {matchLabels: {tier: gold}}}}"
			case "selector-silver":
				allowed = "\n    allowedRoutes: {namespaces: {from: Selector, selector: {matchLabels: {tier: silver}}}}"
			case "selector-none":
				allowed = "\n    allowedRoutes: {namespaces: {from: Selector}}"
			}
			status := fmt.Sprintf("status:\n  addresses:\n  - {type: IPAddress, value: 10.96.%d.%d}", j, i%250+1)
			if rng.Intn(8) == 0 {
				// not ready: conditions but no addresses
				status = "status:\n  conditions:\n  - {type: Programmed, status: \"False\", reason: Pending, message: waiting, lastTransitionTime: \"2026-01-01T00:00:00Z\"}"
			}
			add("apiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata:\n  name: %s\n  namespace: %s\n  creationTimestamp: %s%s\nspec:\n  gatewayClassName: %s\n  listeners:\n  - name: mesh\n    port: 15008\n    protocol: HBONE%s\n%s",
				name, ns, next(), labels, class, allowed, status)
		}

		// Entries.
		nEntries := 2 + rng.Intn(3)
		for k := 0; k < nEntries; k++ {
			ns := pick("ext", "ext", "other")
			name := fmt.Sprintf("se%d", k)
			var labels []string
			switch pick("none", "wp1", "wp1", "wp1", "wp2", "wp2", "missing", "opt-out", "empty", "managed") {
			case "wp1":
				labels = append(labels, "istio.io/use-waypoint: wp1")
			case "wp2":
				labels = append(labels, "istio.io/use-waypoint: wp2")
			case "missing":
				labels = append(labels, "istio.io/use-waypoint: wp3")
			case "opt-out":
				labels = append(labels, "istio.io/use-waypoint: none")
			case "empty":
				labels = append(labels, `istio.io/use-waypoint: ""`)
			case "managed":
				labels = append(labels, "gateway.istio.io/managed: istio.io-mesh-controller")
			}
			if len(labels) > 0 && strings.HasPrefix(labels[0], "istio.io/use-waypoint: wp") {
				// mostly the waypoint's own namespace, sometimes a wrong one or none
				wp := strings.TrimPrefix(labels[0], "istio.io/use-waypoint: ")
				switch target := pick("right", "right", "right", "right", "wp", "ext", "other", "unset"); target {
				case "right":
					if n, ok := wpNs[wp]; ok && n != ns {
						labels = append(labels, "istio.io/use-waypoint-namespace: "+n)
					}
				case "unset":
				default:
					labels = append(labels, "istio.io/use-waypoint-namespace: "+target)
				}
			}
			if rng.Intn(6) == 0 {
				labels = append(labels, `networking.istio.io/enable-autoallocate-ip: "false"`)
			}
			res := pick("DNS", "DNS", "STATIC", "NONE", "DYNAMIC_DNS")
			hosts := []string{fmt.Sprintf("api%d.example.com", k)}
			if rng.Intn(3) == 0 {
				hosts = append(hosts, fmt.Sprintf("alt%d.example.com", k))
			}
			if res == "DYNAMIC_DNS" {
				hosts = []string{fmt.Sprintf("*.w%d.example.com", k)}
			}
			quoted := make([]string, len(hosts))
			for h, host := range hosts {
				quoted[h] = fmt.Sprintf("%q", host)
			}
			spec := fmt.Sprintf("  hosts: [%s]\n  location: MESH_EXTERNAL\n  resolution: %s\n  ports:\n  - {number: 80, name: http, protocol: HTTP}\n  - {number: 443, name: tls, protocol: TLS}", strings.Join(quoted, ", "), res)
			if res == "STATIC" {
				spec += "\n  endpoints:\n  - address: 203.0.113.10"
			}
			switch pick("none", "none", "ip", "cidr") {
			case "ip":
				spec += fmt.Sprintf("\n  addresses: [240.1.%d.%d]", k, i%250+1)
			case "cidr":
				spec += fmt.Sprintf("\n  addresses: [10.%d.%d.0/24]", k+1, i%250)
			}
			status := ""
			if rng.Intn(2) == 0 {
				var as []string
				for h, host := range hosts {
					as = append(as, fmt.Sprintf("  - {host: %q, value: 240.240.%d.%d}", host, k*4+h, i%250+1))
				}
				status = "\nstatus:\n  addresses:\n" + strings.Join(as, "\n")
			}
			lbl := ""
			if len(labels) > 0 {
				lbl = "\n  labels: {" + strings.Join(labels, ", ") + "}"
			}
			add("apiVersion: networking.istio.io/v1\nkind: ServiceEntry\nmetadata:\n  name: %s\n  namespace: %s\n  creationTimestamp: %s%s\nspec:\n%s%s",
				name, ns, next(), lbl, spec, status)
			sc.entries[ns+"/"+name] = hosts
		}

		// An entry no visibility policy hides (istio-system has no tier label): when every entry
		// resolves to NONE, the fake discovery server's first push never completes (a harness
		// limit, seen at seed 20261130 scenario 56; istiod itself is not at fault).
		add("apiVersion: networking.istio.io/v1\nkind: ServiceEntry\nmetadata:\n  name: probe\n  namespace: istio-system\n  creationTimestamp: %s\nspec:\n  hosts: [probe.example.com]\n  resolution: DNS\n  ports:\n  - {number: 80, name: http, protocol: HTTP}", next())
		sc.entries["istio-system/probe"] = []string{"probe.example.com"}

		// Mesh config and istiod.
		switch pick("none", "none", "default-namespace", "none-for-bronze", "namespace-for-silver") {
		case "default-namespace":
			sc.meshText = "serviceEntryVisibility:\n  defaultVisibility: NAMESPACE"
		case "none-for-bronze":
			sc.meshText = "serviceEntryVisibility:\n  defaultVisibility: PUBLIC\n  policies:\n  - visibility: NONE\n    matchingRules:\n    - namespaceSelector: {matchLabels: {tier: bronze}}"
		case "namespace-for-silver":
			sc.meshText = "serviceEntryVisibility:\n  policies:\n  - visibility: NAMESPACE\n    matchingRules:\n    - namespaceSelector: {matchLabels: {tier: silver}}"
		}
		if sc.meshText != "" {
			add("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: istio\n  namespace: istio-system\ndata:\n  mesh: |-\n    %s", strings.ReplaceAll(sc.meshText, "\n", "\n    "))
		}
		add("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: istiod\n  namespace: istio-system\n  labels: {app: istiod}\nspec:\n  selector:\n    matchLabels: {app: istiod}\n  template:\n    metadata:\n      labels: {app: istiod}\n    spec:\n      containers:\n      - name: discovery\n        image: docker.io/istio/pilot:1.31.0\n        env:\n        - {name: PILOT_ENABLE_AMBIENT, value: \"true\"}\n        - {name: PILOT_ENABLE_IP_AUTOALLOCATE, value: %q}", fmt.Sprint(sc.autoallocate))
		sc.yaml = strings.TrimSuffix(b.String(), "\n---\n") + "\n"
		out = append(out, sc)
	}
	return out
}

// ambientShape is one host of one entry as the comparison prints it.
func ambientShape(entry, host, binding string, addrs []string) string {
	sort.Strings(addrs)
	return fmt.Sprintf("%s %s: %s, addresses [%s]", entry, host, binding, strings.Join(addrs, " "))
}

// pluginAmbient is the plugin's prediction for a scenario.
func pluginAmbient(t *testing.T, sc ambientScenario) []string {
	snap, err := loader.FromFiles([]string{"-"}, strings.NewReader(sc.yaml), loader.Options{Lenient: true})
	if err != nil {
		t.Fatalf("%s: plugin loader: %v", sc.name, err)
	}
	var out []string
	for _, e := range checks.Visibility(snap, checks.VisibilityOptions{}).Entries {
		ref := e.Namespace + "/" + e.Name
		if e.Visibility == "NONE" {
			for _, h := range e.Hosts {
				out = append(out, ref+" "+h+": not published")
			}
			continue
		}
		binding := "no waypoint"
		switch {
		case e.Waypoint != "":
			binding = "waypoint " + e.Waypoint
		case e.WaypointRefused != "":
			binding = "refused " + e.WaypointRefused
		}
		for _, h := range e.Hosts {
			out = append(out, ambientShape(ref, h, binding, append([]string(nil), e.AmbientAddresses[h]...)))
		}
	}
	return out
}

// withPredictedStatus returns the scenario's YAML with, on every ServiceEntry whose addresses the
// plugin's file loader predicts (snapshot.PredictAllocations), the status.addresses it predicts.
func withPredictedStatus(text string) (string, error) {
	snap, err := loader.FromFiles([]string{"-"}, strings.NewReader(text), loader.Options{Lenient: true})
	if err != nil {
		return "", err
	}
	docs := strings.Split(text, "\n---\n")
	for i, d := range docs {
		var obj map[string]any
		if err := yaml.Unmarshal([]byte(d), &obj); err != nil || obj["kind"] != "ServiceEntry" {
			continue
		}
		md, _ := obj["metadata"].(map[string]any)
		ns, _ := md["namespace"].(string)
		name, _ := md["name"].(string)
		if ns == "" {
			ns = "default"
		}
		for _, se := range snap.ServiceEntries {
			if se.Namespace != ns || se.Name != name {
				continue
			}
			predicted := false
			var addrs []any
			for _, a := range se.Status.GetAddresses() {
				predicted = predicted || snap.Predicted(ns, name, a.GetHost())
				addrs = append(addrs, map[string]any{"host": a.GetHost(), "value": a.GetValue()})
			}
			if !predicted {
				continue
			}
			obj["status"] = map[string]any{"addresses": addrs}
			b, err := yaml.Marshal(obj)
			if err != nil {
				return "", err
			}
			docs[i] = strings.TrimSuffix(string(b), "\n")
		}
	}
	return strings.Join(docs, "\n---\n"), nil
}

// istiodAmbient is what istiod's ambient index holds for every entry host of a scenario.
func istiodAmbient(t *testing.T, sc ambientScenario) ([]string, error) {
	var out []string
	err := test.Wrap(func(tt test.Failer) {
		m := mesh.DefaultMeshConfig()
		if sc.meshText != "" {
			var err error
			if m, err = mesh.ApplyMeshConfigDefaults(sc.meshText); err != nil {
				tt.Fatalf("mesh config: %v", err)
			}
		}
		test.SetForTest(tt, &features.EnableAmbient, true)
		test.SetForTest(tt, &features.EnableIPAutoallocate, sc.autoallocate)
		// the addresses the plugin's file loader predicts istiod's allocator writes: the fake
		// server runs no allocator, so it gets them as the status a running one would have
		// written (as applyPredictedAddresses does for the sidecar harness)
		kubeYAML, err := withPredictedStatus(sc.yaml)
		if err != nil {
			tt.Fatalf("predicted status: %v", err)
		}
		s := xds.NewFakeDiscoveryServer(tt, xds.FakeOptions{KubernetesObjectString: kubeYAML, MeshConfig: m, KubeClientModifier: gatewayAPIBundleVersion})
		idx := s.Env().AmbientIndexes
		if synced, ok := idx.(interface{ HasSynced() bool }); ok {
			deadline := time.Now().Add(10 * time.Second)
			for !synced.HasSynced() && time.Now().Before(deadline) {
				time.Sleep(10 * time.Millisecond)
			}
		}
		refs := make([]string, 0, len(sc.entries))
		for ref := range sc.entries {
			refs = append(refs, ref)
		}
		sort.Strings(refs)
		for _, ref := range refs {
			ns, name, _ := strings.Cut(ref, "/")
			for _, h := range sc.entries[ref] {
				si := idx.ServiceInfo(ns + "/" + h)
				if si == nil {
					out = append(out, ref+" "+h+": not published")
					continue
				}
				if si.Service.GetName() != name {
					tt.Fatalf("harness: %s/%s is served by entry %s, not %s", ns, h, si.Service.GetName(), name)
				}
				binding := "no waypoint"
				switch {
				case si.Waypoint.Error != nil:
					binding = "refused " + si.Waypoint.Error.Reason
				case si.Waypoint.ResourceName != "":
					binding = "waypoint " + si.Waypoint.ResourceName
				}
				var addrs []string
				for _, a := range si.Service.GetAddresses() {
					ip, ok := netip.AddrFromSlice(a.GetAddress())
					if !ok {
						tt.Fatalf("harness: bad address %v", a.GetAddress())
					}
					if a.Length != nil {
						addrs = append(addrs, netip.PrefixFrom(ip, int(a.GetLength())).String())
					} else {
						addrs = append(addrs, ip.String())
					}
				}
				out = append(out, ambientShape(ref, h, binding, addrs))
			}
		}
	})
	return out, err
}

// TestConformanceAmbient compares, on generated scenarios, the waypoint each ServiceEntry is
// bound to (or why not) and the addresses of its hosts with istiod's ambient index.
func TestConformanceAmbient(t *testing.T) {
	for _, s := range istiolog.Scopes() {
		s.SetOutputLevel(istiolog.NoneLevel)
		s.SetStackTraceLevel(istiolog.NoneLevel)
	}
	scenarios := generateAmbient(*seedFlag, max(*countFlag/3, 20))
	var bad []string
	agree, hosts, bound, refused := 0, 0, 0, map[string]int{}
	for _, sc := range scenarios {
		mine := pluginAmbient(t, sc)
		theirs, err := istiodAmbient(t, sc)
		if err != nil {
			t.Fatalf("%s: istiod: %v\n%s", sc.name, err, sc.yaml)
		}
		sort.Strings(mine)
		sort.Strings(theirs)
		hosts += len(theirs)
		for _, l := range theirs {
			if strings.Contains(l, ": waypoint ") {
				bound++
			}
			if _, r, ok := strings.Cut(l, ": refused "); ok {
				r, _, _ = strings.Cut(r, ",")
				refused[r]++
			}
		}
		if strings.Join(mine, "\n") == strings.Join(theirs, "\n") {
			agree++
			continue
		}
		bad = append(bad, fmt.Sprintf("%s (PILOT_ENABLE_IP_AUTOALLOCATE=%t):\n  plugin: %s\n  istiod: %s\n%s", sc.name, sc.autoallocate, strings.Join(mine, "\n          "), strings.Join(theirs, "\n          "), sc.yaml))
	}
	var reasons []string
	for r, n := range refused {
		reasons = append(reasons, fmt.Sprintf("%s %d", r, n))
	}
	sort.Strings(reasons)
	summary := fmt.Sprintf("Ambient waypoint bindings and addresses: %d/%d scenarios agree (%d entry hosts: %d bound to a waypoint, refused: %s)\n", agree, len(scenarios), hosts, bound, strings.Join(reasons, ", "))
	t.Log(summary)
	_ = os.MkdirAll(*outFlag, 0o755)
	_ = os.WriteFile(filepath.Join(*outFlag, "summary-ambient.txt"), []byte(summary+strings.Join(bad, "\n")), 0o644)
	for i, b := range bad {
		if i == 5 {
			t.Errorf("... and %d more (%s)", len(bad)-5, filepath.Join(*outFlag, "summary-ambient.txt"))
			break
		}
		t.Errorf("disagreement: %s", b)
	}
	if bound == 0 || len(refused) == 0 {
		t.Errorf("the generated scenarios bound no entry (%d) or refused none (%v): the comparison tested nothing", bound, refused)
	}
}
