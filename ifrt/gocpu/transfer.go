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
	if opts != nil && opts.OnDoneWithHostBuffer != nil {
		// Every path that keeps data asks for no callback; the others copy it
		// before returning.
		defer opts.OnDoneWithHostBuffer()
	}
	dense, err := c.check.HostBuffer(data, spec, opts)
	if err != nil {
		return nil, err
	}
	shards, err := c.split(spec, dense, adoptable(opts))
	if err != nil {
		return nil, err
	}
	return c.newArray(spec, shards), nil
}

// adoptable reports whether the caller gave the buffer away
// (ImmutableZeroCopy with no OnDoneWithHostBuffer, so nobody waits to reuse
// it): shard bytes are never written, so the caller's promise is all it
// takes for an array to keep the buffer as its memory.
func adoptable(opts *ifrt.HostBufferOptions) bool {
	return opts != nil && opts.Semantics == ifrt.ImmutableZeroCopy && opts.OnDoneWithHostBuffer == nil
}

// split cuts dense global contents into per-device shards. Every shard
// holding the whole array (one device's, or each of a replicated array's)
// is one and the same memory: dense itself when adopt, else one copy.
func (c *Client) split(spec ifrt.ArraySpec, dense []byte, adopt bool) ([][]byte, error) {
	domains, err := spec.Sharding.IndexDomains(spec.Shape)
	if err != nil {
		return nil, err
	}
	n, err := spec.Shape.ByteSize(spec.DType)
	if err != nil {
		return nil, err
	}
	var whole []byte
	if adopt {
		whole = dense[:n:n]
	}
	elem := spec.DType.HostByteSize()
	shards := make([][]byte, len(domains))
	for i, dom := range domains {
		if !dom.Shape().Equal(spec.Shape) {
			shards[i] = ifrt.ExtractDomain(dense, elem, spec.Shape, dom)
			continue
		}
		if whole == nil {
			whole = make([]byte, n)
			ifrt.CopyBytes(whole, dense)
		}
		shards[i] = whole
	}
	return shards, nil
}

func (c *Client) AssembleArray(ctx context.Context, spec ifrt.ArraySpec, parts []ifrt.Array, sem ifrt.CopySemantics) (ifrt.Array, error) {
	arrays, err := c.check.Assemble(spec, parts)
	if err != nil {
		return nil, err
	}
	return backend.One(c.derive(arrays, []ifrt.ArraySpec{spec}, sem, func(int) ([][]byte, error) {
		shards := make([][]byte, len(arrays))
		for i, a := range arrays {
			data, err := a.data()
			if err != nil {
				return nil, err
			}
			shards[i] = data[0]
		}
		return shards, nil
	}))
}

func (c *Client) DisassembleArray(ctx context.Context, x ifrt.Array, sem ifrt.CopySemantics) ([]ifrt.Array, error) {
	a, specs, err := c.check.Disassemble(x)
	if err != nil {
		return nil, err
	}
	return c.shardEach(a, specs, sem)
}

// shardEach makes an array of specs[i] from shard i of a, for each spec.
func (c *Client) shardEach(a *array, specs []ifrt.ArraySpec, sem ifrt.CopySemantics) ([]ifrt.Array, error) {
	shards, err := a.data()
	if err != nil {
		return nil, err
	}
	return c.derive([]*array{a}, specs, sem, func(i int) ([][]byte, error) { return [][]byte{shards[i]}, nil })
}

func (c *Client) CopyArrays(ctx context.Context, xs []ifrt.Array, devices ifrt.DeviceList, memoryKind *ifrt.MemoryKind, sem ifrt.CopySemantics) ([]ifrt.Array, error) {
	arrays, specs, err := c.check.Copy(xs, devices, memoryKind)
	if err != nil {
		return nil, err
	}
	return c.derive(arrays, specs, sem, func(i int) ([][]byte, error) { return arrays[i].data() })
}

func (c *Client) Reshard(ctx context.Context, xs []ifrt.Array, specs []ifrt.ArraySpec, sem ifrt.CopySemantics) ([]ifrt.Array, error) {
	arrays, err := c.check.Reshard(xs, specs)
	if err != nil {
		return nil, err
	}
	return c.derive(arrays, specs, sem, func(i int) ([][]byte, error) {
		full, err := arrays[i].dense()
		if err != nil {
			return nil, err
		}
		return c.split(specs[i], full, true) // shard bytes are never written: share them
	})
}

func (c *Client) Remap(ctx context.Context, plan ifrt.RemapPlan, xs []ifrt.Array, sem ifrt.CopySemantics) ([]ifrt.Array, error) {
	arrays, sources, err := c.check.Remap(plan, xs)
	if err != nil {
		return nil, err
	}
	in := make([][][]byte, len(arrays))
	for i, a := range arrays {
		if in[i], err = a.data(); err != nil {
			return nil, err
		}
	}
	return c.derive(arrays, plan.OutputSpecs, sem, func(i int) ([][]byte, error) {
		shards := make([][]byte, len(sources[i]))
		for k, src := range sources[i] {
			shards[k] = in[src.Array][src.Shard]
		}
		return shards, nil
	})
}

func (c *Client) FullyReplicatedShard(ctx context.Context, x ifrt.Array, sem ifrt.CopySemantics) (ifrt.Array, error) {
	a, spec, err := c.check.FullyReplicated(x)
	if err != nil {
		return nil, err
	}
	return backend.One(c.shardEach(a, []ifrt.ArraySpec{spec}, sem))
}

// derive makes one array of specs[i] from shards(i) for each spec, then
// retires the inputs as sem says.
func (c *Client) derive(inputs []*array, specs []ifrt.ArraySpec, sem ifrt.CopySemantics, shards func(i int) ([][]byte, error)) ([]ifrt.Array, error) {
	return backend.Derive(inputs, specs, sem, shards, nil, c.newArray)
}
