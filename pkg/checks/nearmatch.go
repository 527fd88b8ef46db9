package checks

import (
	"fmt"
	"sort"
	"strings"

	"github.com/kubectl-egress/kubectl-egress/pkg/rules"
	"github.com/kubectl-egress/kubectl-egress/pkg/snapshot"
)

// NearMatches suggests registry entries close to a host no entry declares: a wildcard entry
// that covers it (its cluster is outbound|<port>||*.domain, not one for the host), a Kubernetes
// Service whose short or namespaced name it is, an IP listed in an entry's endpoints instead
// of its addresses, and host names one or two edits away. At most 5, most likely first.
func NearMatches(snap *snapshot.Snapshot, host string) []string {
	type cand struct {
		rank int
		text string
	}
	var out []cand
	seen := map[string]bool{}
	add := func(rank int, text string) {
		if !seen[text] {
			seen[text] = true
			out = append(out, cand{rank, text})
		}
	}
	for _, se := range snap.ServiceEntries {
		ref := "ServiceEntry " + se.Namespace + "/" + se.Name
		for _, h := range se.Spec.Hosts {
			h = rules.NormalizeHost(h)
			switch {
			case strings.HasPrefix(h, "*") && rules.HostMatches(h, host):
				add(0, fmt.Sprintf("%s (%s) covers %s, but its clusters are named for %s, not for %s", h, ref, host, h, host))
			case h == host:
				// the host itself (declared where the verdict does not look: another revision)
			case levenshtein(h, host) <= 2 || sameButLastLabel(h, host):
				add(2, fmt.Sprintf("%s (%s)", h, ref))
			}
		}
		for _, ep := range se.Spec.Endpoints {
			if ep.GetAddress() == host {
				add(1, fmt.Sprintf("%s lists %s in spec.endpoints, not spec.addresses", ref, host))
			}
		}
	}
	for _, svc := range snap.Services {
		fq := rules.KubeServiceHost(svc)
		short := svc.Name + "." + svc.Namespace
		switch {
		case host == svc.Name || host == short || host == short+".svc":
			add(1, fmt.Sprintf("%s (Service %s/%s)", fq, svc.Namespace, svc.Name))
		case fq == host:
		case levenshtein(fq, host) <= 2:
			add(2, fmt.Sprintf("%s (Service %s/%s)", fq, svc.Namespace, svc.Name))
		case strings.HasPrefix(host, svc.Name+".") && strings.HasSuffix(host, ".svc."+rules.DefaultDomain) && strings.Count(host, ".") == strings.Count(fq, "."):
			// the Service's name in another namespace (a gateway moved out of istio-system,
			// say: blind audit 34 A1)
			add(3, fmt.Sprintf("%s (Service %s/%s, the same name in namespace %s)", fq, svc.Namespace, svc.Name, svc.Namespace))
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].rank < out[j].rank })
	var res []string
	for i, c := range out {
		if i == 5 {
			break
		}
		res = append(res, c.text)
	}
	return res
}

// sameButLastLabel: a and b differ only in their last label (postman-echo.org for
// postman-echo.com), a common slip in a backend or destination host.
func sameButLastLabel(a, b string) bool {
	i, j := strings.LastIndexByte(a, '.'), strings.LastIndexByte(b, '.')
	return i > 0 && j > 0 && a[:i] == b[:j] && a != b
}

// levenshtein is the edit distance between a and b (bytes).
func levenshtein(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
