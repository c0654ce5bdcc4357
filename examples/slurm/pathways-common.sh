# pathways-common.sh: settings shared by start_pathways.sh and
# run_worker_slice.sh. Sourced, not run. Every setting is an environment
# variable with a default; see README.md for the list.

# PATHWAYS_BIN_DIR holds the server and proxy_server binaries (Google's
# containers keep theirs in /pathways).
PATHWAYS_BIN_DIR=${PATHWAYS_BIN_DIR:-/pathways}
# PATHWAYS_DIR is where cluster.env and the logs go: a directory the JAX
# program's machine sees too (a shared home on most clusters).
PATHWAYS_DIR=${PATHWAYS_DIR:-$HOME/pathways}
PATHWAYS_LOG_DIR=${PATHWAYS_LOG_DIR:-$PATHWAYS_DIR/logs}

RM_PORT=${RM_PORT:-29001}
PROXY_PORT=${PROXY_PORT:-29000}
# Worker k of slice s listens on WORKER_PORT + s*hosts_per_slice + k, so that
# workers sharing a machine (a test cluster) do not collide; on a real cluster
# each worker has its own machine and the offset does no harm.
WORKER_PORT=${WORKER_PORT:-29005}

# The shape: INSTANCE_TYPE (tpuv6e:2x4, cpu:4, ...) or, as Google's scripts
# take it, SLICE_SHAPE with TPU_KIND (default tpuv6e). MAX_SLICES slices are
# started; the cluster is announced once MIN_SLICES of them are up.
if [[ -z ${INSTANCE_TYPE:-} ]]; then
	if [[ -n ${SLICE_SHAPE:-} ]]; then
		INSTANCE_TYPE=${TPU_KIND:-tpuv6e}:$SLICE_SHAPE
	else
		INSTANCE_TYPE=cpu:4
	fi
fi
MAX_SLICES=${MAX_SLICES:-1}
MIN_SLICES=${MIN_SLICES:-$MAX_SLICES}

# Scratch storage: gs://$GCS_BUCKET/pathways-scratch/shared as Google's scripts
# set it, or SCRATCH_LOCATION (a gs:// path or a shared directory).
if [[ -z ${SCRATCH_LOCATION:-} ]]; then
	if [[ -n ${GCS_BUCKET:-} ]]; then
		SCRATCH_LOCATION=gs://$GCS_BUCKET/pathways-scratch/shared
	else
		SCRATCH_LOCATION=$PATHWAYS_DIR/scratch
	fi
fi

# WORKER_BACKEND is the workers' --backend: gocpu for cpu slices, the CUDA
# plugin next to the binaries for gpu slices, else the TPU plugin there.
if [[ -z ${WORKER_BACKEND:-} ]]; then
	if [[ $INSTANCE_TYPE == cpu:* ]]; then
		WORKER_BACKEND=gocpu
	elif [[ $INSTANCE_TYPE == gpu:* ]]; then
		WORKER_BACKEND=pjrt:$PATHWAYS_BIN_DIR/xla_cuda_plugin.so
	else
		WORKER_BACKEND=pjrt:$PATHWAYS_BIN_DIR/libtpu.so
	fi
fi

# hosts_per_slice prints how many machines (workers) one slice of
# INSTANCE_TYPE spans: for cpu the leading <H>h of cpu:<H>hx<N> (2 for
# cpu:2hx4) or one, for gpu one, else the slice's chips over the chips of one TPU VM (8 for
# the *1t kinds, else 4), at least one. The resource manager counts the same
# way (rm.ParseInstanceType).
hosts_per_slice() {
	local kind=${INSTANCE_TYPE%%:*} topo=${INSTANCE_TYPE#*:} chips=1 per=4 d
	topo=${topo%_untwisted}
	if [[ $kind == cpu || $kind == gpu ]]; then
		if [[ $topo =~ ^([0-9]+)hx ]]; then echo "${BASH_REMATCH[1]}"; else echo 1; fi
		return
	fi
	[[ $kind == *1t ]] && per=8
	IFS=x read -ra dims <<<"$topo"
	for d in "${dims[@]}"; do chips=$((chips * d)); done
	if ((chips <= per)); then echo 1; else echo $((chips / per)); fi
}

