package ifrt

import (
	"fmt"
	"strings"
)

// DeviceID is a device's globally unique id within a Client.
type DeviceID int32

// MemoryID is a memory's unique id within a Client.
type MemoryID int32

// MemoryKind names a kind of memory attached to a device. The empty kind means the
// device's default memory.
type MemoryKind string

// The memory kinds IFRT defines.
const (
	MemoryKindDevice       MemoryKind = "device"
	MemoryKindPinnedHost   MemoryKind = "pinned_host"
	MemoryKindUnpinnedHost MemoryKind = "unpinned_host"
)

// Attributes are named values describing a device or client. Values are one of
// string, bool, int64, []int64 and float32, the types the IFRT attribute map carries.
type Attributes map[string]any

// Well-known attribute names.
const (
	AttrSliceIndex = "slice_index" // int64: which slice a device belongs to
	AttrCoords     = "coords"      // []int64: physical coordinates within a slice
	AttrCoreOnChip = "core_on_chip"
	// AttrColocationID (int64) is equal for the devices of one host: JAX's
	// colocated_cpu_devices pairs accelerators with the CPU device of theirs.
	AttrColocationID = "colocation_id"
)

// Int64 returns an int64 attribute.
func (a Attributes) Int64(name string) (int64, bool) { v, ok := a[name].(int64); return v, ok }

// String returns a string attribute.
func (a Attributes) String(name string) (string, bool) { v, ok := a[name].(string); return v, ok }

// Int64s returns an []int64 attribute.
func (a Attributes) Int64s(name string) ([]int64, bool) { v, ok := a[name].([]int64); return v, ok }

// Device is one accelerator (or virtual CPU device). Devices are created by a Client,
// immutable afterwards, and safe to share.
type Device struct {
	ID              DeviceID
	Platform        string // e.g. "cpu", "tpu", "cuda"
	Kind            string // e.g. "cpu", "TPU v5 lite"
	ProcessIndex    int
	LocalHardwareID int
	// Addressable devices are those the Client can put data on and run programs on.
	Addressable bool
	Attributes  Attributes
	// NonPrimary devices are listed among a client's devices but are not the
	// ones a program runs on by default: a host's CPU device beside its
	// accelerators, for colocated Python (JAX lists only the primary ones in
	// jax.devices()).
	NonPrimary    bool
	Memories      []*Memory // every memory the device can address
	DefaultMemory *Memory
}

// Memory returns the device's memory of the given kind; the empty kind is the default.
func (d *Device) Memory(kind MemoryKind) (*Memory, error) {
	if kind == "" {
		if d.DefaultMemory == nil {
			return nil, Errorf(NotFound, "ifrt: device %d has no default memory", d.ID)
		}
		return d.DefaultMemory, nil
	}
	for _, m := range d.Memories {
		if m.Kind == kind {
			return m, nil
		}
	}
	return nil, Errorf(InvalidArgument, "ifrt: device %d has no memory of kind %q", d.ID, kind)
}

// DefaultMemoryKind returns the kind of the device's default memory.
func (d *Device) DefaultMemoryKind() MemoryKind {
	if d.DefaultMemory == nil {
		return MemoryKindDevice
	}
	return d.DefaultMemory.Kind
}

func (d *Device) String() string {
	if d == nil {
		return "<nil device>"
	}
	return fmt.Sprintf("%s:%d", d.Platform, d.ID)
}

// Memory is a memory space, addressable by one or more devices.
type Memory struct {
	ID      MemoryID
	Kind    MemoryKind
	Devices []DeviceID
}

func (m *Memory) String() string { return fmt.Sprintf("memory:%d(%s)", m.ID, m.Kind) }

// DeviceList is an ordered list of distinct devices. The order matters: shardings
// index their shards by position in it.
type DeviceList []*Device

// IDs returns the ids in order.
func (l DeviceList) IDs() []DeviceID {
	ids := make([]DeviceID, len(l))
	for i, d := range l {
		ids[i] = d.ID
	}
	return ids
}

// Index returns the position of the device with id, or -1.
func (l DeviceList) Index(id DeviceID) int {
	for i, d := range l {
		if d.ID == id {
			return i
		}
	}
	return -1
}

// Equal reports whether both lists hold the same device ids in the same order.
func (l DeviceList) Equal(o DeviceList) bool {
	if len(l) != len(o) {
		return false
	}
	for i := range l {
		if l[i].ID != o[i].ID {
			return false
		}
	}
	return true
}

// Validate reports an empty list, nil entries and duplicates.
func (l DeviceList) Validate() error {
	if len(l) == 0 {
		return Errorf(InvalidArgument, "ifrt: empty device list")
	}
	seen := make(map[DeviceID]bool, len(l))
	for i, d := range l {
		if d == nil {
			return Errorf(InvalidArgument, "ifrt: nil device at position %d", i)
		}
		if seen[d.ID] {
			return Errorf(InvalidArgument, "ifrt: device %d appears twice in a device list", d.ID)
		}
		seen[d.ID] = true
	}
	return nil
}

func (l DeviceList) String() string {
	parts := make([]string, len(l))
	for i, d := range l {
		parts[i] = fmt.Sprint(d.ID)
	}
	return "[" + strings.Join(parts, ",") + "]"
}

// LookupDevices returns the devices of c with the given ids, in order.
func LookupDevices(c Client, ids []DeviceID) (DeviceList, error) {
	out := make(DeviceList, len(ids))
	for i, id := range ids {
		d, err := c.LookupDevice(id)
		if err != nil {
			return nil, err
		}
		out[i] = d
	}
	return out, nil
}
