package pjrtifrt

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/ifrt/backend"
	"github.com/openpathways/pathways/pjrt"
)

// RuntimeType is the Platform.RuntimeType of every Client of this package.
const RuntimeType = "pjrt_ifrt"

// Config configures New. Either PluginPath or Plugin must be set.
type Config struct {
	// PluginPath is the shared library of a PJRT plugin, loaded with pjrt.Load.
	PluginPath string
	// Plugin is an already loaded plugin; it wins over PluginPath.
	Plugin *pjrt.Plugin
	// CreateOptions are the plugin's named client create options, passed to
	// pjrt.Plugin.NewClient unchanged. Default none.
	CreateOptions map[string]any
	// Devices, when positive, sets the CPU plugins' "cpu_device_count" create
	// option (unless CreateOptions already has it). Default 0: the plugin's
	// default (one device for the XLA CPU plugins).
	Devices int
	// Process makes the client one process of a multi-process client (see
	// Process). Default: a single process.
	Process Process
	// Logger receives debug logs. Default slog.Default().
	Logger *slog.Logger
}

// Validate reports a Config that New would refuse.
func (c Config) Validate() error {
	if c.Plugin == nil && c.PluginPath == "" {
		return ifrt.Errorf(ifrt.InvalidArgument, "pjrtifrt: Config needs PluginPath or Plugin")
	}
	if c.Devices < 0 || c.Devices > 1<<16 {
		return ifrt.Errorf(ifrt.InvalidArgument, "pjrtifrt: %d devices is out of range [0, 65536]", c.Devices)
	}
	return c.Process.validate()
}

func init() {
	ifrt.Register("pjrt", openBackend)
}

// openBackend parses "plugin=/path/to.so,devices=8[,process=0/2,kv=name]" for
// ifrt.Open("pjrt:...").
func openBackend(ctx context.Context, config string) (ifrt.Client, error) {
	var cfg Config
	for k, v := range ifrt.ParseConfig(config) {
		switch k {
		case "plugin":
			cfg.PluginPath = v
		case "devices":
			n, err := strconv.Atoi(v)
			if err != nil {
				return nil, ifrt.Errorf(ifrt.InvalidArgument, "pjrtifrt: devices=%q is not a number", v)
			}
			cfg.Devices = n
		case "process":
			i, n, err := parseProcess(v)
			if err != nil {
				return nil, err
			}
			cfg.Process.Index, cfg.Process.Count = i, n
		case "kv":
			kv, err := lookupKeyValueStore(v)
			if err != nil {
				return nil, err
			}
			cfg.Process.KeyValueStore = kv
		default:
			return nil, ifrt.Errorf(ifrt.InvalidArgument, "pjrtifrt: unknown option %q (known: plugin, devices, process, kv)", k)
		}
	}
	return New(ctx, cfg)
}

// Client is an ifrt.Client over one pjrt.Client, which it owns. It is safe for
// concurrent use by multiple goroutines.
type Client struct {
	ifrt.UnimplementedClient

	pc       *pjrt.Client
	log      *slog.Logger
	platform ifrt.Platform

	devices     ifrt.DeviceList
	addressable ifrt.DeviceList
	byID        map[ifrt.DeviceID]*ifrt.Device
	pjrtDev     map[ifrt.DeviceID]*pjrt.Device
	pjrtMem     map[ifrt.MemoryID]*pjrt.Memory

	check backend.Checker[*array]
	life  backend.Lifetime[*array, *executable]
}

var _ ifrt.Client = (*Client)(nil)

// New loads the plugin (unless cfg.Plugin is set), creates a PJRT client and
// wraps it. Without cgo it fails with pjrt.ErrCgoUnavailable (code
// Unimplemented).
func New(ctx context.Context, cfg Config) (*Client, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	plugin := cfg.Plugin
	if plugin == nil {
		p, err := pjrt.Load(cfg.PluginPath)
		if err != nil {
			return nil, fromPJRT(err)
		}
		plugin = p
	}
	opts := make(map[string]any, len(cfg.CreateOptions)+1)
	for k, v := range cfg.CreateOptions {
		opts[k] = v
	}
	if _, set := opts["cpu_device_count"]; !set && cfg.Devices > 0 {
		opts["cpu_device_count"] = int64(cfg.Devices)
	}
	kind := kindOf(plugin)
	more := cfg.Process.createOptions(kind, opts)
	pc, err := plugin.NewClient(ctx, opts, more...)
	if err != nil {
		return nil, fromPJRT(err)
	}
	c := wrap(pc, cfg.Logger)
	if pc.PlatformName() == "cpu" {
		registerLinalg(plugin, c.log)
	}
	if err := c.joinProcesses(ctx, cfg.Process, kind); err != nil {
		_ = c.Close()
		return nil, err
	}
	c.log.Debug("client created", "plugin", plugin.Path(), "platform", pc.PlatformName(),
		"devices", len(c.devices), "addressable", len(c.addressable))
	return c, nil
}

func wrap(pc *pjrt.Client, log *slog.Logger) *Client {
	if log == nil {
		log = slog.Default()
	}
	c := &Client{
		pc:  pc,
		log: log,
		platform: ifrt.Platform{
			Name:         pc.PlatformName(),
			Version:      pc.PlatformVersion(),
			RuntimeType:  RuntimeType,
			ProcessIndex: pc.ProcessIndex(),
		},
		byID:    map[ifrt.DeviceID]*ifrt.Device{},
		pjrtDev: map[ifrt.DeviceID]*pjrt.Device{},
		pjrtMem: map[ifrt.MemoryID]*pjrt.Memory{},
	}
	mems := map[*pjrt.Memory]*ifrt.Memory{}
	memOf := func(m *pjrt.Memory) *ifrt.Memory {
		if m == nil {
			return nil
		}
		if im, ok := mems[m]; ok {
			return im
		}
		im := &ifrt.Memory{ID: ifrt.MemoryID(m.ID()), Kind: ifrt.MemoryKind(m.Kind())}
		for _, d := range m.AddressableBy() {
			im.Devices = append(im.Devices, ifrt.DeviceID(d.ID()))
		}
		mems[m] = im
		c.pjrtMem[im.ID] = m
		return im
	}
	for _, pd := range pc.Devices() {
		d := &ifrt.Device{
			ID:              ifrt.DeviceID(pd.ID()),
			Platform:        c.platform.Name,
			Kind:            pd.Kind(),
			ProcessIndex:    pd.ProcessIndex(),
			LocalHardwareID: pd.LocalHardwareID(),
			Addressable:     pd.Addressable(),
			Attributes:      ifrt.Attributes{},
		}
		for k, v := range pd.Attributes() {
			d.Attributes[k] = v
		}
		for _, m := range pd.Memories() {
			d.Memories = append(d.Memories, memOf(m))
		}
		d.DefaultMemory = memOf(pd.DefaultMemory())
		c.devices = append(c.devices, d)
		c.byID[d.ID] = d
		c.pjrtDev[d.ID] = pd
		if d.Addressable {
			c.addressable = append(c.addressable, d)
		}
	}
	c.check = backend.Checker[*array]{
		Name: "pjrtifrt", Open: c.checkOpen, Spec: c.checkSpec,
		Owns: func(a *array) bool { return a.client == c },
	}
	return c
}

// PJRT returns the underlying PJRT client. It stays owned by c: do not close it.
func (c *Client) PJRT() *pjrt.Client { return c.pc }

func (c *Client) Platform() ifrt.Platform { return c.platform }

// Devices returns every device of the plugin, in the plugin's order.
func (c *Client) Devices() ifrt.DeviceList { return c.devices }

func (c *Client) AddressableDevices() ifrt.DeviceList { return c.addressable }

func (c *Client) LookupDevice(id ifrt.DeviceID) (*ifrt.Device, error) {
	if d, ok := c.byID[id]; ok {
		return d, nil
	}
	return nil, ifrt.Errorf(ifrt.NotFound, "pjrtifrt: no device %d", id)
}

// Attributes describe the plugin: its path, PJRT API version, XLA version and
// supported StableHLO versions where the plugin reports them.
func (c *Client) Attributes() ifrt.Attributes {
	p := c.pc.Plugin()
	major, minor := p.Version()
	attrs := ifrt.Attributes{
		"backend":          "pjrt",
		"plugin_path":      p.Path(),
		"pjrt_c_api_major": int64(major),
		"pjrt_c_api_minor": int64(minor),
	}
	if v, ok := p.XLAVersion(); ok {
		attrs["xla_version"] = v
	}
	if cur, min, ok := p.StableHLOVersions(); ok {
		attrs["stablehlo_current_version"] = cur
		attrs["stablehlo_minimum_version"] = min
	}
	return attrs
}

// As sets *target to c when target is a **Client, or to the PJRT client when it
// is a **pjrt.Client.
func (c *Client) As(target any) bool {
	switch p := target.(type) {
	case **Client:
		*p = c
		return true
	case **pjrt.Client:
		*p = c.pc
		return true
	}
	return false
}

// Close deletes every array and executable, then closes the PJRT client. It is
// idempotent.
func (c *Client) Close() error {
	if !c.life.Close((*array).free, (*executable).free) {
		return nil
	}
	if err := c.pc.Close(); err != nil {
		return fromPJRT(err)
	}
	return nil
}

// Live reports how many arrays and executables the client holds; tests use it
// to find leaks.
func (c *Client) Live() (arrays, executables int) {
	return c.life.Live()
}

func (c *Client) String() string {
	return fmt.Sprintf("pjrtifrt(%s, %d devices)", c.platform.Name, len(c.devices))
}

func (c *Client) checkOpen() error { return c.life.CheckOpen() }

// memoryFor returns the PJRT memory of the given kind on device d.
func (c *Client) memoryFor(d *ifrt.Device, kind ifrt.MemoryKind) (*pjrt.Memory, error) {
	own, ok := c.byID[d.ID]
	if !ok || own != d && own.ID != d.ID {
		return nil, ifrt.Errorf(ifrt.InvalidArgument, "pjrtifrt: device %d is not a device of this client", d.ID)
	}
	if !own.Addressable {
		return nil, ifrt.Errorf(ifrt.InvalidArgument, "pjrtifrt: device %d is not addressable", d.ID)
	}
	m, err := own.Memory(kind)
	if err != nil {
		return nil, err
	}
	pm, ok := c.pjrtMem[m.ID]
	if !ok {
		return nil, ifrt.Errorf(ifrt.Internal, "pjrtifrt: memory %d has no PJRT memory", m.ID)
	}
	return pm, nil
}

// checkSharding verifies that every device of s is an addressable device of c
// with the memory kind of s.
func (c *Client) checkSharding(s ifrt.Sharding) error {
	return backend.CheckSharding("pjrtifrt", s, func(id ifrt.DeviceID) *ifrt.Device {
		if d := c.byID[id]; d != nil && d.Addressable {
			return d
		}
		return nil
	})
}
