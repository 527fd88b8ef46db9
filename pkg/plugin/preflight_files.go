package plugin

import (
	"os"
	"regexp"
	"strings"

	"github.com/kubectl-egress/kubectl-egress/pkg/checks"
	"github.com/kubectl-egress/kubectl-egress/pkg/snapshot"
)

// manifestIndex maps "Kind namespace/name" (checks.ResourceRef.String) of every object the
// files snapshot read from a -f file to that file and the line of its document's "kind:" (0
// when not found, for example in JSON). Objects from standard input ("-") and the synthetic
// gateway are left out. The loader recorded each object's file (a later file wins); each file
// is read once more here, as text, for the lines.
func manifestIndex(files *snapshot.Snapshot) map[string]checks.SourceLocation {
	idx := map[string]checks.SourceLocation{}
	lines := map[string]map[[3]string]int{}
	for key, file := range files.ObjectFiles {
		kind, rest, _ := strings.Cut(key, "/")
		ns, name, _ := strings.Cut(rest, "/")
		if file == "-" || !indexedKinds[kind] {
			continue
		}
		if files.Assumptions.SyntheticGateway && kind == snapshot.KindDeployment && name == snapshot.SyntheticGatewayName && ns == files.IstioNamespace {
			continue
		}
		l, ok := lines[file]
		if !ok {
			data, _ := os.ReadFile(file)
			l = documentLines(string(data))
			lines[file] = l
		}
		ref := checks.ResourceRef{Kind: kind, Namespace: ns, Name: name}
		line := l[[3]string{kind, ns, name}] // the document that names the namespace too
		if line == 0 {
			line = l[[3]string{kind, "", name}]
		}
		idx[ref.String()] = checks.SourceLocation{File: file, Line: line}
	}
	return idx
}

// indexedKinds are the kinds whose findings name their manifest file.
var indexedKinds = map[string]bool{
	snapshot.KindNamespace: true, snapshot.KindServiceEntry: true, snapshot.KindVirtualService: true,
	snapshot.KindDestinationRule: true, snapshot.KindGateway: true, snapshot.KindSidecar: true,
	snapshot.KindWorkloadEntry: true, snapshot.KindEnvoyFilter: true, snapshot.KindService: true,
	snapshot.KindDeployment: true, snapshot.KindPod: true,
	"HTTPRoute": true, "GRPCRoute": true, "TLSRoute": true, "TCPRoute": true, "ReferenceGrant": true,
}

// locate sets Location on findings whose resource came from a manifest file.
func locate(fs []checks.PreflightFinding, idx map[string]checks.SourceLocation) {
	for i := range fs {
		if loc, ok := idx[fs[i].Resource.String()]; ok {
			l := loc
			fs[i].Location = &l
		}
	}
}

var kindLineRE = regexp.MustCompile(`^kind:\s*["']?([A-Za-z]+)["']?\s*(#.*)?$`)

// documentLine returns the 1-based line of the "kind: Kind" line of the YAML document (split at
// "---" lines) that has kind and a "name: name" line; 0 when there is none.
func documentLine(text, kind, name string) int {
	return documentLines(text)[[3]string{kind, "", name}]
}

var nameLineRE = regexp.MustCompile(`^\s+name:\s*(.*?)\s*(#.*)?$`)

// flowNameRE is the name in a flow-style metadata line.
var flowNameRE = regexp.MustCompile(`^metadata:\s*\{(?:.*[,{ ])?name:\s*([^,}\s]+)`)

// namespaceLineRE and flowNamespaceRE find a document's namespace the same ways.
var (
	namespaceLineRE = regexp.MustCompile(`^\s+namespace:\s*(.*?)\s*(#.*)?$`)
	flowNamespaceRE = regexp.MustCompile(`^metadata:\s*\{(?:.*[,{ ])?namespace:\s*([^,}\s]+)`)
)

// documentLines indexes a manifest file in one pass: for each kind and name, the line of the
// kind: field of the first document (separated by lines starting with ---) that has that kind
// and an indented name: field with that value (quotes optional). One pass per file, so locating
// every object of a large manifest stays linear.
func documentLines(text string) map[[3]string]int {
	out := map[[3]string]int{}
	var kinds map[string]int
	var names, namespaces []string
	unquote := func(v string) string {
		v = strings.TrimPrefix(strings.TrimPrefix(v, `"`), `'`)
		if strings.HasSuffix(v, `"`) || strings.HasSuffix(v, `'`) {
			v = v[:len(v)-1]
		}
		return v
	}
	flush := func() {
		for k, at := range kinds {
			for _, n := range names {
				// keyed without a namespace, and with each namespace the document names (two
				// objects of one kind and name in different namespaces: blind audit 29 #14)
				for _, ns := range append([]string{""}, namespaces...) {
					key := [3]string{k, ns, n}
					if _, ok := out[key]; !ok {
						out[key] = at
					}
				}
			}
		}
		kinds, names, namespaces = nil, names[:0], namespaces[:0]
	}
	for i, l := range strings.Split(text, "\n") {
		l = strings.TrimRight(l, "\r")
		if strings.HasPrefix(l, "---") {
			flush()
			continue
		}
		if m := kindLineRE.FindStringSubmatch(l); m != nil {
			if kinds == nil {
				kinds = map[string]int{}
			}
			kinds[m[1]] = i + 1
		}
		m := nameLineRE.FindStringSubmatch(l)
		if m == nil && strings.HasPrefix(l, "metadata:") {
			m = flowNameRE.FindStringSubmatch(l) // metadata: {name: a, namespace: b}
		}
		if m != nil {
			names = append(names, unquote(m[1]))
		}
		m = namespaceLineRE.FindStringSubmatch(l)
		if m == nil && strings.HasPrefix(l, "metadata:") {
			m = flowNamespaceRE.FindStringSubmatch(l)
		}
		if m != nil {
			namespaces = append(namespaces, unquote(m[1]))
		}
	}
	flush()
	return out
}
