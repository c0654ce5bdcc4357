#!/usr/bin/env bash
# Runs every Fuzz* test of the module for FUZZTIME each (default 20s), with
# FUZZPARALLEL workers (default: one per CPU). Failures are written under the
# package's testdata/fuzz, where go test replays them.
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime=${FUZZTIME:-20s}
parallel=()
if [[ -n "${FUZZPARALLEL:-}" ]]; then
  parallel=(-parallel "$FUZZPARALLEL")
fi
for pkg in $(go list ./...); do
  for fuzz in $(go test -list '^Fuzz' "$pkg" | grep '^Fuzz' || true); do
    echo "fuzz: $pkg $fuzz" >&2
    go test -run '^$' -fuzz "^${fuzz}\$" -fuzztime "$fuzztime" ${parallel[@]+"${parallel[@]}"} "$pkg"
  done
done
