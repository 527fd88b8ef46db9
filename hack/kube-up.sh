#!/usr/bin/env bash
# Starts a throw-away etcd + kube-apiserver on loopback (free ports), RBAC on, with an admin token,
# and installs the Istio CRDs. No kubelet, scheduler or controllers: objects are stored, nothing runs.
#
#   hack/kube-up.sh [DIR]      state directory (default .cache/kube); writes DIR/kubeconfig
#   hack/kube-down.sh [DIR]    stops it again
#
# Binaries come from hack/build-kube.sh (built once, cached in ~/.cache/kubectl-egress).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
dir=${1:-.cache/kube}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)

assets=$("$here/build-kube.sh")
kubectl=$assets/kubectl
kc=$dir/kubeconfig

alive() { [[ -f $dir/pids ]] && while read -r pid _; do kill -0 "$pid" 2>/dev/null || return 1; done <"$dir/pids"; }
if alive && "$kubectl" --kubeconfig "$kc" get --raw /readyz >/dev/null 2>&1; then
  echo "kube-up: already running; KUBECONFIG=$kc" >&2
  echo "$kc"
  exit 0
fi
[[ -f $dir/pids ]] && "$here/kube-down.sh" "$dir" >/dev/null 2>&1 || true

# A port nothing listens on (a small race with other starters is possible; startup then fails loudly).
free_port() {
  local p
  for _ in $(seq 1 100); do
    p=$((20000 + RANDOM % 40000))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then echo "$p"; return 0; fi
  done
  echo "kube-up: no free port found" >&2
  return 1
}
etcd_port=$(free_port)
peer_port=$(free_port)
api_port=$(free_port)

rm -rf "$dir/etcd" "$dir/certs"
mkdir -p "$dir/etcd" "$dir/certs"
chmod 700 "$dir/etcd"
openssl genrsa -out "$dir/sa.key" 2048 2>/dev/null
openssl rsa -in "$dir/sa.key" -pubout -out "$dir/sa.pub" 2>/dev/null
token=$(openssl rand -hex 24)
echo "$token,admin,admin-uid,system:masters" >"$dir/tokens.csv"
chmod 600 "$dir/sa.key" "$dir/tokens.csv"
: >"$dir/pids"

"$assets/etcd" \
  --name kube-up \
  --data-dir "$dir/etcd" \
  --listen-client-urls "http://127.0.0.1:$etcd_port" \
  --advertise-client-urls "http://127.0.0.1:$etcd_port" \
  --listen-peer-urls "http://127.0.0.1:$peer_port" \
  --initial-advertise-peer-urls "http://127.0.0.1:$peer_port" \
  --initial-cluster "kube-up=http://127.0.0.1:$peer_port" \
  --unsafe-no-fsync \
  </dev/null >"$dir/etcd.log" 2>&1 &
echo "$! etcd" >>"$dir/pids"

"$assets/kube-apiserver" \
  --etcd-servers "http://127.0.0.1:$etcd_port" \
  --cert-dir "$dir/certs" \
  --bind-address 127.0.0.1 \
  --advertise-address 127.0.0.1 \
  --secure-port "$api_port" \
  --service-account-issuer https://kubernetes.default.svc \
  --service-account-key-file "$dir/sa.pub" \
  --service-account-signing-key-file "$dir/sa.key" \
  --authorization-mode RBAC \
  --token-auth-file "$dir/tokens.csv" \
  --service-cluster-ip-range 10.96.0.0/24 \
  </dev/null >"$dir/kube-apiserver.log" 2>&1 &
echo "$! kube-apiserver" >>"$dir/pids"

umask 077
cat >"$kc" <<KC
apiVersion: v1
kind: Config
clusters:
- name: local
  cluster:
    server: https://127.0.0.1:$api_port
    insecure-skip-tls-verify: true
users:
- name: admin
  user:
    token: $token
contexts:
- name: local
  context:
    cluster: local
    user: admin
current-context: local
KC

echo "kube-up: waiting for https://127.0.0.1:$api_port/readyz" >&2
for i in $(seq 1 120); do
  if "$kubectl" --kubeconfig "$kc" --request-timeout 2s get --raw /readyz >/dev/null 2>&1; then
    break
  fi
  if ! alive; then
    echo "kube-up: a process exited; see $dir/etcd.log and $dir/kube-apiserver.log" >&2
    tail -n 20 "$dir/etcd.log" "$dir/kube-apiserver.log" >&2 || true
    "$here/kube-down.sh" "$dir" >/dev/null 2>&1 || true
    exit 1
  fi
  if [[ $i == 120 ]]; then
    echo "kube-up: not ready after 60s; see $dir/kube-apiserver.log" >&2
    "$here/kube-down.sh" "$dir" >/dev/null 2>&1 || true
    exit 1
  fi
  sleep 0.5
done

crds=$("$here/istio-crds.sh")
"$kubectl" --kubeconfig "$kc" apply --server-side -f "$crds" >/dev/null
"$kubectl" --kubeconfig "$kc" wait --for condition=established crd --all --timeout 60s >/dev/null
echo "kube-up: ready; KUBECONFIG=$kc (stop with hack/kube-down.sh ${1:-})" >&2
echo "$kc"
