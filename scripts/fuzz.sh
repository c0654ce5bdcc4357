#!/usr/bin/env bash
# Runs every Fuzz* test of the module for FUZZTIME each (default 20s), with
# FUZZPARALLEL workers (default: one per CPU), all of them even when one fails,
# then prints one line per target (PASS or FAIL, with where its log is) and
# exits 1 if any failed. Failures are written under the
# package's testdata/fuzz, where go test replays them.
set -uo pipefail
cd "$(dirname "$0")/.."
fuzztime=${FUZZTIME:-20s}
parallel=()
if [[ -n "${FUZZPARALLEL:-}" ]]; then
  parallel=(-parallel "$FUZZPARALLEL")
fi
logs=$(mktemp -d "${TMPDIR:-/tmp}/fuzz.XXXXXX")
results=()
failed=0
for pkg in $(go list ./...); do
  list=$(go test -list '^Fuzz' "$pkg" 2>&1) || {
    results+=("FAIL  $pkg (go test -list: $(echo "$list" | tail -1))")
    failed=1
    continue
  }
  for fuzz in $(echo "$list" | grep '^Fuzz'); do
    log="$logs/$(echo "$pkg" | tr / _).$fuzz.log"
    echo "fuzz: $pkg $fuzz ($fuzztime)" >&2
    if go test -run '^$' -fuzz "^${fuzz}\$" -fuzztime "$fuzztime" ${parallel[@]+"${parallel[@]}"} "$pkg" >"$log" 2>&1; then
      results+=("PASS  $pkg $fuzz")
    else
      results+=("FAIL  $pkg $fuzz (log: $log)")
      tail -20 "$log" >&2
      failed=1
    fi
  done
done
echo "fuzz summary (FUZZTIME=$fuzztime):"
printf '  %s\n' "${results[@]}"
exit $failed
