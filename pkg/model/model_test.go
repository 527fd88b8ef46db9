package model

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	meshv1alpha1 "istio.io/api/mesh/v1alpha1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/kubectl-egress/kubectl-egress/internal/meshgen"
	"github.com/kubectl-egress/kubectl-egress/pkg/loader"
	"github.com/kubectl-egress/kubectl-egress/pkg/rules"
	"github.com/kubectl-egress/kubectl-egress/pkg/snapshot"
)

// inputs returns the snapshots the index tests run on: this package's fixture, a generated
// mesh, the repository's case fixtures, and the shared case files when they are beside the
// repository.
func inputs(t *testing.T, withPaths ...bool) map[string]*snapshot.Snapshot {
	routes := len(withPaths) > 0 && withPaths[0]
	t.Helper()
	out := map[string]*snapshot.Snapshot{}
	load := func(name string, paths []string, stdin []byte, lenient ...bool) {
		s, err := loader.FromFiles(paths, bytes.NewReader(stdin), loader.Options{Lenient: len(lenient) > 0})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out[name] = s
	}
	load("variety", []string{filepath.Join("testdata", "variety.yaml")}, nil)
	var buf bytes.Buffer
	if err := meshgen.Write(&buf, meshgen.ForEntries(300)); err != nil {
		t.Fatal(err)
	}
	load("meshgen-300", []string{"-"}, buf.Bytes())
	repo, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "cases", "*.yaml"))
	if len(repo) == 0 {
		t.Fatal("no case fixtures in testdata/cases")
	}
	files, _ := filepath.Glob(filepath.Join("..", "..", "..", "shared", "cases", "*.yaml"))
	gaps, _ := filepath.Glob(filepath.Join("..", "..", "..", "shared", "conformance-gaps", "*.yaml"))
	for _, f := range append(append(repo, files...), gaps...) {
		if _, err := os.Stat(f); err == nil {
			load(filepath.Base(f), []string{f}, nil)
		}
	}
	if routes {
		buf.Reset()
		amb := meshgen.ForEntries(600)
		amb.Ambient = true
		if err := meshgen.Write(&buf, amb); err != nil {
			t.Fatal(err)
		}
		load("meshgen-ambient-600", []string{"-"}, buf.Bytes())
		// The path fixtures of pkg/checks (each read with their shared base), where the
		// Gateway API and ambient shapes are; leniently, as their tests read them (a fixture may
		// replace an object of the base).
		base := filepath.Join("..", "checks", "testdata", "paths", "_base.yaml")
		paths, _ := filepath.Glob(filepath.Join("..", "checks", "testdata", "paths", "*.yaml"))
		for _, f := range paths {
			if f != base {
				load("paths/"+filepath.Base(f), []string{base, f}, nil, true)
			}
		}
	}
	return out
}

func refs(ss []rules.Service) []string {
	var out []string
	for _, s := range ss {
		out = append(out, s.Ref()+" "+s.Hostname+" "+strings.Join(s.ExportTo, ","))
	}
	return out
}

// The registry answers what the linear functions of pkg/rules answer, in the same order.
func TestRegistryMatchesLinearLookups(t *testing.T) {
	for name, snap := range inputs(t) {
		for _, rev := range []string{"", "canary"} {
			view := View(snap, rev)
			var cfg *meshv1alpha1.MeshConfig
			if m := snap.MeshConfigs[""]; m != nil {
				cfg = m.Config
			}
			reg := Services(view, cfg)
			opt := ServiceOptions(view, cfg)
			hosts := map[string]bool{"nosuch.example.com": true}
			for _, se := range view.ServiceEntries {
				for _, h := range se.Spec.Hosts {
					hosts[h] = true
				}
				for _, a := range se.Spec.Addresses {
					ip, _, _ := strings.Cut(a, "/")
					hosts[ip] = true
				}
			}
			for _, svc := range view.Services {
				hosts[rules.KubeServiceHost(svc)] = true
			}
			for h := range hosts {
				if rules.IsIP(h) {
					if got, want := refs(reg.ForAddress(h)), refs(rules.ServicesForAddress(view.ServiceEntries, h, opt)); !slices.Equal(got, want) {
						t.Errorf("%s rev %q ForAddress(%s):\n got  %v\n want %v", name, rev, h, got, want)
					}
					continue
				}
				if got, want := refs(reg.ForHost(h)), refs(rules.ServicesForHost(view.ServiceEntries, view.Services, h, opt)); !slices.Equal(got, want) {
					t.Errorf("%s rev %q ForHost(%s):\n got  %v\n want %v", name, rev, h, got, want)
				}
				if got, want := refs(reg.EntriesForHost(h)), refs(rules.ServicesForHost(view.ServiceEntries, nil, h, opt)); !slices.Equal(got, want) {
					t.Errorf("%s rev %q EntriesForHost(%s):\n got  %v\n want %v", name, rev, h, got, want)
				}
			}
			for _, se := range view.ServiceEntries {
				if got, want := refs(reg.ForEntry(se)), refs(rules.ServiceEntryServices(se, opt)); !slices.Equal(got, want) {
					t.Errorf("%s ForEntry(%s/%s):\n got  %v\n want %v", name, se.Namespace, se.Name, got, want)
				}
			}
			for _, ns := range []string{"team-a", "team-b", "istio-system", "ns-001"} {
				if got, want := refs(reg.ExportedTo(ns)), refs(rules.ServicesExportedTo(reg.All, ns)); !slices.Equal(got, want) {
					t.Errorf("%s ExportedTo(%s) differs", name, ns)
				}
			}
		}
	}
}

func destKeys(ds []rules.Dest) []string {
	var out []string
	for _, d := range ds {
		out = append(out, d.Kind+" "+d.Host+" "+d.Subset+" "+d.Root.Name+" "+d.Declared.Name)
	}
	return out
}

// The VirtualService index answers what a scan of every VirtualService answers.
func TestVirtualServiceIndexMatchesScan(t *testing.T) {
	for name, snap := range inputs(t) {
		view := View(snap, "")
		for _, export := range [][]string{nil, {"."}} {
			x := VirtualServices(view, export)
			gateways := map[string]bool{rules.MeshGateway: true, "istio-system/nosuch": true}
			hosts := map[string]bool{"*.example.com": true, "nosuch.example.com": true}
			for _, vs := range view.VirtualServices {
				d, p := rules.MergedRoutes(vs, view.VirtualServices, export)
				gd, gp := x.Merged(vs)
				if len(vs.Spec.Hosts) > 0 && (!slices.Equal(destKeys(d), destKeys(gd)) || len(p) != len(gp)) {
					t.Errorf("%s: Merged(%s/%s) differs", name, vs.Namespace, vs.Name)
				}
				for _, g := range rules.VSGateways(vs) {
					gateways[g] = true
				}
				for _, h := range vs.Spec.Hosts {
					hosts[strings.ToLower(rules.ResolveShortname(h, vs.Namespace))] = true
				}
			}
			for g := range gateways {
				for _, scope := range []bool{false, true} {
					if got, want := destKeys(x.GatewayDestinations(g, scope)), destKeys(rules.GatewayDestinations(view.VirtualServices, g, export, scope)); !slices.Equal(got, want) {
						t.Errorf("%s GatewayDestinations(%s, %t):\n got  %v\n want %v", name, g, scope, got, want)
					}
				}
			}
			for h := range hosts {
				var want []string
				for _, vs := range view.VirtualServices {
					if len(vs.Spec.Hosts) == 0 {
						continue
					}
					relevant := false
					for _, vh := range vs.Spec.Hosts {
						if vh != "*" && rules.HostMatches(strings.ToLower(rules.ResolveShortname(vh, vs.Namespace)), h) {
							relevant = true
						}
					}
					d, _ := rules.MergedRoutes(vs, view.VirtualServices, export)
					for _, dd := range d {
						if strings.ToLower(dd.Host) == h {
							relevant = true
						}
					}
					if relevant {
						want = append(want, vs.Namespace+"/"+vs.Name)
					}
				}
				var got []string
				for _, vs := range x.Relevant(h, []string{h}) {
					got = append(got, vs.Namespace+"/"+vs.Name)
				}
				if !slices.Equal(got, want) {
					t.Errorf("%s Relevant(%s):\n got  %v\n want %v", name, h, got, want)
				}
			}
		}
	}
}

// A copy of a snapshot (a revision view) never sees what was derived from the original.
func TestDerivedBelongsToItsSnapshot(t *testing.T) {
	snap := inputs(t)["variety"]
	a := View(snap, "")
	if b := View(snap, ""); a != b {
		t.Fatal("View is not kept with the snapshot")
	}
	copied := *snap
	copied.ServiceEntries = nil
	if got := len(Services(&copied, nil).All); got != len(snap.Services) {
		t.Fatalf("registry of a copy without entries has %d services, want %d (its Services only)", got, len(snap.Services))
	}
	if got := len(Services(snap, nil).All); got <= len(snap.Services) {
		t.Fatalf("registry of the original lost its entries: %d", got)
	}
}

// The route and VirtualService indexes of the ambient checks answer what a scan of every route
// and VirtualService answers, in the same order.
func TestEntryRouteIndexesMatchScan(t *testing.T) {
	attached := 0
	for name, snap := range inputs(t, true) {
		routes := KubeRoutes(snap)
		byEntry := RoutesByEntry(snap)
		vsIdx := MeshVirtualServicesByHost(snap)
		for _, se := range snap.ServiceEntries {
			var want []string
			for _, r := range routes {
				if slices.ContainsFunc(r.ParentRefs, func(pr gatewayv1.ParentReference) bool {
					kind, ns := rules.KubeParentKind(pr, r.Namespace)
					return kind == rules.KubeParentServiceEntry && string(pr.Name) == se.Name && ns == se.Namespace
				}) {
					want = append(want, r.Ref())
				}
			}
			var got []string
			for _, r := range byEntry.Attached(se) {
				got = append(got, r.Ref())
			}
			if !slices.Equal(got, want) {
				t.Errorf("%s: routes on ServiceEntry %s/%s: index %v, scan %v", name, se.Namespace, se.Name, got, want)
			}
			attached += len(got)
			hosts := append(slices.Clone(se.Spec.GetHosts()), "*.example.com", "*")
			for _, h := range hosts {
				var wantVS, gotVS []string
				for _, vs := range snap.VirtualServices {
					if slices.Contains(rules.VSGateways(vs), rules.MeshGateway) && slices.ContainsFunc(vs.Spec.GetHosts(), func(x string) bool {
						return rules.HostMatches(strings.ToLower(rules.ResolveShortname(x, vs.Namespace)), strings.ToLower(h))
					}) {
						wantVS = append(wantVS, vs.Namespace+"/"+vs.Name)
					}
				}
				for _, vs := range vsIdx.Matching([]string{h}) {
					gotVS = append(gotVS, vs.Namespace+"/"+vs.Name)
				}
				if !slices.Equal(gotVS, wantVS) {
					t.Errorf("%s: mesh VirtualServices for %s: index %v, scan %v", name, h, gotVS, wantVS)
				}
			}
		}
	}
	if attached < 100 {
		t.Fatalf("only %d routes attached to entries in the inputs: the test compares too little", attached)
	}
}
