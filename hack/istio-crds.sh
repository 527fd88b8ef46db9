#!/usr/bin/env bash
# Prints the path of the Istio CRD bundle shipped in the istio.io/api module (downloaded through the
# Go module proxy into the module cache on first use).
#
#   ISTIO_API_VERSION   istio.io/api version (default v1.32.0)
set -euo pipefail

ISTIO_API_VERSION=${ISTIO_API_VERSION:-v1.32.0}
# GOFLAGS=-mod=mod: independent of whatever module (if any) the current directory belongs to.
dir=$(cd / && GOFLAGS=-mod=mod go mod download -json "istio.io/api@$ISTIO_API_VERSION" | jq -r .Dir)
crds=$dir/kubernetes/customresourcedefinitions.gen.yaml
if [[ ! -f $crds ]]; then
  echo "istio-crds.sh: $crds not found" >&2
  exit 1
fi
echo "$crds"
