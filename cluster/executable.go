package cluster

import (
	"context"
	"slices"
	"sync"

	"go.opentelemetry.io/otel/attribute"
	"google.golang.org/protobuf/proto"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/ifrt/backend"
	"github.com/openpathways/pathways/internal/rpc"
	"github.com/openpathways/pathways/internal/xlapb"
)

// Compile compiles the program on the worker that owns opts.Devices. A program
// whose devices span several workers runs as a gang (see gangExecutable):
// compiled on each of them, launched on all together, each worker running
// its devices' partitions.
//
// An executable outlives the worker it was loaded on, as a Pathways program
// does: while the worker is lost, executions fail with DATA_LOSS; once a worker
// registers for the host again, the next execution loads the program there
// again. When the worker is lost at compile time, the program is compiled on
// another live worker with as many devices, for its description only (its
// parameters and outputs), and loaded on its own worker when that returns; so a
// client such as pathwaysutils' slice health check sees DATA_LOSS when it runs
// the program, not when it compiles it. A program that a live worker refuses
// fails there and is not tried elsewhere.
func (c *Client) Compile(ctx context.Context, program ifrt.Program, opts *ifrt.CompileOptions) (_ ifrt.LoadedExecutable, err error) {
	ctx, span := startSpan(ctx, "cluster.Compile")
	defer func() { rpc.EndSpan(span, err) }()
	if err := c.checkOpen(); err != nil {
		return nil, err
	}
	if opts == nil || len(opts.Devices) == 0 {
		return nil, ifrt.Errorf(ifrt.InvalidArgument, "cluster: compile needs CompileOptions.Devices: the cluster has no default device")
	}
	if err := opts.Devices.Validate(); err != nil {
		return nil, err
	}
	places := make([]*placement, len(opts.Devices))
	for i, d := range opts.Devices {
		p, ok := c.byID[d.ID]
		if !ok {
			return nil, ifrt.Errorf(ifrt.InvalidArgument, "cluster: device %d is not in the cluster", d.ID)
		}
		places[i] = p
	}
	if p, ok := program.(*ifrt.CustomCallProgram); ok {
		return c.compileColocated(ctx, p, places)
	}
	for _, p := range places {
		if p.link != places[0].link {
			return c.compileGang(ctx, program, opts.Devices, places)
		}
	}
	e := &executable{c: c, link: places[0].link, program: program, xla: opts.XLA, devices: opts.Devices, places: places}
	ld, err := e.loadOn(ctx, e.link)
	if err == nil {
		e.cur, e.meta = ld, ld.exe
		return e, nil
	}
	if !e.link.down() {
		return nil, err // the program failed, not the worker
	}
	if e.standIn = e.compileElsewhere(ctx); e.standIn == nil {
		return nil, err
	}
	e.meta = e.standIn.exe
	return e, nil
}

// load is an executable loaded on one worker: its program there, the worker's
// own devices in the order of the executable's, and the link generation it was
// loaded under.
type load struct {
	link  *link
	gen   uint64
	exe   ifrt.LoadedExecutable
	local ifrt.DeviceList
}

// loadOn compiles the executable's program on the worker of l, on that
// worker's devices at the local indices of the executable's devices.
func (e *executable) loadOn(ctx context.Context, l *link) (*load, error) {
	client, _, gen, err := l.session()
	if err != nil {
		return nil, err
	}
	local := make(ifrt.DeviceList, len(e.places))
	for i, p := range e.places {
		if local[i], err = l.localDevice(client, p.local); err != nil {
			return nil, err
		}
	}
	xla, err := localDeviceAssignment(e.xla, e.devices, local)
	if err != nil {
		return nil, err
	}
	exe, err := client.Compile(ctx, e.program, &ifrt.CompileOptions{Devices: local, XLA: xla})
	if err != nil {
		return nil, e.c.linkError(l, gen, err)
	}
	return &load{link: l, gen: gen, exe: exe, local: local}, nil
}

// compileElsewhere compiles the program on some other live worker, or returns
// nil when none can.
func (e *executable) compileElsewhere(ctx context.Context) *load {
	keys := make([]hostKey, 0, len(e.c.links))
	for k, l := range e.c.links {
		if l != e.link {
			keys = append(keys, k)
		}
	}
	slices.SortFunc(keys, func(a, b hostKey) int {
		if a.slice != b.slice {
			return a.slice - b.slice
		}
		return a.host - b.host
	})
	for _, k := range keys {
		l := e.c.links[k]
		ld, err := e.loadOn(ctx, l)
		if err == nil {
			return ld
		}
		if !l.down() {
			return nil // the program failed there: no other worker does better
		}
	}
	return nil
}

// executable is a program for devices of one worker, addressed by global
// devices.
type executable struct {
	ifrt.UnimplementedExecutable
	c       *Client
	link    *link
	program ifrt.Program
	xla     []byte // the caller's compile options, with global device ids
	devices ifrt.DeviceList
	places  []*placement
	// meta describes the program (name, parameters, outputs): the first load,
	// or the stand-in.
	meta ifrt.LoadedExecutable

	loadMu sync.Mutex // serializes loads
	mu     sync.Mutex
	// cur is the program on its own worker; nil until it first loads there, and
	// out of date (an older link generation) after that worker was lost.
	cur *load
	// standIn is the program compiled on another worker when its own was lost
	// at compile time; only its description is used.
	standIn *load
	deleted bool
}

func (e *executable) Name() string                    { return e.meta.Name() }
func (e *executable) Fingerprint() string             { return e.meta.Fingerprint() }
func (e *executable) Devices() ifrt.DeviceList        { return e.devices }
func (e *executable) Parameters() []ifrt.ArgumentInfo { return e.meta.Parameters() }
func (e *executable) Outputs() []ifrt.ArgumentInfo    { return e.meta.Outputs() }
func (e *executable) DonatableParameters() []int      { return e.meta.DonatableParameters() }
func (e *executable) As(any) bool                     { return false }

func (e *executable) IsDeleted() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.deleted
}

func (e *executable) Delete() *ifrt.Future {
	e.mu.Lock()
	e.deleted = true
	cur, standIn := e.cur, e.standIn
	e.cur, e.standIn = nil, nil
	e.mu.Unlock()
	// Loads on lost workers went with them.
	if standIn != nil && standIn.link.current(standIn.gen) == nil {
		standIn.exe.Delete()
	}
	if cur == nil || cur.link.current(cur.gen) != nil {
		return nil
	}
	return cur.exe.Delete()
}

// loaded returns the program loaded on its own worker, loading it there again
// when the worker was lost and a new one has registered; DATA_LOSS while the
// worker is lost.
func (e *executable) loaded(ctx context.Context) (*load, error) {
	e.mu.Lock()
	cur := e.cur
	e.mu.Unlock()
	if cur != nil && e.link.current(cur.gen) == nil {
		return cur, nil
	}
	if _, _, _, err := e.link.session(); err != nil {
		return nil, err
	}
	e.loadMu.Lock()
	defer e.loadMu.Unlock()
	e.mu.Lock()
	cur, deleted := e.cur, e.deleted
	e.mu.Unlock()
	if deleted {
		return nil, ifrt.ErrExecutableDeleted
	}
	if cur != nil && e.link.current(cur.gen) == nil {
		return cur, nil // loaded while we waited
	}
	ld, err := e.loadOn(ctx, e.link)
	if err != nil {
		return nil, err
	}
	e.mu.Lock()
	if e.deleted {
		e.mu.Unlock()
		ld.exe.Delete()
		return nil, ifrt.ErrExecutableDeleted
	}
	e.cur = ld
	e.mu.Unlock()
	e.c.log.Info("program loaded again on a returned worker", "program", e.meta.Name(), "slice", e.link.key.slice, "host", e.link.key.host)
	return ld, nil
}

// Execute puts each argument together on the worker (its shards are already there),
// runs the program and splits every output back into per-device shards.
func (e *executable) Execute(ctx context.Context, args []ifrt.Array, opts *ifrt.ExecuteOptions) (_ *ifrt.ExecuteResult, err error) {
	ctx, span := startSpan(ctx, "cluster.Execute", attribute.String("executable", e.Name()))
	defer func() { rpc.EndSpan(span, err) }()
	arrays, err := e.c.executionArguments(e, args)
	if err != nil {
		return nil, err
	}
	// Arguments on a lost worker fail as DATA_LOSS before the program loads.
	for i, a := range arrays {
		if _, err := a.live(); err != nil {
			return nil, ifrt.Errorf(ifrt.CodeOf(err), "cluster: argument %d: %w", i, err)
		}
	}
	ld, err := e.loaded(ctx)
	if err != nil {
		return nil, err
	}
	client, _, _, err := e.link.session()
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
	if err := backend.CheckExecute("cluster", e, args, opts); err != nil {
		return nil, err
	}
	donated := donatedArguments(ld.exe, arrays, opts)
	for i, a := range arrays {
		if localArgs[i], err = e.localArray(ctx, client, ld, i, a, donated[i]); err != nil {
			return nil, e.c.linkError(e.link, ld.gen, err)
		}
		if donated[i] && len(a.Sharding().Devices()) > 1 {
			// Its shards went into the worker-side argument, which the program
			// consumes whether or not it runs.
			defer a.Delete()
		}
		if len(a.Sharding().Devices()) > 1 {
			assembled = append(assembled, localArgs[i])
		}
	}
	res, err := ld.exe.Execute(ctx, localArgs, opts)
	if err != nil {
		return nil, e.c.linkError(e.link, ld.gen, err)
	}
	outs := make([]ifrt.Array, len(res.Outputs))
	for i, o := range res.Outputs {
		if outs[i], err = e.globalArray(ctx, client, ld, o); err != nil {
			return nil, err
		}
	}
	// The worker says which worker-side arguments the program consumed; an
	// assembled argument consumed its shards whatever the program did.
	gone := slices.Clone(res.Donated)
	for i, a := range arrays {
		if donated[i] && len(a.Sharding().Devices()) > 1 && !slices.Contains(gone, i) {
			gone = append(gone, i)
		}
	}
	slices.Sort(gone)
	for _, i := range gone {
		arrays[i].Delete()
	}
	return &ifrt.ExecuteResult{Outputs: outs, Status: e.c.lossAware(res.Status, e.link, ld.gen), Donated: gone}, nil
}

// lossAware returns f, whose failure becomes DATA_LOSS when it came from the
// loss of l's worker (generation gen): an execution sent without waiting
// learns of it only from its status.
func (c *Client) lossAware(f *ifrt.Future, l *link, gen uint64) *ifrt.Future {
	if f == nil {
		return nil
	}
	out, resolve := ifrt.NewFuture()
	go func() { resolve(c.linkError(l, gen, f.Await(context.Background()))) }()
	return out
}

// executionArguments checks that the client is open and e not deleted, and
// returns args as the cluster's arrays.
func (c *Client) executionArguments(e ifrt.LoadedExecutable, args []ifrt.Array) ([]*array, error) {
	if err := c.checkOpen(); err != nil {
		return nil, err
	}
	if e.IsDeleted() {
		return nil, ifrt.ErrExecutableDeleted
	}
	return c.check().Arrays(args)
}

// donatedArguments says which arguments the execution donates, when the worker's
// program says which parameters it may donate: those not excluded by opts
// (backend.Donated; backend.CheckExecute has refused one passed twice). Their
// shards move into the worker-side arguments (a shard shared with another
// array could not be donated there).
func donatedArguments(exe ifrt.LoadedExecutable, arrays []*array, opts *ifrt.ExecuteOptions) []bool {
	donated := make([]bool, len(arrays))
	if !ifrt.ParametersKnown(exe) {
		return donated
	}
	for _, i := range backend.Donated(exe.DonatableParameters(), opts) {
		if i < len(donated) {
			donated[i] = true
		}
	}
	return donated
}

// localArray assembles argument i from its shards on the worker, with its sharding
// moved onto the worker's own devices; donate moves the shards into it.
func (e *executable) localArray(ctx context.Context, client interface {
	AssembleArray(context.Context, ifrt.ArraySpec, []ifrt.Array, ifrt.CopySemantics) (ifrt.Array, error)
}, ld *load, i int, a *array, donate bool) (ifrt.Array, error) {
	shards, err := a.live()
	if err != nil {
		return nil, ifrt.Errorf(ifrt.CodeOf(err), "cluster: argument %d: %w", i, err)
	}
	devs := make(ifrt.DeviceList, len(shards))
	parts := make([]ifrt.Array, len(shards))
	for k, s := range shards {
		pos := e.devices.Index(s.place.device.ID)
		if pos < 0 {
			return nil, ifrt.Errorf(ifrt.InvalidArgument, "cluster: argument %d has a shard on device %d, which %s does not run on", i, s.place.device.ID, e.Name())
		}
		devs[k], parts[k] = ld.local[pos], s.array
	}
	if len(shards) == 1 {
		return parts[0], nil
	}
	sharding, err := a.ArraySpec.Sharding.WithDevices(devs, a.ArraySpec.Sharding.MemoryKind())
	if err != nil {
		return nil, err
	}
	spec := a.ArraySpec
	spec.Sharding = sharding
	sem := ifrt.ReuseInput
	if donate {
		sem = ifrt.DonateInput
	}
	return client.AssembleArray(ctx, spec, parts, sem)
}

// globalArray splits an output on the worker into per-device shards of a cluster
// array whose sharding names the global devices.
func (e *executable) globalArray(ctx context.Context, client interface {
	DisassembleArray(context.Context, ifrt.Array, ifrt.CopySemantics) ([]ifrt.Array, error)
}, ld *load, o ifrt.Array) (ifrt.Array, error) {
	localDevs := o.Sharding().Devices()
	global := make(ifrt.DeviceList, len(localDevs))
	places := make([]*placement, len(localDevs))
	for k, d := range localDevs {
		pos := ld.local.Index(d.ID)
		if pos < 0 {
			return nil, ifrt.Errorf(ifrt.Internal, "cluster: an output is on worker device %d, outside the program's devices", d.ID)
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
			return nil, e.c.linkError(e.link, ld.gen, err)
		}
	}
	shards := make([]*shard, len(parts))
	for k, p := range parts {
		shards[k] = &shard{place: places[k], gen: ld.gen, array: p, domain: domains[k]}
	}
	return &array{c: e.c, Described: backend.Described{ArraySpec: spec}, shards: shards}, nil
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
		return nil, ifrt.Errorf(ifrt.InvalidArgument, "cluster: CompileOptions.XLA is not an xla.CompileOptionsProto: %v", err)
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
				return nil, ifrt.Errorf(ifrt.InvalidArgument, "cluster: the compile options assign device %d, which is not among the program's devices %v", id, global)
			}
			cd.ReplicaDeviceIds[r] = l
		}
	}
	out, err := proto.Marshal(&co)
	if err != nil {
		return nil, ifrt.Errorf(ifrt.Internal, "cluster: encoding compile options: %v", err)
	}
	return out, nil
}

// ProgramText is the program's text from the worker it was compiled on.
func (e *executable) ProgramText() (string, error) {
	pt, ok := e.meta.(ifrt.ProgramTexter)
	if !ok {
		return "", ifrt.Errorf(ifrt.Unimplemented, "cluster: the worker's executable has no program text")
	}
	return pt.ProgramText()
}

// CostAnalysis is the cost estimate of the worker's backend.
func (e *executable) CostAnalysis() (ifrt.Attributes, error) {
	ca, ok := e.meta.(ifrt.CostAnalyzer)
	if !ok {
		return nil, ifrt.Errorf(ifrt.Unimplemented, "cluster: the worker's executable has no cost analysis")
	}
	return ca.CostAnalysis()
}

// CompiledMemoryStats is the memory analysis of the worker's backend.
func (e *executable) CompiledMemoryStats() (ifrt.CompiledMemoryStats, error) {
	ma, ok := e.meta.(ifrt.MemoryAnalyzer)
	if !ok {
		return ifrt.CompiledMemoryStats{}, ifrt.Errorf(ifrt.Unimplemented, "cluster: the worker's executable has no memory analysis")
	}
	return ma.CompiledMemoryStats()
}
