package checks

import (
	networkingv1 "istio.io/client-go/pkg/apis/networking/v1"

	"github.com/kubectl-egress/kubectl-egress/pkg/model"
	"github.com/kubectl-egress/kubectl-egress/pkg/rules"
	"github.com/kubectl-egress/kubectl-egress/pkg/snapshot"
)

// SidecarView is the predicted outbound configuration of a sidecar proxy in one namespace, and
// what it was derived from.
type SidecarView struct {
	Namespace string
	Labels    map[string]string
	Revision  string
	Flags     IstiodFlags
	Scope     rules.SidecarScope
	Outbound  *rules.SidecarOutbound
}

// AllServices returns every registry entry of the snapshot (one per ServiceEntry host, one per
// Kubernetes Service) with the mesh config's defaultServiceExportTo and serviceEntryVisibility
// applied.
//
// The slice is the model's registry (model.Services), shared: callers must not modify it.
func AllServices(snap *snapshot.Snapshot, flags IstiodFlags) []rules.Service {
	return model.Services(snap, flags.MeshConfig).All
}

// namespaceSidecar returns the Sidecar resource that applies to a pod without labels in ns
// (the one BuildSidecarView(snap, ns, nil) uses), nil when none does.
func namespaceSidecar(snap *snapshot.Snapshot, ns string) *networkingv1.Sidecar {
	rev := workloadRevision(snap, ns, nil)
	view := RevisionView(snap, rev)
	root := ReadIstiodFlags(view, rev).MeshConfig.GetRootNamespace()
	if root == "" {
		root = snap.IstioNamespace
	}
	return rules.SelectSidecar(view.Sidecars, root, ns, nil)
}

// endpointAddresses returns the addresses of a service's endpoints on a port: for a
// ServiceEntry service, those of every entry for its host name in its namespace that declares the
// port (inline endpoint addresses, the addresses of the WorkloadEntries and Pods its
// workloadSelector selects, and for a DNS entry without either its host name); for a Kubernetes
// Service, nothing (its pods' endpoints are not modelled).
//
// Mirrors istiod pilot/pkg/model/push_context.go ServiceEndpointsByPort (instances indexed by host
// name and namespace) and serviceentry/conversion.go convertServiceEntryToInstances.
func endpointAddresses(snap *snapshot.Snapshot, reg *model.Registry, s rules.Service, port uint32) []string {
	if s.Kind != rules.KindServiceEntry {
		return nil
	}
	var out []string
	for _, e := range reg.Shared(s.Hostname) {
		if e.Kind != rules.KindServiceEntry || e.Namespace != s.Namespace || !hasPort(e, port) {
			continue
		}
		switch {
		case e.Endpoints > 0:
			out = append(out, e.EndpointAddresses...)
		case len(e.WorkloadSelector) > 0:
			for _, we := range snap.WorkloadEntries {
				if we.Namespace == e.Namespace && rules.LabelsSubsetOf(e.WorkloadSelector, we.Spec.GetLabels()) && we.Spec.GetAddress() != "" {
					out = append(out, we.Spec.GetAddress())
				}
			}
			for _, p := range snap.Pods {
				if p.Namespace == e.Namespace && rules.LabelsSubsetOf(e.WorkloadSelector, p.Labels) && p.Status.PodIP != "" {
					out = append(out, p.Status.PodIP)
				}
			}
		case rules.IsDNSResolution(e):
			out = append(out, e.Hostname)
		}
	}
	return out
}

// BuildSidecarView predicts the outbound listeners and routes of a sidecar proxy in namespace ns
// whose pod carries labels (nil: a pod no workloadSelector matches). The istiod revision is the
// pod's istio.io/rev label, else the namespace's, else --revision; the configuration is the one
// that revision reads. The Sidecar resource is chosen as istiod does (rules.SelectSidecar); the
// outbound traffic policy comes from it, else meshConfig, else ALLOW_ANY.
//
// Source: seed §1.2, §2.1–§2.2; istiod pilot/pkg/model/push_context.go getSidecarScope and
// pilot/pkg/networking/core/listener.go buildSidecarOutboundListeners (see
// rules.BuildSidecarOutbound).
func BuildSidecarView(snap *snapshot.Snapshot, ns string, labels map[string]string) SidecarView {
	rev := workloadRevision(snap, ns, labels)
	view := RevisionView(snap, rev)
	flags := ReadIstiodFlags(view, rev)
	mc := flags.MeshConfig
	root := mc.GetRootNamespace()
	if root == "" {
		root = snap.IstioNamespace
	}
	mode := ""
	if p := mc.GetOutboundTrafficPolicy(); p != nil {
		mode = p.GetMode().String()
	}
	scope := rules.NewSidecarScope(rules.SelectSidecar(view.Sidecars, root, ns, labels), mode)
	p := rules.SidecarProxy{
		Namespace: ns, Labels: labels, Scope: scope,
		Services:          AllServices(view, flags),
		HostIndex:         model.Services(view, flags.MeshConfig).HostNamespaceIndex(),
		Exported:          model.Services(view, flags.MeshConfig).ExportIndex(),
		VirtualServices:   view.VirtualServices,
		DefaultVSExportTo: mc.GetDefaultVirtualServiceExportTo(),
		Endpoints: func(s rules.Service, port uint32) []string {
			return endpointAddresses(view, model.Services(view, flags.MeshConfig), s, port)
		},
	}
	return SidecarView{Namespace: ns, Labels: labels, Revision: rev, Flags: flags, Scope: scope, Outbound: rules.BuildSidecarOutbound(p)}
}
