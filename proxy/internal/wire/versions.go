package wire

import (
	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/proxy/proxypb"
)

// Protocol versions of the IFRT Proxy protocol (upstream
// xla/python/ifrt_proxy/common/versions.h). Only the ones this module branches
// on, or that bound the range it speaks, are named.
const (
	// ProtocolExecutableDevices (16) added CompileResponse.device_ids. It is the
	// oldest version that upstream still speaks.
	ProtocolExecutableDevices = 16
	// ProtocolExecuteResult (21) made the client poll execution status handles
	// with LoadedExecutableFetchExecuteResult instead of CheckFuture.
	ProtocolExecuteResult = 21
	// ProtocolDevicePlatformName (22) added InitResponse.Device.platform_name.
	ProtocolDevicePlatformName = 22
	// ProtocolMakeArrayFromHostBufferWithLayout (23) added
	// MakeArrayFromHostBufferRequest.layout.
	ProtocolMakeArrayFromHostBufferWithLayout = 23
	// ProtocolBitcastArrays (24) added BitcastArrays (oneof member 34, as
	// jaxlib 0.10.2's embedded descriptors confirm).
	ProtocolBitcastArrays = 24
	// Protocol25 is the newest version jaxlib 0.10.2 advertises. The wire
	// additions found in jaxlib 0.10.2's embedded descriptors beyond our protos
	// are LoadedExecutableDestructRequest.delete_options,
	// RemapPlanProto.input_devices_for_output and
	// ShardingParamProto.unreduced_axes; which of them version 25 gates is not
	// known. All three are optional: a server that ignores the first two loses
	// nothing, and the wire decoders refuse a ShardingParam with unreduced axes.
	Protocol25 = 25
)

// The range of protocol versions this module speaks, both as a server and as a
// client. A server picks min(client max, ProtocolMax) and refuses a client
// whose range does not overlap this one.
//
// The lower bound is upstream's (raised to 16 in 2025). The upper bound is
// the newest version whose wire format was checked against a real client
// (jaxlib 0.10.2 advertises [16, 25]). Newer clients (jaxlib 0.11, 0.12)
// advertise a higher maximum; as long as their minimum stays at or below
// ProtocolMax, negotiation picks ProtocolMax, which lies inside their range.
// See docs/compatibility.md.
const (
	ProtocolMin = ProtocolExecutableDevices
	ProtocolMax = Protocol25
)

// SerDes versions. The IFRT SerDes version travels next to the protocol
// version. Like the protocol version, a server picks min(client max,
// SerDesMax) and refuses a client whose range does not reach [SerDesMin,
// SerDesMax]; a client advertises [SerDesMin, SerDesMax].
const (
	SerDesMin = 0
	SerDesMax = 3
)

// SessionTokenMetadataKey is the header of an IfrtSession stream in which an
// OpenPathways server sends the session's token: a secret that OpenPathways'
// own client then sends with the session's host-buffer calls to prove they are
// its. jaxlib's client ignores the header.
const SessionTokenMetadataKey = "openpathways-session-token"

// Handles. Client-generated handles are in [1, ServerHandleMin); handles the
// server mints (executables, futures, arrays made without client handles,
// host callbacks) are at least ServerHandleMin. 0 is never a valid handle.
const ServerHandleMin uint64 = 1 << 48

// NegotiateVersion picks the protocol and SerDes versions for a client that
// advertised [min, max], or returns an InvalidArgument error if either range
// does not overlap ours. The answer is always inside both ranges.
func NegotiateVersion(min, max *proxypb.IfrtProxyVersion) (*proxypb.IfrtProxyVersion, error) {
	if min == nil || max == nil {
		return nil, ifrt.Errorf(ifrt.InvalidArgument, "wire: GetVersion request lacks min_version or max_version")
	}
	v, err := choose("protocol", min.GetProtocolVersion(), max.GetProtocolVersion(), ProtocolMin, ProtocolMax)
	if err != nil {
		return nil, err
	}
	s, err := choose("IFRT SerDes", min.GetIfrtSerdesVersionNumber(), max.GetIfrtSerdesVersionNumber(), SerDesMin, SerDesMax)
	if err != nil {
		return nil, err
	}
	return &proxypb.IfrtProxyVersion{ProtocolVersion: v, IfrtSerdesVersionNumber: s}, nil
}

// choose picks the newest version in both [lo, hi] (the client's) and
// [serverMin, serverMax].
func choose(what string, lo, hi, serverMin, serverMax int32) (int32, error) {
	v := min(hi, serverMax)
	if lo > hi || v < lo || v < serverMin {
		return 0, ifrt.Errorf(ifrt.InvalidArgument,
			"IFRT Proxy client and server failed to agree on the %s version; client supports [%d, %d], server supports [%d, %d]",
			what, lo, hi, serverMin, serverMax)
	}
	return v, nil
}

// StatusPolledWithCheckFuture reports whether, at protocol version v, the
// client polls execution status handles with CheckFuture (true) or with
// LoadedExecutableFetchExecuteResult (false). A server that keeps status
// futures in one table answers both.
func StatusPolledWithCheckFuture(v int32) bool { return v < ProtocolExecuteResult }

// HostBufferLayoutAllowed reports whether, at protocol version v,
// MakeArrayFromHostBuffer may carry a layout.
func HostBufferLayoutAllowed(v int32) bool { return v >= ProtocolMakeArrayFromHostBufferWithLayout }

// BitcastAllowed reports whether, at protocol version v, the client sends
// BitcastArrays requests.
func BitcastAllowed(v int32) bool { return v >= ProtocolBitcastArrays }
