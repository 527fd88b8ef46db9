package conformance

// Export-audit findings against istiod's config for the gateway workloads of the namespaces
// a finding names (MissingIn).

import (
	"fmt"
	"strings"

	core "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"

	"github.com/kubectl-egress/kubectl-egress/pkg/checks"
	"github.com/kubectl-egress/kubectl-egress/pkg/rules"
	"github.com/kubectl-egress/kubectl-egress/pkg/snapshot"
)

// auditCheck is one finding checked on one gateway workload of a MissingIn namespace.
type auditCheck struct {
	code    string
	ref     string // "Kind ns/name"
	ns      string // the MissingIn namespace
	gateway string
	role    string
	filter  bool
	scope   bool
	// istiodAgrees: istiod's config for the workload lacks what the finding says is missing
	// (or, for the converse codes, has what no finding says is missing).
	istiodAgrees bool
	detail       string
	// cluster is the subset or default cluster checked (sidecar and converse checks).
	cluster string
}

// Converse checks: no finding, so the cluster must be there.
const (
	// auditSubsetVisible: a mesh route visible in a client namespace names a subset and the
	// audit reports neither DR_NOT_ON_LOOKUP_PATH nor SUBSET_NOT_DEFINED_ANYWHERE for the
	// namespace: the namespace's sidecar has outbound|<port>|<subset>|<host>.
	auditSubsetVisible = "(no subset finding) subset cluster in sidecar"
	// auditSEExported: a ServiceEntry is needed by a gateway namespace (a VirtualService bound
	// to a gateway there routes to it) and no SE_NOT_EXPORTED_TO_GATEWAY_NAMESPACE names the
	// namespace: with PILOT_FILTER_GATEWAY_CLUSTER_CONFIG off the gateways there have
	// outbound|<port>||<host> for every port of the entry.
	auditSEExported = "(no SE finding) default cluster in gateway"
)

// auditCodes are the rows of the export-audit tables, in order.
var auditCodes = []string{checks.AuditSENotExportedToGateway, checks.AuditVSNotExportedToGateway,
	checks.AuditDRNotOnLookupPath, checks.AuditDRNotExportedToClient, checks.AuditSubsetUndefined, checks.AuditSidecarImportHidden, auditSubsetVisible, auditSEExported}

func (c auditCheck) agree() bool { return c.istiodAgrees }

func (c auditCheck) String() string {
	if c.gateway == "" {
		return fmt.Sprintf("%s %s in %s: sidecar in %s (PILOT_FILTER_GATEWAY_CLUSTER_CONFIG=%t): istiod %s",
			c.code, c.ref, c.ns, c.ns, c.filter, c.detail)
	}
	if c.code == auditSEExported {
		return fmt.Sprintf("%s %s needed in %s: gateway %s (%s) PILOT_FILTER_GATEWAY_CLUSTER_CONFIG=%t PILOT_SCOPE_GATEWAY_TO_NAMESPACE=%t: istiod %s",
			c.code, c.ref, c.ns, c.gateway, c.role, c.filter, c.scope, c.detail)
	}
	return fmt.Sprintf("%s %s missing in %s: gateway %s (%s) PILOT_FILTER_GATEWAY_CLUSTER_CONFIG=%t PILOT_SCOPE_GATEWAY_TO_NAMESPACE=%t: istiod %s",
		c.code, c.ref, c.ns, c.gateway, c.role, c.filter, c.scope, c.detail)
}

// compareAudit checks SE_NOT_EXPORTED_TO_GATEWAY_NAMESPACE (the gateways of each MissingIn
// namespace have no outbound|<port>||<host> for the entry's hosts and ports) and
// VS_NOT_EXPORTED_TO_GATEWAY_NAMESPACE (no route or filter chain of those gateways comes from
// the VirtualService: istiod tags each with the config's identity, util.BuildConfigInfoMetadata).
// unchecked counts findings of other codes and findings with no compared workload in a
// MissingIn namespace.
func compareAudit(sc *scenario, snap *snapshot.Snapshot, proxies []proxySpec, out *istiodOut, filter, scope bool, unchecked map[string]int) []auditCheck {
	var res []auditCheck
	rep := checks.ExportAudit(snap, checks.AuditOptions{})
	res = append(res, compareSubsetAudit(snap, rep, out, filter, scope, unchecked)...)
	res = append(res, compareSEExported(sc, snap, rep, proxies, out, filter, scope, unchecked)...)
	for _, f := range rep.Findings {
		if f.Code == checks.AuditDRNotOnLookupPath || f.Code == checks.AuditSubsetUndefined || f.Code == checks.AuditDRNotExportedToClient {
			continue // compareSubsetAudit
		}
		if f.Code == checks.AuditSidecarImportHidden {
			res = append(res, compareSidecarImport(snap, f, out, filter, scope, unchecked)...)
			continue
		}
		if f.Code != checks.AuditSENotExportedToGateway && f.Code != checks.AuditVSNotExportedToGateway {
			unchecked[f.Code]++
			continue
		}
		for _, ns := range f.MissingIn {
			found := false
			for _, p := range proxies {
				if p.ns != ns || out.sims[p.ref] == nil {
					continue
				}
				found = true
				role := ""
				if sc.ProxyRole != nil {
					role = sc.ProxyRole[p.ref]
				}
				c := auditCheck{code: f.Code, ref: f.Ref(), ns: ns, gateway: p.ref, role: role, filter: filter, scope: scope}
				switch f.Code {
				case checks.AuditSENotExportedToGateway:
					var present, absent []string
					ens, ename := f.Namespace, f.Name
					if f.Entry != "" {
						ens, ename, _ = strings.Cut(f.Entry, "/") // (on the mesh ConfigMap)
					}
					for _, n := range entryClusters(snap, ens, ename) {
						if out.cds[p.ref][n] {
							present = append(present, n)
						} else {
							absent = append(absent, n)
						}
					}
					c.istiodAgrees = len(present) == 0
					if c.istiodAgrees {
						c.detail = "lacks " + strings.Join(absent, ", ")
					} else {
						c.detail = "HAS " + strings.Join(present, ", ")
					}
				case checks.AuditVSNotExportedToGateway:
					where := vsInConfig(out.sims[p.ref], f.Namespace, f.Name)
					c.istiodAgrees = where == ""
					if c.istiodAgrees {
						c.detail = "has no route or filter chain from it"
					} else {
						c.detail = "USES it in " + where
					}
				}
				res = append(res, c)
			}
			if !found {
				unchecked["no compared gateway workload in "+ns]++
			}
		}
	}
	return res
}

// compareSidecarImport checks SE_NOT_EXPORTED_TO_SIDECAR_IMPORTER: a Sidecar imports ns/host
// but the entry is not exported to the Sidecar's namespace, so that namespace's sidecar must lack
// the entry's clusters (unless another entry for the same host, imported another way, gives the
// same cluster names: then it is not checkable).
func compareSidecarImport(snap *snapshot.Snapshot, f checks.AuditFinding, out *istiodOut, filter, scope bool, unchecked map[string]int) []auditCheck {
	var res []auditCheck
	for _, ns := range f.MissingIn {
		cds := out.sidecars[ns]
		if cds == nil {
			unchecked["no sidecar compared in "+ns]++
			continue
		}
		v := checks.BuildSidecarView(snap, ns, nil)
		other := false
		for _, se := range snap.ServiceEntries {
			if se.Namespace == f.Namespace && se.Name == f.Name {
				for _, h := range se.Spec.Hosts {
					if s := v.Outbound.CDSService(rules.NormalizeHost(h)); s != nil {
						other = true
					}
				}
			}
		}
		if other {
			unchecked[f.Code+": another entry for the host is imported"]++
			continue
		}
		c := auditCheck{code: f.Code, ref: f.Ref(), ns: ns, filter: filter, scope: scope}
		var present, absent []string
		for _, n := range entryClusters(snap, f.Namespace, f.Name) {
			if cds[n] {
				present = append(present, n)
			} else {
				absent = append(absent, n)
			}
		}
		c.istiodAgrees = len(present) == 0
		if c.istiodAgrees {
			c.detail = "lacks " + strings.Join(absent, ", ")
		} else {
			c.detail = "HAS " + strings.Join(present, ", ")
		}
		res = append(res, c)
	}
	return res
}

// entryClusters lists outbound|<port>||<host> for the ServiceEntry's hosts and ports.
func entryClusters(snap *snapshot.Snapshot, ns, name string) []string {
	var out []string
	for _, se := range snap.ServiceEntries {
		if se.Namespace != ns || se.Name != name {
			continue
		}
		for _, h := range se.Spec.Hosts {
			for _, p := range se.Spec.Ports {
				if strings.EqualFold(p.GetProtocol(), "UDP") {
					continue
				}
				out = append(out, fmt.Sprintf("outbound|%d||%s", p.GetNumber(), rules.NormalizeHost(h)))
			}
		}
	}
	return out
}

// vsInConfig returns where the proxy's routes or listener filter chains carry the istio
// config metadata of VirtualService ns/name ("" when nowhere).
func vsInConfig(ps *proxySim, ns, name string) string {
	suffix := "/namespaces/" + ns + "/virtual-service/" + name
	names := func(m *core.Metadata) bool {
		v := m.GetFilterMetadata()["istio"].GetFields()["config"].GetStringValue()
		return strings.HasSuffix(v, suffix)
	}
	for _, rc := range ps.sim.Routes {
		for _, vh := range rc.GetVirtualHosts() {
			for _, r := range vh.GetRoutes() {
				if names(r.GetMetadata()) {
					return "route config " + rc.GetName() + " virtual host " + vh.GetName()
				}
			}
		}
	}
	for _, l := range ps.sim.Listeners {
		for _, fc := range l.GetFilterChains() {
			if names(fc.GetMetadata()) {
				return "listener " + l.GetName() + " filter chain " + fc.GetName()
			}
		}
	}
	return ""
}

// writeAuditTables writes the export-audit agreement tables of the generated matrix.
func writeAuditTables(w *strings.Builder, rs []*result) {
	if len(rs) == 0 {
		return
	}
	agree, total := 0, 0
	byCode := map[string]*tally{}
	unchecked := map[string]int{}
	for _, r := range rs {
		if r.status != "compared" {
			continue
		}
		for k, v := range r.auditUnchecked {
			unchecked[k] += v
		}
		for _, c := range r.auditChecks {
			total++
			tl := byCode[c.code]
			if tl == nil {
				tl = &tally{}
				byCode[c.code] = tl
			}
			tl.total++
			if c.agree() {
				agree++
				tl.agree++
			}
		}
	}
	fmt.Fprintf(w, "EXPORT AUDIT (checks.ExportAudit findings, and their absence, against istiod's CDS/RDS/LDS of the gateways and client sidecars concerned)\n")
	fmt.Fprintf(w, "audit checks agreeing: %d/%d\n", agree, total)
	for _, code := range auditCodes {
		tl := byCode[code]
		if tl == nil {
			tl = &tally{}
		}
		fmt.Fprintf(w, "  %-48s %d/%d\n", code, tl.agree, tl.total)
	}
	fmt.Fprintf(w, "not checked: %s\n\n", fmtCounts(unchecked))
	extra := []dimension{{"proxy", []string{"gateway-ns", "other-ns"}}}
	tables := tallyDimensions(rs, extra, func(r *result) []dimCheck {
		var out []dimCheck
		for _, c := range r.auditChecks {
			out = append(out, dimCheck{extra: map[string]string{"proxy": c.role}, agree: c.agree()})
		}
		return out
	}, func(r *result) bool { return r.auditDisagreement == 0 })
	for _, t := range tables {
		d, order, tal := t, t.values, t.tal
		fmt.Fprintf(w, "%-22s %-28s %s\n", strings.ToUpper(d.name), "VALUE", "FINDINGS")
		for _, v := range order {
			fmt.Fprintf(w, "%-22s %-28s %s\n", "", v, fmt.Sprintf("%d/%d", tal[v].agree, tal[v].total))
		}
		w.WriteString("\n")
	}
}
