package gocpu

import (
	"context"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/ifrt/backend"
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
	if _, err := backend.CheckAssemble("gocpu", spec, parts); err != nil {
		return nil, err
	}
	shards := make([][]byte, len(arrays))
	for i, a := range arrays {
		data, err := a.data()
		if err != nil {
			return nil, err
		}
		shards[i] = data[0]
	}
	out := c.newArray(spec, shards)
	backend.Donate(sem, arrays...)
	return out, nil
}

func (c *Client) DisassembleArray(ctx context.Context, x ifrt.Array, sem ifrt.CopySemantics) ([]ifrt.Array, error) {
	if err := c.checkOpen(); err != nil {
		return nil, err
	}
	a, err := c.takeOne(x)
	if err != nil {
		return nil, err
	}
	shards, err := a.data()
	if err != nil {
		return nil, err
	}
	specs, err := backend.DisassembleSpecs(a.spec)
	if err != nil {
		return nil, err
	}
	out := make([]ifrt.Array, len(shards))
	for i, spec := range specs {
		out[i] = c.newArray(spec, [][]byte{shards[i]})
	}
	backend.Donate(sem, a)
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
	specs, err := backend.CheckCopy("gocpu", xs, devices, memoryKind)
	if err != nil {
		return nil, err
	}
	for _, spec := range specs {
		if err := c.checkSharding(spec.Sharding); err != nil {
			return nil, err
		}
	}
	out := make([]ifrt.Array, len(arrays))
	for i, a := range arrays {
		shards, err := a.data()
		if err != nil {
			return nil, err
		}
		out[i] = c.newArray(specs[i], shards)
	}
	backend.Donate(sem, arrays...)
	return out, nil
}

func (c *Client) Reshard(ctx context.Context, xs []ifrt.Array, specs []ifrt.ArraySpec, sem ifrt.CopySemantics) ([]ifrt.Array, error) {
	if err := c.checkOpen(); err != nil {
		return nil, err
	}
	arrays, err := c.take(xs)
	if err != nil {
		return nil, err
	}
	if err := backend.CheckReshard("gocpu", xs, specs); err != nil {
		return nil, err
	}
	for _, spec := range specs {
		if err := c.checkSpec(spec); err != nil {
			return nil, err
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
	backend.Donate(sem, arrays...)
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
	sources, err := backend.CheckRemap(plan, xs)
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
	backend.Donate(sem, arrays...)
	return out, nil
}

func (c *Client) FullyReplicatedShard(ctx context.Context, x ifrt.Array, sem ifrt.CopySemantics) (ifrt.Array, error) {
	if err := c.checkOpen(); err != nil {
		return nil, err
	}
	a, err := c.takeOne(x)
	if err != nil {
		return nil, err
	}
	spec, err := backend.CheckFullyReplicated("gocpu", a)
	if err != nil {
		return nil, err
	}
	shards, err := a.data()
	if err != nil {
		return nil, err
	}
	out := c.newArray(spec, shards[:1])
	backend.Donate(sem, a)
	return out, nil
}
