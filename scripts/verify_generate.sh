#!/usr/bin/env bash
# Fails when the checked-in generated code is not what the generators produce
# from their checked-in inputs: the protobuf code (scripts/genproto.sh from the
# .proto files) and pjrt's C trampolines and their Go side
# (internal/cmd/pjrtgen from pjrt/pjrt_c_api.h and pjrt/functions.txt).
#
# Regenerates into the work tree, then asks git whether anything under the
# proto directories or among pjrt's generated files changed, appeared or
# vanished. Run it on a tree where those have no uncommitted edits (as in CI);
# otherwise the edits are reported as well.
set -euo pipefail
cd "$(dirname "$0")/.."

mapfile -t DIRS < <(git ls-files '*.proto' | xargs -n1 dirname | sort -u)
DIRS+=('pjrt/*_gen.*')

bash scripts/genproto.sh
go generate ./pjrt

changes=$(git status --porcelain --untracked-files=all -- "${DIRS[@]}")
if [ -n "$changes" ]; then
  echo "verify_generate: generated code is stale; run make generate and commit the result:" >&2
  echo "$changes" >&2
  git --no-pager diff --stat -- "${DIRS[@]}" >&2
  exit 1
fi
echo "verify_generate: generated code is up to date" >&2
