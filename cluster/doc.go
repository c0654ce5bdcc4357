// Package cluster is the Pathways client of a cluster: Connect returns one
// ifrt.Client over every device of every slice that a resource manager
// manages, whichever worker holds it.
//
// # Usage
//
//	client, err := cluster.Connect(ctx, "rm-host:29001")
//	if err != nil { ... }
//	defer client.Close()
//	devices := client.Devices() // every device of the cluster, global ids
//
// Connect waits until every slice is up (WithoutWaitingForSlices returns at
// once). The options set the credentials the servers require (WithSecurity),
// how quickly a frozen worker counts as lost (WithKeepalive), and how many
// slices may be lost before the session fails (WithElasticSlices).
//
// The client is also the backend named "pathways" of ifrt.Open:
//
//	client, err := ifrt.Open(ctx, "pathways:rm=rm-host:29001")
//
// once this package is linked (import _ ".../cluster" where nothing else
// does). Package cluster/local runs a whole cluster in process, for examples
// and tests.
//
// Arrays live as one single-device array per shard on the worker that owns the
// shard's device. Copies and reshards between workers are done by the workers
// (the destination gathers from the sources); the client only says what goes
// where. Likewise WriteArrays and ReadArrays (ifrt.Persister: Orbax checkpoints)
// have each worker write or read its own shards in storage. A program runs on
// the worker that owns its devices; a program whose devices span workers runs
// as a gang, compiled and launched on all of them in the resource manager's
// order, all or nothing (see docs/cluster.md). StartHostTraces has the chosen
// workers take a trace (the proxy server's profileRequest, jax.profiler's
// start_trace), each through its Profiler service, until its Stop collects
// their events (docs/operations.md, "Profiles").
//
// This package links the client side alone: the resource manager's client and
// the IFRT Proxy client it speaks to each worker, none of the servers and no
// backend.
//
// # Errors
//
// When a worker is lost (its process dies, the RM misses its heartbeats, it
// stops answering the client's keepalive), every operation on data it held
// fails with DATA_LOSS (errors.Is(err, ifrt.ErrDataLoss)), while the rest of
// the cluster keeps working. When a worker registers for the host again, its
// devices work again under the same ids, without reconnecting.
//
// The client's session fails as a whole when more slices are lost than
// WithElasticSlices allows, or when the resource manager refuses its watch for
// good (the client could no longer see workers come and go). The failure is
// sticky: Err says why, Failed is closed, and every later operation fails with
// it.
//
// SuspendSlice saves a slice's arrays to the cluster's scratch location and
// frees its devices; while it is suspended, operations on it fail with
// UNAVAILABLE (gang launches spanning it too); ResumeSlice brings the arrays
// back, on the same workers or on replacements (docs/cluster.md, "Suspend and
// resume"). SliceHealth says which slices are down in the sense of
// WithElasticSlices: a suspended one is not.
//
// # Concurrency and lifetimes
//
// A Client is safe for concurrent use. Close ends its sessions with the
// workers, which free everything they held for it, and stops watching the
// resource manager.
package cluster
