#!/usr/bin/env bash
# Builds etcd, kube-apiserver and kubectl from the Go module proxy into a cached folder and
# prints that folder. Pinned versions; a second run with the same versions is a no-op.
#
#   KUBE_ASSETS   where the binaries go (default: $XDG_CACHE_HOME/kubectl-egress/kube-<k8s>-<etcd>)
#
# Why a wrapper module: k8s.io/kubernetes replaces every k8s.io/<staging> module with ./staging/...,
# which a module zip lacks; we replace each with the published k8s.io/<name> v0.<minor>.<patch>.
# See ../shared/reference/local-apiserver.md.
set -euo pipefail

K8S_VERSION=${K8S_VERSION:-v1.36.3}
ETCD_VERSION=${ETCD_VERSION:-v3.6.16}
STAGING_VERSION="v0.${K8S_VERSION#v1.}"
cache_root=${XDG_CACHE_HOME:-$HOME/.cache}/kubectl-egress
OUT=${KUBE_ASSETS:-$cache_root/kube-$K8S_VERSION-etcd-$ETCD_VERSION}

if [[ -x $OUT/etcd && -x $OUT/kube-apiserver && -x $OUT/kubectl ]]; then
  echo "$OUT"
  exit 0
fi
mkdir -p "$OUT"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export GOFLAGS=-mod=mod

# etcd: go install refuses modules with replace directives, so build it as a dependency.
if [[ ! -x $OUT/etcd ]]; then
  mkdir -p "$work/etcd" && cd "$work/etcd"
  go mod init local/etcd-build >/dev/null 2>&1
  go get "go.etcd.io/etcd/server/v3@$ETCD_VERSION" >&2
  go build -o "$OUT/etcd.tmp" go.etcd.io/etcd/server/v3 >&2
  mv "$OUT/etcd.tmp" "$OUT/etcd"
fi

# kube-apiserver and kubectl.
mkdir -p "$work/kube" && cd "$work/kube"
go mod init local/kube-build >/dev/null 2>&1
gomod=$(go mod download -json "k8s.io/kubernetes@$K8S_VERSION" | jq -r .GoMod)
go mod edit -require "k8s.io/kubernetes@$K8S_VERSION"
for m in $(grep -oE 'k8s.io/[a-z0-9-]+ => \./staging/src/k8s.io/[a-z0-9-]+' "$gomod" | awk '{print $1}' | sort -u); do
  go mod edit -replace "$m=$m@$STAGING_VERSION"
done
cat > tools.go <<'GO'
//go:build tools

package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kubectl"
)
GO
go mod tidy >&2
minor=${K8S_VERSION#v1.}; minor=${minor%%.*}
ldflags="-s -w"
for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  ldflags+=" -X $pkg.gitVersion=$K8S_VERSION -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor -X $pkg.gitTreeState=clean -X $pkg.buildDate=1970-01-01T00:00:00Z"
done
for cmd in kube-apiserver kubectl; do
  if [[ ! -x $OUT/$cmd ]]; then
    go build -ldflags "$ldflags" -o "$OUT/$cmd.tmp" "k8s.io/kubernetes/cmd/$cmd" >&2
    mv "$OUT/$cmd.tmp" "$OUT/$cmd"
  fi
done
echo "$OUT"
