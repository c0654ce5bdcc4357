package proxy

import (
	"context"
	"runtime"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/proxy/internal/wire"
	"github.com/openpathways/pathways/proxy/proxypb"
)

// arrayOp sends an array-producing request whose results the client names and
// wraps the results: after the server answered, or at once with
// WithAsyncDispatch. On failure the server has recorded the error under the
// result handles; they are destructed. Inputs given in donated are marked
// deleted on success (or, dispatching asynchronously, when sent).
func (c *Client) arrayOp(ctx context.Context, req *proxypb.IfrtRequest, handles []uint64, specs []ifrt.ArraySpec, donated []*array) ([]ifrt.Array, error) {
	pending, err := c.dispatch(ctx, req)
	if err != nil {
		for _, h := range handles {
			c.destructHandle(h)
		}
		return nil, err
	}
	for _, a := range donated {
		a.deleted.Store(true)
	}
	out := make([]ifrt.Array, len(handles))
	for i, h := range handles {
		a := c.newArray(h, specs[i])
		a.pending = pending
		out[i] = a
	}
	return out, nil
}

func donatedIf(sem ifrt.CopySemantics, arrays []*array) []*array {
	if sem == ifrt.DonateInput {
		return arrays
	}
	return nil
}

// AssembleArray builds one array from single-device arrays, one per device of
// spec.Sharding in order (AssembleArrayFromSingleDeviceArraysRequest).
func (c *Client) AssembleArray(ctx context.Context, spec ifrt.ArraySpec, shards []ifrt.Array, sem ifrt.CopySemantics) (ifrt.Array, error) {
	defer runtime.KeepAlive(shards)
	parts, err := c.check().Assemble(spec, shards)
	if err != nil {
		return nil, err
	}
	ps, h, err := c.newResult(spec)
	if err != nil {
		return nil, err
	}
	out, err := c.arrayOp(ctx, &proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_AssembleArrayFromSingleDeviceArraysRequest{
		AssembleArrayFromSingleDeviceArraysRequest: &proxypb.AssembleArrayFromSingleDeviceArraysRequest{
			Shape:                      ps.Shape,
			Sharding:                   ps.Sharding,
			SingleDeviceArrayHandles:   handlesOf(parts),
			CopySemantics:              wire.CopySemanticsToProto(sem),
			SingleDeviceShardSemantics: wire.ShardSemanticsToProto(wire.AddressableShards),
			ResultHandle:               h,
			Dtype:                      ps.Dtype,
		},
	}}, []uint64{h}, []ifrt.ArraySpec{spec}, donatedIf(sem, parts))
	if err != nil {
		return nil, err
	}
	return out[0], nil
}

// DisassembleArray splits an array into one single-device array per device
// (DisassembleIntoSingleDeviceArraysRequest); the client computes the shards'
// specs, as jaxlib does.
func (c *Client) DisassembleArray(ctx context.Context, x ifrt.Array, sem ifrt.CopySemantics) ([]ifrt.Array, error) {
	defer runtime.KeepAlive(x)
	a, specs, err := c.check().Disassemble(x)
	if err != nil {
		return nil, err
	}
	devs := a.ArraySpec.Sharding.Devices()
	for _, d := range devs {
		if !c.isAddressable(d.ID) {
			return nil, ifrt.Errorf(ifrt.FailedPrecondition, "proxy: DisassembleArray: device %d is not addressable", d.ID)
		}
	}
	handles, err := c.newHandles(len(devs))
	if err != nil {
		return nil, err
	}
	return c.arrayOp(ctx, &proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_DisassembleIntoSingleDeviceArraysRequest{
		DisassembleIntoSingleDeviceArraysRequest: &proxypb.DisassembleIntoSingleDeviceArraysRequest{
			ArrayHandle:                a.handle,
			CopySemantics:              wire.CopySemanticsToProto(sem),
			SingleDeviceShardSemantics: wire.ShardSemanticsToProto(wire.AddressableShards),
			ResultHandles:              handles,
		},
	}}, handles, specs, donatedIf(sem, []*array{a}))
}

// CopyArrays copies arrays to other devices and, when memoryKind is set, another
// memory kind (CopyArraysRequest). Arrays on different device lists or memory
// kinds go in separate requests, one per group, since upstream backends copy
// only arrays that share both.
func (c *Client) CopyArrays(ctx context.Context, arrays []ifrt.Array, devices ifrt.DeviceList, memoryKind *ifrt.MemoryKind, sem ifrt.CopySemantics) ([]ifrt.Array, error) {
	defer runtime.KeepAlive(arrays)
	ins, specs, err := c.check().Copy(arrays, devices, memoryKind)
	if err != nil {
		return nil, err
	}
	groups := map[string][]int{} // source devices and memory kind -> positions
	var order []string
	for i, a := range ins {
		key := a.ArraySpec.Sharding.Devices().String() + "/" + string(a.ArraySpec.Sharding.MemoryKind())
		if _, ok := groups[key]; !ok {
			order = append(order, key)
		}
		groups[key] = append(groups[key], i)
	}
	out := make([]ifrt.Array, len(arrays))
	for _, key := range order {
		pos := groups[key]
		handles, err := c.newHandles(len(pos))
		if err != nil {
			return nil, err
		}
		req := &proxypb.CopyArraysRequest{
			DeviceIds:     wire.DeviceIDs(devices),
			CopySemantics: wire.CopySemanticsToProto(sem),
			ResultHandles: handles,
		}
		if memoryKind != nil {
			k := string(*memoryKind)
			req.MemoryKind = &k
		}
		groupIns := make([]*array, len(pos))
		groupSpecs := make([]ifrt.ArraySpec, len(pos))
		for j, i := range pos {
			req.ArrayHandles = append(req.ArrayHandles, ins[i].handle)
			groupIns[j], groupSpecs[j] = ins[i], specs[i]
		}
		res, err := c.arrayOp(ctx, &proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_CopyArraysRequest{CopyArraysRequest: req}},
			handles, groupSpecs, donatedIf(sem, groupIns))
		if err != nil {
			return nil, err
		}
		for j, i := range pos {
			out[i] = res[j]
		}
	}
	return out, nil
}

// Reshard gives each array the sharding of its spec (ReshardArraysRequest).
func (c *Client) Reshard(ctx context.Context, arrays []ifrt.Array, specs []ifrt.ArraySpec, sem ifrt.CopySemantics) ([]ifrt.Array, error) {
	defer runtime.KeepAlive(arrays)
	ins, err := c.check().Reshard(arrays, specs)
	if err != nil {
		return nil, err
	}
	protoSpecs := make([]*proxypb.ArraySpecProto, len(arrays))
	for i, s := range specs {
		if protoSpecs[i], err = wire.ArraySpecToProto(s); err != nil {
			return nil, err
		}
	}
	handles, err := c.newHandles(len(arrays))
	if err != nil {
		return nil, err
	}
	return c.arrayOp(ctx, &proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_ReshardArraysRequest{
		ReshardArraysRequest: &proxypb.ReshardArraysRequest{
			ArrayHandles:  handlesOf(ins),
			ArraySpecs:    protoSpecs,
			CopySemantics: wire.CopySemanticsToProto(sem),
			ResultHandles: handles,
		},
	}}, handles, specs, donatedIf(sem, ins))
}

// Remap moves shards between arrays as the plan says (RemapArraysRequest).
func (c *Client) Remap(ctx context.Context, plan ifrt.RemapPlan, arrays []ifrt.Array, sem ifrt.CopySemantics) ([]ifrt.Array, error) {
	defer runtime.KeepAlive(arrays)
	// A bad plan fails here, even when dispatching asynchronously.
	ins, _, err := c.check().Remap(plan, arrays)
	if err != nil {
		return nil, err
	}
	p, err := wire.RemapPlanToProto(plan)
	if err != nil {
		return nil, err
	}
	handles, err := c.newHandles(len(plan.OutputSpecs))
	if err != nil {
		return nil, err
	}
	return c.arrayOp(ctx, &proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_RemapArraysRequest{
		RemapArraysRequest: &proxypb.RemapArraysRequest{
			Plan:          p,
			ArrayHandles:  handlesOf(ins),
			CopySemantics: wire.CopySemanticsToProto(sem),
			ResultHandles: handles,
		},
	}}, handles, plan.OutputSpecs, donatedIf(sem, ins))
}

// FullyReplicatedShard returns a replicated array's contents on its first device
// (FullyReplicatedShardRequest).
func (c *Client) FullyReplicatedShard(ctx context.Context, x ifrt.Array, sem ifrt.CopySemantics) (ifrt.Array, error) {
	defer runtime.KeepAlive(x)
	a, spec, err := c.check().FullyReplicated(x)
	if err != nil {
		return nil, err
	}
	h, err := c.newHandle()
	if err != nil {
		return nil, err
	}
	out, err := c.arrayOp(ctx, &proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_FullyReplicatedShardRequest{
		FullyReplicatedShardRequest: &proxypb.FullyReplicatedShardRequest{
			ArrayHandle:   a.handle,
			CopySemantics: wire.CopySemanticsToProto(sem),
			ResultHandle:  h,
		},
	}}, []uint64{h}, []ifrt.ArraySpec{spec}, donatedIf(sem, []*array{a}))
	if err != nil {
		return nil, err
	}
	return out[0], nil
}
