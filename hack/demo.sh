#!/usr/bin/env bash
# The seed guide's §3 example on a throw-away API server: with PILOT_FILTER_GATEWAY_CLUSTER_CONFIG=true
# the egress gateway lacks outbound|80||httpbin.org until a Gateway + bound VirtualService exist.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
state=${DEMO_DIR:-$root/.cache/demo}

if [[ -t 1 ]]; then bold=$'\033[1m' off=$'\033[0m'; else bold= off=; fi
step() { printf '\n%s==> %s%s\n' "$bold" "$*" "$off"; }

step "Building the plugin: make build (bin/kubectl-egress, with its version)"
make --no-print-directory -s build

step "Starting a local API server with the Istio CRDs (hack/kube-up.sh; first run builds it, several minutes)"
trap '"$root/hack/kube-down.sh" "$state" || true' EXIT
kc=$(hack/kube-up.sh "$state")
kubectl=$(hack/build-kube.sh)/kubectl
export KUBECONFIG=$kc
export PATH=$root/bin:$(dirname "$kubectl"):$PATH

step "Step 1: istiod (PILOT_FILTER_GATEWAY_CLUSTER_CONFIG=true), an egress gateway, ServiceEntry httpbin-ext"
# The namespace default exists already: label it rather than apply it (kubectl apply would warn
# about its missing last-applied annotation).
kubectl label namespace default istio-injection=enabled --overwrite
kubectl apply -f hack/demo/01-mesh.yaml

step "Why is outbound|80||httpbin.org missing on the egress gateway? (expected: ABSENT, exit code 1)"
rc=0
kubectl egress why-missing httpbin.org || rc=$?
echo "exit code: $rc"

step "Step 2: add Gateway istio-system/egress-http and VirtualService istio-system/httpbin-egress bound to it"
kubectl apply -f hack/demo/02-gateway-and-route.yaml

step "Asking again (expected: PRESENT, exit code 0)"
rc=0
kubectl egress why-missing httpbin.org || rc=$?
echo "exit code: $rc"

step "Stopping the local API server"
