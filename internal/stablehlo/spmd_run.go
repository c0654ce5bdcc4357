package stablehlo

import (
	"context"
	"errors"
	"maps"
	"runtime/debug"
	"slices"
	"sync"
)

// maxProcesses bounds the replica × partition grid a module may run on.
const maxProcesses = 1 << 12

// numProcesses is num_replicas × num_partitions, or -1 when either is out
// of range.
func (m *Module) numProcesses() int {
	R, P := m.numReplicas, m.numPartitions
	if R < 1 || P < 1 || R > maxProcesses || P > maxProcesses || R*P > maxProcesses {
		return -1
	}
	return R * P
}

// shardedValue is a global value of type t of which this process holds the
// block local, as pl places it.
type shardedValue struct {
	local *array
	pl    *placement
	t     TensorType
}

// RunProcess runs @main as process p of the program's replica × partition
// grid. args are the process's blocks of the arguments: a parameter with a
// sharding gets the block its partition holds, one without gets the whole
// value; results come back the same way. Collectives exchange data with the
// other processes through p.Comm, as do the boundaries of manual regions
// (shard_map) whose blocks do not line up with the values around them
// (their global value is assembled there, the simple and correct strategy
// for the parts of a program outside manual regions). A program without
// manual regions thus runs its global computation in every process.
//
// RunProcess calls p.Comm.Done exactly once before it returns, with the
// error it returns (nil on success). It never panics.
func (m *Module) RunProcess(ctx context.Context, p Process, args []*Tensor) (out []*Tensor, err error) {
	defer func() {
		if r := recover(); r != nil {
			out = nil
			err = internalf("interpreter failure: %v\n%s", r, debug.Stack())
		}
		if p.Comm != nil {
			p.Comm.Done(err)
		}
	}()
	if m.unsupported != nil {
		return nil, m.unsupported
	}
	n := m.numProcesses()
	if n < 0 {
		return nil, unimplementedf("a grid of %d replicas × %d partitions is not supported", m.numReplicas, m.numPartitions)
	}
	if p.Replica < 0 || p.Replica >= m.numReplicas || p.Partition < 0 || p.Partition >= m.numPartitions {
		return nil, invalidf("process (%d, %d) is outside the %d × %d grid", p.Replica, p.Partition, m.numReplicas, m.numPartitions)
	}
	if p.Comm == nil && n > 1 {
		return nil, invalidf("process (%d, %d) of %d needs a Communicator", p.Replica, p.Partition, n)
	}
	if m.placingErr != nil {
		return nil, m.placingErr
	}
	f := m.main
	pls := m.paramPls
	in, err := decodeArgs(f, args, func(i int) TensorType { return pls[i].localType(f.params[i].Type, p.Partition) })
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	ev := &evaluator{ctx: ctx, mod: m, proc: &procState{Process: p, id: p.Replica*m.numPartitions + p.Partition}}
	vals := make([]*shardedValue, len(in))
	for i, a := range in {
		vals[i] = &shardedValue{local: a, pl: pls[i], t: f.params[i].Type}
	}
	res, err := ev.runMain(vals)
	if err != nil {
		return nil, err
	}
	blocks := make([]*array, len(res))
	for k, v := range res {
		if blocks[k], err = ev.blockOf(v, m.resultPls[k]); err != nil {
			return nil, err
		}
	}
	return encodeResults(blocks), nil
}

// runMain runs @main's body on blocks of its arguments. Values stay blocks
// while only manual regions and the results read them; any other op gets
// the assembled global value.
func (ev *evaluator) runMain(args []*shardedValue) ([]*shardedValue, error) {
	f := ev.mod.main
	r := f.body
	ev.depth++
	ev.frame = make([]*array, f.numSlots)
	lazy := map[int]*shardedValue{} // slots held only as blocks so far
	bind := func(s int, v *shardedValue) {
		if v.pl.replicated() {
			ev.frame[s] = v.local
		} else {
			lazy[s], ev.frame[s] = v, nil
		}
	}
	global := func(s int) (*array, error) {
		if ev.frame[s] == nil && lazy[s] != nil {
			g, err := ev.assemble(lazy[s])
			if err != nil {
				return nil, err
			}
			ev.frame[s] = g
		}
		return ev.frame[s], nil
	}
	// block supplies a manual region's operand: the block this process
	// holds when it is placed alike, else a cut of the global value.
	block := func(op *operation) func(i int, pl *placement) (*array, error) {
		return func(i int, pl *placement) (*array, error) {
			s := op.operands[i]
			if v := lazy[s]; v != nil && v.pl.same(pl) {
				return v.local, nil
			}
			g, err := global(s)
			if err != nil {
				return nil, err
			}
			start, limit := pl.block(ev.proc.Partition)
			return sliceBlock(g, start, limit), nil
		}
	}
	for i, s := range r.args {
		bind(s, args[i])
	}
	var in []*array
	for _, op := range r.ops {
		if (isFullToShard(op) || isShardToFull(op) || op.Name == "stablehlo.custom_call" && op.callee == "Sharding") &&
			(len(op.operands) != 1 || len(op.results) != 1 || len(op.resultTypes) != 1) {
			return nil, opError(op, invalidf("@%s takes one operand and has one result", op.callee))
		}
		switch {
		case op.Name == "sdy.manual_computation":
			vals, err := ev.runManualComputation(op, block(op))
			if err != nil {
				return nil, opError(op, err)
			}
			for j, v := range vals {
				bind(op.results[j], v)
			}
			continue
		case isFullToShard(op):
			if op.manual == nil || op.manual.err != nil {
				return nil, opError(op, manualErr(op))
			}
			b, err := ev.enterManual(op, []*HloSharding{op.manual.sharding}, block(op))
			if err != nil {
				return nil, opError(op, err)
			}
			if !b[0].t.Equal(op.resultTypes[0]) {
				return nil, opError(op, invalidf("this partition's block is %s, the op declares %s", b[0].t, op.resultTypes[0]))
			}
			b[0].markShared()
			ev.frame[op.results[0]] = b[0]
			continue
		case isShardToFull(op):
			v, err := ev.shardToFull(op, ev.frame[op.operands[0]])
			if err != nil {
				return nil, opError(op, err)
			}
			bind(op.results[0], v)
			continue
		case op.Name == "stablehlo.custom_call" && op.callee == "Sharding" && lazy[op.operands[0]] != nil:
			lazy[op.results[0]] = lazy[op.operands[0]]
			ev.frame[op.results[0]] = ev.frame[op.operands[0]]
			continue
		}
		uses := map[int]bool{}
		for _, sub := range op.regions {
			collectUses(sub, uses) // values the regions capture from @main
		}
		for _, s := range op.operands {
			uses[s] = true
		}
		// In slot order, so that every process assembles the same values
		// in the same order (the assembly's exchanges must pair up).
		for _, s := range slices.Sorted(maps.Keys(uses)) {
			if _, err := global(s); err != nil {
				return nil, opError(op, err)
			}
		}
		in = in[:0]
		for _, s := range op.operands {
			in = append(in, ev.frame[s])
		}
		if err := ev.runOp(op, in); err != nil {
			return nil, err
		}
	}
	if len(r.rets) != len(f.results) {
		return nil, invalidf("@main returns %d values, declares %d", len(r.rets), len(f.results))
	}
	out := make([]*shardedValue, len(r.rets))
	for k, s := range r.rets {
		t := f.results[k].Type
		if v := lazy[s]; v != nil {
			if !v.t.Equal(t) {
				return nil, invalidf("@main result %d does not have the declared type %s", k, t)
			}
			out[k] = v
			continue
		}
		if v := ev.frame[s]; v == nil || !v.t.Equal(t) {
			return nil, invalidf("@main result %d does not have the declared type %s", k, t)
		}
		out[k] = &shardedValue{local: ev.frame[s], pl: replicatedPlacement(t.Shape, ev.mod.numPartitions), t: t}
	}
	return out, nil
}

// blockOf returns this process's block of v as want places it.
func (ev *evaluator) blockOf(v *shardedValue, want *placement) (*array, error) {
	if v.local == nil {
		return nil, internalf("no value for a result")
	}
	if v.pl.same(want) {
		return v.local, nil
	}
	g, err := ev.assemble(v)
	if err != nil {
		return nil, err
	}
	start, limit := want.block(ev.proc.Partition)
	return sliceBlock(g, start, limit), nil
}

// assemble builds the global value of v from the blocks of the partitions
// of this process's replica: the lowest partition holding each block sends
// it to every partition that holds another one.
func (ev *evaluator) assemble(v *shardedValue) (*array, error) {
	if v.pl.replicated() {
		return v.local, nil
	}
	ps := ev.proc
	ps.seq++
	P := ev.mod.numPartitions
	base, me := ps.Replica*P, ps.Partition
	pl := v.pl
	first := pl.firstHolders()
	x := newExchange(ev.ctx, ps.Comm, ps.seq, 1)
	if first[pl.tileOf[me]] == me {
		data := allBytes(v.local)
		for q := 0; q < P; q++ {
			if pl.tileOf[q] != pl.tileOf[me] {
				x.send(base+q, data)
			}
		}
	}
	g := newArray(v.t)
	start, _ := pl.block(me)
	placeBlock(g, start, v.local)
	for q := 0; q < P; q++ {
		if first[pl.tileOf[q]] != q || pl.tileOf[q] == pl.tileOf[me] {
			continue
		}
		b := newArray(pl.localType(v.t, q))
		if err := x.recv(base+q, b.size()*b.t.Elem.ByteSize(), copyInto(b, 0)); err != nil {
			_ = x.finish() // drains the exchange; the error already in hand is the one to report
			return nil, err
		}
		start, _ := pl.block(q)
		placeBlock(g, start, b)
	}
	if err := x.finish(); err != nil {
		return nil, err
	}
	return g, nil
}

// RunProcesses runs every process of the program's grid on its own
// goroutine, connected by a LocalGroup: args[id] are the arguments of the
// process with flattened id id (replica*num_partitions + partition), as
// RunProcess takes them, and so are the results. When a process fails, the
// others stop at their next exchange; the error returned is that of a
// process that failed on its own (not one stopped by another's failure).
func (m *Module) RunProcesses(ctx context.Context, args [][]*Tensor) ([][]*Tensor, error) {
	n := m.numProcesses()
	if n < 0 {
		return nil, unimplementedf("a grid of %d replicas × %d partitions is not supported", m.numReplicas, m.numPartitions)
	}
	if len(args) != n {
		return nil, invalidf("the program runs as %d processes, got arguments for %d", n, len(args))
	}
	ids := make([]int, n)
	for id := range ids {
		ids[id] = id
	}
	return m.RunLocal(ctx, ids, args, nil)
}

// RunLocal runs some processes of the program's grid, those with the
// flattened ids ids, each on its own goroutine, as one worker's part of an
// execution whose other processes run elsewhere: args[j] are process
// ids[j]'s arguments, as RunProcess takes them, and so are the results.
// The local processes exchange data in process (a LocalGroup); each reaches
// the others through remote(id), the far side of Route for process id.
// remote may be nil only when ids are the whole grid.
//
// When a local process fails, the other local ones stop at their next
// exchange and the remote ones learn of it through remote's Done; the
// error returned is FirstFailure's pick.
func (m *Module) RunLocal(ctx context.Context, ids []int, args [][]*Tensor, remote func(id int) Communicator) ([][]*Tensor, error) {
	n := m.numProcesses()
	if n < 0 {
		return nil, unimplementedf("a grid of %d replicas × %d partitions is not supported", m.numReplicas, m.numPartitions)
	}
	if len(args) != len(ids) {
		return nil, invalidf("%d local processes, got arguments for %d", len(ids), len(args))
	}
	local := make([]bool, n)
	for _, id := range ids {
		if id < 0 || id >= n || local[id] {
			return nil, invalidf("local process ids %v are not distinct ids of a grid of %d", ids, n)
		}
		local[id] = true
	}
	if remote == nil && len(ids) != n {
		return nil, invalidf("%d of the program's %d processes run here and there is no Communicator for the others", len(ids), n)
	}
	g := NewLocalGroup(n)
	comms := make([]Communicator, len(ids))
	for j, id := range ids {
		if comms[j] = g.Endpoint(id); len(ids) == n {
			continue
		}
		far := remote(id)
		if far == nil {
			err := invalidf("no Communicator reaches the other workers from process %d", id)
			for _, c := range comms[:j] {
				c.Done(err)
			}
			return nil, err
		}
		comms[j] = Route(comms[j], far, func(peer int) bool { return peer >= 0 && peer < n && local[peer] })
	}
	outs := make([][]*Tensor, len(ids))
	errs := make([]error, len(ids))
	var wg sync.WaitGroup
	for j, id := range ids {
		comm := comms[j]
		wg.Add(1)
		go func() {
			defer wg.Done()
			p := Process{Replica: id / m.numPartitions, Partition: id % m.numPartitions, Comm: comm}
			outs[j], errs[j] = m.RunProcess(ctx, p, args[j])
		}()
	}
	wg.Wait()
	if err := FirstFailure(errs); err != nil {
		return nil, err
	}
	return outs, nil
}

// FirstFailure picks the error to report for an execution from the errors
// of its processes: the first one that is not an Aborted *Error (which a
// process reports when another failed), else the first one; nil when all
// are nil.
func FirstFailure(errs []error) error {
	var first error
	for _, err := range errs {
		if err == nil {
			continue
		}
		var e *Error
		if !errors.As(err, &e) || e.code != Aborted {
			return err
		}
		if first == nil {
			first = err
		}
	}
	return first
}

// runPartitioned is Run for programs with collectives: the global
// arguments are cut into every partition's blocks, the partitions run
// together, and the results are assembled from their blocks.
func (m *Module) runPartitioned(ctx context.Context, in []*array) ([]*Tensor, error) {
	if m.numReplicas != 1 {
		return nil, unimplementedf("a program of %d replicas takes arguments per replica: use RunProcesses", m.numReplicas)
	}
	P := m.numPartitions
	if m.numProcesses() < 0 {
		return nil, unimplementedf("a program of %d partitions is not supported", P)
	}
	f := m.main
	paramShardings, resultShardings := m.ProcessShardings()
	args := make([][]*Tensor, P)
	for p := range args {
		args[p] = make([]*Tensor, len(in))
	}
	for i, a := range in {
		pl, err := placementFor(paramShardings[i], f.params[i].Type, P)
		if err != nil {
			return nil, err
		}
		whole := encodeArray(a)
		for p := range P {
			if pl.replicated() {
				args[p][i] = whole
				continue
			}
			start, limit := pl.block(p)
			args[p][i] = encodeArray(sliceBlock(a, start, limit))
		}
	}
	outs, err := m.RunProcesses(ctx, args)
	if err != nil {
		return nil, err
	}
	res := make([]*array, len(f.results))
	for k, v := range f.results {
		pl, err := placementFor(resultShardings[k], v.Type, P)
		if err != nil {
			return nil, err
		}
		res[k] = newArray(v.Type)
		done := map[int]bool{}
		for p := range P {
			if done[pl.tileOf[p]] {
				continue
			}
			done[pl.tileOf[p]] = true
			start, _ := pl.block(p)
			placeBlock(res[k], start, decodeTensor(outs[p][k]))
		}
	}
	return encodeResults(res), nil
}
