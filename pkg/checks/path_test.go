package checks

import (
	"bufio"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/kubectl-egress/kubectl-egress/pkg/loader"
)

// pathCase is the expectation a path fixture states in its first line:
//
//	# path: HOST:PORT --from NS [--call KIND] => CAUSE [FLAG]
type pathCase struct {
	file, host, from, call, cause, flag string
	port                                uint32
	warnings, absent                    []string
}

func readPathCases(t *testing.T) []pathCase {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join("testdata", "paths", "*.yaml"))
	var out []pathCase
	for _, f := range files {
		if strings.HasPrefix(filepath.Base(f), "_") {
			continue
		}
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		line, _ := bufio.NewReader(fh).ReadString('\n')
		fh.Close()
		spec, ok := strings.CutPrefix(strings.TrimSpace(line), "# path: ")
		if !ok {
			t.Fatalf("%s: first line is not '# path: ...'", f)
		}
		call, want, _ := strings.Cut(spec, " => ")
		c := pathCase{file: f}
		fields := strings.Fields(call)
		hp := strings.SplitN(fields[0], ":", 2)
		c.host = hp[0]
		p, _ := strconv.Atoi(hp[1])
		c.port = uint32(p)
		for i := 1; i+1 < len(fields); i += 2 {
			switch fields[i] {
			case "--from":
				c.from = fields[i+1]
			case "--call":
				c.call = fields[i+1]
			}
		}
		for i, w := range strings.Fields(want) {
			switch {
			case strings.HasPrefix(w, "+"):
				c.warnings = append(c.warnings, w[1:])
			case strings.HasPrefix(w, "-"):
				c.absent = append(c.absent, w[1:])
			case i == 0:
				c.cause = w
			default:
				c.flag = w
			}
		}
		out = append(out, c)
	}
	return out
}

// Each fixture of testdata/paths (two or more per kind of fault between proxies, with controls)
// traces to the cause and response flag its first line states.
func TestTracePathFixtures(t *testing.T) {
	cases := readPathCases(t)
	if len(cases) < 12 {
		t.Fatalf("only %d path fixtures", len(cases))
	}
	for _, c := range cases {
		t.Run(filepath.Base(c.file), func(t *testing.T) {
			snap, err := loader.FromFiles([]string{filepath.Join("testdata", "paths", "_base.yaml"), c.file}, nil, loader.Options{})
			if err != nil {
				t.Fatal(err)
			}
			p, err := TracePath(snap, PathOptions{Host: c.host, Port: c.port, From: c.from, Call: c.call})
			if err != nil {
				t.Fatal(err)
			}
			if p.Cause != c.cause || (c.flag != "" && p.Flag != c.flag) {
				t.Errorf("cause %s (%s), want %s (%s): %s", p.Cause, p.Flag, c.cause, c.flag, p.Message)
				for _, h := range p.Hops {
					t.Logf("  %s %s %s: %s", h.Proxy, h.Step, h.Result, h.Summary)
				}
			}
			if p.Failed() != (c.cause != PathOK && c.cause != PathDirect) {
				t.Errorf("Failed() = %t for cause %s (level %s)", p.Failed(), p.Cause, p.Level)
			}
			for _, w := range c.warnings {
				if !slices.ContainsFunc(p.Warnings, func(f Finding) bool { return f.Code == w }) {
					t.Errorf("warning %s missing: %+v", w, p.Warnings)
				}
			}
			for _, w := range c.absent {
				if slices.ContainsFunc(p.Warnings, func(f Finding) bool { return f.Code == w }) {
					t.Errorf("warning %s raised: %+v", w, p.Warnings)
				}
			}
			if p.Failed() && (p.Fix == "" || p.Culprit == "") {
				t.Errorf("a failed path without culprit or fix: %+v", p)
			}
		})
	}
}

// TestPreflightTracesPaths: preflight traces every client sidecar's calls through the egress
// gateway, so each failing path fixture fails preflight with the fixture's cause, and a passing
// one raises no Error from a traced path.
func TestPreflightTracesPaths(t *testing.T) {
	for _, c := range readPathCases(t) {
		t.Run(filepath.Base(c.file), func(t *testing.T) {
			snap, err := loader.FromFiles([]string{filepath.Join("testdata", "paths", "_base.yaml"), c.file}, nil, loader.Options{})
			if err != nil {
				t.Fatal(err)
			}
			res := Preflight(snap)
			var codes []string
			for _, f := range res.Findings {
				codes = append(codes, f.Code+"/"+f.Level)
			}
			failing := c.cause != PathOK
			if c.cause == ListenerBlackHole {
				// A host the client does not see is a fault only if the application calls it,
				// which configuration does not say: preflight reports the visibility finding
				// (a Warning), why-missing --from the failure.
				return
			}
			found := slices.ContainsFunc(res.Findings, func(f PreflightFinding) bool { return f.Code == c.cause && f.Level == LevelError })
			if failing && !found {
				t.Errorf("preflight has no Error %s: %v", c.cause, codes)
			}
			if !failing {
				for _, f := range res.Findings {
					if f.Level == LevelError && slices.ContainsFunc(f.Contexts, func(ctx string) bool { return strings.HasPrefix(ctx, "path from") }) {
						t.Errorf("passing path, yet preflight raises %s from a traced path: %s", f.Code, f.Message)
					}
				}
			}
			for _, w := range c.warnings {
				if !slices.ContainsFunc(res.Findings, func(f PreflightFinding) bool { return f.Code == w }) {
					t.Errorf("preflight lacks warning %s: %v", w, codes)
				}
			}
		})
	}
}
