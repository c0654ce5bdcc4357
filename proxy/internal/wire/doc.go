// Package wire converts between the Go IFRT API (package ifrt) and the IFRT
// Proxy protocol messages (package proxypb, and the XLA messages in
// internal/xlapb). The proxy server and the proxy client both use it, so that
// one set of conversions, tested once, decides what crosses the wire.
//
// Every decoder (a function named ...FromProto or ...FromBytes) treats its input
// as untrusted: it returns an *ifrt.Error with a code (usually
// InvalidArgument, Unimplemented for well-formed input that ifrt cannot
// express) and never panics. Every encoder (...ToProto) produces messages that
// jaxlib's C++ client accepts: version_number fields are left 0, optional
// fields are set only when they carry information.
//
// Device ids are resolved through a [DeviceLookup], usually the
// LookupDevice method of an ifrt.Client.
//
// The protocol versions this module speaks, the handle numbering and every
// branch that depends on the negotiated version are in versions.go.
package wire
