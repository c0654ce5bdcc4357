package cluster

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/ifrt/backend"
	"github.com/openpathways/pathways/internal/rpc"
	"github.com/openpathways/pathways/proxy"
	"github.com/openpathways/pathways/rm"
	"github.com/openpathways/pathways/worker/workerpb"
)

// gangExecutable is a program whose devices belong to several workers: it is
// compiled on every worker that owns one of its devices (partition p runs on
// the executable's device p) and launched on all of them together, with one
// launch id; each worker runs its partitions on its own shards of the
// arguments and keeps its shards of the outputs. Launches start on each
// worker in the order of the resource manager's sequence numbers, and a
// launch that fails anywhere fails everywhere (see docs/cluster.md).
type gangExecutable struct {
	ifrt.UnimplementedExecutable
	c       *Client
	module  []byte
	devices ifrt.DeviceList
	places  []*placement
	links   []*link // the participants, in (slice, host) order
	name    string
	params  []ifrt.ArgumentInfo
	outputs []ifrt.ArgumentInfo
	donate  []int
	cost    ifrt.Attributes           // the first worker's estimate, nil for none
	memory  *ifrt.CompiledMemoryStats // the first worker's estimate, nil for none

	mu      sync.Mutex
	loads   map[*link]gangLoad // the program on each participant
	deleted bool
}

// gangLoad is the program compiled on one worker, under a link generation.
type gangLoad struct {
	gen uint64
	id  uint64
}

// compileGang compiles program on every worker owning one of opts.Devices.
func (c *Client) compileGang(ctx context.Context, program ifrt.Program, devices ifrt.DeviceList, places []*placement) (ifrt.LoadedExecutable, error) {
	p, ok := program.(*ifrt.MLIRProgram)
	if !ok {
		return nil, ifrt.Errorf(ifrt.Unimplemented, "cluster: a %T cannot run across workers; only StableHLO modules can", program)
	}
	e := &gangExecutable{c: c, module: p.Module, devices: devices, places: places, loads: map[*link]gangLoad{}}
	for _, pl := range places {
		if !slices.Contains(e.links, pl.link) {
			e.links = append(e.links, pl.link)
		}
	}
	slices.SortFunc(e.links, func(a, b *link) int {
		if a.key.slice != b.key.slice {
			return a.key.slice - b.key.slice
		}
		return a.key.host - b.key.host
	})
	if err := e.loadAll(ctx); err != nil {
		e.Delete()
		return nil, err
	}
	return e, nil
}

// gangSession is a link's worker session and its Gang service.
func (l *link) gangSession() (*proxy.Client, workerpb.GangClient, uint64, error) {
	client, _, gen, err := l.session()
	if err != nil {
		return nil, nil, gen, err
	}
	l.mu.Lock()
	conn := l.conn
	l.mu.Unlock()
	if conn == nil {
		return nil, nil, gen, l.current(gen)
	}
	return client, workerpb.NewGangClient(conn), gen, nil
}

// loadAll compiles the program on every participant that does not hold it
// under its current link generation.
func (e *gangExecutable) loadAll(ctx context.Context) error {
	return parallel(len(e.links), func(i int) error {
		l := e.links[i]
		e.mu.Lock()
		ld, ok := e.loads[l]
		e.mu.Unlock()
		if ok && l.current(ld.gen) == nil {
			return nil
		}
		e.c.freshenIfDown(l)
		return e.loadOn(ctx, l)
	})
}

func (e *gangExecutable) loadOn(ctx context.Context, l *link) error {
	client, gang, gen, err := l.gangSession()
	if err != nil {
		return err
	}
	resp, err := gang.Compile(ctx, &workerpb.GangCompileRequest{SessionId: client.SessionID(), SessionToken: client.SessionToken(), Module: e.module})
	if err != nil {
		return e.c.linkError(l, gen, rpc.FromStatus(err))
	}
	if int(resp.GetNumPartitions()) != len(e.devices) {
		return ifrt.Errorf(ifrt.InvalidArgument, "cluster: the program has %d partitions but is compiled for %d devices", resp.GetNumPartitions(), len(e.devices))
	}
	params, err := argumentInfosFromWire(resp.GetParameters())
	if err != nil {
		return err
	}
	outputs, err := argumentInfosFromWire(resp.GetOutputs())
	if err != nil {
		return err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.name == "" {
		e.name, e.params, e.outputs = resp.GetName(), params, outputs
		for _, i := range resp.GetDonatable() {
			e.donate = append(e.donate, int(i))
		}
		if cost := resp.GetCostAnalysis(); len(cost) > 0 {
			e.cost = ifrt.Attributes{}
			for k, v := range cost {
				e.cost[k] = v
			}
		}
		if m := resp.GetCompiledMemoryStats(); m != nil {
			stats := m.Stats()
			e.memory = &stats
		}
	}
	e.loads[l] = gangLoad{gen: gen, id: resp.GetProgramId()}
	return nil
}

func argumentInfosFromWire(args []*workerpb.GangArgument) ([]ifrt.ArgumentInfo, error) {
	out := make([]ifrt.ArgumentInfo, len(args))
	for i, a := range args {
		d := ifrt.DType(a.GetDtype())
		if !d.Valid() {
			return nil, ifrt.Errorf(ifrt.Internal, "cluster: a worker described a gang program argument of dtype %d", a.GetDtype())
		}
		out[i] = ifrt.ArgumentInfo{DType: d, Shape: ifrt.Shape(a.GetShape())}
		if len(a.GetOpShardingJson()) > 0 {
			var op ifrt.OpSharding
			if err := json.Unmarshal(a.GetOpShardingJson(), &op); err != nil {
				return nil, ifrt.Errorf(ifrt.Internal, "cluster: a worker described a sharding the client cannot read: %v", err)
			}
			out[i].OpSharding = &op
		}
	}
	return out, nil
}

// CostAnalysis is the workers' estimate of one device's share of a run.
func (e *gangExecutable) CostAnalysis() (ifrt.Attributes, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.cost == nil {
		return nil, ifrt.Errorf(ifrt.Unimplemented, "cluster: the workers made no cost analysis of %s", e.name)
	}
	return maps.Clone(e.cost), nil
}

// CompiledMemoryStats is the workers' estimate of what one device holds
// while its partition runs.
func (e *gangExecutable) CompiledMemoryStats() (ifrt.CompiledMemoryStats, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.memory == nil {
		return ifrt.CompiledMemoryStats{}, ifrt.Errorf(ifrt.Unimplemented, "cluster: the workers made no memory analysis of %s", e.name)
	}
	return *e.memory, nil
}

func (e *gangExecutable) Name() string                    { return e.name }
func (e *gangExecutable) Fingerprint() string             { return "" }
func (e *gangExecutable) Devices() ifrt.DeviceList        { return e.devices }
func (e *gangExecutable) Parameters() []ifrt.ArgumentInfo { return e.params }
func (e *gangExecutable) Outputs() []ifrt.ArgumentInfo    { return e.outputs }
func (e *gangExecutable) DonatableParameters() []int      { return e.donate }
func (e *gangExecutable) As(any) bool                     { return false }

func (e *gangExecutable) IsDeleted() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.deleted
}

// Delete frees the program on every worker that holds it.
func (e *gangExecutable) Delete() *ifrt.Future {
	e.mu.Lock()
	e.deleted = true
	loads := e.loads
	e.loads = map[*link]gangLoad{}
	e.mu.Unlock()
	for l, ld := range loads {
		client, gang, gen, err := l.gangSession()
		if err != nil || gen != ld.gen {
			continue // it went with its worker
		}
		// Best effort: a worker that cannot be told frees the program with the session.
		_, _ = gang.Release(context.Background(), &workerpb.GangReleaseRequest{SessionId: client.SessionID(), SessionToken: client.SessionToken(), ProgramId: ld.id})
	}
	return ifrt.ReadyFuture(nil)
}

// sharding places value info over the program's devices.
func (e *gangExecutable) sharding(info ifrt.ArgumentInfo) (ifrt.Sharding, error) {
	op := ifrt.Replicated()
	if info.OpSharding != nil {
		op = *info.OpSharding
	}
	return ifrt.NewHloSharding(e.devices, "", op)
}

// participant is one worker's part of a launch.
type participant struct {
	link   *link
	client *proxy.Client
	gang   workerpb.GangClient
	gen    uint64
	req    *workerpb.LaunchRequest
}

// Execute launches the program on all its workers and returns outputs whose
// shards stay on the workers that computed them.
func (e *gangExecutable) Execute(ctx context.Context, args []ifrt.Array, opts *ifrt.ExecuteOptions) (_ *ifrt.ExecuteResult, err error) {
	ctx, span := startSpan(ctx, "cluster.GangExecute", attribute.String("executable", e.Name()), attribute.Int("workers", len(e.links)))
	defer func() { rpc.EndSpan(span, err) }()
	c := e.c
	defer func() { err = c.suspendedError(err, e.links) }()
	if err := c.checkOpen(); err != nil {
		return nil, err
	}
	if e.IsDeleted() {
		return nil, ifrt.ErrExecutableDeleted
	}
	arrays, err := c.check().Arrays(args)
	if err != nil {
		return nil, err
	}
	if err := backend.CheckExecute("cluster", e, args, opts); err != nil {
		return nil, err
	}
	if err := e.loadAll(ctx); err != nil {
		return nil, err
	}
	parts := map[*link]*participant{}
	launchID := rand.Uint64()
	workers := make([]string, len(e.devices))
	for _, l := range e.links {
		client, gang, gen, err := l.gangSession()
		if err != nil {
			return nil, err
		}
		e.mu.Lock()
		ld := e.loads[l]
		e.mu.Unlock()
		if ld.gen != gen {
			return nil, l.current(ld.gen)
		}
		parts[l] = &participant{link: l, client: client, gang: gang, gen: gen, req: &workerpb.LaunchRequest{
			SessionId: client.SessionID(), SessionToken: client.SessionToken(), ProgramId: ld.id,
			LaunchId: launchID, PartitionWorkers: workers,
		}}
	}
	for p, pl := range e.places {
		workers[p] = pl.link.address()
	}
	// Each partition's blocks of the arguments, and handles for its outputs.
	blocks := make([][]ifrt.IndexDomain, len(arrays))
	held := make([][]*shard, len(arrays))
	for i, a := range arrays {
		s, err := e.sharding(e.params[i])
		if err != nil {
			return nil, err
		}
		if blocks[i], err = s.IndexDomains(a.ArraySpec.Shape); err != nil {
			return nil, err
		}
		if held[i], err = a.live(); err != nil {
			return nil, ifrt.Errorf(ifrt.CodeOf(err), "cluster: argument %d: %w", i, err)
		}
	}
	var temps []*shard // blocks gathered for this launch
	defer func() {
		for _, s := range temps {
			s.array.Delete()
		}
	}()
	outHandles := make([][]proxy.ArrayHandle, len(e.devices))
	for p, pl := range e.places {
		pt := parts[pl.link]
		dev, err := pl.link.localDevice(pt.client, pl.local)
		if err != nil {
			return nil, err
		}
		lp := &workerpb.LocalPartition{Partition: int32(p), DeviceId: int32(dev.ID)}
		for i, a := range arrays {
			s, err := e.block(ctx, a, held[i], p, blocks[i][p], &temps)
			if err != nil {
				return nil, err
			}
			var h proxy.ArrayHandle
			if !s.array.As(&h) {
				return nil, ifrt.Errorf(ifrt.Internal, "cluster: a shard of argument %d has no proxy handle", i)
			}
			lp.Arguments = append(lp.Arguments, uint64(h))
		}
		for range e.outputs {
			h, err := pt.client.ReserveHandle()
			if err != nil {
				return nil, err
			}
			outHandles[p] = append(outHandles[p], h)
			lp.Outputs = append(lp.Outputs, uint64(h))
		}
		pt.req.Partitions = append(pt.req.Partitions, lp)
	}
	if err := e.launch(ctx, parts); err != nil {
		return nil, err
	}
	outs := make([]ifrt.Array, len(e.outputs))
	for k, info := range e.outputs {
		s, err := e.sharding(info)
		if err != nil {
			return nil, err
		}
		domains, err := s.IndexDomains(info.Shape)
		if err != nil {
			return nil, err
		}
		shards := make([]*shard, len(e.devices))
		for p, pl := range e.places {
			pt := parts[pl.link]
			dev, _ := pl.link.localDevice(pt.client, pl.local)
			a := pt.client.AdoptArray(outHandles[p][k], localSpec(info.DType, domains[p], dev, ""))
			shards[p] = &shard{place: pl, gen: pt.gen, array: a, domain: domains[p]}
		}
		outs[k] = &array{c: c, Described: backend.Described{ArraySpec: ifrt.ArraySpec{DType: info.DType, Shape: info.Shape, Sharding: s}}, shards: shards, computed: true}
	}
	// Donated arguments are consumed: their shards are freed on the workers.
	var gone []int
	for i, donated := range donatedArguments(e, arrays, opts) {
		if donated {
			arrays[i].Delete()
			gone = append(gone, i)
		}
	}
	res := &ifrt.ExecuteResult{Outputs: outs, Donated: gone}
	if opts != nil && opts.FillStatus {
		res.Status = ifrt.ReadyFuture(nil)
	}
	return res, nil
}

// block returns argument a's block domain for partition p, on the worker of
// p's device: its shard there (among shards, a's live ones) when it holds
// exactly that block, else one gathered for this launch (kept in temps).
func (e *gangExecutable) block(ctx context.Context, a *array, shards []*shard, p int, domain ifrt.IndexDomain, temps *[]*shard) (*shard, error) {
	for _, s := range shards {
		if s.place == e.places[p] && slices.Equal(s.domain, domain) {
			return s, nil
		}
	}
	s, err := e.c.gather(ctx, a.ArraySpec.DType, e.places[p], domain, a.ArraySpec.Sharding.MemoryKind(), shards)
	if err != nil {
		return nil, err
	}
	*temps = append(*temps, s)
	return s, nil
}

// launch takes sequence numbers for the participants and runs the launch on
// all of them. The first failure cancels the others; the error names what
// failed, as DATA_LOSS when a participant was lost.
func (e *gangExecutable) launch(ctx context.Context, parts map[*link]*participant) error {
	hosts := make([]rm.HostRef, len(e.links))
	for i, l := range e.links {
		hosts[i] = rm.HostRef{Slice: l.key.slice, Host: l.key.host}
	}
	seqs, incs, err := e.c.rm.Sequence(ctx, hosts)
	if err != nil {
		if ifrt.CodeOf(err) == ifrt.FailedPrecondition {
			// A participant's worker is not live: its data is gone.
			return ifrt.Errorf(ifrt.DataLoss, "cluster: a worker of the program is lost: %w", err)
		}
		return err
	}
	errs := make([]error, len(e.links))
	streams := make([]*launchStream, len(e.links))
	results := make(chan launchOutcome, len(e.links))
	for i, l := range e.links {
		pt := parts[l]
		pt.req.Sequence, pt.req.SequencerIncarnation = seqs[i], incs[i]
		s, err := e.c.launchers.stream(pt.client, pt.gang)
		if err != nil {
			results <- launchOutcome{i, err}
			continue
		}
		streams[i] = s
		// A launch travels apart from the session's stream, so it may overtake
		// the requests that make its arguments (an execution just sent, a
		// gathered block): each worker looks them up once its session has
		// taken those. The arrays the client dropped since its last request
		// there go along, destructed at the same point (one message, where the
		// session's stream would carry a request and its answer).
		released, after := pt.client.TakeDestructs()
		pt.req.AfterOpId = after
		pt.req.ReleaseHandles = make([]uint64, len(released))
		for k, h := range released {
			pt.req.ReleaseHandles[k] = uint64(h)
		}
		if !s.start(ctx, pt.req, launchWaiter{index: i, results: results}) {
			pt.client.Destruct(released...)
		}
	}
	// The first failure that is not an echo of another's, or the end of
	// ctx, cancels the launch on the participants that have not answered.
	launchID := parts[e.links[0]].req.GetLaunchId()
	answered := make([]bool, len(e.links))
	// An ABORTED answer echoes another participant's failure, whose own
	// answer (with the failure's code) is on its way: wait for it. So does
	// a DATA_LOSS from a participant that is still there: it saw a partner
	// end its exchange, which a partner whose program failed does too; a
	// partner really lost is known from its own answer. Any other failure
	// ends the wait.
	echoes := make([]bool, len(e.links))
	echo := func(err error) bool { c := ifrt.CodeOf(err); return c == ifrt.Canceled || c == ifrt.Aborted }
	take := func(r launchOutcome) bool {
		answered[r.index] = true
		if r.err == nil {
			return true
		}
		if err := ended(ctx); err != nil {
			// The worker's echo of the client's deadline or cancellation.
			errs[r.index], echoes[r.index] = err, echo(err)
			return false
		}
		l := e.links[r.index]
		errs[r.index] = e.c.linkError(l, parts[l].gen, r.err)
		echoes[r.index] = echo(errs[r.index]) || ifrt.CodeOf(errs[r.index]) == ifrt.DataLoss && l.current(parts[l].gen) == nil
		return false
	}
	ok := true
wait:
	for left := len(e.links); left > 0; left-- {
		select {
		case r := <-results:
			if !take(r) {
				ok = false
				if !echoes[r.index] {
					break wait
				}
			}
		case <-ctx.Done():
			ok = false
			break wait
		}
	}
	if !ok {
		for drained := false; !drained; {
			select {
			case r := <-results:
				take(r)
			default:
				drained = true
			}
		}
		for i, s := range streams {
			if answered[i] {
				continue
			}
			if s != nil {
				s.cancel(launchID)
			}
			errs[i] = ctx.Err()
			if errs[i] == nil {
				errs[i] = ifrt.Errorf(ifrt.Canceled, "cluster: launch of %s cancelled: another participant failed", e.name)
			}
			echoes[i] = echo(errs[i])
		}
	}
	// A lost participant explains the others' failures; then the first
	// failure that is not another's echo.
	for i, l := range e.links {
		if errs[i] != nil && l.current(parts[l].gen) != nil {
			return ifrt.Errorf(ifrt.DataLoss, "cluster: launch of %s failed: %w", e.name, l.current(parts[l].gen))
		}
	}
	var first error
	firstEcho := false
	for i, err := range errs {
		if err != nil && (first == nil || firstEcho && !echoes[i]) {
			first, firstEcho = err, echoes[i]
		}
	}
	if first != nil {
		if ifrt.CodeOf(first) == ifrt.DataLoss || ifrt.CodeOf(first) == ifrt.Unavailable {
			return ifrt.Errorf(ifrt.DataLoss, "cluster: launch of %s failed on a lost participant: %w", e.name, first)
		}
		return fmt.Errorf("cluster: launch of %s: %w", e.name, first)
	}
	return nil
}

// ended is ctx's error, or DeadlineExceeded once its deadline has passed
// even if its timer has not fired yet (a worker's timer may fire first).
func ended(ctx context.Context) error {
	if d, ok := ctx.Deadline(); ok && !time.Now().Before(d) {
		return context.DeadlineExceeded
	}
	return ctx.Err()
}
