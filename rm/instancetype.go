package rm

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/openpathways/pathways/ifrt"
)

// InstanceType is a parsed "<kind>:<topology>" string, the value of the
// resource manager's --instance_type flag: the shape of one slice.
type InstanceType struct {
	// Name is the string it was parsed from, e.g. "tpuv5e:4x4".
	Name string
	// Kind is the part before the colon, e.g. "tpuv5e", "cpu" or "gpu".
	Kind string
	// Platform is the PJRT platform of the devices: "tpu", "cpu", or "cuda"
	// for gpu slices (the name the CUDA plugin's PJRT_Client_PlatformName
	// returns).
	Platform string
	// Topology is the slice's chip grid, e.g. [4 4] or [2 2 1]. For cpu it is
	// the device grid of each host ([4] for cpu:4 and cpu:2hx4).
	Topology []int
	// Untwisted records an "_untwisted" suffix on the topology (axlearn
	// writes it for twisted v4/v5p shapes); it does not change the counts.
	Untwisted bool
	// Hosts is the number of hosts (TPU VMs, workers) per slice.
	Hosts int
	// ChipsPerHost is the number of chips on each host.
	ChipsPerHost int
	// DevicesPerChip is the number of runtime devices each chip shows: 2 on
	// TPU7x (two TensorCores, no megacore), otherwise 1.
	DevicesPerChip int
}

// Chips returns the number of chips per slice: the product of the
// topology, times the host count for cpu slices (whose topology is per host).
func (t InstanceType) Chips() int {
	n := 1
	if t.Platform == "cpu" {
		n = t.Hosts
	}
	for _, d := range t.Topology {
		n *= d
	}
	return n
}

// DevicesPerHost returns the number of devices each worker registers.
func (t InstanceType) DevicesPerHost() int { return t.ChipsPerHost * t.DevicesPerChip }

// DevicesPerSlice returns the number of devices per slice.
func (t InstanceType) DevicesPerSlice() int { return t.Hosts * t.DevicesPerHost() }

func (t InstanceType) String() string { return t.Name }

// tpuKind describes one TPU generation as the resource manager counts it.
type tpuKind struct {
	dims           int // topology dimensions
	chipsPerHost   int // chips per VM for multi-host slices
	devicesPerChip int
}

// tpuKinds: see ParseInstanceType for the table and its sources.
var tpuKinds = map[string]tpuKind{
	"tpuv4":    {dims: 3, chipsPerHost: 4, devicesPerChip: 1},
	"tpuv5":    {dims: 3, chipsPerHost: 4, devicesPerChip: 1},
	"tpuv5e":   {dims: 2, chipsPerHost: 4, devicesPerChip: 1},
	"tpuv5e1t": {dims: 2, chipsPerHost: 8, devicesPerChip: 1},
	"tpuv6e":   {dims: 2, chipsPerHost: 4, devicesPerChip: 1},
	"tpuv6e1t": {dims: 2, chipsPerHost: 8, devicesPerChip: 1},
	"tpu7x":    {dims: 3, chipsPerHost: 4, devicesPerChip: 2},
}

// Limits that keep every count, and every device id, well inside int32.
const (
	maxTopologyDim     = 1 << 12
	maxDevicesPerHost  = 1 << 12
	maxDevicesPerSlice = 1 << 20
)

// ParseInstanceType parses "<kind>:<topology>", e.g. "tpuv5e:4x4". An
// optional "_untwisted" suffix on the topology is accepted and recorded.
// "cpu:<N>" or "cpu:<A>x<B>[x<C>]" is a slice of one host with that many CPU
// devices; "cpu:<H>hx<N>" (or "cpu:<H>hx<A>x<B>...") is a slice of H hosts,
// each with that many devices: cpu:2hx4 is 2 hosts of 4 devices, 8 per
// slice. The "h" marks the leading factor as hosts, so every one-host
// spelling keeps its meaning. "gpu:<N>" is a slice of one host with N
// NVIDIA GPUs, platform "cuda" (a worker on the CUDA PJRT plugin, which
// shows each GPU as one device). Errors are INVALID_ARGUMENT.
//
// The TPU kinds are those Pathways on Cloud accepts. Chips per host follow the
// GKE machine types behind each kind; a slice with fewer chips than that is
// one host holding all of them.
//
//	kind      machine type        chips/host  devices/chip  topology
//	tpuv4     ct4p-hightpu-4t     4           1 (megacore)  AxBxC
//	tpuv5     ct5p-hightpu-4t     4           1 (megacore)  AxBxC   (v5p)
//	tpuv5e    ct5lp-hightpu-4t    4           1             AxB
//	tpuv5e1t  ct5lp-hightpu-8t    8           1             AxB     (2x4 on one host)
//	tpuv6e    ct6e-standard-4t    4           1             AxB
//	tpuv6e1t  ct6e-standard-8t    8           1             AxB     (2x4 on one host)
//	tpu7x     tpu7x-standard-4t   4           2             AxBxC
//
// Sources: google/pathways-job internal/controller/pathwaysjob_controller.go
// (MachineTypeToTPUVersionMap maps the machine types to these kinds,
// ValidTpuTopologiesMap lists their topologies, and VMs per slice are
// chips/4, or chips/8 for the -8t machines, at least 1); xpk and axlearn
// system_characteristics (v5p-8 is 2x2x1 on one ct5p-hightpu-4t VM,
// tpu7x-4x4x4 is 16 VMs of 4 chips); Google Cloud's Ironwood (TPU7x) GKE page
// (each VM has four chips) and jax.experimental.pallas.tpu.ChipVersion
// (TPU7x: two TensorCores per chip and no megacore, so JAX shows two devices
// per chip; v4 and v5p fuse their two cores into one megacore device; v5e and
// v6e chips have one core).
func ParseInstanceType(s string) (InstanceType, error) {
	bad := func(format string, args ...any) (InstanceType, error) {
		return InstanceType{}, ifrt.Errorf(ifrt.InvalidArgument, "rm: instance type %q: "+format, append([]any{s}, args...)...)
	}
	kind, topo, ok := strings.Cut(s, ":")
	if !ok {
		return bad("want <kind>:<topology>, e.g. tpuv5e:4x4 or cpu:4")
	}
	t := InstanceType{Name: s, Kind: kind}
	if rest, ok := strings.CutSuffix(topo, "_untwisted"); ok {
		topo, t.Untwisted = rest, true
	}
	if topo == "" {
		return bad("empty topology")
	}
	hosts := 1
	if lead, rest, ok := strings.Cut(topo, "x"); ok && strings.HasSuffix(lead, "h") {
		if kind != "cpu" {
			return bad("only cpu slices take a host count (<H>hx<devices>); %s derives its hosts from the topology", kind)
		}
		h := strings.TrimSuffix(lead, "h")
		n, err := strconv.Atoi(h)
		if h == "" || strings.TrimLeft(h, "0123456789") != "" || len(h) > 5 || err != nil || n < 1 || n > maxTopologyDim {
			return bad("host count %q must be an integer in [1, %d]", lead, maxTopologyDim)
		}
		hosts, topo = n, rest
	}
	parts := strings.Split(topo, "x")
	if len(parts) > 3 {
		return bad("topology has %d dimensions, at most 3 are allowed", len(parts))
	}
	chips := 1
	for _, p := range parts {
		// Digits only: no signs, spaces or underscores.
		if p == "" || strings.TrimLeft(p, "0123456789") != "" || len(p) > 5 {
			return bad("topology dimension %q is not a positive integer", p)
		}
		d, err := strconv.Atoi(p)
		if err != nil || d < 1 || d > maxTopologyDim {
			return bad("topology dimension %q must be in [1, %d]", p, maxTopologyDim)
		}
		t.Topology = append(t.Topology, d)
		chips *= d
		if chips > maxDevicesPerSlice {
			return bad("more than %d chips per slice", maxDevicesPerSlice)
		}
	}
	if kind == "gpu" {
		if t.Untwisted || len(parts) != 1 {
			return bad("gpu slices are one host of N GPUs, e.g. gpu:8")
		}
		if chips > maxDevicesPerHost {
			return bad("%d gpu devices on one host; at most %d", chips, maxDevicesPerHost)
		}
		t.Platform, t.Hosts, t.ChipsPerHost, t.DevicesPerChip = "cuda", 1, chips, 1
		return t, nil
	}
	if kind == "cpu" {
		if t.Untwisted {
			return bad("cpu topologies cannot be untwisted")
		}
		if chips > maxDevicesPerHost {
			return bad("%d cpu devices on one host; at most %d", chips, maxDevicesPerHost)
		}
		if hosts*chips > maxDevicesPerSlice {
			return bad("more than %d devices per slice", maxDevicesPerSlice)
		}
		t.Platform, t.Hosts, t.ChipsPerHost, t.DevicesPerChip = "cpu", hosts, chips, 1
		return t, nil
	}
	k, ok := tpuKinds[kind]
	if !ok {
		return bad("unknown kind %q (known: cpu, gpu, tpuv4, tpuv5, tpuv5e, tpuv5e1t, tpuv6e, tpuv6e1t, tpu7x)", kind)
	}
	if len(parts) != k.dims {
		return bad("%s topologies have %d dimensions, e.g. %s", kind, k.dims, exampleTopology(k.dims))
	}
	t.Platform, t.DevicesPerChip = "tpu", k.devicesPerChip
	switch {
	case chips <= k.chipsPerHost:
		t.Hosts, t.ChipsPerHost = 1, chips
	case chips%k.chipsPerHost != 0:
		return bad("%d chips cannot be split into hosts of %d chips", chips, k.chipsPerHost)
	default:
		t.Hosts, t.ChipsPerHost = chips/k.chipsPerHost, k.chipsPerHost
	}
	return t, nil
}

func exampleTopology(dims int) string {
	if dims == 3 {
		return "2x2x1"
	}
	return "2x2"
}

// dim returns the size of dimension i, 1 beyond the topology's dimensions.
func (t InstanceType) dim(i int) int {
	if i < len(t.Topology) {
		return t.Topology[i]
	}
	return 1
}

// describe is used in error messages.
func (t InstanceType) describe() string {
	return fmt.Sprintf("%s: %d hosts per slice, %d devices per host", t.Name, t.Hosts, t.DevicesPerHost())
}
