package loader

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"google.golang.org/protobuf/proto"
	networkingapi "istio.io/api/networking/v1alpha3"
	istionetworkingv1 "istio.io/client-go/pkg/apis/networking/v1"
	networkingv1alpha3 "istio.io/client-go/pkg/apis/networking/v1alpha3"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/intstr"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
	gatewayv1beta1 "sigs.k8s.io/gateway-api/apis/v1beta1"
	gwscheme "sigs.k8s.io/gateway-api/pkg/client/clientset/versioned/scheme"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-egress/kubectl-egress/internal/parallel"
	"github.com/kubectl-egress/kubectl-egress/pkg/rules"
	"github.com/kubectl-egress/kubectl-egress/pkg/snapshot"
)

// StdinName is how standard input ("-") is named in FileError.Path and Snapshot.Source.
const StdinName = "<stdin>"

// baseCreationTime is the creationTimestamp given to the first object without one; the n-th
// object loaded (0-based, across all files, in load order) gets baseCreationTime + n seconds
// (snapshot.FromFileOrder recognises them).
var baseCreationTime = snapshot.FileOrderEpoch

// manifestExts are the file name endings read when walking a directory.
var manifestExts = map[string]bool{".yaml": true, ".yml": true, ".json": true}

// FromFiles reads Kubernetes/Istio manifests into a Snapshot.
//
// Each path is a file (read whatever its name), a directory (walked recursively in lexical
// order; only *.yaml, *.yml and *.json are read) or "-" (all of stdin, named "<stdin>" in
// errors). Files hold multi-document YAML ("---" lines) or one or more JSON values; `kind: List`
// and `*List` documents contribute their items. Recognised kinds (apiVersion+kind):
// v1 Namespace, Service, Pod, ConfigMap; apps/v1 Deployment; networking.istio.io
// v1/v1beta1/v1alpha3 ServiceEntry, VirtualService, DestinationRule, Gateway, Sidecar,
// WorkloadEntry; networking.istio.io/v1alpha3 EnvoyFilter. Everything else, including documents
// that are not Kubernetes objects, is skipped silently. ConfigMaps named `istio` or
// `istio-<rev>` in the Istio namespace fill Snapshot.MeshConfigs from their `mesh` key; other
// ConfigMaps are dropped.
//
// Namespaced objects without metadata.namespace are put in "default". Objects without
// creationTimestamp get 2000-01-01T00:00:00Z plus one second per object loaded before them, so
// oldest-first ordering follows load order. An object with the same kind, namespace and name as
// an earlier one replaces it (as a later `kubectl apply` would).
//
// When no Deployment or Pod is labelled `istio: egressgateway` and none is selected by a
// Gateway's spec.selector, a Deployment istio-egressgateway is added in the Istio namespace
// and Snapshot.Assumptions.SyntheticGateway is set.
//
// Errors: a file that cannot be opened or read returns the *fs.PathError (for example
// "open x.yaml: no such file or directory"); a document that does not parse, or a recognised
// object that does not decode, returns a *FileError "path:line: what is wrong" where line is
// the line of the YAML error when known, else the first line of the document. No paths is an
// error.
func FromFiles(paths []string, stdin io.Reader, opts Options) (*snapshot.Snapshot, error) {
	if len(paths) == 0 {
		return nil, errors.New("no manifest files given")
	}
	l := &fileLoader{
		snap:             newSnapshot("files "+strings.Join(paths, ","), opts),
		index:            map[string]int{},
		where:            map[string]string{},
		defaultNamespace: opts.DefaultNamespace,
		lenient:          opts.Lenient,
		maxBytes:         opts.maxBytes(),
		maxObjects:       opts.maxObjects(),
	}
	l.snap.Ignored = map[string]int{}
	if l.defaultNamespace == "" {
		l.defaultNamespace = metav1.NamespaceDefault
	}
	for _, p := range paths {
		objects := l.objects
		if err := l.loadPath(p, stdin); err != nil {
			return nil, err
		}
		if len(paths) > 1 && l.objects == objects {
			// one of several inputs holds nothing (an overlay rendered empty, a mistyped
			// directory): alone it is an error, so it is one beside others too (blind audit
			// 108 P18, where CI passed on the other inputs)
			name := p
			if p == "-" {
				name = StdinName
			}
			if err := l.problem(name, 0, "no Kubernetes objects in this input"); err != nil {
				return nil, err
			}
		}
	}
	if l.seq == 0 && len(l.snap.GatewayAPI) == 0 {
		// Nothing the checks read: an empty file, a misspelled path to an empty directory, or
		// only kinds the tool ignores. A verdict on that would rest on nothing.
		msg := "no Kubernetes objects in the input"
		if n := len(l.snap.Ignored); n > 0 {
			msg = "no object this tool reads in the input (only " + ignoredSummary(l.snap.Ignored) + ")"
		}
		names := slices.Clone(paths)
		for i, p := range names {
			if p == "-" {
				names[i] = StdinName
			}
		}
		if err := l.problem(strings.Join(names, ","), 0, msg); err != nil {
			return nil, err
		}
	}
	addSyntheticGateway(l.snap)
	addSyntheticKubeGateways(l.snap)
	// istiod's allocator gives entries their addresses once applied (status, which manifests
	// do not carry).
	snapshot.PredictAllocations(l.snap, func(*istionetworkingv1.ServiceEntry) bool { return true })
	l.snap.ObjectFiles = make(map[string]string, len(l.where))
	for k, at := range l.where {
		path, _ := splitAt(at)
		if path == StdinName {
			path = "-"
		}
		l.snap.ObjectFiles[k] = path
	}
	return l.snap, nil
}

type fileLoader struct {
	snap *snapshot.Snapshot
	// seq counts the objects loaded so far (creation-time order for objects without one).
	seq int
	// objects counts the Kubernetes objects met, of any kind (an input with none is empty).
	objects int
	// index maps "Kind/namespace/name" to the object's position in its snapshot slice.
	index map[string]int
	// defaultNamespace is given to namespaced objects without one (kubectl apply -n).
	defaultNamespace string
	// lenient: strict-manifest problems are warnings (Options.Lenient).
	lenient bool
	// maxBytes caps each input (Options.MaxBytes); maxObjects the objects (Options.MaxObjects).
	maxBytes   int64
	maxObjects int
	// where maps "Kind/namespace/name" to the "path:line" that defined it; at is the object
	// being loaded.
	where map[string]string
	at    string
	// doc and docLine are the YAML document being loaded and its first line (nil for JSON).
	doc     []byte
	docLine int
}

var unknownFieldRE = regexp.MustCompile(`unknown field "([^"]+)"|invalid value for field ([A-Za-z_]+):`)

// fieldLine finds the line of the first key named as the unknown field in msg in the YAML
// document being loaded (def when it cannot: JSON input, or a name that is not a plain key).
func (l *fileLoader) fieldLine(msg string, def int) int {
	m := unknownFieldRE.FindStringSubmatch(msg)
	if m == nil || l.doc == nil {
		return def
	}
	name := m[1]
	if name == "" {
		name = m[2]
	}
	if i := strings.LastIndex(name, "."); i >= 0 {
		name = name[i+1:] // encoding/json names the path: spec.selectr
	}
	key := regexp.MustCompile(`(^|[\s{,\-])"?` + regexp.QuoteMeta(name) + `"?\s*:`)
	for i, ln := range bytes.Split(l.doc, []byte("\n")) {
		if key.Match(ln) {
			return l.docLine + i
		}
	}
	return def
}

// problem reports a strict-manifest problem: an error, or with --lenient a warning.
func (l *fileLoader) problem(path string, line int, msg string) error {
	fe := &FileError{Path: path, Line: line, Msg: msg, Strict: true}
	if !l.lenient {
		return fe
	}
	l.snap.LoadWarnings = append(l.snap.LoadWarnings, fe.Error())
	return nil
}

// ignoredSummary: "2 v1 Secret, 1 security.istio.io/v1 AuthorizationPolicy".
func ignoredSummary(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%d %s", m[k], k))
	}
	return strings.Join(parts, ", ")
}

// IgnoredSummary lists the ignored kinds of a snapshot loaded from files ("" when none).
func IgnoredSummary(snap *snapshot.Snapshot) string { return ignoredSummary(snap.Ignored) }

func (l *fileLoader) loadPath(p string, stdin io.Reader) error {
	if p == "-" {
		if stdin == nil {
			return &FileError{Path: StdinName, Msg: "no standard input available"}
		}
		data, err := l.readCapped(StdinName, stdin)
		if err != nil {
			return err
		}
		return l.loadData(StdinName, data)
	}
	info, err := os.Stat(p)
	if err != nil {
		return openError(p, err)
	}
	if !info.IsDir() {
		return l.loadFile(p)
	}
	root := p
	if li, err := os.Lstat(p); err == nil && li.Mode()&fs.ModeSymlink != 0 {
		// WalkDir does not follow a symbolic link given as its root, but does follow "link/.";
		// the files below are still named "link/name" (WalkDir joins with filepath.Join).
		root = p + string(filepath.Separator) + "."
	}
	return filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return openError(path, err)
		}
		if d.IsDir() || !manifestExts[strings.ToLower(filepath.Ext(path))] {
			return nil
		}
		if !d.Type().IsRegular() {
			// a named pipe, socket or device in a manifest directory: opening a pipe waits for
			// a writer forever (blind audit 108 P21, a CI gate that hung); a link is followed
			info, err := os.Stat(path)
			if err != nil {
				return openError(path, err)
			}
			if info.IsDir() {
				return nil
			}
			if !info.Mode().IsRegular() {
				return l.problem(path, 0, "not a regular file (a named pipe, socket or device is not read from a directory; name it with -f to read it)")
			}
		}
		return l.loadFile(path)
	})
}

// openError turns an os error into a short "open path: reason" *fs.PathError.
func openError(path string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return &fs.PathError{Op: "open", Path: path, Err: pe.Err}
	}
	return &fs.PathError{Op: "open", Path: path, Err: err}
}

func (l *fileLoader) loadFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return openError(path, err)
	}
	defer f.Close()
	data, err := l.readCapped(path, f)
	if err != nil {
		return err
	}
	return l.loadData(path, data)
}

// readCapped reads r whole, up to the input cap: a larger input (or an endless one, /dev/zero)
// is an error after reading one byte more than the cap.
func (l *fileLoader) readCapped(name string, r io.Reader) ([]byte, error) {
	return readCapped(name, r, l.maxBytes)
}

func readCapped(name string, r io.Reader, maxBytes int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxBytes+1))
	if err != nil {
		return nil, &FileError{Path: name, Msg: "cannot read: " + oneLine(err.Error())}
	}
	if int64(len(data)) > maxBytes {
		return nil, &FileError{Path: name, Msg: "larger than " + sizeString(maxBytes) + " (--max-input-size)"}
	}
	return data, nil
}

// ReadFileCapped reads a file the user named (a saved config dump, a suppressions file) whole,
// up to maxBytes (--max-input-size; 0: DefaultMaxBytes): a larger or endless input (/dev/zero)
// is a one-line error after reading one byte more than the cap, never read to the end.
func ReadFileCapped(path string, maxBytes int64) ([]byte, error) {
	if maxBytes <= 0 {
		maxBytes = DefaultMaxBytes
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, openError(path, err)
	}
	defer f.Close()
	return readCapped(path, f, maxBytes)
}

// document is one "---"-separated part of a file. firstLine is the 1-based file line of
// text's first line.
type document struct {
	text      []byte
	firstLine int
}

// splitDocuments splits YAML on lines that are exactly "---" (trailing blanks or a trailing
// comment allowed). A leading byte-order mark is dropped.
func splitDocuments(data []byte) []document {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	var docs []document
	start, startLine, line := 0, 1, 1
	for pos := 0; pos <= len(data); {
		end := bytes.IndexByte(data[pos:], '\n')
		next := len(data) + 1
		if end >= 0 {
			end += pos
			next = end + 1
		} else {
			end = len(data)
		}
		if isSeparator(data[pos:end]) {
			docs = append(docs, document{text: data[start:pos], firstLine: startLine})
			start, startLine = min(next, len(data)), line+1
		}
		pos = next
		line++
	}
	docs = append(docs, document{text: data[start:], firstLine: startLine})
	return docs
}

// isSeparator reports whether line is a document separator: "---", optionally followed by
// blanks and a comment.
func isSeparator(line []byte) bool {
	rest, ok := strings.CutPrefix(strings.TrimRight(string(line), " \t\r"), "---")
	if !ok {
		return false
	}
	if rest == "" {
		return true
	}
	comment := strings.TrimLeft(rest, " \t")
	return len(comment) < len(rest) && strings.HasPrefix(comment, "#")
}

// contentStart returns the offset of the first byte of text that is not blank or part of a
// comment line, and how many lines precede it. ok is false when there is no content.
func contentStart(text []byte) (offset, linesBefore int, ok bool) {
	for offset < len(text) {
		end := bytes.IndexByte(text[offset:], '\n')
		lineEnd := len(text)
		if end >= 0 {
			lineEnd = offset + end
		}
		trimmed := bytes.TrimSpace(text[offset:lineEnd])
		if len(trimmed) > 0 && trimmed[0] != '#' {
			indent := bytes.IndexFunc(text[offset:lineEnd], func(r rune) bool { return r != ' ' && r != '\t' && r != '\r' })
			return offset + indent, linesBefore, true
		}
		if end < 0 {
			break
		}
		offset = lineEnd + 1
		linesBefore++
	}
	return 0, 0, false
}

func (l *fileLoader) loadData(path string, data []byte) error {
	convert := yaml.YAMLToJSONStrict // a key given twice is an error (kubectl rejects it too)
	if l.lenient {
		convert = yaml.YAMLToJSON
	}
	docs := splitDocuments(data)
	converted := convertDocuments(docs, convert)
	for i, doc := range docs {
		off, before, ok := contentStart(doc.text)
		if !ok {
			continue
		}
		line := doc.firstLine + before
		if c := doc.text[off]; c == '{' || c == '[' {
			// JSON (one or more values). Outside *.json files, a document that is not valid
			// JSON from its first value on may still be YAML flow style ({a: b}): YAML decides.
			loaded, err := l.loadJSON(path, doc.text[off:], line)
			if err == nil {
				continue
			}
			if loaded > 0 || strings.EqualFold(filepath.Ext(path), ".json") {
				return err
			}
		}
		js, err := converted[i].js, converted[i].err
		if !converted[i].done {
			js, err = convert(doc.text)
		}
		if err != nil {
			errLine, msg := yamlErrorLine(err, doc.firstLine, line)
			return &FileError{Path: path, Line: errLine, Msg: msg}
		}
		l.doc, l.docLine = doc.text, doc.firstLine
		err = l.loadObject(path, line, js, "", "")
		l.doc = nil
		if err != nil {
			return err
		}
	}
	return nil
}

// convertedDoc is one YAML document converted to JSON ahead of loading (done), or not (a JSON
// document, or an empty one).
type convertedDoc struct {
	js   []byte
	err  error
	done bool
}

// convertDocuments converts the YAML documents to JSON on one worker per CPU (the conversion is
// most of the cost of reading a large file); the documents are then loaded in order, so the
// first error reported is the same.
func convertDocuments(docs []document, convert func([]byte) ([]byte, error)) []convertedDoc {
	out := make([]convertedDoc, len(docs))
	one := func(i int) {
		off, _, ok := contentStart(docs[i].text)
		if !ok || docs[i].text[off] == '{' || docs[i].text[off] == '[' {
			return
		}
		js, err := convert(docs[i].text)
		out[i] = convertedDoc{js: js, err: err, done: true}
	}
	if len(docs) < 128 {
		return out // small inputs: converted as they are loaded
	}
	parallel.Each(len(docs), 0, one)
	return out
}

// loadJSON reads one or more concatenated JSON values starting at file line firstLine. loaded
// is how many values were read before an error.
func (l *fileLoader) loadJSON(path string, text []byte, firstLine int) (loaded int, err error) {
	dec := json.NewDecoder(bytes.NewReader(text))
	for ; ; loaded++ {
		startOff := int(dec.InputOffset())
		var raw json.RawMessage
		err := dec.Decode(&raw)
		if err == io.EOF {
			return loaded, nil
		}
		if err != nil {
			off := startOff
			var se *json.SyntaxError
			if errors.As(err, &se) {
				off = int(se.Offset)
			} else if errors.Is(err, io.ErrUnexpectedEOF) {
				off = len(text)
			}
			off = min(max(off, 0), len(text))
			return loaded, &FileError{Path: path, Line: firstLine + bytes.Count(text[:off], []byte("\n")), Msg: "invalid JSON: " + oneLine(strings.TrimPrefix(err.Error(), "json: "))}
		}
		// Point at the line where this value starts, not where the previous one ended.
		valueStart := startOff + len(text[startOff:]) - len(bytes.TrimLeft(text[startOff:], " \t\r\n"))
		line := firstLine + bytes.Count(text[:valueStart], []byte("\n"))
		if err := l.loadObject(path, line, raw, "", ""); err != nil {
			// A decoding error of a well-formed value is final: no YAML fallback.
			return loaded + 1, err
		}
	}
}

var yamlLineRE = regexp.MustCompile(`line (\d+):\s*(?:column \d+:\s*)?`)

// yamlParserProblems are the messages of go.yaml.in/yaml/v2 parser (not scanner) errors. The
// library reports those with a 0-based line (and none at all on the first line), while scanner
// and unmarshal errors carry a 1-based line.
var yamlParserProblems = []string{
	"did not find expected ',' or ']'",
	"did not find expected ',' or '}'",
	"did not find expected '-' indicator",
	"did not find expected <document start>",
	"did not find expected <stream-start>",
	"did not find expected key",
	"did not find expected node content",
	"found undefined tag handle",
	"found duplicate %TAG directive",
	"found duplicate %YAML directive",
	"found incompatible YAML document",
}

// yamlErrorLine maps a YAML library error for a document whose text starts on file line
// docFirstLine to a file line and a short message without the library's prefixes. When the
// error names no line, contentLine (the document's first non-comment line) is used, except for
// parser errors, where no line means the document's first line.
func yamlErrorLine(err error, docFirstLine, contentLine int) (int, string) {
	msg := oneLine(err.Error())
	msg = strings.TrimPrefix(msg, "error converting YAML to JSON: ")
	msg = strings.TrimPrefix(msg, "yaml: ")
	msg = strings.TrimPrefix(msg, "unmarshal errors: ")
	line, zeroBased := 0, false
	if loc := yamlLineRE.FindStringSubmatchIndex(msg); loc != nil {
		if n, convErr := strconv.Atoi(msg[loc[2]:loc[3]]); convErr == nil {
			line = n
			msg = strings.TrimSpace(msg[:loc[0]] + msg[loc[1]:])
		}
	}
	for _, p := range yamlParserProblems {
		if strings.HasPrefix(msg, p) {
			zeroBased = true
			break
		}
	}
	switch {
	case zeroBased:
		line = docFirstLine + line
	case line > 0:
		line = docFirstLine + line - 1
	default:
		line = contentLine
	}
	return line, "invalid YAML: " + msg
}

// objectHead is the part of an object read before choosing its Go type.
type objectHead struct {
	APIVersion string
	Kind       string
}

// readHead returns apiVersion and kind of a JSON object; ok is false when js is not an object
// or either field is missing or not a string.
func readHead(js []byte) (objectHead, map[string]json.RawMessage, bool) {
	trimmed := bytes.TrimSpace(js)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return objectHead{}, nil, false
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(trimmed, &fields); err != nil {
		return objectHead{}, nil, false
	}
	var h objectHead
	if raw, ok := fields["apiVersion"]; ok {
		_ = json.Unmarshal(raw, &h.APIVersion)
	}
	if raw, ok := fields["kind"]; ok {
		_ = json.Unmarshal(raw, &h.Kind)
	}
	return h, fields, true
}

// loadObject dispatches one JSON object. defaultAPIVersion/defaultKind are used for the items of
// a typed *List, which may omit them.
func (l *fileLoader) loadObject(path string, line int, js []byte, defaultAPIVersion, defaultKind string) error {
	head, fields, ok := readHead(js)
	if !ok {
		return &FileError{Path: path, Line: line, Msg: "not a Kubernetes object (want a mapping with apiVersion and kind)"}
	}
	if head.APIVersion == "" {
		head.APIVersion = defaultAPIVersion
	}
	if head.Kind == "" {
		head.Kind = defaultKind
	}
	if head.APIVersion == "" || head.Kind == "" {
		// A mapping that looks like an object (apiVersion, kind, metadata or spec) must be one;
		// other mappings (comments-only documents, values files) are skipped.
		if head.APIVersion != "" || head.Kind != "" || fields["metadata"] != nil || fields["spec"] != nil {
			return &FileError{Path: path, Line: line, Msg: "object has no apiVersion or kind"}
		}
		if len(fields) > 0 {
			l.snap.Ignored["YAML documents that are not Kubernetes objects"]++
		}
		return nil
	}
	if head.Kind == "List" || (strings.HasSuffix(head.Kind, "List") && fields["items"] != nil) {
		return l.loadList(path, line, head, fields["items"])
	}
	l.objects++
	var meta struct {
		Name string `json:"name"`
	}
	if raw := fields["metadata"]; raw != nil {
		_ = json.Unmarshal(raw, &meta)
	}
	if meta.Name == "" {
		var raw struct {
			Name any `json:"name"`
		}
		if m := fields["metadata"]; m != nil && json.Unmarshal(m, &raw) == nil && raw.Name != nil {
			// YAML 1.1 reads unquoted y, n, yes, no, on, off, true, false and numbers as
			// non-strings (kubectl rejects them too).
			return &FileError{Path: path, Line: line, Msg: fmt.Sprintf("%s metadata.name is not a string (%v): quote it", head.Kind, raw.Name)}
		}
		return &FileError{Path: path, Line: line, Msg: head.Kind + " has no metadata.name"}
	}
	gv, err := schema.ParseGroupVersion(head.APIVersion)
	if err != nil {
		return l.problem(path, line, fmt.Sprintf("apiVersion %q of %s %s is not GROUP/VERSION", head.APIVersion, head.Kind, meta.Name))
	}
	if msg := checkKind(gv, head.Kind); msg != "" {
		return l.problem(path, line, fmt.Sprintf("%s %s: %s", head.Kind, meta.Name, msg))
	}
	if gv.Group == "apiextensions.k8s.io" && head.Kind == "CustomResourceDefinition" && strings.HasSuffix(meta.Name, "."+snapshot.GatewayAPIGroup) {
		// which Gateway API release the CRD comes from: istiod ignores route kinds whose CRD is
		// older than it supports (rules.KubeCRDIgnored)
		var crd struct {
			Metadata struct {
				Annotations map[string]string `json:"annotations"`
			} `json:"metadata"`
			Spec struct {
				Names struct {
					Kind string `json:"kind"`
				} `json:"names"`
			} `json:"spec"`
		}
		if err := json.Unmarshal(js, &crd); err != nil || crd.Spec.Names.Kind == "" {
			return l.problem(path, line, fmt.Sprintf("CustomResourceDefinition %s: no spec.names.kind", meta.Name))
		}
		v, ok := crd.Metadata.Annotations[rules.AnnotationBundleVersion]
		if l.snap.GatewayAPICRDs == nil {
			l.snap.GatewayAPICRDs = map[string]snapshot.GatewayAPICRD{}
		}
		l.snap.GatewayAPICRDs[crd.Spec.Names.Kind] = snapshot.GatewayAPICRD{Name: meta.Name, Version: v, Annotated: ok}
		return nil
	}
	if gv.Group == "" && gv.Version == "v1" && head.Kind == "Secret" {
		// Its name only, never its data: whether a gateway finds the credentialName its
		// server or DestinationRule names (checks.credentialCheck). Manifests holding Secrets
		// are taken as all the Secrets there are, as for the other kinds.
		ns := l.defaultNamespace
		var m struct {
			Namespace string `json:"namespace"`
		}
		if raw := fields["metadata"]; raw != nil && json.Unmarshal(raw, &m) == nil && m.Namespace != "" {
			ns = m.Namespace
		}
		l.snap.AddSecret(ns, meta.Name)
		l.snap.SecretNamespaces = map[string]bool{"": true}
		return nil
	}
	if gv.Group == "security.istio.io" && head.Kind == "PeerAuthentication" {
		// Only what decides auto mTLS: a namespace-wide policy's (no selector) mTLS mode
		// (checks' auto mTLS, push_context.go BestEffortInferServiceMTLSMode).
		ns := l.defaultNamespace
		var pa struct {
			Metadata struct {
				Namespace         string    `json:"namespace"`
				CreationTimestamp time.Time `json:"creationTimestamp"`
			} `json:"metadata"`
			Spec struct {
				Selector *struct {
					MatchLabels map[string]string `json:"matchLabels"`
				} `json:"selector"`
				MTLS *struct {
					Mode string `json:"mode"`
				} `json:"mtls"`
			} `json:"spec"`
		}
		if json.Unmarshal(js, &pa) != nil {
			return nil
		}
		if pa.Metadata.Namespace != "" {
			ns = pa.Metadata.Namespace
		}
		if pa.Spec.Selector == nil || len(pa.Spec.Selector.MatchLabels) == 0 {
			mode := ""
			if pa.Spec.MTLS != nil {
				mode = pa.Spec.MTLS.Mode
			}
			l.snap.AddPeerAuthentication(ns, meta.Name, mode, pa.Metadata.CreationTimestamp)
		}
		return nil
	}
	if !readsKind(gv, head.Kind) {
		l.snap.Ignored[head.APIVersion+" "+head.Kind]++
		return nil
	}
	l.at = fmt.Sprintf("%s:%d", path, line)
	fail := func(err error) error {
		return &FileError{Path: path, Line: l.fieldLine(err.Error(), line), Msg: fmt.Sprintf("cannot decode %s %s: %s", head.APIVersion, head.Kind, oneLine(strings.TrimPrefix(err.Error(), "json: ")))}
	}
	strict := func(obj any, spec proto.Message) error {
		if u := strictDecode(js, obj, spec); u != "" {
			return l.problem(path, l.fieldLine(u, line), fmt.Sprintf("%s %s: %s", head.Kind, meta.Name, u))
		}
		return nil
	}
	switch {
	case gv.Group == snapshot.GatewayAPIGroup:
		// Not modelled yet: the fields are checked against the Gateway API's own types, and the
		// parts that say which hosts these objects route are kept, so verdicts about those hosts
		// can say that they rest on configuration the tool does not model.
		if typed, err := gwscheme.Scheme.New(gv.WithKind(head.Kind)); err == nil {
			if err := strict(typed, nil); err != nil {
				return err
			}
		}
		if head.Kind == "GatewayClass" {
			// which controller serves a class (rules.KubeGatewayIstioClass); it routes nothing
			gc, err := decodeAs[gatewayv1.GatewayClass](js)
			if err != nil {
				return fail(err)
			}
			l.prepare(&gc.ObjectMeta, false)
			return put(l, &l.snap.GatewayClasses, head.Kind, &gc.ObjectMeta, gc)
		}
		if head.Kind == "ReferenceGrant" {
			// lets routes name backends in another namespace (rules.ConvertHTTPRoutes)
			rg, err := decodeAs[gatewayv1beta1.ReferenceGrant](js)
			if err != nil {
				return fail(err)
			}
			l.prepare(&rg.ObjectMeta, true)
			return put(l, &l.snap.ReferenceGrants, head.Kind, &rg.ObjectMeta, rg)
		}
		obj, err := snapshot.ParseGatewayAPIObject(head.Kind, js, l.defaultNamespace)
		if err != nil {
			return fail(err)
		}
		if head.Kind == "Gateway" {
			gw, err := decodeAs[gatewayv1.Gateway](js)
			if err != nil {
				return fail(err)
			}
			l.prepare(&gw.ObjectMeta, true)
			l.snap.KubeGateways = append(l.snap.KubeGateways, gw)
		}
		if head.Kind == "HTTPRoute" {
			r, err := decodeAs[gatewayv1.HTTPRoute](js)
			if err != nil {
				return fail(err)
			}
			l.prepare(&r.ObjectMeta, true)
			l.snap.HTTPRoutes = append(l.snap.HTTPRoutes, r)
		}
		if head.Kind == "GRPCRoute" {
			r, err := decodeAs[gatewayv1.GRPCRoute](js)
			if err != nil {
				return fail(err)
			}
			l.prepare(&r.ObjectMeta, true)
			l.snap.GRPCRoutes = append(l.snap.GRPCRoutes, r)
		}
		if head.Kind == "TLSRoute" {
			// v1alpha2 and v1 have the same fields istiod reads
			r, err := decodeAs[gatewayv1.TLSRoute](js)
			if err != nil {
				return fail(err)
			}
			l.prepare(&r.ObjectMeta, true)
			l.snap.TLSRoutes = append(l.snap.TLSRoutes, r)
		}
		if head.Kind == "TCPRoute" {
			r, err := decodeAs[gatewayv1.TCPRoute](js)
			if err != nil {
				return fail(err)
			}
			l.prepare(&r.ObjectMeta, true)
			l.snap.TCPRoutes = append(l.snap.TCPRoutes, r)
		}
		if err := l.full(path, line); err != nil {
			return err
		}
		l.snap.GatewayAPI = append(l.snap.GatewayAPI, obj)
		// where it is, for the findings that name it (an Istio Gateway of the same name keeps
		// its place)
		if key := head.Kind + "/" + obj.Namespace + "/" + obj.Name; l.where[key] == "" {
			l.where[key] = l.at
		}
	case gv.Group == "" && gv.Version == "v1":
		switch head.Kind {
		case snapshot.KindNamespace:
			if err := strict(new(corev1.Namespace), nil); err != nil {
				return err
			}
			obj, err := decodeAs[corev1.Namespace](js)
			if err != nil {
				return fail(err)
			}
			l.prepare(&obj.ObjectMeta, false)
			if err := put(l, &l.snap.Namespaces, head.Kind, &obj.ObjectMeta, obj); err != nil {
				return err
			}
		case snapshot.KindService:
			if err := strict(new(corev1.Service), nil); err != nil {
				return err
			}
			obj, err := decodeAs[corev1.Service](js)
			if err != nil {
				return fail(err)
			}
			defaultServicePorts(obj)
			l.prepare(&obj.ObjectMeta, true)
			if err := put(l, &l.snap.Services, head.Kind, &obj.ObjectMeta, obj); err != nil {
				return err
			}
		case snapshot.KindPod:
			if err := strict(new(corev1.Pod), nil); err != nil {
				return err
			}
			obj, err := decodeAs[corev1.Pod](js)
			if err != nil {
				return fail(err)
			}
			l.prepare(&obj.ObjectMeta, true)
			if err := put(l, &l.snap.Pods, head.Kind, &obj.ObjectMeta, obj); err != nil {
				return err
			}
		case snapshot.KindConfigMap:
			if err := strict(new(corev1.ConfigMap), nil); err != nil {
				return err
			}
			obj, err := decodeAs[corev1.ConfigMap](js)
			if err != nil {
				return fail(err)
			}
			l.prepare(&obj.ObjectMeta, true)
			if obj.Namespace != l.snap.IstioNamespace {
				return nil
			}
			keepConfigMapData(l.snap, obj)
			rev, src, ok, err := meshConfigFromConfigMap(obj)
			if err != nil {
				return &FileError{Path: path, Line: line, Msg: fmt.Sprintf("ConfigMap %s/%s: %s", obj.Namespace, obj.Name, err)}
			}
			if ok {
				l.snap.MeshConfigs[rev] = src
				if u := meshUnknownField(obj.Data[meshKey]); u != "" {
					if err := l.problem(path, line, meshUnknownProblem(obj, u)); err != nil {
						return err
					}
				}
			}
		}
	case gv.Group == "apps" && gv.Version == "v1" && head.Kind == snapshot.KindDeployment:
		if err := strict(new(appsv1.Deployment), nil); err != nil {
			return err
		}
		obj, err := decodeAs[appsv1.Deployment](js)
		if err != nil {
			return fail(err)
		}
		l.prepare(&obj.ObjectMeta, true)
		if err := put(l, &l.snap.Deployments, head.Kind, &obj.ObjectMeta, obj); err != nil {
			return err
		}
	case gv.Group == "networking.istio.io" && (gv.Version == "v1" || gv.Version == "v1beta1" || gv.Version == "v1alpha3"):
		return l.loadIstio(head, gv.Version, js, fail, strict)
	}
	return nil
}

func (l *fileLoader) loadIstio(head objectHead, version string, js []byte, fail func(error) error, strict func(any, proto.Message) error) error {
	switch head.Kind {
	case snapshot.KindServiceEntry:
		if err := strict(nil, &networkingapi.ServiceEntry{}); err != nil {
			return err
		}
		obj, err := decodeIstio(js, newServiceEntry)
		if err != nil {
			return fail(err)
		}
		l.prepare(&obj.ObjectMeta, true)
		if err := put(l, &l.snap.ServiceEntries, head.Kind, &obj.ObjectMeta, obj); err != nil {
			return err
		}
	case snapshot.KindVirtualService:
		if err := strict(nil, &networkingapi.VirtualService{}); err != nil {
			return err
		}
		obj, err := decodeIstio(js, newVirtualService)
		if err != nil {
			return fail(err)
		}
		l.prepare(&obj.ObjectMeta, true)
		if err := put(l, &l.snap.VirtualServices, head.Kind, &obj.ObjectMeta, obj); err != nil {
			return err
		}
	case snapshot.KindDestinationRule:
		if err := strict(nil, &networkingapi.DestinationRule{}); err != nil {
			return err
		}
		obj, err := decodeIstio(js, newDestinationRule)
		if err != nil {
			return fail(err)
		}
		l.prepare(&obj.ObjectMeta, true)
		if err := put(l, &l.snap.DestinationRules, head.Kind, &obj.ObjectMeta, obj); err != nil {
			return err
		}
	case snapshot.KindGateway:
		if err := strict(nil, &networkingapi.Gateway{}); err != nil {
			return err
		}
		obj, err := decodeIstio(js, newGateway)
		if err != nil {
			return fail(err)
		}
		l.prepare(&obj.ObjectMeta, true)
		if err := put(l, &l.snap.Gateways, head.Kind, &obj.ObjectMeta, obj); err != nil {
			return err
		}
	case snapshot.KindSidecar:
		if err := strict(nil, &networkingapi.Sidecar{}); err != nil {
			return err
		}
		obj, err := decodeIstio(js, newSidecar)
		if err != nil {
			return fail(err)
		}
		l.prepare(&obj.ObjectMeta, true)
		if err := put(l, &l.snap.Sidecars, head.Kind, &obj.ObjectMeta, obj); err != nil {
			return err
		}
	case snapshot.KindWorkloadEntry:
		if err := strict(nil, &networkingapi.WorkloadEntry{}); err != nil {
			return err
		}
		obj, err := decodeIstio(js, newWorkloadEntry)
		if err != nil {
			return fail(err)
		}
		l.prepare(&obj.ObjectMeta, true)
		if err := put(l, &l.snap.WorkloadEntries, head.Kind, &obj.ObjectMeta, obj); err != nil {
			return err
		}
	case snapshot.KindEnvoyFilter:
		if version != "v1alpha3" {
			return nil
		}
		if err := strict(nil, &networkingapi.EnvoyFilter{}); err != nil {
			return err
		}
		obj, err := decodeAs[networkingv1alpha3.EnvoyFilter](js)
		if err != nil {
			return fail(err)
		}
		l.prepare(&obj.ObjectMeta, true)
		if err := put(l, &l.snap.EnvoyFilters, head.Kind, &obj.ObjectMeta, obj); err != nil {
			return err
		}
	}
	return nil
}

// loadList loads the items of a List document; all items are reported at the list's line.
func (l *fileLoader) loadList(path string, line int, head objectHead, items json.RawMessage) error {
	if items == nil || bytes.Equal(bytes.TrimSpace(items), []byte("null")) {
		return nil
	}
	var list []json.RawMessage
	if err := json.Unmarshal(items, &list); err != nil {
		return &FileError{Path: path, Line: line, Msg: head.Kind + ": items must be a list"}
	}
	itemKind := ""
	if head.Kind != "List" {
		itemKind = strings.TrimSuffix(head.Kind, "List")
	}
	itemAPIVersion := ""
	if itemKind != "" {
		itemAPIVersion = head.APIVersion
	}
	for _, item := range list {
		if err := l.loadObject(path, line, item, itemAPIVersion, itemKind); err != nil {
			return err
		}
	}
	return nil
}

// decodeAs decodes a JSON object into a new T. The Istio spec types decode themselves with
// jsonpb (unknown fields allowed).
func decodeAs[T any](js []byte) (*T, error) {
	obj := new(T)
	if err := json.Unmarshal(js, obj); err != nil {
		return nil, err
	}
	return obj, nil
}

// decodeIstio decodes one networking.istio.io object of a manifest the way the live load decodes
// the objects of a LIST page (decodePage): the envelope with encoding/json, managedFields
// skipped, the spec and status with protojson, and what protojson refuses with the message's own
// jsonpb decoding (as decodeAs would). The objects are the same (TestDecodeIstioLikeDecodeAs);
// protojson parses a spec once where jsonpb parses it three times.
func decodeIstio[T any](js []byte, newObj newIstioObject[T]) (*T, error) {
	var w wireObject
	if err := json.Unmarshal(js, &w); err != nil {
		return nil, err
	}
	obj, spec, status := newObj(w.TypeMeta, w.Metadata.ObjectMeta)
	if err := decodeMessage(w.Spec, spec); err != nil {
		if p := specTypeProblem(w.Spec, spec.ProtoReflect().Descriptor()); p != "" {
			return nil, errors.New(p) // the field, where it is and what it should be
		}
		return nil, err
	}
	if err := decodeMessage(w.Status, status); err != nil {
		return nil, err
	}
	return obj, nil
}

// prepare fills the namespace ("default" for namespaced kinds) and the creation time.
func (l *fileLoader) prepare(m *metav1.ObjectMeta, namespaced bool) {
	if namespaced && m.Namespace == "" {
		m.Namespace = l.defaultNamespace
	}
	if !namespaced {
		m.Namespace = ""
	}
	if m.CreationTimestamp.IsZero() {
		m.CreationTimestamp = metav1.NewTime(baseCreationTime.Add(time.Duration(l.seq) * time.Second))
	}
	l.seq++
}

// full is the error for one object more than Options.MaxObjects (nil while there is room); the
// objects are those put in a list and the Gateway API objects.
func (l *fileLoader) full(path string, line int) error {
	if len(l.index)+len(l.snap.GatewayAPI) >= l.maxObjects {
		return &FileError{Path: path, Line: line, Msg: "the input holds " + errTooManyObjects{l.maxObjects}.Error()}
	}
	return nil
}

// put appends obj to *list, or replaces an earlier object of the same kind, namespace and name.
//
// In strict mode a second definition is an error (put returns it), with --lenient a warning.
func put[T any](l *fileLoader, list *[]T, kind string, m *metav1.ObjectMeta, obj T) error {
	key := kind + "/" + m.Namespace + "/" + m.Name
	if i, ok := l.index[key]; ok && i < len(*list) {
		name := m.Name
		if m.Namespace != "" {
			name = m.Namespace + "/" + m.Name
		}
		path, line := splitAt(l.at)
		if err := l.problem(path, line, fmt.Sprintf("%s %s is defined twice (first at %s); the later one would replace it", kind, name, l.where[key])); err != nil {
			return err
		}
		(*list)[i] = obj
		l.where[key] = l.at
		return nil
	}
	if err := l.full(splitAt(l.at)); err != nil {
		return err
	}
	l.index[key] = len(*list)
	l.where[key] = l.at
	*list = append(*list, obj)
	return nil
}

// splitAt splits "path:line".
func splitAt(at string) (string, int) {
	i := strings.LastIndex(at, ":")
	if i < 0 {
		return at, 0
	}
	n, _ := strconv.Atoi(at[i+1:])
	return at[:i], n
}

// Labels of the synthetic egress gateway workload.
var syntheticGatewayLabels = map[string]string{"app": "istio-egressgateway", "istio": "egressgateway"}

// addSyntheticGateway adds an `istio: egressgateway` Deployment in the Istio namespace when the
// snapshot has no workload a gateway could run on (see FromFiles).
func addSyntheticGateway(snap *snapshot.Snapshot) {
	if len(snap.Gateways) == 0 {
		for _, gw := range snap.KubeGateways {
			if gw != nil && rules.KubeGatewayIstioClass(string(gw.Spec.GatewayClassName), snap.GatewayClasses) {
				return // the egress gateway is a Gateway API Gateway (addSyntheticKubeGateways)
			}
		}
	}
	var workloadLabels []map[string]string
	for _, d := range snap.Deployments {
		if d == nil {
			continue
		}
		workloadLabels = append(workloadLabels, d.Labels, d.Spec.Template.Labels)
	}
	for _, p := range snap.Pods {
		if p == nil {
			continue
		}
		workloadLabels = append(workloadLabels, p.Labels)
	}
	for _, labels := range workloadLabels {
		if labels["istio"] == "egressgateway" {
			return
		}
	}
	// A workload shaped like a gateway (ROUTER) proxy, whatever its labels (the gateway Helm
	// chart labels its pods istio=<release name>): the input has its gateway; assuming another
	// would invent a proxy nobody runs.
	for _, d := range snap.Deployments {
		if d != nil && rules.IsRouterPod(d.Spec.Template.Labels, d.Spec.Template.Annotations, d.Spec.Template.Spec) {
			return
		}
	}
	for _, p := range snap.Pods {
		if p != nil && rules.IsRouterPod(p.Labels, p.Annotations, p.Spec) {
			return
		}
	}
	for _, gw := range snap.Gateways {
		if gw == nil || len(gw.Spec.GetSelector()) == 0 {
			continue
		}
		for _, d := range snap.Deployments {
			if d != nil && isSubset(gw.Spec.GetSelector(), d.Spec.Template.Labels) {
				return
			}
		}
		for _, p := range snap.Pods {
			if p != nil && isSubset(gw.Spec.GetSelector(), p.Labels) {
				return
			}
		}
	}
	labels := func() map[string]string {
		m := make(map[string]string, len(syntheticGatewayLabels))
		for k, v := range syntheticGatewayLabels {
			m[k] = v
		}
		return m
	}
	replicas := int32(1)
	snap.Deployments = append(snap.Deployments, &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{
			Name:              "istio-egressgateway",
			Namespace:         snap.IstioNamespace,
			Labels:            labels(),
			CreationTimestamp: metav1.NewTime(baseCreationTime),
		},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: labels()},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels()},
			},
		},
	})
	snap.Assumptions.SyntheticGateway = true
}

// isSubset reports whether every key/value of sel is in labels.
func isSubset(sel, labels map[string]string) bool {
	for k, v := range sel {
		if got, ok := labels[k]; !ok || got != v {
			return false
		}
	}
	return true
}

// readsKind: the kinds FromFiles loads (see its documentation); everything else is ignored.
func readsKind(gv schema.GroupVersion, kind string) bool {
	switch {
	case gv.Group == "" && gv.Version == "v1":
		return kind == snapshot.KindNamespace || kind == snapshot.KindService || kind == snapshot.KindPod || kind == snapshot.KindConfigMap
	case gv.Group == "apps" && gv.Version == "v1":
		return kind == snapshot.KindDeployment
	case gv.Group == snapshot.GatewayAPIGroup:
		return slices.Contains(snapshot.GatewayAPIKinds, kind) || kind == "GatewayClass" || kind == "ReferenceGrant"
	case gv.Group == "networking.istio.io" && (gv.Version == "v1" || gv.Version == "v1beta1" || gv.Version == "v1alpha3"):
		switch kind {
		case snapshot.KindServiceEntry, snapshot.KindVirtualService, snapshot.KindDestinationRule, snapshot.KindGateway, snapshot.KindSidecar, snapshot.KindWorkloadEntry:
			return true
		case snapshot.KindEnvoyFilter:
			return gv.Version == "v1alpha3"
		}
	}
	return false
}

// sizeString: "128 MiB", or "2048 bytes" below a MiB.
func sizeString(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// defaultServicePorts applies what the API server defaults on a Service port when a manifest
// leaves it out (k8s.io/kubernetes pkg/apis/core/v1 SetDefaults_Service): targetPort is the
// port, protocol TCP. A live Service already has them; a manifest read offline is judged as the
// API server would store it.
func defaultServicePorts(svc *corev1.Service) {
	for i := range svc.Spec.Ports {
		p := &svc.Spec.Ports[i]
		if p.TargetPort.IntVal == 0 && p.TargetPort.StrVal == "" {
			p.TargetPort = intstr.FromInt32(p.Port)
		}
		if p.Protocol == "" {
			p.Protocol = corev1.ProtocolTCP
		}
	}
}
