// Package slurm holds the scripts that run an OpenPathways cluster on Slurm,
// shaped like Google's Pathways scripts for Cluster Director:
//
//	start_pathways.sh    the service job: resource manager and IFRT Proxy server
//	                     on one node, the workers as a job array, cluster.env
//	run_worker_slice.sh  one array task: the workers of one slice
//	stop_pathways.sh     cancels the service job (which cancels its workers)
//	pathways-common.sh   settings both jobs read
//
// The package has no code. Its test submits the scripts to a real Slurm
// (scripts/setup_slurm.sh makes a one-node cluster on this machine), waits for
// cluster.env, connects to the proxy it names with the Go IFRT Proxy client and
// checks the devices of every slice (and with JAX, when the pinned Python
// environment is there), then cancels the jobs. It skips when no
// Slurm is reachable, unless PATHWAYS_REQUIRE_SLURM=1. See README.md and
// docs/deploy.md.
package slurm
