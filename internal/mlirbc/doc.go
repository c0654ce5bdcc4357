// Package mlirbc reads MLIR bytecode: the binary form of MLIR modules, in
// which stock JAX sends every jit (a StableHLO portable artifact, VHLO ops
// with Shardy ops kept unversioned) and jax.export writes its artifacts.
// It imports only the standard library.
//
// # Usage
//
//	m, err := mlirbc.Read(data)  // data starts with mlirbc.Magic, "ML\xEFR"
//	for _, op := range m.Ops { ... } // one builtin.module for StableHLO
//
// Read decodes the header (format versions 0 to MaxVersion, the producer
// string) and every section: strings, dialects with their versions and op
// names, the attribute/type table with its offsets, resources (external and
// dialect blobs, bools, strings), properties (version 5 and later), and the
// IR: ops with their locations, attributes, properties, results, operands,
// successors, use-list orders and regions, including the regions of
// isolated-from-above ops that later versions store in their own sections
// for lazy loading (Read loads them all). Values are numbered as the format
// numbers them, so operands resolve to the *Value of their definition.
//
// Attributes and types of the builtin dialect, of VHLO (every attribute and
// type kind of StableHLO up to 1.20, as JAX 0.10 to 0.12 write them) and of
// Shardy decode into this package's types (IntegerAttr, VHLOTensor,
// SdyTensorSharding, ...); their String methods print MLIR syntax. Entries a
// producer stored as text become OpaqueAttr and OpaqueType. Properties are
// decoded for builtin.module and the VHLO and Shardy ops (property layouts
// are per op: sorted inherent attributes); other ops keep them raw.
//
// # Errors
//
// Malformed input fails with an *Error whose message reads "mlirbc: OFFSET:
// what is wrong", OFFSET being where in data the problem is, and whose Code
// is InvalidArgument; well-formed input this package does not understand (a
// newer format version, another dialect's custom encoding) is Unimplemented.
// Every read is bounds-checked, counts are checked against the bytes left,
// nesting is limited to 500 levels and cycles are refused, so no input makes
// Read panic, loop or allocate more than a small multiple of its size.
//
// # Concurrency
//
// Read is safe for concurrent use; a returned Module is plain data, safe to
// read from several goroutines.
//
// # Lifetimes
//
// The byte slices of a Module (constant data, resource blobs, raw
// properties) alias data rather than copy it: keep data unchanged while the
// Module is in use.
package mlirbc
