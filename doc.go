// Package pathways is an open, embeddable Go implementation of the Pathways
// single-controller runtime: one client program — a stock JAX process or a Go
// program — sees every accelerator of a cluster as one machine.
//
// The pieces, each usable on its own:
//
//   - ifrt: the API every piece speaks (Client, Device, Array, Sharding,
//     LoadedExecutable), with only the standard library behind it.
//   - ifrt/gocpu: a pure-Go CPU backend with N virtual devices, for tests, examples
//     and machines with no plugin installed.
//   - pjrt and pjrt/pjrtifrt: PJRT plugins (libtpu, the CUDA plugin, the XLA CPU
//     plugin) loaded with cgo, as an ifrt backend.
//   - proxy/proxyserver and proxy: the IFRT Proxy protocol that jaxlib speaks
//     (JAX_PLATFORMS=proxy), as a server over any ifrt backend and as a client.
//   - rm and worker: the resource manager and the workers of a cluster.
//
// This package joins them: Connect returns one ifrt.Client over every device of a
// cluster that a resource manager manages, and StartLocal starts such a cluster in
// process (the embedded default of examples and tests).
//
// # Usage
//
//	cluster, err := pathways.StartLocal(ctx, pathways.LocalConfig{Slices: 2, DevicesPerSlice: 4})
//	defer cluster.Close()
//	client := cluster.Client // or pathways.Connect(ctx, "rm-host:29001")
//	// JAX: JAX_PLATFORMS=proxy JAX_BACKEND_TARGET=grpc://<cluster.ProxyAddress>
//
// Arrays of the cluster client live as one single-device array per shard on the
// worker that owns the shard's device. Copies and reshards between workers are done
// by the workers (the destination gathers from the sources); the client only says
// what goes where. A program runs on the worker that owns its devices; programs
// whose devices span workers are Unimplemented for now.
//
// # Errors
//
// When a worker is lost (its process dies, the RM misses its heartbeats), every
// operation on data it held fails with DATA_LOSS (errors.Is(err, ifrt.ErrDataLoss)),
// while the rest of the cluster keeps working. When a worker registers for the host
// again, its devices work again under the same ids, without reconnecting.
//
// # Concurrency and lifetimes
//
// A Client is safe for concurrent use. Close ends its sessions with the workers,
// which free everything they held for it.
//
// See README.md for the two commands that matter, and docs/ for design notes.
package pathways
