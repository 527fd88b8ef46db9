package plugin

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-egress/kubectl-egress/pkg/checks"
	"github.com/kubectl-egress/kubectl-egress/pkg/envoy"
	"github.com/kubectl-egress/kubectl-egress/pkg/loader"
	"github.com/kubectl-egress/kubectl-egress/pkg/printers"
	"github.com/kubectl-egress/kubectl-egress/pkg/rules"
	"github.com/kubectl-egress/kubectl-egress/pkg/snapshot"
)

// ExplainListenerOptions are the inputs of `kubectl egress explain-listener [HOST:PORT]`.
type ExplainListenerOptions struct {
	*GlobalOptions
	genericiooptions.IOStreams

	Target  string
	Host    string
	Port    int
	From    string
	Pod     string
	Gateway string
	Call    string
	Address string
	FailOn  string
	// ConfigDump is the proxy's saved Envoy config dump, shown and compared with the prediction.
	ConfigDump string
	nsGiven    bool
	filterGW   *bool
}

func newExplainListenerCommand(g *GlobalOptions, streams genericiooptions.IOStreams) *cobra.Command {
	o := &ExplainListenerOptions{GlobalOptions: g, IOStreams: streams}
	name := commandName()
	cmd := &cobra.Command{
		Use:   "explain-listener [HOST:PORT] (--from NS | --pod NS/NAME | --gateway NS/NAME)",
		Short: "Show which listener, filter chain, route and cluster a sidecar or gateway uses for host:port, and why",
		Long: `explain-listener predicts, the way istiod builds it, the outbound listener a proxy has for a port,
its filter chains (SNI, ALPN, address matches; HCM or tcp_proxy), the route configuration and
virtual host an HTTP call matches, and the cluster the call reaches — PassthroughCluster,
BlackHoleCluster or the block_all 502 for hosts the proxy does not know.

Sidecars (--from, --pod): listeners come from every ServiceEntry and Service the proxy sees
(exportTo, Sidecar egress hosts), one per (address, port); a TCP entry without addresses takes
the whole port on 0.0.0.0; entries competing for one port are merged or dropped per istiod's
rules, and the findings name who loses traffic. The call kind follows the entry's protocol
(HTTP → http, HTTP2/GRPC → http2, TLS/HTTPS → tls with SNI, TCP → tcp, unset → http and tcp);
--call overrides it.

Gateways (--gateway): listeners come only from Gateway servers; the ServiceEntry protocol does
not shape them. Shows the Service port → targetPort mapping, the VirtualServices that bind (or
why not), and mismatches such as http routes on a PASSTHROUGH server.

Without HOST (only --port), everything competing for the port is listed.

Exit codes: 0 no finding at or above --fail-on (default error); 1 such findings; 2 usage, input
or read error, a --from namespace that does not exist (with near matches), or no verdict
(UNKNOWN: the listener depends on Gateway API routes kubectl-egress does not model yet).`,
		Example: strings.ReplaceAll(`  NAME explain-listener httpbin.org:80 --from team-a
  NAME explain-listener api.example.com:443 --pod team-a/client-7d9f
  NAME explain-listener api.example.com:443 --gateway istio-system/istio-egressgateway
  NAME explain-listener db.example.com:3306 --from team-a -o json
  NAME explain-listener --port 443 --from team-a`, "NAME", name),
		Args: cobra.MaximumNArgs(1),
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
	f.IntVar(&o.Port, "port", 0, "the port (when HOST:PORT is not given)")
	f.StringVar(&o.Target, "host", "", "the destination host (instead of the HOST:PORT argument)")
	f.StringVar(&o.From, "from", "", "a sidecar proxy in this namespace (pod labels unknown)")
	f.StringVar(&o.Pod, "pod", "", "the sidecar proxy of this pod (NAMESPACE/NAME)")
	f.StringVar(&o.Gateway, "gateway", "", "a gateway workload (NAMESPACE/NAME of its Deployment or Pod)")
	f.StringVar(&o.Call, "call", "", "the call kind: http, http2, tls or tcp (default: from the port protocol)")
	f.StringVar(&o.Address, "address", "", "the destination IP the client connects to (default: the entry's first address)")
	f.StringVar(&o.ConfigDump, "config-dump", "", "the proxy's saved Envoy config dump: show its actual listeners on the port next to the prediction")
	f.StringVar(&o.FailOn, "fail-on", "error", failOnUsage)
	registerExplainListenerCompletion(cmd, g) // completion.go
	addOfflineFlag(cmd, g)
	return cmd
}

// Complete parses HOST:PORT and the flags.
func (o *ExplainListenerOptions) Complete(cmd *cobra.Command, args []string) error {
	o.nsGiven = cmdFlagChanged(cmd, "namespace")
	if cmdFlagChanged(cmd, "port") && o.Port == 0 {
		return usageErr("--port 0: want 1-65535")
	}
	if len(args) == 1 && o.Target != "" {
		return usageErr("give the host once: as HOST:PORT or with --host")
	}
	if o.Target != "" {
		args = []string{o.Target}
	}
	if len(args) == 1 {
		h, p, err := splitHostPort(args[0])
		if err != nil {
			return usageErr("%v", err)
		}
		o.Host = h
		if p != 0 {
			if o.Port != 0 && o.Port != p {
				return usageErr("%s names port %d but --port is %d", args[0], p, o.Port)
			}
			o.Port = p
		}
	}
	v, err := parseFilterFlag(o.FilterGatewayClusters)
	o.filterGW = v
	return err
}

// splitHostPort accepts host, host:port, [ipv6] and [ipv6]:port.
func splitHostPort(s string) (string, int, error) {
	if h, p, err := net.SplitHostPort(s); err == nil {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return "", 0, fmt.Errorf("%q: port %q is not a number in 1-65535", s, p)
		}
		return rules.NormalizeHost(h), n, nil
	}
	h := strings.TrimSuffix(strings.TrimPrefix(s, "["), "]")
	return rules.NormalizeHost(h), 0, nil
}

// Validate checks that one proxy, a port and a valid host are given.
func (o *ExplainListenerOptions) Validate() error {
	if o.Host != "" {
		if err := ValidateHost(o.Host); err != nil {
			return usageErr("%v", err)
		}
	}
	if o.Port < 1 || o.Port > 65535 {
		return usageErr("a port is needed: HOST:PORT or --port 1-65535")
	}
	n := 0
	for _, s := range []string{o.From, o.Pod, o.Gateway} {
		if s != "" {
			n++
		}
	}
	if n != 1 {
		return usageErr("name exactly one proxy: --from NAMESPACE, --pod NAMESPACE/NAME or --gateway NAMESPACE/NAME")
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
	switch o.Call {
	case "", rules.CallHTTP, rules.CallHTTP2, rules.CallTLS, rules.CallTCP:
	default:
		return usageErr("--call %q: want http, http2, tls or tcp", o.Call)
	}
	if o.Address != "" && !rules.IsIP(o.Address) {
		return usageErr("--address %q: want an IP address", o.Address)
	}
	if _, err := failRank(o.FailOn); err != nil {
		return err
	}
	return validateOutput(o.Output)
}

// failRank maps --fail-on to a level rank (0 Error, 1 Warning, 2 Info; -1 none).
func failRank(s string) (int, error) {
	lvl, err := checks.ParseFailOn(s)
	if err != nil {
		return 0, usageErr("%v", err)
	}
	switch lvl {
	case checks.LevelError:
		return 0, nil
	case checks.LevelWarning:
		return 1, nil
	case checks.LevelInfo:
		return 2, nil
	}
	return -1, nil
}

// failOnUsage is the help of --fail-on, the same in every command that has it.
const failOnUsage = "exit 1 when a finding is at least this level: error, warning, info or none (any case)"

// Run loads, explains and prints; findings at or above --fail-on exit 1.
func (o *ExplainListenerOptions) Run(ctx context.Context) error {
	snap, err := loadSnapshot(ctx, o.GlobalOptions, o.In, o.filterGW, o.nsGiven, o.From, refNamespace(o.Pod), refNamespace(o.Gateway))
	if err != nil {
		return err
	}
	if err := namespaceMustExist(o.GlobalOptions, snap, "--from", o.From, false); err != nil {
		return err
	}
	// Every kind a proxy's listeners depend on must have been read: no answer rests on an unread
	// input (the mesh ConfigMap's outbound policy and defaults, a namespace's Sidecar).
	needs := []string{snapshot.KindServiceEntry, snapshot.KindVirtualService, snapshot.KindGateway, snapshot.KindDestinationRule, snapshot.KindService, snapshot.KindConfigMap,
		snapshot.KindGatewayAPI, snapshot.KindGatewayAPICRD}
	proxy := "gateway " + o.Gateway
	if o.Gateway == "" {
		needs = append(needs, snapshot.KindSidecar)
		proxy = "the sidecars of " + o.From
		if o.Pod != "" {
			proxy = "pod " + o.Pod
		}
	}
	for _, k := range needs {
		if why, ok := snap.Unknown[k]; ok {
			return &exitError{code: ExitError, err: fmt.Errorf("cannot explain the listeners of %s: %s could not be read (%s), and they depend on them", proxy, checks.PluralKind(k), why)}
		}
	}
	eo := checks.ExplainListenerOptions{Host: o.Host, Port: uint32(o.Port), From: o.From, Pod: o.Pod, Gateway: o.Gateway, Call: o.Call, Address: o.Address}
	if o.ConfigDump != "" {
		data, err := loader.ReadFileCapped(o.ConfigDump, envoy.MaxBodyBytes)
		if err != nil {
			return &exitError{code: ExitError, err: fmt.Errorf("--config-dump: %v", err)}
		}
		if eo.Dump, err = envoy.ParseConfigDump(data); err != nil {
			return &exitError{code: ExitError, err: fmt.Errorf("%s: %v", o.ConfigDump, err)}
		}
		eo.DumpSource = "file " + o.ConfigDump
	}
	rep, err := checks.ExplainListener(snap, eo)
	if err != nil {
		return usageErr("%v", err)
	}
	if err := printers.ExplainListener(o.Out, rep, o.Output); err != nil {
		return err
	}
	limit, _ := failRank(o.FailOn)
	rank := map[string]int{checks.LevelError: 0, checks.LevelWarning: 1, checks.LevelInfo: 2}
	for _, f := range rep.Findings {
		if limit >= 0 && rank[f.Level] <= limit {
			return silentExit{code: ExitAbsent}
		}
	}
	if len(rep.NoVerdict) > 0 {
		return silentExit{code: ExitError}
	}
	return nil
}
