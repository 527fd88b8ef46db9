package plugin

// Shell completion for `kubectl egress` (cobra's `completion` command and its hidden
// `__complete` command; kubectl 1.26+ reaches the latter through the kubectl_complete-egress
// helper). Dynamic candidates come from the same places the commands read: the cluster of the
// root's ConfigFlags (--kubeconfig, --context, ...), or the -f manifests when given. Completion
// only ever LISTs, and fails silently: any error (no kubeconfig, unreachable or forbidden server,
// unreadable file, timeout) gives no candidates, never a file-name fallback.

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	networkingv1 "istio.io/client-go/pkg/apis/networking/v1"
	istioclient "istio.io/client-go/pkg/clientset/versioned"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kubectl-egress/kubectl-egress/pkg/checks"
	"github.com/kubectl-egress/kubectl-egress/pkg/loader"
	"github.com/kubectl-egress/kubectl-egress/pkg/printers"
	"github.com/kubectl-egress/kubectl-egress/pkg/rules"
	"github.com/kubectl-egress/kubectl-egress/pkg/snapshot"
)

// completionTimeout bounds the cluster reads of one completion request unless
// --request-timeout is given: a shell waiting on <TAB> should not hang on a dead server.
const completionTimeout = 5 * time.Second

// candidate is one completion choice and the description shells show beside it.
type candidate struct {
	value, desc string
}

// formatCandidates keeps the candidates that start with toComplete, one per value (the first
// description wins), sorted, as cobra's "value\tdescription" lines.
func formatCandidates(cs []candidate, toComplete string) []string {
	seen := map[string]bool{}
	var out []string
	for _, c := range cs {
		if c.value == "" || seen[c.value] || !strings.HasPrefix(c.value, toComplete) {
			continue
		}
		seen[c.value] = true
		if c.desc == "" {
			out = append(out, c.value)
		} else {
			out = append(out, c.value+"\t"+c.desc)
		}
	}
	sort.Strings(out)
	return out
}

// completeWith runs fetch and formats what it found. An error means no candidates: completion
// never reports failures to the shell (cobra's debug log, BASH_COMP_DEBUG_FILE, gets the reason).
func completeWith(fetch func() ([]candidate, error), toComplete string) ([]string, cobra.ShellCompDirective) {
	cs, err := fetch()
	if err != nil {
		cobra.CompDebugln("kubectl-egress completion: "+err.Error(), false)
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	return formatCandidates(cs, toComplete), cobra.ShellCompDirectiveNoFileComp
}

// fixedCompletion completes a flag from a fixed list of values.
func fixedCompletion(values ...string) cobra.CompletionFunc {
	return func(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		return completeWith(func() ([]candidate, error) {
			cs := make([]candidate, 0, len(values))
			for _, v := range values {
				cs = append(cs, candidate{value: v})
			}
			return cs, nil
		}, toComplete)
	}
}

// namespaceCandidates: the Namespaces of a snapshot, plus (for manifests, which often hold no
// Namespace objects) every namespace an object of the snapshot lives in.
func namespaceCandidates(snap *snapshot.Snapshot) []candidate {
	var cs []candidate
	for _, n := range snap.Namespaces {
		cs = append(cs, candidate{value: n.Name})
	}
	add := func(m metav1.ObjectMeta) {
		if m.Namespace != "" {
			cs = append(cs, candidate{value: m.Namespace})
		}
	}
	for _, o := range snap.ServiceEntries {
		add(o.ObjectMeta)
	}
	for _, o := range snap.VirtualServices {
		add(o.ObjectMeta)
	}
	for _, o := range snap.DestinationRules {
		add(o.ObjectMeta)
	}
	for _, o := range snap.Gateways {
		add(o.ObjectMeta)
	}
	for _, o := range snap.Sidecars {
		add(o.ObjectMeta)
	}
	for _, o := range snap.Services {
		add(o.ObjectMeta)
	}
	for _, o := range snap.Deployments {
		add(o.ObjectMeta)
	}
	for _, o := range snap.Pods {
		add(o.ObjectMeta)
	}
	return cs
}

// hostCandidates: every host a ServiceEntry declares, described by the first entry (in
// namespace/name order) that declares it.
func hostCandidates(ses []*networkingv1.ServiceEntry) []candidate {
	type decl struct {
		refs []string
	}
	byHost := map[string]*decl{}
	for _, se := range ses {
		if se == nil {
			continue
		}
		for _, h := range se.Spec.GetHosts() {
			h = rules.NormalizeHost(h)
			if h == "" {
				continue
			}
			d := byHost[h]
			if d == nil {
				d = &decl{}
				byHost[h] = d
			}
			d.refs = append(d.refs, se.Namespace+"/"+se.Name)
		}
	}
	cs := make([]candidate, 0, len(byHost))
	for h, d := range byHost {
		slices.Sort(d.refs)
		d.refs = slices.Compact(d.refs)
		desc := "ServiceEntry " + d.refs[0]
		if n := len(d.refs) - 1; n > 0 {
			desc += fmt.Sprintf(" (+%d more)", n)
		}
		cs = append(cs, candidate{value: h, desc: desc})
	}
	return cs
}

// portCandidates: the ports the ServiceEntries declaring host give it (--port of why-missing).
func portCandidates(ses []*networkingv1.ServiceEntry, host string) []candidate {
	host = rules.NormalizeHost(host)
	var cs []candidate
	for _, se := range ses {
		if se == nil || !slices.ContainsFunc(se.Spec.GetHosts(), func(h string) bool { return rules.NormalizeHost(h) == host }) {
			continue
		}
		for _, p := range se.Spec.GetPorts() {
			if p.GetNumber() == 0 {
				continue
			}
			desc := strings.TrimSpace(p.GetProtocol() + " " + p.GetName())
			cs = append(cs, candidate{value: strconv.FormatUint(uint64(p.GetNumber()), 10), desc: desc})
		}
	}
	return cs
}

// hostPortCandidates: HOST:PORT for every port of every host a ServiceEntry declares (the
// argument of explain-listener), described by the entry and the port's protocol.
func hostPortCandidates(ses []*networkingv1.ServiceEntry) []candidate {
	var cs []candidate
	for _, se := range ses {
		if se == nil {
			continue
		}
		for _, h := range se.Spec.GetHosts() {
			h = rules.NormalizeHost(h)
			if h == "" {
				continue
			}
			for _, p := range se.Spec.GetPorts() {
				if p.GetNumber() == 0 {
					continue
				}
				desc := strings.TrimSpace("ServiceEntry " + se.Namespace + "/" + se.Name + " " + p.GetProtocol())
				cs = append(cs, candidate{value: h + ":" + strconv.FormatUint(uint64(p.GetNumber()), 10), desc: desc})
			}
		}
	}
	return cs
}

// podCandidates: NAMESPACE/NAME of each pod (the --pod values), described by its phase.
func podCandidates(pods []*corev1.Pod) []candidate {
	cs := make([]candidate, 0, len(pods))
	for _, p := range pods {
		if p == nil {
			continue
		}
		cs = append(cs, candidate{value: p.Namespace + "/" + p.Name, desc: "pod, " + strings.ToLower(string(p.Status.Phase))})
	}
	return cs
}

// gatewayCandidates: the --gateway values of why-missing, NAMESPACE/NAME of each gateway
// workload as checks.GatewayWorkloads finds them (the ones why-missing diagnoses by default).
func gatewayCandidates(ws []checks.Workload) []candidate {
	cs := make([]candidate, 0, len(ws))
	for _, w := range ws {
		desc := "gateway " + w.Kind
		if w.Synthetic {
			desc += " (assumed: no gateway workload in the manifests)"
		}
		cs = append(cs, candidate{value: w.Ref(), desc: desc})
	}
	return cs
}

// completionSource reads what completion needs through the root's flags, which cobra has
// parsed before it calls a completion function. Every read is a LIST (or the -f files).
type completionSource struct {
	g *GlobalOptions
}

// restConfig is the root's ConfigFlags' REST config with the completion timeout.
func (s completionSource) restConfig() (*rest.Config, context.Context, context.CancelFunc, error) {
	cfg, err := s.g.ConfigFlags.ToRESTConfig()
	if err != nil {
		return nil, nil, nil, err
	}
	cfg = rest.CopyConfig(cfg)
	if cfg.UserAgent == "" {
		cfg.UserAgent = completionUserAgent
	}
	timeout := completionTimeout
	if cfg.Timeout > 0 {
		timeout = cfg.Timeout
	} else {
		cfg.Timeout = timeout
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	return cfg, ctx, cancel, nil
}

// completionUserAgent identifies completion requests in the API server's audit log.
const completionUserAgent = "kubectl-egress/completion"

// files reads the -f manifests (never stdin: "-" is an error here).
// cobra parses the flags of a __complete request twice, so an -f value can be listed twice; each
// file is read once.
func (s completionSource) files() (*snapshot.Snapshot, error) {
	var files []string
	for _, f := range s.g.Files {
		if !slices.Contains(files, f) {
			files = append(files, f)
		}
	}
	return loader.FromFiles(files, nil, loader.Options{IstioNamespace: s.g.IstioNamespace, Revision: s.g.Revision})
}

// namespaces: one LIST of Namespaces, or the namespaces of the -f manifests.
func (s completionSource) namespaces() ([]candidate, error) {
	if len(s.g.Files) > 0 {
		snap, err := s.files()
		if err != nil {
			return nil, err
		}
		return namespaceCandidates(snap), nil
	}
	cfg, ctx, cancel, err := s.restConfig()
	if err != nil {
		return nil, err
	}
	defer cancel()
	kc, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	list, err := kc.CoreV1().Namespaces().List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	cs := make([]candidate, 0, len(list.Items))
	for _, n := range list.Items {
		cs = append(cs, candidate{value: n.Name})
	}
	return cs, nil
}

// serviceEntries: one LIST of ServiceEntries in all namespaces, or those of the -f manifests.
func (s completionSource) serviceEntries() ([]*networkingv1.ServiceEntry, error) {
	if len(s.g.Files) > 0 {
		snap, err := s.files()
		if err != nil {
			return nil, err
		}
		return snap.ServiceEntries, nil
	}
	cfg, ctx, cancel, err := s.restConfig()
	if err != nil {
		return nil, err
	}
	defer cancel()
	ic, err := istioclient.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	list, err := ic.NetworkingV1().ServiceEntries(metav1.NamespaceAll).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	return list.Items, nil
}

// pods: one LIST of Pods (in the namespace already typed, "team-a/" of "team-a/ap", else in all
// namespaces), or the Pods of the -f manifests.
func (s completionSource) pods(toComplete string) ([]candidate, error) {
	if len(s.g.Files) > 0 {
		snap, err := s.files()
		if err != nil {
			return nil, err
		}
		return podCandidates(snap.Pods), nil
	}
	cfg, ctx, cancel, err := s.restConfig()
	if err != nil {
		return nil, err
	}
	defer cancel()
	kc, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	ns, _, _ := strings.Cut(toComplete, "/")
	if !strings.Contains(toComplete, "/") {
		ns = metav1.NamespaceAll
	}
	list, err := kc.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	pods := make([]*corev1.Pod, 0, len(list.Items))
	for i := range list.Items {
		pods = append(pods, &list.Items[i])
	}
	return podCandidates(pods), nil
}

// podCompletion completes --pod NAMESPACE/NAME.
func podCompletion(s completionSource) cobra.CompletionFunc {
	return func(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		return completeWith(func() ([]candidate, error) { return s.pods(toComplete) }, toComplete)
	}
}

// hostPortArgCompletion completes the HOST:PORT argument (and --host) of explain-listener.
func hostPortArgCompletion(s completionSource) cobra.CompletionFunc {
	return serviceEntryArgCompletion(s, hostPortCandidates)
}

// gateways: the gateway workloads of the snapshot the loader reads (the same LISTs as
// why-missing), or of the -f manifests.
func (s completionSource) gateways() ([]candidate, error) {
	var snap *snapshot.Snapshot
	if len(s.g.Files) > 0 {
		var err error
		if snap, err = s.files(); err != nil {
			return nil, err
		}
	} else {
		cfg, ctx, cancel, err := s.restConfig()
		if err != nil {
			return nil, err
		}
		defer cancel()
		// A forbidden kind only narrows the candidates (the loader records it in Unknown).
		if snap, err = loader.FromCluster(ctx, cfg, loader.Options{IstioNamespace: s.g.IstioNamespace, Revision: s.g.Revision}); err != nil {
			return nil, err
		}
	}
	return gatewayCandidates(checks.GatewayWorkloads(snap)), nil
}

// kubeconfigCandidates: --context, --cluster and --user from the kubeconfig (no server call).
func (s completionSource) kubeconfigCandidates(kind string) ([]candidate, error) {
	raw, err := s.g.ConfigFlags.ToRawKubeConfigLoader().RawConfig()
	if err != nil {
		return nil, err
	}
	var cs []candidate
	switch kind {
	case "context":
		for name, c := range raw.Contexts {
			cs = append(cs, candidate{value: name, desc: "cluster " + c.Cluster})
		}
	case "cluster":
		for name, c := range raw.Clusters {
			cs = append(cs, candidate{value: name, desc: c.Server})
		}
	case "user":
		for name := range raw.AuthInfos {
			cs = append(cs, candidate{value: name})
		}
	}
	return cs, nil
}

// hostArgCompletion completes the single HOST argument of why-missing and visibility.
func hostArgCompletion(s completionSource) cobra.CompletionFunc {
	return serviceEntryArgCompletion(s, hostCandidates)
}

// serviceEntryArgCompletion completes a command's single argument with candidates made from the
// ServiceEntries (nothing once the argument is given).
func serviceEntryArgCompletion(s completionSource, candidates func([]*networkingv1.ServiceEntry) []candidate) cobra.CompletionFunc {
	return func(_ *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return completeWith(func() ([]candidate, error) {
			ses, err := s.serviceEntries()
			return candidates(ses), err
		}, toComplete)
	}
}

func namespaceCompletion(s completionSource) cobra.CompletionFunc {
	return func(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		return completeWith(s.namespaces, toComplete)
	}
}

// registerRootCompletion attaches completion to the root's persistent flags. Cobra adds the
// `completion` command itself (CompletionOptions are left at their defaults).
func registerRootCompletion(root *cobra.Command, g *GlobalOptions) {
	s := completionSource{g: g}
	for _, kind := range []string{"context", "cluster", "user"} {
		_ = root.RegisterFlagCompletionFunc(kind, func(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
			return completeWith(func() ([]candidate, error) { return s.kubeconfigCandidates(kind) }, toComplete)
		})
	}
	_ = root.RegisterFlagCompletionFunc("namespace", namespaceCompletion(s))
	_ = root.RegisterFlagCompletionFunc("istio-namespace", namespaceCompletion(s))
	_ = root.RegisterFlagCompletionFunc("output", fixedCompletion(printers.Formats...))
	_ = root.RegisterFlagCompletionFunc("filter-gateway-clusters", fixedCompletion("true", "false"))
}

// registerWhyMissingCompletion: HOST, --gateway, --port, --from and --pod.
func registerWhyMissingCompletion(cmd *cobra.Command, g *GlobalOptions) {
	s := completionSource{g: g}
	cmd.ValidArgsFunction = hostArgCompletion(s)
	_ = cmd.RegisterFlagCompletionFunc("from", namespaceCompletion(s))
	_ = cmd.RegisterFlagCompletionFunc("pod", podCompletion(s))
	_ = cmd.RegisterFlagCompletionFunc("gateway", func(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		return completeWith(s.gateways, toComplete)
	})
	_ = cmd.RegisterFlagCompletionFunc("port", func(_ *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		if len(args) == 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return completeWith(func() ([]candidate, error) {
			ses, err := s.serviceEntries()
			return portCandidates(ses, args[0]), err
		}, toComplete)
	})
}

// registerVisibilityCompletion: HOST and --as-namespace (--from).
func registerVisibilityCompletion(cmd *cobra.Command, g *GlobalOptions) {
	s := completionSource{g: g}
	cmd.ValidArgsFunction = hostArgCompletion(s)
	_ = cmd.RegisterFlagCompletionFunc("as-namespace", namespaceCompletion(s))
	_ = cmd.RegisterFlagCompletionFunc("from", namespaceCompletion(s)) // alias of --as-namespace, where defined
}

// registerExportAuditCompletion: --fail-on.
func registerExportAuditCompletion(cmd *cobra.Command) {
	_ = cmd.RegisterFlagCompletionFunc("fail-on", fixedCompletion("error", "warning", "info", "none"))
}

// registerExplainListenerCompletion: HOST:PORT, --host, --from, --pod, --gateway, --call, --fail-on.
func registerExplainListenerCompletion(cmd *cobra.Command, g *GlobalOptions) {
	s := completionSource{g: g}
	cmd.ValidArgsFunction = hostPortArgCompletion(s)
	_ = cmd.RegisterFlagCompletionFunc("host", hostPortArgCompletion(s))
	_ = cmd.RegisterFlagCompletionFunc("from", namespaceCompletion(s))
	_ = cmd.RegisterFlagCompletionFunc("pod", podCompletion(s))
	_ = cmd.RegisterFlagCompletionFunc("gateway", func(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		return completeWith(s.gateways, toComplete)
	})
	_ = cmd.RegisterFlagCompletionFunc("call", fixedCompletion("http", "http2", "tls", "tcp"))
	_ = cmd.RegisterFlagCompletionFunc("fail-on", fixedCompletion("error", "warning", "info", "none"))
}

// registerProxyConfigCompletion: --from, --pod and --gateway (the section comes from ValidArgs).
func registerProxyConfigCompletion(cmd *cobra.Command, g *GlobalOptions) {
	s := completionSource{g: g}
	_ = cmd.RegisterFlagCompletionFunc("from", namespaceCompletion(s))
	_ = cmd.RegisterFlagCompletionFunc("pod", podCompletion(s))
	_ = cmd.RegisterFlagCompletionFunc("gateway", func(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		return completeWith(s.gateways, toComplete)
	})
}
