#!/usr/bin/env bash
#SBATCH --job-name=pathways-workers
#SBATCH --requeue
#
# run_worker_slice.sh: one slice of Pathways workers, as one task of the job
# array that start_pathways.sh submits (SLURM_ARRAY_TASK_ID is the slice).
# It runs one worker on each node of its allocation, with the MEGASCALE_*
# variables Google's scripts set, registered with the resource manager at
# PATHWAYS_RM_ADDRESS. Slurm requeues the task if its nodes fail (--requeue);
# the workers then register again under the same slice.
#
# Not meant to be submitted by hand: start_pathways.sh passes its settings.
set -euo pipefail

# shellcheck source=pathways-common.sh
. "$PATHWAYS_SLURM_DIR/pathways-common.sh"

: "${PATHWAYS_RM_ADDRESS:?set by start_pathways.sh}"
SLICE=${SLURM_ARRAY_TASK_ID:?run as a job array task}
export MEGASCALE_NUM_SLICES=$MAX_SLICES
export MEGASCALE_SLICE_ID=$SLICE
export MEGASCALE_COORDINATOR_ADDRESS=${MEGASCALE_COORDINATOR_ADDRESS:-${PATHWAYS_RM_ADDRESS%:*}}
# Worker k of slice s listens on WORKER_PORT + s*hosts + k (hosts per slice),
# so that no two workers share a port when slices or the hosts of a slice
# share a machine (a test cluster); on a real cluster the offsets do no harm.
export PATHWAYS_WORKER_PORT_BASE=$((WORKER_PORT + SLICE * $(hosts_per_slice)))
# Each worker's ready file: ready-<array job>_<slice>-<node index>.
export PATHWAYS_READY_PREFIX=$PATHWAYS_LOG_DIR/ready-${SLURM_ARRAY_JOB_ID}_$SLICE
rm -f "$PATHWAYS_READY_PREFIX"-*
export PATHWAYS_BIN_DIR PATHWAYS_RM_ADDRESS SCRATCH_LOCATION WORKER_BACKEND

echo "run_worker_slice: slice $SLICE of $MAX_SLICES ($INSTANCE_TYPE) on $SLURM_JOB_NODELIST, ports from $PATHWAYS_WORKER_PORT_BASE, RM $PATHWAYS_RM_ADDRESS"

# One worker per node. HOST_ADDRESS is the address the RM hands to clients:
# the node's name, or PATHWAYS_WORKER_HOST when set (e.g. 127.0.0.1 on a
# one-machine test cluster). A worker prints "worker ready on ..." once the RM
# has taken it in; that line makes its ready file, which start_pathways.sh
# counts.
# shellcheck disable=SC2016
exec srun --kill-on-bad-exit=1 --ntasks-per-node=1 --ntasks="$SLURM_JOB_NUM_NODES" bash -c '
	export HOST_ADDRESS=${PATHWAYS_WORKER_HOST:-$(hostname)}
	ready=$PATHWAYS_READY_PREFIX-$SLURM_NODEID
	"$PATHWAYS_BIN_DIR/server" \
		--server_port="$((PATHWAYS_WORKER_PORT_BASE + SLURM_NODEID))" \
		--resource_manager_address="$PATHWAYS_RM_ADDRESS" \
		--gcs_scratch_location="$SCRATCH_LOCATION" \
		--enable_gcs_olm=false \
		--backend="$WORKER_BACKEND" |
		while IFS= read -r line; do
			printf "%s\n" "$line"
			[[ $line == "worker ready on "* ]] && : >"$ready"
		done
	exit "${PIPESTATUS[0]}"
'
