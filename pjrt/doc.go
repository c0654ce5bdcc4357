// Package pjrt loads PJRT plugins (libtpu, the XLA CPU and CUDA plugins) through
// the PJRT C API and drives them: clients, devices and memories, compilation of
// StableHLO, device buffers, execution and completion events. It is the only
// package of the module that uses cgo, and it is usable on its own: besides
// the standard library it imports only ifrt, for its error codes.
//
// # Usage
//
//	p, err := pjrt.Load("/path/to/xla_cpu_pjrt.so") // dlopen, version check, initialize
//	c, err := p.NewClient(ctx, map[string]any{"cpu_device_count": int64(8)})
//	defer c.Close()
//
//	x, err := c.Compile(ctx, stablehloText, "mlir", pjrt.CompileOptions{}.Marshal())
//	a, err := c.BufferFromHost(ctx, data, pjrt.F32, []int64{4}, nil)
//	outs, events, err := x.Execute(ctx, [][]*pjrt.Buffer{{a, a}}, nil) // one row per device
//	err = events[0].Await(ctx)
//	err = outs[0][0].ToHost(ctx, dst)
//
// Programs are given to Compile as bytes with a format: "mlir" takes StableHLO
// text or MLIR bytecode, including the portable artifacts jax.export writes;
// "hlo" takes a serialized HloModuleProto. The compile options are a serialized
// xla.CompileOptionsProto: CompileOptions.Marshal encodes the common fields
// (replicas, partitions, device assignment, SPMD/Shardy, portable), or callers
// pass their own proto bytes. An SPMD executable compiled for N partitions runs
// with N argument rows, one per device of Executable.AddressableDevices, and
// returns one output row and one completion event per device.
//
// Plugin.NewTopology and Topology.Compile compile ahead of time for devices that
// are not present (PJRT_Compile): libtpu compiles for a named slice such as
// "v5e:2x2" on a machine without TPUs, and the serialized result loads later
// with Client.DeserializeExecutable. CPU plugins answer UNIMPLEMENTED.
//
// Client create options are plugin-specific named values. The XLA CPU plugins
// take "cpu_device_count" (int64); the newer one (API 0.115) also "process_id"
// (int64) and "asynchronous" (bool) and rejects unknown names, while the 0.81
// one ignores unknown names.
//
// # Custom-call handlers
//
// Plugin.RegisterFFIHandler makes a Go function the handler of a custom-call
// target that programs the plugin compiles call through XLA's typed FFI (a
// stablehlo.custom_call with an mhlo.backend_config dictionary, as JAX emits
// them), through the plugin's FFI extension. The handler gets the call's
// buffers (XLA's memory, in the call site's layout) and its integer
// attributes, on the plugin's threads. Registrations last for the process;
// ffi.c holds one C trampoline per registration (64 in all), since XLA calls a
// handler with nothing but its call frame. The registration arguments'
// layout has changed within XLA's history (a version with an api_version
// field before the handler exists); ffi.c uses the layout of the pinned CPU
// plugins, and plugins of PJRT API versions outside 0.81 to 0.115 are
// refused with Unimplemented rather than risked.
//
// # Multi-process clients
//
// Some plugins make one client of several processes, each owning some of its
// devices: the CUDA plugin with "node_id" and "num_nodes" (int64) create
// options, libtpu from the TPU_* and MEGASCALE_* environment of a multi-host
// or multi-slice job. Such a plugin reaches its peers through a key-value
// store that the caller provides: NewClient(ctx, opts,
// WithKeyValueStore(kv)) passes PJRT_Client_Create the kv_get, kv_try_get
// and kv_put callbacks, which call kv (a KeyValueStore) from the plugin's
// threads until the client is closed. Close cancels the store's calls in
// flight, destroys the client, and only then frees the callbacks, so the
// plugin may call them until PJRT_Client_Destroy returns. The callbacks never
// read struct_size from their argument structs (XLA leaves it unset there);
// store errors reach the plugin with their ifrt.CodeOf code through its
// callback_error. MemoryKeyValueStore serves clients within one process.
//
// The XLA CPU plugins have no cross-process collectives: the 0.115 one takes
// "process_id" (global device ids become process_id<<11 + local), the 0.81 one
// ignores it (every process is process 0, ids collide), neither calls the
// key-value store, and both refuse a device assignment naming another
// process's device with INVALID_ARGUMENT ("Multiprocess computations aren't
// implemented on the CPU backend").
//
// # Versions
//
// The package is built against pjrt_c_api.h 0.114 (HeaderMinorVersion) and loads
// plugins of major version 0 from minor 0.57 (MinMinorVersion, when the function
// table took its present layout) upwards; older ones are refused by Load with an
// error naming the version found. Newer plugins work: they accept the argument
// structs of an older caller. Before any call the package checks that the
// plugin's function table reaches the slot (against the table's struct_size)
// and that the slot is set; a call the plugin lacks returns an UNIMPLEMENTED
// *Error that names the API version it needs (Plugin.Has reports the same).
// Tested with xla-cpu-pjrt 0.0.1 (API 0.81), lammps-jax-pjrt-cpu 0.11.2 (0.115)
// and libtpu 0.0.51 (0.116), which scripts/setup_plugins.sh installs.
//
// # Errors
//
// Errors from a plugin are *Error values carrying the plugin's PJRT_Error_Code
// (the gRPC numbering, so it is an ifrt.Code) and its message unchanged.
// errors.Is(err, ifrt.ErrNotFound) and ifrt's other Err<Code> sentinels match
// by code, and ifrt.CodeOf returns the code of any error; no caller needs to
// look at message text. Using a closed object returns ErrClosed; a build
// without cgo returns ErrCgoUnavailable from Load.
// Some plugin paths abort the process instead of returning an error (the 0.81
// CPU plugin does on a mistyped "cpu_device_count", and is reported to on an
// empty compile-options blob); the package validates such inputs in Go first.
//
// # Concurrency
//
// Plugins, clients, devices, memories, buffers, executables and events are
// safe for concurrent use by multiple goroutines. Each C call holds its
// object's lock for reading, so Close waits for calls in progress and a closed
// object is never used. Calls that wait (Event.Await, Buffer.ToHost) block an
// OS thread in the plugin when the context can never be cancelled (the fastest
// path); with a cancellable context they wait on a channel fed by
// PJRT_Event_OnReady and return the context's error if it ends first.
// Cancelling a context never cancels device work: a transfer or execution
// continues, and memory it uses stays pinned until it is done.
//
// # Lifetimes
//
// Every native object (Client, Executable, Buffer, Event) has an idempotent
// Close. Closing a client first closes every event, buffer and executable made
// through it, so the plugin never sees a client destroyed under live objects.
// runtime.AddCleanup destroys objects that become unreachable without Close;
// it is a safety net, not the contract (built with -tags invariants, it reports
// each object it had to destroy on standard error). Live and the Live*
// functions count the objects not yet destroyed, for leak tests. Devices and
// memories belong to their client and need no Close. Plugins are never
// unloaded.
//
// Host memory follows the cgo pointer rules: with ImmutableOnlyDuringCall (the
// default) Go memory is used only during the call; with the other semantics the
// slice is pinned (runtime.Pinner) until the buffer's HostDone event fires, and
// with the zero-copy semantics the buffer may alias it (XLA:CPU does when the
// data is dense and suitably aligned). ToHostAsync pins its destination until
// the copy's event fires. Go memory reaches the plugin only as the cgo rules
// allow, for the length of a call or pinned while the plugin uses it; argument
// structs are filled in Go and passed to the C trampolines by value, so the
// plugin never sees a Go stack address.
package pjrt

// The C layer: calls_gen.h holds one trampoline per PJRT_Api function the
// package calls and calls_gen.go / calls_cgo_gen.go their Go side, all generated
// from pjrt_c_api.h and functions.txt by internal/cmd/pjrtgen (make generate;
// make verify fails when they are stale). shim.c is the small hand-written rest.
//go:generate go run ../internal/cmd/pjrtgen
