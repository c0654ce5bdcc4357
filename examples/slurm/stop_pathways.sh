#!/usr/bin/env bash
# stop_pathways.sh: cancels the Pathways service job that wrote
# $PATHWAYS_DIR/cluster.env (default ~/pathways); the service job then cancels
# its workers and removes the file. With a job id as the argument, cancels
# that service job instead.
set -euo pipefail
PATHWAYS_DIR=${PATHWAYS_DIR:-$HOME/pathways}
job=${1:-}
if [[ -z $job ]]; then
	env_file=$PATHWAYS_DIR/cluster.env
	[[ -f $env_file ]] || { echo "stop_pathways: no $env_file; pass the service job id" >&2; exit 1; }
	job=$(sed -n 's/^PATHWAYS_SERVICE_JOB_ID=//p' "$env_file")
fi
[[ $job =~ ^[0-9]+$ ]] || { echo "stop_pathways: $job is not a job id" >&2; exit 1; }
scancel "$job"
echo "stop_pathways: cancelled job $job"
