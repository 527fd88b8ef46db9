package plugin

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-egress/kubectl-egress/pkg/checks"
	"github.com/kubectl-egress/kubectl-egress/pkg/printers"
	"github.com/kubectl-egress/kubectl-egress/pkg/rules"
	"github.com/kubectl-egress/kubectl-egress/pkg/snapshot"
)

// VisibilityOptions are the inputs of `kubectl egress visibility [HOST]`.
type VisibilityOptions struct {
	*GlobalOptions
	genericiooptions.IOStreams

	Host          string
	AllNamespaces bool
	AsNamespace   string
	namespace     string
	cmd           *cobra.Command
}

func newVisibilityCommand(g *GlobalOptions, streams genericiooptions.IOStreams) *cobra.Command {
	o := &VisibilityOptions{GlobalOptions: g, IOStreams: streams}
	name := commandName()
	cmd := &cobra.Command{
		Use:   "visibility [HOST]",
		Short: "Resolve Istio 1.31 meshConfig.serviceEntryVisibility for ServiceEntries",
		Long: `visibility resolves meshConfig.serviceEntryVisibility for every ServiceEntry (or those declaring
HOST): the policy that matched (or defaultVisibility), PUBLIC / NAMESPACE / NONE, its effect on
sidecars and gateways (only with applyToSidecars, capping exportTo, never widening it) and on
ambient (always), the istio.io/VisibilityApplied status compared with the prediction, and
the waypoint bindings istiod refuses (a missing waypoint, one that does not admit the entry's
namespace or take service traffic, or one in another namespace for a NAMESPACE entry).
--as-namespace says what a workload there gets and, when the entry is hidden, what happens
instead.

Exit codes: 0 no Error finding; 1 Error findings; 2 usage, input or read error, or a HOST or
namespace that nothing in the input names (with near matches).`,
		Example: strings.ReplaceAll(`  NAME visibility -A
  NAME visibility api.example.com
  NAME visibility api.example.com --as-namespace team-b
  NAME visibility -A -o json`, "NAME", name),
		Args: cobra.MaximumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			o.cmd = c
			if len(args) == 1 {
				o.Host = rules.NormalizeHost(args[0])
				if err := ValidateHost(o.Host); err != nil {
					return usageErr("%v", err)
				}
			}
			if !o.AllNamespaces && cmdFlagChanged(c, "namespace") {
				o.namespace = *o.ConfigFlags.Namespace
			}
			if err := validateOutput(o.Output); err != nil {
				return err
			}
			return o.Run(c.Context())
		},
	}
	cmd.Flags().BoolVarP(&o.AllNamespaces, "all-namespaces", "A", false, "every namespace (the default unless -n is given)")
	cmd.Flags().StringVar(&o.AsNamespace, "as-namespace", "", "answer for a workload in this namespace: does it get each entry (exportTo, the namespace's Sidecar egress hosts), and what happens instead")
	cmd.Flags().StringVar(&o.AsNamespace, "from", "", "the same as --as-namespace")
	registerVisibilityCompletion(cmd, g) // completion.go
	addOfflineFlag(cmd, g)
	return cmd
}

// Run loads, resolves and prints; Error findings exit 1.
func (o *VisibilityOptions) Run(ctx context.Context) error {
	filterGW, err := parseFilterFlag(o.FilterGatewayClusters)
	if err != nil {
		return err
	}
	snap, err := loadSnapshot(ctx, o.GlobalOptions, o.In, filterGW, cmdFlagChanged(o.cmd, "namespace"), o.AsNamespace)
	if err != nil {
		return err
	}
	// The visibility of an entry depends on the mesh ConfigMap (serviceEntryVisibility) and the
	// namespaces' labels its policies match: neither may be unread.
	for _, k := range []string{snapshot.KindServiceEntry, snapshot.KindConfigMap, snapshot.KindNamespace} {
		if why, ok := snap.Unknown[k]; ok {
			return &exitError{code: ExitError, err: fmt.Errorf("cannot resolve visibility: %s could not be read (%s), and it depends on them", checks.PluralKind(k), why)}
		}
	}
	if err := namespaceMustExist(o.GlobalOptions, snap, "-n", o.namespace, true); err != nil {
		return err
	}
	if err := namespaceMustExist(o.GlobalOptions, snap, "--as-namespace", o.AsNamespace, false); err != nil {
		return err
	}
	if err := hostMustExist(snap, o.Host, ""); err != nil {
		return err
	}
	rep := checks.Visibility(snap, checks.VisibilityOptions{Host: o.Host, Namespace: o.namespace, AsNamespace: o.AsNamespace})
	if err := printers.Visibility(o.Out, rep, o.Output); err != nil {
		return err
	}
	for _, e := range rep.Entries {
		for _, f := range e.Findings {
			if f.Level == checks.LevelError {
				return silentExit{code: ExitAbsent}
			}
		}
	}
	return nil
}
