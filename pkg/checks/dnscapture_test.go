package checks

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/kubectl-egress/kubectl-egress/pkg/loader"
	"github.com/kubectl-egress/kubectl-egress/pkg/rules"
)

// TestDNSCaptureAutoAllocatedAddresses: a sidecar with DNS capture binds ServiceEntries without
// addresses to the address istiod's allocator assigned (status.addresses), so two TCP entries
// on one port no longer share 0.0.0.0 — unless the proxy has no capture, the entry opts out by
// label, or istiod runs with PILOT_ENABLE_IP_AUTOALLOCATE=false. Each rule has a case that
// differs from the others in everything but that rule, and its control.
func TestDNSCaptureAutoAllocatedAddresses(t *testing.T) {
	const ns = "apiVersion: v1\nkind: Namespace\nmetadata: {name: NS, labels: {istio-injection: enabled}}\n"
	istiod := func(env string) string {
		d := "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: istiod, namespace: istio-system, labels: {app: istiod}}\nspec:\n  selector: {matchLabels: {app: istiod}}\n  template:\n    metadata: {labels: {app: istiod}}\n    spec: {containers: [{name: discovery, image: pilot"
		if env != "" {
			d += ", env: [{name: PILOT_ENABLE_IP_AUTOALLOCATE, value: \"" + env + "\"}]"
		}
		return d + "}]}\n"
	}
	mesh := func(proxyMetadata string) string {
		return "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: istio, namespace: istio-system}\ndata:\n  mesh: |\n    defaultConfig:\n      proxyMetadata: {" + proxyMetadata + "}\n"
	}
	entry := func(name, nsName, host, created, ip, labels string, port int) string {
		s := "apiVersion: networking.istio.io/v1\nkind: ServiceEntry\nmetadata: {name: " + name + ", namespace: " + nsName + ", creationTimestamp: \"" + created + "\""
		if labels != "" {
			s += ", labels: {" + labels + "}"
		}
		s += "}\nspec:\n  hosts: [" + host + "]\n  resolution: DNS\n  ports: [{number: " + strconv.Itoa(port) + ", name: tcp-x, protocol: TCP}]\n"
		if ip != "" {
			s += "status:\n  addresses: [{value: \"" + ip + "\", host: " + host + "}]\n"
		}
		return s
	}
	pod := func(nsName, annotation string) string {
		s := "apiVersion: v1\nkind: Pod\nmetadata: {name: app, namespace: " + nsName + ", labels: {app: app}"
		if annotation != "" {
			s += ", annotations: {proxy.istio.io/config: '" + annotation + "'}"
		}
		return s + "}\nspec: {containers: [{name: app, image: app}]}\n"
	}
	pg := func(nsName string, labelsA, labelsB string) []string {
		return []string{
			entry("db-a", nsName, "db-a.example.net", "2026-01-01T00:00:00Z", "240.240.0.1", labelsA, 5432),
			entry("db-b", nsName, "db-b.example.net", "2026-02-01T00:00:00Z", "240.240.0.2", labelsB, 5432),
		}
	}
	type want struct {
		from, pod, host string
		port            uint32
		cause           string
		listener        string // a listener name the proxy must have ("" = none checked)
		fix             string // a text the path's fix must hold ("" = none checked)
	}
	for _, c := range []struct {
		name  string
		docs  []string
		wants []want
	}{
		{"mesh-wide capture: each entry on its assigned address",
			append([]string{strings.Replace(ns, "NS", "team-a", 1), istiod(""), mesh(`ISTIO_META_DNS_CAPTURE: "true"`)}, pg("team-a", "", "")...),
			[]want{{from: "team-a", host: "db-b.example.net", port: 5432, cause: PathOK, listener: "240.240.0.2_5432"}}},
		{"no capture: control, the older entry's chain takes 0.0.0.0_5432",
			append([]string{strings.Replace(ns, "NS", "team-a", 1), istiod(""), mesh(`ISTIO_META_DNS_AUTO_ALLOCATE: "true"`)}, pg("team-a", "", "")...),
			[]want{{from: "team-a", host: "db-b.example.net", port: 5432, cause: ListenerChainDropped, listener: "0.0.0.0_5432"}}},
		{"the pod's proxy.istio.io/config turns capture on for that pod only",
			append([]string{strings.Replace(ns, "NS", "billing", 1), istiod("true"), pod("billing", `{"proxyMetadata": {"ISTIO_META_DNS_CAPTURE": "1"}}`)},
				entry("ledger", "billing", "ledger.partner.io", "2026-03-01T00:00:00Z", "240.240.7.7", "", 9042),
				entry("archive", "billing", "archive.partner.io", "2026-03-02T00:00:00Z", "240.240.7.8", "", 9042)),
			[]want{
				{pod: "billing/app", host: "archive.partner.io", port: 9042, cause: PathOK, listener: "240.240.7.8_9042"},
				{from: "billing", host: "archive.partner.io", port: 9042, cause: ListenerChainDropped, listener: "0.0.0.0_9042"}}},
		{"entries opted out by label stay on 0.0.0.0 despite capture",
			append([]string{strings.Replace(ns, "NS", "team-a", 1), istiod(""), mesh(`ISTIO_META_DNS_CAPTURE: "true"`)},
				pg("team-a", AutoAllocateLabelYAML, AutoAllocateLabelYAML)...),
			[]want{{from: "team-a", host: "db-b.example.net", port: 5432, cause: ListenerChainDropped, listener: "0.0.0.0_5432"}}},
		{"istiod's allocator off: status addresses unused",
			append([]string{strings.Replace(ns, "NS", "orders", 1), istiod("false"), mesh(`ISTIO_META_DNS_CAPTURE: "true"`)},
				entry("mq-a", "orders", "mq-a.vendor.io", "2026-04-01T00:00:00Z", "240.240.9.1", "", 5672),
				entry("mq-b", "orders", "mq-b.vendor.io", "2026-04-02T00:00:00Z", "240.240.9.2", "", 5672)),
			[]want{{from: "orders", host: "mq-b.vendor.io", port: 5672, cause: ListenerChainDropped, listener: "0.0.0.0_5672"}}},
		// Address proven against istiod by the conformance suite (dns.ipAutoallocate false,
		// dns.capture mesh+auto: other/nonesib.example.net gets 240.240.216.96).
		{"allocator off, the proxy asks for addresses (DNS_AUTO_ALLOCATE): istiod's older per-push allocation",
			append([]string{strings.Replace(ns, "NS", "orders", 1), istiod("false"),
				mesh(`ISTIO_META_DNS_CAPTURE: "true", ISTIO_META_DNS_AUTO_ALLOCATE: "true"`)},
				entry("mq-a", "other", "mq-a.vendor.io", "2026-04-01T00:00:00Z", "240.240.9.1", "", 5672),
				entry("nonesib", "other", "nonesib.example.net", "2026-04-02T00:00:00Z", "240.240.9.2", "", 5672)),
			[]want{{from: "orders", host: "nonesib.example.net", port: 5672, cause: PathOK, listener: "240.240.216.96_5672"}}},
		{"allocator off, DNS_AUTO_ALLOCATE without capture: control, 0.0.0.0",
			append([]string{strings.Replace(ns, "NS", "orders", 1), istiod("false"), mesh(`ISTIO_META_DNS_AUTO_ALLOCATE: "true"`)},
				entry("mq-a", "other", "mq-a.vendor.io", "2026-04-01T00:00:00Z", "240.240.9.1", "", 5672),
				entry("nonesib", "other", "nonesib.example.net", "2026-04-02T00:00:00Z", "240.240.9.2", "", 5672)),
			[]want{{from: "orders", host: "nonesib.example.net", port: 5672, cause: ListenerChainDropped, listener: "0.0.0.0_5672"}}},
		// Manifests carry no status.addresses: istiod's allocator writes them once the entries
		// are applied, and the file loader predicts them (snapshot.PredictAllocations; blind
		// audit 110 c32, a false conflict). Two shapes, and the controls where nothing is
		// allocated, each fix naming what keeps the addresses away (110 c33).
		{"manifests without status: the allocator's addresses are predicted",
			[]string{strings.Replace(ns, "NS", "team-a", 1), istiod(""), mesh(`ISTIO_META_DNS_CAPTURE: "true"`),
				entry("db-a", "team-a", "db-a.example.net", "2026-01-01T00:00:00Z", "", "", 5432),
				entry("db-b", "team-a", "db-b.example.net", "2026-02-01T00:00:00Z", "", "", 5432)},
			[]want{{from: "team-a", host: "db-b.example.net", port: 5432, cause: PathOK, listener: "240.240.0.2_5432"}}},
		{"a pod's capture, entries elsewhere without status: predicted around an address already held",
			[]string{strings.Replace(ns, "NS", "ledger", 1), istiod("true"), pod("ledger", `{"proxyMetadata": {"ISTIO_META_DNS_CAPTURE": "true"}}`),
				entry("broker-old", "kafka", "old.kafka.example", "2025-06-01T00:00:00Z", "240.240.0.1", "", 9093),
				entry("broker-new", "kafka", "new.kafka.example", "2025-07-01T00:00:00Z", "", "", 9093)},
			[]want{{pod: "ledger/app", host: "new.kafka.example", port: 9093, cause: PathOK, listener: "240.240.0.2_9093"},
				{from: "ledger", host: "new.kafka.example", port: 9093, cause: ListenerChainDropped, listener: "0.0.0.0_9093", fix: "turn on DNS capture"}}},
		{"manifests without status, opted out by label: the fix removes the label",
			[]string{strings.Replace(ns, "NS", "risk", 1), istiod(""), mesh(`ISTIO_META_DNS_CAPTURE: "true"`),
				entry("kafka-a", "risk", "a.kafka.example", "2026-01-01T00:00:00Z", "", AutoAllocateLabelYAML, 9092),
				entry("kafka-b", "risk", "b.kafka.example", "2026-01-02T00:00:00Z", "", AutoAllocateLabelYAML, 9092)},
			[]want{{from: "risk", host: "b.kafka.example", port: 9092, cause: ListenerChainDropped, listener: "0.0.0.0_9092", fix: "remove the label networking.istio.io/enable-autoallocate-ip=false from ServiceEntry risk/kafka-a and ServiceEntry risk/kafka-b"}}},
		{"manifests without status, allocator off: the fix turns it on",
			[]string{strings.Replace(ns, "NS", "sessions", 1), istiod("false"), mesh(`ISTIO_META_DNS_CAPTURE: "true"`),
				entry("cache-a", "sessions", "a.redis.example", "2026-01-01T00:00:00Z", "", "", 6379),
				entry("cache-b", "sessions", "b.redis.example", "2026-01-02T00:00:00Z", "", "", 6379)},
			[]want{{from: "sessions", host: "b.redis.example", port: 6379, cause: ListenerChainDropped, listener: "0.0.0.0_6379", fix: "PILOT_ENABLE_IP_AUTOALLOCATE=true"}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			snap := loadYAML(t, c.docs...)
			for _, w := range c.wants {
				p, err := TracePath(snap, PathOptions{Host: w.host, Port: w.port, From: w.from, Pod: w.pod})
				if err != nil {
					t.Fatal(err)
				}
				if p.Cause != w.cause {
					t.Errorf("%s%s → %s:%d: cause %s, want %s: %s", w.from, w.pod, w.host, w.port, p.Cause, w.cause, p.Message)
				}
				if w.fix != "" && !strings.Contains(p.Fix, w.fix) {
					t.Errorf("%s%s → %s:%d: fix %q lacks %q", w.from, w.pod, w.host, w.port, p.Fix, w.fix)
				}
				rep, err := ProxyConfig(snap, ProxyConfigOptions{From: w.from, Pod: w.pod})
				if err != nil {
					t.Fatal(err)
				}
				var names []string
				for _, l := range rep.Listeners {
					names = append(names, l.Name)
				}
				if w.listener != "" && !slices.Contains(names, w.listener) {
					t.Errorf("%s%s: listeners %v lack %s", w.from, w.pod, names, w.listener)
				}
				if !slices.ContainsFunc(rep.Notes, func(n string) bool { return strings.HasPrefix(n, "DNS capture is ") }) {
					t.Errorf("no DNS capture note in %v", rep.Notes)
				}
			}
		})
	}
}

// AutoAllocateLabelYAML opts an entry out of address allocation (test helper).
const AutoAllocateLabelYAML = `networking.istio.io/enable-autoallocate-ip: "false"`

// TestDNSCaptureNameTable: with DNS capture the agent answers a name under a wildcard entry
// with that entry's allocated address (istiod's name table, the agent's wildcard lookup), an
// HTTP entry's virtual host lists its allocated address as a domain (GetAllAddressesForProxy),
// and istiod's older allocation skips a resolution NONE sibling of an entry it covers. Each
// with its control (no capture).
func TestDNSCaptureNameTable(t *testing.T) {
	docs := []string{
		"apiVersion: v1\nkind: Namespace\nmetadata: {name: team-a, labels: {istio-injection: enabled}}\n",
		"apiVersion: networking.istio.io/v1\nkind: ServiceEntry\nmetadata: {name: wild, namespace: other}\nspec:\n  hosts: [\"*.wild.example.net\"]\n  resolution: DYNAMIC_DNS\n  ports: [{number: 8443, name: tls, protocol: TLS}]\nstatus:\n  addresses: [{value: 240.240.3.3, host: \"*.wild.example.net\"}]\n",
		"apiVersion: networking.istio.io/v1\nkind: ServiceEntry\nmetadata: {name: web, namespace: other}\nspec:\n  hosts: [web.example.net]\n  resolution: DNS\n  ports: [{number: 8088, name: http, protocol: HTTP}]\nstatus:\n  addresses: [{value: 240.240.3.4, host: web.example.net}]\n",
		"apiVersion: networking.istio.io/v1\nkind: ServiceEntry\nmetadata: {name: sib-static, namespace: other}\nspec:\n  hosts: [sib.example.net]\n  exportTo: [\".\"]\n  resolution: STATIC\n  endpoints: [{address: 10.40.0.9}]\n  ports: [{number: 4444, name: tls, protocol: TLS}]\n",
		"apiVersion: networking.istio.io/v1\nkind: ServiceEntry\nmetadata: {name: sib-none, namespace: other}\nspec:\n  hosts: [sib.example.net]\n  resolution: NONE\n  ports: [{number: 4444, name: tls, protocol: TLS}]\n",
	}
	istiod := func(env string) string {
		return "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: istiod, namespace: istio-system, labels: {app: istiod}}\nspec:\n  selector: {matchLabels: {app: istiod}}\n  template:\n    metadata: {labels: {app: istiod}}\n    spec: {containers: [{name: discovery, image: pilot, env: [{name: PILOT_ENABLE_IP_AUTOALLOCATE, value: \"" + env + "\"}]}]}\n"
	}
	mesh := func(meta string) string {
		return "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: istio, namespace: istio-system}\ndata:\n  mesh: |\n    defaultConfig:\n      proxyMetadata: {" + meta + "}\n"
	}
	load := func(t *testing.T, extra ...string) SidecarView {
		f := filepath.Join(t.TempDir(), "mesh.yaml")
		if err := os.WriteFile(f, []byte(strings.Join(append(slices.Clone(docs), extra...), "\n---\n")), 0o600); err != nil {
			t.Fatal(err)
		}
		snap, err := loader.FromFiles([]string{f}, nil, loader.Options{Lenient: true})
		if err != nil {
			t.Fatal(err)
		}
		return BuildSidecarView(snap, "team-a", nil)
	}
	domains := func(v SidecarView, host string) []string {
		if rc := v.Outbound.Route("8088"); rc != nil {
			for _, vh := range rc.VirtualHosts {
				if slices.Contains(vh.Domains, host) {
					return vh.Domains
				}
			}
		}
		return nil
	}
	on := load(t, istiod("true"), mesh(`ISTIO_META_DNS_CAPTURE: "true"`))
	off := load(t, istiod("true"), mesh(`ISTIO_META_DNS_CAPTURE: "false"`))
	if got := on.CallAddress("api.wild.example.net", nil); got != "240.240.3.3" {
		t.Errorf("capture: call address of api.wild.example.net %q, want the wildcard entry's 240.240.3.3", got)
	}
	if got := off.CallAddress("api.wild.example.net", nil); got != "" {
		t.Errorf("no capture: call address of api.wild.example.net %q, want none", got)
	}
	if d := domains(on, "web.example.net"); !slices.Contains(d, "240.240.3.4") {
		t.Errorf("capture: web.example.net virtual host domains %v lack 240.240.3.4", d)
	}
	if d := domains(off, "web.example.net"); slices.Contains(d, "240.240.3.4") {
		t.Errorf("no capture: web.example.net virtual host domains %v list 240.240.3.4", d)
	}
	legacy := load(t, istiod("false"), mesh(`ISTIO_META_DNS_CAPTURE: "true", ISTIO_META_DNS_AUTO_ALLOCATE: "true"`))
	sib := legacy.Outbound.FirstImportedForHost("sib.example.net")
	if sib == nil || sib.Resolution != "NONE" {
		t.Fatalf("team-a imports %+v for sib.example.net, want the NONE entry", sib)
	}
	if got := legacy.Outbound.Proxy.ServiceAddresses(*sib); len(got) != 0 {
		t.Errorf("older allocation: the NONE entry got %v (its STATIC sibling's address), want none", got)
	}
	if got := legacy.Outbound.Proxy.LegacyIPv4["other/sib.example.net"]; got == "" {
		t.Errorf("older allocation: the STATIC sibling got no address")
	}
}

// TestDNSCaptureSiblingAddress: the agent answers a host with the first address among the
// imported services for that host name, so a call to the port of an entry without an address
// (resolution NONE) goes to the address its sibling entry for the same host was given.
func TestDNSCaptureSiblingAddress(t *testing.T) {
	docs := []string{
		"apiVersion: v1\nkind: Namespace\nmetadata: {name: app, labels: {istio-injection: enabled}}\n",
		"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: istio, namespace: istio-system}\ndata:\n  mesh: |\n    defaultConfig:\n      proxyMetadata: {ISTIO_META_DNS_CAPTURE: \"true\"}\n",
		"apiVersion: networking.istio.io/v1\nkind: ServiceEntry\nmetadata: {name: pg, namespace: app}\nspec:\n  hosts: [db.partner.io]\n  resolution: NONE\n  ports: [{number: 5432, name: tcp-pg, protocol: TCP}]\n",
		"apiVersion: networking.istio.io/v1\nkind: ServiceEntry\nmetadata: {name: api, namespace: app}\nspec:\n  hosts: [db.partner.io]\n  resolution: DNS\n  ports: [{number: 9443, name: tls, protocol: TLS}]\nstatus:\n  addresses: [{value: 240.240.3.3, host: db.partner.io}]\n",
	}
	for _, capture := range []bool{true, false} {
		in := slices.Clone(docs)
		if !capture {
			in[1] = strings.Replace(in[1], `"true"`, `"false"`, 1)
		}
		v := BuildSidecarView(loadYAML(t, in...), "app", nil)
		var pg *rules.Service
		for _, s := range v.Outbound.ImportedForHost("db.partner.io") {
			if s.Name == "pg" {
				pg = &s
			}
		}
		if pg == nil {
			t.Fatal("entry pg not imported")
		}
		want := ""
		if capture {
			want = "240.240.3.3"
		}
		if got := v.CallAddress("db.partner.io", pg); got != want {
			t.Errorf("capture=%t: call address %q, want %q", capture, got, want)
		}
	}
}
