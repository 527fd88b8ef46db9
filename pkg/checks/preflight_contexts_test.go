package checks

import (
	"fmt"
	"slices"
	"testing"
)

// TestSidecarContextsRoundTrip: each way a set of client namespaces is written (one, a few, all,
// all but a few, many) expands back to the same namespaces, with the place kept.
func TestSidecarContextsRoundTrip(t *testing.T) {
	var names []string
	for i := range 20 {
		names = append(names, fmt.Sprintf("team-%02d", i))
	}
	sets := map[string][]int{
		"sidecar in team-03": {3},
		"sidecars in 3 namespaces (team-00, team-05, team-19)":                                                                 {0, 5, 19},
		"sidecars in every client namespace (20)":                                                                              nil,
		"sidecars in every client namespace but team-01, team-02 (18)":                                                         nil,
		"sidecars in 10 namespaces (team-00, team-01, team-02, team-03, team-04, team-05, team-06, team-07, team-08, team-09)": {0, 1, 2, 3, 4, 5, 6, 7, 8, 9},
	}
	sets["sidecars in every client namespace (20)"] = make([]int, 20)
	for i := range 20 {
		sets["sidecars in every client namespace (20)"][i] = i
	}
	for i := range 20 {
		if i != 1 && i != 2 {
			sets["sidecars in every client namespace but team-01, team-02 (18)"] = append(sets["sidecars in every client namespace but team-01, team-02 (18)"], i)
		}
	}
	for want, idx := range sets {
		s := newNSSet(len(names))
		for _, i := range idx {
			s.add(i)
		}
		if got := renderSidecars(s, names); got != want {
			t.Errorf("set %v: rendered %q, want %q", idx, got, want)
		}
		for _, x := range []sidecarCtx{{rest: "api.example.com:443"}, {path: true, rest: "TLS api.example.com:443"}, {rest: "port 443"}} {
			var expect []string
			for _, i := range idx {
				expect = append(expect, x.render("sidecar in "+names[i]))
			}
			if got := ExpandContexts([]string{x.render(want), "gateway istio-system/egw, api.example.com:443"}, names); !slices.Equal(got, append(expect, "gateway istio-system/egw, api.example.com:443")) {
				t.Errorf("%q expands to %q, want %q", x.render(want), got, expect)
			}
			// the live state's namespaces written out, for a report whose client namespaces differ
			listed := listedContexts([]string{x.render(want)}, names)
			if got := ExpandContexts(listed, nil); !slices.Equal(got, expect) {
				t.Errorf("%q listed as %q expands to %q, want %q", x.render(want), listed, got, expect)
			}
		}
	}
}
