#!/usr/bin/env bash
# Runs every fuzz target of the plugin for a fixed time each (FUZZTIME, default 30s) and fails
# on the first crash. The seed corpora are the repository's own fixtures (see the targets);
# a crash leaves its input under the package's testdata/fuzz/<Target>/ — commit it with the fix.
#
#   hack/fuzz.sh            # every target, 30s each
#   FUZZTIME=5m hack/fuzz.sh
set -euo pipefail
cd "$(dirname "$0")/.."
time=${FUZZTIME:-30s}
targets=(
  "./pkg/loader FuzzFromFiles"
  "./pkg/loader FuzzMeshConfig"
  "./pkg/envoy FuzzParseConfigDump"
  "./pkg/envoy FuzzParseSyncz"
  "./pkg/rules FuzzHosts"
  "./pkg/rules FuzzExportTo"
  "./pkg/rules FuzzLabelSelectors"
)
for t in "${targets[@]}"; do
  set -- $t
  echo "== $1 $2 ($time)"
  go test "$1" -run '^$' -fuzz "^$2\$" -fuzztime "$time" -parallel 2
done
echo "fuzz: ${#targets[@]} targets, no crash"
