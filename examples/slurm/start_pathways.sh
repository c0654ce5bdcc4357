#!/usr/bin/env bash
#SBATCH --job-name=pathways-service
#SBATCH --nodes=1
#SBATCH --ntasks=1
#SBATCH --output=pathways-service-%j.out
#
# start_pathways.sh: the Pathways service job. Submit it with sbatch:
#
#   INSTANCE_TYPE=cpu:4 MAX_SLICES=2 PATHWAYS_BIN_DIR=$PWD/bin sbatch start_pathways.sh
#
# On the node Slurm gives it, it runs the resource manager (RM_PORT, 29001)
# and the IFRT Proxy server (PROXY_PORT, 29000), submits the workers as a job
# array (run_worker_slice.sh, one array task per slice), and once MIN_SLICES
# slices are up writes $PATHWAYS_DIR/cluster.env for JAX programs:
#
#   set -a; . ~/pathways/cluster.env; set +a   # JAX_PLATFORMS, JAX_BACKEND_TARGET, ...
#   python3 train.py
#
# It runs until cancelled (scancel, or stop_pathways.sh), or until the RM or
# the proxy stops; then it cancels the workers and removes cluster.env. Slurm
# requeues a worker array task whose nodes fail; the RM and the proxy keep
# running, so JAX programs keep their address. Settings: README.md.
set -euo pipefail

# sbatch runs a copy of this script; the others are next to the original.
if [[ -z ${PATHWAYS_SLURM_DIR:-} ]]; then
	cmd=$(scontrol show job -o "$SLURM_JOB_ID" | grep -o 'Command=[^ ]*' | cut -d= -f2)
	PATHWAYS_SLURM_DIR=$(dirname "$cmd")
fi
export PATHWAYS_SLURM_DIR
# shellcheck source=pathways-common.sh
. "$PATHWAYS_SLURM_DIR/pathways-common.sh"

# PATHWAYS_HOST is the address the workers and JAX programs reach this node at.
PATHWAYS_HOST=${PATHWAYS_HOST:-$(hostname)}
# How long to wait for MIN_SLICES slices before giving up (seconds).
PATHWAYS_START_TIMEOUT=${PATHWAYS_START_TIMEOUT:-900}

log() { echo "start_pathways: $(date -u +%H:%M:%S) $*"; }

mkdir -p "$PATHWAYS_DIR" "$PATHWAYS_LOG_DIR"
[[ $SCRATCH_LOCATION == gs://* ]] || mkdir -p "${SCRATCH_LOCATION#file://}"
for b in server proxy_server; do
	[[ -x $PATHWAYS_BIN_DIR/$b ]] || { log "no $PATHWAYS_BIN_DIR/$b (set PATHWAYS_BIN_DIR)"; exit 1; }
done
if ((MIN_SLICES < 1 || MIN_SLICES > MAX_SLICES)); then
	log "MIN_SLICES=$MIN_SLICES must be in [1, MAX_SLICES=$MAX_SLICES]"
	exit 1
fi
HOSTS=$(hosts_per_slice)
ENV_FILE=$PATHWAYS_DIR/cluster.env
RM_ADDRESS=$PATHWAYS_HOST:$RM_PORT
PROXY_ADDRESS=$PATHWAYS_HOST:$PROXY_PORT

rm_pid= proxy_pid= workers=
cleanup() {
	trap - EXIT INT TERM
	if [[ -n $workers ]]; then
		log "cancelling the workers (job $workers)"
		scancel "$workers" 2>/dev/null || true
	fi
	# Remove cluster.env only if it is still this job's.
	if [[ -f $ENV_FILE ]] && grep -qx "PATHWAYS_SERVICE_JOB_ID=$SLURM_JOB_ID" "$ENV_FILE"; then
		rm -f "$ENV_FILE"
	fi
	for pid in $proxy_pid $rm_pid; do
		kill "$pid" 2>/dev/null || true
	done
	wait 2>/dev/null || true
	log "stopped"
}
trap cleanup EXIT
trap 'log "cancelled"; exit 0' INT TERM

log "job $SLURM_JOB_ID on $(hostname): $MAX_SLICES x $INSTANCE_TYPE ($HOSTS hosts each), RM $RM_ADDRESS, proxy $PROXY_ADDRESS"

"$PATHWAYS_BIN_DIR/server" \
	--server_port="$RM_PORT" \
	--node_type=resource_manager \
	--instance_type="$INSTANCE_TYPE" \
	--instance_count="$MAX_SLICES" \
	--gcs_scratch_location="$SCRATCH_LOCATION" \
	--enable_gcs_olm=false \
	>"$PATHWAYS_LOG_DIR/rm-$SLURM_JOB_ID.out" 2>"$PATHWAYS_LOG_DIR/rm-$SLURM_JOB_ID.err" &
rm_pid=$!

# wait_for DESCRIPTION COMMAND...: until the command succeeds, while the RM
# (and the proxy, once started) run, for at most PATHWAYS_START_TIMEOUT.
wait_for() {
	local what=$1 deadline=$((SECONDS + PATHWAYS_START_TIMEOUT))
	shift
	until "$@"; do
		for pid in $rm_pid $proxy_pid; do
			if ! kill -0 "$pid" 2>/dev/null; then
				log "a server stopped while waiting for $what; see $PATHWAYS_LOG_DIR/*-$SLURM_JOB_ID.err"
				exit 1
			fi
		done
		if ((SECONDS > deadline)); then
			log "gave up waiting for $what after ${PATHWAYS_START_TIMEOUT}s"
			exit 1
		fi
		sleep 1
	done
}
# printed FILE LINE: whether a server has printed its ready line.
printed() { grep -qF "$2" "$1" 2>/dev/null; }
wait_for "the resource manager" printed "$PATHWAYS_LOG_DIR/rm-$SLURM_JOB_ID.out" "resource manager ready on"

proxy_args=(
	--server_port="$PROXY_PORT"
	--resource_manager_address="$RM_ADDRESS"
	--gcs_scratch_location="$SCRATCH_LOCATION"
)
if ((MIN_SLICES < MAX_SLICES)); then
	proxy_args+=(--num_elastic_instances=$((MAX_SLICES - MIN_SLICES)))
fi
# PROXY_ARGS: more proxy flags, e.g. "--xla_dump_to=/tmp/xla".
# shellcheck disable=SC2206
proxy_args+=(${PROXY_ARGS:-})
"$PATHWAYS_BIN_DIR/proxy_server" "${proxy_args[@]}" \
	>"$PATHWAYS_LOG_DIR/proxy-$SLURM_JOB_ID.out" 2>"$PATHWAYS_LOG_DIR/proxy-$SLURM_JOB_ID.err" &
proxy_pid=$!

# The workers: one array task per slice, HOSTS nodes each. WORKER_SBATCH_ARGS
# adds sbatch options (partition, account, --gres, time limit).
# shellcheck disable=SC2206
worker_sbatch=(
	--parsable
	--array=0-$((MAX_SLICES - 1))
	--nodes="$HOSTS"
	--ntasks-per-node=1
	--output="$PATHWAYS_LOG_DIR/worker-%A_%a.out"
	--export=ALL,PATHWAYS_SLURM_DIR="$PATHWAYS_SLURM_DIR",PATHWAYS_RM_ADDRESS="$RM_ADDRESS",MEGASCALE_COORDINATOR_ADDRESS="$PATHWAYS_HOST",INSTANCE_TYPE="$INSTANCE_TYPE",MAX_SLICES="$MAX_SLICES",SCRATCH_LOCATION="$SCRATCH_LOCATION",WORKER_BACKEND="$WORKER_BACKEND"
	${WORKER_SBATCH_ARGS:-}
)
workers=$(sbatch "${worker_sbatch[@]}" "$PATHWAYS_SLURM_DIR/run_worker_slice.sh")
workers=${workers%%;*}
log "submitted the workers: job array $workers"

# slices_up: whether at least MIN_SLICES slices have all their hosts ready (each
# worker writes a ready file once the RM has taken it in).
slices_up() {
	local up=0 s n
	for ((s = 0; s < MAX_SLICES; s++)); do
		n=$(find "$PATHWAYS_LOG_DIR" -maxdepth 1 -name "ready-${workers}_$s-*" 2>/dev/null | wc -l)
		((n >= HOSTS)) && up=$((up + 1))
	done
	((up >= MIN_SLICES))
}
wait_for "$MIN_SLICES of $MAX_SLICES slices" slices_up
# The proxy listens at once but serves only once it has the cluster; it then
# prints the line xpk tells Pathways users to wait for.
wait_for "the proxy server" printed "$PATHWAYS_LOG_DIR/proxy-$SLURM_JOB_ID.out" "IFRT proxy server started with status OK"

tmp=$(mktemp "$PATHWAYS_DIR/.cluster.env.XXXXXX")
cat >"$tmp" <<EOF
# Written by start_pathways.sh, Slurm job $SLURM_JOB_ID, $(date -u +%Y-%m-%dT%H:%M:%SZ).
# Read it with: set -a; . $ENV_FILE; set +a
JAX_PLATFORMS=proxy
JAX_BACKEND_TARGET=grpc://$PROXY_ADDRESS
IFRT_PROXY_USE_INSECURE_GRPC_CREDENTIALS=true
PATHWAYS_PROXY_ADDRESS=$PROXY_ADDRESS
PATHWAYS_RM_ADDRESS=$RM_ADDRESS
PATHWAYS_INSTANCE_TYPE=$INSTANCE_TYPE
PATHWAYS_SLICES=$MAX_SLICES
PATHWAYS_SERVICE_JOB_ID=$SLURM_JOB_ID
PATHWAYS_WORKER_JOB_ID=$workers
EOF
mv "$tmp" "$ENV_FILE"
log "cluster up: wrote $ENV_FILE (JAX_BACKEND_TARGET=grpc://$PROXY_ADDRESS)"

# Serve until cancelled or until the RM or the proxy stops.
set +e
wait -n "$rm_pid" "$proxy_pid"
status=$?
log "a server stopped (exit status $status); see $PATHWAYS_LOG_DIR/*-$SLURM_JOB_ID.err"
exit 1
