#!/usr/bin/env bash
# setup_debian13.sh: a Debian 13 (trixie) root with python3.13 under
# .cache/debian13/ (ignored by git), for machines without a Python >= 3.12,
# which jaxlib 0.11 and later need. scripts/setup_python.sh runs it as root when
# it finds no such Python, and builds the newer JAX environments with it.
#
# Prints the path of .cache/debian13/python3.13, a wrapper that runs the root's
# interpreter in a chroot. The wrapper gives the chroot this machine's /proc,
# /dev, /sys, /tmp ($TMPDIR too) and the repository at their own paths, in a
# mount namespace of its own, and shares the network, so a JAX client in it
# reaches servers on loopback. .cache/debian13/run PROGRAM ARGS... runs any
# program of the root that way.
#
# Needs root (debootstrap, chroot, mount). Idempotent: a root that is already
# made is only checked. The mirror is the first Debian one in this machine's
# apt sources. Environment:
#   DEBOOTSTRAP_DEB_VERSION   the debootstrap package to install if it is missing
set -euo pipefail
cd "$(dirname "$0")/.."

DEBOOTSTRAP_DEB_VERSION=${DEBOOTSTRAP_DEB_VERSION:-1.0.128+nmu2+deb12u2}
DIR=$PWD/.cache/debian13
ROOT=$DIR/root

log() { echo "setup_debian13: $*" >&2; }
[[ $(id -u) == 0 ]] || { log "needs root"; exit 1; }

if [[ ! -x $ROOT/usr/bin/python3.13 || ! -f $ROOT/.done ]]; then
  if ! command -v debootstrap >/dev/null; then
    log "installing debootstrap $DEBOOTSTRAP_DEB_VERSION"
    apt-get update -q >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
      "debootstrap=$DEBOOTSTRAP_DEB_VERSION" >/dev/null
  fi
  mirror=$(grep -hoE '^(URIs:|deb) +[^ ]+' /etc/apt/sources.list /etc/apt/sources.list.d/*.sources 2>/dev/null |
    awk '{print $2}' | grep -v security | head -1 || true)
  [[ -n $mirror ]] || { log "no Debian mirror in the apt sources"; exit 1; }
  log "making a Debian 13 root in $ROOT (about a minute)"
  rm -rf "$ROOT"
  mkdir -p "$DIR"
  debootstrap --variant=minbase --include=python3.13,python3.13-venv,ca-certificates \
    trixie "$ROOT" "$mirror" >"$DIR/debootstrap.log" 2>&1 ||
    { log "debootstrap failed; see $DIR/debootstrap.log"; exit 1; }
  touch "$ROOT/.done"
fi
# Name resolution, localhost and the trusted certificates (pip's HTTPS) as this
# machine has them.
cp /etc/resolv.conf /etc/hosts "$ROOT/etc/"
cp /etc/ssl/certs/ca-certificates.crt "$ROOT/etc/ssl/certs/ca-certificates.crt"

{
  echo '#!/bin/sh'
  echo '# Written by scripts/setup_debian13.sh: runs PROGRAM ARGS... of the Debian 13'
  echo '# root in a chroot that sees /proc, /dev, /sys, /tmp, $TMPDIR and the'
  echo '# repository at their own paths, in the current directory.'
  echo "export DEBIAN13_ROOT='$ROOT' DEBIAN13_REPO='$PWD'"
  cat <<'EOF'
exec unshare --mount --propagation private sh -c '
  for d in /proc /sys /dev /tmp "${TMPDIR:-/tmp}" "$DEBIAN13_REPO"; do
    mkdir -p "$DEBIAN13_ROOT$d" && mount --rbind "$d" "$DEBIAN13_ROOT$d" || exit 1
  done
  exec chroot "$DEBIAN13_ROOT" /bin/sh -c "cd \"\$0\" 2>/dev/null || cd /; exec \"\$@\"" "$PWD" "$@"
' sh "$@"
EOF
} >"$DIR/run"
printf '#!/bin/sh\nexec "%s" /usr/bin/python3.13 "$@"\n' "$DIR/run" >"$DIR/python3.13"
chmod +x "$DIR/run" "$DIR/python3.13"
echo "$DIR/python3.13"
