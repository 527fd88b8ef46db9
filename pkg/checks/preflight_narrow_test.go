package checks

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/kubectl-egress/kubectl-egress/internal/meshgen"
	"github.com/kubectl-egress/kubectl-egress/pkg/loader"
	"github.com/kubectl-egress/kubectl-egress/pkg/snapshot"
)

// TestPreflightNarrowUsed: on generated meshes (every namespace with private entries on the
// public layer's ports) the namespaces are predicted narrow, and the report is the one the
// whole namespaces give (and, TestPreflightSharingChangesNothing, the unshared one).
func TestPreflightNarrowUsed(t *testing.T) {
	for seed := uint64(1); seed <= 2; seed++ {
		var buf bytes.Buffer
		o := meshgen.ForEntries(300)
		o.Seed = seed
		if err := meshgen.Write(&buf, o); err != nil {
			t.Fatal(err)
		}
		load := func() *snapshot.Snapshot {
			snap, err := loader.FromFiles([]string{"-"}, bytes.NewReader(buf.Bytes()), loader.Options{Lenient: true})
			if err != nil {
				t.Fatal(err)
			}
			return snap
		}
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
