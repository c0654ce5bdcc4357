// Package ifrt is the Go interface to an IFRT runtime: the devices of a machine or a
// cluster, the arrays sharded over them, and the programs that run there.
//
// It mirrors XLA's IFRT (Client, Device, Memory, Array, Sharding, LoadedExecutable)
// as plain Go types and interfaces, and imports only the standard library. Backends
// live in other packages:
//
//   - ifrt/gocpu: pure Go, N virtual CPU devices, StableHLO programs (text or bytecode).
//   - pjrt/pjrtifrt: a PJRT plugin (libtpu, the CUDA plugin, the XLA CPU plugin).
//   - proxy: a remote IFRT Proxy server, over gRPC.
//   - cluster: a whole cluster of workers behind a resource manager.
//
// # Usage
//
//	client, err := ifrt.Open(ctx, "gocpu:devices=8") // or gocpu.New(gocpu.Config{})
//	devs := client.AddressableDevices()
//	rows, err := ifrt.NewTiledSharding(devs, 8, 1) // one tile count per dimension: rows over 8 devices
//	a, err := ifrt.MakeArrayFromSlice(ctx, client, values, ifrt.Shape{8, 4}, rows) // values []float32
//	all, err := ifrt.NewReplicatedSharding(devs)
//	b, err := ifrt.Reshard(ctx, client, a, all, ifrt.AlwaysCopy) // a whole copy on each device
//	exe, err := client.Compile(ctx, &ifrt.MLIRProgram{Module: src}, &ifrt.CompileOptions{Devices: devs})
//	res, err := exe.Execute(ctx, []ifrt.Array{a}, nil)
//	out, err := ifrt.ArrayToSlice[float32](ctx, res.Outputs[0])
//
// Explicit constructors are the primary way to make a client; Register and Open let
// binaries choose a backend by name ("name:config").
//
// # Host data
//
// MakeArrayFromSlice and ArrayToSlice move Go slices of every Element type
// (bool, the sized integers, Float16 and BFloat16 bits, float32, float64, the
// complex types) to and from arrays, the element type following from the Go type.
// Client.MakeArrayFromHostBuffer and Array.CopyToHostBuffer take raw little-endian
// bytes instead, with optional byte strides. Reshard and CopyArray move one array
// without restating its dtype and shape.
//
// # Errors
//
// Every error carries a Code in gRPC numbering (CodeOf). Test errors with errors.Is
// against the sentinels (ErrNotFound, ErrInvalidArgument, ..., ErrArrayDeleted,
// ErrClientClosed); never match messages. Codes travel unchanged from PJRT plugins
// through ifrt to the wire and back, so errors.Is works across a proxy.
//
// # Concurrency
//
// Clients, arrays and executables are safe for concurrent use by multiple goroutines.
// Devices, memories, shardings and specs are immutable values.
//
// # Lifetimes
//
// An Array holds device memory until Delete (or until it is donated to an execution,
// or the Client closes). A LoadedExecutable holds its compiled program until Delete.
// Client.Close frees everything. Using a deleted array fails with ErrArrayDeleted;
// it never crashes.
//
// # Futures
//
// Asynchronous results are *Future values: Await(ctx) waits, Done() gives a channel.
// Cancelling a wait does not cancel the work.
package ifrt
