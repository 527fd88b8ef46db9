package checks

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// One hidden resource, many namespaces: preflight traces the calls of each client namespace,
// and a resource whose exportTo leaves several of them out (an entry, a DestinationRule) gets
// one path finding per namespace, each with a fix that exports it to that namespace alone.
// Applied one after the other, each fix replaces the list the previous one wrote (blind audits
// 75 c19/c20, 76 W5). mergeExportToFixes folds such findings into one, seen from every namespace,
// with one fix that adds them all (widenExportTo's rule: more than maxListedNamespaces become
// "*").
//
// Two findings fold when they have the same id, resource and field, each was seen from one client
// namespace only, their messages and fixes are the same but for that namespace's name, and the
// fix is exactly the exportTo change exportToPatchAllText writes for it (checked by writing it
// again). Anything else stays as it is.
func mergeExportToFixes(fs []PreflightFinding, clientNamespaces []string) []PreflightFinding {
	type member struct {
		i        int
		ns       string
		declared []string
	}
	type groupKey struct{ id, res, field, msg, fix string }
	groups := map[groupKey][]member{}
	var order []groupKey
	words := map[string]*regexp.Regexp{} // a namespace's name as a word, compiled once
	for i, f := range fs {
		ns, ok := singleClientNamespace(f.Contexts, clientNamespaces)
		if !ok || !strings.HasPrefix(f.Fix, "# "+f.Resource.String()+"\nspec:\n  exportTo:") {
			continue
		}
		declared, ok := exportToFixDeclared(f, ns)
		if !ok {
			continue
		}
		word := words[ns]
		if word == nil {
			word = regexp.MustCompile(`\b` + regexp.QuoteMeta(ns) + `\b`)
			words[ns] = word
		}
		k := groupKey{f.ID, f.Resource.String(), f.Field, word.ReplaceAllString(f.Message, "\x00"), strings.Join(declared, "\x01")}
		if _, seen := groups[k]; !seen {
			order = append(order, k)
		}
		groups[k] = append(groups[k], member{i, ns, declared})
	}
	drop := map[int]bool{}
	for _, k := range order {
		ms := groups[k]
		if len(ms) < 2 {
			continue
		}
		first := &fs[ms[0].i]
		var nss []string
		for _, m := range ms {
			nss = append(nss, m.ns)
			if m.i != ms[0].i {
				for _, c := range fs[m.i].Contexts {
					if !slices.Contains(first.Contexts, c) {
						first.Contexts = append(first.Contexts, c)
					}
				}
				drop[m.i] = true
			}
		}
		others := slices.DeleteFunc(slices.Clone(nss), func(n string) bool { return n == ms[0].ns })
		slices.Sort(others)
		slices.Sort(nss)
		// the first namespace's words, then the others (a list put into each sentence would
		// not read)
		first.Message = strings.TrimSpace(first.Message) + fmt.Sprintf(" The same holds for the sidecars in %s; the fix adds every one of these namespaces.", namespacesText(others))
		ref := first.Resource.String()
		first.Fix = widenExportTo(ref, ms[0].declared, first.Resource.Namespace)(nss)
		first.Contexts = compactSidecarContexts(first.Contexts, clientNamespaces)
	}
	return withoutDropped(fs, drop)
}

// compactSidecarContexts writes the contexts that differ only by the client namespace ("path
// from sidecar in NS, REST", "sidecar in NS, REST") as one, as the collector renders a set of
// namespaces (renderSidecars).
func compactSidecarContexts(contexts, clientNamespaces []string) []string {
	idx := make(map[string]int, len(clientNamespaces))
	for i, ns := range clientNamespaces {
		idx[ns] = i
	}
	type place struct{ pre, rest string }
	sets := map[place]nsSet{}
	var order []any // place, or a context kept as it is
	for _, c := range ExpandContexts(contexts, clientNamespaces) {
		pre, body, ok := strings.Cut(c, "sidecar in ")
		ns, rest, ok2 := strings.Cut(body, ", ")
		i, known := idx[ns]
		if !ok || !ok2 || !known || (pre != "" && pre != "path from ") {
			order = append(order, c)
			continue
		}
		k := place{pre, rest}
		if sets[k] == nil {
			sets[k] = newNSSet(len(clientNamespaces))
			order = append(order, k)
		}
		sets[k].add(i)
	}
	out := make([]string, 0, len(order))
	for _, o := range order {
		switch x := o.(type) {
		case string:
			out = append(out, x)
		case place:
			out = append(out, x.pre+renderSidecars(sets[x], clientNamespaces)+", "+x.rest)
		}
	}
	return out
}

// singleClientNamespace is the client namespace every context of a finding names ("path from
// sidecar in NS, ..." or "sidecar in NS, ..."), false when they name none or several.
func singleClientNamespace(contexts, clientNamespaces []string) (string, bool) {
	ns := ""
	same := func(n string) bool {
		if ns != "" && n != ns {
			return false
		}
		ns = n
		return true
	}
	for _, c := range contexts {
		// (read without writing every namespace out: a context may stand for hundreds)
		if _, nss, _, ok := contextSidecars(c, clientNamespaces); ok {
			for _, n := range nss {
				if !same(n) {
					return "", false
				}
			}
			continue
		}
		_, rest, ok := strings.Cut(c, "sidecar in ")
		if !ok {
			return "", false
		}
		n, _, _ := strings.Cut(rest, ", ")
		if !same(n) {
			return "", false
		}
	}
	return ns, ns != ""
}

// exportToFixDeclared reads back the exportTo the fix of f started from (its list without ns),
// false unless exportToPatchAllText writes that fix again from it.
func exportToFixDeclared(f PreflightFinding, ns string) ([]string, bool) {
	_, list, _ := strings.Cut(f.Fix, "\n  exportTo:")
	var declared []string
	for _, line := range strings.Split(strings.TrimPrefix(list, "\n"), "\n") {
		item, ok := strings.CutPrefix(line, "  - ")
		if !ok {
			return nil, false
		}
		v, err := strconv.Unquote(item)
		if err != nil {
			return nil, false
		}
		if v != ns {
			declared = append(declared, v)
		}
	}
	if exportToPatchAllText(f.Resource.String(), declared, f.Resource.Namespace, []string{ns}) != f.Fix {
		return nil, false
	}
	return declared, true
}

// namespacesText names namespaces in a sentence: "a, b and c", or the count and the first few.
func namespacesText(nss []string) string {
	switch n := len(nss); {
	case n == 1:
		return nss[0]
	case n <= 4:
		return strings.Join(nss[:n-1], ", ") + " and " + nss[n-1]
	default:
		return fmt.Sprintf("%d namespaces (%s, ...)", n, strings.Join(nss[:3], ", "))
	}
}
