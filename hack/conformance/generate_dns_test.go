package conformance

import (
	"fmt"
	"strings"
)

// The DNS capture dimensions (dns_test.go): client sidecars with ISTIO_META_DNS_CAPTURE (and
// ISTIO_META_DNS_AUTO_ALLOCATE) in their proxy metadata, ServiceEntries without addresses
// carrying (or not) the addresses istiod's allocator writes to status.addresses, and istiod run
// with PILOT_ENABLE_IP_AUTOALLOCATE unset, true or false. A proxy with DNS capture binds the
// listeners of entries without spec.addresses to their allocated address (istiod
// pilot/pkg/model/service.go nodeUsesAutoallocatedIPs, GetAllAddressesForProxy), and its
// application connects to the address the DNS proxy answers (the call address, istiod's own
// name table: pkg/dns/server BuildNameTable). Like the path ones, each column has its own
// seeded generator ("dns." prefix) and its objects come last; with dns.capture none the
// scenario is the one without these columns.
const (
	dimDCapture = "dns.capture"
	dimDAlloc   = "dns.ipAutoallocate"
	dimDStatus  = "dns.status"

	// dnsNsPod is the client namespace whose client Pod is part of the scenario (with the
	// proxy.istio.io/config annotation of the pod-* values); dnsNsPlain's client pod is the
	// harness's synthesised one (mesh defaults only).
	dnsNsPod   = "dns-a"
	dnsNsPlain = "dns-b"
	dnsPodIP   = "10.251.1.1"
)

func init() {
	dimensions = append(dimensions,
		// dns.capture: where ISTIO_META_DNS_CAPTURE (and ISTIO_META_DNS_AUTO_ALLOCATE) come
		// from. none: nowhere (no DNS objects at all: the other dns columns are n/a). mesh:
		// meshConfig.defaultConfig.proxyMetadata (every sidecar). pod: the dns-a client pod's
		// proxy.istio.io/config annotation only. mesh+pod-off: the mesh turns it on, the pod's
		// annotation turns it off ("false"). mesh+auto / pod+auto: capture and
		// ISTIO_META_DNS_AUTO_ALLOCATE from the mesh / the pod (with the allocator off, istiod's
		// older per-push allocation applies to such proxies).
		dimension{dimDCapture, []string{"none", "none", "mesh", "pod", "mesh+pod-off", "mesh+auto", "pod+auto"}},
		// dns.ipAutoallocate: PILOT_ENABLE_IP_AUTOALLOCATE on the default istiod Deployment
		// (unset = istiod's default, true).
		dimension{dimDAlloc, []string{"unset", "true", "false"}},
		// dns.status: the entries' status.addresses. allocated: what istiod's allocator writes
		// (every entry with resolution other than NONE, no spec.addresses, no opt-out label;
		// wildcard hosts only with DYNAMIC_DNS; an IPv6 address beside the IPv4 one on one
		// host). partial: some of those not written yet. none: no status. stale: allocated,
		// plus addresses on the entries istiod must not use (spec.addresses, opt-out label,
		// resolution NONE) and one for a host the entry does not declare.
		dimension{dimDStatus, []string{"allocated", "allocated", "partial", "none", "stale"}},
	)
}

// dnsEntry is one ServiceEntry of the DNS dimensions.
type dnsEntry struct {
	name, hosts, ports, extra, labels string
	// status maps a host to the addresses the allocator writes; stale ones are written only
	// with dns.status stale, partial ones are dropped with dns.status partial.
	status  [][2]string
	stale   bool
	partial bool
}

var dnsEntries = []dnsEntry{
	// Two TCP entries on one port: without capture they share 0.0.0.0_5433 (the older wins).
	{name: "dns-tcp-a", hosts: "[tcpa.dns.example.net]", ports: "{number: 5433, name: tcp-db, protocol: TCP}", extra: "  resolution: DNS",
		status: [][2]string{{"tcpa.dns.example.net", "240.240.1.1"}}},
	{name: "dns-tcp-b", hosts: "[tcpb.dns.example.net]", ports: "{number: 5433, name: tcp-db, protocol: TCP}", extra: "  resolution: DNS",
		status: [][2]string{{"tcpb.dns.example.net", "240.240.1.2"}}, partial: true},
	// TLS and TCP on one port.
	{name: "dns-tls", hosts: "[tls.dns.example.net]", ports: "{number: 8443, name: tls, protocol: TLS}", extra: "  resolution: DNS",
		status: [][2]string{{"tls.dns.example.net", "240.240.1.3"}}},
	{name: "dns-tcp-c", hosts: "[tcpc.dns.example.net]", ports: "{number: 8443, name: tcp-c, protocol: TCP}", extra: "  resolution: DNS",
		status: [][2]string{{"tcpc.dns.example.net", "240.240.1.4"}}, partial: true},
	// HTTP and TCP on one port (HTTP listeners stay on 0.0.0.0).
	{name: "dns-http", hosts: "[web.dns.example.net]", ports: "{number: 8088, name: http, protocol: HTTP}", extra: "  resolution: DNS",
		status: [][2]string{{"web.dns.example.net", "240.240.1.5"}}},
	{name: "dns-tcp-h", hosts: "[tcph.dns.example.net]", ports: "{number: 8088, name: tcp-h, protocol: TCP}", extra: "  resolution: DNS",
		status: [][2]string{{"tcph.dns.example.net", "240.240.1.6"}}, partial: true},
	// Entries istiod must not give an allocated address (stale status only).
	{name: "dns-addr", hosts: "[addr.dns.example.net]", ports: "{number: 5433, name: tcp-db, protocol: TCP}", extra: "  addresses: [\"240.240.2.1\"]\n  resolution: DNS",
		status: [][2]string{{"addr.dns.example.net", "240.240.1.7"}}, stale: true},
	{name: "dns-optout", hosts: "[optout.dns.example.net]", ports: "{number: 5433, name: tcp-db, protocol: TCP}", extra: "  resolution: DNS",
		labels: "{networking.istio.io/enable-autoallocate-ip: \"false\"}",
		status: [][2]string{{"optout.dns.example.net", "240.240.1.8"}}, stale: true},
	{name: "dns-none", hosts: "[none.dns.example.net]", ports: "{number: 5433, name: tcp-db, protocol: TCP}", extra: "  resolution: NONE",
		status: [][2]string{{"none.dns.example.net", "240.240.1.9"}}, stale: true},
	// Wildcard hosts: DYNAMIC_DNS (allocated) and NONE (never).
	{name: "dns-wild", hosts: "[\"*.wild.dns.example.net\"]", ports: "{number: 8443, name: tls, protocol: TLS}", extra: "  resolution: DYNAMIC_DNS",
		status: [][2]string{{"*.wild.dns.example.net", "240.240.1.10"}}},
	{name: "dns-nonewild", hosts: "[\"*.nonewild.dns.example.net\"]", ports: "{number: 5434, name: tcp-nw, protocol: TCP}", extra: "  resolution: NONE"},
	// Two hosts (TLS: validation refuses several hosts on a TCP port without addresses), STATIC
	// with an endpoint: one address per host, an IPv6 one beside.
	{name: "dns-multi", hosts: "[m1.dns.example.net, m2.dns.example.net]", ports: "{number: 8443, name: tls-m, protocol: TLS}",
		extra:  "  resolution: STATIC\n  endpoints:\n  - address: 10.40.1.1",
		status: [][2]string{{"m1.dns.example.net", "240.240.1.11"}, {"m2.dns.example.net", "240.240.1.12"}, {"m2.dns.example.net", "2001:2::f0f0:c"}}},
}

// dnsObjects adds the objects of the DNS dimensions (nothing with dns.capture none) and sets
// PILOT_ENABLE_IP_AUTOALLOCATE and the mesh's proxyMetadata.
func dnsObjects(b *builder, d map[string]string) {
	capture := d[dimDCapture]
	if capture == "none" || capture == "" {
		d[dimDAlloc], d[dimDStatus] = "n/a", "n/a"
		return
	}
	// istiod's flag.
	if v := d[dimDAlloc]; v != "unset" {
		for i, doc := range b.docs {
			if strings.Contains(doc, "kind: Deployment\nmetadata:\n  name: istiod\n  namespace: istio-system\n") {
				b.docs[i] = doc + fmt.Sprintf("\n        - name: PILOT_ENABLE_IP_AUTOALLOCATE\n          value: %q", v)
			}
		}
	}
	// Mesh proxyMetadata.
	meta := ""
	switch capture {
	case "mesh", "mesh+pod-off":
		meta = `{ISTIO_META_DNS_CAPTURE: "true"}`
	case "mesh+auto":
		meta = `{ISTIO_META_DNS_CAPTURE: "true", ISTIO_META_DNS_AUTO_ALLOCATE: "true"}`
	}
	if meta != "" {
		block := "defaultConfig:\n      proxyMetadata: " + meta
		found := false
		for i, doc := range b.docs {
			if strings.Contains(doc, "kind: ConfigMap\nmetadata:\n  name: istio\n  namespace: istio-system\n") {
				if strings.Contains(doc, "defaultConfig:\n      proxyMetadata: {") {
					// another dimension's proxyMetadata (gap.unprivilegedGateway): one map
					b.docs[i] = strings.Replace(doc, "defaultConfig:\n      proxyMetadata: {", "defaultConfig:\n      proxyMetadata: {"+strings.Trim(meta, "{}")+", ", 1)
				} else {
					b.docs[i] = doc + "\n    " + block
				}
				found = true
			}
		}
		if !found {
			b.add(fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: istio\n  namespace: istio-system\n  creationTimestamp: %s\ndata:\n  mesh: |-\n    %s", b.ts(), block))
		}
	}
	// Client namespaces and the dns-a client pod.
	for _, ns := range []string{dnsNsPod, dnsNsPlain} {
		b.add(fmt.Sprintf("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: %s\n  labels: {istio-injection: enabled}\n  creationTimestamp: %s", ns, b.ts()))
	}
	annotation := ""
	switch capture {
	case "pod":
		annotation = `{"proxyMetadata": {"ISTIO_META_DNS_CAPTURE": "true"}}`
	case "mesh+pod-off":
		annotation = `{"proxyMetadata": {"ISTIO_META_DNS_CAPTURE": "false"}}`
	case "pod+auto":
		annotation = `{"proxyMetadata": {"ISTIO_META_DNS_CAPTURE": "true", "ISTIO_META_DNS_AUTO_ALLOCATE": "true"}}`
	}
	ann := ""
	if annotation != "" {
		ann = fmt.Sprintf("\n  annotations:\n    proxy.istio.io/config: '%s'", annotation)
	}
	b.add(fmt.Sprintf(`apiVersion: v1
kind: Pod
metadata:
  name: conformance-client
  namespace: %s
  labels: {app: conformance-client}
  creationTimestamp: %s%s
spec:
  containers:
  - name: app
    image: app
status:
  phase: Running
  podIP: %s
  podIPs: [{ip: %s}]
  conditions:
  - type: Ready
    status: "True"`, dnsNsPod, b.ts(), ann, dnsPodIP, dnsPodIP))
	// The entries, in namespace other, public.
	st := d[dimDStatus]
	for _, e := range dnsEntries {
		var sb strings.Builder
		fmt.Fprintf(&sb, "apiVersion: networking.istio.io/v1\nkind: ServiceEntry\nmetadata:\n  name: %s\n  namespace: other\n  creationTimestamp: %s\n", e.name, b.ts())
		if e.labels != "" {
			fmt.Fprintf(&sb, "  labels: %s\n", e.labels)
		}
		fmt.Fprintf(&sb, "spec:\n  hosts: %s\n  exportTo: [\"*\"]\n  location: MESH_EXTERNAL\n  ports:\n  - %s\n%s", e.hosts, e.ports, e.extra)
		status := e.status
		switch {
		case st == "none", e.stale && st != "stale", e.partial && st == "partial":
			status = nil
		}
		if st == "stale" && e.name == "dns-tcp-a" {
			status = append(append([][2]string{}, status...), [2]string{"undeclared.dns.example.net", "240.240.1.13"})
		}
		if len(status) > 0 {
			sb.WriteString("\nstatus:\n  addresses:")
			for _, a := range status {
				fmt.Fprintf(&sb, "\n  - {value: %q, host: %q}", a[1], a[0])
			}
		}
		b.add(sb.String())
	}
}
