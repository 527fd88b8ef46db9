package plugin

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-egress/kubectl-egress/pkg/checks"
	"github.com/kubectl-egress/kubectl-egress/pkg/loader"
	"github.com/kubectl-egress/kubectl-egress/pkg/snapshot"
)

// manifestIndex maps "Kind namespace/name" (checks.ResourceRef.String) of every object in the
// -f files to the file it came from and the line of its document's "kind:" (0 when not found,
// for example in JSON). Each file is loaded on its own with the loader (so namespaces default
// exactly as in the run); standard input ("-") and files that do not load are left out — the
// run itself reports their errors. A later file wins, as in the loader.
func (o *PreflightOptions) manifestIndex() map[string]checks.SourceLocation {
	idx := map[string]checks.SourceLocation{}
	lo := loader.Options{IstioNamespace: o.IstioNamespace, Revision: o.Revision, Lenient: true, MaxBytes: int64(o.MaxInputMiB) << 20, MaxObjects: o.MaxObjects} // the run itself reports problems
	if o.nsGiven && o.ConfigFlags.Namespace != nil {
		lo.DefaultNamespace = *o.ConfigFlags.Namespace
	}
	for _, file := range manifestFiles(o.Files) {
		snap, err := loader.FromFiles([]string{file}, nil, lo)
		if err != nil {
			continue
		}
		data, _ := os.ReadFile(file)
		lines := documentLines(string(data))
		add := func(kind string, m metav1.Object) {
			if snap.Assumptions.SyntheticGateway && kind == snapshot.KindDeployment && m.GetName() == snapshot.SyntheticGatewayName && m.GetNamespace() == snap.IstioNamespace {
				return
			}
			ref := checks.ResourceRef{Kind: kind, Namespace: m.GetNamespace(), Name: m.GetName()}
			idx[ref.String()] = checks.SourceLocation{File: file, Line: lines[[2]string{kind, m.GetName()}]}
		}
		for _, x := range snap.Namespaces {
			add(snapshot.KindNamespace, x)
		}
		for _, x := range snap.ServiceEntries {
			add(snapshot.KindServiceEntry, x)
		}
		for _, x := range snap.VirtualServices {
			add(snapshot.KindVirtualService, x)
		}
		for _, x := range snap.DestinationRules {
			add(snapshot.KindDestinationRule, x)
		}
		for _, x := range snap.Gateways {
			add(snapshot.KindGateway, x)
		}
		for _, x := range snap.Sidecars {
			add(snapshot.KindSidecar, x)
		}
		for _, x := range snap.WorkloadEntries {
			add(snapshot.KindWorkloadEntry, x)
		}
		for _, x := range snap.EnvoyFilters {
			add(snapshot.KindEnvoyFilter, x)
		}
		for _, x := range snap.Services {
			add(snapshot.KindService, x)
		}
		for _, x := range snap.Deployments {
			add(snapshot.KindDeployment, x)
		}
		for _, x := range snap.Pods {
			add(snapshot.KindPod, x)
		}
	}
	return idx
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

// manifestFiles expands -f paths as the loader reads them: files as given, directories walked
// recursively for *.yaml, *.yml and *.json, in lexical order; "-" is skipped.
func manifestFiles(paths []string) []string {
	var out []string
	for _, p := range paths {
		if p == "-" {
			continue
		}
		info, err := os.Stat(p)
		if err != nil {
			continue
		}
		if !info.IsDir() {
			out = append(out, p)
			continue
		}
		var found []string
		_ = filepath.WalkDir(p+string(filepath.Separator)+".", func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			switch strings.ToLower(filepath.Ext(path)) {
			case ".yaml", ".yml", ".json":
				if !d.IsDir() {
					found = append(found, filepath.Clean(path))
				}
			}
			return nil
		})
		sort.Strings(found)
		out = append(out, found...)
	}
	return out
}

var kindLineRE = regexp.MustCompile(`^kind:\s*["']?([A-Za-z]+)["']?\s*(#.*)?$`)

// documentLine returns the 1-based line of the "kind: Kind" line of the YAML document (split at
// "---" lines) that has kind and a "name: name" line; 0 when there is none.
func documentLine(text, kind, name string) int {
	return documentLines(text)[[2]string{kind, name}]
}

var nameLineRE = regexp.MustCompile(`^\s+name:\s*(.*?)\s*(#.*)?$`)

// documentLines indexes a manifest file in one pass: for each kind and name, the line of the
// kind: field of the first document (separated by lines starting with ---) that has that kind
// and an indented name: field with that value (quotes optional). One pass per file, so locating
// every object of a large manifest stays linear.
func documentLines(text string) map[[2]string]int {
	out := map[[2]string]int{}
	var kinds map[string]int
	var names []string
	flush := func() {
		for k, at := range kinds {
			for _, n := range names {
				key := [2]string{k, n}
				if _, ok := out[key]; !ok {
					out[key] = at
				}
			}
		}
		kinds, names = nil, names[:0]
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
		if m := nameLineRE.FindStringSubmatch(l); m != nil {
			v := m[1]
			v = strings.TrimPrefix(strings.TrimPrefix(v, `"`), `'`)
			if strings.HasSuffix(v, `"`) || strings.HasSuffix(v, `'`) {
				v = v[:len(v)-1]
			}
			names = append(names, v)
		}
	}
	flush()
	return out
}
