package pjrtifrt

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/pjrt"
)

// Process makes a Client one process of a multi-process client: Count
// processes, each creating its own Client with its own Index, that together
// own the devices of one job (the hosts of a TPU slice or slices, the nodes of
// a GPU job). The zero value is a single-process client.
//
// What each kind of plugin is told:
//
//   - CUDA (a plugin reporting "cuda_version"): the create options "node_id"
//     = Index and "num_nodes" = Count, and the key-value store, through which
//     the plugin exchanges topology and NCCL ids with its peers. Every process
//     then lists every process's devices.
//   - libtpu: nothing; it learns the slice and its place in it from the
//     environment the job sets (TPU_WORKER_ID, TPU_WORKER_HOSTNAMES,
//     TPU_PROCESS_BOUNDS, TPU_CHIPS_PER_PROCESS_BOUNDS, TPU_VISIBLE_CHIPS,
//     TPU_SKIP_MDS_QUERY; for several slices MEGASCALE_COORDINATOR_ADDRESS,
//     MEGASCALE_NUM_SLICES, MEGASCALE_SLICE_ID, MEGASCALE_PORT), which the
//     worker inherits and libtpu reads itself, and the key-value store.
//   - the XLA CPU plugins: "process_id" = Index, which gives this process's
//     devices global ids distinct from the other processes'. They list only
//     their own devices, so the processes publish theirs through the
//     key-value store (keys "pjrtifrt/devices/<index>") and each Client lists
//     the others' as non-addressable devices. xla-cpu-pjrt 0.81 ignores
//     "process_id"; New refuses it for Count > 1 rather than give two
//     processes the same device ids.
//
// Whatever the plugin, New checks that the client's process index is Index
// and fails with FailedPrecondition otherwise (for libtpu: the environment
// describes another process).
//
// Compile returns Unimplemented, naming the plugin, for a program over
// devices of other processes: the XLA CPU plugins cannot run one, and
// pjrtifrt does not yet compile one for the CUDA and TPU plugins, which can.
// Programs over this process's devices compile and run as in a single
// process.
type Process struct {
	// Index is this process, in [0, Count).
	Index int
	// Count is the number of processes; 0 or 1 is a single process.
	Count int
	// KeyValueStore is shared by all Count processes; required when Count > 1.
	// The store keeps different clients' keys apart (a prefix per job). Its
	// errors may carry ifrt or pjrt codes; the plugin sees either.
	KeyValueStore pjrt.KeyValueStore
	// Timeout bounds the wait for the other processes' devices (CPU plugins).
	// Default 2 minutes.
	Timeout time.Duration
}

func (p Process) multi() bool { return p.Count > 1 }

func (p Process) validate() error {
	switch {
	case p.Count < 0 || p.Count > 1<<16:
		return ifrt.Errorf(ifrt.InvalidArgument, "pjrtifrt: %d processes is out of range [0, 65536]", p.Count)
	case p.Count <= 1 && p.Index != 0:
		return ifrt.Errorf(ifrt.InvalidArgument, "pjrtifrt: process %d of a single-process client", p.Index)
	case p.Count > 1 && (p.Index < 0 || p.Index >= p.Count):
		return ifrt.Errorf(ifrt.InvalidArgument, "pjrtifrt: process %d is not in [0, %d)", p.Index, p.Count)
	case p.Count > 1 && p.KeyValueStore == nil:
		return ifrt.Errorf(ifrt.InvalidArgument, "pjrtifrt: a client of %d processes needs a KeyValueStore", p.Count)
	case p.Timeout < 0:
		return ifrt.Errorf(ifrt.InvalidArgument, "pjrtifrt: negative process timeout %v", p.Timeout)
	}
	return nil
}

// pluginKind says how a plugin is made multi-process.
type pluginKind int

const (
	kindCPU pluginKind = iota // the XLA CPU plugins, and any other
	kindCUDA
	kindTPU
)

func kindOf(p *pjrt.Plugin) pluginKind {
	if _, ok := p.Attributes()["cuda_version"]; ok {
		return kindCUDA
	}
	if strings.HasPrefix(filepath.Base(p.Path()), "libtpu") {
		return kindTPU
	}
	for _, e := range p.Extensions() {
		if s := e.String(); s == "TpuTopology" || s == "TpuExecutable" || s == "Megascale" {
			return kindTPU
		}
	}
	return kindCPU
}

// createOptions adds the plugin's process options to opts (those the caller
// set win) and returns the pjrt options that pass the key-value store.
func (p Process) createOptions(kind pluginKind, opts map[string]any) []pjrt.ClientOption {
	if !p.multi() {
		return nil
	}
	set := func(name string, v int64) {
		if _, ok := opts[name]; !ok {
			opts[name] = v
		}
	}
	switch kind {
	case kindCUDA:
		set("node_id", int64(p.Index))
		set("num_nodes", int64(p.Count))
	case kindCPU:
		set("process_id", int64(p.Index))
	}
	return []pjrt.ClientOption{pjrt.WithKeyValueStore(p.KeyValueStore)}
}

// sharedDevice is one device as the processes publish them to each other.
type sharedDevice struct {
	ID   int    `json:"id"`
	Kind string `json:"kind"`
}

func devicesKey(process int) string { return "pjrtifrt/devices/" + strconv.Itoa(process) }

// joinProcesses checks the client's process index and, when the plugin lists
// only this process's devices, learns the other processes' from the store.
func (c *Client) joinProcesses(ctx context.Context, p Process, kind pluginKind) error {
	if !p.multi() {
		return nil
	}
	if got := c.pc.ProcessIndex(); got != p.Index {
		why := "the plugin did not take the process options"
		switch {
		case kind == kindTPU:
			why = "libtpu took its place in the slice from the TPU_* and MEGASCALE_* environment, which describes another process"
		case kind == kindCPU:
			why = `the plugin ignored "process_id" (xla-cpu-pjrt 0.81 does), so the processes' device ids would collide; use a newer CPU plugin, or gocpu`
		}
		return ifrt.Errorf(ifrt.FailedPrecondition, "pjrtifrt: %s made process %d, not process %d of %d: %s",
			c.pc.Plugin().Path(), got, p.Index, p.Count, why)
	}
	for _, d := range c.devices {
		if d.ProcessIndex != p.Index {
			return nil // the plugin knows the other processes' devices itself
		}
	}
	timeout := p.Timeout
	if timeout == 0 {
		timeout = 2 * time.Minute
	}
	mine := make([]sharedDevice, 0, len(c.devices))
	for _, d := range c.devices {
		mine = append(mine, sharedDevice{ID: int(d.ID), Kind: d.Kind})
	}
	b, err := json.Marshal(mine)
	if err != nil {
		return ifrt.Errorf(ifrt.Internal, "pjrtifrt: encoding devices: %w", err)
	}
	if err := p.KeyValueStore.Put(ctx, devicesKey(p.Index), b); err != nil {
		return ifrt.WithCode(ifrt.CodeOf(err), fmt.Errorf("pjrtifrt: publishing process %d's devices: %w", p.Index, err))
	}
	for other := range p.Count {
		if other == p.Index {
			continue
		}
		v, err := p.KeyValueStore.Get(ctx, devicesKey(other), timeout)
		if err != nil {
			return ifrt.WithCode(ifrt.CodeOf(err), fmt.Errorf("pjrtifrt: waiting for process %d of %d: %w", other, p.Count, err))
		}
		var theirs []sharedDevice
		if err := json.Unmarshal(v, &theirs); err != nil {
			return ifrt.Errorf(ifrt.DataLoss, "pjrtifrt: process %d's devices (key %s) are not a device list: %w", other, devicesKey(other), err)
		}
		for _, sd := range theirs {
			id := ifrt.DeviceID(sd.ID)
			if _, dup := c.byID[id]; dup {
				return ifrt.Errorf(ifrt.FailedPrecondition, "pjrtifrt: process %d has device %d too: the processes' device ids collide", other, id)
			}
			d := &ifrt.Device{ID: id, Platform: c.platform.Name, Kind: sd.Kind, ProcessIndex: other,
				LocalHardwareID: -1, Attributes: ifrt.Attributes{}}
			c.devices = append(c.devices, d)
			c.byID[id] = d
		}
	}
	// Every process lists the devices in one order: by global id.
	slices.SortFunc(c.devices, func(a, b *ifrt.Device) int { return cmp.Compare(a.ID, b.ID) })
	return nil
}

// checkSpanning refuses a program over devices of other processes on the
// CPU plugins, which have no cross-process collectives, and for now on every
// plugin (pjrtifrt does not compile multi-process programs yet).
func (c *Client) checkSpanning(devices ifrt.DeviceList) error {
	var remote []string
	for _, d := range devices {
		if own, ok := c.byID[d.ID]; ok && !own.Addressable {
			remote = append(remote, fmt.Sprintf("device %d of process %d", own.ID, own.ProcessIndex))
		}
	}
	if len(remote) == 0 {
		return nil
	}
	p := c.pc.Plugin()
	major, minor := p.Version()
	if c.platform.Name == "cpu" {
		return ifrt.Errorf(ifrt.Unimplemented,
			"pjrtifrt: %s (XLA CPU plugin, PJRT %d.%d) cannot run a program over devices of other processes (%s): "+
				"the XLA CPU plugins have no cross-process collectives (\"Multiprocess computations aren't implemented on the CPU backend\"). "+
				"Programs spanning processes run on the gocpu backend; the CUDA and TPU plugins have the collectives, "+
				"but pjrtifrt does not compile multi-process programs for them yet",
			p.Path(), major, minor, strings.Join(remote, ", "))
	}
	return ifrt.Errorf(ifrt.Unimplemented,
		"pjrtifrt: %s (%s, PJRT %d.%d): compiling a program over devices of other processes (%s) is not implemented yet; "+
			"programs spanning processes run on the gocpu backend",
		p.Path(), c.platform.Name, major, minor, strings.Join(remote, ", "))
}

var (
	storesMu sync.Mutex
	stores   = map[string]pjrt.KeyValueStore{}
)

// RegisterKeyValueStore names kv for backend strings: "pjrt:...,kv=name"
// gives the client kv as its Process.KeyValueStore. A program registers its
// store (the resource manager's coordination service, a MemoryKeyValueStore
// for clients within one process) before opening the backend. Registering a
// name again replaces it; a nil kv removes it.
func RegisterKeyValueStore(name string, kv pjrt.KeyValueStore) {
	storesMu.Lock()
	defer storesMu.Unlock()
	if kv == nil {
		delete(stores, name)
		return
	}
	stores[name] = kv
}

func lookupKeyValueStore(name string) (pjrt.KeyValueStore, error) {
	storesMu.Lock()
	defer storesMu.Unlock()
	kv, ok := stores[name]
	if !ok {
		return nil, ifrt.Errorf(ifrt.NotFound, "pjrtifrt: no key-value store %q (register it with RegisterKeyValueStore)", name)
	}
	return kv, nil
}

// parseProcess parses the "process=<index>/<count>" backend option.
func parseProcess(v string) (index, count int, err error) {
	i, n, ok := strings.Cut(v, "/")
	if ok {
		index, err = strconv.Atoi(i)
		if err == nil {
			count, err = strconv.Atoi(n)
		}
	}
	if !ok || err != nil {
		return 0, 0, ifrt.Errorf(ifrt.InvalidArgument, "pjrtifrt: process=%q: want <index>/<count>, e.g. process=0/2", v)
	}
	return index, count, nil
}
