package pjrt

import (
	"fmt"
	"sync/atomic"
)

// BufferType is an element type, numbered as PJRT_Buffer_Type.
type BufferType int32

// Element types (PJRT_Buffer_Type values).
const (
	InvalidType   BufferType = 0
	PRED          BufferType = 1
	S8            BufferType = 2
	S16           BufferType = 3
	S32           BufferType = 4
	S64           BufferType = 5
	U8            BufferType = 6
	U16           BufferType = 7
	U32           BufferType = 8
	U64           BufferType = 9
	F16           BufferType = 10
	F32           BufferType = 11
	F64           BufferType = 12
	BF16          BufferType = 13
	C64           BufferType = 14
	C128          BufferType = 15
	F8E5M2        BufferType = 16
	F8E4M3FN      BufferType = 17
	F8E4M3B11FNUZ BufferType = 18
	F8E5M2FNUZ    BufferType = 19
	F8E4M3FNUZ    BufferType = 20
	S4            BufferType = 21
	U4            BufferType = 22
	Token         BufferType = 23
	S2            BufferType = 24
	U2            BufferType = 25
	F8E4M3        BufferType = 26
	F8E3M4        BufferType = 27
	F8E8M0FNU     BufferType = 28
	F4E2M1FN      BufferType = 29
	S1            BufferType = 30
	U1            BufferType = 31
	F6E2M3FN      BufferType = 32
	F6E3M2FN      BufferType = 33
)

var bufferTypeInfo = [...]struct {
	name string
	bits int
}{
	{"invalid", 0}, {"pred", 8}, {"s8", 8}, {"s16", 16}, {"s32", 32}, {"s64", 64},
	{"u8", 8}, {"u16", 16}, {"u32", 32}, {"u64", 64}, {"f16", 16}, {"f32", 32},
	{"f64", 64}, {"bf16", 16}, {"c64", 64}, {"c128", 128}, {"f8e5m2", 8},
	{"f8e4m3fn", 8}, {"f8e4m3b11fnuz", 8}, {"f8e5m2fnuz", 8}, {"f8e4m3fnuz", 8},
	{"s4", 4}, {"u4", 4}, {"token", 0}, {"s2", 2}, {"u2", 2}, {"f8e4m3", 8},
	{"f8e3m4", 8}, {"f8e8m0fnu", 8}, {"f4e2m1fn", 4}, {"s1", 1}, {"u1", 1},
	{"f6e2m3fn", 6}, {"f6e3m2fn", 6},
}

// String returns the lower-case StableHLO-style name ("f32", "bf16", "pred").
func (t BufferType) String() string {
	if t >= 0 && int(t) < len(bufferTypeInfo) {
		return bufferTypeInfo[t].name
	}
	return fmt.Sprintf("BufferType(%d)", int32(t))
}

// Bits is the width of one element in bits (PRED is stored as one byte: 8); 0
// for InvalidType, Token and unknown values.
func (t BufferType) Bits() int {
	if t >= 0 && int(t) < len(bufferTypeInfo) {
		return bufferTypeInfo[t].bits
	}
	return 0
}

// ByteSize is the size of one element in bytes as stored unpacked in a host
// buffer: sub-byte types (S4, U4, S2, U2, S1, U1, F4E2M1FN, F6*) occupy one byte
// each. 0 for InvalidType, Token and unknown values.
func (t BufferType) ByteSize() int {
	b := t.Bits()
	if b == 0 {
		return 0
	}
	return (b + 7) / 8
}

// HostBufferSemantics says how long PJRT may use the host memory given to
// Client.BufferFromHost (PJRT_HostBufferSemantics).
type HostBufferSemantics int32

const (
	// ImmutableOnlyDuringCall: PJRT copies (or is done with) the data before
	// BufferFromHost returns. The default; any Go slice works.
	ImmutableOnlyDuringCall HostBufferSemantics = 0
	// ImmutableUntilTransferCompletes: PJRT may read the data until the buffer's
	// HostDone event fires; the caller must not modify it before that. The slice
	// is pinned until then.
	ImmutableUntilTransferCompletes HostBufferSemantics = 1
	// ImmutableZeroCopy: the buffer may alias the data for its whole life (the
	// XLA CPU plugin does when the data is dense and suitably aligned); the caller
	// must not modify it until HostDone fires, which is after the buffer is
	// closed. The slice is pinned until then.
	ImmutableZeroCopy HostBufferSemantics = 2
	// MutableZeroCopy: like ImmutableZeroCopy, but the runtime may write into
	// the data (donated outputs). Acts like ImmutableUntilTransferCompletes on
	// non-CPU plugins.
	MutableZeroCopy HostBufferSemantics = 3
)

var hostBufferSemanticsNames = [...]string{ImmutableOnlyDuringCall: "ImmutableOnlyDuringCall",
	ImmutableUntilTransferCompletes: "ImmutableUntilTransferCompletes", ImmutableZeroCopy: "ImmutableZeroCopy",
	MutableZeroCopy: "MutableZeroCopy"}

func (s HostBufferSemantics) String() string {
	if s >= 0 && int(s) < len(hostBufferSemanticsNames) {
		return hostBufferSemanticsNames[s]
	}
	return fmt.Sprintf("HostBufferSemantics(%d)", int32(s))
}

// LiveObjects counts the native objects this process holds that have not been
// closed (explicitly, by their client's Close, or by the garbage-collection
// safety net). Tests check that every counter returns to zero.
type LiveObjects struct {
	Clients     int64
	Executables int64 // loaded executables and CompiledExecutables
	Buffers     int64
	Events      int64
	Topologies  int64
}

var live struct {
	clients, executables, buffers, events, topologies atomic.Int64
}

// Live returns the current live-object counters.
func Live() LiveObjects {
	return LiveObjects{
		Clients:     live.clients.Load(),
		Executables: live.executables.Load(),
		Buffers:     live.buffers.Load(),
		Events:      live.events.Load(),
		Topologies:  live.topologies.Load(),
	}
}

// LiveClients returns the number of clients not yet closed.
func LiveClients() int64 { return live.clients.Load() }

// LiveExecutables returns the number of executables (loaded or compiled for a
// topology) not yet closed.
func LiveExecutables() int64 { return live.executables.Load() }

// LiveBuffers returns the number of buffers not yet closed.
func LiveBuffers() int64 { return live.buffers.Load() }

// LiveEvents returns the number of events not yet closed.
func LiveEvents() int64 { return live.events.Load() }

// ExecuteOptions are per-call options of Executable.Execute. The zero value
// runs with the executable's compiled device assignment.
type ExecuteOptions struct {
	// Device, if set, launches a single-device (portable) executable on this
	// addressable device; the argument list must then have exactly one row.
	Device *Device
	// NonDonatable lists argument indices that must not be donated even if the
	// program aliases them to outputs.
	NonDonatable []int64
	// LaunchID identifies this launch for multi-host programs (0 = none).
	LaunchID int
	// NoEvents skips the per-device completion events (outputs still carry
	// their own readiness).
	NoEvents bool
}
