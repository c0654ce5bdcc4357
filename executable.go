package pathways

import (
	"context"
	"slices"
	"sync"

	"google.golang.org/protobuf/proto"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/internal/xlapb"
)

// Compile compiles the program on the worker that owns opts.Devices. A program
// whose devices span several workers would run as a gang, each worker executing
// its devices' part; no backend here can run one partition of a program across
// processes yet, so such programs are Unimplemented.
func (c *Client) Compile(ctx context.Context, program ifrt.Program, opts *ifrt.CompileOptions) (ifrt.LoadedExecutable, error) {
	if err := c.checkOpen(); err != nil {
		return nil, err
	}
	if opts == nil || len(opts.Devices) == 0 {
		return nil, ifrt.Errorf(ifrt.InvalidArgument, "pathways: compile needs CompileOptions.Devices: the cluster has no default device")
	}
	if err := opts.Devices.Validate(); err != nil {
		return nil, err
	}
	places := make([]*placement, len(opts.Devices))
	for i, d := range opts.Devices {
		p, ok := c.byID[d.ID]
		if !ok {
			return nil, ifrt.Errorf(ifrt.InvalidArgument, "pathways: device %d is not in the cluster", d.ID)
		}
		if i > 0 && p.link != places[0].link {
			return nil, ifrt.Errorf(ifrt.Unimplemented, "pathways: the program's devices %v span several workers; running one program across workers is not supported by these backends yet", opts.Devices)
		}
		places[i] = p
	}
	l := places[0].link
	client, _, gen, err := l.session()
	if err != nil {
		return nil, err
	}
	local := make(ifrt.DeviceList, len(places))
	for i, p := range places {
		if local[i], err = l.localDevice(client, p.local); err != nil {
			return nil, err
		}
	}
	xla, err := localDeviceAssignment(opts.XLA, opts.Devices, local)
	if err != nil {
		return nil, err
	}
	exe, err := client.Compile(ctx, program, &ifrt.CompileOptions{Devices: local, XLA: xla})
	if err != nil {
		return nil, c.linkError(l, gen, err)
	}
	return &executable{c: c, link: l, gen: gen, exe: exe, devices: opts.Devices, places: places, local: local}, nil
}

// executable is a program loaded on one worker, addressed by global devices.
type executable struct {
	ifrt.UnimplementedExecutable
	c       *Client
	link    *link
	gen     uint64
	exe     ifrt.LoadedExecutable
	devices ifrt.DeviceList
	places  []*placement
	local   ifrt.DeviceList

	mu      sync.Mutex
	deleted bool
}

func (e *executable) Name() string                    { return e.exe.Name() }
func (e *executable) Fingerprint() string             { return e.exe.Fingerprint() }
func (e *executable) Devices() ifrt.DeviceList        { return e.devices }
func (e *executable) Parameters() []ifrt.ArgumentInfo { return e.exe.Parameters() }
func (e *executable) Outputs() []ifrt.ArgumentInfo    { return e.exe.Outputs() }
func (e *executable) DonatableParameters() []int      { return e.exe.DonatableParameters() }
func (e *executable) As(any) bool                     { return false }

func (e *executable) IsDeleted() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.deleted
}

func (e *executable) Delete() *ifrt.Future {
	e.mu.Lock()
	e.deleted = true
	e.mu.Unlock()
	if e.link.current(e.gen) != nil {
		return nil // the worker that held it is gone, and the program with it
	}
	return e.exe.Delete()
}

// Execute puts each argument together on the worker (its shards are already there),
// runs the program and splits every output back into per-device shards.
func (e *executable) Execute(ctx context.Context, args []ifrt.Array, opts *ifrt.ExecuteOptions) (*ifrt.ExecuteResult, error) {
	if err := e.c.checkOpen(); err != nil {
		return nil, err
	}
	if e.IsDeleted() {
		return nil, ifrt.ErrExecutableDeleted
	}
	if err := e.link.current(e.gen); err != nil {
		return nil, err
	}
	client, _, _, err := e.link.session()
	if err != nil {
		return nil, err
	}
	arrays, err := e.c.take(args)
	if err != nil {
		return nil, err
	}
	localArgs := make([]ifrt.Array, len(arrays))
	var assembled []ifrt.Array
	defer func() {
		// They share the shards' memory, which deleting them leaves alone.
		for _, a := range assembled {
			a.Delete()
		}
	}()
	for i, a := range arrays {
		if localArgs[i], err = e.localArray(ctx, client, i, a); err != nil {
			return nil, err
		}
		if len(a.Sharding().Devices()) > 1 {
			assembled = append(assembled, localArgs[i])
		}
	}
	res, err := e.exe.Execute(ctx, localArgs, opts)
	if err != nil {
		return nil, e.c.linkError(e.link, e.gen, err)
	}
	outs := make([]ifrt.Array, len(res.Outputs))
	for i, o := range res.Outputs {
		if outs[i], err = e.globalArray(ctx, client, o); err != nil {
			return nil, err
		}
	}
	e.retireDonated(arrays, localArgs, opts)
	return &ifrt.ExecuteResult{Outputs: outs, Status: res.Status}, nil
}

// retireDonated deletes the arguments whose worker-side arrays the execution
// consumed. When the worker cannot say which parameters its program donates (a
// PJRT plugin does not read that out of bytecode), every argument not excluded
// may have been, so each is asked.
func (e *executable) retireDonated(arrays []*array, localArgs []ifrt.Array, opts *ifrt.ExecuteOptions) {
	var excluded []int
	if opts != nil {
		excluded = opts.NonDonatableInputs
	}
	known := len(e.exe.Parameters()) > 0
	donatable := e.exe.DonatableParameters()
	for i, a := range arrays {
		if slices.Contains(excluded, i) || known && !slices.Contains(donatable, i) {
			continue
		}
		if localArgs[i].IsDeleted() {
			a.Delete()
		}
	}
}

// localArray assembles argument i from its shards on the worker, with its sharding
// moved onto the worker's own devices.
func (e *executable) localArray(ctx context.Context, client interface {
	AssembleArray(context.Context, ifrt.ArraySpec, []ifrt.Array, ifrt.CopySemantics) (ifrt.Array, error)
}, i int, a *array) (ifrt.Array, error) {
	shards, err := a.live()
	if err != nil {
		return nil, ifrt.Errorf(ifrt.CodeOf(err), "pathways: argument %d: %w", i, err)
	}
	devs := make(ifrt.DeviceList, len(shards))
	parts := make([]ifrt.Array, len(shards))
	for k, s := range shards {
		pos := e.devices.Index(s.place.device.ID)
		if pos < 0 {
			return nil, ifrt.Errorf(ifrt.InvalidArgument, "pathways: argument %d has a shard on device %d, which %s does not run on", i, s.place.device.ID, e.Name())
		}
		devs[k], parts[k] = e.local[pos], s.array
	}
	if len(shards) == 1 {
		return parts[0], nil
	}
	sharding, err := a.spec.Sharding.WithDevices(devs, a.spec.Sharding.MemoryKind())
	if err != nil {
		return nil, err
	}
	spec := a.spec
	spec.Sharding = sharding
	return client.AssembleArray(ctx, spec, parts, ifrt.ReuseInput)
}

// globalArray splits an output on the worker into per-device shards of a cluster
// array whose sharding names the global devices.
func (e *executable) globalArray(ctx context.Context, client interface {
	DisassembleArray(context.Context, ifrt.Array, ifrt.CopySemantics) ([]ifrt.Array, error)
}, o ifrt.Array) (ifrt.Array, error) {
	localDevs := o.Sharding().Devices()
	global := make(ifrt.DeviceList, len(localDevs))
	places := make([]*placement, len(localDevs))
	for k, d := range localDevs {
		pos := e.local.Index(d.ID)
		if pos < 0 {
			return nil, ifrt.Errorf(ifrt.Internal, "pathways: an output is on worker device %d, outside the program's devices", d.ID)
		}
		global[k], places[k] = e.devices[pos], e.places[pos]
	}
	sharding, err := o.Sharding().WithDevices(global, o.Sharding().MemoryKind())
	if err != nil {
		return nil, err
	}
	spec := o.Spec()
	spec.Sharding = sharding
	domains, err := sharding.IndexDomains(spec.Shape)
	if err != nil {
		return nil, err
	}
	parts := []ifrt.Array{o}
	if len(localDevs) > 1 {
		if parts, err = client.DisassembleArray(ctx, o, ifrt.DonateInput); err != nil {
			return nil, e.c.linkError(e.link, e.gen, err)
		}
	}
	shards := make([]*shard, len(parts))
	for k, p := range parts {
		shards[k] = &shard{place: places[k], gen: e.gen, array: p, domain: domains[k]}
	}
	return &array{c: e.c, spec: spec, shards: shards}, nil
}

// localDeviceAssignment rewrites the device assignment in the serialized
// xla.CompileOptionsProto xla (JAX's, which names the cluster's global device
// ids) to the worker's own ids: global[i] becomes local[i].
func localDeviceAssignment(xla []byte, global, local ifrt.DeviceList) ([]byte, error) {
	if len(xla) == 0 {
		return xla, nil
	}
	var co xlapb.CompileOptionsProto
	if err := proto.Unmarshal(xla, &co); err != nil {
		return nil, ifrt.Errorf(ifrt.InvalidArgument, "pathways: CompileOptions.XLA is not an xla.CompileOptionsProto: %v", err)
	}
	da := co.GetExecutableBuildOptions().GetDeviceAssignment()
	if da == nil {
		return xla, nil
	}
	toLocal := make(map[int64]int64, len(global))
	for i, d := range global {
		toLocal[int64(d.ID)] = int64(local[i].ID)
	}
	for _, cd := range da.GetComputationDevices() {
		for r, id := range cd.GetReplicaDeviceIds() {
			l, ok := toLocal[id]
			if !ok {
				return nil, ifrt.Errorf(ifrt.InvalidArgument, "pathways: the compile options assign device %d, which is not among the program's devices %v", id, global)
			}
			cd.ReplicaDeviceIds[r] = l
		}
	}
	out, err := proto.Marshal(&co)
	if err != nil {
		return nil, ifrt.Errorf(ifrt.Internal, "pathways: encoding compile options: %v", err)
	}
	return out, nil
}
