package checks

import (
	"fmt"
	"strconv"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	meshv1alpha1 "istio.io/api/mesh/v1alpha1"

	"github.com/kubectl-egress/kubectl-egress/pkg/snapshot"
)

// Istiod environment flags read by the §3.7 step (a).
const (
	EnvFilterGatewayClusterConfig = "PILOT_FILTER_GATEWAY_CLUSTER_CONFIG"
	EnvScopeGatewayToNamespace    = "PILOT_SCOPE_GATEWAY_TO_NAMESPACE"
)

// Flag is the value of one istiod boolean env flag as far as the input tells it.
type Flag struct {
	Name string
	// Known is false when the value could not be read (valueFrom, no istiod Deployment,
	// Deployments forbidden); Value then holds istiod's default (false).
	Known bool
	Value bool
	// Raw is the env value as written; Source is "Deployment ns/name container c" or the flag.
	Raw    string
	Source string
	// Why explains an unknown value.
	Why string
}

// IstiodFlags holds the flags of the istiod revision serving one gateway.
type IstiodFlags struct {
	Deployment  string // "ns/name", "" when none found
	Revision    string
	FilterGW    Flag
	ScopeGWToNs Flag
	// IPAutoallocate is PILOT_ENABLE_IP_AUTOALLOCATE (istiod's default: true; see
	// IPAutoallocateOn).
	IPAutoallocate Flag
	// WildcardTLS is ENABLE_WILDCARD_HOST_SERVICE_ENTRIES_FOR_TLS (default false): waypoints
	// serve the TLS ports of DYNAMIC_DNS entries only with it.
	WildcardTLS  Flag
	MeshConfig   *meshv1alpha1.MeshConfig
	MeshConfigAt string // ConfigMap "ns/name", "" when none (defaults apply)
	MeshUnknown  string // why the mesh config is unknown
}

// EnvIPAutoallocate turns istiod's ServiceEntry IP allocator on (default true in Istio 1.31).
const EnvIPAutoallocate = "PILOT_ENABLE_IP_AUTOALLOCATE"

// EnvWildcardTLS lets waypoints serve the TLS ports of DYNAMIC_DNS entries (default false in
// Istio 1.31: pilot/pkg/features/experimental.go EnableWildcardHostServiceEntriesForTLS).
const EnvWildcardTLS = "ENABLE_WILDCARD_HOST_SERVICE_ENTRIES_FOR_TLS"

// IPAutoallocateOn: the allocator's flag with istiod's default (true) when unset, unreadable
// or not a boolean (pkg/env keeps the default on a parse error).
func (f IstiodFlags) IPAutoallocateOn() bool {
	fl := f.IPAutoallocate
	if !fl.Known || strings.TrimSpace(fl.Raw) == "" {
		return true
	}
	v, err := strconv.ParseBool(strings.TrimSpace(fl.Raw))
	return err != nil || v
}

func revKey(r string) string {
	if r == "" || r == "default" {
		return ""
	}
	return r
}

// istiodWorkload is an istiod Deployment or, when Deployments cannot be read, an istiod Pod.
type istiodWorkload struct {
	kind, namespace, name string
	spec                  *corev1.PodSpec
}

// istiodFor finds the istiod Deployment serving revision rev: label app=istiod (or istio=pilot),
// whose istio.io/rev label (absent = default) matches; one in the istio namespace is preferred.
// Without one, an istiod Pod of that revision is used.
func istiodFor(snap *snapshot.Snapshot, rev string) *istiodWorkload {
	if d := istiodDeployment(snap, rev); d != nil {
		return &istiodWorkload{"Deployment", d.Namespace, d.Name, &d.Spec.Template.Spec}
	}
	for _, p := range snap.Pods {
		if (p.Labels["app"] == "istiod" || p.Labels["istio"] == "pilot") && revKey(p.Labels[RevisionLabel]) == revKey(rev) {
			return &istiodWorkload{"Pod", p.Namespace, p.Name, &p.Spec}
		}
	}
	return nil
}

func istiodDeployment(snap *snapshot.Snapshot, rev string) *appsv1.Deployment {
	var found *appsv1.Deployment
	for _, d := range snap.Deployments {
		l := d.Labels
		if len(l) == 0 {
			l = d.Spec.Template.Labels
		}
		if l["app"] != "istiod" && l["istio"] != "pilot" {
			continue
		}
		if revKey(l[RevisionLabel]) != revKey(rev) && revKey(d.Spec.Template.Labels[RevisionLabel]) != revKey(rev) {
			continue
		}
		if found == nil || (d.Namespace == snap.IstioNamespace && found.Namespace != snap.IstioNamespace) {
			found = d
		}
	}
	return found
}

// ReadIstiodFlags reads step (a) of the seed's §3.7 for the revision serving a gateway:
// PILOT_FILTER_GATEWAY_CLUSTER_CONFIG and PILOT_SCOPE_GATEWAY_TO_NAMESPACE from the istiod
// Deployment's `discovery` container (istiod's defaults: both false,
// pilot/pkg/features/experimental.go FilterGatewayClusterConfig, pilot.go ScopeGatewayToNamespace),
// and the mesh config of ConfigMap istio-<rev> or istio (step (c)).
//
// The answer is kept with the snapshot (it only reads it).
func ReadIstiodFlags(snap *snapshot.Snapshot, rev string) IstiodFlags {
	return snap.Derived(istiodFlagsKey{rev}, func() any { return readIstiodFlags(snap, rev) }).(IstiodFlags)
}

type istiodFlagsKey struct{ rev string }

func readIstiodFlags(snap *snapshot.Snapshot, rev string) IstiodFlags {
	f := IstiodFlags{Revision: rev}
	d := istiodFor(snap, rev)
	if d != nil {
		f.Deployment = d.namespace + "/" + d.name
	}
	f.FilterGW = readFlag(snap, d, EnvFilterGatewayClusterConfig, snap.Assumptions.FilterGatewayClusters)
	f.ScopeGWToNs = readFlag(snap, d, EnvScopeGatewayToNamespace, nil)
	f.IPAutoallocate = readFlag(snap, d, EnvIPAutoallocate, nil)
	f.WildcardTLS = readFlag(snap, d, EnvWildcardTLS, nil)
	if m := snap.MeshConfigs[revKey(rev)]; m != nil {
		f.MeshConfig, f.MeshConfigAt = m.Config, m.Ref
	} else if m := snap.MeshConfigs[""]; m != nil {
		f.MeshConfig, f.MeshConfigAt = m.Config, m.Ref
	} else if why, ok := snap.Unknown[snapshot.KindConfigMap]; ok {
		f.MeshUnknown = why
	}
	return f
}

func readFlag(snap *snapshot.Snapshot, d *istiodWorkload, name string, override *bool) Flag {
	fl := Flag{Name: name}
	if d == nil {
		if override != nil {
			fl.Known, fl.Value, fl.Raw, fl.Source = true, *override, strconv.FormatBool(*override), "--filter-gateway-clusters"
			return fl
		}
		if why, ok := snap.Unknown[snapshot.KindDeployment]; ok {
			fl.Why = why
		} else {
			fl.Why = "no istiod Deployment in the input"
		}
		return fl
	}
	c := discoveryContainer(d.spec)
	if c == nil {
		fl.Why = "istiod " + d.kind + " has no containers"
		return fl
	}
	src := fmt.Sprintf("%s %s/%s container %s", d.kind, d.namespace, d.name, c.Name)
	for _, e := range c.Env {
		if e.Name != name {
			continue
		}
		if e.ValueFrom != nil {
			fl.Source = src
			if ref := e.ValueFrom.ConfigMapKeyRef; ref != nil && d.namespace == snap.IstioNamespace {
				// the kubelet sets the variable from the ConfigMap of the Deployment's namespace
				// (an optional reference to a missing ConfigMap or key leaves it unset); read
				// from the input (blind audit 102 c58, where the flag was assumed false)
				if data, ok := snap.ConfigMapData[ref.Name]; ok {
					at := fmt.Sprintf("%s (valueFrom ConfigMap %s/%s key %s)", src, d.namespace, ref.Name, ref.Key)
					if raw, ok := data[ref.Key]; ok {
						v, err := strconv.ParseBool(strings.TrimSpace(raw))
						fl.Known, fl.Raw, fl.Source, fl.Value = true, raw, at, err == nil && v
						return fl
					}
					if ref.Optional != nil && *ref.Optional {
						fl.Known, fl.Source = true, at+" (no such key, optional: unset, istiod default)"
						return fl
					}
				}
			}
			fl.Why = "set with valueFrom (" + describeValueFrom(e.ValueFrom) + "), which cannot be resolved here"
			return fl
		}
		fl.Known, fl.Raw, fl.Source = true, e.Value, src
		// istiod reads boolean env vars with strconv.ParseBool and keeps the default (false) on
		// a parse error (pkg/env Register / BoolVar.Lookup).
		v, err := strconv.ParseBool(strings.TrimSpace(e.Value))
		fl.Value = err == nil && v
		return fl
	}
	fl.Known, fl.Source, fl.Raw = true, src+" (unset, istiod default)", ""
	return fl
}

func discoveryContainer(spec *corev1.PodSpec) *corev1.Container {
	cs := spec.Containers
	for i := range cs {
		if cs[i].Name == "discovery" {
			return &cs[i]
		}
	}
	if len(cs) > 0 {
		return &cs[0]
	}
	return nil
}

func describeValueFrom(v *corev1.EnvVarSource) string {
	switch {
	case v.ConfigMapKeyRef != nil:
		return "configMapKeyRef " + v.ConfigMapKeyRef.Name + "/" + v.ConfigMapKeyRef.Key
	case v.SecretKeyRef != nil:
		return "secretKeyRef " + v.SecretKeyRef.Name + "/" + v.SecretKeyRef.Key
	case v.FieldRef != nil:
		return "fieldRef " + v.FieldRef.FieldPath
	}
	return "valueFrom"
}
