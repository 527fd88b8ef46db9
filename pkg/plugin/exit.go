package plugin

import (
	"errors"
	"fmt"
	"strings"

	"github.com/kubectl-egress/kubectl-egress/pkg/loader"
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
