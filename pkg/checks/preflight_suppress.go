package checks

import (
	"fmt"
	"regexp"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-egress/kubectl-egress/pkg/snapshot"
)

// SuppressAnnotation is the resource annotation that suppresses findings about the resource:
// a comma-separated list of "CODE" or "CODE: reason", CODE an EGR id or a string code (or "*"
// for every finding about the resource).
const SuppressAnnotation = "egress.kubectl-egress.io/suppress"

// Suppression origins.
const (
	SuppressedByAnnotation = "annotation"
	SuppressedByFlag       = "flag"
	SuppressedByFile       = "file"
)

// Suppression silences the findings whose ID or code matches Code and whose resource
// ("Kind namespace/name", ResourceRef.String) matches Resource. Both are globs: "*" matches any
// run of characters (including "/"), "?" one character; code matching ignores case.
type Suppression struct {
	Code     string
	Resource string
	Reason   string
	// Origin is annotation, flag or file; Where names it: the annotated resource, the -S text, or
	// "FILE entry N".
	Origin string
	Where  string
	// Target is the annotated resource (annotation suppressions only); the invalid ones point
	// at it too.
	Target ResourceRef
	// Invalid explains why an annotation entry was not understood ("" when valid).
	Invalid string
}

// SuppressionRef is how a suppressed finding names the suppression that matched.
type SuppressionRef struct {
	Origin string `json:"origin"`
	Where  string `json:"where"`
	Code   string `json:"code"`
	Reason string `json:"reason,omitempty"`
}

func (s Suppression) ref() *SuppressionRef {
	return &SuppressionRef{Origin: s.Origin, Where: s.Where, Code: s.Code, Reason: s.Reason}
}

// Matches reports whether the suppression applies to f.
func (s Suppression) Matches(f PreflightFinding) bool {
	if s.Invalid != "" {
		return false
	}
	code := strings.ToUpper(s.Code)
	matches := globMatch(code, strings.ToUpper(f.ID)) || globMatch(code, strings.ToUpper(f.Code))
	for _, alias := range f.AlsoReportedAs {
		id, c, _ := strings.Cut(strings.ToUpper(alias), " ")
		matches = matches || globMatch(code, id) || globMatch(code, c)
	}
	if !matches {
		return false
	}
	return globMatch(s.Resource, f.Resource.String())
}

// globMatch matches s against pattern: "*" any run of characters, "?" one, anything else itself.
func globMatch(pattern, s string) bool {
	var b strings.Builder
	b.WriteString("^")
	for _, r := range pattern {
		switch r {
		case '*':
			b.WriteString(".*")
		case '?':
			b.WriteString(".")
		default:
			b.WriteString(regexp.QuoteMeta(string(r)))
		}
	}
	b.WriteString("$")
	re, err := regexp.Compile(b.String())
	return err == nil && re.MatchString(s)
}

var codeRE = regexp.MustCompile(`^[A-Za-z0-9_*?]+$`)

// checkCode validates a suppression code: a catalogue ID or code, or a glob ("EGR02*", "*").
func checkCode(code string) error {
	if !codeRE.MatchString(code) {
		return fmt.Errorf("code %q: want an EGR id (EGR0203) or a string code (SE_NOT_EXPORTED_TO_CLIENT_NAMESPACE), globs allowed", code)
	}
	if strings.ContainsAny(code, "*?") {
		return nil
	}
	if _, ok := LookupID(code); !ok {
		return fmt.Errorf("code %q is not in the catalogue (docs/findings.md)", code)
	}
	return nil
}

// checkResource validates a resource pattern: "*", or "Kind namespace/name" / "Kind name"
// with globs.
func checkResource(r string) error {
	if r == "*" {
		return nil
	}
	kind, rest, ok := strings.Cut(r, " ")
	if !ok || kind == "" || strings.TrimSpace(rest) == "" || strings.Contains(strings.TrimSpace(rest), " ") {
		return fmt.Errorf("resource %q: want \"Kind namespace/name\" (for example \"ServiceEntry team-a/*\") or \"*\"", r)
	}
	return nil
}

// ParseSuppressFlag parses one -S value "CODE=Kind namespace/name" (globs allowed in both; the
// resource may be "*"). Errors name the value and the expected form.
func ParseSuppressFlag(v string) (Suppression, error) {
	code, res, ok := strings.Cut(v, "=")
	code, res = strings.TrimSpace(code), strings.TrimSpace(res)
	if !ok || code == "" || res == "" {
		return Suppression{}, fmt.Errorf("-S %q: want CODE=Kind namespace/name, for example EGR0203=ServiceEntry team-a/*", v)
	}
	if err := checkCode(code); err != nil {
		return Suppression{}, fmt.Errorf("-S %q: %v", v, err)
	}
	if err := checkResource(res); err != nil {
		return Suppression{}, fmt.Errorf("-S %q: %v", v, err)
	}
	return Suppression{Code: code, Resource: res, Origin: SuppressedByFlag, Where: "-S " + v}, nil
}

// suppressionFileEntry is one item of a --suppressions file.
type suppressionFileEntry struct {
	Code     string `json:"code"`
	Resource string `json:"resource"`
	Reason   string `json:"reason"`
}

// ParseSuppressionsFile parses a --suppressions file: a YAML (or JSON) list of
// {code, resource, reason}; code and resource as for -S, reason free text. name is the file's
// path, used in Where ("FILE entry N", N 1-based) and in errors ("FILE: entry 2: ...").
// Unknown keys, a document that is not a list, and invalid entries are errors.
func ParseSuppressionsFile(name string, data []byte) ([]Suppression, error) {
	var entries []suppressionFileEntry
	if err := yaml.UnmarshalStrict(data, &entries); err != nil {
		return nil, fmt.Errorf("%s: want a YAML list of {code, resource, reason}: %s", name, oneLineMsg(err.Error()))
	}
	var out []Suppression
	for i, e := range entries {
		where := fmt.Sprintf("%s entry %d", name, i+1)
		code, res := strings.TrimSpace(e.Code), strings.TrimSpace(e.Resource)
		if code == "" || res == "" {
			return nil, fmt.Errorf("%s: entry %d: code and resource are required", name, i+1)
		}
		if err := checkCode(code); err != nil {
			return nil, fmt.Errorf("%s: entry %d: %v", name, i+1, err)
		}
		if err := checkResource(res); err != nil {
			return nil, fmt.Errorf("%s: entry %d: %v", name, i+1, err)
		}
		out = append(out, Suppression{Code: code, Resource: res, Reason: strings.TrimSpace(e.Reason), Origin: SuppressedByFile, Where: where})
	}
	return out, nil
}

func oneLineMsg(s string) string { return strings.Join(strings.Fields(s), " ") }

// ParseSuppressAnnotation parses the value of the suppress annotation on resource target: a
// comma-separated list of "CODE" or "CODE: reason". Entries that do not parse, or name a code
// the catalogue lacks, come back with Invalid set (they suppress nothing and are reported).
func ParseSuppressAnnotation(target ResourceRef, value string) []Suppression {
	var out []Suppression
	for _, item := range strings.Split(value, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		code, reason, _ := strings.Cut(item, ":")
		code, reason = strings.TrimSpace(code), strings.TrimSpace(reason)
		s := Suppression{Code: code, Resource: target.String(), Reason: reason, Origin: SuppressedByAnnotation,
			Where: fmt.Sprintf("%s annotation %s", target, SuppressAnnotation), Target: target}
		if code == "" {
			s.Invalid = fmt.Sprintf("entry %q has no code", item)
		} else if err := checkCode(code); err != nil {
			s.Invalid = err.Error()
		}
		out = append(out, s)
	}
	return out
}

// AnnotationSuppressions collects the suppress annotations of every object in the snapshot
// (Namespaces, Istio networking resources, Services, Deployments, Pods), sorted by resource.
func AnnotationSuppressions(snap *snapshot.Snapshot) []Suppression {
	var out []Suppression
	add := func(kind string, m metav1.Object) {
		v, ok := m.GetAnnotations()[SuppressAnnotation]
		if !ok {
			return
		}
		out = append(out, ParseSuppressAnnotation(ResourceRef{Kind: kind, Namespace: m.GetNamespace(), Name: m.GetName()}, v)...)
	}
	for _, o := range snap.Namespaces {
		add(snapshot.KindNamespace, o)
	}
	for _, o := range snap.ServiceEntries {
		add(snapshot.KindServiceEntry, o)
	}
	for _, o := range snap.VirtualServices {
		add(snapshot.KindVirtualService, o)
	}
	for _, o := range snap.DestinationRules {
		add(snapshot.KindDestinationRule, o)
	}
	for _, o := range snap.Gateways {
		add(snapshot.KindGateway, o)
	}
	for _, o := range snap.Sidecars {
		add(snapshot.KindSidecar, o)
	}
	for _, o := range snap.WorkloadEntries {
		add(snapshot.KindWorkloadEntry, o)
	}
	for _, o := range snap.EnvoyFilters {
		add(snapshot.KindEnvoyFilter, o)
	}
	for _, o := range snap.Services {
		add(snapshot.KindService, o)
	}
	for _, o := range snap.Deployments {
		add(snapshot.KindDeployment, o)
	}
	for _, o := range snap.Pods {
		add(snapshot.KindPod, o)
	}
	return out
}
