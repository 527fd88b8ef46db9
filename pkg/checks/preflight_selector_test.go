package checks

import "testing"

// TestSelectorRuleForUnselectedPods: preflight traces a namespace for a pod that selector rules
// do not select. An Error blaming a DestinationRule with a workloadSelector becomes a Warning
// when the input's workloads of the namespace are all selected by it (blind audit 93 c23), and
// stays an Error when one of them is not (the control), or when the input holds none.
func TestSelectorRuleForUnselectedPods(t *testing.T) {
	const base = `apiVersion: v1
kind: Namespace
metadata: {name: team-a, labels: {istio-injection: enabled}}
---
apiVersion: networking.istio.io/v1
kind: ServiceEntry
metadata: {name: api, namespace: team-a}
spec:
  hosts: [api.example.com]
  resolution: DNS
  ports: [{number: 80, name: http, protocol: HTTP, targetPort: 443}]
---
apiVersion: networking.istio.io/v1
kind: DestinationRule
metadata: {name: originate, namespace: team-a}
spec:
  host: api.example.com
  workloadSelector: {matchLabels: {app: client}}
  trafficPolicy:
    portLevelSettings:
    - port: {number: 80}
      tls: {mode: SIMPLE}
`
	pod := func(name, app string) string {
		return "apiVersion: v1\nkind: Pod\nmetadata: {name: " + name + ", namespace: team-a, labels: {app: " + app + "}}\nspec: {containers: [{name: app, image: app}]}\n"
	}
	for _, c := range []struct {
		name  string
		docs  []string
		level string
	}{
		{"every workload selected", []string{base, pod("client", "client")}, LevelWarning},
		{"one workload not selected", []string{base, pod("client", "client"), pod("batch", "batch")}, LevelError},
		{"no workload in the input", []string{base}, LevelError},
	} {
		snap := loadYAML(t, c.docs...)
		got := ""
		for _, f := range Preflight(snap).Findings {
			if f.Resource.Kind == "DestinationRule" && f.Resource.Name == "originate" && (f.Level == LevelError || f.Level == LevelWarning) {
				got = f.Level
			}
		}
		if got != c.level {
			t.Errorf("%s: the finding on DestinationRule team-a/originate is %q, want %s", c.name, got, c.level)
		}
	}
}
