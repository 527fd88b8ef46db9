package plugin

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/kubectl-egress/kubectl-egress/internal/meshgen"
)

// BenchmarkDocumentLines: locating every object of one large manifest (preflight -f) is one
// pass over the file, so 10,000 entries cost about ten times 1,000 (it was a scan of the whole
// file per object). Figures: docs/performance.md.
func BenchmarkDocumentLines(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		var buf bytes.Buffer
		if err := meshgen.Write(&buf, meshgen.ForEntries(n)); err != nil {
			b.Fatal(err)
		}
		text := buf.String()
		b.Run(fmt.Sprintf("entries=%d", n), func(b *testing.B) {
			for b.Loop() {
				idx := documentLines(text)
				if idx[[3]string{"ServiceEntry", "", "se-0"}] == 0 {
					b.Fatal("se-0 not located")
				}
			}
		})
	}
}
