#!/usr/bin/env bash
# Installs the pinned PJRT plugins that the pjrt tests and benchmarks load into
# .plugins/ (ignored by git) and links each shared library to a stable name:
#
#   .plugins/cpu.so          xla-cpu-pjrt 0.0.1 (OpenXLA's CPU plugin, PJRT API 0.81)
#   .plugins/lammps_cpu.so   lammps-jax-pjrt-cpu 0.11.2 (XLA CPU plugin built from
#                            jaxlib 0.11.2's XLA)
#   .plugins/libtpu.so       libtpu 0.0.51 (loads and reports its version without a TPU)
#
# The wheels are fetched with pip for a fixed platform and Python tag, never
# installed: their metadata may ask for a newer Python than the machine has, but the
# .so inside is Python-agnostic, so the script only unzips it. Each wheel is checked
# against its pinned sha256.
#
# Idempotent: a second run with the same pins only compares a stamp file and exits.
# Environment:
#   PLUGINS_DIR   where to install (default .plugins at the repository root)
#   PLUGINS       which plugins to install, space separated (default "cpu lammps_cpu libtpu")
#   PYTHON        the interpreter whose pip downloads the wheels (default python3)
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-python3}
DIR=${PLUGINS_DIR:-.plugins}
WANT=${PLUGINS:-cpu lammps_cpu libtpu}

# name|requirement|pip platform|sha256 of the wheel|path of the .so inside the wheel
PINS=(
  "cpu|xla-cpu-pjrt==0.0.1|manylinux_2_27_x86_64|55837b6b7b47daa717f2d9a5a03563ea0ceaa338d06a81a1e2d3f060d960decc|xla_plugins/xla_cpu_pjrt/xla_cpu_pjrt.so"
  "lammps_cpu|lammps-jax-pjrt-cpu==0.11.2|manylinux_2_27_x86_64|1319390d948b39f69f7dade496b7c385149d9ca6097a6b62114da113216d9ad1|lammps_jax_pjrt_cpu/pjrt_c_api_cpu_plugin.so"
  "libtpu|libtpu==0.0.51|manylinux_2_31_x86_64|aeb662a3174a89fd9a94ac64c965a72f43c65436f5546abbcb8968c9d9552631|libtpu/libtpu.so"
)

if [ "$(uname -s)-$(uname -m)" != "Linux-x86_64" ]; then
  echo "setup_plugins: only linux x86_64 wheels are pinned; skipping" >&2
  exit 0
fi

selected=()
for pin in "${PINS[@]}"; do
  name=${pin%%|*}
  for w in $WANT; do
    if [ "$w" = "$name" ]; then selected+=("$pin"); fi
  done
done

stamp="$DIR/.pins"
want=$(printf '%s\n' "${selected[@]}")
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
  ok=1
  for pin in "${selected[@]}"; do
    [ -e "$DIR/${pin%%|*}.so" ] || ok=0
  done
  if [ $ok = 1 ]; then exit 0; fi
fi

mkdir -p "$DIR/wheels"
for pin in "${selected[@]}"; do
  IFS='|' read -r name req platform sha sopath <<<"$pin"
  pkg=${req%%==*}
  ver=${req##*==}
  dest="$DIR/$pkg-$ver"
  if [ ! -f "$dest/$sopath" ]; then
    wheel=$(ls "$DIR/wheels/"*.whl 2>/dev/null | grep -i "/${pkg//-/_}-${ver}-" || true)
    if [ -z "$wheel" ]; then
      echo "setup_plugins: downloading $req" >&2
      "$PYTHON" -m pip download --quiet --disable-pip-version-check --no-deps \
        --only-binary=:all: --python-version 3.12 --implementation cp \
        --platform "$platform" --dest "$DIR/wheels" "$req"
      wheel=$(ls "$DIR/wheels/"*.whl | grep -i "/${pkg//-/_}-${ver}-")
    fi
    got=$(sha256sum "$wheel" | cut -d' ' -f1)
    if [ "$got" != "$sha" ]; then
      echo "setup_plugins: $wheel has sha256 $got, want $sha" >&2
      rm -f "$wheel"
      exit 1
    fi
    rm -rf "$dest.tmp"
    mkdir -p "$dest.tmp"
    "$PYTHON" -m zipfile -e "$wheel" "$dest.tmp"
    rm -rf "$dest"
    mv "$dest.tmp" "$dest"
    rm -f "$wheel"
  fi
  ln -sfn "$pkg-$ver/$sopath" "$DIR/$name.so"
  echo "setup_plugins: $DIR/$name.so -> $dest/$sopath" >&2
done
rmdir "$DIR/wheels" 2>/dev/null || true
printf '%s\n' "$want" > "$stamp"
