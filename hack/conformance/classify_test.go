package conformance

// Disagreement classes. Each disagreement is tagged with the known mechanisms that apply to
// it, evaluated here from the scenario alone (independently of both sides); a disagreement
// no mechanism explains is tagged "unexplained" and is what a new run should look at first.
// The mechanisms, with the istiod code responsible, are described in docs/conformance.md.

import (
	"sort"
	"strings"

	networkingv1 "istio.io/client-go/pkg/apis/networking/v1"

	"github.com/kubectl-egress/kubectl-egress/pkg/checks"
	"github.com/kubectl-egress/kubectl-egress/pkg/rules"
	"github.com/kubectl-egress/kubectl-egress/pkg/snapshot"
)

const (
	// tagRevision: Istio configs carry an istio.io/rev label the gateway's istiod revision does
	// not read (crdclient inRevision → config.LabelsInRevision); the plugin reads every object.
	tagRevision = "revision-labelled-config"
	// tagDNSNoEndpoints: a STRICT_DNS/LOGICAL_DNS cluster (resolution DNS/DNS_ROUND_ROBIN)
	// with no endpoint: the subset's labels select none of the entry's endpoints (the implicit
	// host-name endpoint has no labels), or a workloadSelector selects no workload. istiod
	// drops such a cluster (cluster_builder.go buildCluster returns nil, metric
	// pilot_dns_no_endpoint_clusters).
	tagDNSNoEndpoints = "dns-cluster-without-endpoints"
	// tagPortMerge: another ServiceEntry for the host in the same namespace with the same
	// resolution, exportTo, labels and workloadSelector adds ports (sidecar.go
	// appendSidecarServices + canMergeServices).
	tagPortMerge   = "same-namespace-entries-merge-ports"
	tagUnexplained = "unexplained"
)

// explain returns the mechanisms that apply to check c (sorted), or [unexplained].
func explain(snap *snapshot.Snapshot, c check, gv *checks.GatewayVerdict, proxyRev string) []string {
	var tags []string
	if revisionLabelled(snap, proxyRev) {
		tags = append(tags, tagRevision)
	}
	chosen := chosenEntry(snap, gv)
	if chosen != nil {
		if dnsWithoutEndpoints(snap, chosen, c, gv) {
			tags = append(tags, tagDNSNoEndpoints)
		}
		if portMerged(snap, chosen, c) {
			tags = append(tags, tagPortMerge)
		}
	}
	if len(tags) == 0 {
		return []string{tagUnexplained}
	}
	sort.Strings(tags)
	return tags
}

func revisionLabelled(snap *snapshot.Snapshot, rev string) bool {
	other := func(l map[string]string) bool {
		v, ok := l["istio.io/rev"]
		return ok && v != rev
	}
	for _, o := range snap.ServiceEntries {
		if other(o.Labels) {
			return true
		}
	}
	for _, o := range snap.VirtualServices {
		if other(o.Labels) {
			return true
		}
	}
	for _, o := range snap.DestinationRules {
		if other(o.Labels) {
			return true
		}
	}
	for _, o := range snap.Gateways {
		if other(o.Labels) {
			return true
		}
	}
	return false
}

// chosenEntry is the ServiceEntry the plugin's "exported" step names for the gateway.
func chosenEntry(snap *snapshot.Snapshot, gv *checks.GatewayVerdict) *networkingv1.ServiceEntry {
	for _, st := range gv.Steps {
		if st.ID != "exported" || st.Result != checks.Pass || len(st.Evidence) == 0 {
			continue
		}
		ref := strings.TrimPrefix(st.Evidence[0].Resource, "ServiceEntry ")
		for _, se := range snap.ServiceEntries {
			if se.Namespace+"/"+se.Name == ref {
				return se
			}
		}
	}
	return nil
}

func dnsWithoutEndpoints(snap *snapshot.Snapshot, se *networkingv1.ServiceEntry, c check, gv *checks.GatewayVerdict) bool {
	res := se.Spec.Resolution.String()
	if res != "DNS" && res != "DNS_ROUND_ROBIN" {
		return false
	}
	// Endpoint label sets.
	var eps []map[string]string
	switch {
	case len(se.Spec.Endpoints) > 0:
		for _, e := range se.Spec.Endpoints {
			eps = append(eps, e.GetLabels())
		}
	case se.Spec.WorkloadSelector != nil:
		for _, we := range snap.WorkloadEntries {
			if we.Namespace == se.Namespace && rules.LabelsSubsetOf(se.Spec.WorkloadSelector.GetLabels(), we.Spec.GetLabels()) {
				eps = append(eps, we.Spec.GetLabels())
			}
		}
		for _, p := range snap.Pods {
			if p.Namespace == se.Namespace && rules.LabelsSubsetOf(se.Spec.WorkloadSelector.GetLabels(), p.Labels) {
				eps = append(eps, p.Labels)
			}
		}
	default:
		eps = append(eps, nil) // the host name itself, without labels
	}
	var subsetLabels map[string]string
	if c.subset != "" {
		var drRef string
		for _, cl := range gv.Clusters {
			if cl.Name == c.cluster {
				drRef = cl.DestinationRule
			}
		}
		found := false
		for _, dr := range snap.DestinationRules {
			if drRef != "" && dr.Namespace+"/"+dr.Name != drRef {
				continue
			}
			for _, s := range dr.Spec.GetSubsets() {
				if s.GetName() == c.subset && !found {
					subsetLabels, found = s.GetLabels(), true
				}
			}
		}
	}
	for _, l := range eps {
		if rules.LabelsSubsetOf(subsetLabels, l) {
			return false
		}
	}
	return true
}

func portMerged(snap *snapshot.Snapshot, se *networkingv1.ServiceEntry, c check) bool {
	for _, p := range se.Spec.Ports {
		if p.GetNumber() == c.port {
			return false
		}
	}
	for _, o := range snap.ServiceEntries {
		if o == se || o.Namespace != se.Namespace || o.Spec.Resolution != se.Spec.Resolution {
			continue
		}
		hasHost := false
		for _, h := range o.Spec.Hosts {
			hasHost = hasHost || rules.NormalizeHost(h) == c.host
		}
		if !hasHost {
			continue
		}
		for _, p := range o.Spec.Ports {
			if p.GetNumber() == c.port {
				return true
			}
		}
	}
	return false
}
