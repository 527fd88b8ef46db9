// Package plugin wires the kubectl-egress commands: each command has an Options struct with
// Complete / Validate / Run (the k8s.io/sample-cli-plugin layout). Commands only connect a
// loader (pkg/loader), the checks (pkg/checks) and a printer (pkg/printers).
package plugin

import (
	"errors"
	goflag "flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strings"

	"github.com/go-logr/logr"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/term"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/klog/v2"

	"github.com/kubectl-egress/kubectl-egress/pkg/envoy"
	"github.com/kubectl-egress/kubectl-egress/pkg/loader"
	"github.com/kubectl-egress/kubectl-egress/pkg/printers"
)

// DisplayName is how users invoke the plugin through kubectl.
const DisplayName = "kubectl egress"

// commandName is "kubectl egress" when run as a kubectl plugin (argv[0] kubectl-egress) — the
// krew best practice — and the binary name otherwise.
func commandName() string {
	base := filepath.Base(os.Args[0])
	if strings.HasPrefix(base, "kubectl-") {
		return DisplayName
	}
	return base
}

// GlobalOptions are flags shared by every subcommand.
type GlobalOptions struct {
	ConfigFlags    *genericclioptions.ConfigFlags
	IstioNamespace string
	Revision       string
	Files          []string
	// FilterGatewayClusters is "", "true" or "false" (--filter-gateway-clusters).
	FilterGatewayClusters string
	Output                string
	// Lenient downgrades strict-manifest errors of -f input to warnings (--lenient).
	Lenient bool
	// MaxInputMiB caps every input file, standard input and HTTP body read (--max-input-size).
	MaxInputMiB int
	// MaxObjects caps the objects read from files or the API server (--max-objects).
	MaxObjects int
	// ErrOut receives load warnings and notes (the command's stderr).
	ErrOut io.Writer
	// Brief prints only the short answer (--brief); OutputWidth wraps text output to this many
	// columns (--output-width; 0 = no wrapping; default: the terminal's width, none in a pipe).
	Brief       bool
	OutputWidth int
	// LoadStats prints how a live load went (objects, requests, time) to stderr (hidden
	// --load-stats, for hack/bench-live.sh).
	LoadStats bool
	// CPUProfile writes a Go CPU profile of the command to this file (hidden --cpu-profile, for
	// docs/performance.md's profiles of live runs).
	CPUProfile string
}

// NewRootCommand builds `kubectl egress` with its subcommands.
func NewRootCommand(streams genericiooptions.IOStreams) *cobra.Command {
	g := &GlobalOptions{ConfigFlags: genericclioptions.NewConfigFlags(true), ErrOut: streams.ErrOut}
	name := commandName()
	root := &cobra.Command{
		Use:   "kubectl-egress",
		Short: "Explain why Istio egress configuration does not reach Envoy",
		Long: `kubectl egress reads Istio configuration (live, or from manifests with -f) and predicts, the way
istiod computes it, which clusters, listeners and routes each egress gateway gets — and why one is missing.

Exit codes, for every command and output format: 0 nothing wrong was found; 1 a fault was found
(each command's help says which); 2 no answer: a usage or input error, an API server that could
not be reached or read, or a verdict that rests on something that could not be read.`,
		Example: strings.ReplaceAll(`  # Why is there no cluster for httpbin.org on the egress gateways?
  NAME why-missing httpbin.org

  # One gateway, one port, JSON for scripts
  NAME why-missing api.example.com --port 443 --gateway istio-system/istio-egressgateway -o json

  # Rendered manifests, no cluster
  NAME why-missing httpbin.org -f rendered/`, "NAME", name),
		Version:       version,
		SilenceUsage:  true,
		SilenceErrors: true,
		Annotations:   map[string]string{cobra.CommandDisplayNameAnnotation: name},
	}
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return usageErr("%v (see '%s --help')", err, c.CommandPath())
	})
	g.ConfigFlags.AddFlags(root.PersistentFlags())
	pf := root.PersistentFlags()
	// --request-timeout: 0 (kubectl's default, no limit) means defaultLiveTimeout here; say so.
	if f := pf.Lookup("request-timeout"); f != nil {
		f.DefValue = fmt.Sprintf("%ds", int(defaultLiveTimeout.Seconds()))
		f.Usage = "how long to wait for the API server, a proxy or istiod before giving up (e.g. 1s, 2m); 0 means the default"
	}
	pf.StringVar(&g.IstioNamespace, "istio-namespace", "istio-system", "namespace of istiod and of the mesh ConfigMap")
	pf.StringVar(&g.Revision, "revision", "", "istiod revision of workloads that carry no istio.io/rev label (default: the default revision)")
	pf.StringArrayVarP(&g.Files, "filename", "f", nil, "read manifests from files, directories (recursive) or - (stdin) instead of the cluster; repeatable")
	pf.BoolVar(&g.Lenient, "lenient", false, "with -f: accept unknown kinds, apiVersions and fields, objects defined twice and input without objects, as warnings on stderr (default: each is an error, exit 2)")
	pf.IntVar(&g.MaxObjects, "max-objects", loader.DefaultMaxObjects, "the most objects read from files or the API server; more is an error (exit 2): memory grows with them")
	pf.IntVar(&g.MaxInputMiB, "max-input-size", int(loader.DefaultMaxBytes>>20), "MiB: the largest input file, standard input or proxy/istiod response read; larger input is an error (exit 2)")
	pf.StringVar(&g.FilterGatewayClusters, "filter-gateway-clusters", "", "with -f and no istiod Deployment in the files: the PILOT_FILTER_GATEWAY_CLUSTER_CONFIG value to assume (true|false)")
	pf.StringVarP(&g.Output, "output", "o", "table", "output format: table, json or yaml (preflight also sarif and junit)")
	pf.BoolVar(&g.Brief, "brief", false, "print only the short answer (the verdict, where, why and the fix in one line); exit codes are unchanged; no effect on -o json|yaml|sarif|junit")
	pf.IntVar(&g.OutputWidth, "output-width", 0, "wrap text output to this many columns; 0 turns wrapping off (default: the terminal's width when stdout is a terminal, no wrapping otherwise)")
	pf.BoolVar(&g.LoadStats, "load-stats", false, "print how the live load went (objects, API requests, time) to stderr")
	_ = pf.MarkHidden("load-stats")
	pf.StringVar(&g.CPUProfile, "cpu-profile", "", "write a Go CPU profile of the command to this file")
	_ = pf.MarkHidden("cpu-profile")
	verbosity := addVerbosityFlag(pf)
	root.PersistentPreRunE = func(c *cobra.Command, _ []string) error {
		if g.OutputWidth < 0 {
			return usageErr("--output-width %d: want 0 (no wrapping) or a number of columns", g.OutputWidth)
		}
		printers.SetStyle(textStyle(streams.Out, g.Brief, g.OutputWidth, cmdFlagChanged(c, "output-width"), os.Getenv))
		if verbosity.Changed && verbosity.Value.String() != "0" {
			enableKlog(g.ErrOut)
		}
		if g.MaxInputMiB <= 0 || g.MaxInputMiB > 1<<20 {
			return usageErr("--max-input-size %d: want 1 to %d (MiB)", g.MaxInputMiB, 1<<20)
		}
		envoy.MaxBodyBytes = int64(g.MaxInputMiB) << 20
		if g.MaxObjects <= 0 {
			return usageErr("--max-objects %d: want a positive number", g.MaxObjects)
		}
		if g.CPUProfile != "" {
			f, err := os.Create(g.CPUProfile)
			if err != nil {
				return usageErr("--cpu-profile: %v", err)
			}
			if err := pprof.StartCPUProfile(f); err != nil {
				f.Close()
				return usageErr("--cpu-profile: %v", err)
			}
			// (run whether the command succeeds or fails)
			cobra.OnFinalize(func() {
				pprof.StopCPUProfile()
				f.Close()
			})
		}
		return nil
	}
	registerRootCompletion(root, g) // completion.go
	root.AddCommand(newWhyMissingCommand(g, streams), newExplainListenerCommand(g, streams), newExportAuditCommand(g, streams), newVisibilityCommand(g, streams), newVersionCommand(g, streams))
	root.AddCommand(newPreflightCommand(g, streams))   // preflight.go
	root.AddCommand(newProxyConfigCommand(g, streams)) // proxyconfig.go
	root.SetOut(streams.Out)
	root.SetErr(streams.ErrOut)
	root.SetIn(streams.In)
	wrapFlagHelp(root)
	return root
}

// textStyle decides how text output is laid out: wrapped to width when given (0: no wrapping),
// else to the terminal's width when out is a terminal, else not at all (pipes and files keep the
// plain output scripts parse); coloured only on a terminal and without NO_COLOR
// (https://no-color.org).
func textStyle(out io.Writer, brief bool, width int, widthGiven bool, getenv func(string) string) printers.Style {
	st := printers.Style{Brief: brief}
	fd, tty := terminalFd(out)
	switch {
	case widthGiven:
		st.Width = width
	case tty:
		if w, _, err := term.GetSize(fd); err == nil && w > 0 {
			st.Width = w
		}
	}
	st.Color = tty && getenv("NO_COLOR") == ""
	return st
}

// terminalFd returns out's file descriptor and whether it is a terminal.
func terminalFd(out io.Writer) (int, bool) {
	f, ok := out.(interface{ Fd() uintptr })
	if !ok {
		return 0, false
	}
	fd := int(f.Fd())
	return fd, term.IsTerminal(fd)
}

// addVerbosityFlag adds klog's verbosity as -v / --v, as kubectl has it: client-go logs each API
// request (method, URL, status, time) at 6 and above, the request and response headers at 8, the
// bodies at 9. --version keeps its long form only (cobra gives -v to it when -v is free).
func addVerbosityFlag(pf *pflag.FlagSet) *pflag.Flag {
	var gf goflag.FlagSet
	klog.InitFlags(&gf)
	v := pflag.PFlagFromGoFlag(gf.Lookup("v"))
	v.Shorthand = "v"
	v.Usage = "log level verbosity, as kubectl's (6: every API request; 8: with headers; 9: with bodies); logs go to stderr"
	_ = v.Value.Set("0") // klog's level is global: a previous command in the same process must not leak into this one
	v.DefValue = "0"
	pf.AddFlag(v)
	return v
}

// enableKlog lifts Execute's silencing of klog: with -v, client-go's logs (requests at 6 and
// above) go to stderr, as with kubectl.
func enableKlog(errOut io.Writer) {
	klog.ClearLogger()
	klog.LogToStderr(false)
	klog.SetOutput(errOut)
}

// Execute runs the root command with os.Args and returns the process exit code, having written
// any error as one line on stderr.
func Execute(streams genericiooptions.IOStreams) int {
	// client-go logs some failures itself (klog, to stderr); every error this command reports is
	// its own one line, so those logs are dropped.
	klog.LogToStderr(false)
	klog.SetOutput(io.Discard)
	klog.SetLogger(logr.Discard())
	return execute(NewRootCommand(streams), streams)
}

// execute runs root (Execute's body, separate so that tests can give it a command that panics).
func execute(root *cobra.Command, streams genericiooptions.IOStreams) (code int) {
	// The last line of defence: a panic anywhere below is a bug, reported as one line with exit
	// 2, never a Go stack trace (hostile input is bounded and validated before it gets here).
	defer func() {
		if r := recover(); r != nil {
			msg := strings.ReplaceAll(fmt.Sprint(r), "\n", " ")
			_, _ = fmt.Fprintf(streams.ErrOut, "error: internal error (%s); this is a bug in kubectl-egress, please report it with the command line\n", msg)
			code = ExitError
		}
	}()
	err := root.Execute()
	var already *exitError
	if err != nil && !errors.As(err, &already) && isCobraUsageError(err) {
		err = usageErr("%v (see '%s --help')", err, root.Annotations[cobra.CommandDisplayNameAnnotation])
	}
	code, msg := ExitCode(err)
	if msg != "" {
		_, _ = streams.ErrOut.Write([]byte(msg + "\n"))
	}
	return code
}

// isCobraUsageError recognises cobra's own argument errors, which are plain errors.
func isCobraUsageError(err error) bool {
	s := err.Error()
	return strings.HasPrefix(s, "unknown command") || strings.HasPrefix(s, "accepts ") ||
		strings.HasPrefix(s, "requires ") || strings.HasPrefix(s, "unknown flag") || strings.Contains(s, "arg(s)")
}

// addOfflineFlag gives a command whose -f input is read alone (no cluster is read with -f)
// the --offline flag of preflight and proxy-config, for symmetry: with -f it changes nothing;
// without -f it is a usage error (blind audits 76 and 77: operators type it everywhere).
func addOfflineFlag(cmd *cobra.Command, g *GlobalOptions) {
	var offline bool
	cmd.Flags().BoolVar(&offline, "offline", false, "with -f: the manifests alone, without reading the cluster (what -f already does for this command)")
	cmd.PreRunE = func(c *cobra.Command, _ []string) error {
		if offline && len(g.Files) == 0 {
			return usageErr("--offline needs manifests: -f FILE|DIR")
		}
		return nil
	}
}
