package rules

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestExportIndexMatchesServicesExportedTo: the index built once gives, for every proxy
// namespace, exactly ServicesExportedTo's entries in its order, on random entries with ties in
// creation time and every exportTo form.
func TestExportIndexMatchesServicesExportedTo(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	nss := []string{"a", "b", "c", "istio-system"}
	exports := [][]string{{"*"}, {"."}, {"~"}, {"a"}, {".", "b"}, {"c", "*"}, {"istio-system"}, nil}
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for round := 0; round < 50; round++ {
		var all []Service
		for i := 0; i < 40; i++ {
			ns := nss[r.IntN(len(nss))]
			all = append(all, Service{Kind: KindServiceEntry, Namespace: ns, Name: fmt.Sprintf("se-%d", i),
				Hostname: fmt.Sprintf("h%d.example.com", r.IntN(10)), ExportTo: exports[r.IntN(len(exports))],
				Created: metav1.NewTime(base.Add(time.Duration(r.IntN(5)) * time.Second))})
		}
		SortByCreation(all)
		x := NewExportIndex(all)
		for _, ns := range append(nss, "other") {
			want := ServicesExportedTo(all, ns)
			got := x.For(ns)
			if !slices.EqualFunc(got, want, func(a, b Service) bool { return a.Ref() == b.Ref() && a.Hostname == b.Hostname }) {
				t.Fatalf("round %d ns %s: index gives %d entries, ServicesExportedTo %d (or another order)", round, ns, len(got), len(want))
			}
		}
	}
}
