package conformance

// Gateway API status: the Accepted and ResolvedRefs conditions istiod writes for each route's
// parentRefs and the attachedRoutes it writes for each Gateway listener, against what the
// plugin predicts. istiod's own Gateway API controller (pilot/test/xds FakeDiscoveryServer)
// computes the statuses; a status manager (pilot/pkg/status.NewManager, as istiod's leader
// runs it) writes them to a store that keeps them. Each scenario is then given back to the
// plugin with istiod's statuses in place of its own, and preflight must find no
// GATEWAY_API_STATUS_DISAGREES: every condition the plugin compares (Accepted for Gateway and
// mesh parents, ResolvedRefs, attachedRoutes, entries for parents the spec does not list) agrees
// with what istiod wrote for the same configuration. Scenarios: the generated routes of
// TestConformanceGatewayAPIRoutes (Gateway and mesh parents, missing parents, sections and
// ports, hostnames, backends refused or not found), the files under testdata/gatewayapi, and
// the generated Gateways of TestConformanceGatewayAPIGateways alone, whose listeners' Conflicted,
// ResolvedRefs and Programmed conditions are compared (certificateRefs refused or missing,
// conflicts, route kinds).

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"istio.io/istio/pilot/pkg/config/kube/crd"
	"istio.io/istio/pilot/pkg/config/kube/gateway"
	"istio.io/istio/pilot/pkg/model"
	"istio.io/istio/pilot/pkg/status"
	"istio.io/istio/pilot/test/xds"
	"istio.io/istio/pkg/config"
	"istio.io/istio/pkg/config/schema/collection"
	"istio.io/istio/pkg/test"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-egress/kubectl-egress/pkg/checks"
	"github.com/kubectl-egress/kubectl-egress/pkg/loader"
)

// statusStore is the model.ConfigStore istiod's status manager writes to: Get returns a bare
// object of the generation the scenario gives it (the manager writes only when it matches),
// UpdateStatus keeps the status, as JSON, by "Kind namespace/name".
type statusStore struct {
	mu          sync.Mutex
	generations map[string]int64
	written     map[string]json.RawMessage
}

func (s *statusStore) Schemas() collection.Schemas { return collection.Schemas{} }

func (s *statusStore) Get(typ config.GroupVersionKind, name, namespace string) *config.Config {
	s.mu.Lock()
	defer s.mu.Unlock()
	return &config.Config{Meta: config.Meta{GroupVersionKind: typ, Name: name, Namespace: namespace, Generation: s.generations[typ.Kind+" "+namespace+"/"+name]}}
}

func (s *statusStore) List(config.GroupVersionKind, string) []config.Config { return nil }

func (s *statusStore) Create(config.Config) (string, error) { return "", fmt.Errorf("read-only") }

func (s *statusStore) Update(config.Config) (string, error) { return "", fmt.Errorf("read-only") }

func (s *statusStore) UpdateStatus(c config.Config) (string, error) {
	b, err := json.Marshal(c.Status)
	if err != nil {
		return "", err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.written[c.GroupVersionKind.Kind+" "+c.Namespace+"/"+c.Name] = b
	return "", nil
}

func (s *statusStore) Delete(config.GroupVersionKind, string, string, *string) error {
	return fmt.Errorf("read-only")
}

func (s *statusStore) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.written)
}

var _ model.ConfigStore = &statusStore{}

// statusKinds are the kinds whose status is given back to the plugin.
var statusKinds = map[string]bool{"Gateway": true, "HTTPRoute": true, "GRPCRoute": true, "TLSRoute": true, "TCPRoute": true}

// istiodStatuses runs istiod's Gateway API controller over yamlText and returns the statuses
// its status manager writes, by "Kind namespace/name" (istiod writes only those that differ
// from the object's own).
func istiodStatuses(t *testing.T, name, yamlText string, docs []doc) map[string]json.RawMessage {
	t.Helper()
	store := &statusStore{generations: map[string]int64{}, written: map[string]json.RawMessage{}}
	for _, d := range docs {
		if md, ok := d.raw["metadata"].(map[string]any); ok {
			if g, err := strconv.ParseInt(fmt.Sprint(md["generation"]), 10, 64); err == nil {
				store.generations[d.kind+" "+d.namespace+"/"+d.name] = g
			}
		}
	}
	asV1 := asServedToIstiod(yamlText)
	err := test.Wrap(func(tt test.Failer) {
		configs, _, err := crd.ParseInputs(asV1)
		if err != nil {
			tt.Fatalf("parse: %v", err)
		}
		s := xds.NewFakeDiscoveryServer(tt, xds.FakeOptions{Configs: configs, KubernetesObjectString: asV1, KubeClientModifier: gatewayAPIBundleVersion})
		gwc, ok := s.Env().GatewayAPIController.(*gateway.Controller)
		if !ok {
			tt.Fatalf("no Gateway API controller")
		}
		stop := test.NewStop(tt)
		mgr := status.NewManager(store)
		mgr.Start(stop)
		gwc.SetStatusWrite(true, mgr)
		// The manager writes asynchronously: wait until nothing new is written for a while.
		last, since := -1, time.Now()
		for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			if n := store.count(); n != last {
				last, since = n, time.Now()
			} else if n > 0 && time.Since(since) > 300*time.Millisecond {
				break
			}
		}
		gwc.SetStatusWrite(false, nil)
	})
	if err != nil {
		t.Fatalf("%s: istiod: %v", name, err)
	}
	store.mu.Lock()
	defer store.mu.Unlock()
	return store.written
}

// withStatuses returns docs as YAML, each object istiod wrote a status for carrying it.
func withStatuses(docs []doc, written map[string]json.RawMessage) (string, error) {
	var out []string
	for _, d := range docs {
		text := d.text
		if st, ok := written[d.kind+" "+d.namespace+"/"+d.name]; ok && statusKinds[d.kind] {
			var v any
			if err := json.Unmarshal(st, &v); err != nil {
				return "", err
			}
			raw := map[string]any{}
			for k, x := range d.raw {
				raw[k] = x
			}
			raw["status"] = v
			b, err := yaml.Marshal(raw)
			if err != nil {
				return "", err
			}
			text = string(b)
		}
		out = append(out, text)
	}
	return strings.Join(out, "\n---\n"), nil
}

func TestConformanceGatewayAPIStatus(t *testing.T) {
	silenceIstiodLogs()
	scenarios := generateKubeRoutes(*seedFlag, max(*countFlag/3, 20))
	scenarios = append(scenarios, generateKubeL4Routes(*seedFlag, max(*countFlag/6, 20))...)
	scenarios = append(scenarios, kubeTestdataScenarios(t)...)
	// Gateways alone (no routes): their listeners' certificateRefs, protocols and conflicts
	// decide ResolvedRefs and Programmed.
	scenarios = append(scenarios, generateKubeGateways(*seedFlag, max(*countFlag/6, 20))...)
	var bad []string
	routes, parents, mesh, accepted, refused, unresolved, listeners, attached, conflicted := 0, 0, 0, 0, 0, 0, 0, 0, 0
	listenerUnresolved, notProgrammed := 0, 0
	for _, sc := range scenarios {
		docs, err := splitDocs(sc.yaml)
		if err != nil {
			t.Fatalf("%s: %v", sc.name, err)
		}
		written := istiodStatuses(t, sc.name, sc.yaml, docs)
		for key, st := range written {
			kind, _, _ := strings.Cut(key, " ")
			var v struct {
				Parents []struct {
					ParentRef struct {
						Kind string `json:"kind"`
					} `json:"parentRef"`
					Conditions []struct{ Type, Status string }
				} `json:"parents"`
				Listeners []struct {
					AttachedRoutes int `json:"attachedRoutes"`
					Conditions     []struct{ Type, Status string }
				} `json:"listeners"`
			}
			if err := json.Unmarshal(st, &v); err != nil {
				t.Fatalf("%s: %s status: %v", sc.name, key, err)
			}
			switch {
			case kind == "Gateway":
				for _, l := range v.Listeners {
					listeners++
					attached += l.AttachedRoutes
					for _, c := range l.Conditions {
						switch {
						case c.Type == "Conflicted" && c.Status == "True":
							conflicted++
						case c.Type == "ResolvedRefs" && c.Status == "False":
							listenerUnresolved++
						case c.Type == "Programmed" && c.Status == "False":
							notProgrammed++
						}
					}
				}
			case statusKinds[kind]:
				routes++
				for _, p := range v.Parents {
					parents++
					if p.ParentRef.Kind == "Service" || p.ParentRef.Kind == "ServiceEntry" {
						mesh++
					}
					for _, c := range p.Conditions {
						switch {
						case c.Type == "Accepted" && c.Status == "True":
							accepted++
						case c.Type == "Accepted":
							refused++
						case c.Type == "ResolvedRefs" && c.Status == "False":
							unresolved++
						}
					}
				}
			}
		}
		back, err := withStatuses(docs, written)
		if err != nil {
			t.Fatalf("%s: %v", sc.name, err)
		}
		snap, err := loader.FromFiles([]string{"-"}, strings.NewReader(back), loader.Options{Lenient: true})
		if err != nil {
			t.Fatalf("%s: plugin loader: %v", sc.name, err)
		}
		var differs []string
		for _, f := range checks.Preflight(snap).Findings {
			if f.Code == checks.PreflightRouteStatusDiffers {
				differs = append(differs, fmt.Sprintf("  %s (%s): %s", f.Resource, f.Field, f.Message))
			}
		}
		if len(differs) > 0 {
			bad = append(bad, fmt.Sprintf("%s: the plugin disagrees with the status istiod wrote:\n%s\n%s", sc.name, strings.Join(differs, "\n"), back))
		}
	}
	summary := fmt.Sprintf("Gateway API status: %d/%d scenarios agree with the status istiod writes (%d routes with %d parent entries, %d of them mesh parents; %d Accepted=True, %d Accepted=False, %d ResolvedRefs=False; %d Gateway listeners, %d of them Conflicted, %d ResolvedRefs=False, %d Programmed=False; %d attached routes in all)\n",
		len(scenarios)-len(bad), len(scenarios), routes, parents, mesh, accepted, refused, unresolved, listeners, conflicted, listenerUnresolved, notProgrammed, attached)
	r := &kubeConversion{bad: bad}
	r.report(t, "summary-gatewayapi-status.txt", summary, 3)
	if parents == 0 || mesh == 0 || refused == 0 || unresolved == 0 || listeners == 0 {
		t.Errorf("istiod wrote no route parent status, mesh parent, refusal, unresolved reference or listener status: the harness compared nothing of that kind (%s)", strings.TrimSpace(summary))
	}
}
