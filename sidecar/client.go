package sidecar

import (
	"context"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/ifrt/gocpu"
)

// DefaultAcceleratorKind is the device kind a Client reports for a backend's
// devices of kind "cpu" (gocpu's, the PJRT CPU plugin's): JAX tells the host's
// CPU device by its kind "cpu", so the devices beside it need another.
const DefaultAcceleratorKind = "cpu_accelerator"

// ClientConfig configures a Client.
type ClientConfig struct {
	// Process runs the host's colocated Python. Required; the Client does not
	// close it.
	Process *Process
	// HostDeviceID is the id of the host's CPU device. Default one above the
	// backend's largest device id.
	HostDeviceID ifrt.DeviceID
	// ColocationID is the colocation_id attribute of every device of the
	// host (the backend's and the CPU device). Default 0.
	ColocationID int64
	// AcceleratorKind replaces the kind "cpu" of the backend's devices.
	// Default DefaultAcceleratorKind.
	AcceleratorKind string
}

// Client is an ifrt.Client over a backend (the host's accelerators) and the
// host's CPU device beside them, on which arrays live in host memory and
// colocated Python programs run in the sidecar. Everything else goes to the
// backend. See the package documentation.
type Client struct {
	ifrt.UnimplementedClient
	*host
	// view names this view's sessions in the sidecar (see Session).
	view string
	root bool

	mu       sync.Mutex
	sessions map[string]struct{} // the sidecar sessions this view's calls used
}

// host is what every session of a Client shares.
type host struct {
	accel        ifrt.Client
	cpu          *gocpu.Client
	cpuDevice    *ifrt.Device
	proc         *Process
	devices      ifrt.DeviceList // the backend's and the CPU device, by id
	accelerators ifrt.DeviceList // the backend's
	byID         map[ifrt.DeviceID]*ifrt.Device
	nextSession  atomic.Uint64
	nextProgram  atomic.Uint64
}

var _ ifrt.Client = (*Client)(nil)

// NewClient returns a Client over accel, which it does not close.
func NewClient(accel ifrt.Client, cfg ClientConfig) (*Client, error) {
	if cfg.Process == nil {
		return nil, ifrt.Errorf(ifrt.InvalidArgument, "sidecar: ClientConfig.Process is required")
	}
	if cfg.AcceleratorKind == "" {
		cfg.AcceleratorKind = DefaultAcceleratorKind
	}
	h := &host{accel: accel, proc: cfg.Process, byID: map[ifrt.DeviceID]*ifrt.Device{}}
	id := cfg.HostDeviceID
	usedMemories := map[ifrt.MemoryID]bool{}
	for _, d := range accel.Devices() {
		if cfg.HostDeviceID == 0 && d.ID >= id {
			id = d.ID + 1
		}
		for _, m := range d.Memories {
			usedMemories[m.ID] = true
		}
	}
	colocated := func(d *ifrt.Device) *ifrt.Device {
		c := *d
		c.Attributes = ifrt.Attributes{}
		for k, v := range d.Attributes {
			c.Attributes[k] = v
		}
		c.Attributes[ifrt.AttrColocationID] = cfg.ColocationID
		return &c
	}
	for _, d := range accel.Devices() {
		c := colocated(d)
		if c.Kind == "cpu" {
			c.Kind = cfg.AcceleratorKind
		}
		h.devices = append(h.devices, c)
	}
	h.accelerators = slices.Clone(h.devices)
	cpu, err := gocpu.New(gocpu.Config{Devices: 1, FirstDeviceID: int(id), ProcessIndex: accel.Platform().ProcessIndex})
	if err != nil {
		return nil, err
	}
	h.cpu = cpu
	h.cpuDevice = colocated(cpu.Devices()[0])
	h.cpuDevice.NonPrimary = true
	for _, m := range h.cpuDevice.Memories {
		if usedMemories[m.ID] {
			cpu.Close()
			return nil, ifrt.Errorf(ifrt.InvalidArgument, "sidecar: memory id %d of the host CPU device %d is the backend's too; choose another ClientConfig.HostDeviceID", m.ID, id)
		}
	}
	if _, dup := findDevice(h.devices, id); dup {
		cpu.Close()
		return nil, ifrt.Errorf(ifrt.InvalidArgument, "sidecar: device id %d is the backend's", id)
	}
	h.devices = append(h.devices, h.cpuDevice)
	slices.SortFunc(h.devices, func(a, b *ifrt.Device) int { return int(a.ID) - int(b.ID) })
	for _, d := range h.devices {
		h.byID[d.ID] = d
	}
	return &Client{host: h, root: true}, nil
}

func findDevice(l ifrt.DeviceList, id ifrt.DeviceID) (*ifrt.Device, bool) {
	i := l.Index(id)
	if i < 0 {
		return nil, false
	}
	return l[i], true
}

// Session returns a view of the client whose colocated Python state (loaded
// functions, results, colocated objects) is its own and is freed by its
// Close, which leaves the rest of the client open: for the proxy server's
// Config.SessionBackend, so that each client session has its own.
//
// Within a view, too, calls whose contexts carry different session keys
// (ifrt.SessionKey: a proxy server's or worker's client sessions) keep their
// state apart; EndSession frees one key's.
func (c *Client) Session() *Client {
	return &Client{host: c.host, view: "view-" + strconv.FormatUint(c.nextSession.Add(1), 10)}
}

// sidecarSession is the sidecar session of a call with ctx: the view's and
// the context's session key.
func (c *Client) sidecarSession(ctx context.Context) string {
	session := c.sessionOf(ifrt.SessionKey(ctx))
	c.mu.Lock()
	if c.sessions == nil {
		c.sessions = map[string]struct{}{}
	}
	c.sessions[session] = struct{}{}
	c.mu.Unlock()
	return session
}

func (c *Client) sessionOf(key string) string {
	if c.view == "" {
		return key
	}
	return c.view + "|" + key
}

// EndSession frees what the client session of key (ifrt.SessionKey) holds
// in the sidecar: its functions and their results, and its colocated objects.
func (c *Client) EndSession(key string) {
	session := c.sessionOf(key)
	c.mu.Lock()
	delete(c.sessions, session)
	c.mu.Unlock()
	c.proc.EndSession(session)
}

// HostDevice is the host's CPU device.
func (c *Client) HostDevice() *ifrt.Device { return c.cpuDevice }

// Close ends the view's sessions in the sidecar; the client it came from
// (NewClient's) also frees the arrays on the host's CPU device.
func (c *Client) Close() error {
	c.mu.Lock()
	sessions := c.sessions
	c.sessions = nil
	c.mu.Unlock()
	for session := range sessions {
		c.proc.EndSession(session)
	}
	if c.root {
		return c.cpu.Close()
	}
	return nil
}

// As sets a **Client or *ifrt.SessionEnder target to c; other targets reach
// the backend.
func (c *Client) As(target any) bool {
	switch p := target.(type) {
	case **Client:
		*p = c
		return true
	case *ifrt.SessionEnder:
		*p = c
		return true
	}
	return c.accel.As(target)
}

func (c *Client) Platform() ifrt.Platform     { return c.accel.Platform() }
func (c *Client) Attributes() ifrt.Attributes { return c.accel.Attributes() }

// Devices lists the backend's devices and the host's CPU device.
func (c *Client) Devices() ifrt.DeviceList { return c.devices }

// AddressableDevices lists the backend's devices: the primary ones, which a
// worker registers with the resource manager and programs run on by default.
// The CPU device is addressable too (LookupDevice, Devices).
func (c *Client) AddressableDevices() ifrt.DeviceList { return c.accelerators }

func (c *Client) LookupDevice(id ifrt.DeviceID) (*ifrt.Device, error) {
	if d, ok := c.byID[id]; ok {
		return d, nil
	}
	return nil, ifrt.Errorf(ifrt.NotFound, "sidecar: no device %d", id)
}

// side is the client that holds arrays on devs: the host's CPU device or the
// backend; an array cannot span both.
func (c *Client) side(devs ifrt.DeviceList) (ifrt.Client, error) {
	n := 0
	for _, d := range devs {
		if d != nil && d.ID == c.cpuDevice.ID {
			n++
		}
	}
	switch n {
	case 0:
		return c.accel, nil
	case len(devs):
		return c.cpu, nil
	}
	return nil, ifrt.Errorf(ifrt.InvalidArgument, "sidecar: devices %v mix the host CPU device %d with accelerators", devs, c.cpuDevice.ID)
}

func (c *Client) sideOf(spec ifrt.ArraySpec) (ifrt.Client, error) {
	if spec.Sharding == nil {
		return nil, ifrt.Errorf(ifrt.InvalidArgument, "sidecar: array spec has no sharding")
	}
	return c.side(spec.Sharding.Devices())
}

func (c *Client) sideOfArray(a ifrt.Array) (ifrt.Client, error) {
	if a == nil {
		return nil, ifrt.Errorf(ifrt.InvalidArgument, "sidecar: nil array")
	}
	return c.side(a.Sharding().Devices())
}

func (c *Client) MakeArrayFromHostBuffer(ctx context.Context, data []byte, spec ifrt.ArraySpec, opts *ifrt.HostBufferOptions) (ifrt.Array, error) {
	s, err := c.sideOf(spec)
	if err != nil {
		if opts != nil && opts.OnDoneWithHostBuffer != nil {
			opts.OnDoneWithHostBuffer()
		}
		return nil, err
	}
	return s.MakeArrayFromHostBuffer(ctx, data, spec, opts)
}

func (c *Client) AssembleArray(ctx context.Context, spec ifrt.ArraySpec, shards []ifrt.Array, sem ifrt.CopySemantics) (ifrt.Array, error) {
	s, err := c.sideOf(spec)
	if err != nil {
		return nil, err
	}
	return s.AssembleArray(ctx, spec, shards, sem)
}

func (c *Client) DisassembleArray(ctx context.Context, a ifrt.Array, sem ifrt.CopySemantics) ([]ifrt.Array, error) {
	if sa, ok := a.(*stringArray); ok {
		return []ifrt.Array{sa.view()}, nil
	}
	s, err := c.sideOfArray(a)
	if err != nil {
		return nil, err
	}
	return s.DisassembleArray(ctx, a, sem)
}

func (c *Client) FullyReplicatedShard(ctx context.Context, a ifrt.Array, sem ifrt.CopySemantics) (ifrt.Array, error) {
	if sa, ok := a.(*stringArray); ok {
		return sa.view(), nil
	}
	s, err := c.sideOfArray(a)
	if err != nil {
		return nil, err
	}
	return s.FullyReplicatedShard(ctx, a, sem)
}

// CopyArrays copies each array on its side, or through host memory between
// the host's CPU device and the accelerators (the bytes stay on this host).
func (c *Client) CopyArrays(ctx context.Context, arrays []ifrt.Array, devices ifrt.DeviceList, memoryKind *ifrt.MemoryKind, sem ifrt.CopySemantics) ([]ifrt.Array, error) {
	specs := make([]ifrt.ArraySpec, len(arrays))
	for i, a := range arrays {
		if a == nil {
			return nil, ifrt.Errorf(ifrt.InvalidArgument, "sidecar: nil array")
		}
		spec, err := ifrt.CopySpec(a.Spec(), devices, memoryKind)
		if err != nil {
			return nil, err
		}
		specs[i] = spec
	}
	return c.move(ctx, arrays, specs, sem, func(s ifrt.Client, a ifrt.Array, spec ifrt.ArraySpec) (ifrt.Array, error) {
		if sa, ok := a.(*stringArray); ok {
			return sa.copyTo(spec)
		}
		return single(s.CopyArrays(ctx, []ifrt.Array{a}, devices, memoryKind, sem))
	})
}

// Reshard reshards each array on its side, or moves it through host memory
// between the host's CPU device and the accelerators.
func (c *Client) Reshard(ctx context.Context, arrays []ifrt.Array, specs []ifrt.ArraySpec, sem ifrt.CopySemantics) ([]ifrt.Array, error) {
	if len(arrays) != len(specs) {
		return nil, ifrt.Errorf(ifrt.InvalidArgument, "sidecar: %d arrays, %d specs", len(arrays), len(specs))
	}
	return c.move(ctx, arrays, specs, sem, func(s ifrt.Client, a ifrt.Array, spec ifrt.ArraySpec) (ifrt.Array, error) {
		return single(s.Reshard(ctx, []ifrt.Array{a}, []ifrt.ArraySpec{spec}, sem))
	})
}

// move makes arrays[i] as specs[i]: with same when both are on one side,
// else through host memory.
func (c *Client) move(ctx context.Context, arrays []ifrt.Array, specs []ifrt.ArraySpec, sem ifrt.CopySemantics, same func(ifrt.Client, ifrt.Array, ifrt.ArraySpec) (ifrt.Array, error)) ([]ifrt.Array, error) {
	out := make([]ifrt.Array, len(arrays))
	fail := func(err error) ([]ifrt.Array, error) {
		for _, o := range out {
			if o != nil {
				o.Delete()
			}
		}
		return nil, err
	}
	for i, a := range arrays {
		from, err := c.sideOfArray(a)
		if err != nil {
			return fail(err)
		}
		to, err := c.sideOf(specs[i])
		if err != nil {
			return fail(err)
		}
		if from == to {
			out[i], err = same(from, a, specs[i])
		} else {
			out[i], err = transfer(ctx, a, to, specs[i], sem)
		}
		if err != nil {
			return fail(err)
		}
	}
	return out, nil
}

// transfer reads a into host memory and makes it as spec on to.
func transfer(ctx context.Context, a ifrt.Array, to ifrt.Client, spec ifrt.ArraySpec, sem ifrt.CopySemantics) (ifrt.Array, error) {
	if !a.DType().Valid() || !spec.Shape.Equal(a.Shape()) || spec.DType != a.DType() {
		return nil, ifrt.Errorf(ifrt.InvalidArgument, "sidecar: cannot make %v%v as %v%v", a.DType(), a.Shape(), spec.DType, spec.Shape)
	}
	size, err := ifrt.StridedRegionSize(a.DType(), a.Shape(), nil)
	if err != nil {
		return nil, err
	}
	buf := make([]byte, size)
	if err := a.CopyToHostBuffer(ctx, buf, nil); err != nil {
		return nil, err
	}
	out, err := to.MakeArrayFromHostBuffer(ctx, buf, spec, nil)
	if err != nil {
		return nil, err
	}
	if sem == ifrt.DonateInput {
		a.Delete()
	}
	return out, nil
}

func single(out []ifrt.Array, err error) (ifrt.Array, error) {
	if err != nil {
		return nil, err
	}
	if len(out) != 1 {
		return nil, ifrt.Errorf(ifrt.Internal, "sidecar: %d arrays for one", len(out))
	}
	return out[0], nil
}

// Remap runs on one side; a plan across the host CPU device and the
// accelerators is not supported.
func (c *Client) Remap(ctx context.Context, plan ifrt.RemapPlan, arrays []ifrt.Array, sem ifrt.CopySemantics) ([]ifrt.Array, error) {
	var s ifrt.Client
	for _, a := range arrays {
		as, err := c.sideOfArray(a)
		if err != nil {
			return nil, err
		}
		if s != nil && as != s {
			return nil, ifrt.Errorf(ifrt.Unimplemented, "sidecar: a remap across the host CPU device and the accelerators")
		}
		s = as
	}
	for _, spec := range plan.OutputSpecs {
		os, err := c.sideOf(spec)
		if err != nil {
			return nil, err
		}
		if s != nil && os != s {
			return nil, ifrt.Errorf(ifrt.Unimplemented, "sidecar: a remap across the host CPU device and the accelerators")
		}
	}
	if s == nil {
		s = c.accel
	}
	return s.Remap(ctx, plan, arrays, sem)
}

// Compile runs colocated Python programs in the sidecar, programs for the
// host's CPU device on it (gocpu), and the rest on the backend.
func (c *Client) Compile(ctx context.Context, program ifrt.Program, opts *ifrt.CompileOptions) (ifrt.LoadedExecutable, error) {
	if p, ok := program.(*ifrt.CustomCallProgram); ok {
		return c.compileColocated(p)
	}
	if opts != nil && len(opts.Devices) > 0 {
		s, err := c.side(opts.Devices)
		if err != nil {
			return nil, err
		}
		return s.Compile(ctx, program, opts)
	}
	return c.accel.Compile(ctx, program, opts)
}
