package plugin

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-egress/kubectl-egress/pkg/printers"
)

// Build information, set with -ldflags "-X github.com/kubectl-egress/kubectl-egress/pkg/plugin.version=v0.1.0 ...".
var (
	version = "dev"
	commit  = ""
	date    = ""
)

// VersionInfo is the output of `kubectl egress version -o json|yaml`.
type VersionInfo struct {
	Version   string `json:"version"`
	Commit    string `json:"commit,omitempty"`
	Date      string `json:"date,omitempty"`
	GoVersion string `json:"goVersion"`
	Platform  string `json:"platform"`
}

func buildInfo() VersionInfo {
	v := VersionInfo{Version: version, Commit: commit, Date: date, GoVersion: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	if v.Commit == "" {
		if bi, ok := debug.ReadBuildInfo(); ok {
			for _, s := range bi.Settings {
				if s.Key == "vcs.revision" {
					v.Commit = s.Value
				}
			}
		}
	}
	return v
}

func newVersionCommand(g *GlobalOptions, streams genericiooptions.IOStreams) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the plugin's version, commit and build date",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if err := validateOutput(g.Output); err != nil {
				return err
			}
			v := buildInfo()
			if g.Output == printers.FormatTable {
				_, err := fmt.Fprintf(streams.Out, "kubectl-egress %s (commit %s, built %s, %s, %s)\n", v.Version, orUnknown(v.Commit), orUnknown(v.Date), v.GoVersion, v.Platform)
				return err
			}
			return printers.Structured(streams.Out, v, g.Output)
		},
	}
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}
