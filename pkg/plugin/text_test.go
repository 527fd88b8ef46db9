package plugin

import (
	"bytes"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-egress/kubectl-egress/pkg/checks"
)

// internalRef matches references to the project's design notes ("seed §4.2", "seed 002",
// "istio-semantics R4.10") that an operator cannot look up. Help, output, meanings and fixes link
// docs/causes instead; the seed sections stay in code comments and docs/findings.md.
var internalRef = regexp.MustCompile(`(?i)seed|§|istio-semantics|\bR[0-9]+\.[0-9]+\b`)

// TestNoInternalReferencesInCatalog: no catalogue meaning names a seed section, and every entry
// links a docs/causes page.
func TestNoInternalReferencesInCatalog(t *testing.T) {
	for _, e := range checks.Catalog {
		if m := internalRef.FindString(e.Description); m != "" {
			t.Errorf("%s: meaning says %q: %s", e.Code, m, e.Description)
		}
		if e.DocURL() == "" {
			t.Errorf("%s links no docs/causes page", e.Code)
		}
	}
}

// TestNoInternalReferencesInHelp: the help of every command and flag.
func TestNoInternalReferencesInHelp(t *testing.T) {
	root := NewRootCommand(genericiooptions.IOStreams{In: strings.NewReader(""), Out: &bytes.Buffer{}, ErrOut: &bytes.Buffer{}})
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		var b strings.Builder
		b.WriteString(c.Short + "\n" + c.Long + "\n" + c.Example + "\n")
		c.Flags().VisitAll(func(f *pflag.Flag) { b.WriteString(f.Usage + "\n") })
		c.PersistentFlags().VisitAll(func(f *pflag.Flag) { b.WriteString(f.Usage + "\n") })
		for _, l := range strings.Split(b.String(), "\n") {
			if m := internalRef.FindString(l); m != "" {
				t.Errorf("%s: help says %q: %s", c.CommandPath(), m, l)
			}
		}
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(root)
	for _, args := range [][]string{{"--help"}, {"why-missing", "--help"}, {"preflight", "--help"}, {"export-audit", "--help"},
		{"explain-listener", "--help"}, {"visibility", "--help"}, {"proxy-config", "--help"}} {
		_, out, _ := run(t, "", args...)
		if m := internalRef.FindString(out); m != "" {
			t.Errorf("%v: prints %q", args, m)
		}
	}
}

// TestNoInternalReferencesInOutput: every command's output on the repository's fixtures (text and
// JSON: messages, fixes, notes, evidence).
func TestNoInternalReferencesInOutput(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "checks", "testdata", "paths", "*.yaml"))
	more, _ := filepath.Glob(filepath.Join("..", "checks", "testdata", "preflight", "*.yaml"))
	files = append(files, more...)
	if len(files) < 10 {
		t.Fatalf("only %d fixtures found", len(files))
	}
	base := filepath.Join("..", "checks", "testdata", "paths", "_base.yaml")
	links := 0
	for _, f := range files {
		if filepath.Base(f) == "_base.yaml" {
			continue
		}
		in := []string{"-f", f}
		if filepath.Dir(f) == filepath.Dir(base) {
			in = append(in, "-f", base)
		}
		for _, args := range [][]string{
			{"preflight"}, {"preflight", "-o", "json"}, {"preflight", "-o", "sarif"},
			{"export-audit", "-A"}, {"visibility", "-A"},
			{"why-missing", "api.example.com"}, {"why-missing", "httpbin.org"},
			{"why-missing", "api.example.com", "--from", "team-a"}, {"why-missing", "httpbin.org", "--from", "team-a", "-o", "yaml"},
			{"explain-listener", "api.example.com:443", "--from", "team-a"},
		} {
			_, out, errOut := run(t, "", append(args, in...)...)
			links += strings.Count(out, checks.DocsBaseURL+"docs/causes/")
			for _, s := range []string{out, errOut} {
				for _, l := range strings.Split(s, "\n") {
					if m := internalRef.FindString(l); m != "" {
						t.Errorf("%s %v: prints %q: %s", filepath.Base(f), args, m, l)
					}
				}
			}
		}
	}
	if links == 0 {
		t.Errorf("no output links a docs/causes page")
	}
}
