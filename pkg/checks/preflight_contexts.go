package checks

import (
	"fmt"
	"math/bits"
	"slices"
	"strconv"
	"strings"
)

// Where preflight saw a finding on client sidecars, by namespace set (issue #13). A finding
// about a public host is seen by the sidecars of every client namespace that imports it: one
// context per namespace made a 10,000-entry mesh's report a million contexts long, and adding
// them one by one cost more than the analysis. The collector keeps, per finding, one set of
// namespaces per place ("sidecar in NS, api.example.com:443", "path from sidecar in NS, TLS
// api.example.com:443", "sidecar in NS, port 443"), adds a whole set at once where the public
// layer's findings apply to many namespaces (preflight_share.go, preflight_narrow.go), and
// renders each set as one context at the end. The rendering depends only on the sets, not on
// the order they were filled in: the shared and the unshared predictions give the same report.

// nsSet is a set of client namespaces: bit i stands for collector.clientNS[i].
type nsSet []uint64

func newNSSet(n int) nsSet { return make(nsSet, (n+63)/64) }

func (s nsSet) add(i int)      { s[i/64] |= 1 << (uint(i) % 64) }
func (s nsSet) has(i int) bool { return s[i/64]&(1<<(uint(i)%64)) != 0 }
func (s nsSet) del(i int)      { s[i/64] &^= 1 << (uint(i) % 64) }

func (s nsSet) or(o nsSet) {
	for i := range o {
		s[i] |= o[i]
	}
}

func (s nsSet) count() int {
	n := 0
	for _, w := range s {
		n += bits.OnesCount64(w)
	}
	return n
}

// first is the lowest index in the set (-1 when it is empty).
func (s nsSet) first() int {
	for i, w := range s {
		if w != 0 {
			return i*64 + bits.TrailingZeros64(w)
		}
	}
	return -1
}

// members lists the indexes in the set, in order.
func (s nsSet) members() []int {
	var out []int
	for i, w := range s {
		for w != 0 {
			b := bits.TrailingZeros64(w)
			out = append(out, i*64+b)
			w &^= 1 << uint(b)
		}
	}
	return out
}

// sidecarCtx is a place on a client sidecar, without the namespace: rest follows "sidecar in
// NS, " ("api.example.com:443", "port 443"), or "path from sidecar in NS, " when path is set
// ("TLS api.example.com:443").
type sidecarCtx struct {
	path bool
	rest string
}

func (x sidecarCtx) render(who string) string {
	if x.path {
		return "path from " + who + ", " + x.rest
	}
	return who + ", " + x.rest
}

func hostPortCtx(q hostPortCall) sidecarCtx {
	return sidecarCtx{rest: q.host + ":" + strconv.FormatUint(uint64(q.port), 10)}
}

func portCtx(p uint32) sidecarCtx { return sidecarCtx{rest: fmt.Sprintf("port %d", p)} }

// listAtMost is the most namespaces a context names one by one when a shorter form exists.
const listAtMost = 8

// renderSidecars says which client sidecars (set s of names) saw a finding: "sidecar in a",
// "sidecars in 3 namespaces (a, b, c)", "sidecars in every client namespace (200)", "sidecars
// in every client namespace but a, b (198)".
func renderSidecars(s nsSet, names []string) string {
	n := s.count()
	if n == 1 {
		return "sidecar in " + names[s.first()]
	}
	if n > listAtMost {
		var missing []string
		for i, name := range names {
			if !s.has(i) {
				missing = append(missing, name)
			}
		}
		switch {
		case len(missing) == 0:
			return fmt.Sprintf("sidecars in every client namespace (%d)", n)
		case len(missing) <= listAtMost:
			return fmt.Sprintf("sidecars in every client namespace but %s (%d)", strings.Join(missing, ", "), n)
		}
	}
	list := make([]string, 0, n)
	for _, i := range s.members() {
		list = append(list, names[i])
	}
	return fmt.Sprintf("sidecars in %d namespaces (%s)", n, strings.Join(list, ", "))
}

// addAt adds finding fp (key k) as seen at place x on the sidecars of the namespaces in set.
func (c *collector) addAt(fp *PreflightFinding, k string, x sidecarCtx, set nsSet) {
	i, ok := c.seen[k]
	if !ok {
		c.addKeyed(fp, k, "")
		i = c.seen[k]
	}
	if c.sidecarCtxs == nil {
		c.sidecarCtxs = map[int]map[sidecarCtx]nsSet{}
	}
	m := c.sidecarCtxs[i]
	if m == nil {
		m = map[sidecarCtx]nsSet{}
		c.sidecarCtxs[i] = m
	}
	if have, ok := m[x]; ok {
		have.or(set)
		return
	}
	m[x] = slices.Clone(set)
}

// addAtNamespace is addAt for the sidecars of one client namespace.
func (c *collector) addAtNamespace(fp *PreflightFinding, k string, x sidecarCtx, ns string) {
	i, ok := c.nsIndex[ns]
	if !ok {
		c.addKeyed(fp, k, x.render("sidecar in "+ns))
		return
	}
	s := newNSSet(len(c.clientNS))
	s.add(i)
	c.addAt(fp, k, x, s)
}

// renderSidecarContexts appends each finding's sidecar places to its contexts, after the
// others: ordered by the first namespace of their set, then by place.
func (c *collector) renderSidecarContexts() {
	for i, m := range c.sidecarCtxs {
		type entry struct {
			x     sidecarCtx
			first int
			set   nsSet
		}
		es := make([]entry, 0, len(m))
		for x, s := range m {
			es = append(es, entry{x, s.first(), s})
		}
		slices.SortFunc(es, func(a, b entry) int {
			if a.first != b.first {
				return a.first - b.first
			}
			if a.x.path != b.x.path {
				if a.x.path {
					return 1
				}
				return -1
			}
			return strings.Compare(a.x.rest, b.x.rest)
		})
		for _, e := range es {
			c.findings[i].Contexts = append(c.findings[i].Contexts, e.x.render(renderSidecars(e.set, c.clientNS)))
		}
	}
}

// ExpandContexts lists a finding's contexts with each one about several client sidecars
// ("sidecars in 3 namespaces (a, b, c), X", "sidecars in every client namespace (N), X", "...
// but a, b (N), X") written out once per namespace ("sidecar in a, X"); clientNamespaces are the
// report's. Other contexts are kept as they are.
func ExpandContexts(contexts, clientNamespaces []string) []string {
	var out []string
	for _, c := range contexts {
		pre, nss, rest, ok := contextSidecars(c, clientNamespaces)
		if !ok {
			out = append(out, c)
			continue
		}
		for _, ns := range nss {
			out = append(out, pre+"sidecar in "+ns+", "+rest)
		}
	}
	return out
}

// contextSidecars reads a context about several client sidecars (see ExpandContexts): its prefix
// ("" or "path from "), the namespaces it stands for (clientNamespaces itself for every client
// namespace: callers must not modify it) and the rest after them; ok false for any other
// context.
func contextSidecars(c string, clientNamespaces []string) (pre string, nss []string, rest string, ok bool) {
	body := c
	if strings.HasPrefix(c, "path from ") {
		pre, body = "path from ", strings.TrimPrefix(c, "path from ")
	}
	if !strings.HasPrefix(body, "sidecars in ") {
		return "", nil, "", false
	}
	body = strings.TrimPrefix(body, "sidecars in ")
	open, close := strings.Index(body, "("), strings.Index(body, ")")
	if open < 0 || close < open || !strings.HasPrefix(body[close:], "), ") {
		return "", nil, "", false
	}
	rest = body[close+3:]
	switch head := body[:open]; {
	case strings.HasPrefix(head, "every client namespace but "):
		but := strings.Split(strings.TrimSpace(strings.TrimPrefix(head, "every client namespace but ")), ", ")
		for _, ns := range clientNamespaces {
			if !slices.Contains(but, ns) {
				nss = append(nss, ns)
			}
		}
	case strings.HasPrefix(head, "every client namespace"):
		nss = clientNamespaces
	default:
		nss = strings.Split(body[open+1:close], ", ")
	}
	return pre, nss, rest, true
}

// listedContexts rewrites the contexts that say "every client namespace" (of clientNamespaces)
// to name the namespaces one by one.
func listedContexts(contexts, clientNamespaces []string) []string {
	out := make([]string, 0, len(contexts))
	for _, c := range contexts {
		if !strings.Contains(c, "sidecars in every client namespace") {
			out = append(out, c)
			continue
		}
		ex := ExpandContexts([]string{c}, clientNamespaces)
		if len(ex) == 0 {
			out = append(out, c)
			continue
		}
		pre, _, _ := strings.Cut(c, "sidecars in ")
		_, rest, _ := strings.Cut(strings.TrimPrefix(ex[0], pre+"sidecar in "), ", ")
		names := make([]string, len(ex))
		for i, e := range ex {
			names[i], _, _ = strings.Cut(strings.TrimPrefix(e, pre+"sidecar in "), ", ")
		}
		out = append(out, fmt.Sprintf("%ssidecars in %d namespaces (%s), %s", pre, len(names), strings.Join(names, ", "), rest))
	}
	return out
}
