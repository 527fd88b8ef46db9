package checks

import (
	"strings"
	"testing"
)

func TestParseSuppressFlag(t *testing.T) {
	for _, c := range []struct {
		in, code, res string
	}{
		{"EGR0203=ServiceEntry team-a/*", "EGR0203", "ServiceEntry team-a/*"},
		{"SE_NOT_EXPORTED_TO_CLIENT_NAMESPACE=ServiceEntry team-a/api", "SE_NOT_EXPORTED_TO_CLIENT_NAMESPACE", "ServiceEntry team-a/api"},
		{"EGR02*=*", "EGR02*", "*"},
		{" EGR0104 = ServiceEntry */api ", "EGR0104", "ServiceEntry */api"},
	} {
		s, err := ParseSuppressFlag(c.in)
		if err != nil || s.Code != c.code || s.Resource != c.res || s.Origin != SuppressedByFlag || s.Where != "-S "+c.in {
			t.Errorf("ParseSuppressFlag(%q) = %+v, %v", c.in, s, err)
		}
	}
	for _, bad := range []string{
		"EGR0203",                        // no resource
		"=ServiceEntry team-a/x",         // no code
		"EGR9999=ServiceEntry a/b",       // not in the catalogue
		"NOPE=ServiceEntry a/b",          // not in the catalogue
		"EGR0203=team-a/x",               // no kind
		"EGR0203=ServiceEntry a/b c",     // two names
		"EGR 0203=ServiceEntry team-a/x", // space in the code
	} {
		_, err := ParseSuppressFlag(bad)
		if err == nil {
			t.Errorf("ParseSuppressFlag(%q) accepted", bad)
			continue
		}
		if strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), "-S") {
			t.Errorf("ParseSuppressFlag(%q): error %q is not one line naming -S", bad, err)
		}
	}
}

func TestParseSuppressionsFile(t *testing.T) {
	good := `
- code: EGR0203
  resource: ServiceEntry team-a/*
  reason: team-a's clients only call through the gateway
- {code: NOT_EXPORTED_TO_GATEWAY_NAMESPACE, resource: "*"}
`
	ss, err := ParseSuppressionsFile("sup.yaml", []byte(good))
	if err != nil {
		t.Fatal(err)
	}
	if len(ss) != 2 || ss[0].Reason == "" || ss[0].Where != "sup.yaml entry 1" || ss[1].Origin != SuppressedByFile || ss[1].Resource != "*" {
		t.Errorf("parsed %+v", ss)
	}
	for name, bad := range map[string]string{
		"not a list":    "code: EGR0203\nresource: '*'\n",
		"unknown key":   "- {code: EGR0203, resource: '*', expires: 2025-01-01}\n",
		"missing field": "- {code: EGR0203}\n",
		"unknown code":  "- {code: EGR0999, resource: '*'}\n",
		"bad resource":  "- {code: EGR0203, resource: team-a}\n",
		"not yaml":      "- [unclosed\n",
	} {
		_, err := ParseSuppressionsFile("sup.yaml", []byte(bad))
		if err == nil {
			t.Errorf("%s: accepted", name)
			continue
		}
		if !strings.HasPrefix(err.Error(), "sup.yaml:") || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error %q must be one line starting with the file name", name, err)
		}
	}
}

func TestParseSuppressAnnotation(t *testing.T) {
	target := ResourceRef{Kind: "ServiceEntry", Namespace: "team-a", Name: "api"}
	ss := ParseSuppressAnnotation(target, "EGR0203: only via the gateway, SE_NOT_EXPORTED_TO_GATEWAY_NAMESPACE ,, bogus: x, *")
	if len(ss) != 4 {
		t.Fatalf("want 4 entries, got %+v", ss)
	}
	if ss[0].Code != "EGR0203" || ss[0].Reason != "only via the gateway" || ss[0].Resource != "ServiceEntry team-a/api" || ss[0].Invalid != "" || ss[0].Origin != SuppressedByAnnotation {
		t.Errorf("entry 0: %+v", ss[0])
	}
	if ss[1].Code != AuditSENotExportedToGateway || ss[1].Reason != "" || ss[1].Invalid != "" {
		t.Errorf("entry 1: %+v", ss[1])
	}
	if ss[2].Invalid == "" {
		t.Errorf("entry 2 (unknown code) must be invalid: %+v", ss[2])
	}
	if ss[3].Code != "*" || ss[3].Invalid != "" {
		t.Errorf("entry 3 (*): %+v", ss[3])
	}
	if got := ParseSuppressAnnotation(target, ": reason"); len(got) != 1 || got[0].Invalid == "" {
		t.Errorf("no code: %+v", got)
	}
}

func TestSuppressionMatches(t *testing.T) {
	f := NewPreflightFinding(AuditSENotExportedToClient, CheckExportAudit, ResourceRef{Kind: "ServiceEntry", Namespace: "team-a", Name: "api"}, "", "m", "")
	if f.ID != "EGR0203" {
		t.Fatalf("ID %s", f.ID)
	}
	for _, c := range []struct {
		code, res string
		want      bool
	}{
		{"EGR0203", "ServiceEntry team-a/api", true},
		{"egr0203", "ServiceEntry team-a/*", true},
		{"SE_NOT_EXPORTED_TO_CLIENT_NAMESPACE", "*", true},
		{"EGR02*", "ServiceEntry *", true}, // * crosses "/"
		{"EGR020?", "ServiceEntry team-?/api", true},
		{"EGR0204", "ServiceEntry team-a/api", false},
		{"EGR0203", "ServiceEntry team-b/*", false},
		{"EGR0203", "VirtualService team-a/api", false},
		{"EGR0203", "ServiceEntry team-a/ap", false},
	} {
		s := Suppression{Code: c.code, Resource: c.res}
		if got := s.Matches(f); got != c.want {
			t.Errorf("%s=%s matches %v, want %v", c.code, c.res, got, c.want)
		}
	}
	if (Suppression{Code: "EGR0203", Resource: "*", Invalid: "x"}).Matches(f) {
		t.Errorf("an invalid suppression matched")
	}
}
