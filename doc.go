// Package pathways is the front page of OpenPathways, an open, embeddable Go
// implementation of the Pathways single-controller runtime: one client
// program — a stock JAX process or a Go program — sees every accelerator of a
// cluster as one machine. This package holds no code; the pieces below are
// each usable on their own.
//
//   - ifrt: the API every piece speaks (Client, Device, Array, Sharding,
//     LoadedExecutable), with only the standard library behind it.
//   - ifrt/gocpu: a pure-Go CPU backend with N virtual devices, for tests,
//     examples and machines with no plugin installed.
//   - pjrt and pjrt/pjrtifrt: PJRT plugins (libtpu, the CUDA plugin, the XLA
//     CPU plugin) loaded with cgo, as an ifrt backend.
//   - rm and worker: the resource manager, which knows the slices, the workers
//     and the global device ids, and the workers, which serve one host's
//     devices over an ifrt backend.
//   - cluster: the Pathways client, Connect(ctx, rmAddress), one ifrt.Client
//     over every device of every worker (also ifrt.Open(ctx,
//     "pathways:rm=host:port")). It links no server and no backend.
//   - cluster/local: the whole cluster in process, the embedded default of the
//     examples and tests; cluster/local/localtest adds fault injection.
//   - proxy/proxyserver and proxy: the IFRT Proxy protocol that jaxlib speaks
//     (JAX_PLATFORMS=proxy), as a server over any ifrt backend (a cluster
//     client per JAX session, in a deployment) and as a client.
//
// # How the pieces fit
//
// A deployment runs one resource manager, one worker per host and one proxy
// server (examples/server and examples/proxy_server are the binaries):
//
//	JAX ──IFRT Proxy──▶ proxy server ──cluster.Client──▶ workers ──▶ backend
//	                         │                              │
//	                         └──────── resource manager ◀───┘ (register, heartbeat)
//
// A Go program takes the proxy server's place: it calls cluster.Connect and
// drives the ifrt API itself. Data moves between workers directly; the client
// only says what goes where.
//
// See README.md for the commands, docs/cluster.md for the design of the
// cluster, docs/deploy.md for deployments and docs/security.md for
// credentials.
package pathways
