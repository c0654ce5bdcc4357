// Package stablehlo parses StableHLO programs, in MLIR text form or as
// portable artifacts (MLIR bytecode), and runs them with a reference
// interpreter written in plain Go.
//
// It exists for the pure-Go CPU backend (ifrt/gocpu): stock JAX sends that
// backend every jit as a portable artifact, Go programs and tests hand it the
// text that jax.jit(f).lower(...).as_text() prints, and this package turns
// either into results. It imports only the standard library and
// internal/mlirbc; on amd64 one assembly kernel (dot_amd64.s) runs float32
// matrix rows eight lanes at a time with the scalar code's roundings.
//
// # Usage
//
//	m, err := stablehlo.Parse(src)                // text (pretty or generic) or bytecode
//	if err != nil { ... }                          // "line:col: ..." or "offset N: ..." errors
//	if err := m.Unsupported(); err != nil { ... }  // Unimplemented: names the op
//	outs, err := m.Run(ctx, []*stablehlo.Tensor{x, y})
//
// A portable artifact is read by internal/mlirbc and converted into the IR
// the text parser builds for the same program, as StableHLO's own VHLO
// deserializer converts it: each vhlo.X_vN op becomes stablehlo.X (an older
// version reads as the current op), defaults VHLO spells out are dropped,
// flattened dimension numbers are grouped again, Shardy attributes and ops
// (sdy.sharding, sdy.mesh, sdy.manual_computation, ...) keep their meaning,
// and a CHLO op JAX serialized as a composite becomes that op again when the
// interpreter has it. JAX expands some other CHLO ops into StableHLO before
// serializing, so those programs run the expansion.
//
// Module exposes what a runtime needs before running: Main().Params() and
// Results() with types, mhlo.sharding strings (Shardy's sdy.sharding
// attributes are converted to the same HLO syntax), donation flags
// (jax.buffer_donor, tf.aliasing_output), NumPartitions, NumReplicas and
// UsesCollectives. ParseHloSharding parses sharding strings into the fields
// of xla.OpSharding.
//
// Tensors are dense, row-major and little-endian; i1 uses one byte per
// element, a complex element its real part then its imaginary part. Element
// types: i1, i8-i64, ui8-ui64, f16, bf16, f32, f64, complex<f32>,
// complex<f64>.
//
// # Semantics
//
// The interpreter follows the StableHLO specification. Where the
// specification leaves results to the implementation it does what XLA's CPU
// backend does: integer division by zero gives -1 (all bits set) and
// remainder by zero the dividend; float-to-integer conversion truncates and
// saturates, NaN becomes 0; scatter drops update windows that do not fit;
// rng_bit_generator reproduces XLA's Philox (used for DEFAULT) and ThreeFry
// expansions bit for bit. The golden corpus in testdata/golden, produced by
// scripts/gen_stablehlo_corpus.py with the pinned JAX on its CPU backend,
// checks these choices. bf16 and f16 values are computed in f32 and rounded
// after every op, as the specification says; XLA may keep the extra
// precision inside fused computations, so such results can differ by an ulp.
// Float transcendental functions use Go's math package and can differ from
// XLA's approximations in the last bits.
//
// Supported ops: constant, iota, all elementwise arithmetic, math, logical,
// bitwise, shift and comparison ops, select, clamp, convert,
// bitcast_convert, reduce_precision, broadcast_in_dim, reshape, transpose,
// slice, dynamic_slice, dynamic_update_slice, concatenate, pad, reverse, dot,
// dot_general, convolution, reduce, reduce_window, select_and_scatter,
// gather, scatter, sort, map, get_dimension_size, triangular_solve, while,
// case, if, func.call, composite (runs its decomposition),
// optimization_barrier, rng_bit_generator, the chlo ops JAX emits for
// special functions and top_k, the LAPACK custom calls of JAX's CPU
// lowering for triangular solves, Cholesky, LU, Householder QR (with column
// pivoting too, and Q applied without forming it), symmetric
// eigendecomposition and tridiagonal reduction, SVD (divide and conquer's
// target and the QR algorithm's), tridiagonal solves, the nonsymmetric
// eigenproblem, Schur decomposition and Hessenberg reduction of real and
// complex matrices (lapack_{s,d,c,z}{trsm,potrf,getrf,geqrf,geqp3,
// orgqr/ungqr,ormqr/unmqr,syevd/heevd,sytrd/hetrd,gesdd,gesvd,gtsv,geev,
// gees,gehrd}_ffi: every LAPACK target jaxlib registers, and jaxlib's own
// tridiagonal_solve_perturbed_ffi for eigh_tridiagonal's vectors), and the
// sharding annotations (custom_call @Sharding, sdy.sharding_constraint,
// sdy.reshard), which are identities in a global run, the collectives
// (all_reduce, all_gather, reduce_scatter, all_to_all, collective_permute,
// collective_broadcast, partition_id, replica_id) and manual partitioning
// (sdy.manual_computation, the GSPMD SPMDFullToShardShape and
// SPMDShardToFullShape custom calls), and on complex values real, imag,
// complex and fft (FFT, IFFT, RFFT, IRFFT). Everything else is
// Unimplemented: f8E8M0FNU, f4E2M1FN and the 6-bit floats, dynamic shapes,
// other custom calls (host callbacks), tuples and tokens, and MLIR
// bytecode that is not a StableHLO portable artifact (other dialects'
// encodings).
//
// # SPMD execution
//
// Run runs a program as its global computation (programs with collectives
// as all their partitions at once). RunProcess runs one process of the
// replica × partition grid on its blocks of the arguments, exchanging data
// with the other processes through a Communicator: the contract every
// transport follows (comm.go). RunProcesses runs the whole grid in this
// process over a LocalGroup; RunLocal runs some of its processes, joining
// their LocalGroup with a network Communicator to the others through Route.
// communicatortest checks a Communicator implementation. Values stay blocks
// across manual regions; a global op reads the value gathered from the
// blocks of the process's replica, so a program without manual regions
// runs its global computation in every process.
//
// # Errors
//
// Every error other than a context error is an *Error whose Code method
// returns a gRPC code: InvalidArgument for malformed text or bytecode and
// for arguments that do not match @main, Unimplemented for valid programs
// the package cannot run, Aborted in a process stopped by another
// process's failure or by programs that disagree on their collectives, and
// Internal for interpreter bugs. Errors in text
// start with "line:col: ", in bytecode with "offset N: " (a byte offset).
// Parse and Run recover from panics and report them as Internal errors.
//
// # Concurrency
//
// A parsed Module is immutable: it is safe for concurrent use by multiple
// goroutines, and concurrent Run calls share nothing. Run checks ctx between
// loop iterations and returns ctx.Err() unchanged when it is cancelled. Large
// elementwise ops and matrix products use several goroutines internally.
//
// # Lifetimes
//
// Parse does not retain src. Run never modifies its argument tensors, may
// read them until it returns, and returns new tensors owned by the caller
// (never aliasing an argument).
package stablehlo
