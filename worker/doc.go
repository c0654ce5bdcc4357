// Package worker is an OpenPathways worker: the process that owns one host's
// accelerators in a cluster.
//
// A worker serves three things on one gRPC port: the IFRT Proxy protocol over its
// backend (a PJRT plugin through pjrt/pjrtifrt, or gocpu), through which the
// Pathways client (package pathways) puts arrays on its devices and runs programs;
// the peer protocol (workerpb), through which other workers read its arrays and it
// gathers pieces of theirs, so that copies between workers never pass through the
// client; and, with Config.ResourceManager set, a registration with the resource
// manager (package rm) kept alive by a heartbeat stream and renewed if the RM
// restarts.
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
// Peer requests fail with gRPC codes: NOT_FOUND for an unknown session or array,
// INVALID_ARGUMENT for malformed domains or pieces that do not cover the result,
// RESOURCE_EXHAUSTED for results over the size limit, and the backend's codes.
//
// # Concurrency and lifetimes
//
// A Server is safe for concurrent use. New starts nothing; Serve serves until
// Shutdown (graceful: leave the RM, finish running requests) or Close (immediate:
// to the RM it looks like a crash). Both are idempotent. The backend belongs to
// the caller and is not closed. Arrays belong to the IFRT Proxy sessions of the
// clients that made them and are freed when those sessions end.
//
// # Observability
//
// Logs go to Config.Logger: registration and serving at Info, the proxy server's
// per-request logs at Debug.
package worker
