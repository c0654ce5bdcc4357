// Package proxy is an ifrt.Client for a remote IFRT Proxy server: the devices,
// arrays and executables live on the server, and every call travels over gRPC in
// the IFRT Proxy protocol, spoken as jaxlib's built-in client speaks it
// (JAX_PLATFORMS=proxy). It works against proxy/proxyserver and, in principle,
// against upstream servers.
//
// # Usage
//
//	client, err := proxy.Dial(ctx, "grpc://localhost:29000")
//	if err != nil { ... }
//	defer client.Close()
//	devs := client.AddressableDevices()
//	a, err := client.MakeArrayFromHostBuffer(ctx, data, ifrt.ArraySpec{...}, nil)
//
// Binaries that choose a backend by name can use ifrt.Open(ctx,
// "proxy:grpc://host:port") once this package is linked in.
//
// Dial accepts JAX_BACKEND_TARGET's form "grpc://host:port" or any gRPC target
// ("dns:///host:port", "passthrough:///bufnet" with a bufconn dialer passed
// through WithDialOptions). It negotiates the protocol version (GetVersion),
// opens the session stream (IfrtSession) and sends Init; the server's
// InitResponse defines the platform, devices and memories. While the server is
// unavailable, Dial retries every second until WithConnectTimeout's limit
// (default two minutes, jaxlib's) or ctx ends. Without options, connections are
// plaintext, as jaxlib's with IFRT_PROXY_USE_INSECURE_GRPC_CREDENTIALS=true;
// with WithDialOptions, bring transport credentials or add WithInsecure. Host
// buffers travel on a second connection, as in jaxlib, so that bulk transfers do
// not hold up the session's messages.
//
// What goes over the wire follows jaxlib, so that servers whose backends accept
// only what PJRT-based IFRT accepts work too:
//
//   - Writes: the bytes go up with HostBufferStore, in 1 MiB chunks, while
//     MakeArrayFromHostBuffer names the array with the buffer's client-generated
//     handle. A sharded (not replicated) array goes shard by shard: one host
//     buffer per distinct shard and one MakeArraysFromHostBufferShards request.
//   - Reads: a single-device array is read with CopyToHostBuffer,
//     HostBufferLookup and an asynchronous HostBufferDelete (up to 256 KiB, an
//     OpenPathways server sends the bytes in CopyToHostBuffer's response: the
//     inline_max_bytes extension, which other servers ignore); a replicated array
//     through its FullyReplicatedShard; a sharded one through
//     DisassembleIntoSingleDeviceArrays, reading the shards in parallel and
//     assembling them in the client.
//   - Array operations (assemble, disassemble, copy, reshard, remap, fully
//     replicated shard) name their results with client-generated handles;
//     copies of arrays on different devices go in one request per device list.
//   - Programs: MLIR modules are sent unchanged as xla::ifrt::XlaProgram with
//     xla::ifrt::XlaCompileOptions (CompileOptions.XLA, plus a device
//     assignment for CompileOptions.Devices); plugin programs as
//     xla::ifrt::PluginProgram. Compile waits for the executable's ready future
//     and fetches its metadata; the first Execute learns the output specs from
//     the response, later ones name their outputs with client handles.
//
// Where jaxlib fires off array operations and later executions without waiting
// for the response, this client by default waits for it (the messages are the
// same), so that Go callers get an error from the call itself rather than from a
// later use of the result. Waiting costs one round trip; the computation itself
// may still be running when the call returns (Array.Ready waits for it).
// WithAsyncDispatch makes the client behave as jaxlib does: calls return once
// the request is sent, and server-side errors surface on the results. The
// client validates specs, sizes, devices, argument types and remap plans itself
// in both modes, so most mistakes fail in the call either way.
//
// # Errors
//
// Statuses from the server become *ifrt.Error values with the same code, so
// errors.Is(err, ifrt.ErrNotFound) and ifrt.CodeOf work across the wire; gRPC
// transport errors keep their gRPC code. Some errors are detected by the client
// before anything is sent: invalid specs and buffer sizes, arrays of another
// client (InvalidArgument), deleted or donated arrays (ifrt.ErrArrayDeleted),
// deleted executables (ifrt.ErrExecutableDeleted). Context errors come back
// unchanged.
//
// When the session ends other than by Close (the connection drops, the server
// stops), every pending and later call fails with an Unavailable error, the
// error is logged, the WithOnDisconnect function is called once, and Done is
// closed. There is no reconnection: the server has dropped everything the session
// held. Dial a new client. After Close, calls fail with ifrt.ErrClientClosed.
//
// # Concurrency
//
// A Client, its arrays and its executables are safe for concurrent use by
// multiple goroutines. Requests share one session stream; the server handles
// them in the order they were sent, and responses are matched to requests by op
// id, so concurrent calls do not wait for each other's responses.
//
// # Lifetimes
//
// The server holds an array until the client destructs its handle. Go has no
// destructors: when an array becomes unreachable, a cleanup (runtime.AddCleanup)
// queues a DestructArray request for its handle; queued handles go out in one
// batched request with the next request, or after about a millisecond
// (TakeDestructs hands them to a caller that delivers them another way). Every call
// keeps the arrays and executable it names reachable until it returns, so that
// no cleanup can queue a destruct ahead of the request that names the handle.
// Executables
// likewise get a LoadedExecutableDestruct when unreachable. Cleanups run after a
// garbage collection, so the server may hold memory for a while after the last
// use: call Array.Delete (DeleteArray) to free device memory at once, and
// LoadedExecutable.Delete for executables. Client.Close ends the session, which
// makes the server free everything it holds for the client.
package proxy
