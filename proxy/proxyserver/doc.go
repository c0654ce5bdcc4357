// Package proxyserver is an IFRT Proxy server: it serves any ifrt.Client over
// the gRPC protocol that jaxlib's built-in IFRT Proxy client speaks
// (JAX_PLATFORMS=proxy), and that OpenPathways' own proxy client and workers
// speak.
//
// # Usage
//
//	backend, _ := gocpu.New(gocpu.Config{})
//	srv, err := proxyserver.New(proxyserver.Config{Backend: backend})
//	if err != nil { ... }
//	go srv.ListenAndServe(":29000")
//	...
//	srv.Shutdown(ctx)
//
// A stock JAX then connects with
//
//	JAX_PLATFORMS=proxy JAX_BACKEND_TARGET=grpc://host:29000 \
//	IFRT_PROXY_USE_INSECURE_GRPC_CREDENTIALS=true python train.py
//
// where train.py calls pathwaysutils.initialize() before using JAX. To share
// a grpc.Server with other services, call Register on it instead of Serve,
// and raise its message size limits (see DefaultMaxMsgSize).
//
// Plugin programs (pathwaysutils' JSON requests such as persistence or
// profiling) are served by the handlers in Config.PluginPrograms, keyed by
// the program's single top-level JSON key.
//
// # Errors
//
// Every request gets exactly one response. A request that fails gets an error
// status whose code is the ifrt error's code (gRPC numbering; see
// proxy/internal/wire), so that Python sees JaxRuntimeError("NOT_FOUND: ...")
// and a Go proxy client sees errors.Is(err, ifrt.ErrNotFound). Unknown handles
// are NOT_FOUND, request kinds this server does not know UNIMPLEMENTED,
// malformed or impossible input (bad protos, shapes that overflow, shardings
// that do not fit) INVALID_ARGUMENT, host buffers over Config.MaxHostBufferSize
// RESOURCE_EXHAUSTED. When a request that names its result handles fails,
// its error is recorded under those handles, so every later use of them fails
// with the original error. A panic while serving a request is recovered and
// answered INTERNAL; the session goes on.
//
// # Concurrency
//
// A session's requests are planned one at a time in arrival order: handles
// are looked up and created (pending) before the next request is read, so a
// request may use a handle that an earlier one creates even while the earlier
// one's work is still running. The work itself runs concurrently and responses
// go out as it finishes, in any order. A request that deletes or destructs an
// array waits for the earlier requests that use it. Host buffers may arrive
// (HostBufferStore, on any connection) after the request that consumes them:
// the consumer waits until the buffer arrives or the session ends (CANCELLED).
// Server methods are safe for concurrent use.
//
// # Lifetimes
//
// New starts nothing. Serve (or Register on a grpc.Server the caller runs)
// starts serving; Shutdown stops accepting connections and waits for sessions
// to end (closing them when its context ends); Close ends everything now.
// Serve returns nil after Shutdown and ErrServerClosed after Close. The
// backend is the caller's: the server never closes it.
//
// A session lasts as long as its IfrtSession stream. When the stream ends —
// the client exits or drops its client object, or the server closes — the
// session waits for its pending work, deletes every array and executable it
// produced and drops its host buffers, so the backend holds nothing on its
// behalf afterwards.
//
// # Observability
//
// The server logs through Config.Logger (default slog.Default()): the version
// range each client advertises in GetVersion and the version chosen at Info,
// session starts and ends at Info, every request (op id, kind, error) at
// Debug, recovered panics at Error with their stack. Sessions reports the
// number of open sessions.
package proxyserver
