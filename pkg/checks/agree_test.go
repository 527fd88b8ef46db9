package checks

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kubectl-egress/kubectl-egress/pkg/loader"
	"github.com/kubectl-egress/kubectl-egress/pkg/snapshot"
)

// reportsCode: the finding is code's, or lists it among the codes it was also reported as (one
// fault seen by two checks, merged by mergeSameFault).
func reportsCode(f PreflightFinding, code string) bool {
	return f.Code == code || slices.ContainsFunc(f.AlsoReportedAs, func(a string) bool { return strings.HasSuffix(a, " "+code) })
}

// commandsDisagree traces every call of every client namespace to every host:port a
// ServiceEntry declares (why-missing --from), and compares it with explain-listener --from on
// the same call and with preflight: a failing path's cause is an Error in explain-listener and,
// for a call routed through a gateway, a preflight finding in that path's context; a path that
// works has no Error finding in explain-listener. It returns the disagreements.
func commandsDisagree(snap *snapshot.Snapshot) []string {
	var out []string
	pf := Preflight(snap)
	// A finding is in a path's context when preflight saw it on that path or on that client's
	// sidecar for that host:port (explain-listener's context).
	inContext := func(code, ctx, sidecarCtx string) bool {
		for _, f := range pf.Findings {
			if reportsCode(f, code) && slices.ContainsFunc(ExpandContexts(f.Contexts, pf.ClientNamespaces), func(c string) bool { return strings.HasPrefix(c, ctx) || c == sidecarCtx }) {
				return true
			}
		}
		return false
	}
	type hp struct {
		host string
		port uint32
	}
	var calls []hp
	for _, se := range snap.ServiceEntries {
		for _, h := range se.Spec.Hosts {
			if strings.HasPrefix(h, "*") {
				continue
			}
			for _, p := range se.Spec.Ports {
				if !slices.Contains(calls, hp{h, p.GetNumber()}) {
					calls = append(calls, hp{h, p.GetNumber()})
				}
			}
		}
	}
	for _, ns := range ClientNamespaces(snap) {
		for _, c := range calls {
			p, err := TracePath(snap, PathOptions{Host: c.host, Port: c.port, From: ns})
			if err != nil {
				out = append(out, fmt.Sprintf("%s %s:%d: trace: %v", ns, c.host, c.port, err))
				continue
			}
			call := fmt.Sprintf("from %s, %s %s:%d", ns, p.Call, c.host, c.port)
			el, err := ExplainListener(snap, ExplainListenerOptions{Host: c.host, Port: c.port, From: ns})
			if err != nil {
				out = append(out, call+": explain-listener: "+err.Error())
				continue
			}
			elLevel := map[string]string{}
			for _, f := range el.Findings {
				elLevel[f.Code] = f.Level
			}
			throughGateway := pathThroughGateway(snap, p)
			ctx := fmt.Sprintf("path from sidecar in %s, %s %s:%d", ns, strings.ToUpper(p.Call), c.host, c.port)
			switch {
			case p.Failed():
				if elLevel[p.Cause] != LevelError {
					out = append(out, fmt.Sprintf("%s: why-missing %s, explain-listener %v", call, p.Cause, elLevel))
				}
				// (or seen at the gateway the call fails at, blaming the same resource: preflight
				// traces calls to hosts whose sidecar service is an entry, and a stale Kubernetes
				// Service that takes the host leaves the gateway's view only)
				atGateway := slices.ContainsFunc(pf.Findings, func(f PreflightFinding) bool {
					return reportsCode(f, p.Cause) && f.Resource.String() == p.Culprit &&
						slices.ContainsFunc(f.Contexts, func(x string) bool { return strings.HasPrefix(x, "gateway "+p.Gateway+", "+c.host) })
				})
				// (or reported on the culprit itself, without a call: a Sidecar's egressProxy whose
				// cluster its sidecars lack fails every call the catch-all takes)
				onCulprit := slices.ContainsFunc(pf.Findings, func(f PreflightFinding) bool {
					return reportsCode(f, p.Cause) && f.Level == LevelError && f.Resource.String() == p.Culprit && len(f.Contexts) == 0
				})
				if throughGateway && !atGateway && !onCulprit && !egressProxyTCPWarned(p, pf.Findings) && !inContext(p.Cause, ctx, fmt.Sprintf("sidecar in %s, %s:%d", ns, c.host, c.port)) {
					out = append(out, fmt.Sprintf("%s: why-missing %s through gateway %s, not in preflight", call, p.Cause, p.Gateway))
				}
			default:
				// On a call that works, explain-listener may still report the port's faults for
				// the other hosts on it (the entry whose chain istiod dropped, a match-all chain
				// capturing other hosts' TLS): never one about this call's own host.
				for _, f := range el.Findings {
					if f.Level != LevelError {
						continue
					}
					// the match-all chain captures the other hosts' TLS; a dropped chain or a
					// refused well-known port is another entry's loss
					otherHosts := f.Code == ListenerCatchAllTLSPort ||
						((f.Code == ListenerChainDropped || f.Code == ListenerWellKnownPort) && !entryDeclares(snap, f.Resource, c.host, c.port))
					if !otherHosts {
						out = append(out, fmt.Sprintf("%s: why-missing %s, explain-listener Error %s (%s)", call, p.Cause, f.Code, f.Resource))
					}
				}
			}
		}
	}
	return out
}

// TestCommandsAgreeOnFixtures: why-missing --from, explain-listener --from and preflight agree on
// every call of the repository's path and preflight fixtures.
func TestCommandsAgreeOnFixtures(t *testing.T) {
	sets := [][]string{}
	for _, c := range readPathCases(t) {
		sets = append(sets, []string{filepath.Join("testdata", "paths", "_base.yaml"), c.file})
	}
	for _, f := range []string{"control.yaml", "release.yaml", "listener.yaml"} {
		sets = append(sets, []string{filepath.Join("testdata", "preflight", f)})
	}
	for _, files := range sets {
		snap, err := loader.FromFiles(files, nil, loader.Options{Lenient: true})
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range commandsDisagree(snap) {
			t.Errorf("%s: %s", filepath.Base(files[len(files)-1]), d)
		}
	}
}

// TestCommandsAgreeOnCaseFiles: the same on the repository's case fixtures (testdata/cases),
// and on the shared acceptance set (EGRESS_CASES_DIR, else ../shared/cases beside the
// repository) when it is present.
func TestCommandsAgreeOnCaseFiles(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "cases", "*.yaml"))
	if len(files) == 0 {
		t.Fatal("no case fixtures in testdata/cases")
	}
	dir := os.Getenv("EGRESS_CASES_DIR")
	if dir == "" {
		dir = filepath.Join("..", "..", "..", "shared", "cases")
	}
	shared, _ := filepath.Glob(filepath.Join(dir, "*.yaml"))
	files = append(files, shared...)
	for _, f := range files {
		snap, err := loader.FromFiles([]string{f}, nil, loader.Options{Lenient: true})
		if err != nil {
			t.Errorf("%s: %v", filepath.Base(f), err)
			continue
		}
		for _, d := range commandsDisagree(snap) {
			t.Errorf("%s: %s", filepath.Base(f), d)
		}
	}
}

// entryDeclares: the resource "ServiceEntry ns/name" declares host:port.
func entryDeclares(snap *snapshot.Snapshot, ref, host string, port uint32) bool {
	for _, se := range snap.ServiceEntries {
		if "ServiceEntry "+se.Namespace+"/"+se.Name != ref || !slices.Contains(se.Spec.Hosts, host) {
			continue
		}
		for _, p := range se.Spec.Ports {
			if p.GetNumber() == port {
				return true
			}
		}
	}
	return false
}
