package printers

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"sort"
	"strings"

	"github.com/kubectl-egress/kubectl-egress/pkg/checks"
)

// SARIFSchemaURI is the $schema of the SARIF output: the OASIS SARIF 2.1.0 JSON schema
// (errata 01), the one pkg/printers/testdata/sarif-schema-2.1.0.json holds.
const SARIFSchemaURI = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"

// SARIF log objects (SARIF 2.1.0 §3); only the properties this tool fills.
type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool        sarifTool         `json:"tool"`
	Invocations []sarifInvocation `json:"invocations"`
	Results     []sarifResult     `json:"results"`
	Properties  map[string]any    `json:"properties,omitempty"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	Version        string      `json:"version,omitempty"`
	InformationURI string      `json:"informationUri,omitempty"`
	Rules          []sarifRule `json:"rules"`
}

type sarifMessage struct {
	Text     string `json:"text"`
	Markdown string `json:"markdown,omitempty"`
}

type sarifRule struct {
	ID                   string         `json:"id"`
	Name                 string         `json:"name"`
	ShortDescription     sarifMessage   `json:"shortDescription"`
	FullDescription      sarifMessage   `json:"fullDescription"`
	Help                 sarifMessage   `json:"help"`
	HelpURI              string         `json:"helpUri,omitempty"`
	DefaultConfiguration sarifConfig    `json:"defaultConfiguration"`
	Properties           map[string]any `json:"properties"`
}

type sarifConfig struct {
	Level string `json:"level"`
}

type sarifInvocation struct {
	ExecutionSuccessful bool                `json:"executionSuccessful"`
	ExitCode            int                 `json:"exitCode"`
	Notifications       []sarifNotification `json:"toolExecutionNotifications,omitempty"`
}

type sarifNotification struct {
	Level   string       `json:"level"`
	Message sarifMessage `json:"message"`
}

type sarifResult struct {
	RuleID              string             `json:"ruleId"`
	RuleIndex           int                `json:"ruleIndex"`
	Level               string             `json:"level"`
	Message             sarifMessage       `json:"message"`
	Locations           []sarifLocation    `json:"locations"`
	BaselineState       string             `json:"baselineState,omitempty"`
	Suppressions        []sarifSuppression `json:"suppressions,omitempty"`
	PartialFingerprints map[string]string  `json:"partialFingerprints"`
	Properties          map[string]any     `json:"properties"`
}

type sarifLocation struct {
	PhysicalLocation *sarifPhysicalLocation `json:"physicalLocation,omitempty"`
	LogicalLocations []sarifLogicalLocation `json:"logicalLocations"`
}

type sarifPhysicalLocation struct {
	ArtifactLocation sarifArtifactLocation `json:"artifactLocation"`
	Region           *sarifRegion          `json:"region,omitempty"`
}

type sarifArtifactLocation struct {
	URI string `json:"uri"`
}

type sarifRegion struct {
	StartLine int `json:"startLine"`
}

type sarifLogicalLocation struct {
	Name               string `json:"name"`
	FullyQualifiedName string `json:"fullyQualifiedName"`
	Kind               string `json:"kind"`
}

type sarifSuppression struct {
	Kind          string `json:"kind"`
	Status        string `json:"status"`
	Justification string `json:"justification,omitempty"`
}

// SARIFLevel maps a finding level to a SARIF result level: Error → error, Warning → warning,
// Info → note.
func SARIFLevel(level string) string {
	switch level {
	case checks.LevelError:
		return "error"
	case checks.LevelWarning:
		return "warning"
	}
	return "note"
}

// SARIF writes the report as a SARIF 2.1.0 log with one run: tool.driver.rules holds one rule per
// catalogue code (id = the EGR id, name = the string code, default level from the catalogue,
// properties code/check/doc/source/envoyFlag; helpUri the docs/causes page); results are the findings, then the suppressed
// findings with suppressions[] (kind inSource for the resource annotation, external for -S and
// --suppressions; status accepted, justification = the reason). Each result names its resource
// in logicalLocations (kind "resource", fullyQualifiedName "Kind namespace/name") and, when the
// resource came from an -f file, in physicalLocation (file URI relative as given, start line).
// In what-if mode baselineState is "new" (introduced) or "unchanged" (existing).
// partialFingerprints["kubectlEgress/v1"] hashes ID, resource, field and message (two findings of
// one code about one resource differ by their message), the same across runs of the same input.
// invocations[0] records whether the run passed (exitCode 0, 1 or 2 as the command exits).
func SARIF(w io.Writer, r *checks.PreflightReport, tool ToolInfo) error {
	driver, index := sarifDriverFor(tool)
	exit := 0
	switch {
	case len(r.Unknown) > 0:
		exit = 2
	case r.Failed:
		exit = 1
	}
	inv := sarifInvocation{ExecutionSuccessful: len(r.Unknown) == 0, ExitCode: exit}
	for _, k := range sortedMapKeys(r.Unknown) {
		inv.Notifications = append(inv.Notifications, sarifNotification{Level: "error", Message: sarifMessage{Text: "could not read " + checks.PluralKind(k) + ": " + r.Unknown[k]}})
	}
	run := sarifRun{Tool: sarifTool{Driver: driver}, Invocations: []sarifInvocation{inv}, Results: []sarifResult{},
		Properties: map[string]any{"schemaVersion": r.SchemaVersion, "mode": r.Mode, "source": r.Source, "failOn": r.FailOn,
			"failOnExisting": r.FailOnExisting, "summary": r.Summary, "failed": r.Failed}}
	for _, f := range r.Findings {
		run.Results = append(run.Results, sarifResultOf(f, index, r))
	}
	for _, f := range r.Suppressed {
		res := sarifResultOf(f, index, r)
		kind := "external"
		if f.SuppressedBy.Origin == checks.SuppressedByAnnotation {
			kind = "inSource"
		}
		just := f.SuppressedBy.Where
		if f.SuppressedBy.Reason != "" {
			just += ": " + f.SuppressedBy.Reason
		}
		res.Suppressions = []sarifSuppression{{Kind: kind, Status: "accepted", Justification: just}}
		run.Results = append(run.Results, res)
	}
	return writeSARIF(w, run)
}

// SARIFError writes the SARIF log of a run that could not check anything (the cluster or the
// input could not be read): one run with no results whose invocation is not successful, with the
// command's exit code and its error as a toolExecutionNotification, as code-scanning UIs expect.
func SARIFError(w io.Writer, tool ToolInfo, exitCode int, msg string) error {
	driver, _ := sarifDriverFor(tool)
	inv := sarifInvocation{ExecutionSuccessful: false, ExitCode: exitCode,
		Notifications: []sarifNotification{{Level: "error", Message: sarifMessage{Text: msg}}}}
	return writeSARIF(w, sarifRun{Tool: sarifTool{Driver: driver}, Invocations: []sarifInvocation{inv}, Results: []sarifResult{}})
}

func writeSARIF(w io.Writer, run sarifRun) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(sarifLog{Schema: SARIFSchemaURI, Version: "2.1.0", Runs: []sarifRun{run}})
}

// sarifDriverFor describes the tool with one rule per catalogue code; index maps an EGR id to
// its rule's index.
func sarifDriverFor(tool ToolInfo) (sarifDriver, map[string]int) {
	entries := append([]checks.CatalogEntry(nil), checks.Catalog...)
	sort.Slice(entries, func(i, j int) bool { return entries[i].ID() < entries[j].ID() })
	index := map[string]int{}
	driver := sarifDriver{Name: tool.Name, Version: tool.Version, InformationURI: tool.InformationURI, Rules: []sarifRule{}}
	for i, e := range entries {
		index[e.ID()] = i
		help := e.Description
		if e.DocURL() != "" {
			help += "\nExplained in " + e.DocURL() + "."
		}
		if e.Source() != "" {
			help += "\nistiod source: " + e.Source() + "."
		}
		rule := sarifRule{ID: e.ID(), Name: e.Code, ShortDescription: sarifMessage{Text: e.Code}, FullDescription: sarifMessage{Text: e.Description},
			Help: sarifMessage{Text: help}, DefaultConfiguration: sarifConfig{Level: SARIFLevel(e.Level)},
			Properties: map[string]any{"code": e.Code, "check": checks.CheckOfID(e.ID()), "doc": e.DocURL(), "source": e.Source(), "tags": []string{"istio", "egress", checks.CheckOfID(e.ID())}}}
		if e.DocURL() != "" {
			rule.HelpURI = e.DocURL()
		} else if tool.InformationURI != "" {
			rule.HelpURI = tool.InformationURI + "/blob/main/docs/findings.md"
		}
		if e.Flag != "" {
			rule.Properties["envoyFlag"] = e.Flag
		}
		driver.Rules = append(driver.Rules, rule)
	}
	return driver, index
}

func sarifResultOf(f checks.PreflightFinding, index map[string]int, r *checks.PreflightReport) sarifResult {
	text := f.Message
	if f.Fix != "" {
		text += "\nFix:\n" + f.Fix
	}
	loc := sarifLocation{LogicalLocations: []sarifLogicalLocation{{Name: f.Resource.Name, FullyQualifiedName: f.Resource.String(), Kind: "resource"}}}
	if f.Location != nil && f.Location.File != "" {
		pl := &sarifPhysicalLocation{ArtifactLocation: sarifArtifactLocation{URI: fileURI(f.Location.File)}}
		if f.Location.Line > 0 {
			pl.Region = &sarifRegion{StartLine: f.Location.Line}
		}
		loc.PhysicalLocation = pl
	}
	sum := sha256.Sum256([]byte(f.ID + "|" + f.Resource.String() + "|" + f.Field + "|" + f.Message))
	res := sarifResult{RuleID: f.ID, RuleIndex: -1, Level: SARIFLevel(f.Level), Message: sarifMessage{Text: text},
		Locations: []sarifLocation{loc}, PartialFingerprints: map[string]string{"kubectlEgress/v1": hex.EncodeToString(sum[:16])},
		Properties: map[string]any{"code": f.Code, "check": f.Check, "resource": f.Resource, "doc": f.Doc, "source": f.Source}}
	if i, ok := index[f.ID]; ok {
		res.RuleIndex = i
	}
	if f.Field != "" {
		res.Properties["field"] = f.Field
	}
	if len(f.Contexts) > 0 {
		res.Properties["contexts"] = f.Contexts
	}
	if r.Mode == checks.ModeWhatIf {
		switch f.Status {
		case checks.FindingIntroduced:
			res.BaselineState = "new"
		case checks.FindingExisting:
			res.BaselineState = "unchanged"
		}
	}
	return res
}

// fileURI turns a file path into a SARIF uri-reference: forward slashes, spaces escaped.
func fileURI(p string) string {
	p = strings.ReplaceAll(p, "\\", "/")
	return strings.ReplaceAll(p, " ", "%20")
}
