package gocpu

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/ifrt/backend"
)

// DefaultDevices is the number of devices of a client whose Config leaves it zero.
const DefaultDevices = 8

// Config configures a Client. The zero value is a valid configuration.
type Config struct {
	// Devices is the number of virtual CPU devices. Default DefaultDevices.
	Devices int
	// FirstDeviceID is the id of the first device; the others follow. Default 0.
	// Workers of a cluster use it to keep device ids unique.
	FirstDeviceID int
	// ProcessIndex is reported by the devices and the platform. Default 0.
	ProcessIndex int
	// Attributes are added to every device's attributes (e.g. slice_index).
	Attributes ifrt.Attributes
	// Logger receives debug logs. Default slog.Default().
	Logger *slog.Logger
}

// Validate reports impossible values.
func (c Config) Validate() error {
	if c.Devices < 0 || c.Devices > 1<<16 {
		return ifrt.Errorf(ifrt.InvalidArgument, "gocpu: %d devices is out of range [1, 65536]", c.Devices)
	}
	if c.FirstDeviceID < 0 || c.FirstDeviceID > 1<<30 {
		return ifrt.Errorf(ifrt.InvalidArgument, "gocpu: first device id %d is out of range", c.FirstDeviceID)
	}
	return nil
}

func init() {
	ifrt.Register("gocpu", func(_ context.Context, config string) (ifrt.Client, error) {
		var cfg Config
		for k, v := range ifrt.ParseConfig(config) {
			switch k {
			case "devices":
				n, err := strconv.Atoi(v)
				if err != nil {
					return nil, ifrt.Errorf(ifrt.InvalidArgument, "gocpu: devices=%q is not a number", v)
				}
				cfg.Devices = n
			default:
				return nil, ifrt.Errorf(ifrt.InvalidArgument, "gocpu: unknown option %q (known: devices)", k)
			}
		}
		return New(cfg)
	})
}

// Client is the pure-Go backend. It is safe for concurrent use.
type Client struct {
	ifrt.UnimplementedClient

	cfg     Config
	log     *slog.Logger
	devices ifrt.DeviceList
	byID    map[ifrt.DeviceID]*ifrt.Device

	check backend.Checker[*array]
	life  backend.Lifetime[*array, *executable]
}

var _ ifrt.Client = (*Client)(nil)

// New returns a client with cfg.Devices virtual CPU devices, each with a "device"
// memory (the default) and "pinned_host" and "unpinned_host" memories.
func New(cfg Config) (*Client, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.Devices == 0 {
		cfg.Devices = DefaultDevices
	}
	c := &Client{
		cfg:  cfg,
		log:  cfg.Logger,
		byID: make(map[ifrt.DeviceID]*ifrt.Device, cfg.Devices),
	}
	if c.log == nil {
		c.log = slog.Default()
	}
	c.check = backend.Checker[*array]{
		Name: "gocpu", Open: c.checkOpen, Spec: c.checkSpec,
		Owns: func(a *array) bool { return a.client == c },
	}
	kinds := []ifrt.MemoryKind{ifrt.MemoryKindDevice, ifrt.MemoryKindPinnedHost, ifrt.MemoryKindUnpinnedHost}
	for i := range cfg.Devices {
		id := ifrt.DeviceID(cfg.FirstDeviceID + i)
		attrs := ifrt.Attributes{}
		for k, v := range cfg.Attributes {
			attrs[k] = v
		}
		d := &ifrt.Device{
			ID: id, Platform: "cpu", Kind: "cpu", ProcessIndex: cfg.ProcessIndex,
			LocalHardwareID: i, Addressable: true, Attributes: attrs,
		}
		for k, kind := range kinds {
			d.Memories = append(d.Memories, &ifrt.Memory{
				ID: ifrt.MemoryID(int(id)*len(kinds) + k), Kind: kind, Devices: []ifrt.DeviceID{id},
			})
		}
		d.DefaultMemory = d.Memories[0]
		c.devices = append(c.devices, d)
		c.byID[id] = d
	}
	return c, nil
}

func (c *Client) Platform() ifrt.Platform {
	return ifrt.Platform{Name: "cpu", Version: "gocpu", RuntimeType: "gocpu", ProcessIndex: c.cfg.ProcessIndex}
}

func (c *Client) Devices() ifrt.DeviceList            { return c.devices }
func (c *Client) AddressableDevices() ifrt.DeviceList { return c.devices }
func (c *Client) Attributes() ifrt.Attributes         { return ifrt.Attributes{"backend": "gocpu"} }

func (c *Client) LookupDevice(id ifrt.DeviceID) (*ifrt.Device, error) {
	if d, ok := c.byID[id]; ok {
		return d, nil
	}
	return nil, ifrt.Errorf(ifrt.NotFound, "gocpu: no device %d", id)
}

// As sets *target to c when target is a **Client.
func (c *Client) As(target any) bool {
	if p, ok := target.(**Client); ok {
		*p = c
		return true
	}
	return false
}

// Close deletes every array and executable. It is idempotent.
func (c *Client) Close() error {
	c.life.Close((*array).free, (*executable).free)
	return nil
}

// Live reports how many arrays and executables the client holds; tests use it to
// find leaks.
func (c *Client) Live() (arrays, executables int) {
	return c.life.Live()
}

func (c *Client) checkOpen() error { return c.life.CheckOpen() }

// checkSharding verifies that every device of s is one of c's and that the memory
// kind exists on each.
func (c *Client) checkSharding(s ifrt.Sharding) error {
	return backend.CheckSharding("gocpu", s, func(id ifrt.DeviceID) *ifrt.Device { return c.byID[id] })
}

func (c *Client) String() string { return fmt.Sprintf("gocpu(%d devices)", len(c.devices)) }
