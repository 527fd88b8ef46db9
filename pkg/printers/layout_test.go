package printers

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestFoldLineHangsAtWordBoundaries(t *testing.T) {
	got := FoldLine("  Assumption: the verdict is the same with either value of the flag", 30)
	want := []string{"  Assumption: the verdict is", "    the same with either value", "    of the flag"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("FoldLine = %q, want %q", got, want)
	}
	// a word wider than the width stays whole, on its own line
	url := "https://github.com/kubectl-egress/kubectl-egress/blob/main/docs/causes/exportto.md"
	got = FoldLine("  Why: "+url, 40)
	if len(got) != 2 || got[0] != "  Why:" || got[1] != "    "+url {
		t.Errorf("FoldLine kept the URL badly: %q", got)
	}
	if got := FoldLine("short", 0); len(got) != 1 || got[0] != "short" {
		t.Errorf("width 0 folded: %q", got)
	}
	// runs of spaces inside a line are kept
	if got := FoldLine("GATEWAY a: ABSENT   cause X   culprit Y", 80); got[0] != "GATEWAY a: ABSENT   cause X   culprit Y" {
		t.Errorf("spaces lost: %q", got)
	}
}

func TestTableWrapsWithinColumnsToFit(t *testing.T) {
	evidence := "no istiod Deployment for revision default: PILOT_FILTER_GATEWAY_CLUSTER_CONFIG unknown (evaluated as false), PILOT_SCOPE_GATEWAY_TO_NAMESPACE unknown (evaluated as false)"
	rows := [][]string{
		{"(a) istiod flags", "UNKNOWN", evidence},
		{"", "", "  env PILOT_FILTER_GATEWAY_CLUSTER_CONFIG=unknown: no istiod Deployment in the input"},
		{"(b) ServiceEntry namespace and exportTo", "PASS", "1 entry"},
	}
	var plain, wrapped bytes.Buffer
	if err := table(&plain, []string{"CHECK", "RESULT", "EVIDENCE"}, rows, 0); err != nil {
		t.Fatal(err)
	}
	if err := table(&wrapped, []string{"CHECK", "RESULT", "EVIDENCE"}, rows, 80); err != nil {
		t.Fatal(err)
	}
	if strings.Count(plain.String(), "\n") != 4 {
		t.Errorf("width 0 wrapped the table:\n%s", plain.String())
	}
	lines := strings.Split(strings.TrimRight(wrapped.String(), "\n"), "\n")
	col := strings.Index(lines[0], "EVIDENCE")
	var words []string
	for _, l := range lines {
		if n := utf8.RuneCountInString(l); n > 80 {
			t.Errorf("line of %d columns: %q", n, l)
		}
		if len(l) > col {
			words = append(words, strings.Fields(l[col:])...)
		}
	}
	// every word of the evidence is in the EVIDENCE column, whole and in order
	if got := strings.Join(words, " "); !strings.Contains(got, strings.Join(strings.Fields(evidence), " ")) {
		t.Errorf("evidence not kept whole in its column: %q", got)
	}
	if !strings.HasPrefix(lines[1], "(a) istiod flags") || !strings.Contains(lines[2], "  PILOT_FILTER") {
		t.Errorf("want the first evidence line beside its check and a hanging indent after it:\n%s", wrapped.String())
	}
}

func TestFixSummary(t *testing.T) {
	for fix, want := range map[string]string{
		"# ServiceEntry payments/fx-rates\nspec:\n  exportTo:\n  - \".\"\n  - \"istio-egress\"": "change spec.exportTo of ServiceEntry payments/fx-rates (YAML below)",
		"# VirtualService a/b\nspec:\n  exportTo: [\".\", \"x\"]":                               "change spec.exportTo of VirtualService a/b (YAML below)",
		"# If api.x.example is a typo of api.y.example, correct the host where a route names it; to reach api.x.example itself, declare it:\napiVersion: networking.istio.io/v1\nkind: ServiceEntry\nmetadata:\n  namespace: apps\n  name: api-x-example\nspec:\n  hosts: [\"api.x.example\"]": "If api.x.example is a typo of api.y.example, correct the host where a route names it; to reach api.x.example itself, declare it (YAML below)",
		"# Service a/b\napiVersion: v1\nkind: Service\nmetadata:\n  name: b\n  namespace: a\n  annotations:\n    networking.istio.io/exportTo: \"a,x\"":                                                                                                                                        "change metadata.annotations.networking.istio.io/exportTo of Service a/b (YAML below)",
		"Declare it: a ServiceEntry for www.example.com.": "Declare it: a ServiceEntry for www.example.com.",
		"# move DestinationRule a/b to namespace istio-system (the service's namespace), exported to \"*\":\nmetadata:\n  name: b\n  namespace: istio-system": "move DestinationRule a/b to namespace istio-system (the service's namespace), exported to \"*\" (YAML below)",
		"": "",
		"apiVersion: networking.istio.io/v1\nkind: Gateway\nmetadata:\n  name: egress-80\n  namespace: istio-system\nspec:\n  selector: {istio: x}\n---\napiVersion: networking.istio.io/v1\nkind: VirtualService\nmetadata:\n  name: pager\n  namespace: alerts\nspec:\n  hosts: [a]": "apply Gateway istio-system/egress-80 and VirtualService alerts/pager (YAML below)",
	} {
		if got := fixSummary(fix, ""); got != want {
			t.Errorf("fixSummary(%q) = %q, want %q", fix, got, want)
		}
	}
}
