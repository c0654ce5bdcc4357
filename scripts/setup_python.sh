#!/usr/bin/env bash
# Creates the Python interop environment in .venv (ignored by git): the stock JAX
# client that the interop tests drive against our servers.
#
# Pins: the machines run Python 3.11, and JAX 0.11 dropped Python 3.11, so jax and
# jaxlib stay on 0.10.2, the newest 0.10.x release. Idempotent: a second run with the
# same pins only checks a stamp file and returns.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-python3}
VENV=.venv
PINS=(
  "jax==0.10.2"
  "jaxlib==0.10.2"
  "pathwaysutils==0.1.13"
  "numpy==2.4.6"
)
stamp="$VENV/.pins"
want=$(printf '%s\n' "${PINS[@]}")

if [ -x "$VENV/bin/python" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
  exit 0
fi
echo "setup_python: creating $VENV with ${PINS[*]}" >&2
"$PYTHON" -m venv "$VENV"
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "${PINS[@]}"
printf '%s\n' "$want" > "$stamp"
