// Command proxy_server is the OpenPathways IFRT proxy server, with the flags of
// Google's Pathways "proxy_server" image: JAX connects to it
// (JAX_PLATFORMS=proxy, JAX_BACKEND_TARGET=grpc://host:29000) and sees every
// device of the cluster that the resource manager at --resource_manager_address
// manages.
//
//	proxy_server --server_port=29000 --resource_manager_address=rm-host:29001 \
//	    --gcs_scratch_location=gs://bucket/scratch --num_elastic_instances=1 \
//	    --xla_cpu_enable_fast_math=false
//
// Flags:
//
//	--server_port               port JAX connects to (default 29000; 0 picks a free port)
//	--resource_manager_address  the resource manager's host:port (required)
//	--gcs_scratch_location      gs://bucket/prefix, file:///dir or a directory: validated and
//	                            logged; nothing is stored there yet
//	--num_elastic_instances     how many slices may be lost at once while a JAX session goes on
//	                            (alias --num_elastic_slices; default 0). Arrays of a lost slice
//	                            fail with DATA_LOSS; losing more slices fails the sessions then
//	                            running (every later request of theirs gets UNAVAILABLE saying
//	                            so); a new JAX session starts once every slice is back
//	--virtual_slices            the slices this proxy wants, one <kind>:<topology> per slice
//	                            (tpuv6e:2x2,tpuv6e:2x2). Checked against the resource manager's
//	                            inventory (same type, no more slices than it has) before serving;
//	                            the proxy then serves the whole cluster, as placement of a proxy on
//	                            a subset of slices is not implemented
//	--xla_*                     XLA flags (--xla_name=value, typed by spelling: true/false, integer,
//	                            decimal, else string) added to every compile's options
//	                            (env_option_overrides), so the workers' PJRT compiles apply them;
//	                            a program's own compiler options win
//
// OpenPathways' own flags (see docs/security.md):
//
//	--listen_address            the host or IP to listen on, e.g. 127.0.0.1 (default every interface)
//	--cluster_token_file, --tls_cert, --tls_key, --tls_ca, --tls_server_name
//	                            the cluster's credentials, presented to the RM and the workers (also
//	                            $PATHWAYS_CLUSTER_TOKEN[_FILE], $PATHWAYS_TLS_*). JAX's connection to
//	                            this port is plaintext: keep the port private
//	--keepalive_interval, --keepalive_timeout
//	                            pings of idle connections and checks that each worker answers
//	                            (default 10s, 5s): a vanished JAX client's session is freed, a frozen
//	                            worker is lost, after about their sum
//	--drain_timeout             on SIGTERM, how long to finish what is in progress (default 25s)
//	--max_sessions, --max_session_host_buffer_bytes, --max_host_buffer_bytes,
//	--max_session_live_bytes, --max_inflight_uploads, --max_message_bytes
//	                            limits per client (sizes as 64MiB, 8GiB or none); over one, a
//	                            request fails with RESOURCE_EXHAUSTED naming it and the session goes on
//
// It waits until every slice is up, logs "Transition slice N: unplaced ->
// placed" for each slice (the lines pathwaysutils' Shared Pathways Service
// counts), prints "IFRT proxy server started with status OK" (the line xpk tells
// users to look for) and the address, and serves. Its standard gRPC health
// service reports SERVING, and NOT_SERVING once more slices were lost than
// --num_elastic_instances allows (an orchestrator probing it can restart the
// job). On SIGTERM or SIGINT it drains: new sessions are refused, what is in
// progress finishes (for up to --drain_timeout), then it stops.
package main

import (
	"github.com/openpathways/pathways/internal/serverflags"
	_ "github.com/openpathways/pathways/storage/gcs" // serves gs:// trace locations of jax.profiler.start_trace
)

func main() { serverflags.Main("proxy_server", run) }
