package worker

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"sync"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/ifrt/gocpu"
	"github.com/openpathways/pathways/internal/rpc"
	"github.com/openpathways/pathways/internal/xlapb"
	"github.com/openpathways/pathways/worker/workerpb"
)

// gang serves the Gang service: programs whose partitions run on several
// workers. The worker runs its own partitions of each launch as gocpu
// processes (gocpu.GangExecutable; on the backend itself when it is gocpu,
// through host memory otherwise, see partitionRunner), connected to the
// others by a gangLaunch: in process for partitions of this worker, over
// Exchange streams for partitions of other workers.
type gang struct {
	workerpb.UnimplementedGangServer
	w        *Server
	runner   partitionRunner
	launches *launches
	order    *sequencer

	mu       sync.Mutex
	programs map[programKey]*gangProgram
}

type programKey struct {
	session uint64
	id      uint64
}

func newGang(w *Server) *gang {
	return &gang{w: w, runner: newPartitionRunner(w), launches: newLaunches(), order: newSequencer(w.log), programs: map[programKey]*gangProgram{}}
}

func (g *gang) Compile(ctx context.Context, req *workerpb.GangCompileRequest) (*workerpb.GangCompileResponse, error) {
	return unary(ctx, g.w, "gang", "Gang/Compile", req, g.compile)
}

func (g *gang) compile(ctx context.Context, req *workerpb.GangCompileRequest) (*workerpb.GangCompileResponse, error) {
	if err := g.w.proxy.CheckSessionBytes(req.GetSessionId(), req.GetSessionToken(), 0); err != nil {
		return nil, err
	}
	prog, err := g.runner.compile(ctx, req.GetModule())
	if err != nil {
		return nil, err
	}
	kept := false
	defer func() {
		if !kept {
			prog.release()
		}
	}()
	resp := &workerpb.GangCompileResponse{ProgramId: rand.Uint64(), Name: prog.Name(), NumPartitions: int32(prog.NumPartitions())}
	for _, i := range prog.DonatableParameters() {
		resp.Donatable = append(resp.Donatable, int32(i))
	}
	if cost, err := prog.CostAnalysis(); err == nil {
		resp.CostAnalysis = map[string]float64{}
		for k, v := range cost {
			if f, ok := v.(float64); ok {
				resp.CostAnalysis[k] = f
			}
		}
	}
	if stats, err := prog.CompiledMemoryStats(); err == nil {
		resp.CompiledMemoryStats = xlapb.NewCompiledMemoryStats(stats)
	}
	if resp.Parameters, err = wireArguments(prog.Parameters()); err != nil {
		return nil, err
	}
	if resp.Outputs, err = wireArguments(prog.Outputs()); err != nil {
		return nil, err
	}
	done, err := g.w.proxy.SessionDone(req.GetSessionId(), req.GetSessionToken())
	if err != nil {
		return nil, err
	}
	key := programKey{req.GetSessionId(), resp.ProgramId}
	g.mu.Lock()
	g.programs[key] = prog
	g.mu.Unlock()
	kept = true
	// The program goes with its session, as the session's executables do.
	go func() {
		select {
		case <-done:
		case <-g.w.stopped():
		}
		g.drop(key)
	}()
	return resp, nil
}

func wireArguments(infos []ifrt.ArgumentInfo) ([]*workerpb.GangArgument, error) {
	out := make([]*workerpb.GangArgument, len(infos))
	for i, info := range infos {
		out[i] = &workerpb.GangArgument{Dtype: int32(info.DType), Shape: info.Shape}
		if info.OpSharding != nil {
			b, err := json.Marshal(info.OpSharding)
			if err != nil {
				return nil, ifrt.Errorf(ifrt.Internal, "worker: encoding a sharding: %v", err)
			}
			out[i].OpShardingJson = b
		}
	}
	return out, nil
}

func (g *gang) Release(ctx context.Context, req *workerpb.GangReleaseRequest) (*workerpb.GangReleaseResponse, error) {
	if err := g.w.proxy.CheckSessionBytes(req.GetSessionId(), req.GetSessionToken(), 0); err != nil {
		return nil, rpc.ToStatus(err)
	}
	g.drop(programKey{req.GetSessionId(), req.GetProgramId()})
	return &workerpb.GangReleaseResponse{}, nil
}

// drop forgets a program and frees what it holds on the backend.
func (g *gang) drop(key programKey) {
	g.mu.Lock()
	p := g.programs[key]
	delete(g.programs, key)
	g.mu.Unlock()
	if p != nil {
		p.release()
	}
}

func (g *gang) program(session, id uint64) (*gangProgram, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	p, ok := g.programs[programKey{session, id}]
	if !ok {
		return nil, ifrt.Errorf(ifrt.NotFound, "worker: session %d has no gang program %d", session, id)
	}
	return p, nil
}

func (g *gang) Launch(ctx context.Context, req *workerpb.LaunchRequest) (*workerpb.LaunchResponse, error) {
	return unary(ctx, g.w, "gang", "Gang/Launch", req, g.launch)
}

func (g *gang) launch(ctx context.Context, req *workerpb.LaunchRequest) (_ *workerpb.LaunchResponse, err error) {
	sid, token := req.GetSessionId(), req.GetSessionToken()
	waited := false
	defer func() {
		if !waited {
			g.order.release(req.GetSequencerIncarnation(), req.GetSequence())
		}
	}()
	if hs := req.GetReleaseHandles(); len(hs) > 0 {
		// Whatever becomes of the launch: the client counts them gone.
		if err := g.w.proxy.DestructSessionArrays(ctx, sid, token, hs, req.GetAfterOpId()); err != nil {
			g.w.log.Debug("releasing arrays a launch carried", "launch", req.GetLaunchId(), "error", err)
		}
	}
	done, err := g.w.proxy.Admit() // refused while the slice is suspended
	if err != nil {
		return nil, err
	}
	defer done()
	prog, err := g.program(sid, req.GetProgramId())
	if err != nil {
		return nil, err
	}
	n := prog.NumPartitions()
	if len(req.GetPartitionWorkers()) != n {
		return nil, ifrt.Errorf(ifrt.InvalidArgument, "worker: %s has %d partitions, the launch names workers for %d", prog.Name(), n, len(req.GetPartitionWorkers()))
	}
	parts := make([]gocpu.GangPart, len(req.GetPartitions()))
	local := map[int]bool{}
	for i, lp := range req.GetPartitions() {
		p := int(lp.GetPartition())
		if p < 0 || p >= n || local[p] {
			return nil, ifrt.Errorf(ifrt.InvalidArgument, "worker: partition %d is outside the program's %d or named twice", p, n)
		}
		local[p] = true
		if len(lp.GetArguments()) != len(prog.Parameters()) || len(lp.GetOutputs()) != len(prog.Outputs()) {
			return nil, ifrt.Errorf(ifrt.InvalidArgument, "worker: partition %d has %d arguments and %d outputs; %s takes %d and makes %d",
				p, len(lp.GetArguments()), len(lp.GetOutputs()), prog.Name(), len(prog.Parameters()), len(prog.Outputs()))
		}
		dev, err := g.w.cfg.Backend.LookupDevice(ifrt.DeviceID(lp.GetDeviceId()))
		if err != nil {
			return nil, err
		}
		parts[i] = gocpu.GangPart{Partition: p, Device: dev, Args: make([]ifrt.Array, len(lp.GetArguments()))}
		for k, h := range lp.GetArguments() {
			if parts[i].Args[k], err = g.w.proxy.SessionArray(ctx, sid, token, h, req.GetAfterOpId()); err != nil {
				return nil, fmt.Errorf("worker: argument %d of partition %d: %w", k, p, err)
			}
		}
	}
	if err := g.order.wait(ctx, req.GetSequencerIncarnation(), req.GetSequence()); err != nil {
		return nil, err
	}
	waited = true
	l := g.launches.join(req.GetLaunchId(), false)
	defer g.launches.leave(l)
	if err := l.start(g.w, req.GetPartitionWorkers(), local); err != nil {
		return nil, err
	}

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-l.failed:
			cancel()
		case <-ctx.Done():
		}
	}()
	for i := range parts {
		parts[i].Comm = l.endpoint(ctx, parts[i].Partition)
	}
	outs, err := g.runner.run(ctx, prog, parts, groupsOf(prog, req.GetPartitionWorkers()))
	sent, closeErr := l.closeStreams()
	if err != nil || closeErr != nil {
		for _, o := range outs {
			deleteAll(o)
		}
		if cause := l.cause(); cause != nil {
			return nil, cause // what ended the launch everywhere, not its echo here
		}
		if err == nil {
			err = closeErr
		}
		return nil, err
	}
	var first error
	for i, lp := range req.GetPartitions() {
		for k, h := range lp.GetOutputs() {
			if err := g.w.proxy.AddSessionArray(sid, token, h, outs[i][k]); err != nil {
				outs[i][k].Delete()
				first = err
			}
		}
	}
	if first != nil {
		return nil, first
	}
	return &workerpb.LaunchResponse{SentBytes: sent}, nil
}

// groupsOf groups a launch's partitions by worker (an index per address
// in partition order) for a program the workers run once each
// (GangExecutable.Grouped), nil for one whose partitions run apart.
func groupsOf(prog *gangProgram, workers []string) []int {
	if !prog.Grouped() {
		return nil
	}
	index := map[string]int{}
	group := make([]int, len(workers))
	for p, addr := range workers {
		if _, ok := index[addr]; !ok {
			index[addr] = len(index)
		}
		group[p] = index[addr]
	}
	return group
}

func deleteAll(as []ifrt.Array) {
	for _, a := range as {
		if a != nil {
			a.Delete()
		}
	}
}
