package checks

import (
	"slices"
	"strings"
)

// One fault, two views: preflight traces the path from each client namespace and also takes
// each gateway's verdict, and a fault at the gateway (TLS originated twice, say) is seen by both
// under the same code, blaming the same resource and field, in each view's own words. Listed
// twice it reads as two faults. mergePathAndGateway keeps the first of the two with the contexts
// of both. Findings of the same code that are not the two views of one call stay apart (two
// subsets missing from one DestinationRule are two faults).
func mergePathAndGateway(fs []PreflightFinding) []PreflightFinding {
	type place struct{ id, kind, ns, name, field string }
	first := map[place]int{}
	var out []PreflightFinding
	for _, f := range fs {
		k := place{f.ID, f.Resource.Kind, f.Resource.Namespace, f.Resource.Name, f.Field}
		if i, ok := first[k]; ok && f.Resource.Name != "" && pathAndGateway(out[i], f) {
			for _, c := range f.Contexts {
				if !slices.Contains(out[i].Contexts, c) {
					out[i].Contexts = append(out[i].Contexts, c)
				}
			}
			continue
		}
		if _, ok := first[k]; !ok {
			first[k] = len(out)
		}
		out = append(out, f)
	}
	return out
}

// pathAndGateway: one finding was seen only on traced paths ("path from sidecar in NS, KIND
// host:port"), the other only in gateway verdicts ("gateway NS/NAME, host:port"), for a common
// host:port.
func pathAndGateway(a, b PreflightFinding) bool {
	calls := func(f PreflightFinding, prefix string) []string {
		var out []string
		for _, c := range f.Contexts {
			if !strings.HasPrefix(c, prefix) {
				return nil
			}
			out = append(out, c[strings.LastIndex(c, " ")+1:])
		}
		return out
	}
	for _, p := range [][2]PreflightFinding{{a, b}, {b, a}} {
		g := calls(p[1], "gateway ")
		for _, hp := range calls(p[0], "path from ") {
			if slices.Contains(g, hp) {
				return true
			}
		}
	}
	return false
}
