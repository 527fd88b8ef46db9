package plugin

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-egress/kubectl-egress/pkg/checks"
	"github.com/kubectl-egress/kubectl-egress/pkg/envoy"
	"github.com/kubectl-egress/kubectl-egress/pkg/loader"
	"github.com/kubectl-egress/kubectl-egress/pkg/printers"
	"github.com/kubectl-egress/kubectl-egress/pkg/snapshot"
)

// ProxyConfigOptions are the inputs of `kubectl egress proxy-config clusters|listeners|routes|all`.
type ProxyConfigOptions struct {
	*GlobalOptions
	genericiooptions.IOStreams

	Section    string
	From       string
	Pod        string
	Gateway    string
	Diff       bool
	ConfigDump string
	Offline    bool

	nsGiven  bool
	filterGW *bool
}

var proxyConfigSections = []string{checks.SectionClusters, checks.SectionListeners, checks.SectionRoutes, "all"}

func newProxyConfigCommand(g *GlobalOptions, streams genericiooptions.IOStreams) *cobra.Command {
	o := &ProxyConfigOptions{GlobalOptions: g, IOStreams: streams}
	name := commandName()
	cmd := &cobra.Command{
		Use:   "proxy-config clusters|listeners|routes|all (--gateway NS/NAME | --from NS | --pod NS/NAME)",
		Short: "Predict a proxy's outbound clusters, listeners and routes, and compare them with the proxy",
		Long: `proxy-config predicts, from the configuration alone and the way istiod builds it, what
'istioctl proxy-config clusters|listeners|routes' shows for the outbound side of one proxy: an
egress gateway or an ambient waypoint (--gateway) or the sidecar of a namespace (--from) or of
a pod (--pod). It
answers "what will istiod push to this proxy?" before anything is applied: with -f over a live
cluster the manifests are applied over the live configuration first (as preflight does); with
-f alone, the manifests are the whole mesh.

--diff compares the prediction with what the proxy holds: a saved config dump
(--config-dump FILE, from 'istioctl proxy-config all -o json' or Envoy's /config_dump), or the
running pod's own, read through a port-forward to its admin port (15000; needs create on
pods/portforward). Each resource only predicted (MISSING from the proxy), only in the proxy
(EXTRA) or different is listed, and the command exits 1.

Not predicted: Envoy's static and inbound configuration (virtualOutbound, virtualInbound,
admin and health listeners, BlackHoleCluster, PassthroughCluster, inbound clusters); --diff
leaves them out. Sidecars are predicted without DNS capture (entries without addresses bind
0.0.0.0). Of a waypoint: its internal clusters (main_internal, encap, connect_originate), an
inbound-vip cluster per port of each ServiceEntry bound to it, outbound clusters for hosts its
routes send to; its listeners (main_internal's chains, one per bound port and kind) and the
inline routes of their HTTP chains. See docs/proxy-config.md.

Exit codes: 0 the prediction (or, with --diff, the proxy matches it); 1 --diff found a
difference; 2 usage, input or read error (an unreadable dump, an API server that cannot be
reached or read).`,
		Example: strings.ReplaceAll(`  # What the egress gateway gets
  NAME proxy-config clusters --gateway istio-system/istio-egressgateway

  # An ambient waypoint's clusters (its Gateway's name)
  NAME proxy-config clusters --gateway egress/egress-waypoint

  # A namespace's sidecars: listeners and routes
  NAME proxy-config listeners --from team-a
  NAME proxy-config routes --from team-a

  # What istiod will push to the gateway once these manifests are applied
  NAME proxy-config all --gateway istio-system/istio-egressgateway -f release/

  # Compare with the running gateway, or with a saved dump
  NAME proxy-config all --gateway istio-system/istio-egressgateway --diff
  NAME proxy-config clusters --gateway istio-system/istio-egressgateway --diff --config-dump gw.json`, "NAME", name),
		Args:      cobra.MaximumNArgs(1),
		ValidArgs: proxyConfigSections,
		RunE: func(c *cobra.Command, args []string) error {
			if err := o.Complete(c, args); err != nil {
				return err
			}
			if err := o.Validate(); err != nil {
				return err
			}
			return o.Run(c.Context())
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.From, "from", "", "the sidecar proxies of this namespace (pod labels unknown)")
	f.StringVar(&o.Pod, "pod", "", "the sidecar proxy of this pod (NAMESPACE/NAME)")
	f.StringVar(&o.Gateway, "gateway", "", "a gateway workload (NAMESPACE/NAME of its Deployment or Pod), or a waypoint (its Gateway, Deployment or Pod)")
	f.BoolVar(&o.Diff, "diff", false, "compare the prediction with the proxy's actual configuration; exit 1 on differences")
	f.StringVar(&o.ConfigDump, "config-dump", "", "with --diff: the proxy's saved config dump instead of the running pod's")
	f.BoolVar(&o.Offline, "offline", false, "with -f: predict from the manifests alone, without reading the cluster")
	registerProxyConfigCompletion(cmd, g) // completion.go
	return cmd
}

// Complete reads the section argument and the flags.
func (o *ProxyConfigOptions) Complete(cmd *cobra.Command, args []string) error {
	o.nsGiven = cmdFlagChanged(cmd, "namespace")
	o.Section = "all"
	if len(args) == 1 {
		o.Section = args[0]
	}
	v, err := parseFilterFlag(o.FilterGatewayClusters)
	o.filterGW = v
	return err
}

// Validate checks the section, that exactly one proxy is named and the flag combinations.
func (o *ProxyConfigOptions) Validate() error {
	ok := false
	for _, s := range proxyConfigSections {
		if o.Section == s {
			ok = true
		}
	}
	if !ok {
		return usageErr("%q: want clusters, listeners, routes or all", o.Section)
	}
	n := 0
	for _, s := range []string{o.From, o.Pod, o.Gateway} {
		if s != "" {
			n++
		}
	}
	if n != 1 {
		return usageErr("name exactly one proxy: --gateway NAMESPACE/NAME, --from NAMESPACE or --pod NAMESPACE/NAME")
	}
	if o.From != "" && len(validation.IsDNS1123Label(o.From)) > 0 {
		return usageErr("--from %q: want a namespace name", o.From)
	}
	for flag, v := range map[string]string{"--pod": o.Pod, "--gateway": o.Gateway} {
		if v == "" {
			continue
		}
		ns, n, ok := strings.Cut(v, "/")
		if !ok || len(validation.IsDNS1123Label(ns)) > 0 || len(validation.IsDNS1123Subdomain(n)) > 0 {
			return usageErr("%s %q: want NAMESPACE/NAME", flag, v)
		}
	}
	if o.ConfigDump != "" && !o.Diff {
		return usageErr("--config-dump is read by --diff: add --diff")
	}
	if o.Diff && o.ConfigDump == "" && o.From != "" {
		return usageErr("--diff with --from: name one pod (--pod NAMESPACE/NAME), or give its dump with --config-dump")
	}
	if o.Offline && len(o.Files) == 0 {
		return usageErr("--offline needs -f FILES")
	}
	return validateOutput(o.Output)
}

func (o *ProxyConfigOptions) sections() []string {
	if o.Section == "all" {
		return nil
	}
	return []string{o.Section}
}

// Run loads the mesh, predicts the proxy's configuration, compares it when --diff, and prints.
func (o *ProxyConfigOptions) Run(ctx context.Context) error {
	snap, offline, note, err := o.load(ctx)
	if err != nil {
		return err
	}
	if err := namespaceMustExist(o.GlobalOptions, snap, "--from", o.From, false); err != nil {
		return err
	}
	// Every kind a proxy's configuration depends on must have been read: no prediction rests on
	// an unread input (the mesh ConfigMap's defaults and outbound policy, the namespaces' labels,
	// a namespace's Sidecar, the endpoints WorkloadEntries add, the clusters EnvoyFilters keep).
	needs := []string{snapshot.KindServiceEntry, snapshot.KindVirtualService, snapshot.KindGateway, snapshot.KindDestinationRule,
		snapshot.KindService, snapshot.KindNamespace, snapshot.KindPod, snapshot.KindGatewayAPI, snapshot.KindGatewayAPICRD}
	if o.Gateway == "" {
		needs = append(needs, snapshot.KindSidecar)
	}
	if checks.ReadIstiodFlags(snap, snap.Revision).MeshUnknown != "" {
		needs = append(needs, snapshot.KindConfigMap)
	}
	for _, k := range needs {
		if why, ok := snap.Unknown[k]; ok {
			return &exitError{code: ExitError, err: fmt.Errorf("cannot predict the proxy's configuration: %s could not be read (%s), and it depends on them", checks.PluralKind(k), why)}
		}
	}
	optional, optNotes := checks.OptionalInputs(snap)
	for _, k := range sortedKeys(optional) {
		return &exitError{code: ExitError, err: fmt.Errorf("cannot predict the proxy's configuration: %s could not be read (%s)", checks.PluralKind(k), optional[k])}
	}
	rep, err := checks.ProxyConfig(snap, checks.ProxyConfigOptions{From: o.From, Pod: o.Pod, Gateway: o.Gateway, Sections: o.sections()})
	if err != nil {
		return usageErr("%v", err)
	}
	if note != "" {
		rep.Notes = append([]string{note}, rep.Notes...)
	}
	rep.Notes = append(rep.Notes, optNotes...)
	if why, ok := snap.Unknown[snapshot.KindDeployment]; ok {
		rep.Notes = append(rep.Notes, "Deployments could not be read ("+why+"); gateway workloads and istiod were taken from Pods")
	}
	if o.Diff {
		if offline && o.ConfigDump == "" {
			return usageErr("--diff of manifests checked alone: give the proxy's dump with --config-dump")
		}
		if err := o.diff(ctx, snap, rep); err != nil {
			return err
		}
	}
	if err := printers.ProxyConfig(o.Out, rep, o.Output); err != nil {
		return err
	}
	if rep.Diff != nil && len(rep.Diff.Differences) > 0 {
		return silentExit{code: ExitAbsent}
	}
	return nil
}

// load reads the live cluster; the -f manifests alone (--offline, or no cluster configured);
// or the manifests applied over the live configuration (snapshot.Overlay, as preflight's
// what-if). offline says the manifests were read alone; note explains an implicit offline run.
func (o *ProxyConfigOptions) load(ctx context.Context) (snap *snapshot.Snapshot, offline bool, note string, err error) {
	ns := []string{o.From, refNamespace(o.Pod), refNamespace(o.Gateway)}
	files := func() (*snapshot.Snapshot, error) {
		return loadSnapshot(ctx, o.GlobalOptions, o.In, o.filterGW, o.nsGiven, ns...)
	}
	live := func() (*snapshot.Snapshot, error) {
		g := *o.GlobalOptions
		g.Files = nil
		return loadSnapshot(ctx, &g, o.In, o.filterGW, o.nsGiven, ns...)
	}
	switch {
	case len(o.Files) == 0:
		snap, err = live()
		return snap, false, "", err
	case o.Offline:
		snap, err = files()
		return snap, true, "", err
	}
	if why := noCluster(o.GlobalOptions); why != "" {
		snap, err = files()
		return snap, true, "no cluster configured (" + why + "): the manifests were read alone, as with --offline", err
	}
	over, err := files()
	if err != nil {
		return nil, false, "", err
	}
	base, err := live()
	if err != nil {
		return nil, false, "", &exitError{code: ExitError, err: fmt.Errorf("%v (use --offline to read the manifests alone)", err)}
	}
	return snapshot.Overlay(base, over), false, "the manifests applied over the live configuration (" + base.Source + ")", nil
}

// diff reads the proxy's actual configuration and compares it with the prediction.
func (o *ProxyConfigOptions) diff(ctx context.Context, snap *snapshot.Snapshot, rep *checks.ProxyConfigReport) error {
	ref := o.Gateway
	if ref == "" {
		ref = o.Pod
	}
	if o.ConfigDump != "" {
		tmp := snapshot.NewEmpty("", snap.IstioNamespace, "")
		if err := loader.ReadDumpFile(tmp, ref, o.ConfigDump); err != nil {
			return &exitError{code: ExitError, err: err}
		}
		ev := tmp.Live[ref]
		if len(ev.Dump.Clusters)+len(ev.Dump.Listeners)+len(ev.Dump.Routes) == 0 {
			return &exitError{code: ExitError, err: fmt.Errorf("%s: no clusters, listeners or routes in the dump", o.ConfigDump)}
		}
		podPrefix, pod := "", ""
		switch {
		case o.Gateway != "":
			if w, err := checks.FindWorkload(snap, o.Gateway); err == nil && w.Kind == "Pod" {
				pod = w.Name
			} else if err == nil && !w.Synthetic {
				podPrefix = w.Name
			}
		case o.Pod != "":
			_, pod, _ = strings.Cut(o.Pod, "/")
		}
		if err := otherProxyDump(ev.Dump, o.ConfigDump, strings.ToLower(rep.Proxy.Type), rep.Proxy.Namespace, podPrefix, pod); err != nil {
			return err
		}
		checks.DiffProxyConfig(rep, ev.Dump, ev.DumpSource, o.sections())
		return nil
	}
	cfg, err := o.ConfigFlags.ToRESTConfig()
	if err != nil {
		return &exitError{code: ExitError, err: fmt.Errorf("kubeconfig: %v", err)}
	}
	var t loader.ProxyTarget
	if o.Gateway != "" {
		w, err := checks.FindWorkload(snap, o.Gateway)
		if err != nil {
			return usageErr("%v", err)
		}
		t = loader.ProxyTarget{Namespace: w.Namespace, Name: w.Name, Labels: w.Labels, Revision: w.Revision}
		if w.Kind == "Pod" {
			t.Labels = nil
		}
		for _, d := range snap.Deployments {
			if d.Namespace == w.Namespace && d.Name == w.Name && d.Spec.Selector != nil && len(d.Spec.Selector.MatchLabels) > 0 {
				t.Labels = d.Spec.Selector.MatchLabels
			}
		}
	} else {
		ns, name, _ := strings.Cut(o.Pod, "/")
		t = loader.ProxyTarget{Namespace: ns, Name: name}
	}
	ctx, cancel := liveContext(ctx, cfg)
	defer cancel()
	loader.ReadLive(ctx, cfg, snap, []loader.ProxyTarget{t}, loader.LiveOptions{SkipSync: true})
	ev := snap.Live[t.Ref()]
	if ev == nil || ev.Dump == nil {
		why := "no config dump"
		if ev != nil && ev.DumpErr != "" {
			why = ev.DumpErr
		}
		return &exitError{code: ExitError, err: fmt.Errorf("cannot read the proxy's configuration: %s (give a saved dump with --config-dump)", why)}
	}
	checks.DiffProxyConfig(rep, ev.Dump, ev.DumpSource, o.sections())
	return nil
}

// otherProxyDump: an error (exit 2) when the dump's node id (from its bootstrap) names a proxy
// other than the one asked for: another type (sidecar, router, waypoint), namespace, or pod (pod:
// that name; podPrefix: a pod of that Deployment); nil when it matches or the dump carries no
// Istio node id. A dump of the wrong proxy otherwise reads as a change not pushed yet (blind
// audit 72 3.3).
func otherProxyDump(d *envoy.Dump, path, wantType, ns, podPrefix, pod string) error {
	typ, gotPod, gotNs, ok := envoy.NodeOf(d.Node)
	if !ok {
		return nil
	}
	if typ == wantType && gotNs == ns && (pod == "" || gotPod == pod) && (podPrefix == "" || strings.HasPrefix(gotPod, podPrefix+"-")) {
		return nil
	}
	want := strings.ToUpper(wantType) + " in namespace " + ns
	switch {
	case pod != "":
		want = strings.ToUpper(wantType) + " " + ns + "/" + pod
	case podPrefix != "":
		want = strings.ToUpper(wantType) + " " + ns + "/" + podPrefix
	}
	return &exitError{code: ExitError, err: fmt.Errorf("%s is the dump of %s %s/%s (its node id %s), not of %s: take the dump of the proxy asked for, or ask for the one the dump is of", path, strings.ToUpper(typ), gotNs, gotPod, d.Node, want)}
}
