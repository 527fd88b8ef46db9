package plugin

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-egress/kubectl-egress/pkg/checks"
	"github.com/kubectl-egress/kubectl-egress/pkg/envoy"
	"github.com/kubectl-egress/kubectl-egress/pkg/loader"
	"github.com/kubectl-egress/kubectl-egress/pkg/printers"
	"github.com/kubectl-egress/kubectl-egress/pkg/snapshot"
)

// PreflightOptions are the inputs of `kubectl egress preflight`.
type PreflightOptions struct {
	*GlobalOptions
	genericiooptions.IOStreams

	// Offline checks the -f manifests alone, without reading the cluster.
	Offline bool
	// FailOn is error, warning, info or none; FailOnExisting lets findings the live state
	// already has fail a what-if run.
	FailOn         string
	FailOnExisting bool
	// Suppress are -S values (CODE=Kind namespace/name); SuppressionsFile a YAML list of
	// {code, resource, reason}.
	Suppress         []string
	SuppressionsFile string
	// Details lists every finding in the table instead of grouping alike ones.
	Details bool

	failOn       string
	suppressions []checks.Suppression
	filterGW     *bool
	nsGiven      bool
}

func newPreflightCommand(g *GlobalOptions, streams genericiooptions.IOStreams) *cobra.Command {
	o := &PreflightOptions{GlobalOptions: g, IOStreams: streams}
	name := commandName()
	cmd := &cobra.Command{
		Use:   "preflight",
		Short: "Run every check over the mesh (or over manifests applied to it) for CI; exit 1 on findings",
		Long: `preflight runs every check of kubectl-egress over the mesh and reports their findings with stable
ids (EGRnnnn, docs/findings.md): why-missing for every host a VirtualService routes through each
gateway workload, export-audit, explain-listener (Gateway server ports of each gateway; the
sidecar of each client namespace: port conflicts, match-all chains and each ServiceEntry
host:port it imports) and visibility (the mesh, and as each client namespace).

Input:
  (no -f)              the live cluster of the current kubeconfig context
  -f FILES             what-if: the manifests applied over the live state (replacing or adding
                       objects by kind/namespace/name); findings are "introduced" (absent
                       without the manifests) or "existing"; only introduced ones fail the run
                       unless --fail-on-existing. Without a configured cluster, as --offline.
  -f FILES --offline   the manifests alone

Output (-o): table (default), json and yaml (schema kubectl-egress.io/preflight/v1,
docs/preflight.schema.json), sarif (SARIF 2.1.0, for code scanning), junit (JUnit XML). The exit
code is the same in every format: 0 nothing at or above --fail-on (default error); 1 findings at
or above it; 2 usage, input or read errors, or kinds that could not be read. The output format
and the failure threshold are independent.

Suppressions silence a finding but still count it (and list it in json, yaml and sarif):
  annotation   egress.kubectl-egress.io/suppress: "EGR0203" or "EGR0203: reason, EGR0104"
               on the resource the finding names
  -S           CODE=Kind namespace/name, repeatable; CODE an EGR id or a string code; globs
               (*, ?) in both, for example -S 'EGR0203=ServiceEntry team-a/*'
  --suppressions FILE   a YAML list of {code, resource, reason}
A suppression that matches nothing is reported (SUPPRESSION_UNUSED, Info).`,
		Example: strings.ReplaceAll(`  # The live mesh
  NAME preflight

  # What-if: these manifests applied over the live state; fail only on what they introduce
  NAME preflight -f release/

  # The manifests alone
  NAME preflight -f release/ --offline

  # Code scanning; the exit code still says pass or fail
  NAME preflight -f release/ -o sarif > egress.sarif

  # Stricter threshold, one accepted finding
  NAME preflight --fail-on warning -S 'EGR0203=ServiceEntry team-a/*'`, "NAME", name),
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if err := o.Complete(c); err != nil {
				return err
			}
			if err := o.Validate(); err != nil {
				return err
			}
			return o.Run(c.Context())
		},
	}
	f := cmd.Flags()
	f.BoolVar(&o.Offline, "offline", false, "with -f: check the manifests alone, without reading the cluster")
	f.StringVar(&o.FailOn, "fail-on", "error", failOnUsage)
	f.BoolVar(&o.FailOnExisting, "fail-on-existing", false, "with -f over a live cluster: findings already present in the live state fail the run too")
	f.StringArrayVarP(&o.Suppress, "suppress", "S", nil, "suppress findings: CODE=Kind namespace/name (globs allowed; CODE an EGR id or a string code); repeatable")
	f.StringVar(&o.SuppressionsFile, "suppressions", "", "a YAML file listing suppressions: [{code, resource, reason}]")
	f.BoolVar(&o.Details, "details", false, "table output: list every finding, instead of one row per group of more than 5 alike findings")
	return cmd
}

// Complete parses --fail-on, -S, --suppressions and --filter-gateway-clusters; each problem is
// a one-line usage or input error (exit 2).
func (o *PreflightOptions) Complete(cmd *cobra.Command) error {
	o.nsGiven = cmdFlagChanged(cmd, "namespace")
	lvl, err := checks.ParseFailOn(o.FailOn)
	if err != nil {
		return usageErr("%v", err)
	}
	o.failOn = lvl
	if o.filterGW, err = parseFilterFlag(o.FilterGatewayClusters); err != nil {
		return err
	}
	for _, v := range o.Suppress {
		s, err := checks.ParseSuppressFlag(v)
		if err != nil {
			return usageErr("%v", err)
		}
		o.suppressions = append(o.suppressions, s)
	}
	if o.SuppressionsFile != "" {
		data, err := loader.ReadFileCapped(o.SuppressionsFile, envoy.MaxBodyBytes)
		if err != nil {
			return usageErr("--suppressions: %v", err)
		}
		ss, err := checks.ParseSuppressionsFile(o.SuppressionsFile, data)
		if err != nil {
			return usageErr("%v", err)
		}
		o.suppressions = append(o.suppressions, ss...)
	}
	return nil
}

// Validate checks -o and the flag combinations.
func (o *PreflightOptions) Validate() error {
	switch o.Output {
	case printers.FormatTable, printers.FormatJSON, printers.FormatYAML, printers.FormatSARIF, printers.FormatJUnit:
	default:
		return usageErr("-o %q: want one of %s", o.Output, strings.Join(printers.PreflightFormats, ", "))
	}
	if o.Offline && len(o.Files) == 0 {
		return usageErr("--offline needs manifests: -f FILE|DIR")
	}
	if o.FailOnExisting && (len(o.Files) == 0 || o.Offline) {
		return usageErr("--fail-on-existing only applies to -f over a live cluster (what-if); without it every finding counts")
	}
	return nil
}

// Run loads the input (live, what-if or offline), runs the checks, prints the report and maps it
// to the exit code. With -o sarif, an input that cannot be read still writes a SARIF log: one run
// without results whose invocation failed, with the error; with -o junit, a suite whose one
// testcase is that error (the exit code stays 2).
func (o *PreflightOptions) Run(ctx context.Context) error {
	printed, err := o.run(ctx)
	if err != nil && !printed && o.Output == printers.FormatSARIF {
		code, msg := ExitCode(err)
		tool := printers.DefaultTool
		tool.Version = version
		if werr := printers.SARIFError(o.Out, tool, code, strings.TrimPrefix(msg, "error: ")); werr != nil {
			return werr
		}
	}
	if err != nil && !printed && o.Output == printers.FormatJUnit {
		_, msg := ExitCode(err)
		if werr := printers.JUnitError(o.Out, strings.TrimPrefix(msg, "error: ")); werr != nil {
			return werr
		}
	}
	return err
}

// run is Run's body; printed says whether the report was written.
func (o *PreflightOptions) run(ctx context.Context) (printed bool, _ error) {
	mode, notes := checks.ModeLive, []string(nil)
	var cur, base, files *snapshot.Snapshot
	var err error
	switch {
	case len(o.Files) == 0:
		if cur, err = o.load(ctx, false); err != nil {
			return false, err
		}
	case o.Offline:
		mode = checks.ModeOffline
		if cur, err = o.load(ctx, true); err != nil {
			return false, err
		}
		files = cur
	default:
		if why := o.noCluster(); why != "" {
			mode = checks.ModeOffline
			notes = append(notes, "no cluster configured ("+why+"): the manifests were checked alone, as with --offline")
			if cur, err = o.load(ctx, true); err != nil {
				return false, err
			}
			files = cur
			break
		}
		mode = checks.ModeWhatIf
		over, err := o.load(ctx, true)
		if err != nil {
			return false, err
		}
		if base, err = o.load(ctx, false); err != nil {
			return false, &exitError{code: ExitError, err: fmt.Errorf("%v (use --offline to check the manifests alone)", err)}
		}
		cur, files = snapshot.Overlay(base, over), over
	}
	res := checks.Preflight(cur)
	var baseRes *checks.PreflightResult
	if base != nil {
		baseRes = checks.Preflight(base)
	}
	if files != nil {
		locate(res.Findings, manifestIndex(files))
	}
	rep := checks.NewPreflightReport(res, baseRes, checks.PreflightOptions{Mode: mode, FailOn: o.failOn, FailOnExisting: o.FailOnExisting, Suppressions: o.suppressions})
	rep.Notes = append(rep.Notes, notes...)
	tool := printers.DefaultTool
	tool.Version = version
	if err := printers.PreflightWith(o.Out, rep, o.Output, tool, o.Details); err != nil {
		return true, err
	}
	if len(rep.Unknown) > 0 {
		var parts []string
		for _, k := range sortedKeys(rep.Unknown) {
			parts = append(parts, checks.PluralKind(k)+": "+rep.Unknown[k])
		}
		return true, &exitError{code: ExitError, err: fmt.Errorf("preflight incomplete, could not read %s", strings.Join(parts, "; "))}
	}
	if rep.Failed {
		return true, silentExit{code: ExitAbsent}
	}
	return true, nil
}

// load reads the -f manifests (files) or the live cluster.
func (o *PreflightOptions) load(ctx context.Context, files bool) (*snapshot.Snapshot, error) {
	g := *o.GlobalOptions
	if !files {
		g.Files = nil
	}
	return loadSnapshot(ctx, &g, o.In, o.filterGW, o.nsGiven)
}

// noCluster says why no cluster is configured ("" when one is): no --server, no cluster in the
// kubeconfig files (KUBECONFIG, --kubeconfig, ~/.kube/config) and not running in a pod. A
// configured but unreachable cluster is an error of the run, not a reason to go offline.
func (o *PreflightOptions) noCluster() string { return noCluster(o.GlobalOptions) }

// noCluster says why no cluster is configured ("" when one is); see PreflightOptions.noCluster.
func noCluster(g *GlobalOptions) string {
	if f := g.ConfigFlags; f.APIServer != nil && *f.APIServer != "" {
		return ""
	}
	if os.Getenv("KUBERNETES_SERVICE_HOST") != "" {
		return ""
	}
	raw, err := g.ConfigFlags.ToRawKubeConfigLoader().RawConfig()
	if err != nil {
		return "kubeconfig: " + oneLine(err.Error())
	}
	if len(raw.Clusters) == 0 {
		// client-go skips the files of KUBECONFIG that do not exist: name them, the likely
		// reason (blind audit 102 c42, where a missing file read as an empty kubeconfig)
		var missing []string
		for _, f := range filepath.SplitList(os.Getenv("KUBECONFIG")) {
			if _, err := os.Stat(f); f != "" && errors.Is(err, fs.ErrNotExist) {
				missing = append(missing, f)
			}
		}
		if len(missing) > 0 {
			return "KUBECONFIG names " + strings.Join(missing, ", ") + ", which does not exist"
		}
		return "the kubeconfig names no cluster"
	}
	return ""
}
