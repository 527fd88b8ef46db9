#!/usr/bin/env bash
# Proves the release packaging end to end, offline but for the Go module proxy (run by
# `make release-check`, part of `make test`):
#   1. goreleaser, built from the Go module proxy and cached;
#   2. `goreleaser check` and `goreleaser release --snapshot --clean`: 6 archives in dist/
#      (RELEASE_TARGETS=host: the host's only);
#   3. krew and its manifest validator, built from the Go module proxy and cached;
#   4. krew/egress.yaml rendered with the snapshot version and the archives' sha256, validated
#      with validate-krew-manifest, and installed for each of its 6 platforms (host: its own);
#   5. the plugin installed by krew from the host's archive runs as `kubectl egress version`;
#   6. `kubectl __complete egress why-` (kubectl's plugin completion, through the
#      kubectl_complete-egress helper) offers why-missing.
# Each step prints one line; any failure exits non-zero with the reason.
#
#   GORELEASER_VERSION, KREW_VERSION   pinned tool versions (v2.15.1, v0.4.3)
#   RELEASE_TARGETS  all (default): the six platforms of a release; host: only this machine's
#               platform (`make test` does this: on an empty build cache the five cross-compiled
#               archives cost about 20 minutes; `make release-check`, run by CI after `make test`,
#               builds all six). With host, goreleaser runs on a copy of .goreleaser.yaml whose
#               builds are narrowed to the host, and the krew manifest keeps only its platform.
#   TOOLS_BIN   where the tools are cached (default: $XDG_CACHE_HOME/kubectl-egress/bin); a tool
#               is rebuilt only when missing or built from another version (`go version -m`)
#
# The tools are built with GOTOOLCHAIN=local: a tool that needs a newer Go fails here rather than
# downloading a toolchain. No cluster is contacted: KUBECONFIG points at a closed loopback port.
set -euo pipefail

GORELEASER_VERSION=${GORELEASER_VERSION:-v2.15.1}
KREW_VERSION=${KREW_VERSION:-v0.4.3}
cache_root=${XDG_CACHE_HOME:-$HOME/.cache}/kubectl-egress
TOOLS_BIN=${TOOLS_BIN:-$cache_root/bin}

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)
dist=$repo/dist
cd "$repo"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
started=$SECONDS
step_start=$SECONDS

fail() {
  echo "release-check: FAIL: $*" >&2
  exit 1
}
# ok N TEXT: the one success line of step N, with the step's duration.
ok() {
  echo "release-check: ok $1/6 ($((SECONDS - step_start))s) $2"
  step_start=$SECONDS
}
# run LOG CMD...: runs CMD with its output in LOG; on failure shows the end of LOG and fails.
run() {
  local log=$1
  shift
  if ! "$@" >"$log" 2>&1; then
    tail -n 40 "$log" | sed 's/^/    /' >&2
    fail "$* (full output above, last 40 lines)"
  fi
}

# module_version BIN: the version of the main module BIN was built from ("" if unknown).
module_version() {
  go version -m "$1" 2>/dev/null | awk '$1 == "mod" { print $3; exit }'
}

# bin_name PKG: the name `go install` gives PKG's binary (a /vN major version suffix is dropped).
bin_name() {
  local p=${1%/v[0-9]*}
  echo "${p##*/}"
}

# ensure_tools MODULE VERSION PKG...: the binaries of PKG... (packages of MODULE) in TOOLS_BIN,
# built with `go install PKG@VERSION` unless each is there and built from MODULE@VERSION.
ensure_tools() {
  local module=$1 version=$2 pkg bin missing=() targets=()
  shift 2
  for pkg in "$@"; do
    bin=$TOOLS_BIN/$(bin_name "$pkg")
    if [[ ! -x $bin ]] || [[ $(module_version "$bin") != "$version" ]]; then
      missing+=("$pkg")
    fi
  done
  ((${#missing[@]} == 0)) && return 0
  for pkg in "${missing[@]}"; do targets+=("$pkg@$version"); done
  echo "release-check: building ${targets[*]} from the Go module proxy (once; cached in $TOOLS_BIN)" >&2
  mkdir -p "$TOOLS_BIN" "$work/gobin"
  # Built into a scratch GOBIN, then moved: an interrupted build leaves no half-written tool.
  if ! (cd "$work" && GOTOOLCHAIN=local GOFLAGS= GOBIN="$work/gobin" go install "${targets[@]}") >&2; then
    fail "go install ${targets[*]} failed with $(go version) (GOTOOLCHAIN=local: a newer Go is not downloaded)"
  fi
  for pkg in "${missing[@]}"; do mv -f "$work/gobin/$(bin_name "$pkg")" "$TOOLS_BIN/"; done
  for pkg in "$@"; do
    bin=$TOOLS_BIN/$(bin_name "$pkg")
    [[ $(module_version "$bin") == "$version" ]] || fail "$bin is not $module@$version after the build"
  done
}

# No cluster is read or written by anything below.
printf 'apiVersion: v1\nkind: Config\nclusters:\n- name: none\n  cluster: {server: "https://127.0.0.1:1"}\ncontexts:\n- name: none\n  context: {cluster: none}\ncurrent-context: none\n' >"$work/kubeconfig"
export KUBECONFIG=$work/kubeconfig
export KREW_NO_UPGRADE_CHECK=1

all_platforms=(linux_amd64 linux_arm64 darwin_amd64 darwin_arm64 windows_amd64 windows_arm64)
host=$(go env GOOS)_$(go env GOARCH)
config=.goreleaser.yaml
case ${RELEASE_TARGETS:-all} in
all) platforms=("${all_platforms[@]}") ;;
host)
  [[ " ${all_platforms[*]} " == *" $host "* ]] || fail "RELEASE_TARGETS=host: $host is not a release platform"
  [[ $host == windows_* ]] && fail "RELEASE_TARGETS=host on Windows is not supported; use RELEASE_TARGETS=all"
  platforms=("$host")
  # The unix build gets targets: [host] instead of its goos/goarch matrix; the Windows build is
  # skipped. Each edit must apply exactly once, or the copy is not what it claims to be.
  config=$work/goreleaser-host.yaml
  awk -v host="$host" '
    /^    goos: \[linux, darwin\]$/ { print "    targets: [" host "]"; g++; next }
    /^    goarch: \[amd64, arm64\]$/ { a++; next }
    /^    goos: \[windows\]$/ { print; print "    skip: true"; w++; next }
    { print }
    END { if (g != 1 || a != 1 || w != 1) { print "edits applied: goos " g ", goarch " a ", windows " w " (want 1 each)" > "/dev/stderr"; exit 1 } }' \
    .goreleaser.yaml >"$config" || fail "cannot narrow .goreleaser.yaml to $host (its builds section changed?)"
  ;;
*) fail "RELEASE_TARGETS=${RELEASE_TARGETS}: want all or host" ;;
esac
want=${#platforms[@]}

# 1. goreleaser
ensure_tools github.com/goreleaser/goreleaser/v2 "$GORELEASER_VERSION" github.com/goreleaser/goreleaser/v2
goreleaser=$TOOLS_BIN/goreleaser
ok 1 "goreleaser $GORELEASER_VERSION: $goreleaser"

# 2. goreleaser check + snapshot release (one build at a time: 2 cores, and go build uses both)
git rev-parse --verify -q HEAD >/dev/null || fail "goreleaser needs a git checkout with a commit"
# Without a git remote goreleaser drops all git facts of a snapshot (commit "none"); give this
# process (not the checkout) one. A clone, as in CI, has its origin.
if ! git ls-remote --get-url >/dev/null 2>&1 && [[ -z ${GIT_CONFIG_COUNT:-} ]]; then
  export GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=remote.origin.url GIT_CONFIG_VALUE_0=https://github.com/kubectl-egress/kubectl-egress.git
fi
run "$work/goreleaser-check.log" "$goreleaser" check
run "$work/goreleaser-release.log" "$goreleaser" release --config "$config" --snapshot --clean --parallelism 1
version=$(sed -n 's/.*"version": *"\([^"]*\)".*/\1/p' "$dist/metadata.json" | head -n 1)
[[ -n $version ]] || fail "no version in $dist/metadata.json"
version=v$version
archives=()
for p in "${platforms[@]}"; do
  ext=tar.gz
  [[ $p == windows_* ]] && ext=zip
  a=kubectl-egress_${version}_$p.$ext
  [[ -f $dist/$a ]] || fail "archive $a missing in $dist"
  archives+=("$a")
done
n=$(find "$dist" -maxdepth 1 \( -name '*.tar.gz' -o -name '*.zip' \) | wc -l)
((n == want)) || fail "want $want archives in $dist, found $n"
(cd "$dist" && sha256sum --quiet -c checksums.txt) >"$work/sha.log" 2>&1 || fail "checksums.txt does not match the archives: $(cat "$work/sha.log")"
for a in "${archives[@]}"; do
  [[ $a == *.tar.gz ]] || continue
  got=$(tar -tzf "$dist/$a" | sort | tr '\n' ' ')
  [[ $got == "LICENSE README.md kubectl-egress kubectl_complete-egress " ]] || fail "$a holds: $got (want kubectl-egress, kubectl_complete-egress, LICENSE, README.md)"
  mode=$(tar -tvzf "$dist/$a" kubectl_complete-egress | awk '{print $1}')
  [[ $mode == -rwx* ]] || fail "kubectl_complete-egress is not executable in $a ($mode)"
done
ok 2 "goreleaser check + release --snapshot: $version, $want archive(s) (${platforms[*]}), checksums.txt verified"

# 3. krew and validate-krew-manifest
ensure_tools sigs.k8s.io/krew "$KREW_VERSION" sigs.k8s.io/krew/cmd/krew sigs.k8s.io/krew/cmd/validate-krew-manifest
mkdir -p "$work/path"
ln -s "$TOOLS_BIN/krew" "$work/path/kubectl-krew" # how kubectl finds it: `kubectl krew`
ok 3 "krew $KREW_VERSION + validate-krew-manifest: $TOOLS_BIN"

# 4. krew/egress.yaml with the snapshot's version and sha256 values; validate; install everywhere
src_version=$(sed -n 's/^  version: *//p' krew/egress.yaml)
[[ $src_version == v* ]] || fail "krew/egress.yaml: no spec.version"
mkdir -p "$work/manifest"
manifest=$work/manifest/egress.yaml # the validator wants <plugin name>.yaml
# Each platform block (from "  - selector:") is held until it ends; one whose archive is not in
# checksums.txt is an error with all targets, and left out with RELEASE_TARGETS=host.
sed "s/${src_version//./\\.}/$version/g" krew/egress.yaml |
  awk -v sums="$dist/checksums.txt" -v want="$want" -v total="${#all_platforms[@]}" '
    BEGIN { while ((getline line < sums) > 0) { split(line, f, " "); sum[f[2]] = f[1] } }
    function flush() {
      if (block == "") return
      if (name in sum) { printf "%s", block; filled++ }
      else if (want == total) { block = ""; print "no archive named " name " in checksums.txt" > "/dev/stderr"; bad = 1; exit 1 }
      block = ""
    }
    /^  - selector:/ { flush(); inblock = 1 }
    inblock && /^[^ ]|^  [^ -]/ { flush(); inblock = 0 }
    /^    uri: / { k = split($2, parts, "/"); name = parts[k]; uris++ }
    /^    sha256: / && inblock { block = block "    sha256: \"" ((name in sum) ? sum[name] : "") "\"\n"; next }
    inblock { block = block $0 "\n"; next }
    { print }
    END { flush(); if (bad || uris != total || filled != want) { print "want " total " platforms with a uri and " want " archive(s), got " uris " and " filled > "/dev/stderr"; exit 1 } }' \
    >"$manifest" || fail "cannot render krew/egress.yaml for the snapshot archives"
grep -q '"0\{64\}"' "$manifest" && fail "placeholder sha256 left in the rendered manifest"
run "$work/validate.log" "$TOOLS_BIN/validate-krew-manifest" -manifest "$manifest" -skip-install
run "$work/validate-goreleaser.log" "$TOOLS_BIN/validate-krew-manifest" -manifest "$dist/krew/egress.yaml" -skip-install
# validate-krew-manifest would install each platform from its uri (the release, not published
# yet); install each from its snapshot archive instead, as krew-index CI does (KREW_OS/KREW_ARCH).
for i in "${!platforms[@]}"; do
  p=${platforms[$i]}
  root=$work/krew-$p
  run "$work/install-$p.log" env KREW_ROOT="$root" KREW_OS="${p%_*}" KREW_ARCH="${p#*_}" \
    "$TOOLS_BIN/krew" install --manifest="$manifest" --archive="$dist/${archives[$i]}"
  store=$root/store/egress/$version
  exe=kubectl-egress
  [[ $p == windows_* ]] && exe=kubectl-egress.exe
  for f in "$exe" LICENSE README.md; do
    [[ -f $store/$f ]] || fail "krew install for $p: $f not extracted into $store"
  done
  [[ $p == windows_* ]] || [[ -x $store/kubectl_complete-egress ]] || fail "krew install for $p: no executable kubectl_complete-egress"
done
# The goreleaser manifest must say what krew/egress.yaml says: compare the receipts krew writes
# (the parsed manifest), less the platforms, after installing the host platform from each.
host_archive=
for i in "${!platforms[@]}"; do [[ ${platforms[$i]} == "$host" ]] && host_archive=$dist/${archives[$i]}; done
[[ -n $host_archive ]] || fail "no archive for this machine's platform $host"
run "$work/install-goreleaser.log" env KREW_ROOT="$work/krew-goreleaser" \
  "$TOOLS_BIN/krew" install --manifest="$dist/krew/egress.yaml" --archive="$host_archive"
spec_text() { awk '/^spec:/ { on = 1 } /^status:/ { on = 0 } on && /^  platforms:/ { skip = 1; next } skip && /^  [^ -]/ { skip = 0 } on && !skip' "$1"; }
if ! diff <(spec_text "$work/krew-$host/receipts/egress.yaml") <(spec_text "$work/krew-goreleaser/receipts/egress.yaml") >"$work/drift.diff"; then
  sed 's/^/    /' "$work/drift.diff" >&2
  fail "krew/egress.yaml and the krews section of .goreleaser.yaml differ (diff above: < krew/egress.yaml, > goreleaser)"
fi
ok 4 "krew/egress.yaml for $version: validate-krew-manifest OK (also dist/krew/egress.yaml, same texts), installs on ${platforms[*]}"

# 5. the krew-installed plugin through kubectl
kube_assets=$("$here/build-kube.sh") || fail "hack/build-kube.sh failed"
[[ -x $kube_assets/kubectl ]] || fail "no kubectl in $kube_assets"
export KREW_ROOT=$work/krew-$host
export PATH=$KREW_ROOT/bin:$work/path:$kube_assets:$PATH
[[ $(command -v kubectl-egress) == "$KREW_ROOT/bin/kubectl-egress" ]] || fail "kubectl-egress on PATH is $(command -v kubectl-egress), not krew's"
out=$(kubectl egress version 2>&1) || fail "kubectl egress version: $out"
commit=$(git rev-parse HEAD)
[[ $out == "kubectl-egress $version (commit $commit, built "* ]] || fail "kubectl egress version printed: $out (want $version, commit $commit)"
json=$(kubectl egress version -o json 2>&1) || fail "kubectl egress version -o json: $json"
for want in "\"version\": \"$version\"" "\"commit\": \"$commit\"" '"date": "20' "\"platform\": \"${host/_//}\""; do
  [[ $json == *"$want"* ]] || fail "kubectl egress version -o json lacks $want: $json"
done
ok 5 "kubectl egress version (krew-installed $host archive): $out"

# 6. kubectl's plugin completion (1.26+): kubectl runs kubectl_complete-egress from PATH. krew does
# not link it, so put it on PATH as README.md says (a copy from the plugin's folder).
cp "$KREW_ROOT/store/egress/$version/kubectl_complete-egress" "$work/path/"
comp=$(kubectl __complete egress why- 2>/dev/null) || fail "kubectl __complete egress why- failed"
if ! grep -q '^why-missing' <<<"$comp"; then
  direct=$(kubectl egress __complete why- 2>/dev/null || true)
  fail "kubectl __complete egress why- offered: $(tr '\n' ' ' <<<"$comp") (kubectl egress __complete why- offers: $(tr '\n' ' ' <<<"$direct"))"
fi
comp=$(kubectl __complete egress why-missing --output '' 2>/dev/null) || fail "kubectl __complete egress why-missing --output '' failed"
[[ $(grep -c -x -e json -e table -e yaml <<<"$comp") == 3 ]] || fail "--output completion offered: $(tr '\n' ' ' <<<"$comp")"
# A dynamic completion against an unreachable server: nothing, no file names, no error.
comp=$(kubectl __complete egress why-missing '' 2>/dev/null) || fail "kubectl __complete egress why-missing '' failed"
[[ $comp == ":4" ]] || fail "HOST completion with no reachable cluster offered: $(tr '\n' ' ' <<<"$comp") (want nothing, :4)"
ok 6 "kubectl __complete egress why- offers why-missing; --output values; silent without a cluster. All 6 steps passed in $((SECONDS - started))s"
