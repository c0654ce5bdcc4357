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
// a grpc.Server with other services, call Register (and RegisterHealth) on it
// instead of Serve, and start it with ServerOptions.
//
// Plugin programs (pathwaysutils' JSON requests such as persistence or
// profiling) are served by the handlers in Config.PluginPrograms, keyed by
// the program's single top-level JSON key. Resharding (ReshardPluginKey) and
// persistence (PersistenceWriteKey and the other three, Orbax's checkpoint I/O;
// they need a backend that is an ifrt.Persister, such as the cluster client)
// and profiling (ProfileKey: jax.profiler.start_trace through the proxy writes
// one Chrome trace-event file of this server and of the backend's hosts, when
// it has any, under the trace location) are built in; see
// docs/storage.md and docs/operations.md.
//
// # Telemetry
//
// Every request has an OpenTelemetry span and is counted (telemetry.go),
// through the OpenTelemetry API only: nothing is recorded unless the
// application installs an SDK. See docs/operations.md.
//
// # Errors
//
// Every request gets exactly one response. A request that fails gets an error
// status whose code is the ifrt error's code (gRPC numbering; see
// proxy/internal/wire), so that Python sees JaxRuntimeError("NOT_FOUND: ...")
// and a Go proxy client sees errors.Is(err, ifrt.ErrNotFound). An error more
// specific than its code (ifrt.ErrArrayDeleted, ErrExecutableDeleted,
// ErrClientClosed) also carries its reason, a google.rpc.ErrorInfo under the
// status's payload map, so errors.Is finds it on a Go client; jaxlib keeps the
// payload on its absl::Status and prints only code and message (the payload
// too with JAX_TRACEBACK_FILTERING=off). Unknown handles
// are NOT_FOUND, request kinds this server does not know UNIMPLEMENTED,
// malformed or impossible input (bytes that are no request, shapes that
// overflow, strides that are not positive, overlap, or would make the server
// allocate more than the array, shardings that do not fit) INVALID_ARGUMENT,
// and a request over a limit (Config.Limits, Config.MaxHostBufferSize)
// RESOURCE_EXHAUSTED naming the limit; the session goes on. When a request
// that names its result handles fails, its error is recorded under those
// handles, so every later use of them fails with the original error. Error
// messages are made valid UTF-8 (internal/rpc), and a response that still does
// not encode fails its request with INTERNAL rather than ending the stream. A
// panic while serving a request is recovered and answered INTERNAL; the
// session goes on.
//
// # Limits and isolation
//
// Every size a request states is checked against its own shape, dtype and
// strides and against Config.Limits before anything is allocated, and a host
// buffer's memory grows with its first bytes (to its full size once 1 MiB has
// come; see docs/dataplane.md). A session's handles, arrays,
// executables and host buffers are its own. Host-buffer calls, which name
// their session by id on a connection of their own, are served only with the
// session's token (sent in the stream's header; OpenPathways' client returns
// it) or from the host the session's stream comes from (jaxlib's client);
// session ids are random. See docs/security.md.
//
// # Concurrency
//
// A session's requests are planned one at a time in arrival order: handles
// are looked up and created (pending) before the next request is read, so a
// request may use a handle that an earlier one creates even while the earlier
// one's work is still running. The work itself runs concurrently and responses
// go out as it finishes, in any order. A request that deletes or destructs an
// array waits for the earlier requests that use it. Host buffers may arrive
// (HostBufferStore, on any connection, or HostBufferReadFromDisk from
// Config.LargeTransferDirectory, see docs/dataplane.md) after the request that
// consumes them: the consumer waits until the buffer arrives or the session
// ends (CANCELLED).
// Server methods are safe for concurrent use.
//
// # Lifetimes
//
// New starts nothing. Serve (or Register on a grpc.Server the caller runs)
// starts serving; Shutdown drains: it refuses new sessions and reports
// NOT_SERVING, lets the requests, transfers and executions in progress finish
// (until its context ends), then ends the sessions and returns once they have
// freed what they held, under Serve and under Register alike; Close ends
// everything now. Serve returns nil after Shutdown and ErrServerClosed after
// Close, and ErrServerClosed at once when called after either. The RM and the
// worker share this lifecycle and this ErrServerClosed. The backend is the
// caller's: the server never closes it.
//
// A session lasts as long as its IfrtSession stream. When the stream ends —
// the client exits or drops its client object, its connection stops answering
// keepalive pings (Config.KeepaliveInterval and KeepaliveTimeout), or the
// server closes — the session waits for its pending work, deletes every array
// and executable it produced and drops its host buffers, so the backend holds
// nothing on its behalf afterwards.
//
// Pause, Evict, Restore and Unpause let a worker suspend its slice: Pause
// refuses requests that run programs or make or read arrays (deletes still
// work), waits for those in progress and returns every array the sessions
// hold; Evict frees them, leaving under each handle an array that fails with
// the given error; Restore puts arrays back under their handles.
//
// # Observability
//
// The server logs through Config.Logger (default slog.Default()): the version
// range each client advertises in GetVersion and the version chosen at Info,
// session starts and ends at Info, every request (op id, kind, error) at
// Debug, recovered panics at Error with their stack: a panicking handler
// fails its call, or its request within a session, with INTERNAL, and the
// server goes on (under Register, start the grpc.Server with ServerOptions,
// whose interceptors recover the handlers). Sessions reports the
// number of open sessions; the standard gRPC health service (RegisterHealth,
// SetServing) tells orchestrators whether the server serves.
package proxyserver
