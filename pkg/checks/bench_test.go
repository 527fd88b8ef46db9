package checks

import (
	"bytes"
	"flag"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/kubectl-egress/kubectl-egress/internal/meshgen"
	"github.com/kubectl-egress/kubectl-egress/pkg/loader"
	"github.com/kubectl-egress/kubectl-egress/pkg/model"
	"github.com/kubectl-egress/kubectl-egress/pkg/snapshot"
)

// Benchmarks on generated meshes (internal/meshgen, the anchor mesh's shape). Loading is done
// once per size, outside the timed loop; each iteration gets a fresh copy of the snapshot so
// nothing derived from an earlier iteration is reused. Sizes: 1k and 10k always; 50k with
// -bench-50k (it takes minutes to generate and parse). Figures: docs/performance.md.

var benchMeshes sync.Map // benchKey -> []byte (YAML)

type benchKey struct {
	entries int
	ambient bool
}

func benchSnapshot(b *testing.B, entries int) *snapshot.Snapshot {
	return benchMesh(b, entries, false)
}

// benchMesh: the anchor mesh, or with ambient its ambient dimension (meshgen Options.Ambient:
// ambient namespaces with waypoints, waypoint-bound entries and routes attached to them).
func benchMesh(b *testing.B, entries int, ambient bool) *snapshot.Snapshot {
	b.Helper()
	key := benchKey{entries, ambient}
	v, ok := benchMeshes.Load(key)
	if !ok {
		var buf bytes.Buffer
		o := meshgen.ForEntries(entries)
		o.Ambient = ambient
		if err := meshgen.Write(&buf, o); err != nil {
			b.Fatal(err)
		}
		v, _ = benchMeshes.LoadOrStore(key, buf.Bytes())
	}
	snap, err := loader.FromFiles([]string{"-"}, bytes.NewReader(v.([]byte)), loader.Options{Lenient: true})
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
	return []int{1000, 10000}
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

// benchEach runs fn on a fresh snapshot of every size.
func benchEach(b *testing.B, fn func(b *testing.B, snap *snapshot.Snapshot)) {
	benchEachMesh(b, false, fn)
}

func benchEachMesh(b *testing.B, ambient bool, fn func(b *testing.B, snap *snapshot.Snapshot)) {
	for _, n := range benchSizes() {
		b.Run(fmt.Sprintf("entries=%d", n), func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				snap := benchMesh(b, n, ambient)
				b.StartTimer()
				fn(b, snap)
			}
		})
	}
}

// BenchmarkModelBuild: the push-context indexes of the default revision (service registry,
// VirtualService index, DestinationRule lookup) and the istiod flags.
func BenchmarkModelBuild(b *testing.B) {
	benchEach(b, func(b *testing.B, snap *snapshot.Snapshot) {
		view := RevisionView(snap, "")
		flags := ReadIstiodFlags(view, "")
		mc := flags.MeshConfig
		if len(model.Services(view, mc).All) == 0 {
			b.Fatal("empty registry")
		}
		model.VirtualServices(view, mc.GetDefaultVirtualServiceExportTo())
		model.DestinationRules(view, snap.IstioNamespace, mc.GetDefaultDestinationRuleExportTo())
	})
}

// BenchmarkProxyConfigGateway: the egress gateway's whole predicted config.
func BenchmarkProxyConfigGateway(b *testing.B) {
	benchEach(b, func(b *testing.B, snap *snapshot.Snapshot) {
		rep, err := ProxyConfig(snap, ProxyConfigOptions{Gateway: "istio-system/istio-egressgateway"})
		if err != nil || len(rep.Clusters) == 0 {
			b.Fatalf("%v, %d clusters", err, len(rep.Clusters))
		}
	})
}

// BenchmarkProxyConfigSidecar: the whole predicted config of one client namespace's sidecars.
func BenchmarkProxyConfigSidecar(b *testing.B) {
	benchEach(b, func(b *testing.B, snap *snapshot.Snapshot) {
		rep, err := ProxyConfig(snap, ProxyConfigOptions{From: "ns-000"})
		if err != nil || len(rep.Listeners) == 0 {
			b.Fatalf("%v, %d listeners", err, len(rep.Listeners))
		}
	})
}

func BenchmarkExportAudit(b *testing.B) {
	benchEach(b, func(b *testing.B, snap *snapshot.Snapshot) {
		if rep := ExportAudit(snap, AuditOptions{}); len(rep.Resources) == 0 {
			b.Fatal("no resources audited")
		}
	})
}

func BenchmarkVisibility(b *testing.B) {
	benchEach(b, func(b *testing.B, snap *snapshot.Snapshot) {
		if rep := Visibility(snap, VisibilityOptions{}); len(rep.Entries) == 0 {
			b.Fatal("no entries")
		}
	})
}

func BenchmarkWhyMissing(b *testing.B) {
	benchEach(b, func(b *testing.B, snap *snapshot.Snapshot) {
		if _, err := WhyMissing(snap, WhyMissingOptions{Host: "svc0.ns0.example.com"}); err != nil {
			b.Fatal(err)
		}
	})
}

func BenchmarkExplainListener(b *testing.B) {
	benchEach(b, func(b *testing.B, snap *snapshot.Snapshot) {
		if _, err := ExplainListener(snap, ExplainListenerOptions{Port: 80, From: "ns-000"}); err != nil {
			b.Fatal(err)
		}
	})
}

// BenchmarkPreflightAmbient: preflight on the ambient dimension of the generated mesh (half the
// namespaces ambient, each with a waypoint; waypoint-bound entries with routes attached).
func BenchmarkPreflightAmbient(b *testing.B) {
	benchEachMesh(b, true, func(b *testing.B, snap *snapshot.Snapshot) {
		res := Preflight(snap)
		if !slices.ContainsFunc(res.Findings, func(f PreflightFinding) bool { return f.Code == WaypointRouteIgnored }) {
			b.Fatal("the ambient mesh's ignored routes were not reported")
		}
	})
}

// BenchmarkVisibilityAmbient: visibility -A on the ambient dimension.
func BenchmarkVisibilityAmbient(b *testing.B) {
	benchEachMesh(b, true, func(b *testing.B, snap *snapshot.Snapshot) {
		if rep := Visibility(snap, VisibilityOptions{}); len(rep.Entries) == 0 {
			b.Fatal("no entries")
		}
	})
}
