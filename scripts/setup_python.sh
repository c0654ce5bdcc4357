#!/usr/bin/env bash
# Creates the Python interop environments (ignored by git): the stock JAX
# clients that the interop, e2e and corpus tests drive against our servers.
#
#   .venv/               jax/jaxlib 0.10.2, the newest 0.10.x, on Python 3.11 (JAX
#                        0.11 dropped 3.11); without a 3.11, on the newer Python
#   .venv-jax0.11.1/     jax/jaxlib 0.11.1, the seed's Slurm set-up's version
#   .venv-jax0.11.2/     jax/jaxlib 0.11.2, the newest 0.11.x
#   .venv-jax0.12.0.1/   jax/jaxlib 0.12.0.1
#   .venv-jax0.12.1/     jax/jaxlib 0.12.1, the newest
#
# each with pathwaysutils 0.1.13, orbax-checkpoint 0.12.8 and gcsfs 2026.10.1
# (Orbax's gs:// files go through etils.epath to gcsfs), and the newest with
# flax 0.12.12 and optax 0.2.8. Every package,
# transitive ones included, is installed from scripts/requirements/jaxV-pyX.txt
# with `pip install --require-hashes` (scripts/lock_python.sh writes those files).
#
# The 0.11 and 0.12 environments use the newest Python >= 3.12 that has
# requirement files: pyenv's, else one on PATH; else, as root, a Debian 13 root
# made with debootstrap under .cache/debian13/ (its python runs through a
# chroot wrapper). Without any of these they are not made, and their tests skip
# (or fail under PATHWAYS_REQUIRE_INTEROP=1).
#
# Idempotent: an environment whose stamp (requirement file hash and interpreter)
# is unchanged is left alone. Environment:
#   PYTHON        the Python 3.11 of .venv (default: python3 if it is 3.11, else python3.11)
#   PYTHON_NEW    the interpreter of the newer environments (default: found as
#                 above; "debian13": the debootstrap root even where another exists)
set -euo pipefail
cd "$(dirname "$0")/.."

REQS=scripts/requirements
NEWER=(0.11.1 0.11.2 0.12.0.1 0.12.1)

# minor PYTHON: prints "3.11" for an interpreter, nothing if it does not run.
minor() { "$1" -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null || true; }

# executable PYTHON: the interpreter's own path (not a pyenv shim's).
executable() { "$1" -c 'import sys; print(sys.executable)'; }

# make_env DIR PYTHON REQUIREMENTS [CHROOT_RUN]: (re)creates the venv DIR unless
# its stamp matches; CHROOT_RUN is the Debian 13 root's runner when PYTHON is its.
make_env() {
  local dir=$1 python=$2 req=$3 chroot_run=${4:-} stamp want
  stamp="$dir/.pins"
  want="$(sha256sum "$req" | cut -d' ' -f1) $python"
  if [ -x "$dir/bin/python" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
    return 0
  fi
  echo "setup_python: creating $dir from $req with $python" >&2
  rm -rf "$dir"
  "$python" -m venv "$PWD/$dir"
  if [ -n "$chroot_run" ]; then
    # bin/python links to the root's /usr/bin/python3.13: run it in the chroot.
    rm "$dir/bin/python"
    printf '#!/bin/sh\nexec "%s" "%s/bin/python3" "$@"\n' "$chroot_run" "$PWD/$dir" >"$dir/bin/python"
    chmod +x "$dir/bin/python"
  fi
  install_reqs "$dir/bin/python" "$req"
  echo "$want" >"$stamp"
}

# install_reqs PYTHON REQUIREMENTS: the hashes are of Linux x86_64 wheels; elsewhere
# the same versions install without hash checking.
install_reqs() {
  local python=$1 req=$2
  local pip=("$python" -m pip install --quiet --disable-pip-version-check --no-deps --only-binary=:all:)
  if [ "$(uname -s)-$(uname -m)" = "Linux-x86_64" ]; then
    "${pip[@]}" --require-hashes -r "$req"
  else
    echo "setup_python: not Linux x86_64, so the pinned versions install without their hashes" >&2
    "${pip[@]}" -r <(sed -e 's/ *\\$//' -e '/--hash=/d' "$req")
  fi
}

# find_new_python: the newest interpreter >= 3.12 with requirement files.
find_new_python() {
  local best="" bestv=0 p v
  local root
  root=$(pyenv root 2>/dev/null || echo "$HOME/.pyenv")
  for p in "$root"/versions/3.*/bin/python3.* $(compgen -c python3. | sort -u) python3; do
    case $p in */shims/*|*-config|*m) continue ;; esac
    p=$(command -v "$p" 2>/dev/null) || continue
    case $p in */shims/*) continue ;; esac
    v=$(minor "$p")
    [ -n "$v" ] && [ -f "$REQS/jax${NEWER[0]}-py$v.txt" ] || continue
    if [ "$(printf '%s\n%s\n' "$bestv" "$v" | sort -V | tail -1)" = "$v" ] && [ "$v" != "$bestv" ]; then
      best=$p bestv=$v
    fi
  done
  echo "$best"
}

chroot_run="" # the Debian 13 root's runner, when python_new is its
python_new=${PYTHON_NEW:-$(find_new_python)}
if { [ -z "$python_new" ] && [ "$(id -u)" = 0 ]; } || [ "$python_new" = debian13 ]; then
  python_new=$(scripts/setup_debian13.sh)
  chroot_run=$(dirname "$python_new")/run
fi

# The 0.10.2 environment: on Python 3.11, else on the newer Python.
python=${PYTHON:-}
if [ -z "$python" ]; then
  if [ "$(minor python3)" = 3.11 ]; then python=python3; else python=$(command -v python3.11 || true); fi
fi
if [ -n "$python" ] && [ "$(minor "$python")" = 3.11 ]; then
  make_env .venv "$(executable "$python")" "$REQS/jax0.10.2-py3.11.txt"
elif [ -n "$python_new" ]; then
  make_env .venv "$python_new" "$REQS/jax0.10.2-py$(minor "$python_new").txt" "$chroot_run"
fi

if [ -z "$python_new" ]; then
  echo "setup_python: no Python >= 3.12 (pyenv, PATH, or debootstrap as root), so no JAX ${NEWER[*]} environments: their tests skip" >&2
  exit 0
fi
v=$(minor "$python_new")
for jax in "${NEWER[@]}"; do
  req="$REQS/jax$jax-py$v.txt"
  if [ ! -f "$req" ]; then
    echo "setup_python: no $req, so no .venv-jax$jax" >&2
    continue
  fi
  make_env ".venv-jax$jax" "$python_new" "$req" "$chroot_run"
done
