// Package xlapb holds the XLA protocol buffer messages OpenPathways reads and
// writes: element types, shapes and layouts (xla_data.proto), HLO shardings
// (OpSharding) and device assignments, compile options as PJRT plugins take
// them (CompileOptionsProto, ExecutableBuildOptionsProto), and compiled memory
// statistics, with their conversion to and from ifrt.CompiledMemoryStats.
//
// The .proto files in this directory are our own, written to be
// wire-compatible with upstream openxla/xla: proto package xla (and
// stream_executor for one placeholder), the upstream message names, field
// numbers and field types. They declare only the subset we need; fields
// declared upstream but not here are kept as unknown fields when a message is
// decoded and encoded again, so options a client sets (for example XLA debug
// flags inside DebugOptions) reach the compiler unchanged.
//
// The *.pb.go files are generated and checked in. After editing a .proto
// file, regenerate with
//
//	scripts/genproto.sh
//
// (or go generate ./internal/xlapb) and check that the tree is current with
// scripts/verify_generate.sh. Both use the pinned protoc and plugins
// described in scripts/genproto.sh.
package xlapb

//go:generate bash ../../scripts/genproto.sh internal/xlapb
