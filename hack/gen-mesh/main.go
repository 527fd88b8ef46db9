// Command gen-mesh writes a synthetic mesh (internal/meshgen) to standard output, for the
// benchmarks and hack/bench-live.sh:
//
//	go run ./hack/gen-mesh -entries 10000 > mesh.yaml
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/kubectl-egress/kubectl-egress/internal/meshgen"
)

func main() {
	entries := flag.Int("entries", 1000, "number of ServiceEntries (50 per namespace)")
	control := flag.Bool("control-plane", true, "also write istio-system, istiod and the egress gateway workload")
	seed := flag.Uint64("seed", 7, "random seed")
	ambient := flag.Bool("ambient", false, "make every odd namespace ambient, with a waypoint, waypoint-bound entries and routes attached to them")
	flag.Parse()
	o := meshgen.ForEntries(*entries)
	o.Control, o.Seed, o.Ambient = *control, *seed, *ambient
	if err := meshgen.Write(os.Stdout, o); err != nil {
		fmt.Fprintln(os.Stderr, "gen-mesh:", err)
		os.Exit(1)
	}
}
