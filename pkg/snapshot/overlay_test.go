package snapshot_test

import (
	"strings"
	"testing"
	"time"

	meshv1alpha1 "istio.io/api/mesh/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-egress/kubectl-egress/pkg/loader"
	"github.com/kubectl-egress/kubectl-egress/pkg/snapshot"
)

func load(t *testing.T, y string) *snapshot.Snapshot {
	t.Helper()
	s, err := loader.FromFiles([]string{"-"}, strings.NewReader(y), loader.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

const live = `
apiVersion: apps/v1
kind: Deployment
metadata: {name: istio-egressgateway, namespace: istio-system, creationTimestamp: "2024-01-01T00:00:00Z"}
spec:
  selector: {matchLabels: {istio: egressgateway}}
  template: {metadata: {labels: {istio: egressgateway, live: "yes"}}}
---
apiVersion: networking.istio.io/v1
kind: ServiceEntry
metadata: {name: api, namespace: team-a, creationTimestamp: "2024-01-02T00:00:00Z"}
spec: {hosts: [api.example.com], exportTo: ["*"], ports: [{number: 80, name: http, protocol: HTTP}]}
---
apiVersion: networking.istio.io/v1
kind: ServiceEntry
metadata: {name: other, namespace: team-a, creationTimestamp: "2024-01-03T00:00:00Z"}
spec: {hosts: [other.example.com], ports: [{number: 80, name: http, protocol: HTTP}]}
---
apiVersion: networking.istio.io/v1
kind: VirtualService
metadata: {name: api, namespace: team-a, creationTimestamp: "2024-01-04T00:00:00Z"}
spec: {hosts: [api.example.com]}
`

// release changes ServiceEntry team-a/api, adds two ServiceEntries (one with the name of an
// existing one in another namespace) and a DestinationRule named like the ServiceEntry; it has
// no gateway workload, so the file loader adds its synthetic one.
const release = `
apiVersion: networking.istio.io/v1
kind: ServiceEntry
metadata: {name: api, namespace: team-a}
spec: {hosts: [api.example.com], exportTo: ["."], ports: [{number: 80, name: http, protocol: HTTP}]}
---
apiVersion: networking.istio.io/v1
kind: ServiceEntry
metadata: {name: new-b, namespace: team-a}
spec: {hosts: [b.example.com], ports: [{number: 80, name: http, protocol: HTTP}]}
---
apiVersion: networking.istio.io/v1
kind: ServiceEntry
metadata: {name: other, namespace: team-b}
spec: {hosts: [other.example.com], ports: [{number: 80, name: http, protocol: HTTP}]}
---
apiVersion: networking.istio.io/v1
kind: DestinationRule
metadata: {name: api, namespace: team-a}
spec: {host: api.example.com}
`

func TestOverlay(t *testing.T) {
	base := load(t, live)
	base.Source = "cluster https://k8s"
	base.Unknown[snapshot.KindPod] = "forbidden to list pods"
	base.MeshConfigs[""] = &snapshot.MeshConfigSource{Ref: "istio-system/istio", Config: &meshv1alpha1.MeshConfig{RootNamespace: "live"}}
	over := load(t, release)
	over.Source = "files release/"
	over.MeshConfigs["canary"] = &snapshot.MeshConfigSource{Ref: "istio-system/istio-canary", Config: &meshv1alpha1.MeshConfig{RootNamespace: "canary"}}
	if !over.Assumptions.SyntheticGateway {
		t.Fatal("the file loader did not add its synthetic gateway; the test premise is wrong")
	}
	baseSE := base.ServiceEntries[0]
	overSE := over.ServiceEntries[0]
	overSETime := overSE.CreationTimestamp

	out := snapshot.Overlay(base, over)

	if out.Source != "cluster https://k8s + files release/" {
		t.Errorf("source %q", out.Source)
	}
	// Replaced in place, keeping the live creation time; new objects after every live object.
	var got []string
	for _, se := range out.ServiceEntries {
		got = append(got, se.Namespace+"/"+se.Name+" "+se.CreationTimestamp.UTC().Format(time.RFC3339)+" "+strings.Join(se.Spec.ExportTo, ","))
	}
	want := []string{
		"team-a/api 2024-01-02T00:00:00Z .",
		"team-a/other 2024-01-03T00:00:00Z ",
		"team-a/new-b 2024-01-04T00:00:01Z ",
		"team-b/other 2024-01-04T00:00:02Z ",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("ServiceEntries:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Kinds are separate: the DestinationRule named like the ServiceEntry is added, the
	// VirtualService stays.
	if len(out.DestinationRules) != 1 || len(out.VirtualServices) != 1 || out.DestinationRules[0].CreationTimestamp.Time.Before(time.Date(2024, 1, 4, 0, 0, 1, 0, time.UTC)) {
		t.Errorf("DestinationRules %d VirtualServices %d", len(out.DestinationRules), len(out.VirtualServices))
	}
	// The synthetic gateway of the files does not replace the live one.
	if len(out.Deployments) != 1 || out.Deployments[0].Spec.Template.Labels["live"] != "yes" || out.Assumptions.SyntheticGateway {
		t.Errorf("deployments %+v synthetic %v", out.Deployments, out.Assumptions.SyntheticGateway)
	}
	// Mesh configs: over's revisions replace or add; unknown kinds stay unknown; no live evidence.
	if out.MeshConfigs[""].Config.GetRootNamespace() != "live" || out.MeshConfigs["canary"].Config.GetRootNamespace() != "canary" {
		t.Errorf("mesh configs %v", out.MeshConfigs)
	}
	if out.Unknown[snapshot.KindPod] == "" || out.Live != nil {
		t.Errorf("unknown %v live %v", out.Unknown, out.Live)
	}
	// Inputs untouched: base keeps its object, over's object keeps its own creation time.
	if base.ServiceEntries[0] != baseSE || len(baseSE.Spec.ExportTo) != 1 || baseSE.Spec.ExportTo[0] != "*" || len(base.ServiceEntries) != 2 {
		t.Errorf("base modified: %+v", base.ServiceEntries)
	}
	if !overSE.CreationTimestamp.Equal(&overSETime) || out.ServiceEntries[0] == overSE {
		t.Errorf("over modified or shared: %v", overSE.CreationTimestamp)
	}
	if len(over.Deployments) != 1 {
		t.Errorf("over's deployments changed: %d", len(over.Deployments))
	}
}

// TestOverlayEmpty: an empty overlay gives the base's objects; an empty base the overlay's.
func TestOverlayEmpty(t *testing.T) {
	base := load(t, live)
	empty := snapshot.NewEmpty("files none", "istio-system", "")
	out := snapshot.Overlay(base, empty)
	if len(out.ServiceEntries) != 2 || len(out.Deployments) != 1 || len(out.VirtualServices) != 1 {
		t.Errorf("base through an empty overlay: %d SEs %d deployments", len(out.ServiceEntries), len(out.Deployments))
	}
	over := load(t, release)
	out = snapshot.Overlay(snapshot.NewEmpty("cluster x", "istio-system", ""), over)
	if len(out.ServiceEntries) != 3 || len(out.Deployments) != 0 {
		t.Errorf("overlay onto nothing: %d SEs, %d deployments (the synthetic gateway must go)", len(out.ServiceEntries), len(out.Deployments))
	}
	for _, se := range out.ServiceEntries {
		if se.CreationTimestamp.Time.Before(metav1.Unix(0, 0).Time) {
			t.Errorf("%s: creation time %v", se.Name, se.CreationTimestamp)
		}
	}
}

// TestWorkloadsRead: manifests hold every workload; a live load holds those its queries
// covered: their namespace or every namespace, with a selector the asked labels imply.
func TestWorkloadsRead(t *testing.T) {
	files := &snapshot.Snapshot{}
	if !files.WorkloadsRead("any", nil) {
		t.Error("manifests: want every workload read")
	}
	live := &snapshot.Snapshot{Load: snapshot.LoadStats{WorkloadQueries: 2, WorkloadScope: []snapshot.WorkloadQuery{
		{Namespace: "istio-system"},
		{Selector: map[string]string{"istio": "egressgateway"}},
	}}}
	for _, c := range []struct {
		ns   string
		sel  map[string]string
		want bool
	}{
		{"istio-system", map[string]string{"app": "x"}, true},
		{"edge", map[string]string{"istio": "egressgateway", "app": "gw"}, true},
		{"edge", map[string]string{"app": "istio-egressgateway"}, false},
		{"edge", nil, false},
	} {
		if got := live.WorkloadsRead(c.ns, c.sel); got != c.want {
			t.Errorf("WorkloadsRead(%s, %v) = %t, want %t", c.ns, c.sel, got, c.want)
		}
	}
	live.Unknown = map[string]string{snapshot.KindPod: "forbidden"}
	if live.WorkloadsRead("istio-system", nil) {
		t.Error("a refused Pod list: want not read")
	}
}
