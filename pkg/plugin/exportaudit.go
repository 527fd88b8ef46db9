package plugin

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-egress/kubectl-egress/pkg/checks"
	"github.com/kubectl-egress/kubectl-egress/pkg/printers"
)

// ExportAuditOptions are the inputs of `kubectl egress export-audit`.
type ExportAuditOptions struct {
	*GlobalOptions
	genericiooptions.IOStreams

	AllNamespaces bool
	FailOn        string
	// Details lists every finding and namespace in the table instead of grouping alike ones.
	Details       bool
	namespace     string
	namespaceFrom string // "-n" or "the kubeconfig context's namespace"
	filterGW      *bool
	cmd           *cobra.Command
}

func newExportAuditCommand(g *GlobalOptions, streams genericiooptions.IOStreams) *cobra.Command {
	o := &ExportAuditOptions{GlobalOptions: g, IOStreams: streams}
	name := commandName()
	cmd := &cobra.Command{
		Use:   "export-audit",
		Short: "Check the exportTo of entries, routes and DestinationRules against the proxies that need them",
		Long: `export-audit computes the effective exportTo of every ServiceEntry, VirtualService and
DestinationRule (declared, else the mesh default, capped by serviceEntryVisibility) and the
namespaces whose proxies need each one: gateway pods for VirtualServices bound to their Gateways,
those routes' destinations and subsets; client sidecars for the mesh routes they see. Each gap is
reported with its impact (503 NC, 404 NR), the proxy that suffers it and the smallest fix.

Findings about resources in the namespace given with -n (live, without -n: the kubeconfig
context's namespace) only; all namespaces with -A or with -f and no -n. The first line says the
scope audited, and how many findings other namespaces have when it is one namespace.

Exit codes: 0 no finding at or above --fail-on; 1 some; 2 usage, input or read error, or a -n
namespace that does not exist (with near matches).`,
		Example: strings.ReplaceAll(`  NAME export-audit -A
  NAME export-audit -n team-a --fail-on warning -o json
  NAME export-audit -A -f release/`, "NAME", name),
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
	cmd.Flags().BoolVarP(&o.AllNamespaces, "all-namespaces", "A", false, "report findings in every namespace")
	cmd.Flags().StringVar(&o.FailOn, "fail-on", "error", failOnUsage)
	cmd.Flags().BoolVar(&o.Details, "details", false, "table output: list every finding and namespace, instead of one row per group of more than 5 alike findings and shortened namespace lists")
	registerExportAuditCompletion(cmd) // completion.go
	addOfflineFlag(cmd, g)
	return cmd
}

// Complete resolves the namespace filter.
func (o *ExportAuditOptions) Complete(c *cobra.Command) error {
	o.cmd = c
	v, err := parseFilterFlag(o.FilterGatewayClusters)
	if err != nil {
		return err
	}
	o.filterGW = v
	if o.AllNamespaces {
		return nil
	}
	if c.Flags().Changed("namespace") {
		o.namespace = *o.ConfigFlags.Namespace
		o.namespaceFrom = "-n"
		return nil
	}
	if len(o.Files) == 0 {
		ns, _, err := o.ConfigFlags.ToRawKubeConfigLoader().Namespace()
		if err != nil {
			return usageErr("kubeconfig: %v", err)
		}
		o.namespace = ns
		o.namespaceFrom = "the kubeconfig context's namespace"
	}
	return nil
}

// Validate checks --fail-on and -o.
func (o *ExportAuditOptions) Validate() error {
	if _, err := checks.ParseFailOn(o.FailOn); err != nil {
		return usageErr("%v", err)
	}
	return validateOutput(o.Output)
}

// Run loads, audits, prints and maps findings to the exit code.
func (o *ExportAuditOptions) Run(ctx context.Context) error {
	snap, err := loadSnapshot(ctx, o.GlobalOptions, o.In, o.filterGW, cmdFlagChanged(o.cmd, "namespace"))
	if err != nil {
		return err
	}
	if err := namespaceMustExist(o.GlobalOptions, snap, "-n", o.namespace, true); err != nil {
		return err
	}
	rep := checks.ExportAudit(snap, checks.AuditOptions{Namespace: o.namespace})
	rep.Scope = "all namespaces"
	if o.namespace != "" {
		rep.Scope = "namespace " + o.namespace + " (" + o.namespaceFrom + "; -A audits every namespace)"
		if n := len(checks.ExportAudit(snap, checks.AuditOptions{}).Findings) - len(rep.Findings); n > 0 {
			rep.FindingsElsewhere = n
		}
	}
	if err := printers.ExportAuditWith(o.Out, rep, o.Output, o.Details); err != nil {
		return err
	}
	if len(rep.Unknown) > 0 {
		var parts []string
		for _, k := range sortedKeys(rep.Unknown) {
			parts = append(parts, checks.PluralKind(k)+": "+rep.Unknown[k])
		}
		return &exitError{code: ExitError, err: fmt.Errorf("audit incomplete, could not read %s", strings.Join(parts, "; "))}
	}
	threshold, _ := checks.ParseFailOn(o.FailOn)
	for _, f := range rep.Findings {
		if threshold != checks.FailOnNone && checks.AtLeast(f.Level, threshold) {
			return silentExit{code: ExitAbsent}
		}
	}
	return nil
}

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
