package printers

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/kubectl-egress/kubectl-egress/pkg/checks"
)

// TestExportAuditGroups: more than GroupThreshold alike findings share one table row and one
// described example, long namespace lists are shortened, and --details lists everything.
func TestExportAuditGroups(t *testing.T) {
	var missing []string
	for i := 0; i < 20; i++ {
		missing = append(missing, fmt.Sprintf("ns-%02d", i))
	}
	r := &checks.AuditReport{Source: "files x.yaml", Scope: "all namespaces"}
	for i := 0; i < GroupThreshold+2; i++ {
		r.Findings = append(r.Findings, checks.AuditFinding{Code: checks.AuditSENotExportedToClient, Level: checks.LevelError, Kind: "ServiceEntry",
			Namespace: "team-a", Name: fmt.Sprintf("se-%d", i), ExportTo: []string{"."}, NeededIn: missing, MissingIn: missing,
			Impact: "503 NC", Message: fmt.Sprintf("message %d", i)})
	}
	r.Findings = append(r.Findings, checks.AuditFinding{Code: checks.AuditDRNotOnLookupPath, Level: checks.LevelWarning, Kind: "DestinationRule",
		Namespace: "team-b", Name: "dr", ExportTo: []string{"*"}, NeededIn: []string{"team-c"}, Impact: "-", Message: "dr message"})
	var b bytes.Buffer
	if err := ExportAuditWith(&b, r, "", false); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		fmt.Sprintf("%d ServiceEntries, e.g. team-a/se-0", GroupThreshold+2),
		"ns-00,ns-01,ns-02,…,ns-19 (20 namespaces)",
		fmt.Sprintf("and %d more %s finding(s) like it", GroupThreshold+1, checks.AuditSENotExportedToClient),
		"team-b/dr", "dr message", "--details lists each one",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("grouped output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "message 1\n") || strings.Contains(out, "ns-10") {
		t.Errorf("grouped output lists a grouped finding or a shortened namespace:\n%s", out)
	}
	b.Reset()
	if err := ExportAuditWith(&b, r, "", true); err != nil {
		t.Fatal(err)
	}
	out = b.String()
	for _, want := range []string{"team-a/se-6", "message 6", strings.Join(missing, ",")} {
		if !strings.Contains(out, want) {
			t.Errorf("--details output lacks %q", want)
		}
	}
	// (the short answer on the first line stays short)
	if strings.Contains(out, "e.g.") || strings.Count(out, strings.Join(missing, ",")) != 2*(GroupThreshold+2) {
		t.Errorf("--details output groups or shortens:\n%s", out)
	}
}
