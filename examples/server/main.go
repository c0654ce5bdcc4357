// Command server is the OpenPathways resource manager and worker, with the flags
// and environment of Google's Pathways "server" image, so that a JobSet or Slurm
// script written for Pathways on Cloud runs with it in place of that image.
//
// The resource manager (one per cluster, on a CPU node):
//
//	server --node_type=resource_manager --server_port=29001 \
//	    --instance_type=tpuv5e:4x4 --instance_count=2 --gcs_scratch_location=gs://bucket/scratch
//
// A worker (one per host of every slice; its slice comes from MEGASCALE_SLICE_ID):
//
//	MEGASCALE_SLICE_ID=1 HOST_ADDRESS=10.0.0.7 server --server_port=29005 \
//	    --resource_manager_address=rm-host:29001 --backend=pjrt:/opt/libtpu.so
//
// Flags:
//
//	--node_type                 "resource_manager"; absent (or "worker") runs a worker
//	--server_port               gRPC port; default 29001 for the RM, 29005 for a worker (0: any free port)
//	--instance_type             RM: the shape of every slice, <kind>:<topology> (tpuv5e:4x4, tpuv6e:2x4,
//	                            tpu7x:2x2x1, cpu:4, cpu:2hx4 = 2 hosts of 4, gpu:8 = one host of 8 CUDA
//	                            GPUs, for workers on the CUDA plugin). Worker, optional: how many devices its
//	                            backend opens; by default the worker asks the RM
//	--instance_count            RM: the number of slices (default 1)
//	--resource_manager_address  worker: the RM's host:port (required)
//	--gcs_scratch_location      gs://bucket/prefix, file:///dir or a directory: workers keep the
//	                            shared compilation cache in compilation_cache/ there (PJRT
//	                            backends); suspend/resume is not implemented
//	--enable_gcs_olm            RM: a lifecycle rule on the gs:// scratch bucket deletes
//	                            compilation cache entries after 30 days
//	--backend                   worker: gocpu (pure Go) or pjrt:<plugin .so>; default gocpu.
//	                            pjrt:plugin=<.so>,devices=N,process=<i>/<n>,kv=<store> passes pjrtifrt's
//	                            options through: process and kv make the worker process i of a
//	                            multi-process PJRT client (kv=rm: the resource manager's
//	                            coordination service; or a store a program embedding the worker
//	                            registered with pjrtifrt.RegisterKeyValueStore)
//
// OpenPathways' own flags (see docs/security.md):
//
//	--listen_address            the host or IP to listen on (default every interface); the port is --server_port
//	--cluster_token_file        the cluster token every member requires of the others; a worker
//	                            without it cannot register
//	--tls_cert, --tls_key, --tls_ca, --tls_server_name
//	                            mutual TLS between the members
//	--keepalive_interval, --keepalive_timeout
//	                            pings of idle connections (default 10s, 5s): a frozen or vanished peer
//	                            is dropped after about their sum
//	--drain_timeout             on SIGTERM, how long to finish what is in progress (default 25s)
//	--preemption_notice_file    worker: when this file exists at SIGTERM the host is being preempted:
//	                            the worker first suspends its slice (saving its arrays to
//	                            --gcs_scratch_location), which resumes when a replacement registers
//	--max_sessions, --max_session_host_buffer_bytes, --max_host_buffer_bytes,
//	--max_session_live_bytes, --max_inflight_uploads, --max_message_bytes
//	                            worker: limits of its IFRT Proxy sessions (sizes as 64MiB, 8GiB or none);
//	                            over one, a request fails with RESOURCE_EXHAUSTED naming it
//	--max_watchers              RM: Watch streams open at once (default 1024)
//
// Environment (as the JobSets of xpk and pathways-job set it):
//
//	MEGASCALE_SLICE_ID             worker: its slice (default 0)
//	MEGASCALE_NUM_SLICES           worker: checked against the RM's slice count
//	MEGASCALE_COORDINATOR_ADDRESS  logged (cross-slice collectives go through the Pathways client)
//	HOST_ADDRESS                   worker: the host (or host:port) it advertises to the RM and to
//	                               clients; default the --listen_address when it is one IP,
//	                               else the machine's host name. RM: logged
//	TPU_SKIP_MDS_QUERY             accepted; no metadata server is ever queried
//	TPU_WORKER_ID                  worker: its host index in the slice (GKE sets it on TPU pods);
//	                               unset, the RM gives it a free host of the slice
//	PATHWAYS_CLUSTER_TOKEN         the cluster token (or PATHWAYS_CLUSTER_TOKEN_FILE, a file
//	                               holding it), when --cluster_token_file is not given
//	PATHWAYS_TLS_CERT, PATHWAYS_TLS_KEY, PATHWAYS_TLS_CA, PATHWAYS_TLS_SERVER_NAME
//	                               the --tls_* flags' defaults
//	GOMEMLIMIT                     worker on gocpu: what its arrays may take of memory (Go's
//	                               soft limit); an op whose results would pass it fails with
//	                               RESOURCE_EXHAUSTED. Default 90% of the machine's memory, or of
//	                               the cgroup's when lower
//
// The process prints one ready line on stdout ("resource manager ready on
// [::]:29001", "worker ready on 10.0.0.7:29005 ..."), logs to stderr, and on
// SIGTERM or SIGINT drains: its health service reports NOT_SERVING and it takes
// no new sessions, but finishes the requests, transfers and executions in
// progress (for up to --drain_timeout); then a worker leaves the RM and stops.
// A worker with a preemption notice (--preemption_notice_file; a preStop hook
// or a watcher of GCE's preemption metadata writes it) suspends its slice
// first, within the same --drain_timeout.
package main

import "github.com/openpathways/pathways/internal/serverflags"

func main() { serverflags.Main("server", run) }
