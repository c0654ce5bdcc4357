package pjrt

import (
	"context"
	"fmt"
	"runtime"
	"sort"
	"unsafe"

	"github.com/openpathways/pathways/ifrt"
)

// Client is a PJRT client (PJRT_Client): the devices of one plugin in this
// process, and the factory for buffers and executables. It is safe for
// concurrent use. Close it when done; closing a client closes every buffer,
// executable and event created through it.
type Client struct {
	plugin *Plugin
	st     *clientState

	platformName    string
	platformVersion string
	processIndex    int

	devices     []*Device
	addressable []*Device
	memories    []*Memory
	devByPtr    map[unsafe.Pointer]*Device
	memByPtr    map[unsafe.Pointer]*Memory
}

type nvKind int

// Values match PJRT_NamedValue_Type.
const (
	nvString nvKind = iota
	nvInt64
	nvInt64List
	nvFloat
	nvBool
)

type namedValue struct {
	name string
	kind nvKind
	s    string
	i    int64
	list []int64
	f    float32
	b    bool
}

// knownOptionKinds are create options whose value type some plugins do not
// check before using it: the XLA CPU plugin at 0.81 aborts the process
// (std::bad_variant_access) when "cpu_device_count" is not an int64. They are
// checked here instead.
var knownOptionKinds = map[string]nvKind{
	"cpu_device_count": nvInt64,
	"process_id":       nvInt64,
	"asynchronous":     nvBool,
	"node_id":          nvInt64,
	"num_nodes":        nvInt64,
	"preallocate":      nvBool,
	"memory_fraction":  nvFloat,
	"allocator":        nvString,
	"platform_name":    nvString,
	"visible_devices":  nvInt64List,
}

var nvKindNames = [...]string{"string", "int64", "[]int64", "float32", "bool"}

// toNamedValues converts client create options, sorted by name.
// createOptions is the start of every create call with named options: it
// checks ctx, initializes the plugin and converts opts.
func (p *Plugin) createOptions(ctx context.Context, opts map[string]any) ([]namedValue, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := p.Initialize(); err != nil {
		return nil, err
	}
	return toNamedValues(opts)
}

func toNamedValues(opts map[string]any) ([]namedValue, error) {
	out := make([]namedValue, 0, len(opts))
	for name, v := range opts {
		nv := namedValue{name: name}
		switch v := v.(type) {
		case string:
			nv.kind, nv.s = nvString, v
		case int:
			nv.kind, nv.i = nvInt64, int64(v)
		case int32:
			nv.kind, nv.i = nvInt64, int64(v)
		case int64:
			nv.kind, nv.i = nvInt64, v
		case []int64:
			nv.kind, nv.list = nvInt64List, v
		case []int:
			nv.kind = nvInt64List
			for _, x := range v {
				nv.list = append(nv.list, int64(x))
			}
		case float32:
			nv.kind, nv.f = nvFloat, v
		case float64:
			nv.kind, nv.f = nvFloat, float32(v)
		case bool:
			nv.kind, nv.b = nvBool, v
		default:
			return nil, errorf(ifrt.InvalidArgument, "client option %q: unsupported value type %T (want string, int64, []int64, float32 or bool)", name, v)
		}
		if want, ok := knownOptionKinds[name]; ok && want != nv.kind {
			return nil, errorf(ifrt.InvalidArgument, "client option %q must be %s, got %T", name, nvKindNames[want], v)
		}
		out = append(out, nv)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out, nil
}

// NewClient creates a client (PJRT_Client_Create). opts become the plugin's
// named create options: string, int/int64 (int64), []int64/[]int (int64 list),
// float32/float64 (float, 32-bit) and bool. Which names a plugin accepts is its
// own business; for example the XLA CPU plugin takes "cpu_device_count".
//
// more adds options that are not named values: WithKeyValueStore gives a
// multi-process client its key-value store.
//
// ctx is checked before the call; client creation itself cannot be interrupted.
func (p *Plugin) NewClient(ctx context.Context, opts map[string]any, more ...ClientOption) (*Client, error) {
	nvs, err := p.createOptions(ctx, opts)
	if err != nil {
		return nil, err
	}
	if err := p.api.need(fnClientCreate); err != nil {
		return nil, err
	}
	var co clientOptions
	for _, o := range more {
		o(&co)
	}
	var kv *kvBridge
	if co.kv != nil {
		kv = newKVBridge(co.kv)
	}
	ptr, err := p.api.createClient(nvs, kv)
	if err != nil {
		if kv != nil {
			kv.close()
		}
		return nil, fmt.Errorf("pjrt: creating client: %w", err)
	}
	live.clients.Add(1)
	st := &clientState{api: p.api, ptr: ptr, kv: kv}
	c := &Client{plugin: p, st: st}
	if err := c.describe(); err != nil {
		_ = st.close()
		return nil, err
	}
	runtime.AddCleanup(c, (*clientState).cleanup, st)
	return c, nil
}

// describe reads the client's platform, devices and memories once.
func (c *Client) describe() error {
	a := c.st.api
	for _, fn := range []apiFn{fnClientPlatformName, fnClientPlatformVersion, fnClientProcessIndex,
		fnClientDevices, fnClientAddressableDevices, fnClientAddressableMemories} {
		if err := a.need(fn); err != nil {
			return err
		}
	}
	var err error
	c.platformName, c.platformVersion, c.processIndex, err = a.clientStrings(c.st.ptr)
	if err != nil {
		return err
	}
	c.devByPtr = make(map[unsafe.Pointer]*Device)
	c.memByPtr = make(map[unsafe.Pointer]*Memory)
	// Lists 0, 1 and 2 of clientList; an addressable device missing from
	// the devices is described too.
	if c.devices, err = describeAll(c, 0, c.device); err != nil {
		return err
	}
	if c.addressable, err = describeAll(c, 1, c.device); err != nil {
		return err
	}
	if c.memories, err = describeAll(c, 2, c.memory); err != nil {
		return err
	}
	for _, d := range c.addressable {
		ms, def, err := a.deviceMemories(d.ptr)
		if err != nil {
			return err
		}
		for _, ptr := range ms {
			m, err := c.memory(ptr)
			if err != nil {
				return err
			}
			d.memories = append(d.memories, m)
		}
		if def != nil {
			if d.defaultMemory, err = c.memory(def); err != nil {
				return err
			}
		}
	}
	return nil
}

// device returns the *Device for ptr, describing it on first sight.
func (c *Client) device(ptr unsafe.Pointer) (*Device, error) {
	return described(c.devByPtr, ptr, func() (*Device, error) {
		info, err := c.st.api.deviceInfo(ptr)
		return &Device{client: c, ptr: ptr, info: info}, err
	})
}

// memory returns the *Memory for ptr, describing it on first sight.
func (c *Client) memory(ptr unsafe.Pointer) (*Memory, error) {
	if ptr == nil {
		return nil, nil
	}
	return described(c.memByPtr, ptr, func() (*Memory, error) {
		info, err := c.st.api.memoryInfo(ptr)
		m := &Memory{client: c, ptr: ptr, info: info}
		for _, dp := range info.devices {
			if d := c.devByPtr[dp]; d != nil {
				m.devices = append(m.devices, d)
			}
		}
		return m, err
	})
}

// describeAll describes each object of the client's list (see
// capi.clientList).
func describeAll[T any](c *Client, list int, describe func(unsafe.Pointer) (*T, error)) ([]*T, error) {
	ptrs, err := c.st.api.clientList(c.st.ptr, list)
	if err != nil {
		return nil, err
	}
	out := make([]*T, len(ptrs))
	for i, ptr := range ptrs {
		if out[i], err = describe(ptr); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// described returns cache[ptr], or what describe makes of ptr, which it
// keeps there when describe succeeds.
func described[T any](cache map[unsafe.Pointer]*T, ptr unsafe.Pointer, describe func() (*T, error)) (*T, error) {
	if v := cache[ptr]; v != nil {
		return v, nil
	}
	v, err := describe()
	if err != nil {
		return nil, err
	}
	cache[ptr] = v
	return v, nil
}

// Plugin returns the plugin the client was created from.
func (c *Client) Plugin() *Plugin { return c.plugin }

// PlatformName returns the platform name, e.g. "cpu", "cuda", "tpu".
func (c *Client) PlatformName() string { return c.platformName }

// PlatformVersion returns the plugin's platform version string.
func (c *Client) PlatformVersion() string { return c.platformVersion }

// ProcessIndex returns this process's index among the client's processes.
func (c *Client) ProcessIndex() int { return c.processIndex }

// Devices returns all devices, addressable or not, in the plugin's order.
func (c *Client) Devices() []*Device { return append([]*Device(nil), c.devices...) }

// AddressableDevices returns the devices this process can use.
func (c *Client) AddressableDevices() []*Device { return append([]*Device(nil), c.addressable...) }

// Memories returns the client's addressable memories.
func (c *Client) Memories() []*Memory { return append([]*Memory(nil), c.memories...) }

// LookupDevice returns the device with global ID id, or nil.
func (c *Client) LookupDevice(id int) *Device {
	for _, d := range c.devices {
		if d.info.id == id {
			return d
		}
	}
	return nil
}

// DefaultDeviceAssignment returns the plugin's default device assignment as
// [replica][partition] global device IDs.
func (c *Client) DefaultDeviceAssignment(replicas, partitions int) ([][]int, error) {
	if replicas <= 0 || partitions <= 0 {
		return nil, errorf(ifrt.InvalidArgument, "DefaultDeviceAssignment(%d, %d): counts must be positive", replicas, partitions)
	}
	ids, err := callWith(c.st.api, c.st, fnClientDefaultDeviceAssignment, func(ptr unsafe.Pointer) ([]int, error) {
		return c.st.api.defaultDeviceAssignment(ptr, replicas, partitions)
	})
	if err != nil {
		return nil, err
	}
	out := make([][]int, replicas)
	for r := range out {
		out[r] = ids[r*partitions : (r+1)*partitions]
	}
	return out, nil
}

// Close destroys every buffer, executable and event still open on the client,
// then the client. It is idempotent; the first error is returned.
func (c *Client) Close() error {
	return c.st.close()
}

func (c *Client) String() string {
	return fmt.Sprintf("pjrt.Client(%s %s, %d devices)", c.platformName, c.platformVersion, len(c.devices))
}

// Compile compiles program (PJRT_Client_Compile). format is "mlir" (StableHLO
// text or MLIR bytecode, including portable artifacts), "hlo" or
// "hlo_with_config". compileOptions is a serialized xla.CompileOptionsProto
// (see CompileOptions.Marshal); it must not be empty.
//
// ctx is checked before the call; compilation itself cannot be interrupted.
func (c *Client) Compile(ctx context.Context, program []byte, format string, compileOptions []byte) (*Executable, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if len(program) == 0 {
		return nil, errorf(ifrt.InvalidArgument, "Compile: empty program")
	}
	if format == "" {
		return nil, errorf(ifrt.InvalidArgument, "Compile: empty program format")
	}
	if len(compileOptions) == 0 {
		return nil, errorf(ifrt.InvalidArgument, "Compile: empty compile options (pass CompileOptions{}.Marshal() for the defaults)")
	}
	return callWith(c.st.api, c.st, fnClientCompile, func(ptr unsafe.Pointer) (*Executable, error) {
		le, err := c.st.api.compile(ptr, program, format, compileOptions)
		if err != nil {
			return nil, err
		}
		return c.newExecutable(le)
	})
}

// DeserializeExecutable loads an executable serialized by Executable.Serialize
// with the same plugin build (PJRT_Executable_DeserializeAndLoad).
func (c *Client) DeserializeExecutable(ctx context.Context, serialized []byte) (*Executable, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if len(serialized) == 0 {
		return nil, errorf(ifrt.InvalidArgument, "DeserializeExecutable: empty input")
	}
	return callWith(c.st.api, c.st, fnExecutableDeserializeAndLoad, func(ptr unsafe.Pointer) (*Executable, error) {
		le, err := c.st.api.deserializeAndLoad(ptr, serialized)
		if err != nil {
			return nil, err
		}
		return c.newExecutable(le)
	})
}
