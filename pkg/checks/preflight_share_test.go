package checks

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/kubectl-egress/kubectl-egress/internal/meshgen"
	"github.com/kubectl-egress/kubectl-egress/pkg/loader"
	"github.com/kubectl-egress/kubectl-egress/pkg/snapshot"
)

// sharingDiff returns "" when preflight gives the same report with and without the shared
// public layer of client sidecars, else both reports.
func sharingDiff(t *testing.T, load func() *snapshot.Snapshot) string {
	t.Helper()
	shared, err := json.MarshalIndent(preflight(load(), false), "", " ")
	if err != nil {
		t.Fatal(err)
	}
	alone, err := json.MarshalIndent(preflight(load(), true), "", " ")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(shared, alone) {
		return "shared:\n" + string(shared) + "\nunshared:\n" + string(alone)
	}
	// export-audit's own report too: its resources' neededIn lists are not in preflight's
	ea, err := json.MarshalIndent(ExportAudit(load(), AuditOptions{}), "", " ")
	if err != nil {
		t.Fatal(err)
	}
	eu, err := json.MarshalIndent(ExportAudit(load(), AuditOptions{unshared: true}), "", " ")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(ea, eu) {
		return "export-audit shared:\n" + string(ea) + "\nunshared:\n" + string(eu)
	}
	return ""
}

// TestPreflightSharingChangesNothing: preflight's two-layer client sidecars (preflight_share.go)
// give the report every namespace worked out on its own gives, on every fixture, case file and
// generated meshes.
func TestPreflightSharingChangesNothing(t *testing.T) {
	var sets [][]string
	for _, c := range readPathCases(t) {
		sets = append(sets, []string{filepath.Join("testdata", "paths", "_base.yaml"), c.file})
	}
	pre, _ := filepath.Glob(filepath.Join("testdata", "preflight", "*.yaml"))
	cases, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "cases", "*.yaml"))
	dir := os.Getenv("EGRESS_CASES_DIR")
	if dir == "" {
		dir = filepath.Join("..", "..", "..", "shared", "cases")
	}
	shared, _ := filepath.Glob(filepath.Join(dir, "*.yaml"))
	// testdata/sharing: inputs where an earlier version of the sharing differed (a blind
	// audit's minimal reproducers), each run with one worker and with several (the
	// fingerprint classes depend on which namespace is worked out first).
	sharing, _ := filepath.Glob(filepath.Join("testdata", "sharing", "*.yaml"))
	if len(sharing) == 0 {
		t.Fatal("no fixtures in testdata/sharing")
	}
	for _, f := range append(append(append(pre, cases...), shared...), sharing...) {
		sets = append(sets, []string{f})
	}
	for _, f := range sharing {
		prev := runtime.GOMAXPROCS(1)
		snap := func() *snapshot.Snapshot {
			s, err := loader.FromFiles([]string{f}, nil, loader.Options{Lenient: true})
			if err != nil {
				t.Fatal(err)
			}
			return s
		}
		d := sharingDiff(t, snap)
		runtime.GOMAXPROCS(prev)
		if d != "" {
			t.Errorf("%s (one worker): reports differ\n%s", f, d)
		}
	}
	for _, files := range sets {
		load := func() *snapshot.Snapshot {
			snap, err := loader.FromFiles(files, nil, loader.Options{Lenient: true})
			if err != nil {
				t.Fatal(err)
			}
			return snap
		}
		if d := sharingDiff(t, load); d != "" {
			t.Errorf("%s: reports differ\n%s", files[len(files)-1], d)
		}
	}
	for seed := uint64(1); seed <= 3; seed++ {
		_, load := generatedMesh(t, 400, seed)
		if d := sharingDiff(t, load); d != "" {
			t.Errorf("generated mesh seed %d: reports differ\n%s", seed, d)
		}
	}
}

// generatedMesh generates a mesh of about entries ServiceEntries (internal/meshgen) with seed and
// returns its options and a loader giving a fresh snapshot of it on each call.
func generatedMesh(t *testing.T, entries int, seed uint64) (meshgen.Options, func() *snapshot.Snapshot) {
	t.Helper()
	var buf bytes.Buffer
	o := meshgen.ForEntries(entries)
	o.Seed = seed
	if err := meshgen.Write(&buf, o); err != nil {
		t.Fatal(err)
	}
	return o, func() *snapshot.Snapshot {
		snap, err := loader.FromFiles([]string{"-"}, bytes.NewReader(buf.Bytes()), loader.Options{Lenient: true})
		if err != nil {
			t.Fatal(err)
		}
		return snap
	}
}
