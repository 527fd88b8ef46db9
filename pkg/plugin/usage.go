package plugin

import (
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/term"
)

// helpWidth is the width flag help is wrapped to: the terminal's when standard output is one,
// else 120 columns (what the README promises help fits in).
func helpWidth() int {
	if fd := int(os.Stdout.Fd()); term.IsTerminal(fd) {
		if w, _, err := term.GetSize(fd); err == nil && w >= 40 {
			return w
		}
	}
	return 120
}

// wrapFlagHelp makes every command's help wrap its flag descriptions to helpWidth, as kubectl's
// help does: cobra's own usage template, with pflag's FlagUsagesWrapped in place of FlagUsages.
func wrapFlagHelp(root *cobra.Command) {
	cobra.AddTemplateFunc("wrappedFlagUsages", func(f *pflag.FlagSet) string { return f.FlagUsagesWrapped(helpWidth()) })
	t := root.UsageTemplate()
	t = strings.ReplaceAll(t, ".LocalFlags.FlagUsages", "wrappedFlagUsages .LocalFlags")
	t = strings.ReplaceAll(t, ".InheritedFlags.FlagUsages", "wrappedFlagUsages .InheritedFlags")
	root.SetUsageTemplate(t)
}
