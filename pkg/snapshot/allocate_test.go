package snapshot_test

import (
	"net/netip"
	"slices"
	"testing"

	"github.com/kubectl-egress/kubectl-egress/pkg/snapshot"
)

// addrs: the status addresses of ServiceEntry namespace/name, "host=addr" in status order.
func addrs(t *testing.T, s *snapshot.Snapshot, ns, name string) []string {
	t.Helper()
	for _, se := range s.ServiceEntries {
		if se.Namespace == ns && se.Name == name {
			var out []string
			for _, a := range se.Status.GetAddresses() {
				out = append(out, a.GetHost()+"="+a.GetValue())
			}
			return out
		}
	}
	t.Fatalf("no ServiceEntry %s/%s", ns, name)
	return nil
}

const allocEntries = `
apiVersion: networking.istio.io/v1
kind: ServiceEntry
metadata: {name: given, namespace: db, creationTimestamp: "2024-01-01T00:00:00Z"}
spec: {hosts: [given.example.net], resolution: DNS, ports: [{number: 5432, name: tcp, protocol: TCP}]}
status:
  addresses: [{host: given.example.net, value: 240.240.0.1}]
---
apiVersion: networking.istio.io/v1
kind: ServiceEntry
metadata: {name: vip, namespace: db, creationTimestamp: "2024-01-02T00:00:00Z"}
spec: {hosts: [vip.example.net], addresses: [240.240.0.2], resolution: DNS, ports: [{number: 5432, name: tcp, protocol: TCP}]}
---
apiVersion: networking.istio.io/v1
kind: ServiceEntry
metadata: {name: two, namespace: cache, creationTimestamp: "2024-01-03T00:00:00Z"}
spec: {hosts: [r1.example.net, r2.example.net], resolution: DNS, ports: [{number: 6379, name: tcp, protocol: TCP}]}
---
apiVersion: networking.istio.io/v1
kind: ServiceEntry
metadata: {name: none, namespace: cache, creationTimestamp: "2024-01-04T00:00:00Z"}
spec: {hosts: [none.example.net], resolution: NONE, ports: [{number: 6379, name: tcp, protocol: TCP}]}
---
apiVersion: networking.istio.io/v1
kind: ServiceEntry
metadata: {name: optout, namespace: cache, creationTimestamp: "2024-01-05T00:00:00Z", labels: {networking.istio.io/enable-autoallocate-ip: "False"}}
spec: {hosts: [optout.example.net], resolution: DNS, ports: [{number: 6379, name: tcp, protocol: TCP}]}
---
apiVersion: networking.istio.io/v1
kind: ServiceEntry
metadata: {name: wild-dyn, namespace: web, creationTimestamp: "2024-01-06T00:00:00Z"}
spec: {hosts: ["*.dyn.example.net"], resolution: DYNAMIC_DNS, ports: [{number: 443, name: tls, protocol: TLS}]}
---
apiVersion: networking.istio.io/v1
kind: ServiceEntry
metadata: {name: partial, namespace: web, creationTimestamp: "2024-01-07T00:00:00Z"}
spec: {hosts: [p1.example.net, p2.example.net], resolution: STATIC, endpoints: [{address: 10.0.0.1}], ports: [{number: 443, name: tls, protocol: TLS}]}
status:
  addresses: [{host: p1.example.net, value: 240.240.0.9}]
`

// Manifests carry no status: the file loader predicts what istiod's allocator writes, one IPv4
// and one IPv6 address per host that has none, for the entries that may get one, around every
// address held already (spec or status), oldest entry first.
func TestPredictAllocations(t *testing.T) {
	s := load(t, allocEntries)
	for _, tc := range []struct {
		ns, name string
		want     []string
	}{
		{"db", "given", []string{"given.example.net=240.240.0.1"}}, // read, kept
		{"db", "vip", nil}, // spec.addresses: none
		{"cache", "two", []string{"r1.example.net=240.240.0.3", "r1.example.net=2001:2::1", "r2.example.net=240.240.0.4", "r2.example.net=2001:2::2"}},
		{"cache", "none", nil},   // resolution NONE
		{"cache", "optout", nil}, // the opt-out label, any case
		{"web", "wild-dyn", []string{"*.dyn.example.net=240.240.0.5", "*.dyn.example.net=2001:2::3"}},
		{"web", "partial", []string{"p1.example.net=240.240.0.9", "p2.example.net=240.240.0.6", "p2.example.net=2001:2::4"}},
	} {
		if got := addrs(t, s, tc.ns, tc.name); !slices.Equal(got, tc.want) {
			t.Errorf("%s/%s: status %v, want %v", tc.ns, tc.name, got, tc.want)
		}
	}
	for _, tc := range []struct {
		ns, name, host string
		want           bool
	}{
		{"db", "given", "given.example.net", false},
		{"cache", "two", "r2.example.net", true},
		{"web", "partial", "p1.example.net", false},
		{"web", "partial", "p2.example.net", true},
		{"cache", "optout", "optout.example.net", false},
	} {
		if got := s.Predicted(tc.ns, tc.name, tc.host); got != tc.want {
			t.Errorf("Predicted(%s/%s, %s) = %v, want %v", tc.ns, tc.name, tc.host, got, tc.want)
		}
	}
	// A wildcard host without DYNAMIC_DNS gets none (keepHost).
	w := load(t, `
apiVersion: networking.istio.io/v1
kind: ServiceEntry
metadata: {name: wild, namespace: web}
spec: {hosts: ["*.wild.example.net", exact.example.net], resolution: DNS, ports: [{number: 443, name: tls, protocol: TLS}]}
`)
	if got := addrs(t, w, "web", "wild"); !slices.Equal(got, []string{"exact.example.net=240.240.0.1", "exact.example.net=2001:2::1"}) {
		t.Errorf("wildcard with DNS: status %v", got)
	}
}

// Applied over a cluster, a replacing entry keeps the status the cluster holds (the API server
// ignores a manifest's status; the allocator keeps a host's address), an added one gets addresses
// no entry of the cluster holds, and the cluster's own entries are left as read.
func TestOverlayAllocations(t *testing.T) {
	base := load(t, `
apiVersion: networking.istio.io/v1
kind: ServiceEntry
metadata: {name: pg, namespace: db, creationTimestamp: "2024-01-01T00:00:00Z"}
spec: {hosts: [pg.example.net], resolution: DNS, ports: [{number: 5432, name: tcp, protocol: TCP}]}
status:
  addresses: [{host: pg.example.net, value: 240.240.0.7}, {host: pg.example.net, value: "2001:2::7"}]
---
apiVersion: networking.istio.io/v1
kind: ServiceEntry
metadata: {name: low, namespace: db, creationTimestamp: "2024-01-02T00:00:00Z"}
spec: {hosts: [low.example.net], resolution: DNS, ports: [{number: 5433, name: tcp, protocol: TCP}]}
status:
  addresses: [{host: low.example.net, value: 240.240.0.1}]
`)
	over := load(t, `
apiVersion: networking.istio.io/v1
kind: ServiceEntry
metadata: {name: pg, namespace: db}
spec: {hosts: [pg.example.net, pg-ro.example.net], resolution: DNS, ports: [{number: 5432, name: tcp, protocol: TCP}]}
---
apiVersion: networking.istio.io/v1
kind: ServiceEntry
metadata: {name: mq, namespace: db}
spec: {hosts: [mq.example.net], resolution: DNS, ports: [{number: 5672, name: tcp, protocol: TCP}]}
`)
	// the files alone: predicted from the start of the range
	if got := addrs(t, over, "db", "mq"); !slices.Equal(got, []string{"mq.example.net=240.240.0.3", "mq.example.net=2001:2::3"}) {
		t.Fatalf("files alone: mq status %v", got)
	}
	out := snapshot.Overlay(base, over)
	if got := addrs(t, out, "db", "pg"); !slices.Equal(got, []string{"pg.example.net=240.240.0.7", "pg.example.net=2001:2::7", "pg-ro.example.net=240.240.0.2", "pg-ro.example.net=2001:2::1"}) {
		t.Errorf("replaced entry: status %v", got)
	}
	if got := addrs(t, out, "db", "mq"); !slices.Equal(got, []string{"mq.example.net=240.240.0.3", "mq.example.net=2001:2::2"}) {
		t.Errorf("added entry: status %v", got)
	}
	if out.Predicted("db", "pg", "pg.example.net") || !out.Predicted("db", "pg", "pg-ro.example.net") || !out.Predicted("db", "mq", "mq.example.net") {
		t.Errorf("predicted marks: %v", out.Assumptions.PredictedAddresses)
	}
	// base and over are left as they were
	if got := addrs(t, base, "db", "pg"); len(got) != 2 {
		t.Errorf("base changed: %v", got)
	}
	// every address distinct
	seen := map[netip.Addr]string{}
	for _, se := range out.ServiceEntries {
		for _, a := range se.Status.GetAddresses() {
			ip := netip.MustParseAddr(a.GetValue())
			if o, ok := seen[ip]; ok {
				t.Errorf("%s held by %s and %s/%s", ip, o, se.Namespace, se.Name)
			}
			seen[ip] = se.Namespace + "/" + se.Name
		}
	}
}
