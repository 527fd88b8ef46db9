#!/usr/bin/env bash
# Live benchmark: loads a generated mesh (internal/meshgen, the anchor mesh's shape) into a
# throw-away kube-apiserver (hack/kube-up.sh) and runs, side by side in one run, the raw LISTs of
# the four Istio kinds (kubectl get --raw, in parallel: the floor), each kubectl-egress command,
# and istioctl analyze -A (hack/build-istioctl.sh builds it when none is on PATH). For each: the
# median wall time of RUNS runs, the peak memory (max RSS) and, for kubectl-egress, the API requests it sent.
# Results are printed as a markdown table (docs/performance.md quotes them).
#
#   hack/bench-live.sh                 # 10,000 entries, 3 runs each
#   ENTRIES=1000 RUNS=5 hack/bench-live.sh
#   KEEP=1 hack/bench-live.sh          # leave the API server running (hack/kube-down.sh .cache/bench-kube)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

ENTRIES=${ENTRIES:-10000}
RUNS=${RUNS:-3}
dir=.cache/bench-kube
mkdir -p "$dir"
assets=$(hack/build-kube.sh)
kubectl="$assets/kubectl"

make -s build >&2
# istioctl: $ISTIOCTL, else the one on PATH, else built by hack/build-istioctl.sh (cached; the
# istiod version the conformance suite pins). NO_ISTIOCTL=1 skips it.
istioctl=""
if [[ -z ${NO_ISTIOCTL:-} ]]; then
  istioctl=${ISTIOCTL:-$(command -v istioctl || hack/build-istioctl.sh)}
fi
bin=bin/kubectl-egress
go run ./hack/gen-mesh -entries "$ENTRIES" >"$dir/mesh.yaml"

kc=$(hack/kube-up.sh "$dir")
cleanup() { [[ -n ${KEEP:-} ]] || hack/kube-down.sh "$dir" >/dev/null 2>&1 || true; }
trap cleanup EXIT
k() { "$kubectl" --kubeconfig "$kc" "$@"; }

have=$(k get serviceentries -A --no-headers 2>/dev/null | wc -l)
if [[ $have -ne $ENTRIES ]]; then
  echo "bench-live: loading $ENTRIES ServiceEntries (and their VirtualServices, DestinationRules, namespaces) ..." >&2
  start=$(date +%s)
  # Namespaces first, then everything else in parallel chunks of documents.
  awk 'BEGIN{RS="\n---\n"} /kind: Namespace/ {print $0 "\n---"}' "$dir/mesh.yaml" >"$dir/ns.yaml"
  k create -f "$dir/ns.yaml" >/dev/null 2>&1 || true
  awk -v d="$dir" 'BEGIN{RS="\n---\n"; n=0} !/kind: Namespace/ && NF {f=sprintf("%s/part-%d.yaml", d, n%8); print $0 "\n---" > f; n++}' "$dir/mesh.yaml"
  for f in "$dir"/part-*.yaml; do k create -f "$f" >/dev/null 2>&1 & done
  wait
  rm -f "$dir"/part-*.yaml
  echo "bench-live: loaded in $(($(date +%s) - start)) s" >&2
fi

# run LABEL CMD...: RUNS runs; prints "median_wall_s max_rss_mib"
measure() {
  local walls=() rss=0 out tmp
  tmp=$(mktemp)
  for _ in $(seq 1 "$RUNS"); do
    /usr/bin/time -f "%e %M" -o "$tmp" "$@" >/dev/null 2>&1 || true
    out=$(tail -1 "$tmp")
    walls+=("${out% *}")
    local r=${out#* }
    ((r > rss)) && rss=$r
  done
  local med
  rm -f "$tmp"
  med=$(printf '%s\n' "${walls[@]}" | sort -n | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}')
  echo "$med $((rss / 1024))"
}

rawlist() {
  for r in serviceentries virtualservices destinationrules gateways; do
    "$kubectl" --kubeconfig "$kc" get --raw "/apis/networking.istio.io/v1/$r" >/dev/null &
  done
  wait
}
export -f rawlist
export kubectl kc

read -r floor floor_rss < <(measure bash -c rawlist)
echo "| command | median wall (s) | × raw LISTs | peak memory (MiB) | API requests |"
echo "|---|---|---|---|---|"
echo "| raw LISTs of the 4 Istio kinds, in parallel (kubectl get --raw) | $floor | 1.0 | $floor_rss | 4+ |"
row() {
  local label=$1
  shift
  local wall rss reqs
  read -r wall rss < <(measure "$@")
  reqs=$({ "$@" --load-stats 2>&1 >/dev/null || true; } | sed -n 's/^load: .* \([0-9][0-9]*\) requests.*/\1/p' | tail -1)
  echo "| $label | $wall | $(awk -v a="$wall" -v b="$floor" 'BEGIN{printf "%.1f", a/b}') | $rss | ${reqs:--} |"
}
row "why-missing svc0.ns0.example.com" "$bin" --kubeconfig "$kc" why-missing svc0.ns0.example.com --no-live
row "visibility -A" "$bin" --kubeconfig "$kc" visibility -A
row "export-audit -A" "$bin" --kubeconfig "$kc" export-audit -A
row "explain-listener --port 80 --from ns-000" "$bin" --kubeconfig "$kc" explain-listener --port 80 --from ns-000
row "proxy-config clusters --gateway" "$bin" --kubeconfig "$kc" proxy-config clusters --gateway istio-system/istio-egressgateway
row "proxy-config all --from ns-000" "$bin" --kubeconfig "$kc" proxy-config all --from ns-000
row "preflight" "$bin" --kubeconfig "$kc" preflight
if [[ -n $istioctl ]]; then
  read -r wall rss < <(measure "$istioctl" --kubeconfig "$kc" analyze -A)
  echo "| istioctl analyze -A | $wall | $(awk -v a="$wall" -v b="$floor" 'BEGIN{printf "%.1f", a/b}') | $rss | - |"
else
  echo "(no istioctl: istioctl analyze -A not measured)"
fi
