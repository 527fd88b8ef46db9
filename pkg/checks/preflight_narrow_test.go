package checks

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubectl-egress/kubectl-egress/pkg/loader"
	"github.com/kubectl-egress/kubectl-egress/pkg/snapshot"
)

// TestPreflightNarrowUsed: on generated meshes (every namespace with private entries on the
// public layer's ports) the namespaces are predicted narrow, and the report is the one the
// whole namespaces give (and, TestPreflightSharingChangesNothing, the unshared one).
func TestPreflightNarrowUsed(t *testing.T) {
	for seed := uint64(1); seed <= 2; seed++ {
		o, load := generatedMesh(t, 300, seed)
		narrow, n := preflightWith(load(), false, false)
		wide, w := preflightWith(load(), false, true)
		if w != 0 {
			t.Errorf("seed %d: wide run predicted %d namespaces narrow", seed, w)
		}
		if n != int64(o.Namespaces) {
			t.Errorf("seed %d: %d of %d namespaces predicted narrow", seed, n, o.Namespaces)
		}
		a, _ := json.Marshal(narrow)
		b, _ := json.Marshal(wide)
		if !bytes.Equal(a, b) {
			t.Errorf("seed %d: narrow and wide reports differ:\n%s\n%s", seed, a, b)
		}
	}
}

// TestPreflightNarrowAddressCollision: a namespace whose own TCP entry takes the address of a
// public entry on the same port is predicted narrow (the public hosts with that address are
// re-predicted in it), not whole, and the report is the whole namespaces' one. At 50,000
// generated entries such collisions made 7 of 1,000 namespaces fall back to whole predictions.
func TestPreflightNarrowAddressCollision(t *testing.T) {
	load := func() *snapshot.Snapshot {
		s, err := loader.FromFiles([]string{filepath.Join("testdata", "sharing", "address-collision.yaml")}, nil, loader.Options{Lenient: true})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	narrow, n := preflightWith(load(), false, false)
	wide, _ := preflightWith(load(), false, true)
	if n != 2 {
		t.Errorf("%d of 2 client namespaces predicted narrow (team-a's entry collides with a public address)", n)
	}
	a, _ := json.Marshal(narrow)
	b, _ := json.Marshal(wide)
	if !bytes.Equal(a, b) {
		t.Errorf("narrow and wide reports differ:\n%s\n%s", a, b)
	}
	// team-a's calls to api.example.com (240.0.0.1) land on its own entry's listener for that
	// address and never reach the gateway: only team-b's path meets the gateway's fault.
	found := false
	for _, f := range narrow.Findings {
		if f.Code == "GATEWAY_NOT_LISTENING_ON_TARGET_PORT" {
			found = true
			if ctx := strings.Join(f.Contexts, ";"); !strings.Contains(ctx, "team-b") || strings.Contains(ctx, "team-a") {
				t.Errorf("the gateway's fault should be on team-b's path only: %q", ctx)
			}
		}
	}
	if !found {
		t.Errorf("no GATEWAY_NOT_LISTENING_ON_TARGET_PORT finding:\n%s", a)
	}
}
