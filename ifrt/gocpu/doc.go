// Package gocpu is an ifrt.Client in pure Go: a number of virtual CPU
// devices whose programs run on the StableHLO interpreter of
// internal/stablehlo. It needs no PJRT plugin and no cgo, so it is the
// embedded default backend and what tests run against.
//
// # Usage
//
//	c, err := gocpu.New(gocpu.Config{Devices: 8})
//	exe, err := c.Compile(ctx, &ifrt.MLIRProgram{Module: module}, &ifrt.CompileOptions{Devices: devs})
//
// Compile takes a StableHLO module as MLIR text (jax.jit(f).lower(...).as_text())
// or as MLIR bytecode: the portable artifact (VHLO) that stock JAX sends
// through the IFRT proxy and jax.export writes. Executables report their
// parameters and outputs (types and shardings) from the module. An
// auto-sharded SPMD program runs as its global program on the assembled
// arguments, and its outputs are split by their shardings. A program with
// collectives or manual partitioning (shard_map) runs as one process per
// device on the device's shards, the processes exchanging data over an
// in-process stablehlo.LocalGroup; output shards stay on the device that
// computed them. Ops the interpreter lacks and programs with replicas are
// Unimplemented, naming what is missing. docs/gocpu.md says what runs how.
//
// MakeArrayFromHostBuffer copies the buffer, except one given away
// (ImmutableZeroCopy with no OnDoneWithHostBuffer), which becomes the memory
// of every shard holding the whole array (one device's, each of a replicated
// array's). Arrays share shard bytes freely, since nothing writes them.
//
// # One program over several clients
//
// CompileSpan compiles a program for a global device assignment of which
// this client holds some devices, as each worker of a gang does; its
// Execute runs the local partitions on their blocks and reaches the other
// clients' partitions through a Communicator per local partition, which the
// caller provides (the worker peer service):
//
//	span, err := c.CompileSpan(ctx, program, globalDeviceIDs)
//	outs, err := span.Execute(ctx, blocks, func(p int) gocpu.Communicator { return peers.Endpoint(launch, p) })
//
// Communicator's contract is stablehlo.Communicator's;
// internal/stablehlo/communicatortest checks an implementation against it.
//
// # Errors
//
// Errors carry ifrt codes: InvalidArgument for malformed programs and
// arguments, Unimplemented for valid programs gocpu cannot run, and
// ResourceExhausted for an op whose results do not fit: arrays live in the
// Go heap, and the process's memory limit (GOMEMLIMIT, debug.SetMemoryLimit)
// is the devices' memory.
//
// # Concurrency
//
// A Client and its arrays and executables are safe for concurrent use by
// multiple goroutines; executions of one executable run independently.
package gocpu
