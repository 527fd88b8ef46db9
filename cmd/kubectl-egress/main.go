// Command kubectl-egress is the kubectl plugin `kubectl egress`: it only builds and runs the
// root command (pkg/plugin).
package main

import (
	"os"

	"k8s.io/cli-runtime/pkg/genericiooptions"
	_ "k8s.io/client-go/plugin/pkg/client/auth" // auth providers (oidc, ...) for kubeconfigs that use them

	"github.com/kubectl-egress/kubectl-egress/pkg/plugin"
)

func main() {
	os.Exit(plugin.Execute(genericiooptions.IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr}))
}
