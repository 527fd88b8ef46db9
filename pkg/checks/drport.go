package checks

import (
	"fmt"
	"slices"
	"strings"

	networking "istio.io/api/networking/v1alpha3"

	"github.com/kubectl-egress/kubectl-egress/pkg/model"
	"github.com/kubectl-egress/kubectl-egress/pkg/rules"
	"github.com/kubectl-egress/kubectl-egress/pkg/snapshot"
)

// PreflightDRPortUndeclared: a DestinationRule's portLevelSettings names a port that no
// ServiceEntry or Service of its host declares, so istiod never applies it (it matches
// port-level settings by the service port, not by a targetPort). Found by blind audit 51 f2: TLS
// origination written for the entry's targetPort left the waypoint sending plaintext, and no
// check said so.
const PreflightDRPortUndeclared = "DESTINATION_RULE_PORT_NOT_DECLARED"

func init() {
	Catalog = append(Catalog,
		CatalogEntry{Code: PreflightDRPortUndeclared, Level: LevelWarning,
			Description: "A DestinationRule's portLevelSettings (at the top or in a subset) names a port that no ServiceEntry or Service of its host declares. istiod matches port-level settings by the port the host declares (the service port), never by a targetPort, so these settings apply to no cluster: TLS origination, load balancing or connection limits written there do nothing, and the proxies use the top-level policy (or none) for the declared port."},
	)
}

// drPortFindings: PreflightDRPortUndeclared for every port-level setting of a DestinationRule
// whose exact host (not a wildcard) has services in the registry, none of which declares the
// setting's port. When the port is the targetPort of a declared port, the fix names that port.
//
// Mirrors istiod pilot/pkg/networking/util/util.go GetPortLevelTrafficPolicy (port.Port, the
// service port, against portLevelSettings[].port.number), as cluster_builder.go
// applyDestinationRule calls it for each cluster.
func drPortFindings(snap *snapshot.Snapshot) []PreflightFinding {
	if len(snap.DestinationRules) == 0 {
		return nil
	}
	registry := model.Services(snap, ReadIstiodFlags(snap, snap.Revision).MeshConfig)
	var out []PreflightFinding
	for _, dr := range snap.DestinationRules {
		host := strings.ToLower(rules.ResolveShortname(dr.Spec.GetHost(), dr.Namespace))
		if host == "" || strings.Contains(host, "*") {
			continue
		}
		svcs := registry.Shared(host)
		if len(svcs) == 0 {
			continue
		}
		declared := map[uint32]bool{}
		target := map[uint32]uint32{} // targetPort → the declared port
		var ports []string
		for _, s := range svcs {
			for _, p := range s.Ports {
				if !declared[p.Number] {
					ports = append(ports, fmt.Sprint(p.Number))
				}
				declared[p.Number] = true
				if p.TargetPort != 0 && p.TargetPort != p.Number {
					target[p.TargetPort] = p.Number
				}
			}
		}
		slices.Sort(ports)
		check := func(tp *networking.TrafficPolicy, field string) {
			for i, pl := range tp.GetPortLevelSettings() {
				n := pl.GetPort().GetNumber()
				if n == 0 || declared[n] {
					continue
				}
				ref := ResourceRef{Kind: "DestinationRule", Namespace: dr.Namespace, Name: dr.Name}
				f := fmt.Sprintf("%s.portLevelSettings[%d].port.number", field, i)
				msg := fmt.Sprintf("%s sets %s to %d, a port %s does not declare (its ports: %s): istiod applies port-level settings to the port the host declares, so these settings apply to no cluster of %s.", ref, f, n, host, strings.Join(ports, ", "), host)
				fix := fmt.Sprintf("Set %s of %s to a port %s declares (%s), or remove the setting.", f, ref, host, strings.Join(ports, ", "))
				if sp, ok := target[n]; ok {
					msg = fmt.Sprintf("%s sets %s to %d, the targetPort of port %d of %s: istiod applies port-level settings by the port the host declares, not its targetPort, so these settings do nothing, and calls to port %d get the top-level policy instead (TLS origination written there is not done).", ref, f, n, sp, host, sp)
					fix = fmt.Sprintf("Set %s of %s to %d (the port %s declares; its targetPort %d stays where the connection goes).", f, ref, sp, host, n)
				}
				out = append(out, NewPreflightFinding(PreflightDRPortUndeclared, CheckPreflight, ref, "spec."+f, msg, fix))
			}
		}
		check(dr.Spec.GetTrafficPolicy(), "trafficPolicy")
		for j, ss := range dr.Spec.GetSubsets() {
			check(ss.GetTrafficPolicy(), fmt.Sprintf("subsets[%d].trafficPolicy", j))
		}
	}
	return out
}
