package checks

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kubectl-egress/kubectl-egress/pkg/rules"
	"github.com/kubectl-egress/kubectl-egress/pkg/snapshot"
)

// RevisionLabel is the label that binds a workload or namespace to an istiod revision.
const RevisionLabel = "istio.io/rev"

// Workload is a gateway (ROUTER) workload: a Deployment, or a Pod no Deployment selects.
type Workload struct {
	Kind      string // "Deployment" or "Pod"
	Namespace string
	Name      string
	// Labels are the pod labels (a Deployment's pod template labels).
	Labels map[string]string
	// Revision is the istiod revision serving it ("" = default).
	Revision string
	// Synthetic is true for the `istio: egressgateway` workload a loader assumed.
	Synthetic bool
}

// Ref returns "namespace/name".
func (w Workload) Ref() string { return w.Namespace + "/" + w.Name }

// isGatewayWorkload: labelled istio=egressgateway, selected by a Gateway's non-empty selector,
// deployed by istiod for a Kubernetes Gateway API Gateway (labelled
// gateway.networking.k8s.io/gateway-name), or shaped like a gateway (ROUTER) pod and not
// labelled as an ingress gateway.
func isGatewayWorkload(snap *snapshot.Snapshot, ns string, l map[string]string) bool {
	if l["istio"] == "egressgateway" {
		return true
	}
	if l[rules.KubeGatewayNameLabel] != "" {
		// Waypoints carry the label too; only gateways of Istio's gateway class are egress
		// gateways.
		class, ok := l[rules.KubeGatewayClassLabel]
		return !ok || rules.KubeGatewayIstioClass(class, snap.GatewayClasses)
	}
	for _, g := range snap.Gateways {
		if len(g.Spec.Selector) > 0 && rules.LabelsSubsetOf(g.Spec.Selector, l) {
			return true
		}
	}
	return false
}

// GatewayWorkloads lists every gateway workload of the snapshot, sorted by namespace/name:
// Deployments whose pod template is labelled `istio: egressgateway` or selected by some
// Gateway's selector, and Pods of that kind that no Deployment selects.
func GatewayWorkloads(snap *snapshot.Snapshot) []Workload {
	return slices.Clone(snap.Derived(gatewayWorkloadsKey{}, func() any { return gatewayWorkloads(snap) }).([]Workload))
}

type gatewayWorkloadsKey struct{}

func gatewayWorkloads(snap *snapshot.Snapshot) []Workload {
	var out []Workload
	for _, d := range snap.Deployments {
		l := d.Spec.Template.Labels
		if !isGatewayWorkload(snap, d.Namespace, l) && !rules.IsRouterPod(l, d.Spec.Template.Annotations, d.Spec.Template.Spec) {
			continue
		}
		out = append(out, Workload{Kind: "Deployment", Namespace: d.Namespace, Name: d.Name, Labels: l,
			Revision: workloadRevision(snap, d.Namespace, l), Synthetic: snap.Assumptions.SyntheticGateway && d.Namespace == snap.IstioNamespace && d.Name == "istio-egressgateway"})
	}
	for _, p := range snap.Pods {
		if (!isGatewayWorkload(snap, p.Namespace, p.Labels) && !rules.IsRouterPod(p.Labels, p.Annotations, p.Spec)) || ownedByDeployment(snap, p.Namespace, p.Labels) {
			continue
		}
		out = append(out, Workload{Kind: "Pod", Namespace: p.Namespace, Name: p.Name, Labels: p.Labels,
			Revision: workloadRevision(snap, p.Namespace, p.Labels)})
	}
	// A waypoint's proxy is not a gateway: istiod gives it a waypoint's configuration
	// (cluster.go and listener.go, case model.Waypoint), so no gateway verdict applies to it
	// (blind audit 66 g06, where an idle waypoint got ABSENT verdicts).
	out = slices.DeleteFunc(out, func(w Workload) bool { return waypointOf(snap, w) != "" })
	sort.Slice(out, func(i, j int) bool { return out[i].Ref() < out[j].Ref() })
	return out
}

func ownedByDeployment(snap *snapshot.Snapshot, ns string, l map[string]string) bool {
	for _, d := range snap.Deployments {
		if d.Namespace != ns || d.Spec.Selector == nil {
			continue
		}
		sel, err := metav1LabelSelectorAsSelector(d)
		if err == nil && !sel.Empty() && sel.Matches(labels.Set(l)) {
			return true
		}
	}
	return false
}

// FindWorkload resolves --gateway NS/NAME to a Deployment, or a Pod (mapped to its Deployment
// when one selects it). A Deployment or Pod that is not otherwise a gateway workload is still
// accepted: the user named it.
func FindWorkload(snap *snapshot.Snapshot, ref string) (Workload, error) {
	w, err := findWorkload(snap, ref)
	if err != nil {
		if g := WaypointGateway(snap, ref); g != nil {
			// a waypoint's Gateway whose pods are not in the input: a waypoint all the same
			// (blind audit 83 X3, where the error named a gateway Deployment istiod never makes)
			return Workload{}, fmt.Errorf("--gateway %s is a waypoint (Gateway %s/%s, class %s): its configuration is a waypoint's, not a gateway's; `kubectl egress proxy-config all --gateway %s` predicts it, `kubectl egress why-missing HOST --from NAMESPACE` with an ambient client namespace traces calls through it", ref, g.Namespace, g.Name, g.Spec.GatewayClassName, ref)
		}
		return w, err
	}
	if gw := waypointOf(snap, w); gw != "" {
		// A waypoint proxy gets istiod's waypoint configuration (listener_waypoint.go,
		// cluster_waypoint.go: connect_terminate, main_internal, inbound-vip clusters), not a
		// gateway's; predicting it as a gateway gave false "no listener" errors (blind audit 64).
		return Workload{}, fmt.Errorf("--gateway %s is a waypoint (%s): its configuration is a waypoint's, not a gateway's; `kubectl egress proxy-config all --gateway %s` predicts it, `kubectl egress why-missing HOST --from NAMESPACE` with an ambient client namespace traces calls through it, and `kubectl egress visibility -A` lists the entries bound to it", ref, gw, ref)
	}
	return w, nil
}

// waypointOf names the waypoint Gateway ("Gateway ns/name, class C") whose pods workload w
// runs, or "" when w is not a waypoint: its pods carry the Gateway's name label and the
// Gateway's class is a waypoint class, or istiod's mesh-controller managed label
// (gatewaycommon classinfo.go; rules.KubeGatewayWaypointClass).
func waypointOf(snap *snapshot.Snapshot, w Workload) string {
	name := w.Labels[rules.KubeGatewayNameLabel]
	for _, g := range snap.KubeGateways {
		if name != "" && g.Namespace == w.Namespace && g.Name == name && rules.KubeGatewayWaypointClass(string(g.Spec.GatewayClassName), snap.GatewayClasses) {
			return fmt.Sprintf("Gateway %s/%s, class %s", g.Namespace, g.Name, g.Spec.GatewayClassName)
		}
	}
	if w.Labels[rules.LabelGatewayManaged] == "istio.io-mesh-controller" {
		return "its pods are labelled " + rules.LabelGatewayManaged + "=istio.io-mesh-controller"
	}
	return ""
}

func findWorkload(snap *snapshot.Snapshot, ref string) (Workload, error) {
	ns, name, ok := strings.Cut(ref, "/")
	if !ok || ns == "" || name == "" {
		return Workload{}, fmt.Errorf("--gateway %q: want NAMESPACE/NAME of the gateway Deployment or Pod", ref)
	}
	for _, d := range snap.Deployments {
		if d.Namespace == ns && d.Name == name {
			l := d.Spec.Template.Labels
			return Workload{Kind: "Deployment", Namespace: ns, Name: name, Labels: l, Revision: workloadRevision(snap, ns, l),
				Synthetic: snap.Assumptions.SyntheticGateway && ns == snap.IstioNamespace && name == "istio-egressgateway"}, nil
		}
	}
	for _, p := range snap.Pods {
		if p.Namespace == ns && p.Name == name {
			for _, d := range snap.Deployments {
				if d.Namespace != ns {
					continue
				}
				if sel, err := metav1LabelSelectorAsSelector(d); err == nil && !sel.Empty() && sel.Matches(labels.Set(p.Labels)) {
					l := d.Spec.Template.Labels
					return Workload{Kind: "Deployment", Namespace: ns, Name: d.Name, Labels: l, Revision: workloadRevision(snap, ns, l)}, nil
				}
			}
			return Workload{Kind: "Pod", Namespace: ns, Name: name, Labels: p.Labels, Revision: workloadRevision(snap, ns, p.Labels)}, nil
		}
	}
	// A Kubernetes Gateway API Gateway's name: the workload istiod deployed for it (its pods
	// carry the Gateway's name).
	for _, gw := range snap.KubeGateways {
		if gw.Namespace != ns || gw.Name != name {
			continue
		}
		for _, w := range GatewayWorkloads(snap) {
			if w.Namespace == ns && w.Labels[rules.KubeGatewayNameLabel] == name {
				return w, nil
			}
		}
		return Workload{}, fmt.Errorf("--gateway %s names a Gateway API Gateway whose pods are not in the input (istiod deploys them as %s/%s)", ref, ns, rules.KubeGatewayServiceName(gw))
	}
	var known []string
	for _, w := range GatewayWorkloads(snap) {
		known = append(known, w.Ref())
	}
	var unread []string
	for _, k := range []string{snapshot.KindDeployment, snapshot.KindPod} {
		if why := snap.Unknown[k]; why != "" {
			unread = append(unread, fmt.Sprintf("%s (%s)", PluralKind(k), why))
		}
	}
	if len(unread) > 0 {
		// not found among what could be read: whether it exists is not known (blind audit
		// 108 R20, where an existing gateway was said to be absent)
		return Workload{}, fmt.Errorf("gateway workload %s not found among what could be read: %s could not be read; run with an identity that can list them, or with -f on the rendered manifests", ref, strings.Join(unread, " and "))
	}
	if len(known) == 0 {
		return Workload{}, fmt.Errorf("gateway workload %s not found: no Deployment or Pod of that name, and no gateway workloads at all", ref)
	}
	return Workload{}, fmt.Errorf("gateway workload %s not found (gateway workloads: %s)", ref, strings.Join(known, ", "))
}

// workloadRevision: the pod's istio.io/rev label, else its namespace's, else --revision.
func workloadRevision(snap *snapshot.Snapshot, ns string, l map[string]string) string {
	if r := l[RevisionLabel]; r != "" {
		return r
	}
	if n := snap.Namespace(ns); n != nil && n.Labels[RevisionLabel] != "" {
		return n.Labels[RevisionLabel]
	}
	return snap.Revision
}

// targetPort is the container port Service port p reaches on the pods of workload w: a number
// as written; a name resolved through the containers' named ports of w's pod (template), ok
// false when none has that name (Kubernetes then puts no endpoint for the port in the
// Service's EndpointSlices, and istiod no service target: pilot/pkg/serviceregistry/kube
// FindPort). An unset targetPort is the port itself. 0 and ok: a name that cannot be resolved
// from the input (the pod spec is not in it, or lists no port at all, as minimal manifests do).
func targetPort(snap *snapshot.Snapshot, w Workload, p corev1.ServicePort) (uint32, bool) {
	switch {
	case p.TargetPort.IntVal != 0:
		return uint32(p.TargetPort.IntVal), true
	case p.TargetPort.StrVal == "":
		return uint32(p.Port), true
	}
	named := snap.Derived(namedPortsKey{w.Kind, w.Namespace, w.Name}, func() any { return workloadNamedPorts(snap, w) }).(map[string]uint32)
	if len(named) == 0 {
		return 0, true
	}
	// istiod (controller/util.go FindPort) matches the name and the protocol, which the API
	// server defaults to TCP on both sides
	t, ok := named[p.TargetPort.StrVal+"/"+protocolOrTCP(string(p.Protocol))]
	return t, ok
}

type namedPortsKey struct{ kind, ns, name string }

// untargetedContainerPort: the only container port of w's pods (protocol proto; Istio's own
// ports 15000-15099 left out) that no port of Service svc targets, by number or by name.
func untargetedContainerPort(snap *snapshot.Snapshot, w Workload, svc *corev1.Service, proto corev1.Protocol) (uint32, bool) {
	named := workloadNamedPorts(snap, w)
	targeted := targetedPorts(snap, w, svc)
	var cands []uint32
	for k, n := range named {
		_, pr, _ := strings.Cut(k, "/")
		if pr != protocolOrTCP(string(proto)) || targeted[n] || (n >= 15000 && n < 15100) || slices.Contains(cands, n) {
			continue
		}
		cands = append(cands, n)
	}
	if len(cands) != 1 {
		return 0, false
	}
	return cands[0], true
}

// targetedPorts are the ports of w's pods that a port of Service svc targets (by number, or by
// a name w's pods resolve).
func targetedPorts(snap *snapshot.Snapshot, w Workload, svc *corev1.Service) map[uint32]bool {
	targeted := map[uint32]bool{}
	for _, p := range svc.Spec.Ports {
		if t, ok := targetPort(snap, w, p); ok && t != 0 {
			targeted[t] = true
		}
	}
	return targeted
}

// workloadNamedPorts maps each named container port of w's pod (its Deployment's pod template,
// else its pods) to its number, keyed "name/PROTOCOL"; unnamed ports are keyed
// "#number/PROTOCOL" (they resolve no name, but show the pod spec lists its ports).
func workloadNamedPorts(snap *snapshot.Snapshot, w Workload) map[string]uint32 {
	out := map[string]uint32{}
	spec, _ := workloadPodSpec(snap, w)
	add := func(spec *corev1.PodSpec) {
		for _, c := range spec.Containers {
			for _, cp := range c.Ports {
				k := cp.Name + "/" + protocolOrTCP(string(cp.Protocol))
				if cp.Name == "" {
					// an unnamed port ("#number/PROTOCOL"): the pod spec lists its ports, so
					// a targetPort name it lacks is unresolved (blind audit 34 D4)
					k = fmt.Sprintf("#%d/%s", cp.ContainerPort, protocolOrTCP(string(cp.Protocol)))
				}
				if _, seen := out[k]; !seen {
					out[k] = uint32(cp.ContainerPort)
				}
			}
		}
	}
	if spec != nil {
		add(spec)
	}
	if len(out) == 0 && w.Kind == "Deployment" {
		// the pod template names no port: the pods themselves may (Kubernetes resolves a
		// named targetPort on each pod)
		for _, p := range snap.Pods {
			if p.Namespace == w.Namespace && rules.LabelsSubsetOf(w.Labels, p.Labels) {
				add(&p.Spec)
			}
		}
	}
	return out
}

// workloadPodSpec is the pod spec and annotations of w: its Deployment's pod template, or the
// Pod itself (nil when neither is in the input).
func workloadPodSpec(snap *snapshot.Snapshot, w Workload) (*corev1.PodSpec, map[string]string) {
	switch w.Kind {
	case "Deployment":
		for _, d := range snap.Deployments {
			if d.Namespace == w.Namespace && d.Name == w.Name {
				return &d.Spec.Template.Spec, d.Spec.Template.Annotations
			}
		}
	case "Pod":
		for _, p := range snap.Pods {
			if p.Namespace == w.Namespace && p.Name == w.Name {
				return &p.Spec, p.Annotations
			}
		}
	}
	return nil, nil
}

// MetaUnprivilegedPod is the proxy metadata with which a gateway pod tells istiod that it
// cannot bind ports below 1024 (Istio's istio-egress Helm chart sets it unless runAsRoot).
const MetaUnprivilegedPod = "ISTIO_META_UNPRIVILEGED_POD"

// gatewayUnprivileged says where w's proxy declares itself unprivileged ("" when it does not):
// the proxy's node metadata is meshConfig.defaultConfig.proxyMetadata, overridden key by key by
// the pod's proxy.istio.io/config annotation, overridden by the ISTIO_META_* variables of the
// istio-proxy container (the only container when none has that name); istiod reads the value
// with strconv.ParseBool, anything but a boolean meaning privileged. A variable set from a
// secret or field (valueFrom) cannot be read from the input and counts as unset.
//
// Mirrors istiod pilot/pkg/model/context.go Proxy.IsUnprivileged and the agent's
// pkg/bootstrap/config.go GetNodeMetaData (proxyMetadata first, then ISTIO_META_* variables).
func gatewayUnprivileged(snap *snapshot.Snapshot, w Workload) string {
	return snap.Derived(unprivilegedKey{w.Kind, w.Namespace, w.Name}, func() any {
		spec, annotations := workloadPodSpec(snap, w)
		flags := ReadIstiodFlags(RevisionView(snap, w.Revision), w.Revision)
		value, from := "", ""
		if v, ok := flags.MeshConfig.GetDefaultConfig().GetProxyMetadata()[MetaUnprivilegedPod]; ok {
			value, from = v, "meshConfig.defaultConfig.proxyMetadata"
		}
		if a := annotations[ProxyConfigAnnotation]; a != "" {
			if pc, err := parseProxyConfig(a); err == nil {
				if v, ok := pc.GetProxyMetadata()[MetaUnprivilegedPod]; ok {
					value, from = v, "the pod's "+ProxyConfigAnnotation+" annotation"
				}
			}
		}
		if spec != nil {
			var proxy *corev1.Container
			for i := range spec.Containers {
				if spec.Containers[i].Name == "istio-proxy" {
					proxy = &spec.Containers[i]
				}
			}
			if proxy == nil && len(spec.Containers) == 1 {
				proxy = &spec.Containers[0]
			}
			if proxy != nil {
				for _, e := range proxy.Env {
					if e.Name == MetaUnprivilegedPod && e.ValueFrom == nil {
						value, from = e.Value, "the env of container "+proxy.Name
					}
				}
			}
		}
		if b, err := strconv.ParseBool(value); err != nil || !b {
			return ""
		}
		return MetaUnprivilegedPod + "=" + value + " in " + from
	}).(string)
}

type unprivilegedKey struct{ kind, ns, name string }

func protocolOrTCP(p string) string {
	if p == "" {
		return "TCP"
	}
	return p
}

// namedPortsText lists the named container ports of w ("name=number", sorted), or says it has
// none.
func namedPortsText(snap *snapshot.Snapshot, w Workload) string {
	named := workloadNamedPorts(snap, w)
	var out, unnamed []string
	for n, p := range named {
		name, proto, _ := strings.Cut(n, "/")
		if strings.HasPrefix(name, "#") {
			unnamed = append(unnamed, fmt.Sprint(p))
			continue
		}
		if proto != "TCP" {
			name += "/" + proto
		}
		out = append(out, fmt.Sprintf("%s=%d", name, p))
	}
	sort.Strings(out)
	if len(out) == 0 {
		if len(unnamed) > 0 {
			sort.Strings(unnamed)
			return "the pods of " + w.Ref() + " name no container port; they declare " + strings.Join(unnamed, ", ") + " without a name"
		}
		return "the pods of " + w.Ref() + " name no container port"
	}
	return "named ports of " + w.Ref() + ": " + strings.Join(out, ", ")
}

// SyntheticGateway: ref ("namespace/name") is the egress gateway workload the loader assumed
// because the input holds none.
func SyntheticGateway(snap *snapshot.Snapshot, ref string) bool {
	for _, w := range GatewayWorkloads(snap) {
		if w.Synthetic && w.Ref() == ref {
			return true
		}
	}
	return false
}
