#!/usr/bin/env bash
# The CUDA PJRT plugin as a multi-process client, on a machine with one NVIDIA
# GPU: internal/cmd/gpumultiprocess (see its doc comment) runs two worker
# processes as processes 0 and 1 of one pjrtifrt client (node_id/num_nodes, the
# plugin's topology exchange through our key-value callbacks, here over a
# directory), runs a program on each, does the same with two clients in one
# process, then makes a mock-NCCL client (enable_mock_nccl) that launches a
# two-partition all-reduce spanning two nodes on the one GPU. It prints what
# it measured. Under 5 minutes (the check itself has a 4-minute limit).
#
#   scripts/gpu_multiprocess.sh --build   # here (Go installed): builds .gpubin/gpumultiprocess
#   scripts/gpu_multiprocess.sh           # there: runs it (builds first if Go is there)
#
# For a machine without Go or network (the device machine), build here and
# carry .gpubin (git-ignored; ~9 MB; a cgo binary that needs only glibc).
#
# The plugin, first found wins:
#   1. $PATHWAYS_CUDA_PLUGIN (a path to xla_cuda_plugin.so);
#   2. jax-cuda13-pjrt or jax-cuda12-pjrt installed for python3 (the .so under
#      jax_plugins/xla_cuda1N/; its CUDA libraries come from the nvidia-* wheels
#      beside it, found through the plugin's RPATH);
#   3. with network: the pinned jax-cuda12-pjrt wheel, hash-checked, installed
#      into .gpubin/site with the CUDA 12 libraries of jax-cuda12-plugin[with-cuda]
#      (same version; those are pinned by version only).
# The plugin's sha256 is compared with the pins below and printed either way.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/gpu_common.sh

JAX_CUDA_VERSION=0.11.2
# jax-cuda12-pjrt 0.11.2, manylinux_2_27_x86_64: wheel, and the .so inside it.
CUDA12_WHEEL_SHA256=2133b3afc63307c016ae4980f166b2b3de199759363ead74f7d550eaae953463
# jax-cuda13-pjrt 0.11.2, manylinux_2_27_x86_64: wheel, and the .so inside it.
CUDA13_WHEEL_SHA256=e5ff589d43064913bb74027682d89639c7ea48f9f81c2bae6fc75117e913f93e
CUDA13_SO_SHA256=43d3efd6fd43d8a5d9aa67176e830d81e4ad5fc19fda4ad09cdcc4aebd9f3920
BIN=.gpubin/gpumultiprocess

build() {
	mkdir -p .gpubin
	CGO_ENABLED=1 go build -o "$BIN" ./internal/cmd/gpumultiprocess
	echo "built $BIN ($(du -h "$BIN" | cut -f1))"
}

if [ "${1:-}" = --build ]; then
	build
	exit 0
fi

echo "== machine"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader || {
	echo "no NVIDIA GPU (nvidia-smi failed)"
	exit 1
}

if command -v go >/dev/null; then
	build
elif [ ! -x "$BIN" ]; then
	echo "no Go here and no $BIN: run scripts/gpu_multiprocess.sh --build where Go is, and bring .gpubin"
	exit 1
fi

plugin=${PATHWAYS_CUDA_PLUGIN:-}
[ -n "$plugin" ] || plugin=$(find_cuda_plugin || true)
if [ -z "$plugin" ]; then
	echo "== installing jax-cuda12-pjrt==$JAX_CUDA_VERSION (pinned by sha256)"
	req=$(mktemp)
	echo "jax-cuda12-pjrt==$JAX_CUDA_VERSION --hash=sha256:$CUDA12_WHEEL_SHA256" >"$req"
	python3 -m pip install -q --no-deps --require-hashes --only-binary=:all: --target .gpubin/site -r "$req"
	python3 -m pip install -q --target .gpubin/site "jax-cuda12-plugin[with-cuda]==$JAX_CUDA_VERSION"
	plugin=.gpubin/site/jax_plugins/xla_cuda12/xla_cuda_plugin.so
fi
[ -f "$plugin" ] || {
	echo "no CUDA PJRT plugin at $plugin"
	exit 1
}

echo "== plugin"
sum=$(sha256sum "$plugin" | cut -d' ' -f1)
case "$sum" in
"$CUDA13_SO_SHA256") pin="the pinned jax-cuda13-pjrt $JAX_CUDA_VERSION build" ;;
*) pin="not the pinned jax-cuda13-pjrt $JAX_CUDA_VERSION build" ;;
esac
echo "path: $plugin"
echo "sha256: $sum ($pin)"
python3 -m pip show jax-cuda13-pjrt jax-cuda12-pjrt 2>/dev/null | grep -E '^(Name|Version):' || true

cuda_env

echo "== check"
log=$(mktemp)
status=0
timeout 270 "$BIN" "$plugin" 2>"$log" || status=$?
if [ "$status" != 0 ]; then
	echo "== exit status $status; the plugin's log (last 40 lines):"
	tail -n 40 "$log"
fi
exit "$status"
