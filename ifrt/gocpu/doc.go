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
// parameters and outputs (types and shardings) from the module. An SPMD
// program runs as its global program on the assembled arguments, and its
// outputs are split by their shardings; programs with collectives or manual
// partitioning (shard_map) and ops the interpreter lacks are Unimplemented,
// naming what is missing.
//
// # Errors
//
// Errors carry ifrt codes: InvalidArgument for malformed programs and
// arguments, Unimplemented for valid programs gocpu cannot run.
//
// # Concurrency
//
// A Client and its arrays and executables are safe for concurrent use by
// multiple goroutines; executions of one executable run independently.
package gocpu
