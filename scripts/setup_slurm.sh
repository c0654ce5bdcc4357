#!/usr/bin/env bash
# setup_slurm.sh: a one-node Slurm cluster on this machine, for the
# examples/slurm test. Idempotent: run it as often as you like; it installs
# what is missing, rewrites the configuration only when it changed, starts the
# daemons that are not running and waits until the node takes jobs.
#
# What it sets up (all on loopback, nothing listens beyond this machine's
# name, which /etc/hosts maps to 127.0.0.1 on the project's machines):
#
#   munged      /run/munge/munge.socket.2, the key Debian's package made
#   slurmctld   port 6817, state in /var/lib/slurm/slurmctld
#   slurmd      port 6818, node <hostname -s>, CPUs=$SLURM_CPUS (default 2)
#   partition   "pathways" (the default), OverSubscribe=FORCE so the service
#               job and every worker slice run at once on a small machine
#
# The plugins avoid what a container without systemd cannot give:
# proctrack/linuxproc (no cgroup tracking), task/none, jobacct_gather/none,
# accounting_storage/none. The daemons are started directly (no systemd,
# no init scripts); their logs are under /var/log/slurm.
#
# Needs root. Environment:
#   SLURM_CPUS=N           CPUs the node declares (default 2)
#   SLURM_SETUP_TIMEOUT=S  how long to wait for the node (default 60)
#
# Afterwards `sinfo` shows the node idle and `sbatch` works; see
# examples/slurm/README.md.
set -euo pipefail

# Versions as `apt-cache policy slurmctld slurmd slurm-client munge` listed them
# on Debian 12 (bookworm) on 2026-12-02. Debian's mirrors keep only the newest
# build of a suite, so a later security update replaces these: the script then
# installs the candidate and says so, rather than failing.
SLURM_DEB_VERSION=${SLURM_DEB_VERSION:-22.05.8-4+deb12u3}
MUNGE_DEB_VERSION=${MUNGE_DEB_VERSION:-0.5.15-2+deb12u1}

SLURM_CPUS=${SLURM_CPUS:-2}
SLURM_SETUP_TIMEOUT=${SLURM_SETUP_TIMEOUT:-60}
NODE=$(hostname -s)
CONF_DIR=/etc/slurm
LOG_DIR=/var/log/slurm
STATE_DIR=/var/lib/slurm

log() { echo "setup_slurm: $*" >&2; }
die() { log "$*"; exit 1; }

[[ $(id -u) == 0 ]] || die "run as root (it installs packages and starts daemons)"

# pkg_version NAME WANTED: WANTED if apt offers it, else the candidate.
pkg_version() {
	local name=$1 want=$2 candidate
	if apt-cache madison "$name" | awk -F'|' '{gsub(/ /,"",$2); print $2}' | grep -qxF "$want"; then
		echo "$want"
		return
	fi
	candidate=$(apt-cache policy "$name" | awk '/Candidate:/ {print $2}')
	[[ -n $candidate && $candidate != "(none)" ]] || die "apt offers no $name"
	log "warning: $name $want is not offered any more; installing $candidate"
	echo "$candidate"
}

install_packages() {
	if command -v slurmctld >/dev/null && command -v slurmd >/dev/null &&
		command -v sbatch >/dev/null && command -v munged >/dev/null; then
		return
	fi
	log "installing slurm and munge"
	apt-get update -q >/dev/null
	local sv mv
	sv=$(pkg_version slurmctld "$SLURM_DEB_VERSION")
	mv=$(pkg_version munge "$MUNGE_DEB_VERSION")
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
		"slurmctld=$sv" "slurmd=$sv" "slurm-client=$sv" "munge=$mv" >/dev/null
}

# write_if_changed PATH: stdin to PATH unless PATH already holds it. Returns 0
# when it wrote.
write_if_changed() {
	local path=$1 tmp
	tmp=$(mktemp)
	cat >"$tmp"
	if [[ -f $path ]] && cmp -s "$tmp" "$path"; then
		rm -f "$tmp"
		return 1
	fi
	install -m 0644 "$tmp" "$path"
	rm -f "$tmp"
	return 0
}

configure() {
	install -d -m 0755 "$CONF_DIR" "$LOG_DIR"
	install -d -m 0755 -o slurm -g slurm "$STATE_DIR" "$STATE_DIR/slurmctld"
	install -d -m 0755 "$STATE_DIR/slurmd"
	local changed=1
	write_if_changed "$CONF_DIR/slurm.conf" <<EOF && changed=0
# Written by scripts/setup_slurm.sh: a one-node cluster for the Pathways
# examples. Edit that script, not this file.
ClusterName=pathways
SlurmctldHost=$NODE(127.0.0.1)
SlurmUser=slurm
SlurmdUser=root
SlurmctldPort=6817
SlurmdPort=6818
AuthType=auth/munge
CredType=cred/munge
StateSaveLocation=$STATE_DIR/slurmctld
SlurmdSpoolDir=$STATE_DIR/slurmd
SlurmctldPidFile=/run/slurmctld.pid
SlurmdPidFile=/run/slurmd.pid
SlurmctldLogFile=$LOG_DIR/slurmctld.log
SlurmdLogFile=$LOG_DIR/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MailProg=/bin/true
SwitchType=switch/none
MpiDefault=none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
SlurmdTimeout=60
InactiveLimit=0
KillWait=10
MinJobAge=60
NodeName=$NODE NodeAddr=127.0.0.1 CPUs=$SLURM_CPUS State=UNKNOWN
PartitionName=pathways Nodes=$NODE Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:16
EOF
	# cgroup.conf is read by some commands even with no cgroup plugin in use.
	write_if_changed "$CONF_DIR/cgroup.conf" <<EOF && changed=0
# Written by scripts/setup_slurm.sh. No cgroup plugin is configured.
CgroupPlugin=autodetect
EOF
	return $changed
}

# running PIDFILE: whether the process the pid file names is alive and is the
# daemon the file is named after (a stale file may name a reused pid).
running() {
	local pid name
	[[ -s $1 ]] || return 1
	pid=$(<"$1")
	name=$(basename "$1" .pid)
	[[ -r /proc/$pid/comm && $(<"/proc/$pid/comm") == "$name"* ]]
}

# stop PIDFILE: ends the daemon the pid file names, waiting up to 10s.
stop() {
	local pid i
	running "$1" || return 0
	pid=$(<"$1")
	kill "$pid" 2>/dev/null || return 0
	for ((i = 0; i < 100; i++)); do
		kill -0 "$pid" 2>/dev/null || return 0
		sleep 0.1
	done
	die "process $pid ($1) did not stop"
}

start_munge() {
	install -d -m 0755 -o munge -g munge /run/munge
	if running /run/munge/munged.pid && { munge -n </dev/null | unmunge; } >/dev/null 2>&1; then
		return
	fi
	log "starting munged"
	runuser -u munge -- /usr/sbin/munged
	local i
	for ((i = 0; i < 50; i++)); do
		{ munge -n </dev/null | unmunge; } >/dev/null 2>&1 && return
		sleep 0.1
	done
	die "munged does not answer; see /var/log/munge/munged.log"
}

start_slurm() {
	local restart=$1
	if [[ $restart == 1 ]]; then
		stop /run/slurmd.pid
		stop /run/slurmctld.pid
	fi
	if ! running /run/slurmctld.pid; then
		log "starting slurmctld"
		/usr/sbin/slurmctld || die "slurmctld did not start; see $LOG_DIR/slurmctld.log"
	fi
	if ! running /run/slurmd.pid; then
		log "starting slurmd"
		/usr/sbin/slurmd || die "slurmd did not start; see $LOG_DIR/slurmd.log"
	fi
}

# wait_idle: until the node is idle (or busy with jobs), resuming it if an
# earlier run left it down or drained.
wait_idle() {
	local deadline=$((SECONDS + SLURM_SETUP_TIMEOUT)) state
	while ((SECONDS < deadline)); do
		state=$(sinfo -h -n "$NODE" -o %T 2>/dev/null || true)
		case $state in
		idle | mixed | allocated | completing)
			log "node $NODE is $state"
			return
			;;
		down* | drain* | fail*)
			scontrol update nodename="$NODE" state=resume >/dev/null 2>&1 || true
			;;
		esac
		sleep 1
	done
	sinfo -N -l >&2 || true
	tail -n 20 "$LOG_DIR/slurmctld.log" "$LOG_DIR/slurmd.log" >&2 || true
	die "node $NODE is not idle after ${SLURM_SETUP_TIMEOUT}s (state: ${state:-unknown})"
}

install_packages
restart=0
configure && restart=1
start_munge
start_slurm "$restart"
wait_idle
