// Package proxypb holds the protocol buffer messages and the gRPC service of
// the IFRT Proxy protocol: the protocol that jaxlib's built-in IFRT Proxy
// client speaks (JAX_PLATFORMS=proxy) and that OpenPathways uses between its
// own clients, proxy servers and workers.
//
// The .proto files in this directory are our own, written to be wire-compatible
// with upstream openxla/xla: the same proto package names (xla.ifrt.proxy,
// xla.ifrt, xla.ifrt.proto, tensorflow, tensorflow.error), message and
// service names, field numbers and field types, for the subset of messages
// the proxy uses. The service is xla.ifrt.proxy.GrpcIfrtService, so its
// method paths are those of the upstream server. XLA's own messages
// (xla.OpSharding, xla.LayoutProto, xla.CompileOptionsProto, ...) live in
// internal/xlapb, because their Go names would clash with the xla.ifrt ones
// here (both packages have a ShapeProto and a LayoutProto).
//
// The *.pb.go and *_grpc.pb.go files are generated and checked in. After
// editing a .proto file, regenerate with
//
//	scripts/genproto.sh
//
// (or go generate ./proxy/proxypb) and check that the tree is current with
// scripts/verify_generate.sh. Both use the pinned protoc and plugins
// described in scripts/genproto.sh.
//
// # Key Go names
//
// A session request is an [IfrtRequest] whose Request field holds one
// oneof wrapper, named after the field: [IfrtRequest_InitRequest],
// [IfrtRequest_CompileRequest], [IfrtRequest_LoadedExecutableExecuteRequest],
// and so on. Responses mirror this with [IfrtResponse] and
// [IfrtResponse_InitResponse], [IfrtResponse_CompileResponse], ... Errors are
// [StatusProto] values whose Code is a [Code] (gRPC numbering).
//
// # Wire details worth knowing
//
//   - Handles are fixed64 (8 little-endian bytes), not varints.
//   - [CheckValueReadyRequest].ValueHandles is unpacked; every other repeated
//     scalar is packed.
//   - [DeleteArrayRequest] and [DestructArrayRequest] carry their handles in
//     field 2 (field 1 is reserved).
//   - version_number fields of the xla.ifrt messages must stay 0 in anything
//     a server sends.
//   - The oneof number of BitcastArrays (34) and that message's fields are
//     inferred, not checked against an upstream file.
package proxypb

//go:generate bash ../../scripts/genproto.sh proxy/proxypb
