#!/usr/bin/env bash
# Regenerates the hashed requirement files under scripts/requirements/ that
# scripts/setup_python.sh installs with `pip install --require-hashes`: one per
# JAX environment and Python minor version, every transitive dependency pinned to
# the exact version pip's resolver chose and to the sha256 of the wheel it chose
# for Linux x86_64.
#
# Run it only to change a pin (then commit the files); setup never runs it.
#   scripts/lock_python.sh                    every file
#   scripts/lock_python.sh 0.12.0.1           the files of one JAX version
# Each Python of the table must be installed (pyenv's by default; PYTHON_3_12=...
# names another).
set -euo pipefail
cd "$(dirname "$0")/.."

# jax version|Python minor versions to lock for|the top-level pins besides jax and jaxlib
ENVS=(
  "0.10.2|3.11 3.12 3.13|pathwaysutils==0.1.13 orbax-checkpoint==0.12.8 numpy==2.4.6 cloudpickle==3.1.3 gcsfs==2026.10.1"
  "0.11.1|3.12 3.13|pathwaysutils==0.1.13 orbax-checkpoint==0.12.8 cloudpickle==3.1.3 gcsfs==2026.10.1"
  "0.11.2|3.12 3.13|pathwaysutils==0.1.13 orbax-checkpoint==0.12.8 cloudpickle==3.1.3 gcsfs==2026.10.1"
  "0.12.0.1|3.12 3.13|pathwaysutils==0.1.13 orbax-checkpoint==0.12.8 cloudpickle==3.1.3 gcsfs==2026.10.1"
  "0.12.1|3.12 3.13|pathwaysutils==0.1.13 orbax-checkpoint==0.12.8 cloudpickle==3.1.3 gcsfs==2026.10.1 flax==0.12.12 optax==0.2.8"
)

python_for() { # minor version -> interpreter
  local var="PYTHON_${1//./_}"
  if [ -n "${!var:-}" ]; then echo "${!var}"; return; fi
  ls -d "$(pyenv root 2>/dev/null || echo /root/.pyenv)"/versions/"$1".*/bin/python"$1" 2>/dev/null | sort -V | tail -1
}

mkdir -p scripts/requirements
for env in "${ENVS[@]}"; do
  IFS='|' read -r jax pys pins <<<"$env"
  if [ $# -gt 0 ] && [ "$1" != "$jax" ]; then continue; fi
  for py in $pys; do
    python=$(python_for "$py")
    if [ -z "$python" ]; then echo "lock_python: no Python $py" >&2; exit 1; fi
    out="scripts/requirements/jax$jax-py$py.txt"
    report=$(mktemp)
    # shellcheck disable=SC2086
    "$python" -m pip install --quiet --disable-pip-version-check --dry-run --ignore-installed \
      --only-binary=:all: --report "$report" "jax==$jax" "jaxlib==$jax" $pins
    "$python" - "$report" "$jax" "$("$python" -V 2>&1)" >"$out" <<'EOF'
import json, sys
report, jax, python = sys.argv[1:]
items = json.load(open(report))["install"]
print(f"# JAX {jax} on {python}, Linux x86_64: written by scripts/lock_python.sh, do not edit.")
for it in sorted(items, key=lambda i: i["metadata"]["name"].lower()):
    name, version = it["metadata"]["name"].lower(), it["metadata"]["version"]
    sha = it["download_info"]["archive_info"]["hashes"]["sha256"]
    print(f"{name}=={version} \\\n    --hash=sha256:{sha}")
EOF
    rm -f "$report"
    echo "lock_python: wrote $out ($(grep -c '==' "$out") packages)" >&2
  done
done
