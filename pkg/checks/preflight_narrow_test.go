package checks

import (
	"bytes"
	"encoding/json"
	"testing"
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
