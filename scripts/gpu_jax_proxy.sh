#!/usr/bin/env bash
# A stock JAX program through our proxy server, on a worker whose backend is the
# CUDA PJRT plugin, on a machine with an NVIDIA GPU: starts a resource manager
# (--instance_type=gpu:<GPUs>), one worker (--backend=pjrt:<xla_cuda_plugin.so>)
# and the proxy server (examples/server, examples/proxy_server), all on
# 127.0.0.1 with ports they pick (--server_port=0; the addresses come from their
# ready lines), then runs scripts/gpu_jax_proxy.py with JAX_PLATFORMS=proxy:
# jax.devices(), a jit against numpy, a timed 4096x4096 matmul against numpy,
# 256 MiB device_put/device_get against np.copy, MLP training steps with
# donated params against numpy, and PRNG keys against local CPU JAX. It prints
# one "name: value" line per measurement and "gpu_jax_proxy: ok", or the
# failures and the servers' log tails. Under 4 minutes (the check has a
# 180-second deadline, PATHWAYS_GPU_TIMEOUT, and stopping the servers takes
# at most 15 more).
#
#   scripts/gpu_jax_proxy.sh --build          # here (Go installed): builds .gpubin/{server,proxy_server}.gz
#   scripts/gpu_jax_proxy.sh                  # there, from the repository root: runs the check
#   scripts/gpu_jax_proxy.sh --no-gpu-check   # the same on XLA's CPU plugin, no GPU, --instance_type=cpu:1
#
# For a machine without Go or network (the device machine), build here and
# carry .gpubin (git-ignored): the two cgo binaries, stripped and gzipped
# (~24 MB; they need only glibc), are unpacked into a temporary directory.
# Without .gpubin and with Go, the run builds them first.
#
# Environment:
#   PATHWAYS_GPU_PLUGIN   the PJRT plugin (.so) of the worker. Default: with a GPU,
#                         $PATHWAYS_CUDA_PLUGIN or the xla_cuda_plugin.so that
#                         jax-cuda13-pjrt (or -cuda12-) installed for the Python
#                         below; with --no-gpu-check, .plugins/lammps_cpu.so (make setup)
#   PATHWAYS_GPU_PYTHON   the Python with jax and jaxlib that runs the program.
#                         Default: python3 if it has jax, else /opt/torch/.venv/bin/python3
#   PATHWAYS_GPU_INSTANCE_TYPE  the RM's instance type (default gpu:<GPUs nvidia-smi
#                         lists>, or cpu:1 with --no-gpu-check)
#   PATHWAYS_GPU_TIMEOUT  seconds for the whole check (default 180)
#   PATHWAYS_GPU_KEEP=1   keep the temporary directory (binaries, servers' logs)
#   and the PATHWAYS_GPU_* sizes that scripts/gpu_jax_proxy.py documents.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/gpu_common.sh

BINS=(server proxy_server)

build() {
	mkdir -p .gpubin
	local tmp
	tmp=$(mktemp -d)
	CGO_ENABLED=1 go build -trimpath -ldflags='-s -w' -o "$tmp/" ./examples/server ./examples/proxy_server
	for b in "${BINS[@]}"; do
		gzip -9 -c "$tmp/$b" >".gpubin/$b.gz"
		echo "built .gpubin/$b.gz ($(du -h ".gpubin/$b.gz" | cut -f1); $(du -h "$tmp/$b" | cut -f1) unpacked)"
	done
	rm -rf "$tmp"
	echo ".gpubin: $(du -sh .gpubin | cut -f1) in all"
}

gpu=1
case "${1:-}" in
--build)
	build
	exit 0
	;;
--no-gpu-check) gpu=0 ;;
"") ;;
*)
	echo "usage: scripts/gpu_jax_proxy.sh [--build | --no-gpu-check]" >&2
	exit 2
	;;
esac

deadline=$((SECONDS + ${PATHWAYS_GPU_TIMEOUT:-180}))
left() { echo $((deadline - SECONDS)); }

echo "== machine"
if [ $gpu = 1 ]; then
	nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader || {
		echo "no NVIDIA GPU (nvidia-smi failed); --no-gpu-check runs the check on a CPU plugin"
		exit 1
	}
	ngpu=$(nvidia-smi -L | grep -c '^GPU ' || true)
	[ "$ngpu" -gt 0 ] || ngpu=1
	instance_type=${PATHWAYS_GPU_INSTANCE_TYPE:-gpu:$ngpu}
	expect=gpu
	cuda_env
else
	echo "no GPU check (--no-gpu-check)"
	instance_type=${PATHWAYS_GPU_INSTANCE_TYPE:-cpu:1}
	expect=cpu
fi
devices=${instance_type#*:}
echo "$(uname -sm), $(nproc) CPUs"

pick_python() {
	if [ -n "${PATHWAYS_GPU_PYTHON:-}" ]; then
		echo "$PATHWAYS_GPU_PYTHON"
		return
	fi
	local p
	for p in python3 /opt/torch/.venv/bin/python3; do
		if command -v "$p" >/dev/null && "$p" -c 'import importlib.util as u; raise SystemExit(u.find_spec("jax") is None)' 2>/dev/null; then
			echo "$p"
			return
		fi
	done
	return 1
}
py=$(pick_python) || {
	echo "no Python with jax: set PATHWAYS_GPU_PYTHON"
	exit 1
}

plugin=${PATHWAYS_GPU_PLUGIN:-}
if [ -z "$plugin" ] && [ $gpu = 1 ]; then
	plugin=${PATHWAYS_CUDA_PLUGIN:-$(find_cuda_plugin "$py" || true)}
elif [ -z "$plugin" ]; then
	plugin=.plugins/lammps_cpu.so
fi
[ -f "$plugin" ] || {
	echo "no PJRT plugin at '$plugin': set PATHWAYS_GPU_PLUGIN (or install jax-cuda13-pjrt for $py)"
	exit 1
}
plugin=$(cd "$(dirname "$plugin")" && pwd)/$(basename "$plugin")

echo "== versions"
echo "python: $py ($("$py" -c 'import sys; print(sys.version.split()[0])'))"
"$py" - <<'EOF' || true
from importlib import metadata
for name in ("jax", "jaxlib", "jax-cuda13-pjrt", "jax-cuda13-plugin", "jax-cuda12-pjrt", "jax-cuda12-plugin"):
    try:
        print(f"{name}: {metadata.version(name)}")
    except metadata.PackageNotFoundError:
        pass
EOF
echo "plugin: $plugin"
echo "plugin sha256: $(sha256sum "$plugin" | cut -d' ' -f1)"
echo "instance type: $instance_type"

if [ ! -f .gpubin/server.gz ] || [ ! -f .gpubin/proxy_server.gz ]; then
	if command -v go >/dev/null; then
		build
	else
		echo "no Go here and no .gpubin/{server,proxy_server}.gz: run scripts/gpu_jax_proxy.sh --build where Go is, and bring .gpubin"
		exit 1
	fi
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/gpu_jax_proxy.XXXXXX")
declare -A pid=()
order=(proxy worker rm)

stop() {
	local name p i
	for name in "${order[@]}"; do
		p=${pid[$name]:-}
		[ -n "$p" ] || continue
		kill -TERM "$p" 2>/dev/null || true
		for ((i = 0; i < 50; i++)); do
			kill -0 "$p" 2>/dev/null || break
			sleep 0.1
		done
		kill -KILL "$p" 2>/dev/null || true
		wait "$p" 2>/dev/null || true
	done
}

tails() {
	local name
	for name in rm worker proxy; do
		[ -f "$work/$name.log" ] || continue
		echo "== $name: stdout, then the last 40 lines of its log"
		cat "$work/$name.out"
		tail -n 40 "$work/$name.log"
	done
}

finish() {
	local status=$?
	stop
	if [ "$status" != 0 ]; then
		echo "== exit status $status"
		tails
	fi
	if [ "${PATHWAYS_GPU_KEEP:-}" = 1 ]; then
		echo "kept $work"
	else
		rm -rf "$work"
	fi
	exit "$status"
}
trap finish EXIT
trap 'exit 130' INT TERM

mkdir "$work/bin"
for b in "${BINS[@]}"; do
	if command -v gzip >/dev/null; then
		gzip -dc ".gpubin/$b.gz" >"$work/bin/$b"
	else
		"$py" -c 'import gzip, shutil, sys; shutil.copyfileobj(gzip.open(sys.argv[1]), sys.stdout.buffer)' ".gpubin/$b.gz" >"$work/bin/$b"
	fi
	chmod +x "$work/bin/$b"
done

# start NAME CMD...: runs a server, stdout (its ready line) and stderr (its log) to files.
start() {
	local name=$1
	shift
	"$@" >"$work/$name.out" 2>"$work/$name.log" &
	pid[$name]=$!
}

# ready NAME PATTERN SECONDS: waits for the server's ready line and prints it.
ready() {
	local name=$1 pattern=$2 until=$((SECONDS + $3))
	[ "$until" -le "$deadline" ] || until=$deadline
	while ! grep -q "$pattern" "$work/$name.out"; do
		if ! kill -0 "${pid[$name]}" 2>/dev/null; then
			echo "$name exited before it was ready" >&2
			return 1
		fi
		if [ "$SECONDS" -ge "$until" ]; then
			echo "$name not ready after $3 s" >&2
			return 1
		fi
		sleep 0.2
	done
	grep -m1 "$pattern" "$work/$name.out"
}

echo "== cluster"
t0=$SECONDS
common=(--listen_address=127.0.0.1 --server_port=0 --drain_timeout=5s)
start rm "$work/bin/server" --node_type=resource_manager "${common[@]}" \
	--instance_type="$instance_type" --instance_count=1
line=$(ready rm "^resource manager ready on " 20)
echo "$line"
rm_addr=$(echo "$line" | sed -n 's/^resource manager ready on \([^ ]*\).*/\1/p')

HOST_ADDRESS=127.0.0.1 MEGASCALE_SLICE_ID=0 start worker "$work/bin/server" "${common[@]}" \
	--resource_manager_address="$rm_addr" --backend="pjrt:$plugin"
ready worker "^worker ready on " 90

start proxy "$work/bin/proxy_server" "${common[@]}" --resource_manager_address="$rm_addr"
line=$(ready proxy "proxy server ready on " 30)
echo "$line"
proxy_addr=$(echo "$line" | sed -n 's/.*proxy server ready on \([^ ]*\).*/\1/p')
echo "cluster_start_seconds: $((SECONDS - t0))"

echo "== JAX through the proxy at $proxy_addr"
budget=$(left)
if [ "$budget" -lt 30 ]; then
	echo "only $budget s left of the check's deadline"
	exit 1
fi
timeout --kill-after=5 "$budget" env JAX_PLATFORMS=proxy JAX_BACKEND_TARGET="grpc://$proxy_addr" \
	IFRT_PROXY_USE_INSECURE_GRPC_CREDENTIALS=true PATHWAYS_GPU_EXPECT=$expect PATHWAYS_GPU_DEVICES="$devices" \
	"$py" scripts/gpu_jax_proxy.py
