#!/usr/bin/env bash
# Stops what hack/kube-up.sh started in DIR (default .cache/kube) and removes its etcd data.
set -euo pipefail

dir=${1:-.cache/kube}
[[ -d $dir ]] || exit 0
if [[ -f $dir/pids ]]; then
  # Reverse order, one at a time: kube-apiserver must stop before etcd or it hangs on shutdown.
  pids=$(awk '{print $1}' "$dir/pids" | tac)
  for pid in $pids; do
    kill "$pid" 2>/dev/null || continue
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
    kill -9 "$pid" 2>/dev/null || true
  done
  rm -f "$dir/pids"
fi
rm -rf "$dir/etcd" "$dir/certs" "$dir/kubeconfig" "$dir/tokens.csv" "$dir/sa.key" "$dir/sa.pub"
echo "kube-down: stopped ($dir)" >&2
