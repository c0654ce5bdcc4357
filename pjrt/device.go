package pjrt

import (
	"fmt"
	"unsafe"
)

// Device is a device of a client (PJRT_Device with its description). Devices
// live as long as their client and need no Close. All methods are safe for
// concurrent use.
type Device struct {
	client        *Client
	ptr           unsafe.Pointer
	info          deviceInfo
	memories      []*Memory
	defaultMemory *Memory
}

// Client returns the device's client.
func (d *Device) Client() *Client { return d.client }

// ID returns the device's global ID.
func (d *Device) ID() int { return d.info.id }

// ProcessIndex returns the index of the process that owns the device.
func (d *Device) ProcessIndex() int { return d.info.processIndex }

// Kind returns the device kind, e.g. "cpu", "TPU v5 lite", "NVIDIA H200".
func (d *Device) Kind() string { return d.info.kind }

// DebugString returns the plugin's verbose description of the device.
func (d *Device) DebugString() string { return d.info.debug }

// String returns the plugin's short description of the device.
func (d *Device) String() string {
	if d.info.str != "" {
		return d.info.str
	}
	return fmt.Sprintf("%s:%d", d.info.kind, d.info.id)
}

// Addressable reports whether this process can use the device.
func (d *Device) Addressable() bool { return d.info.addressable }

// LocalHardwareID returns the device's local hardware ID, or -1 when it is not
// addressable.
func (d *Device) LocalHardwareID() int { return d.info.localHardwareID }

// Attributes returns the device description's attributes (for example TPU
// "coords" []int64 and "core_on_chip" int64). Values are string, int64, []int64,
// float32 or bool.
func (d *Device) Attributes() map[string]any {
	out := make(map[string]any, len(d.info.attrs))
	for k, v := range d.info.attrs {
		if l, ok := v.([]int64); ok {
			v = append([]int64(nil), l...)
		}
		out[k] = v
	}
	return out
}

// Memories returns the memories the device can address (nil for devices that
// are not addressable).
func (d *Device) Memories() []*Memory { return append([]*Memory(nil), d.memories...) }

// DefaultMemory returns the device's default memory, or nil.
func (d *Device) DefaultMemory() *Memory { return d.defaultMemory }

// Memory is a memory space of a client (PJRT_Memory), such as a device's HBM
// ("device") or host memory ("pinned_host", "unpinned_host"). Memories live as
// long as their client.
type Memory struct {
	client  *Client
	ptr     unsafe.Pointer
	info    memoryInfo
	devices []*Device
}

// ID returns the memory's ID.
func (m *Memory) ID() int { return m.info.id }

// Kind returns the memory kind, e.g. "device", "pinned_host".
func (m *Memory) Kind() string { return m.info.kind }

// KindID returns the plugin's numeric ID of the kind, or -1 if unknown.
func (m *Memory) KindID() int { return m.info.kindID }

// DebugString returns the plugin's verbose description of the memory.
func (m *Memory) DebugString() string { return m.info.debug }

// String returns the plugin's short description of the memory.
func (m *Memory) String() string {
	if m.info.str != "" {
		return m.info.str
	}
	return fmt.Sprintf("%s:%d", m.info.kind, m.info.id)
}

// AddressableBy returns the devices that can address this memory.
func (m *Memory) AddressableBy() []*Device { return append([]*Device(nil), m.devices...) }
