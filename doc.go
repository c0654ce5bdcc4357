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
// See README.md for the two commands that matter, and docs/ for design notes.
package pathways
