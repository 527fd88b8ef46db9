package checks

import "testing"

// TestSERejectedByValidation: preflight reports a ServiceEntry with CIDR addresses and resolution
// DNS or DNS_ROUND_ROBIN (Istio's validation refuses it), and nothing for a CIDR with NONE or
// STATIC or a single address with DNS.
func TestSERejectedByValidation(t *testing.T) {
	entry := func(name, addr, res string) string {
		return "apiVersion: networking.istio.io/v1\nkind: ServiceEntry\nmetadata: {name: " + name + ", namespace: default}\nspec:\n  hosts: [" + name + ".example.com]\n  addresses: [" + addr + "]\n  resolution: " + res + "\n  ports: [{number: 5432, name: tcp, protocol: TCP}]\n"
	}
	snap := loadYAML(t,
		entry("cidr-dns", "10.1.0.0/24", "DNS"),
		entry("cidr-rr", "10.2.0.0/16", "DNS_ROUND_ROBIN"),
		entry("cidr-none", "10.3.0.0/24", "NONE"),
		entry("cidr-static", "10.4.0.0/24", "STATIC"),
		entry("ip-dns", "10.5.0.7", "DNS"),
	)
	got := map[string]bool{}
	for _, f := range Preflight(snap).Findings {
		if f.Code == PreflightSERejected {
			got[f.Resource.Name] = true
			if f.Field != "spec.addresses" || f.Level != LevelError {
				t.Errorf("%s: field %q level %s", f.Resource.Name, f.Field, f.Level)
			}
		}
	}
	for _, n := range []string{"cidr-dns", "cidr-rr"} {
		if !got[n] {
			t.Errorf("%s: no %s", n, PreflightSERejected)
		}
	}
	for _, n := range []string{"cidr-none", "cidr-static", "ip-dns"} {
		if got[n] {
			t.Errorf("%s: %s on a valid entry", n, PreflightSERejected)
		}
	}
	// once per entry (the why-missing copy folds into preflight's own), and a warning on a
	// traced call to its host, not on one to a valid entry's host (blind audit 71 S1)
	n := 0
	for _, f := range Preflight(snap).Findings {
		if f.Code == PreflightSERejected && f.Resource.Name == "cidr-dns" {
			n++
		}
	}
	if n != 1 {
		t.Errorf("cidr-dns: %d %s findings, want 1", n, PreflightSERejected)
	}
	for host, want := range map[string]bool{"cidr-dns.example.com": true, "ip-dns.example.com": false} {
		p, err := TracePath(snap, PathOptions{Host: host, Port: 5432, From: "default"})
		if err != nil {
			t.Fatal(err)
		}
		warned := false
		for _, w := range p.Warnings {
			warned = warned || w.Code == PreflightSERejected
		}
		if warned != want {
			t.Errorf("%s: %s warning on the path %v, want %v", host, PreflightSERejected, warned, want)
		}
	}
}
