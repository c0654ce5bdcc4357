package stablehlo

// The collective ops, per process: each exchanges pieces of its operands
// with the other processes of its group through the process's
// Communicator. Reductions run at the receiver, in group order, so that
// every process of a group gets bit-identical results.

// procState is the evaluator's view of the process it runs as.
type procState struct {
	Process
	id  int    // flattened id: replica*num_partitions + partition
	seq uint64 // collectives executed so far
}

// beginCollective counts the collective and returns the process state and
// the op's resolved groups.
func (ev *evaluator) beginCollective(op *operation) (*procState, *collectiveInfo, error) {
	ps := ev.proc
	if ps == nil || ps.Comm == nil && ev.mod.numProcesses() > 1 {
		return nil, nil, unimplementedf("%s needs a per-process run (RunProcess) with a Communicator", op.Name)
	}
	info := op.collective
	if info == nil {
		return nil, nil, internalf("collective %s was not resolved", op.Name)
	}
	if info.err != nil {
		return nil, nil, info.err
	}
	ps.seq++
	return ps, info, nil
}

// beginGroupCollective is beginCollective for an op every process must
// take part in: it returns the process's group and its index in it.
func (ev *evaluator) beginGroupCollective(op *operation) (ps *procState, group []int, me int, err error) {
	ps, info, err := ev.beginCollective(op)
	if err != nil {
		return nil, nil, -1, err
	}
	group, me = info.groupOf(ps.id)
	if group == nil {
		return nil, nil, -1, invalidf("process %d is in no replica group", ps.id)
	}
	return ps, group, me, nil
}

func evalPartitionID(ev *evaluator, op *operation, in []*array) ([]*array, error) {
	return procScalar(ev, op, func(ps *procState) int { return ps.Partition })
}

func evalReplicaID(ev *evaluator, op *operation, in []*array) ([]*array, error) {
	return procScalar(ev, op, func(ps *procState) int { return ps.Replica })
}

func procScalar(ev *evaluator, op *operation, field func(*procState) int) ([]*array, error) {
	t := op.resultTypes[0]
	if t.Elem != U32 || len(t.Shape) != 0 {
		return nil, invalidf("result must be tensor<ui32>, not %s", t)
	}
	if ev.proc == nil {
		return nil, unimplementedf("%s needs a per-process run (RunProcess)", op.Name)
	}
	out := newArray(t)
	out.u[0] = uint64(field(ev.proc))
	return []*array{out}, nil
}

// chunkBounds splits n elements into parts nearly equal parts; part j is
// [b[j], b[j+1]).
func chunkBounds(n, parts int) []int {
	b := make([]int, parts+1)
	for j := range b {
		b[j] = int(int64(j) * int64(n) / int64(parts))
	}
	return b
}

func evalAllReduce(ev *evaluator, op *operation, in []*array) ([]*array, error) {
	ps, group, me, err := ev.beginGroupCollective(op)
	if err != nil {
		return nil, err
	}
	if len(op.regions) != 1 || len(op.resultTypes) != len(in) {
		return nil, invalidf("all_reduce needs one computation and a result per operand")
	}
	folds := make([]*folder, len(in))
	for i, a := range in {
		if !a.t.Equal(op.resultTypes[i]) {
			return nil, invalidf("result %d has type %s, operand %s", i, op.resultTypes[i], a.t)
		}
		if folds[i], err = newFolder(ev, op.regions[0], a.t.Elem); err != nil {
			return nil, err
		}
	}
	n := len(group)
	if n == 1 {
		return in, nil
	}
	// Reduce-scatter: process j reduces the j-th chunk of every operand;
	// then all-gather the reduced chunks, each in pieces sent as soon as
	// they are reduced.
	bounds := make([][]int, len(in))
	messages := 0
	for i, a := range in {
		bounds[i] = chunkBounds(a.size(), n)
		// Its chunk, then its reduced chunk's pieces: no more than the
		// whole operand's, which are one fewer than their bounds.
		messages += len(gatherPieces(a, 0, a.size()))
	}
	x := newExchange(ev.ctx, ps.Comm, ps.seq, messages)
	for i, a := range in {
		x.sendOthers(group, me, func(j int) []byte { return rangeBytes(a, bounds[i][j], bounds[i][j+1]) })
	}
	// Each process reduces its chunk straight into its result, and sends
	// it from there. An operand no later op reads becomes the result (see
	// reducesInPlace).
	out := make([]*array, len(in))
	for i, a := range in {
		lo, hi := bounds[i][me], bounds[i][me+1]
		if reducesInPlace(op, in, i, me, folds[i]) {
			c := *a
			out[i] = &c
		} else {
			// Every element is written below: the chunk by the reduction,
			// the others by the peers' pieces.
			out[i] = newUninitializedArray(a.t)
		}
		pieces, sent := gatherPieces(a, lo, hi), 0
		reduced := func(upto int) {
			for sent+1 < len(pieces) && pieces[sent+1] <= lo+upto {
				piece := rangeBytes(out[i], pieces[sent], pieces[sent+1])
				x.sendOthers(group, me, func(int) []byte { return piece })
				sent++
			}
		}
		if err := folds[i].reduceInto(x, group, me, flat(a, lo, hi), flat(out[i], lo, hi), reduced); err != nil {
			return nil, x.abandon(err)
		}
	}
	for i, a := range in {
		for j, peer := range group {
			if j == me {
				continue
			}
			pieces := gatherPieces(a, bounds[i][j], bounds[i][j+1])
			for k := range len(pieces) - 1 {
				lo, hi := pieces[k], pieces[k+1]
				if err := x.recv(peer, (hi-lo)*a.t.Elem.ByteSize(), copyInto(out[i], lo)); err != nil {
					return nil, x.abandon(err)
				}
			}
		}
	}
	if err := x.finish(); err != nil {
		return nil, err
	}
	return out, nil
}

// gatherPiece is the most bytes of a reduced chunk all_reduce sends in one
// message: a piece goes out while the reduction that wrote it is still in
// the cache, and the peers start receiving before the whole chunk is done.
// A variable for tests of many pieces.
var gatherPiece = 4 << 20

// gatherPieces splits a's elements [lo, hi) into the pieces all_reduce
// sends them in: piece k is [b[k], b[k+1]).
func gatherPieces(a *array, lo, hi int) []int {
	step := max(1, gatherPiece/a.t.Elem.ByteSize())
	b := []int{lo}
	for at := lo + step; at < hi; at += step {
		b = append(b, at)
	}
	return append(b, hi)
}

// reducesInPlace says whether all_reduce may reduce operand i into its own
// storage: it owns the operand (ownsOperand), and the process's reduction
// reads each element of its own chunk before it writes there. That holds
// for the first process of the group, and for the second where the first
// step combines element by element (folder.pair's typed loops); a later
// member receives the first peer's chunk into the result first. A peer reads
// this process's other chunks before it sends back the reduced ones that
// overwrite them, so the sends never see overwritten bytes.
func reducesInPlace(op *operation, in []*array, i, me int, f *folder) bool {
	return (me == 0 || me == 1 && f.pairsElementwise(in[i].t.Elem)) && ownsOperand(op, in, i)
}

func evalReduceScatter(ev *evaluator, op *operation, in []*array) ([]*array, error) {
	ps, group, me, err := ev.beginGroupCollective(op)
	if err != nil {
		return nil, err
	}
	if len(in) != 1 || len(op.regions) != 1 || len(op.resultTypes) != 1 {
		return nil, invalidf("reduce_scatter takes one operand, one computation and one result")
	}
	a := in[0]
	dim, err := op.int1("scatter_dimension")
	if err != nil {
		return nil, err
	}
	n := len(group)
	parts, err := splitParts(a, dim, n)
	if err != nil {
		return nil, err
	}
	if !parts[0].t.Equal(op.resultTypes[0]) {
		return nil, invalidf("result %s is not a 1/%d part of %s along dimension %d", op.resultTypes[0], n, a.t, dim)
	}
	fold, err := newFolder(ev, op.regions[0], a.t.Elem)
	if err != nil {
		return nil, err
	}
	x := newExchange(ev.ctx, ps.Comm, ps.seq, 1)
	x.sendOthers(group, me, func(j int) []byte { return allBytes(parts[j]) })
	acc := newUninitializedArray(op.resultTypes[0]) // the first step writes every element
	err = fold.reduceInto(x, group, me, parts[me], acc, nil)
	if ferr := x.finish(); err == nil {
		err = ferr
	}
	if err != nil {
		return nil, err
	}
	return []*array{acc}, nil
}

func evalAllGather(ev *evaluator, op *operation, in []*array) ([]*array, error) {
	ps, group, me, err := ev.beginGroupCollective(op)
	if err != nil {
		return nil, err
	}
	dim, err := op.int1("all_gather_dim")
	if err != nil {
		return nil, err
	}
	if len(op.resultTypes) != len(in) {
		return nil, invalidf("all_gather needs a result per operand")
	}
	x := newExchange(ev.ctx, ps.Comm, ps.seq, len(in))
	for _, a := range in {
		data := allBytes(a)
		x.sendOthers(group, me, func(int) []byte { return data })
	}
	out := make([]*array, len(in))
	for i, a := range in {
		if out[i], err = receiveBlocks(x, group, me, a, dim, op.resultTypes[i]); err != nil {
			return nil, x.abandon(err)
		}
	}
	if err := x.finish(); err != nil {
		return nil, err
	}
	return out, nil
}

// receiveBlocks receives from every member of group but me a block of
// own's type and returns the blocks, own as member me's, laid in group
// order along dim of a result of type t.
func receiveBlocks(x *exchange, group []int, me int, own *array, dim int64, t TensorType) (*array, error) {
	if blocksFollow(own.t, t, dim, len(group)) {
		// The blocks lie one after another in the result: each goes
		// straight there, every element written.
		out := newUninitializedArray(t)
		block := own.size()
		for j, peer := range group {
			if j == me {
				copyRange(out, j*block, own)
			} else if err := x.recv(peer, block*own.t.Elem.ByteSize(), copyInto(out, j*block)); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	blocks := make([]*array, len(group))
	for j, peer := range group {
		if j == me {
			blocks[j] = own
			continue
		}
		blocks[j] = newArray(own.t)
		if err := x.recvArray(peer, blocks[j]); err != nil {
			return nil, err
		}
	}
	return concatArrays(blocks, dim, t)
}

// blocksFollow says whether whole is n blocks of part's type laid along
// dim, and they lie one after another in whole's storage (dim is the
// outermost dimension larger than 1).
func blocksFollow(part, whole TensorType, dim int64, n int) bool {
	if part.Elem != whole.Elem || len(part.Shape) != len(whole.Shape) || dim < 0 || int(dim) >= len(whole.Shape) {
		return false
	}
	for d, size := range part.Shape {
		switch {
		case int64(d) == dim && whole.Shape[d] != size*int64(n):
			return false
		case int64(d) != dim && whole.Shape[d] != size:
			return false
		case int64(d) < dim && size != 1:
			return false
		}
	}
	return true
}

func evalAllToAll(ev *evaluator, op *operation, in []*array) ([]*array, error) {
	ps, group, me, err := ev.beginGroupCollective(op)
	if err != nil {
		return nil, err
	}
	splitDim, err := op.int1("split_dimension")
	if err != nil {
		return nil, err
	}
	concatDim, err := op.int1("concat_dimension")
	if err != nil {
		return nil, err
	}
	count, err := op.int1("split_count")
	if err != nil {
		return nil, err
	}
	if count != int64(len(group)) || len(op.resultTypes) != len(in) {
		return nil, invalidf("split_count %d does not match the group size %d", count, len(group))
	}
	x := newExchange(ev.ctx, ps.Comm, ps.seq, len(in))
	parts := make([][]*array, len(in))
	for i, a := range in {
		if parts[i], err = splitParts(a, splitDim, len(group)); err != nil {
			return nil, x.abandon(err)
		}
		x.sendOthers(group, me, func(j int) []byte { return allBytes(parts[i][j]) })
	}
	out := make([]*array, len(in))
	for i := range in {
		if out[i], err = receiveBlocks(x, group, me, parts[i][me], concatDim, op.resultTypes[i]); err != nil {
			return nil, x.abandon(err)
		}
	}
	if err := x.finish(); err != nil {
		return nil, err
	}
	return out, nil
}

func evalCollectivePermute(ev *evaluator, op *operation, in []*array) ([]*array, error) {
	ps, info, err := ev.beginCollective(op)
	if err != nil {
		return nil, err
	}
	if len(in) != 1 || !in[0].t.Equal(op.resultTypes[0]) {
		return nil, invalidf("collective_permute takes one operand of the result's type")
	}
	a := in[0]
	source, target := -1, -1
	for _, p := range info.pairs {
		if p[0] == ps.id {
			target = p[1]
		}
		if p[1] == ps.id {
			source = p[0]
		}
	}
	if source == ps.id {
		return in, nil
	}
	x := newExchange(ev.ctx, ps.Comm, ps.seq, 1)
	if target >= 0 && target != ps.id {
		x.send(target, allBytes(a))
	}
	out := newArray(a.t) // zeros when no process sends here
	if source >= 0 {
		if err := x.recvArray(source, out); err != nil {
			return nil, x.abandon(err)
		}
	}
	if err := x.finish(); err != nil {
		return nil, err
	}
	return []*array{out}, nil
}

func evalCollectiveBroadcast(ev *evaluator, op *operation, in []*array) ([]*array, error) {
	ps, info, err := ev.beginCollective(op)
	if err != nil {
		return nil, err
	}
	if flagSet(op, "has_dynamic_root") {
		return nil, unimplementedf("collective_broadcast with a dynamic root is not supported")
	}
	if len(op.resultTypes) != len(in) {
		return nil, invalidf("collective_broadcast needs a result per operand")
	}
	for i, a := range in {
		if !a.t.Equal(op.resultTypes[i]) {
			return nil, invalidf("result %d has type %s, operand %s", i, op.resultTypes[i], a.t)
		}
	}
	group, me := info.groupOf(ps.id)
	out := make([]*array, len(in))
	switch {
	case group == nil: // outside every group: zeros
		for i, a := range in {
			out[i] = newArray(a.t)
		}
		return out, nil
	case me == 0:
		x := newExchange(ev.ctx, ps.Comm, ps.seq, len(in))
		for _, a := range in {
			for _, peer := range group[1:] {
				x.send(peer, allBytes(a))
			}
		}
		if err := x.finish(); err != nil {
			return nil, err
		}
		return in, nil
	}
	x := newExchange(ev.ctx, ps.Comm, ps.seq, len(in))
	for i, a := range in {
		out[i] = newArray(a.t)
		if err := x.recvArray(group[0], out[i]); err != nil {
			return nil, x.abandon(err)
		}
	}
	if err := x.finish(); err != nil {
		return nil, err
	}
	return out, nil
}
