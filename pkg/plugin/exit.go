package plugin

import (
	"errors"
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-egress/kubectl-egress/pkg/checks"
	"github.com/kubectl-egress/kubectl-egress/pkg/loader"
	"github.com/kubectl-egress/kubectl-egress/pkg/snapshot"
)

// Exit codes, the same for every output format (documented in README.md).
const (
	// ExitOK: every asked cluster is predicted present.
	ExitOK = 0
	// ExitAbsent: a cluster is absent on some gateway, or no entry declares the host.
	ExitAbsent = 1
	// ExitError: usage, input or read error (bad flags, malformed file, unreachable or
	// forbidden API server).
	ExitError = 2
)

// ExitError carries the exit code an error maps to.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// usageErr marks err as a usage or input error (exit 2).
func usageErr(format string, a ...any) error {
	return &exitError{code: ExitError, err: fmt.Errorf(format, a...)}
}

// silentExit makes the command exit with code without printing anything more.
type silentExit struct{ code int }

func (s silentExit) Error() string { return fmt.Sprintf("exit %d", s.code) }

// ExitCode maps an error returned by a command to the process exit code and the one-line
// message to print on stderr ("" for none).
func ExitCode(err error) (int, string) {
	if err == nil {
		return ExitOK, ""
	}
	var s silentExit
	if errors.As(err, &s) {
		return s.code, ""
	}
	code := ExitError
	var e *exitError
	if errors.As(err, &e) {
		code = e.code
	}
	// A file error is printed as `path:line: what is wrong`, the form editors and CI logs link.
	var fe *loader.FileError
	if errors.As(err, &fe) {
		return code, oneLine(fe.Error())
	}
	return code, "error: " + oneLine(err.Error())
}

// oneLine folds a message onto one line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// inputName says where names are looked up: "the cluster" or "the manifests".
func inputName(snap *snapshot.Snapshot) string {
	if strings.HasPrefix(snap.Source, "files") {
		return "the manifests"
	}
	return "the cluster"
}

// namespaceMustExist refuses (exit 2, one line, near matches) a namespace named on the command
// line (flag: "--from", "-n", ...) that does not exist in the input; a run on it would report
// nothing and look like an all-clear. A live cluster lists its namespaces; manifests often hold
// no Namespace objects, so there a namespace no object lives in is refused when objects are what
// the flag selects (objects: -n of export-audit and visibility) or when a namespace of the
// manifests is a typo or two away; otherwise (a client namespace with nothing of its own,
// --from) it is accepted, with a note on stderr unless it is "default".
func namespaceMustExist(g *GlobalOptions, snap *snapshot.Snapshot, flag, ns string, objects bool) error {
	if !checks.UnknownNamespace(snap, ns) {
		return nil
	}
	near := checks.NearNames(ns, checks.Namespaces(snap))
	if inputName(snap) == "the manifests" && !objects && len(near) == 0 {
		if ns != metav1.NamespaceDefault { // every cluster has it
			fmt.Fprintf(g.ErrOut, "note: %s %s: no object in the manifests lives in this namespace; it is taken as a namespace with no Sidecar, routes or workloads of its own\n", flag, ns)
		}
		return nil
	}
	msg := fmt.Sprintf("%s %s: no such namespace in %s", flag, ns, inputName(snap))
	if len(near) > 0 {
		msg += "; did you mean " + strings.Join(near, ", ") + "?"
	}
	return usageErr("%s", msg)
}

// hostMustExist refuses (exit 2, one line, near matches) a host that nothing in the input names:
// no ServiceEntry or Service declares it and no route, Gateway, DestinationRule or Sidecar
// names it. A host a route names but no entry declares is a diagnosis (HOST_NOT_FOUND), not this.
//
// from is the client namespace (--from, "" when none): for an ambient client the line says that
// ztunnel sends its calls to an undeclared host straight out (REGISTRY_ONLY binds sidecars only).
func hostMustExist(snap *snapshot.Snapshot, host, from string) error {
	if host == "" || checks.HostReferenced(snap, host) {
		return nil
	}
	msg := fmt.Sprintf("no ServiceEntry, Service or route in %s names %s", inputName(snap), host)
	var unread []string
	for _, k := range []string{snapshot.KindServiceEntry, snapshot.KindService, snapshot.KindVirtualService} {
		if why, ok := snap.Unknown[k]; ok {
			unread = append(unread, checks.PluralKind(k)+" ("+why+")")
		}
	}
	if len(unread) > 0 {
		// what could not be read may name it (blind audit 67 R6: a namespace-scoped user was
		// told to declare a host whose ServiceEntry exists)
		return usageErr("no ServiceEntry, Service or route that could be read names %s, and %s could not be read in full: name the client namespace with --from (answers are then given for what it sees), or run with the rights deploy/clusterrole.yaml grants", host, strings.Join(unread, ", "))
	}
	switch near := checks.NearMatches(snap, host); {
	case len(near) > 0:
		msg += "; did you mean " + strings.Join(near, "; ") + "?"
	case from != "" && checks.AmbientClient(snap, from):
		msg += fmt.Sprintf("; namespace %s is ambient, and ztunnel sends its calls to a host no entry declares straight out, whatever outboundTrafficPolicy says: declare it in a ServiceEntry only to route it, through a waypoint for example (%s)", from, checks.DocURLOf(checks.AmbientDirect))
	default:
		msg += "; to reach it through the mesh, declare it in a ServiceEntry (" + checks.DocURLOf(checks.CauseHostNotFound) + ")"
	}
	return usageErr("%s", msg)
}
