package checks

import (
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// TestPathFixesProven: for every failing path fixture whose fix is a manifest change (a Patch),
// applying the patch and tracing the call again gives a working path (FixCheck proven), and the
// printed fix is the patch's own rendering. Fixes that are advice are listed as not
// machine-checkable; none is skipped silently.
func TestPathFixesProven(t *testing.T) {
	var proven, prose, refuted []string
	kinds := map[string]int{}
	for _, c := range readPathCases(t) {
		_, p := tracePathCase(t, c)
		name := filepath.Base(c.file) + " (" + p.Cause + ")"
		switch {
		case !p.Failed():
			if p.Patch != nil || p.FixCheck != nil {
				t.Errorf("%s: a path that works has a patch", name)
			}
		case p.Patch == nil:
			prose = append(prose, name)
		case p.FixCheck == nil || p.FixCheck.Result != FixProven:
			refuted = append(refuted, name)
			t.Errorf("%s: fix not proven: %+v\n%s", name, p.FixCheck, p.Fix)
		default:
			proven = append(proven, name)
			kinds[p.Cause+" "+p.Patch.Kind]++
			if p.Fix != p.Patch.Text() {
				t.Errorf("%s: the printed fix is not the patch's rendering:\n%s\n---\n%s", name, p.Fix, p.Patch.Text())
			}
			// the rendering is YAML that reads back as the patch
			var a, b any
			body := p.Fix
			if !p.Patch.Create {
				_, body, _ = strings.Cut(p.Fix, "\n")
			}
			if err := yaml.Unmarshal([]byte(body), &a); err != nil {
				t.Errorf("%s: fix is not YAML: %v", name, err)
			}
			_ = yaml.Unmarshal(p.Patch.Merge, &b)
			if ya, yb := mustYAML(a), mustYAML(b); ya != yb {
				t.Errorf("%s: the printed fix reads back as\n%s\nnot as the patch\n%s", name, ya, yb)
			}
		}
	}
	t.Logf("path fixes: %d proven, %d not machine-checkable, %d refuted", len(proven), len(prose), len(refuted))
	for _, n := range prose {
		t.Logf("  not machine-checkable: %s", n)
	}
	// each kind of patch is proven on at least two fixtures
	for _, k := range []string{
		ListenerClusterAbsent + " DestinationRule", // the subset, in the rule the sidecar applies or a new one
		ListenerGatewayServiceLack + " Service",    // the port, on the gateway's Service
		ListenerDoubleTLS + " DestinationRule",     // tls DISABLE where the second origination comes from
		PathTLSMismatch + " DestinationRule",       // tls to the gateway
	} {
		if kinds[k] < 2 {
			t.Errorf("%s: proven on %d fixtures, want at least 2 (%v)", k, kinds[k], kinds)
		}
	}
	if len(proven) < 8 {
		t.Errorf("only %d fixes proven: %v", len(proven), proven)
	}
}

func mustYAML(v any) string {
	b, _ := yaml.Marshal(v)
	return string(b)
}

// A fix that breaks Istio's validation is never proven.
func TestApplyPatchValidates(t *testing.T) {
	snap, err := loadPathFixture(filepath.Join("testdata", "paths", "hidden-by-exportto.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range [][]string{{"*", "team-a"}, {".", "team-b"}, {"~", "team-a"}, {"Team_A"}} {
		p := exportToPatch("ServiceEntry team-b/api", nil, "team-b", "x")
		p.set = fields{{"spec", fields{{"exportTo", bad}}}}
		p.Merge, _ = p.set.MarshalJSON()
		if _, err := ApplyPatch(snap, p); err == nil {
			t.Errorf("exportTo %v accepted", bad)
		}
	}
	ok := exportToPatch("ServiceEntry team-b/api", []string{"."}, "team-b", "team-a")
	after, err := ApplyPatch(snap, ok)
	if err != nil {
		t.Fatal(err)
	}
	for _, se := range after.ServiceEntries {
		if se.Name == "api" && strings.Join(se.Spec.ExportTo, ",") != ".,team-a" {
			t.Errorf("exportTo after the patch: %v", se.Spec.ExportTo)
		}
	}
	for _, se := range snap.ServiceEntries {
		if se.Name == "api" && strings.Join(se.Spec.ExportTo, ",") != "." {
			t.Errorf("the input changed: %v", se.Spec.ExportTo)
		}
	}
	// Istio's validation of the whole object (the same rules as the findings): a subset name
	// that is not a DNS label, a created rule's subset without a name, a MUTUAL tls without a
	// credential are refused
	merge, err := loadPathFixture(filepath.Join("testdata", "paths", "dr-merge-duplicate-subset-drops-istio-mutual.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []*Patch{
		newPatch("networking.istio.io/v1", "DestinationRule", "billing", "egress-hop", fields{{"spec", fields{{"subsets", []any{fields{{"name", "pay_ments"}}}}}}}),
		newObject("networking.istio.io/v1", "DestinationRule", "billing", "new-rule", fields{{"host", "api.payments.example"}, {"subsets", []any{fields{{"labels", map[string]string{"v": "1"}}}}}}),
		newPatch("networking.istio.io/v1", "DestinationRule", "billing", "egress-hop", fields{{"spec", fields{{"trafficPolicy", fields{{"tls", fields{{"mode", "MUTUAL"}}}}}}}}),
	} {
		if _, err := ApplyPatch(merge, bad); err == nil {
			t.Errorf("%s %s accepted", bad.Ref(), bad.Merge)
		}
	}
	// what the object already broke does not refuse a fix of something else
	broken := loadYAML(t, readTestdata(t, "paths", "_base.yaml"), `apiVersion: networking.istio.io/v1
kind: DestinationRule
metadata: {name: legacy, namespace: team-a}
spec:
  host: api.example.com
  subsets:
  - name: v_1`)
	fix := newPatch("networking.istio.io/v1", "DestinationRule", "team-a", "legacy", fields{{"spec", fields{{"trafficPolicy", fields{{"tls", fields{{"mode", "SIMPLE"}}}}}}}})
	if _, err := ApplyPatch(broken, fix); err != nil {
		t.Errorf("a fix of an object already refused for another rule: %v", err)
	}
	// an unknown field is a decoding error
	p := exportToPatch("ServiceEntry team-b/api", nil, "team-b", "team-a")
	p.Merge = []byte(`{"spec":{"exportsTo":["*"]}}`)
	if _, err := ApplyPatch(snap, p); err == nil {
		t.Errorf("unknown field accepted")
	}
}

// TestFixNotEnoughNamesTheNext: when the fix of the first fault leaves the call failing, the
// check names the next fault's culprit and fix, and whether both changes together make the call
// work (blind audit 69 D4: an ExternalName alias whose externalName ends in ".svc", and a subset
// defined in a DestinationRule for the alias's host, which gets no cluster).
func TestFixNotEnoughNamesTheNext(t *testing.T) {
	snap := loadYAML(t, readTestdata(t, "paths", "_base.yaml"), `apiVersion: v1
kind: Namespace
metadata: {name: crm, labels: {istio-injection: enabled}}
---
apiVersion: v1
kind: Service
metadata: {name: egress-alias, namespace: platform-tools}
spec:
  type: ExternalName
  externalName: istio-egressgateway.istio-system.svc
  ports: [{name: http, port: 80}]
---
apiVersion: networking.istio.io/v1
kind: ServiceEntry
metadata: {name: chat-hooks, namespace: crm}
spec:
  hosts: [hooks.chat.example]
  resolution: DNS
  ports: [{number: 80, name: http, protocol: HTTP}]
---
apiVersion: networking.istio.io/v1
kind: Gateway
metadata: {name: chat-egress, namespace: istio-system}
spec:
  selector: {istio: egressgateway}
  servers: [{port: {number: 80, name: http, protocol: HTTP}, hosts: [hooks.chat.example]}]
---
apiVersion: networking.istio.io/v1
kind: DestinationRule
metadata: {name: egw-chat, namespace: crm}
spec:
  host: egress-alias.platform-tools.svc.cluster.local
  subsets: [{name: chat}]
---
apiVersion: networking.istio.io/v1
kind: VirtualService
metadata: {name: chat-via-egress, namespace: crm}
spec:
  hosts: [hooks.chat.example]
  gateways: [mesh, istio-system/chat-egress]
  http:
  - match: [{gateways: [mesh], port: 80}]
    route: [{destination: {host: egress-alias.platform-tools.svc.cluster.local, subset: chat, port: {number: 80}}}]
  - match: [{gateways: [istio-system/chat-egress], port: 80}]
    route: [{destination: {host: hooks.chat.example, port: {number: 80}}}]
`)
	p, err := TracePath(snap, PathOptions{Host: "hooks.chat.example", Port: 80, From: "crm"})
	if err != nil {
		t.Fatal(err)
	}
	if p.Culprit != "Service platform-tools/egress-alias" || p.Patch == nil || !strings.Contains(p.Fix, "externalName: istio-egressgateway.istio-system.svc.cluster.local") {
		t.Fatalf("first fault: culprit %q fix %q", p.Culprit, p.Fix)
	}
	c := p.FixCheck
	if c == nil || c.Result != FixInsufficient || c.Culprit != "DestinationRule crm/egw-chat" || !strings.Contains(c.Then, "host: istio-egressgateway.istio-system.svc.cluster.local") || !c.ThenProven {
		t.Fatalf("next fault not named, or the two changes not proven together: %+v", c)
	}
}
