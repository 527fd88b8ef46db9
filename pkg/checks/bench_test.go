package checks

import (
	"bytes"
	"flag"
	"fmt"
	"sync"
	"testing"

	"github.com/kubectl-egress/kubectl-egress/internal/meshgen"
	"github.com/kubectl-egress/kubectl-egress/pkg/loader"
	"github.com/kubectl-egress/kubectl-egress/pkg/snapshot"
)

// Benchmarks on generated meshes (internal/meshgen, the anchor mesh's shape). Loading is done
// once per size, outside the timed loop; each iteration gets a fresh copy of the snapshot so
// nothing derived from an earlier iteration is reused. Sizes: 1k and 10k always; 50k with
// -bench-50k (it takes minutes to generate and parse). Figures: docs/performance.md.

var benchMeshes sync.Map // entries -> []byte (YAML)

func benchSnapshot(b *testing.B, entries int) *snapshot.Snapshot {
	b.Helper()
	v, ok := benchMeshes.Load(entries)
	if !ok {
		var buf bytes.Buffer
		if err := meshgen.Write(&buf, meshgen.ForEntries(entries)); err != nil {
			b.Fatal(err)
		}
		v, _ = benchMeshes.LoadOrStore(entries, buf.Bytes())
	}
	snap, err := loader.FromFiles([]string{"-"}, bytes.NewReader(v.([]byte)), loader.Options{})
	if err != nil {
		b.Fatal(err)
	}
	if got := len(snap.ServiceEntries); got != entries {
		b.Fatalf("mesh has %d ServiceEntries, want %d", got, entries)
	}
	return snap
}

func benchSizes() []int {
	if *bench50k {
		return []int{1000, 10000, 50000}
	}
	return []int{1000, 3000, 10000}
}

var bench50k = flag.Bool("bench-50k", false, "also benchmark the 50k-entry mesh")

func BenchmarkPreflight(b *testing.B) {
	for _, n := range benchSizes() {
		b.Run(fmt.Sprintf("entries=%d", n), func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				snap := benchSnapshot(b, n)
				b.StartTimer()
				res := Preflight(snap)
				if len(res.Findings) == 0 {
					b.Fatal("no findings on the generated mesh")
				}
			}
		})
	}
}
