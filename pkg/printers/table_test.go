package printers

import (
	"bytes"
	"strings"
	"testing"
)

func TestTableIsBorderlessAndAligned(t *testing.T) {
	var b bytes.Buffer
	if err := Table(&b, []string{"SERVICE FQDN", "PORT"}, [][]string{{"httpbin.org", "80"}, {"a.example.com", "443"}}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("want header + 2 rows, got %q", b.String())
	}
	if strings.ContainsAny(b.String(), "│|+─-") {
		t.Fatalf("table has border characters: %q", b.String())
	}
	if !strings.HasPrefix(lines[0], "SERVICE FQDN") || !strings.HasPrefix(lines[1], "httpbin.org ") {
		t.Fatalf("unexpected layout: %q", b.String())
	}
	col := strings.Index(lines[0], "PORT")
	if strings.Index(lines[1], "80") != col || strings.Index(lines[2], "443") != col {
		t.Fatalf("PORT column not aligned at %d: %q", col, b.String())
	}
}
