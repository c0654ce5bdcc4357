// Package pjrtifrt is an ifrt.Client over a PJRT plugin (package pjrt): the
// XLA CPU plugins, libtpu, the CUDA plugin. It is the backend that runs
// programs on real devices; its import registers the backend name "pjrt".
//
// # Usage
//
//	c, err := pjrtifrt.New(ctx, pjrtifrt.Config{PluginPath: "/path/to/xla_cpu_pjrt.so", Devices: 8})
//	// or, by name: ifrt.Open(ctx, "pjrt:plugin=/path/to/xla_cpu_pjrt.so,devices=8")
//	// as process 0 of 2: "pjrt:plugin=...,devices=8,process=0/2,kv=<registered store>"
//	defer c.Close()
//	devs := c.AddressableDevices()
//	s, err := ifrt.NewTiledSharding(devs, 8, 1)
//	a, err := c.MakeArrayFromHostBuffer(ctx, data, ifrt.ArraySpec{DType: ifrt.F32, Shape: ifrt.Shape{16, 4}, Sharding: s}, nil)
//	exe, err := c.Compile(ctx, &ifrt.MLIRProgram{Module: src}, &ifrt.CompileOptions{Devices: devs})
//	res, err := exe.Execute(ctx, []ifrt.Array{a}, nil)
//
// New takes a Config (the client owns the PJRT client it creates); Config.Devices
// is a convenience for the CPU plugins' "cpu_device_count" create option, and
// CreateOptions passes any other plugin option through. Devices and memories are
// the plugin's, with PJRT's ids, kinds and attributes; Platform().RuntimeType is
// "pjrt_ifrt".
//
// An array is one PJRT buffer per device of its sharding, holding the shard that
// Sharding.IndexDomains assigns to that device. Host buffers use ifrt's layout
// (one byte per element for sub-byte types, sign-extended for S2 and S4; byte
// strides are gathered into a dense copy in Go). Copies between devices and
// memories use PJRT's CopyToMemory; Reshard moves shards whose domain already
// exists somewhere with device copies and cuts the others from the array's
// contents on the host. ReuseInput lets results share buffers with their inputs
// (buffers are reference counted, so deleting one array never takes another's
// memory); AlwaysCopy always makes new buffers.
//
// Compile takes StableHLO as MLIR text or bytecode (such as jax.export's portable
// artifacts). CompileOptions.Devices becomes the device assignment: one SPMD
// partition per device, in order, with SPMD partitioning when there is more than
// one device and the Shardy partitioner when the module uses the sdy dialect.
// CompileOptions.XLA, if set, is a serialized xla.CompileOptionsProto whose other
// fields (debug options, XLA flags) are kept. Parameter and output shardings come
// from the plugin's Shardings extension when it has one (the 0.115 CPU plugin
// does, xla-cpu-pjrt 0.81 does not), else from the module's mhlo.sharding or
// sdy.sharding annotations; unannotated values of an SPMD program are
// replicated. Global shapes and donation come from the module, which
// internal/stablehlo reads in text and in bytecode (portable artifacts) alike.
// A module that reader cannot read is described from the plugin alone: its
// parameters from the compiled program where the plugin gives one (else only
// their shardings, or nothing), its outputs from their element types and
// per-device dimensions times the tile counts (so uneven tiling is not
// supported there); such an SPMD program on a plugin without the Shardings
// extension fails to compile with Unimplemented, because nothing says how its
// outputs are split. An SPMD program with
// collectives or manual parts (shard_map) and an unannotated parameter fails on
// such a plugin: the partitioner picks that parameter's sharding, and sending it
// other shards makes some partitions fail while the rest wait in a collective.
// Programs whose parameters or outputs are split into uneven shards are
// Unimplemented: XLA pads such shards on the device, ifrt arrays hold them
// exactly (JAX never compiles them either). The caller's num_replicas must be 1 and compile_portable_executable is
// cleared. PluginProgram is Unimplemented.
//
// Execute passes each argument's per-device buffers in the executable's device
// order. Arguments the program donates are deleted: those it declares donated
// in its text (jax.buffer_donor, tf.aliasing_output) and any buffer PJRT
// consumed, except ExecuteOptions.NonDonatableInputs. A buffer shared with
// another array (ReuseInput) is never handed to PJRT for donation.
//
// # Several processes
//
// Config.Process (or "process=<index>/<count>,kv=<name>" in the backend
// string, with a store named by RegisterKeyValueStore) makes the client one
// process of a multi-process client: the CUDA plugin gets "node_id" and
// "num_nodes" and the key-value store, libtpu takes its place from the TPU_*
// and MEGASCALE_* environment the JobSet and Slurm scripts set, and the CPU
// plugins get "process_id" (distinct global device ids) and learn the other
// processes' devices through the store, listed as non-addressable. The XLA
// CPU plugins cannot run a program over several processes' devices, and
// pjrtifrt does not yet compile one for any plugin: Compile returns
// Unimplemented naming the plugin; such programs run on gocpu. See Process.
//
// # Errors
//
// PJRT error codes are gRPC codes, and carry over to ifrt codes unchanged
// (errors.Is(err, ifrt.ErrInvalidArgument) works on plugin errors, and the
// *pjrt.Error stays in the chain). Malformed MLIR text, which plugins report as
// UNKNOWN, is InvalidArgument. A closed client returns ifrt.ErrClientClosed, a
// deleted array ifrt.ErrArrayDeleted, a deleted executable
// ifrt.ErrExecutableDeleted. Context errors come back unchanged. Without cgo,
// New fails with an error wrapping pjrt.ErrCgoUnavailable (code Unimplemented).
//
// # Concurrency
//
// Clients, arrays and executables are safe for concurrent use by multiple
// goroutines. Cancelling a context stops a wait, never device work.
//
// # Lifetimes
//
// An array holds its buffers until Delete, donation or Client.Close; a buffer
// shared by several arrays lives until the last of them lets go. An executable
// holds its PJRT executable until Delete. Close deletes every array and
// executable and closes the PJRT client, after which pjrt.Live counts none of
// them. With ImmutableUntilTransferCompletes and ImmutableZeroCopy the host
// buffer is used until OnDoneWithHostBuffer runs: after the transfers for the
// former, after the buffers are freed for the latter (PJRT may alias it).
// Shards that are cut out of the host buffer (tiled shardings, byte strides)
// are copies, and then the callback runs before MakeArrayFromHostBuffer returns.
package pjrtifrt
