package loader

import (
	"context"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/metadata"

	networking "istio.io/api/networking/v1alpha3"

	"github.com/kubectl-egress/kubectl-egress/pkg/rules"
	"github.com/kubectl-egress/kubectl-egress/pkg/snapshot"
)

var secretsResource = schema.GroupVersionResource{Version: "v1", Resource: "secrets"}

// secretNamespaces returns the namespaces whose Secrets a live load reads (their metadata
// only): none when no Gateway server or DestinationRule names a credentialName that a proxy reads
// from its own namespace; otherwise the namespaces of the gateway workloads (Deployments and Pods
// a Gateway's selector selects), of the DestinationRules and Gateways naming one (and of Gateway
// API Gateways with certificateRefs, and the Secrets' namespaces they name), the Istio
// namespace, and the namespaces the command names (extra: where a client's copy of the Secret is
// often found). More than maxSelectorQueries namespaces become one cluster-wide LIST ("").
func secretNamespaces(snap *snapshot.Snapshot, extra []string) []string {
	nss := map[string]bool{}
	for _, dr := range snap.DestinationRules {
		if drNamesCredential(dr.Spec.GetTrafficPolicy()) || func() bool {
			for _, ss := range dr.Spec.GetSubsets() {
				if drNamesCredential(ss.GetTrafficPolicy()) {
					return true
				}
			}
			return false
		}() {
			nss[dr.Namespace] = true
		}
	}
	for _, g := range snap.Gateways {
		for _, s := range g.Spec.GetServers() {
			if rules.SecretCredential(s.GetTls().GetCredentialName()) != "" {
				nss[g.Namespace] = true
			}
		}
	}
	for _, g := range snap.KubeGateways {
		// Gateway API listeners terminating TLS: their certificateRefs' Secrets
		for _, l := range g.Spec.Listeners {
			if l.TLS == nil {
				continue
			}
			for _, ref := range l.TLS.CertificateRefs {
				ns := g.Namespace
				if ref.Namespace != nil && *ref.Namespace != "" {
					ns = string(*ref.Namespace)
				}
				nss[ns], nss[g.Namespace] = true, true
			}
		}
	}
	if len(nss) == 0 {
		return nil
	}
	nss[snap.IstioNamespace] = true
	for _, ns := range extra {
		if ns != "" {
			nss[ns] = true
		}
	}
	for _, g := range snap.KubeGateways {
		nss[g.Namespace] = true // Gateway API gateways and waypoints run in their Gateway's namespace
	}
	for _, g := range snap.Gateways {
		sel := labels.SelectorFromSet(g.Spec.Selector)
		for _, d := range snap.Deployments {
			if sel.Matches(labels.Set(d.Spec.Template.Labels)) || sel.Matches(labels.Set(d.Labels)) {
				nss[d.Namespace] = true
			}
		}
		for _, p := range snap.Pods {
			if sel.Matches(labels.Set(p.Labels)) {
				nss[p.Namespace] = true
			}
		}
	}
	if len(nss) > maxSelectorQueries {
		return []string{""}
	}
	return sortedKeys(nss)
}

// drNamesCredential: a traffic policy whose tls (top level or for a port) names a Secret.
func drNamesCredential(tp *networking.TrafficPolicy) bool {
	if rules.SecretCredential(tp.GetTls().GetCredentialName()) != "" {
		return true
	}
	for _, pl := range tp.GetPortLevelSettings() {
		if rules.SecretCredential(pl.GetTls().GetCredentialName()) != "" {
			return true
		}
	}
	return false
}

// readSecrets lists the Secrets of the namespaces secretNamespaces names, metadata only (never
// their data), into snap.Secrets, and records which namespaces were read. A refusal or failure
// leaves the credentials there unchecked (snap.SecretsUnread says why); it never stops the load.
func readSecrets(ctx context.Context, mc metadata.Interface, snap *snapshot.Snapshot, extra []string) {
	var refused []string
	for _, ns := range secretNamespaces(snap, extra) {
		items, err := listAll[*metav1.PartialObjectMetadata](ctx, pageFn(mc.Resource(secretsResource).Namespace(ns).List))
		where := "in namespace " + ns
		if ns == "" {
			where = "in any namespace"
		}
		switch {
		case err == nil:
			if snap.SecretNamespaces == nil {
				snap.SecretNamespaces = map[string]bool{}
			}
			snap.SecretNamespaces[ns] = true
			for _, it := range items {
				snap.AddSecret(it.Namespace, it.Name)
			}
		case apierrors.IsForbidden(err):
			refused = append(refused, "forbidden to list secrets "+where)
		default:
			refused = append(refused, "cannot list secrets "+where+": "+oneLine(err.Error()))
		}
	}
	if len(refused) > 0 {
		snap.SecretsUnread = strings.Join(refused, "; ")
	}
}
