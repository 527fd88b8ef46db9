package loader

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/tools/pager"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
	gatewayv1beta1 "sigs.k8s.io/gateway-api/apis/v1beta1"

	"github.com/kubectl-egress/kubectl-egress/pkg/rules"
	"github.com/kubectl-egress/kubectl-egress/pkg/snapshot"
)

// readGatewayAPI lists the Kubernetes Gateway API kinds that can carry egress traffic
// (snapshot.GatewayAPIKinds), each in the version the API server prefers, into
// snap.GatewayAPI. A cluster without the Gateway API has none and that is not an error; a
// refused or failed read is recorded in snap.GatewayAPIUnread (verdicts note it) and never ends
// the run.
func readGatewayAPI(ctx context.Context, disc discovery.DiscoveryInterface, dc dynamic.Interface, snap *snapshot.Snapshot) error {
	groups, err := disc.ServerGroups()
	if err != nil {
		if isTimeout(ctx, err) {
			// the load's deadline (the discovery client's timeout is the same limit, and can
			// fire a moment before the context's): a timeout of the load like any list's, not a
			// discovery the load goes on without, so the error names every list unanswered
			return err
		}
		snap.GatewayAPIUnread = "cannot discover the served API groups: " + oneLine(err.Error())
		return nil
	}
	var versions []string
	for _, g := range groups.Groups {
		if g.Name != snapshot.GatewayAPIGroup {
			continue
		}
		versions = append(versions, g.PreferredVersion.Version)
		for _, v := range g.Versions {
			if !slices.Contains(versions, v.Version) {
				versions = append(versions, v.Version)
			}
		}
	}
	if len(versions) == 0 {
		return nil // the Gateway API is not installed
	}
	// kind -> the first (preferred) version serving it, and its resource name
	type served struct{ version, resource string }
	kinds := map[string]served{}
	for _, v := range versions {
		rl, err := disc.ServerResourcesForGroupVersion(snapshot.GatewayAPIGroup + "/" + v)
		if err != nil {
			continue
		}
		for _, r := range rl.APIResources {
			if strings.Contains(r.Name, "/") || !(slices.Contains(snapshot.GatewayAPIKinds, r.Kind) || r.Kind == "GatewayClass" || r.Kind == "ReferenceGrant") {
				continue
			}
			if _, ok := kinds[r.Kind]; !ok {
				kinds[r.Kind] = served{v, r.Name}
			}
		}
	}
	var unread []string
	// list pages through one served kind, giving each object and its JSON to add; a refusal or
	// failure is recorded in unread (the load goes on), the object cap ends the load.
	list := func(kind string, namespaced bool, add func(u *unstructured.Unstructured, js []byte) error) error {
		s, ok := kinds[kind]
		if !ok {
			return nil
		}
		gvr := schema.GroupVersionResource{Group: snapshot.GatewayAPIGroup, Version: s.version, Resource: s.resource}
		p := pager.New(pager.SimplePageFunc(func(opts metav1.ListOptions) (runtime.Object, error) {
			if namespaced {
				return dc.Resource(gvr).Namespace(metav1.NamespaceAll).List(ctx, opts)
			}
			return dc.Resource(gvr).List(ctx, opts)
		}))
		p.PageSize = listPageSize
		err := p.EachListItem(ctx, metav1.ListOptions{}, func(obj runtime.Object) error {
			if err := takeObject(ctx); err != nil {
				return err
			}
			u, ok := obj.(*unstructured.Unstructured)
			if !ok {
				return nil
			}
			js, err := json.Marshal(u.Object)
			if err != nil {
				return err
			}
			if err := add(u, js); err != nil {
				return fmt.Errorf("%s %s: %w", kind, strings.TrimPrefix(u.GetNamespace()+"/"+u.GetName(), "/"), err)
			}
			return nil
		})
		var many errTooManyObjects
		switch {
		case err == nil:
		case errors.As(err, &many):
			return err // the object cap ends the load, as for every other kind
		case apierrors.IsForbidden(err):
			unread = append(unread, "forbidden to list "+s.resource+"."+snapshot.GatewayAPIGroup+" (deploy/clusterrole.yaml lists what kubectl-egress needs)")
			snap.GatewayAPIUnreadKinds = append(snap.GatewayAPIUnreadKinds, kind)
		case apierrors.IsNotFound(err):
		default:
			unread = append(unread, "cannot list "+s.resource+"."+snapshot.GatewayAPIGroup+": "+oneLine(err.Error()))
			snap.GatewayAPIUnreadKinds = append(snap.GatewayAPIUnreadKinds, kind)
		}
		return nil
	}
	for _, kind := range snapshot.GatewayAPIKinds {
		err := list(kind, true, func(u *unstructured.Unstructured, js []byte) error {
			o, err := snapshot.ParseGatewayAPIObject(kind, js, u.GetNamespace())
			if err != nil {
				return err
			}
			snap.GatewayAPI = append(snap.GatewayAPI, o)
			if kind == "Gateway" {
				gw := &gatewayv1.Gateway{}
				if err := json.Unmarshal(js, gw); err != nil {
					return err
				}
				gw.ManagedFields = nil
				snap.KubeGateways = append(snap.KubeGateways, gw)
			}
			if kind == "HTTPRoute" {
				r := &gatewayv1.HTTPRoute{}
				if err := json.Unmarshal(js, r); err != nil {
					return err
				}
				r.ManagedFields = nil
				snap.HTTPRoutes = append(snap.HTTPRoutes, r)
			}
			if kind == "GRPCRoute" {
				r := &gatewayv1.GRPCRoute{}
				if err := json.Unmarshal(js, r); err != nil {
					return err
				}
				r.ManagedFields = nil
				snap.GRPCRoutes = append(snap.GRPCRoutes, r)
			}
			if kind == "TLSRoute" {
				r := &gatewayv1.TLSRoute{}
				if err := json.Unmarshal(js, r); err != nil {
					return err
				}
				r.ManagedFields = nil
				snap.TLSRoutes = append(snap.TLSRoutes, r)
			}
			if kind == "TCPRoute" {
				r := &gatewayv1.TCPRoute{}
				if err := json.Unmarshal(js, r); err != nil {
					return err
				}
				r.ManagedFields = nil
				snap.TCPRoutes = append(snap.TCPRoutes, r)
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	// GatewayClasses: which controller serves each class (cluster-scoped).
	if err := list("GatewayClass", false, func(_ *unstructured.Unstructured, js []byte) error {
		gc := &gatewayv1.GatewayClass{}
		if err := json.Unmarshal(js, gc); err != nil {
			return err
		}
		gc.ManagedFields = nil
		snap.GatewayClasses = append(snap.GatewayClasses, gc)
		return nil
	}); err != nil {
		return err
	}
	// ReferenceGrants: which backends in other namespaces routes may name.
	if err := list("ReferenceGrant", true, func(_ *unstructured.Unstructured, js []byte) error {
		rg := &gatewayv1beta1.ReferenceGrant{}
		if err := json.Unmarshal(js, rg); err != nil {
			return err
		}
		rg.ManagedFields = nil
		snap.ReferenceGrants = append(snap.ReferenceGrants, rg)
		return nil
	}); err != nil {
		return err
	}
	snap.GatewayAPIUnread = strings.Join(unread, "; ")
	readGatewayAPICRDs(ctx, dc, snap, func(kind string) (string, bool) {
		s, ok := kinds[kind]
		return s.resource, ok
	})
	return nil
}

// readGatewayAPICRDs reads the CRD of every served Gateway API route kind istiod has a minimum
// version for (rules.KubeCRDMinimum) into snap.GatewayAPICRDs: one GET each. A refusal is
// recorded in snap.GatewayAPICRDsUnread (the CRDs are then assumed recent enough, and verdicts
// say so).
func readGatewayAPICRDs(ctx context.Context, dc dynamic.Interface, snap *snapshot.Snapshot, served func(kind string) (resource string, ok bool)) {
	gvr := schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
	for _, kind := range snapshot.GatewayAPIKinds {
		resource, ok := served(kind)
		if !ok || rules.KubeCRDMinimum(kind) == "" {
			continue
		}
		name := resource + "." + snapshot.GatewayAPIGroup
		crd, err := dc.Resource(gvr).Get(ctx, name, metav1.GetOptions{})
		switch {
		case err == nil:
			v, annotated := crd.GetAnnotations()[rules.AnnotationBundleVersion]
			if snap.GatewayAPICRDs == nil {
				snap.GatewayAPICRDs = map[string]snapshot.GatewayAPICRD{}
			}
			snap.GatewayAPICRDs[kind] = snapshot.GatewayAPICRD{Name: name, Version: v, Annotated: annotated}
		case apierrors.IsForbidden(err):
			snap.GatewayAPICRDsUnread = "forbidden to get customresourcedefinitions.apiextensions.k8s.io (deploy/clusterrole.yaml lists what kubectl-egress needs)"
			return
		case apierrors.IsNotFound(err):
		default:
			snap.GatewayAPICRDsUnread = "cannot get customresourcedefinitions.apiextensions.k8s.io " + name + ": " + oneLine(err.Error())
			return
		}
	}
}
