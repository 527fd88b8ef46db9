package snapshot

import (
	"slices"
	"sort"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	networkingv1 "istio.io/client-go/pkg/apis/networking/v1"
)

// SyntheticGatewayName is the Deployment a manifest loader adds in the Istio namespace when the
// manifests have no gateway workload (Assumptions.SyntheticGateway).
const SyntheticGatewayName = "istio-egressgateway"

// Overlay returns what base would be with the objects of over applied, as `kubectl apply -f`
// would leave it: an object of over replaces the base object of the same kind, namespace and
// name, and is added otherwise. Neither input is modified; objects taken from over are copies.
//
//   - Creation times (istiod orders by them): a replacing object keeps the base object's
//     creationTimestamp, as the API server does; added objects are placed after every base
//     object, one second apart in the order of their own creation times (manifests without
//     creationTimestamp are numbered by the file loader in load order); onto an empty base
//     they keep their times.
//   - The synthetic gateway Deployment a file loader assumes when the manifests have none
//     (over.Assumptions.SyntheticGateway) is dropped: the live workloads are what is there.
//   - MeshConfigs: a revision's mesh config from over replaces base's; so does a ConfigMap's
//     data (ConfigMapData).
//   - Unknown: base's entries stay (what could not be read live is still unknown);
//     Assumptions and Revision come from base, with over's FilterGatewayClusters when base has
//     none; Live is nil (live evidence does not describe the overlay).
//   - Source is base.Source + " + " + over.Source.
func Overlay(base, over *Snapshot) *Snapshot {
	out := NewEmpty(base.Source+" + "+over.Source, base.IstioNamespace, base.Revision)
	out.Assumptions = base.Assumptions
	if out.Assumptions.FilterGatewayClusters == nil {
		out.Assumptions.FilterGatewayClusters = over.Assumptions.FilterGatewayClusters
	}
	for k, v := range base.Unknown {
		out.Unknown[k] = v
	}
	// Secrets: both sets of names; the namespaces read whole are base's (manifests claim to
	// hold every Secret only on their own).
	for _, src := range []*Snapshot{base, over} {
		for k := range src.Secrets {
			ns, name, _ := strings.Cut(k, "/")
			out.AddSecret(ns, name)
		}
	}
	out.SecretNamespaces, out.SecretsUnread = base.SecretNamespaces, base.SecretsUnread
	for k, v := range base.MeshConfigs {
		out.MeshConfigs[k] = v
	}
	for k, v := range over.MeshConfigs {
		out.MeshConfigs[k] = v
	}
	for _, src := range []*Snapshot{base, over} {
		for k, v := range src.ConfigMapData {
			if out.ConfigMapData == nil {
				out.ConfigMapData = map[string]map[string]string{}
			}
			out.ConfigMapData[k] = v
		}
	}
	deployments := over.Deployments
	if over.Assumptions.SyntheticGateway {
		deployments = nil
		for _, d := range over.Deployments {
			if !(d.Namespace == over.IstioNamespace && d.Name == SyntheticGatewayName) {
				deployments = append(deployments, d)
			}
		}
	}
	// What a manifest loader assumed istiod deploys for a Gateway API Gateway gives way to
	// base's Service of that name (what istiod did deploy); kept, and still an assumption, when
	// base has none (istiod will deploy it).
	services := over.Services
	for _, ref := range over.Assumptions.SyntheticKubeGateways {
		ns, name, _ := strings.Cut(ref, "/")
		if !slices.ContainsFunc(base.Services, func(s *corev1.Service) bool { return s.Namespace == ns && s.Name == name }) {
			out.Assumptions.SyntheticKubeGateways = append(out.Assumptions.SyntheticKubeGateways, ref)
			continue
		}
		mine := func(m metav1.Object) bool { return m.GetNamespace() == ns && m.GetName() == name }
		deployments = slices.DeleteFunc(slices.Clone(deployments), func(d *appsv1.Deployment) bool { return mine(d) })
		services = slices.DeleteFunc(slices.Clone(services), func(s *corev1.Service) bool { return mine(s) })
	}

	// Times of added objects: after the newest base object, one second apart in the order of
	// their own creation times (an empty base keeps over's times).
	var newest time.Time
	eachObject(base, func(m metav1.Object) {
		if t := m.GetCreationTimestamp().Time; t.After(newest) {
			newest = t
		}
	})
	var addedTimes []time.Time
	addedTimes = append(addedTimes, newTimes(base.Namespaces, over.Namespaces)...)
	addedTimes = append(addedTimes, newTimes(base.ServiceEntries, over.ServiceEntries)...)
	addedTimes = append(addedTimes, newTimes(base.VirtualServices, over.VirtualServices)...)
	addedTimes = append(addedTimes, newTimes(base.DestinationRules, over.DestinationRules)...)
	addedTimes = append(addedTimes, newTimes(base.Gateways, over.Gateways)...)
	addedTimes = append(addedTimes, newTimes(base.Sidecars, over.Sidecars)...)
	addedTimes = append(addedTimes, newTimes(base.WorkloadEntries, over.WorkloadEntries)...)
	addedTimes = append(addedTimes, newTimes(base.EnvoyFilters, over.EnvoyFilters)...)
	addedTimes = append(addedTimes, newTimes(base.Services, services)...)
	addedTimes = append(addedTimes, newTimes(base.KubeGateways, over.KubeGateways)...)
	addedTimes = append(addedTimes, newTimes(base.HTTPRoutes, over.HTTPRoutes)...)
	addedTimes = append(addedTimes, newTimes(base.GRPCRoutes, over.GRPCRoutes)...)
	addedTimes = append(addedTimes, newTimes(base.TLSRoutes, over.TLSRoutes)...)
	addedTimes = append(addedTimes, newTimes(base.TCPRoutes, over.TCPRoutes)...)
	addedTimes = append(addedTimes, newTimes(base.Deployments, deployments)...)
	addedTimes = append(addedTimes, newTimes(base.Pods, over.Pods)...)
	sort.Slice(addedTimes, func(i, j int) bool { return addedTimes[i].Before(addedTimes[j]) })
	rank := map[time.Time]int{}
	for _, t := range addedTimes {
		if _, ok := rank[t]; !ok {
			rank[t] = len(rank)
		}
	}
	added := func(t metav1.Time) metav1.Time {
		if newest.IsZero() {
			return t
		}
		return metav1.NewTime(newest.Add(time.Duration(rank[t.Time]+1) * time.Second))
	}

	out.Namespaces = overlay(base.Namespaces, over.Namespaces, added)
	out.ServiceEntries = overlay(base.ServiceEntries, over.ServiceEntries, added)
	out.VirtualServices = overlay(base.VirtualServices, over.VirtualServices, added)
	out.DestinationRules = overlay(base.DestinationRules, over.DestinationRules, added)
	out.Gateways = overlay(base.Gateways, over.Gateways, added)
	out.Sidecars = overlay(base.Sidecars, over.Sidecars, added)
	out.WorkloadEntries = overlay(base.WorkloadEntries, over.WorkloadEntries, added)
	out.EnvoyFilters = overlay(base.EnvoyFilters, over.EnvoyFilters, added)
	out.Services = overlay(base.Services, services, added)
	out.KubeGateways = overlay(base.KubeGateways, over.KubeGateways, added)
	out.GatewayClasses = overlay(base.GatewayClasses, over.GatewayClasses, added)
	out.HTTPRoutes = overlay(base.HTTPRoutes, over.HTTPRoutes, added)
	out.GRPCRoutes = overlay(base.GRPCRoutes, over.GRPCRoutes, added)
	out.TLSRoutes = overlay(base.TLSRoutes, over.TLSRoutes, added)
	out.TCPRoutes = overlay(base.TCPRoutes, over.TCPRoutes, added)
	out.ReferenceGrants = overlay(base.ReferenceGrants, over.ReferenceGrants, added)
	out.Deployments = overlay(base.Deployments, deployments, added)
	out.Pods = overlay(base.Pods, over.Pods, added)
	out.GatewayAPI = overlayGatewayAPI(base.GatewayAPI, over.GatewayAPI)
	out.GatewayAPIUnread = base.GatewayAPIUnread
	out.GatewayAPIUnreadKinds = base.GatewayAPIUnreadKinds
	overlayAllocations(out, base)
	return out
}

// overlayAllocations: the status.addresses of the ServiceEntries of out taken from over. The
// API server keeps an object's status when it is applied again (the status subresource is
// istiod's allocator's, a manifest's status is ignored), so a replacing entry keeps base's and
// an added one starts with none; then the allocator gives addresses to the hosts still without
// one (PredictAllocations), around every address base's entries hold.
func overlayAllocations(out, base *Snapshot) {
	fromBase := map[*networkingv1.ServiceEntry]bool{}
	status := map[string]*networkingv1.ServiceEntry{}
	for _, se := range base.ServiceEntries {
		if se != nil {
			fromBase[se] = true
			status[se.Namespace+"/"+se.Name] = se
		}
	}
	if len(base.Assumptions.PredictedAddresses) > 0 {
		out.Assumptions.PredictedAddresses = make(map[string]bool, len(base.Assumptions.PredictedAddresses))
		for k, v := range base.Assumptions.PredictedAddresses {
			out.Assumptions.PredictedAddresses[k] = v
		}
	}
	for _, se := range out.ServiceEntries {
		if se == nil || fromBase[se] {
			continue
		}
		se.Status.Addresses = nil
		if b := status[se.Namespace+"/"+se.Name]; b != nil {
			for _, a := range b.Status.GetAddresses() {
				se.Status.Addresses = append(se.Status.Addresses, a.DeepCopy())
			}
		}
	}
	PredictAllocations(out, func(se *networkingv1.ServiceEntry) bool { return !fromBase[se] })
}

// overlayGatewayAPI: base's objects, each replaced by over's of the same kind and name, then
// over's others.
func overlayGatewayAPI(base, over []GatewayAPIObject) []GatewayAPIObject {
	out := make([]GatewayAPIObject, 0, len(base)+len(over))
	used := make([]bool, len(over))
	for _, b := range base {
		for i, o := range over {
			if !used[i] && o.Ref() == b.Ref() {
				b, used[i] = o, true
				break
			}
		}
		out = append(out, b)
	}
	for i, o := range over {
		if !used[i] {
			out = append(out, o)
		}
	}
	return out
}

// copyable is a Kubernetes object pointer type with a typed DeepCopy.
type copyable[P any] interface {
	comparable
	metav1.Object
	DeepCopy() P
}

// overlay merges one kind: base order first (replaced objects in place), then added objects in
// over's order.
func overlay[P copyable[P]](base, over []P, added func(metav1.Time) metav1.Time) []P {
	var zero P
	out := make([]P, 0, len(base)+len(over))
	index := map[string]int{}
	for _, o := range base {
		if o == zero {
			continue
		}
		index[o.GetNamespace()+"/"+o.GetName()] = len(out)
		out = append(out, o)
	}
	for _, o := range over {
		if o == zero {
			continue
		}
		c := o.DeepCopy()
		k := c.GetNamespace() + "/" + c.GetName()
		if i, ok := index[k]; ok {
			c.SetCreationTimestamp(out[i].GetCreationTimestamp())
			out[i] = c
			continue
		}
		c.SetCreationTimestamp(added(c.GetCreationTimestamp()))
		index[k] = len(out)
		out = append(out, c)
	}
	return out
}

// newTimes returns the creation times of the objects of over that base does not have.
func newTimes[P copyable[P]](base, over []P) []time.Time {
	var zero P
	have := map[string]bool{}
	for _, o := range base {
		if o != zero {
			have[o.GetNamespace()+"/"+o.GetName()] = true
		}
	}
	var out []time.Time
	for _, o := range over {
		if o != zero && !have[o.GetNamespace()+"/"+o.GetName()] {
			out = append(out, o.GetCreationTimestamp().Time)
		}
	}
	return out
}

// eachObject calls fn for every (non-nil) object of the snapshot.
func eachObject(s *Snapshot, fn func(metav1.Object)) {
	each(s.Namespaces, fn)
	each(s.ServiceEntries, fn)
	each(s.VirtualServices, fn)
	each(s.DestinationRules, fn)
	each(s.Gateways, fn)
	each(s.Sidecars, fn)
	each(s.WorkloadEntries, fn)
	each(s.EnvoyFilters, fn)
	each(s.Services, fn)
	each(s.Deployments, fn)
	each(s.Pods, fn)
	each(s.KubeGateways, fn)
	each(s.HTTPRoutes, fn)
	each(s.GRPCRoutes, fn)
	each(s.TLSRoutes, fn)
	each(s.TCPRoutes, fn)
}

func each[P copyable[P]](xs []P, fn func(metav1.Object)) {
	var zero P
	for _, o := range xs {
		if o != zero {
			fn(o)
		}
	}
}
