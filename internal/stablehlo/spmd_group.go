package stablehlo

import (
	"context"
	"maps"
	"runtime/debug"
	"slices"
)

// RunGroup runs an auto-sharded program (one without collectives or manual
// regions: UsesCollectives is false) for the partitions of one group, the
// partitions that share a process: group[p] names partition p's group, and
// procs are exactly the partitions of one group, each with its
// Communicator. Such a program computes the same global values on every
// partition, so a group computes them once: each sharded argument's blocks
// that no partition of the group holds arrive once, at the group's lowest
// partition, from the lowest partition holding each; the global program
// runs once; every partition takes its blocks of the results. Every group of
// an execution must run RunGroup with the same group (RunProcess speaks
// another protocol). args and the results are per proc, as RunProcess
// takes and returns them.
//
// With whole nil the interpreter computes the global values; otherwise
// whole does (a backend that compiled the same module for one device).
//
// RunGroup calls each proc's Comm.Done exactly once before it returns, with
// the error it returns. It never panics.
func (m *Module) RunGroup(ctx context.Context, procs []Process, group []int, args [][]*Tensor, whole WholeRun) (out [][]*Tensor, err error) {
	defer func() {
		if r := recover(); r != nil {
			out = nil
			err = internalf("interpreter failure: %v\n%s", r, debug.Stack())
		}
		for _, p := range procs {
			if p.Comm != nil {
				p.Comm.Done(err)
			}
		}
	}()
	plan, err := m.planGroup(procs, group, args)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	globals, err := plan.gather(ctx)
	if err != nil {
		return nil, err
	}
	var res []*array
	if whole != nil {
		res, err = plan.runWhole(ctx, whole, globals)
	} else {
		leader := procs[plan.leaderIndex]
		ev := &evaluator{ctx: ctx, mod: m, proc: &procState{Process: leader, id: leader.Partition}}
		res, err = ev.call(m.main, globals)
	}
	if err != nil {
		return nil, err
	}
	return plan.scatter(res)
}

// WholeRun computes an auto-sharded program's global results from its
// global arguments in RunGroup, in place of the interpreter. It must not
// modify args, and each result must have storage of its own: RunGroup hands
// it on.
type WholeRun func(ctx context.Context, args []*Tensor) ([]*Tensor, error)

// runWhole computes the global results with whole and checks them against
// the program's result types.
func (pl *groupPlan) runWhole(ctx context.Context, whole WholeRun, globals []*array) ([]*array, error) {
	f := pl.m.main
	in := make([]*Tensor, len(globals))
	for i, g := range globals {
		in[i] = &Tensor{Type: g.t, Data: allBytes(g)}
	}
	out, err := whole(ctx, in)
	if err != nil {
		return nil, err
	}
	if len(out) != len(f.results) {
		return nil, invalidf("the whole program returned %d results, @main declares %d", len(out), len(f.results))
	}
	res, err := decodeTensors("result", out, func(k int) TensorType { return f.results[k].Type })
	if err != nil {
		return nil, err
	}
	for _, r := range res {
		r.shared = false // its storage is the caller's to hand on
	}
	return res, nil
}

// groupPlan is one group's part in a RunGroup execution.
type groupPlan struct {
	m           *Module
	procs       []Process
	group       []int
	leader      map[int]int // group -> its lowest partition
	leaderIndex int         // of this group's leader in procs
	in          [][]*array  // per proc, per parameter: its block
	params      []*placement
	results     []*placement
}

// planGroup checks RunGroup's arguments and decodes the blocks.
func (m *Module) planGroup(procs []Process, group []int, args [][]*Tensor) (*groupPlan, error) {
	if m.unsupported != nil {
		return nil, m.unsupported
	}
	if m.collectives {
		return nil, invalidf("a program with collectives or manual regions runs per process (RunProcess), not per group")
	}
	P := m.numPartitions
	if m.numReplicas != 1 || m.numProcesses() < 0 {
		return nil, unimplementedf("a grid of %d replicas × %d partitions is not supported", m.numReplicas, m.numPartitions)
	}
	if len(group) != P {
		return nil, invalidf("groups given for %d partitions, the program has %d", len(group), P)
	}
	if len(procs) == 0 || len(args) != len(procs) {
		return nil, invalidf("%d processes with arguments for %d", len(procs), len(args))
	}
	pl := &groupPlan{m: m, procs: procs, group: group, leader: map[int]int{}}
	for p := P - 1; p >= 0; p-- {
		pl.leader[group[p]] = p
	}
	mine := map[int]bool{}
	for j, pr := range procs {
		p := pr.Partition
		if pr.Replica != 0 || p < 0 || p >= P || mine[p] {
			return nil, invalidf("process (%d, %d) is outside the 1 × %d grid or given twice", pr.Replica, p, P)
		}
		mine[p] = true
		if pr.Comm == nil && len(procs) < P {
			return nil, invalidf("partition %d of %d needs a Communicator", p, P)
		}
		if p == pl.leader[group[procs[0].Partition]] {
			pl.leaderIndex = j
		}
	}
	for p := range P {
		if (group[p] == group[procs[0].Partition]) != mine[p] {
			return nil, invalidf("the processes given are not the partitions of one group: partition %d is in group %d", p, group[p])
		}
	}
	if m.placingErr != nil {
		return nil, m.placingErr
	}
	f := m.main
	pl.params, pl.results = m.paramPls, m.resultPls
	pl.in = make([][]*array, len(procs))
	for j, pr := range procs {
		var err error
		pl.in[j], err = decodeArgs(f, args[j], func(i int) TensorType { return pl.params[i].localType(f.params[i].Type, pr.Partition) })
		if err != nil {
			return nil, err
		}
	}
	return pl, nil
}

// groupTransfer is one block sent from one partition to another group's
// leader.
type groupTransfer struct {
	param, from, to int
}

// transfers lists every group's blocks to send, in one order that every
// group derives alike: by parameter, then by the lowest partition holding
// each tile, then by receiving group.
func (pl *groupPlan) transfers() []groupTransfer {
	var out []groupTransfer
	groups := slices.Sorted(maps.Keys(pl.leader))
	for i, place := range pl.params {
		if place.replicated() {
			continue
		}
		has := map[[2]int]bool{} // (group, tile) held
		for p, t := range place.tileOf {
			has[[2]int{pl.group[p], t}] = true
		}
		first := place.firstHolders()
		for p, t := range place.tileOf {
			if first[t] != p {
				continue
			}
			for _, g := range groups {
				if !has[[2]int{g, t}] {
					out = append(out, groupTransfer{param: i, from: p, to: pl.leader[g]})
				}
			}
		}
	}
	return out
}

// gather returns the global value of every parameter at this group, sending
// the group's blocks other groups lack and receiving those it lacks.
func (pl *groupPlan) gather(ctx context.Context) ([]*array, error) {
	f := pl.m.main
	local := map[int]int{} // partition -> index in procs
	for j, pr := range pl.procs {
		local[pr.Partition] = j
	}
	todo := pl.transfers()
	depth := map[[2]int]int{}
	for _, tr := range todo {
		depth[[2]int{tr.from, tr.to}]++
	}
	most := 1
	for _, n := range depth {
		most = max(most, n)
	}
	xs := make([]*exchange, len(pl.procs))
	exchangeOf := func(j int) *exchange {
		if xs[j] == nil {
			xs[j] = newExchange(ctx, pl.procs[j].Comm, 1, most)
		}
		return xs[j]
	}
	finish := func(err error) error {
		for _, x := range xs {
			if x == nil {
				continue
			}
			if ferr := x.finish(); err == nil {
				err = ferr
			}
		}
		return err
	}
	for _, tr := range todo {
		if j, ok := local[tr.from]; ok {
			exchangeOf(j).send(tr.to, allBytes(pl.in[j][tr.param]))
		}
	}
	me := pl.procs[pl.leaderIndex].Partition
	globals := make([]*array, len(f.params))
	for i, place := range pl.params {
		if place.replicated() {
			globals[i] = pl.in[pl.leaderIndex][i]
			continue
		}
		g := newArray(f.params[i].Type)
		placed := map[int]bool{} // tiles
		for j, pr := range pl.procs {
			if t := place.tileOf[pr.Partition]; !placed[t] {
				placed[t] = true
				start, _ := place.block(pr.Partition)
				placeBlock(g, start, pl.in[j][i])
			}
		}
		globals[i] = g
	}
	for _, tr := range todo {
		if tr.to != me {
			continue
		}
		place, g := pl.params[tr.param], globals[tr.param]
		start, limit := place.block(tr.from)
		bt := place.localType(f.params[tr.param].Type, tr.from)
		var b *array
		at, direct := contiguous(g.t.Shape, start, limit)
		w := copyInto(g, at) // straight into place
		if !direct {
			b = newArray(bt)
			w = copyInto(b, 0)
		}
		if err := exchangeOf(pl.leaderIndex).recv(tr.from, int(bt.NumElements())*bt.Elem.ByteSize(), w); err != nil {
			return nil, finish(err)
		}
		if !direct {
			placeBlock(g, start, b)
		}
	}
	if err := finish(nil); err != nil {
		return nil, err
	}
	return globals, nil
}

// scatter cuts each partition's blocks out of the global results. A
// replicated result is shared by no two partitions: each gets its own copy
// (the leader the result itself), since a donation may reuse its storage.
func (pl *groupPlan) scatter(res []*array) ([][]*Tensor, error) {
	f := pl.m.main
	if len(res) != len(f.results) {
		return nil, invalidf("@main returns %d values, declares %d", len(res), len(f.results))
	}
	out := make([][]*Tensor, len(pl.procs))
	for j, pr := range pl.procs {
		blocks := make([]*array, len(res))
		for k, r := range res {
			if !r.t.Equal(f.results[k].Type) {
				return nil, invalidf("@main result %d does not have the declared type %s", k, f.results[k].Type)
			}
			switch place := pl.results[k]; {
			case !place.replicated():
				start, limit := place.block(pr.Partition)
				blocks[k] = sliceBlock(r, start, limit)
			case j == pl.leaderIndex:
				blocks[k] = r
			default:
				blocks[k] = r.clone()
			}
		}
		out[j] = encodeResults(blocks)
	}
	return out, nil
}

// contiguous reports whether the block [start, limit) of an array of shape
// is one run of its row-major storage, and where the run starts: the
// dimensions before one are 1 wide, those after it whole.
func contiguous(shape, start, limit []int64) (int, bool) {
	st := strides(shape)
	at, k := 0, 0
	for k < len(shape) && limit[k]-start[k] == 1 {
		k++
	}
	for d := k + 1; d < len(shape); d++ {
		if start[d] != 0 || limit[d] != shape[d] {
			return 0, false
		}
	}
	for d := range start {
		at += int(start[d]) * st[d]
	}
	return at, true
}
