package loader

import (
	"context"
	"fmt"
	"sort"

	"k8s.io/client-go/rest"

	"github.com/kubectl-egress/kubectl-egress/pkg/envoy"
	"github.com/kubectl-egress/kubectl-egress/pkg/snapshot"
)

// ProxyTarget is a workload whose live proxy state is wanted.
type ProxyTarget struct {
	Namespace, Name string
	// Labels select the workload's pods (a Deployment's pod template labels, or the Pod's own).
	Labels   map[string]string
	Revision string
}

// Ref returns "namespace/name".
func (t ProxyTarget) Ref() string { return t.Namespace + "/" + t.Name }

// LiveOptions say where live evidence comes from.
type LiveOptions struct {
	// IstiodAddress is host:port of a reachable istiod monitoring endpoint (--istiod-address);
	// "" port-forwards to an istiod pod.
	IstiodAddress string
	// AdminPort is the Envoy admin port (15000).
	AdminPort int
	// SkipSync reads config dumps only, not istiod's sync status.
	SkipSync bool
}

// ReadLive fills snap.Live for each target: the config dump of one running pod of the workload
// (port-forward to the Envoy admin port, GET /config_dump) and its istiod sync status
// (/debug/syncz). Nothing here fails the command: every problem (no running pod, no node,
// forbidden, unreachable istiod, a timeout of ctx) becomes the "not checked" reason of that
// piece of evidence.
func ReadLive(ctx context.Context, cfg *rest.Config, snap *snapshot.Snapshot, targets []ProxyTarget, opt LiveOptions) {
	if snap.Live == nil {
		snap.Live = map[string]*snapshot.ProxyEvidence{}
	}
	if opt.AdminPort == 0 {
		opt.AdminPort = envoy.ProxyAdminPort
	}
	syncz := map[string][]envoy.SyncStatus{}
	syncErr := map[string]string{}
	istiod := map[string]string{}
	for _, t := range targets {
		ev := &snapshot.ProxyEvidence{}
		snap.Live[t.Ref()] = ev
		pod, why := pickPod(snap, t)
		if pod == "" {
			ev.DumpErr, ev.SyncErr = why, why
			continue
		}
		ev.Pod = t.Namespace + "/" + pod
		body, err := envoy.PortForwardGet(ctx, cfg, t.Namespace, pod, opt.AdminPort, envoy.ConfigDumpPath)
		if err == nil {
			ev.Dump, err = envoy.ParseConfigDump(body)
		}
		if err != nil {
			ev.DumpErr = err.Error()
		} else {
			ev.DumpSource = fmt.Sprintf("port-forward %s:%d", ev.Pod, opt.AdminPort)
		}
		if opt.SkipSync {
			ev.SyncErr = "not read"
			continue
		}
		if _, done := syncz[t.Revision]; !done && syncErr[t.Revision] == "" {
			s, inst, err := envoy.IstiodSyncz(ctx, cfg, snap.IstioNamespace, t.Revision, opt.IstiodAddress)
			istiod[t.Revision] = inst
			if err != nil {
				syncErr[t.Revision] = "istiod: " + err.Error()
			} else {
				syncz[t.Revision] = s
			}
		}
		ev.Istiod = istiod[t.Revision]
		switch {
		case syncErr[t.Revision] != "":
			ev.SyncErr = syncErr[t.Revision]
		default:
			if s := envoy.FindSync(syncz[t.Revision], pod, t.Namespace); s != nil {
				ev.Sync = s
			} else {
				ev.SyncErr = fmt.Sprintf("istiod %s has no connection from %s", ev.Istiod, ev.Pod)
			}
		}
	}
}

// pickPod returns a running, scheduled pod of the target (by name order), or why there is none.
func pickPod(snap *snapshot.Snapshot, t ProxyTarget) (string, string) {
	if why, ok := snap.Unknown[snapshot.KindPod]; ok {
		return "", "pods could not be read (" + why + ")"
	}
	var names []string
	seen := 0
	for _, p := range snap.Pods {
		if p.Namespace != t.Namespace || !subset(t.Labels, p.Labels) {
			continue
		}
		if p.Name == t.Name || len(t.Labels) > 0 {
			seen++
			if p.Status.Phase == "Running" && p.Spec.NodeName != "" {
				names = append(names, p.Name)
			}
		}
	}
	if len(names) == 0 {
		if seen > 0 {
			return "", fmt.Sprintf("no running pod of %s (%d pod(s), none Running on a node)", t.Ref(), seen)
		}
		return "", "no pod of " + t.Ref()
	}
	sort.Strings(names)
	return names[0], ""
}

func subset(sel, l map[string]string) bool {
	for k, v := range sel {
		if l[k] != v {
			return false
		}
	}
	return true
}

// ReadDumpFile reads a saved config dump (Envoy admin /config_dump, or `istioctl proxy-config
// all -o json`) for the workload ref. Errors: unreadable file, not a config dump ("PATH: why").
func ReadDumpFile(snap *snapshot.Snapshot, ref, path string) error {
	data, err := ReadFileCapped(path, envoy.MaxBodyBytes)
	if err != nil {
		return fmt.Errorf("--config-dump: %v", err)
	}
	d, err := envoy.ParseConfigDump(data)
	if err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	if snap.Live == nil {
		snap.Live = map[string]*snapshot.ProxyEvidence{}
	}
	snap.Live[ref] = &snapshot.ProxyEvidence{DumpSource: "file " + path, Dump: d, SyncErr: "a saved config dump carries no sync status"}
	return nil
}
