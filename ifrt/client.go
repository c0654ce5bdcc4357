package ifrt

import (
	"context"
	"strconv"
)

// Client is a runtime: a set of devices, the arrays on them and the programs that
// run there. Implementations are backends (gocpu, pjrtifrt, proxy, the Pathways
// cluster client). A Client is safe for concurrent use by multiple goroutines.
//
// Methods that take arrays accept only arrays made by the same Client; others fail
// with InvalidArgument. Close releases everything the Client holds; afterwards every
// method fails with ErrClientClosed.
type Client interface {
	// Platform describes the runtime.
	Platform() Platform
	// Devices returns every device, addressable or not, in id order.
	Devices() DeviceList
	// AddressableDevices returns the devices this process can use.
	AddressableDevices() DeviceList
	// LookupDevice returns the device with the given id, or a NotFound error.
	LookupDevice(id DeviceID) (*Device, error)
	// Attributes describes the client (e.g. supported features, versions).
	Attributes() Attributes

	// MakeArrayFromHostBuffer makes an array of spec from the dense global contents in
	// data, laid out with opts.ByteStrides. Every device of spec.Sharding receives its
	// shard.
	MakeArrayFromHostBuffer(ctx context.Context, data []byte, spec ArraySpec, opts *HostBufferOptions) (Array, error)
	// AssembleArray makes one array of spec from single-device arrays, one per device
	// of spec.Sharding in order, each holding that device's shard.
	AssembleArray(ctx context.Context, spec ArraySpec, shards []Array, sem CopySemantics) (Array, error)
	// DisassembleArray returns one single-device array per device of the array's
	// sharding, in order.
	DisassembleArray(ctx context.Context, a Array, sem CopySemantics) ([]Array, error)
	// CopyArrays copies arrays to other devices (as many as each array's sharding has,
	// the partitioning unchanged) and, when memoryKind is not nil, to another kind of
	// memory.
	CopyArrays(ctx context.Context, arrays []Array, devices DeviceList, memoryKind *MemoryKind, sem CopySemantics) ([]Array, error)
	// Reshard returns arrays[i] with the contents unchanged under specs[i]'s sharding,
	// which may use other devices. Dtype and shape must match.
	Reshard(ctx context.Context, arrays []Array, specs []ArraySpec, sem CopySemantics) ([]Array, error)
	// Remap builds new arrays from the shards of the given ones, as the plan says.
	Remap(ctx context.Context, plan RemapPlan, arrays []Array, sem CopySemantics) ([]Array, error)
	// FullyReplicatedShard returns a fully replicated array's contents as a
	// single-device array on its sharding's first device.
	FullyReplicatedShard(ctx context.Context, a Array, sem CopySemantics) (Array, error)

	// Compile compiles a program for opts.Devices.
	Compile(ctx context.Context, program Program, opts *CompileOptions) (LoadedExecutable, error)

	// Close releases every resource of the client. It is idempotent.
	Close() error
	// As sets target to the backend-native client and reports whether it could.
	As(target any) bool

	isClient()
}

// Platform describes a runtime.
type Platform struct {
	Name         string // e.g. "cpu", "tpu", "cuda"
	Version      string
	ID           uint64
	RuntimeType  string // e.g. "gocpu", "pjrt_ifrt", "proxy/pjrt_ifrt"
	ProcessIndex int
}

// HostBufferSemantics says how long the caller keeps a host buffer intact.
type HostBufferSemantics int

const (
	// ImmutableOnlyDuringCall: the buffer may change once the call returns, so the
	// backend copies it before returning.
	ImmutableOnlyDuringCall HostBufferSemantics = iota
	// ImmutableUntilTransferCompletes: the buffer stays intact until OnDoneWithHostBuffer.
	ImmutableUntilTransferCompletes
	// ImmutableZeroCopy: the buffer stays intact until OnDoneWithHostBuffer, and the
	// backend may use it as device memory instead of copying it.
	ImmutableZeroCopy
)

var hostBufferSemanticsNames = [...]string{ImmutableOnlyDuringCall: "ImmutableOnlyDuringCall",
	ImmutableUntilTransferCompletes: "ImmutableUntilTransferCompletes", ImmutableZeroCopy: "ImmutableZeroCopy"}

func (s HostBufferSemantics) String() string {
	return enumName(hostBufferSemanticsNames[:], s, "HostBufferSemantics")
}

// HostBufferOptions are the options of MakeArrayFromHostBuffer; nil means defaults.
type HostBufferOptions struct {
	// ByteStrides of the host buffer, one per dimension; nil means dense row-major.
	ByteStrides []int64
	Semantics   HostBufferSemantics
	// OnDoneWithHostBuffer, if set, is called once the backend no longer reads the
	// buffer. It is called exactly once, even when the call fails.
	OnDoneWithHostBuffer func()
}

// CopySemantics says whether an operation that derives arrays from others may reuse
// or must donate their memory.
type CopySemantics int

const (
	// AlwaysCopy leaves the inputs untouched and independent of the results.
	AlwaysCopy CopySemantics = iota
	// ReuseInput lets results share memory with the inputs, which stay usable.
	ReuseInput
	// DonateInput deletes the inputs; results may take over their memory.
	DonateInput
)

var copySemanticsNames = [...]string{AlwaysCopy: "AlwaysCopy", ReuseInput: "ReuseInput", DonateInput: "DonateInput"}

func (s CopySemantics) String() string { return enumName(copySemanticsNames[:], s, "CopySemantics") }

// enumName is v's name in names, or type(v) for a value without one.
func enumName[T ~int](names []string, v T, typ string) string {
	if v >= 0 && int(v) < len(names) && names[v] != "" {
		return names[v]
	}
	return typ + "(" + strconv.Itoa(int(v)) + ")"
}

// RemapPlan moves whole shards between arrays: for each Mapping, the shards of input
// InArray at positions From go, in order, to positions To of output OutArray.
type RemapPlan struct {
	InputSpecs  []ArraySpec
	OutputSpecs []ArraySpec
	Mappings    []RemapMapping
}

// RemapMapping is one step of a RemapPlan.
type RemapMapping struct {
	InArray, OutArray int
	From, To          []Interval
}

// Interval is the shard positions Start, Start+Step, ... below End.
type Interval struct{ Start, End, Step int64 }

// Positions expands the interval, or fails on a non-positive step or a reversed range.
func (iv Interval) Positions() ([]int64, error) {
	if iv.Step <= 0 || iv.Start < 0 || iv.End < iv.Start {
		return nil, Errorf(InvalidArgument, "ifrt: bad interval [%d:%d:%d]", iv.Start, iv.End, iv.Step)
	}
	var out []int64
	for p := iv.Start; p < iv.End; p += iv.Step {
		out = append(out, p)
	}
	return out, nil
}
