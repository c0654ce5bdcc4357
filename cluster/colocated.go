package cluster

import (
	"context"
	"slices"
	"sync"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/ifrt/backend"
	"github.com/openpathways/pathways/proxy"
)

// Host CPU devices, for colocated Python: a worker that runs a sidecar lists
// its host's CPU device as a non-primary device; the cluster gives it the id
// hostCPUBase + slice*hostCPUStride + host, above every RM-assigned id, so
// that it keeps its id when the worker comes back.
const (
	hostCPUBase   = 1 << 20
	hostCPUStride = 1 << 10
	// hostCPULocal is the placement.local of a host CPU device: it is not
	// among the worker's addressable (primary) devices.
	hostCPULocal = -1
)

// colocationID is the colocation_id of every device of a host.
func colocationID(k hostKey) int64 { return int64(k.slice)*hostCPUStride + int64(k.host) }

// hostCPU is the worker's CPU device for colocated Python.
func (l *link) hostCPU(client *proxy.Client) (*ifrt.Device, error) {
	for _, d := range client.AllDevices() {
		if d.NonPrimary && d.Kind == "cpu" {
			return d, nil
		}
	}
	return nil, ifrt.Errorf(ifrt.NotFound, "cluster: the worker of slice %d host %d has no CPU device for colocated Python (it runs no sidecar)", l.key.slice, l.key.host)
}

// addHostCPUs gives every device its host's colocation_id and adds the CPU
// device of each connected worker that has one, non-primary: JAX leaves it out
// of jax.devices(), and colocated_cpu_devices finds it by its kind "cpu" and
// the colocation_id.
func (c *Client) addHostCPUs() {
	for _, d := range c.devices {
		d.Attributes[ifrt.AttrColocationID] = colocationID(c.byID[d.ID].link.key)
	}
	for key, l := range c.links {
		client, _, _, err := l.session()
		if err != nil {
			continue
		}
		local, err := l.hostCPU(client)
		if err != nil {
			continue
		}
		id := ifrt.DeviceID(hostCPUBase + key.slice*hostCPUStride + key.host)
		dev := &ifrt.Device{
			ID: id, Platform: "cpu", Kind: "cpu", LocalHardwareID: local.LocalHardwareID,
			Addressable: true, NonPrimary: true,
			Attributes: ifrt.Attributes{ifrt.AttrSliceIndex: int64(key.slice), "host_index": int64(key.host), ifrt.AttrColocationID: colocationID(key)},
		}
		for k, m := range local.Memories {
			gm := &ifrt.Memory{ID: ifrt.MemoryID(int(id)*8 + k), Kind: m.Kind, Devices: []ifrt.DeviceID{id}}
			dev.Memories = append(dev.Memories, gm)
			if local.DefaultMemory == m || dev.DefaultMemory == nil {
				dev.DefaultMemory = gm
			}
		}
		c.devices = append(c.devices, dev)
		c.byID[id] = &placement{device: dev, link: l, local: hostCPULocal}
	}
	slices.SortFunc(c.devices, func(a, b *ifrt.Device) int { return int(a.ID) - int(b.ID) })
}

// colocatedExecutable is a colocated Python program over host CPU devices:
// one program per host, compiled on its worker for that host's shards, all
// run together.
type colocatedExecutable struct {
	backend.DescribedExecutable
	c     *Client
	outs  []ifrt.ArraySpec
	hosts []colocatedHost // by position in Devices()
}

type colocatedHost struct {
	place *placement
	gen   uint64
	exe   ifrt.LoadedExecutable
}

// compileColocated compiles p on the worker of each of its devices, each of
// which must be a host CPU device, with the specs of that host's shards.
func (c *Client) compileColocated(ctx context.Context, p *ifrt.CustomCallProgram, places []*placement) (ifrt.LoadedExecutable, error) {
	e := &colocatedExecutable{c: c, outs: p.OutputSpecs}
	e.Describe(p.Name, p.Devices, p.InputSpecs, p.OutputSpecs)
	for _, specs := range [][]ifrt.ArraySpec{p.InputSpecs, p.OutputSpecs} {
		for i, s := range specs {
			for _, d := range s.Sharding.Devices() {
				if p.Devices.Index(d.ID) < 0 {
					return nil, ifrt.Errorf(ifrt.InvalidArgument, "cluster: array spec %d of %s is on device %d, which the program does not run on", i, p.Name, d.ID)
				}
			}
		}
	}
	for h, pl := range places {
		if pl.local != hostCPULocal {
			return nil, ifrt.Errorf(ifrt.InvalidArgument, "cluster: colocated Python program %s runs on device %d, which is not a host CPU device (see colocated_cpu_devices)", p.Name, pl.device.ID)
		}
		client, _, gen, err := pl.link.session()
		if err != nil {
			return nil, err
		}
		local, err := pl.link.hostCPU(client)
		if err != nil {
			return nil, err
		}
		ins, err := hostSpecs(p.InputSpecs, p.Devices[h].ID, local)
		if err != nil {
			return nil, err
		}
		outs, err := hostSpecs(p.OutputSpecs, p.Devices[h].ID, local)
		if err != nil {
			return nil, err
		}
		prog := &ifrt.CustomCallProgram{Type: p.Type, Name: p.Name, Program: p.Program, Devices: ifrt.DeviceList{local}, InputSpecs: ins, OutputSpecs: outs}
		exe, err := client.Compile(ctx, prog, &ifrt.CompileOptions{Devices: prog.Devices})
		if err != nil {
			e.Delete()
			return nil, c.linkError(pl.link, gen, err)
		}
		e.hosts = append(e.hosts, colocatedHost{place: pl, gen: gen, exe: exe})
	}
	return e, nil
}

// hostSpecs are the specs of the shards on device id, placed on the worker's
// device local.
func hostSpecs(specs []ifrt.ArraySpec, id ifrt.DeviceID, local *ifrt.Device) ([]ifrt.ArraySpec, error) {
	out := make([]ifrt.ArraySpec, len(specs))
	for i, s := range specs {
		domain, err := shardDomain(s, id)
		if err != nil {
			return nil, err
		}
		out[i] = ifrt.ArraySpec{DType: s.DType, Shape: domain.Shape(), Sharding: ifrt.NewSingleDeviceSharding(local, s.Sharding.MemoryKind())}
	}
	return out, nil
}

// shardDomain is the part of an array of spec on device id.
func shardDomain(s ifrt.ArraySpec, id ifrt.DeviceID) (ifrt.IndexDomain, error) {
	domains, err := s.Sharding.IndexDomains(s.Shape)
	if err != nil {
		return nil, err
	}
	pos := s.Sharding.Devices().Index(id)
	if pos < 0 {
		return nil, ifrt.Errorf(ifrt.InvalidArgument, "cluster: an array of %v%v has no shard on device %d", s.DType, s.Shape, id)
	}
	return domains[pos], nil
}

func (e *colocatedExecutable) Delete() *ifrt.Future {
	if !e.MarkDeleted() {
		return ifrt.ReadyFuture(nil)
	}
	fs := make([]*ifrt.Future, 0, len(e.hosts))
	for _, h := range e.hosts {
		if h.place.link.current(h.gen) == nil {
			fs = append(fs, h.exe.Delete())
		}
	}
	return ifrt.JoinFutures(fs...)
}

// Execute runs the program on every host at once, each with its own shards of
// the arguments, and puts the outputs together from the hosts' shards. A lost
// worker fails it with DATA_LOSS, as does a sidecar that dies during it.
func (e *colocatedExecutable) Execute(ctx context.Context, args []ifrt.Array, opts *ifrt.ExecuteOptions) (*ifrt.ExecuteResult, error) {
	arrays, err := e.c.executionArguments(e, args)
	if err != nil {
		return nil, err
	}
	if err := backend.CheckExecute("cluster", e, args, opts); err != nil {
		return nil, err
	}
	perHost := make([][]ifrt.Array, len(e.hosts))
	for h, host := range e.hosts {
		if err := host.place.link.current(host.gen); err != nil {
			return nil, err
		}
		for i, a := range arrays {
			shards, err := a.live()
			if err != nil {
				return nil, ifrt.Errorf(ifrt.CodeOf(err), "cluster: argument %d: %w", i, err)
			}
			k := slices.IndexFunc(shards, func(s *shard) bool { return s.place == host.place })
			if k < 0 {
				return nil, ifrt.Errorf(ifrt.InvalidArgument, "cluster: argument %d of %s has no shard on device %d", i, e.Name(), host.place.device.ID)
			}
			perHost[h] = append(perHost[h], shards[k].array)
		}
	}
	results := make([]*ifrt.ExecuteResult, len(e.hosts))
	errs := make([]error, len(e.hosts))
	var wg sync.WaitGroup
	for h, host := range e.hosts {
		wg.Go(func() {
			results[h], errs[h] = host.exe.Execute(ctx, perHost[h], nil)
			errs[h] = e.c.linkError(host.place.link, host.gen, errs[h])
		})
	}
	wg.Wait()
	if err := firstColocatedError(errs); err != nil {
		for _, r := range results {
			if r != nil {
				for _, o := range r.Outputs {
					o.Delete()
				}
			}
		}
		return nil, err
	}
	outs := make([]ifrt.Array, len(e.outs))
	for i, spec := range e.outs {
		devs := spec.Sharding.Devices()
		shards := make([]*shard, len(devs))
		for k, d := range devs {
			h := e.Devices().Index(d.ID)
			domain, err := shardDomain(spec, d.ID)
			if err != nil {
				return nil, err
			}
			shards[k] = &shard{place: e.hosts[h].place, gen: e.hosts[h].gen, array: results[h].Outputs[i], domain: domain}
		}
		outs[i] = &array{c: e.c, Described: backend.Described{ArraySpec: spec}, shards: shards, computed: true}
	}
	res := &ifrt.ExecuteResult{Outputs: outs}
	if opts != nil && opts.FillStatus {
		res.Status = ifrt.ReadyFuture(nil)
	}
	return res, nil
}

// firstColocatedError prefers DATA_LOSS, the error that says a host is gone,
// over the others.
func firstColocatedError(errs []error) error {
	var first error
	for _, err := range errs {
		if err == nil {
			continue
		}
		if ifrt.CodeOf(err) == ifrt.DataLoss {
			return err
		}
		if first == nil {
			first = err
		}
	}
	return first
}
