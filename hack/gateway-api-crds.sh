#!/usr/bin/env bash
# Prints the directory of the Kubernetes Gateway API CRDs (experimental channel: it has TLSRoute
# and TCPRoute too) shipped in the sigs.k8s.io/gateway-api module, downloaded through the Go
# module proxy into the module cache on first use.
#
#   GATEWAY_API_VERSION   sigs.k8s.io/gateway-api version (default v1.6.0, the one istio.io/istio uses)
set -euo pipefail

GATEWAY_API_VERSION=${GATEWAY_API_VERSION:-v1.6.0}
dir=$(cd / && GOFLAGS=-mod=mod go mod download -json "sigs.k8s.io/gateway-api@$GATEWAY_API_VERSION" | jq -r .Dir)
crds=$dir/config/crd/experimental
if [[ ! -f $crds/gateway.networking.k8s.io_httproutes.yaml ]]; then
  echo "gateway-api-crds.sh: no CRDs in $crds" >&2
  exit 1
fi
echo "$crds"
