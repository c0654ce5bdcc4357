#!/usr/bin/env bash
# Fails when the checked-in generated protobuf code is not what
# scripts/genproto.sh produces from the checked-in .proto files.
#
# Regenerates into the work tree, then asks git whether anything under the
# proto directories changed, appeared or vanished. Run it on a tree whose
# proto directories have no uncommitted edits (as in CI); otherwise those
# edits are reported as well.
set -euo pipefail
cd "$(dirname "$0")/.."

mapfile -t DIRS < <(git ls-files '*.proto' | xargs -n1 dirname | sort -u)

bash scripts/genproto.sh

changes=$(git status --porcelain --untracked-files=all -- "${DIRS[@]}")
if [ -n "$changes" ]; then
  echo "verify_generate: generated code is stale; run scripts/genproto.sh and commit the result:" >&2
  echo "$changes" >&2
  git --no-pager diff --stat -- "${DIRS[@]}" >&2
  exit 1
fi
echo "verify_generate: generated code is up to date" >&2
