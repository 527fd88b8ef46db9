package checks

import (
	"github.com/kubectl-egress/kubectl-egress/pkg/snapshot"
)

// sidecarHostFindings returns the findings `explain-listener HOST:PORT --from NS` reports about
// the calls to host:port (not the port-wide conflicts, which sidecarFindings gives), for a
// sidecar view v built once per namespace: the host
// part of explain-listener (explainSidecarHost) without the explanations, so that preflight does
// not rebuild the sidecar model for every host; TestSidecarHostFindingsMatchExplainListener checks
// the two agree.
func sidecarHostFindings(snap *snapshot.Snapshot, v SidecarView, host string, port uint32) []Finding {
	rep := &ListenerReport{Host: host, Port: port}
	explainSidecarHost(snap, v, port, "", "", rep, false)
	return rep.Findings
}
