package gocpu

import (
	"context"
	"slices"

	"github.com/openpathways/pathways/ifrt"
)

// checkSpec validates spec for an array on this client.
func (c *Client) checkSpec(spec ifrt.ArraySpec) error {
	if err := spec.Validate(); err != nil {
		return err
	}
	if spec.DType == ifrt.STRING {
		return ifrt.Errorf(ifrt.Unimplemented, "gocpu: string arrays are not supported")
	}
	if !spec.Layout.IsRowMajor() {
		return ifrt.Errorf(ifrt.Unimplemented, "gocpu: only the row-major layout is supported, got %v", spec.Layout.MinorToMajor)
	}
	return c.checkSharding(spec.Sharding)
}

func (c *Client) MakeArrayFromHostBuffer(ctx context.Context, data []byte, spec ifrt.ArraySpec, opts *ifrt.HostBufferOptions) (ifrt.Array, error) {
	if opts == nil {
		opts = &ifrt.HostBufferOptions{}
	}
	if opts.OnDoneWithHostBuffer != nil {
		// Every path below copies data before returning.
		defer opts.OnDoneWithHostBuffer()
	}
	if err := c.checkOpen(); err != nil {
		return nil, err
	}
	if err := c.checkSpec(spec); err != nil {
		return nil, err
	}
	if err := ifrt.CheckHostBuffer(spec.DType, spec.Shape, opts.ByteStrides, len(data)); err != nil {
		return nil, err
	}
	dense := data
	if opts.ByteStrides != nil {
		n, _ := spec.Shape.ByteSize(spec.DType)
		dense = make([]byte, n)
		ifrt.CopyStridedToDense(dense, data, spec.DType, spec.Shape, opts.ByteStrides)
	}
	shards, err := c.split(spec, dense)
	if err != nil {
		return nil, err
	}
	return c.newArray(spec, shards), nil
}

// split cuts dense global contents into fresh per-device shards.
func (c *Client) split(spec ifrt.ArraySpec, dense []byte) ([][]byte, error) {
	domains, err := spec.Sharding.IndexDomains(spec.Shape)
	if err != nil {
		return nil, err
	}
	elem := spec.DType.HostByteSize()
	shards := make([][]byte, len(domains))
	for i, dom := range domains {
		shards[i] = ifrt.ExtractDomain(dense, elem, spec.Shape, dom)
	}
	return shards, nil
}

func (c *Client) AssembleArray(ctx context.Context, spec ifrt.ArraySpec, parts []ifrt.Array, sem ifrt.CopySemantics) (ifrt.Array, error) {
	if err := c.checkOpen(); err != nil {
		return nil, err
	}
	if err := c.checkSpec(spec); err != nil {
		return nil, err
	}
	arrays, err := c.take(parts)
	if err != nil {
		return nil, err
	}
	devs := spec.Sharding.Devices()
	if len(arrays) != len(devs) {
		return nil, ifrt.Errorf(ifrt.InvalidArgument, "gocpu: %d arrays to assemble over %d devices", len(arrays), len(devs))
	}
	domains, err := spec.Sharding.IndexDomains(spec.Shape)
	if err != nil {
		return nil, err
	}
	shards := make([][]byte, len(arrays))
	for i, a := range arrays {
		ad := a.spec.Sharding.Devices()
		switch {
		case len(ad) != 1 || ad[0].ID != devs[i].ID:
			return nil, ifrt.Errorf(ifrt.InvalidArgument, "gocpu: array %d is on %v, want device %d alone", i, ad, devs[i].ID)
		case a.spec.DType != spec.DType:
			return nil, ifrt.Errorf(ifrt.InvalidArgument, "gocpu: array %d has dtype %v, want %v", i, a.spec.DType, spec.DType)
		case !a.spec.Shape.Equal(domains[i].Shape()):
			return nil, ifrt.Errorf(ifrt.InvalidArgument, "gocpu: array %d has shape %v, its shard is %v", i, a.spec.Shape, domains[i].Shape())
		}
		data, err := a.data()
		if err != nil {
			return nil, err
		}
		shards[i] = data[0]
	}
	out := c.newArray(spec, shards)
	finish(sem, arrays...)
	return out, nil
}

func (c *Client) DisassembleArray(ctx context.Context, x ifrt.Array, sem ifrt.CopySemantics) ([]ifrt.Array, error) {
	if err := c.checkOpen(); err != nil {
		return nil, err
	}
	arrays, err := c.take([]ifrt.Array{x})
	if err != nil {
		return nil, err
	}
	a := arrays[0]
	shards, err := a.data()
	if err != nil {
		return nil, err
	}
	domains, err := a.spec.Sharding.IndexDomains(a.spec.Shape)
	if err != nil {
		return nil, err
	}
	out := make([]ifrt.Array, len(shards))
	for i, d := range a.spec.Sharding.Devices() {
		spec := ifrt.ArraySpec{
			DType: a.spec.DType, Shape: domains[i].Shape(), Layout: a.spec.Layout,
			Sharding: ifrt.NewSingleDeviceSharding(d, a.spec.Sharding.MemoryKind()),
		}
		out[i] = c.newArray(spec, [][]byte{shards[i]})
	}
	finish(sem, a)
	return out, nil
}

func (c *Client) CopyArrays(ctx context.Context, xs []ifrt.Array, devices ifrt.DeviceList, memoryKind *ifrt.MemoryKind, sem ifrt.CopySemantics) ([]ifrt.Array, error) {
	if err := c.checkOpen(); err != nil {
		return nil, err
	}
	arrays, err := c.take(xs)
	if err != nil {
		return nil, err
	}
	out := make([]ifrt.Array, len(arrays))
	specs := make([]ifrt.ArraySpec, len(arrays))
	for i, a := range arrays {
		if specs[i], err = ifrt.CopySpec(a.spec, devices, memoryKind); err != nil {
			return nil, err
		}
		if err := c.checkSharding(specs[i].Sharding); err != nil {
			return nil, err
		}
	}
	for i, a := range arrays {
		shards, err := a.data()
		if err != nil {
			return nil, err
		}
		out[i] = c.newArray(specs[i], shards)
	}
	finish(sem, arrays...)
	return out, nil
}

func (c *Client) Reshard(ctx context.Context, xs []ifrt.Array, specs []ifrt.ArraySpec, sem ifrt.CopySemantics) ([]ifrt.Array, error) {
	if err := c.checkOpen(); err != nil {
		return nil, err
	}
	if len(xs) != len(specs) {
		return nil, ifrt.Errorf(ifrt.InvalidArgument, "gocpu: %d arrays and %d specs", len(xs), len(specs))
	}
	arrays, err := c.take(xs)
	if err != nil {
		return nil, err
	}
	for i, a := range arrays {
		if err := c.checkSpec(specs[i]); err != nil {
			return nil, err
		}
		if specs[i].DType != a.spec.DType || !specs[i].Shape.Equal(a.spec.Shape) {
			return nil, ifrt.Errorf(ifrt.InvalidArgument, "gocpu: cannot reshard %v%v into %v%v",
				a.spec.DType, a.spec.Shape, specs[i].DType, specs[i].Shape)
		}
	}
	out := make([]ifrt.Array, len(arrays))
	for i, a := range arrays {
		full, err := a.dense()
		if err != nil {
			return nil, err
		}
		shards, err := c.split(specs[i], full)
		if err != nil {
			return nil, err
		}
		out[i] = c.newArray(specs[i], shards)
	}
	finish(sem, arrays...)
	return out, nil
}

func (c *Client) Remap(ctx context.Context, plan ifrt.RemapPlan, xs []ifrt.Array, sem ifrt.CopySemantics) ([]ifrt.Array, error) {
	if err := c.checkOpen(); err != nil {
		return nil, err
	}
	arrays, err := c.take(xs)
	if err != nil {
		return nil, err
	}
	if err := ifrt.CheckRemapInputs(plan, xs); err != nil {
		return nil, err
	}
	sources, err := plan.Sources()
	if err != nil {
		return nil, err
	}
	for _, spec := range plan.OutputSpecs {
		if err := c.checkSpec(spec); err != nil {
			return nil, err
		}
	}
	in := make([][][]byte, len(arrays))
	for i, a := range arrays {
		if in[i], err = a.data(); err != nil {
			return nil, err
		}
	}
	out := make([]ifrt.Array, len(sources))
	for i, srcs := range sources {
		shards := make([][]byte, len(srcs))
		for k, src := range srcs {
			shards[k] = in[src.Array][src.Shard]
		}
		out[i] = c.newArray(plan.OutputSpecs[i], shards)
	}
	finish(sem, arrays...)
	return out, nil
}

func (c *Client) FullyReplicatedShard(ctx context.Context, x ifrt.Array, sem ifrt.CopySemantics) (ifrt.Array, error) {
	if err := c.checkOpen(); err != nil {
		return nil, err
	}
	arrays, err := c.take([]ifrt.Array{x})
	if err != nil {
		return nil, err
	}
	a := arrays[0]
	if !a.spec.Sharding.IsFullyReplicated() {
		return nil, ifrt.Errorf(ifrt.FailedPrecondition, "gocpu: %v is not fully replicated", a.spec.Sharding)
	}
	shards, err := a.data()
	if err != nil {
		return nil, err
	}
	spec := a.spec
	spec.Sharding = ifrt.NewSingleDeviceSharding(a.spec.Sharding.Devices()[0], a.spec.Sharding.MemoryKind())
	out := c.newArray(spec, slices.Clone(shards[:1]))
	finish(sem, a)
	return out, nil
}
