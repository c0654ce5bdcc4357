// Package worker is an OpenPathways worker: the process that owns one host's
// accelerators in a cluster.
//
// A worker serves three things on one gRPC port: the IFRT Proxy protocol over its
// backend (a PJRT plugin through pjrt/pjrtifrt, or gocpu), through which the
// Pathways client (package cluster) puts arrays on its devices and runs programs;
// the peer protocol (workerpb), through which other workers read its arrays and it
// gathers pieces of theirs, so that copies between workers never pass through the
// client; the gang protocol (workerpb.Gang), through which it runs its partitions
// of programs spanning workers and streams their collectives' data straight to
// the workers of the other partitions (on gocpu's interpreter: a gocpu backend
// runs them on its own arrays, any other backend on a private gocpu client,
// the partitions' blocks copied through host memory at each launch, and an
// auto-sharded program whole on a CPU backend for one device). Peer and
// gang bytes pass through shared memory (files of /dev/shm) between workers
// of one host and over the connection otherwise (shm.go; docs/cluster.md,
// "Worker-to-worker bytes"); PATHWAYS_PEER_SHARED_MEMORY=off turns shared
// memory off. And,
// with Config.ResourceManager set, a registration with the resource
// manager (package rm) kept alive by a heartbeat stream and renewed if the RM
// restarts.
//
// The worker also stores and loads its own shards of Orbax checkpoints when the
// cluster client asks it to (the internal shardio plugin program), straight to
// and from storage (package storage; gs:// when storage/gcs is linked), and,
// with Config.ScratchLocation, keeps a compilation cache shared by every worker
// there (CompileCacheStats counts its hits). See docs/storage.md.
//
// A registered worker follows its slice's suspend state in the RM: while the
// slice suspends it lets the requests in flight finish, refuses new work with
// UNAVAILABLE (gang launches included), saves every array of its sessions
// under <scratch>/suspend/slice-<i>/gen-<n>/host-<h>/ and frees it; when the
// slice resumes it reads them back under the same handles and deletes what
// it read (docs/storage.md, "Suspended slices"). Terminate is what
// examples/server does on SIGTERM: with a preemption notice
// (PreemptionNoticed) it suspends its slice first, so that a replacement
// takes over the clients' arrays. See "Suspend and resume" in docs/cluster.md.
//
// # Usage
//
//	backend, _ := gocpu.New(gocpu.Config{Devices: 4})
//	w, err := worker.New(worker.Config{Backend: backend, ResourceManager: "rm:29001", Slice: 0})
//	go w.ListenAndServe(":29005")
//	...
//	w.Shutdown(ctx) // leaves the RM, drains, stops
//
// # Errors
//
// Peer requests fail with gRPC codes (internal/rpc's codec, which also sends
// the reason of an ifrt.ErrArrayDeleted and its kind, so errors.Is holds on
// the reading side): NOT_FOUND for an unknown session or array
// or a wrong session token, INVALID_ARGUMENT for malformed domains, pieces
// that do not cover the result or claim more than their array holds,
// PERMISSION_DENIED for a piece on an address the RM does not list as a live
// worker, RESOURCE_EXHAUSTED for results over the size limit, UNAUTHENTICATED
// for any call without the cluster's credentials (Config.Security), and the
// backend's codes.
//
// # Security
//
// With Config.Security set, every call the worker serves must carry the
// cluster's token or certificate, and the worker presents them to the RM and to
// other workers. A Gather reads from no worker but those the RM lists as live,
// and from each only the part of a piece that overlaps the result; arrays are
// reached through their session's token. See docs/security.md.
//
// # Concurrency and lifetimes
//
// A Server is safe for concurrent use. New starts nothing; Serve serves until
// Shutdown (graceful: report NOT_SERVING, finish the requests, transfers and
// peer calls in progress while still registered, then end the sessions, wait
// until they have freed their arrays and leave the RM; Serve returns nil) or
// Close (immediate: to the RM it looks like a crash; Serve returns
// ErrServerClosed). Both are idempotent, and Serve after either returns
// ErrServerClosed at once: a stopped worker does not serve again (make a new
// one). A registration the RM refuses closes the worker, and Serve returns the
// RM's error. This is the lifecycle of the RM and the proxy server too, with
// the same ErrServerClosed. A panic in a handler (IFRT Proxy, peer or gang)
// fails that call with INTERNAL, logged at Error with its stack; the worker
// goes on. Connections are pinged (Config.KeepaliveInterval and
// KeepaliveTimeout), so a frozen or vanished peer is dropped within seconds. The backend belongs to
// the caller and is not closed. Arrays belong to the IFRT Proxy sessions of the
// clients that made them and are freed when those sessions end.
//
// # Observability
//
// Logs go to Config.Logger: registration and serving at Info, and once per
// program that a program spanning workers runs on the host interpreter or
// whole on the backend (a backend other than gocpu); the proxy server's
// per-request logs at Debug.
// The Profiler service (workerpb) takes traces of the worker for
// jax.profiler.start_trace through the proxy: its requests, backend compiles
// and executions, gang launches and peer transfers, sent to the cluster
// client at stop (docs/operations.md, "Profiles").
package worker
