// Package stablehlo parses StableHLO programs in MLIR text form and runs
// them with a reference interpreter written in plain Go.
//
// It exists for the pure-Go CPU backend (ifrt/gocpu): JAX, Go programs and
// tests hand that backend the text that jax.jit(f).lower(...).as_text()
// prints, and this package turns it into results. It imports only the
// standard library.
//
// # Usage
//
//	m, err := stablehlo.Parse(text)      // pretty or generic MLIR form
//	if err != nil { ... }                 // InvalidArgument, "line:col: ..."
//	if err := m.Unsupported(); err != nil { ... } // Unimplemented: names the op
//	outs, err := m.Run(ctx, []*stablehlo.Tensor{x, y})
//
// Module exposes what a runtime needs before running: Main().Params() and
// Results() with types, mhlo.sharding strings (sdy.sharding attributes are
// converted to the same HLO syntax), donation flags, NumPartitions,
// NumReplicas and UsesCollectives. ParseHloSharding parses the sharding
// strings into the fields of xla.OpSharding.
//
// Tensors are dense, row-major and little-endian; i1 uses one byte per
// element. The interpreter follows the StableHLO specification; where the
// specification leaves results to the implementation (integer division by
// zero, float-to-int overflow, out-of-bounds scatter windows, the DEFAULT
// rng algorithm) it does what XLA's CPU backend does, and the golden corpus
// in testdata/golden, produced by scripts/gen_stablehlo_corpus.py with the
// pinned JAX, checks that. bf16 and f16 values are computed in f32 and
// rounded after every op, as the specification says; XLA may keep the extra
// precision inside fused computations, so such results can differ by an ulp.
//
// # Errors
//
// Every error other than a context error is an *Error whose Code method
// returns a gRPC code: InvalidArgument for malformed text and for arguments
// that do not match @main, Unimplemented for ops, types and custom calls the
// interpreter does not support (complex and f8 types, convolution, fft,
// collectives, most custom_calls, ...), and Internal for interpreter bugs.
// Run recovers from panics and reports them as Internal errors.
//
// # Concurrency
//
// A parsed Module is immutable: it is safe for concurrent use by multiple
// goroutines, and concurrent Run calls share nothing. Run checks ctx between
// loop iterations and returns ctx.Err() unchanged when it is cancelled.
//
// # Lifetimes
//
// Parse copies what it needs; the source may be reused afterwards. Run does
// not retain or modify its argument tensors, and the returned tensors are
// new allocations owned by the caller.
package stablehlo
