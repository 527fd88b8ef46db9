#!/usr/bin/env bash
# Builds istioctl from the Go module proxy, at the istio.io/istio version hack/conformance pins
# (the istiod source the conformance suite runs), into a cached folder, and prints the binary's
# path. A second run with the same version is a no-op. Used by hack/bench-live.sh to time
# `istioctl analyze` beside kubectl-egress; never a dependency of the plugin.
#
#   ISTIOCTL_OUT   where the binary goes (default: $XDG_CACHE_HOME/kubectl-egress/istioctl-<version>)
#
# Why a module of its own: hack/conformance upgrades some Kubernetes modules past what istioctl
# compiles with; a module that requires only istio.io/istio takes istio's own versions.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
version=$(awk '$1 == "istio.io/istio" { print $2; exit }' "$here/conformance/go.mod")
if [[ -z $version ]]; then
  echo "build-istioctl: no istio.io/istio requirement in hack/conformance/go.mod" >&2
  exit 1
fi
cache_root=${XDG_CACHE_HOME:-$HOME/.cache}/kubectl-egress
OUT=${ISTIOCTL_OUT:-$cache_root/istioctl-$version}
if [[ -x $OUT/istioctl ]]; then
  echo "$OUT/istioctl"
  exit 0
fi
mkdir -p "$OUT"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
export GOFLAGS=-mod=mod
go mod init local/istioctl-build >/dev/null 2>&1
go mod edit -require "istio.io/istio@$version"
cat > tools.go <<'GO'
//go:build tools

package tools

import _ "istio.io/istio/istioctl/cmd"
GO
go mod tidy >&2
go build -o "$OUT/istioctl.tmp" istio.io/istio/istioctl/cmd/istioctl >&2
mv "$OUT/istioctl.tmp" "$OUT/istioctl"
echo "$OUT/istioctl"
