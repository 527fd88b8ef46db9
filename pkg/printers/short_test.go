package printers

import "testing"

// A finding about no one resource (a verdict that could not be given) prints no empty
// "<resource>: " before its message (blind audit 62 k5c printed "Error [INPUT_UNKNOWN] : ...").
func TestResourcePrefix(t *testing.T) {
	if got := resourcePrefix(""); got != "" {
		t.Errorf("empty resource: %q", got)
	}
	if got := resourcePrefix("ServiceEntry a/b"); got != "ServiceEntry a/b: " {
		t.Errorf("resource: %q", got)
	}
}
