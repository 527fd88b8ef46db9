// Command gen-findings writes docs/findings.md from the finding catalogue (checks.Catalog).
//
//	go run ./hack/gen-findings              # writes docs/findings.md (run from the repository root)
//	go run ./hack/gen-findings -o FILE      # another path; "-" for stdout
//
// `go generate ./pkg/checks` runs it with the right path. Exit 1 when the file cannot be written.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/kubectl-egress/kubectl-egress/pkg/checks"
)

func main() {
	out := flag.String("o", "docs/findings.md", "output file (\"-\" for stdout)")
	flag.Parse()
	text := checks.FindingsMarkdown()
	if *out == "-" {
		fmt.Print(text)
		return
	}
	if err := os.WriteFile(*out, []byte(text), 0o644); err != nil {
		fmt.Fprintf(os.Stderr, "gen-findings: %v\n", err)
		os.Exit(1)
	}
}
