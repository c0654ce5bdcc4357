package pjrtifrt

import (
	"context"
	"slices"
	"sync"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/ifrt/backend"
	"github.com/openpathways/pathways/pjrt"
)

// checkSpec validates spec for an array on this client.
func (c *Client) checkSpec(spec ifrt.ArraySpec) error {
	if err := spec.Validate(); err != nil {
		return err
	}
	if spec.DType == ifrt.STRING || spec.DType == ifrt.TOKEN {
		return ifrt.Errorf(ifrt.Unimplemented, "pjrtifrt: %v arrays are not supported", spec.DType)
	}
	if !spec.Layout.IsRowMajor() {
		return ifrt.Errorf(ifrt.Unimplemented, "pjrtifrt: only the row-major layout is supported, got %v", spec.Layout.MinorToMajor)
	}
	return c.checkSharding(spec.Sharding)
}

// upload makes a buffer of spec's dtype and shape dims from dense host data on
// device d's memory of the given kind.
func (c *Client) upload(ctx context.Context, host []byte, d ifrt.DType, dims ifrt.Shape, dev *ifrt.Device, kind ifrt.MemoryKind, sem pjrt.HostBufferSemantics) (*pjrt.Buffer, error) {
	t, ok := BufferType(d)
	if !ok {
		return nil, ifrt.Errorf(ifrt.Unimplemented, "pjrtifrt: %v has no PJRT element type", d)
	}
	mem, err := c.memoryFor(dev, kind)
	if err != nil {
		return nil, err
	}
	b, err := c.pc.BufferFromHost(ctx, host, t, dims, &pjrt.HostBufferOptions{Semantics: sem, Memory: mem})
	if err != nil {
		return nil, fromPJRT(err)
	}
	return b, nil
}

func (c *Client) MakeArrayFromHostBuffer(ctx context.Context, data []byte, spec ifrt.ArraySpec, opts *ifrt.HostBufferOptions) (ifrt.Array, error) {
	if opts == nil {
		opts = &ifrt.HostBufferOptions{}
	}
	done := sync.OnceFunc(func() {
		if opts.OnDoneWithHostBuffer != nil {
			opts.OnDoneWithHostBuffer()
		}
	})
	fail := func(err error) (ifrt.Array, error) {
		done()
		return nil, err
	}
	if err := c.checkOpen(); err != nil {
		return fail(err)
	}
	if err := c.checkSpec(spec); err != nil {
		return fail(err)
	}
	if err := ifrt.CheckHostBuffer(spec.DType, spec.Shape, opts.ByteStrides, len(data)); err != nil {
		return fail(err)
	}
	var psem pjrt.HostBufferSemantics
	switch opts.Semantics {
	case ifrt.ImmutableOnlyDuringCall:
		psem = pjrt.ImmutableOnlyDuringCall
	case ifrt.ImmutableUntilTransferCompletes:
		psem = pjrt.ImmutableUntilTransferCompletes
	case ifrt.ImmutableZeroCopy:
		psem = pjrt.ImmutableZeroCopy
	default:
		return fail(ifrt.Errorf(ifrt.InvalidArgument, "pjrtifrt: unknown host buffer semantics %v", opts.Semantics))
	}
	dense := data
	if opts.ByteStrides != nil && !isDense(spec, opts.ByteStrides) {
		n, _ := spec.Shape.ByteSize(spec.DType)
		dense = make([]byte, n)
		ifrt.CopyStridedToDense(dense, data, spec.DType, spec.Shape, opts.ByteStrides)
		psem = pjrt.ImmutableOnlyDuringCall // the copy is ours
	}
	domains, err := spec.Sharding.IndexDomains(spec.Shape)
	if err != nil {
		return fail(err)
	}
	full := ifrt.FullDomain(spec.Shape).String()
	elem := spec.DType.HostByteSize()
	bufs := make([]*devBuf, len(domains))
	var hostDone []*pjrt.Event
	for i, dom := range domains {
		host, sem := dense, psem
		if dom.String() != full {
			host, sem = ifrt.ExtractDomain(dense, elem, spec.Shape, dom), pjrt.ImmutableOnlyDuringCall
		}
		b, err := c.upload(ctx, host, spec.DType, dom.Shape(), spec.Sharding.Devices()[i], spec.Sharding.MemoryKind(), sem)
		if err != nil {
			releaseAll(bufs)
			for _, ev := range hostDone {
				<-ev.Done()
			}
			return fail(err)
		}
		bufs[i] = newDevBuf(b)
		if ev := b.HostDone(); ev != nil {
			hostDone = append(hostDone, ev)
		}
	}
	if len(hostDone) == 0 {
		done()
	} else {
		go func() {
			for _, ev := range hostDone {
				<-ev.Done()
			}
			done()
		}()
	}
	return c.newArray(spec, bufs), nil
}

// place returns b on dev's memory of the given kind: b itself (a new
// reference) when it is there already and the semantics let results share
// memory with inputs, else a copy.
func (c *Client) place(ctx context.Context, b *devBuf, dev *ifrt.Device, kind ifrt.MemoryKind, sem ifrt.CopySemantics) (*devBuf, error) {
	mem, err := c.memoryFor(dev, kind)
	if err != nil {
		return nil, err
	}
	if sem != ifrt.AlwaysCopy && b.buf.Memory() == mem {
		return b.retain(), nil
	}
	nb, err := b.buf.CopyToMemory(ctx, mem)
	if err != nil && ifrt.CodeOf(err) == ifrt.Unimplemented && kind == "" {
		nb, err = b.buf.CopyToDevice(ctx, c.pjrtDev[dev.ID])
	}
	if err != nil && ifrt.CodeOf(err) == ifrt.Unimplemented {
		return c.copyViaHost(ctx, b, mem)
	}
	if err != nil {
		return nil, fromPJRT(err)
	}
	return newDevBuf(nb), nil
}

// copyViaHost copies a buffer through host memory, for plugins that cannot copy
// between the two memories themselves.
func (c *Client) copyViaHost(ctx context.Context, b *devBuf, mem *pjrt.Memory) (*devBuf, error) {
	n, err := b.buf.HostSize()
	if err != nil {
		return nil, fromPJRT(err)
	}
	host := make([]byte, n)
	if err := readBuffer(ctx, b.buf, host); err != nil {
		return nil, err
	}
	nb, err := c.pc.BufferFromHost(ctx, host, b.buf.Type(), b.buf.Dims(), &pjrt.HostBufferOptions{Memory: mem})
	if err != nil {
		return nil, fromPJRT(err)
	}
	return newDevBuf(nb), nil
}

func (c *Client) AssembleArray(ctx context.Context, spec ifrt.ArraySpec, parts []ifrt.Array, sem ifrt.CopySemantics) (ifrt.Array, error) {
	arrays, err := c.check.Assemble(spec, parts)
	if err != nil {
		return nil, err
	}
	held := make([]*devBuf, len(arrays))
	defer releaseAll(held)
	for i, a := range arrays {
		bufs, err := a.hold()
		if err != nil {
			return nil, err
		}
		held[i] = bufs[0]
	}
	return backend.One(c.derive(arrays, []ifrt.ArraySpec{spec}, sem, func(int) ([]*devBuf, error) {
		return c.placeAll(ctx, held, spec.Sharding.Devices(), spec.Sharding.MemoryKind(), sem)
	}))
}

func (c *Client) DisassembleArray(ctx context.Context, x ifrt.Array, sem ifrt.CopySemantics) ([]ifrt.Array, error) {
	a, specs, err := c.check.Disassemble(x)
	if err != nil {
		return nil, err
	}
	return c.placeEach(ctx, a, specs, sem)
}

// placeEach makes an array of specs[i] from shard i of a, for each spec.
func (c *Client) placeEach(ctx context.Context, a *array, specs []ifrt.ArraySpec, sem ifrt.CopySemantics) ([]ifrt.Array, error) {
	held, err := a.hold()
	if err != nil {
		return nil, err
	}
	defer releaseAll(held)
	return c.derive([]*array{a}, specs, sem, func(i int) ([]*devBuf, error) {
		return c.placeAll(ctx, held[i:i+1], specs[i].Sharding.Devices(), specs[i].Sharding.MemoryKind(), sem)
	})
}

func (c *Client) CopyArrays(ctx context.Context, xs []ifrt.Array, devices ifrt.DeviceList, memoryKind *ifrt.MemoryKind, sem ifrt.CopySemantics) ([]ifrt.Array, error) {
	arrays, specs, err := c.check.Copy(xs, devices, memoryKind)
	if err != nil {
		return nil, err
	}
	return c.derive(arrays, specs, sem, func(i int) ([]*devBuf, error) {
		held, err := arrays[i].hold()
		if err != nil {
			return nil, err
		}
		defer releaseAll(held)
		return c.placeAll(ctx, held, devices, specs[i].Sharding.MemoryKind(), sem)
	})
}

// placeAll places bufs[k] on devs[k] (see place); after a failure it
// releases what it placed.
func (c *Client) placeAll(ctx context.Context, bufs []*devBuf, devs ifrt.DeviceList, kind ifrt.MemoryKind, sem ifrt.CopySemantics) ([]*devBuf, error) {
	out := make([]*devBuf, len(bufs))
	for k, b := range bufs {
		var err error
		if out[k], err = c.place(ctx, b, devs[k], kind, sem); err != nil {
			releaseAll(out)
			return nil, err
		}
	}
	return out, nil
}

// derive makes one array of specs[i] from the buffers bufs(i) for each
// spec, then retires the inputs as sem says; after a failure it releases
// the buffers made.
func (c *Client) derive(inputs []*array, specs []ifrt.ArraySpec, sem ifrt.CopySemantics, bufs func(i int) ([]*devBuf, error)) ([]ifrt.Array, error) {
	return backend.Derive(inputs, specs, sem, bufs, releaseAll, c.newArray)
}

// Reshard moves shards whose domain some input shard already holds with device
// copies (or shares them, when on the same memory and sem allows); shards of a
// domain no input shard holds are cut from the array's contents on the host.
func (c *Client) Reshard(ctx context.Context, xs []ifrt.Array, specs []ifrt.ArraySpec, sem ifrt.CopySemantics) ([]ifrt.Array, error) {
	arrays, err := c.check.Reshard(xs, specs)
	if err != nil {
		return nil, err
	}
	return c.derive(arrays, specs, sem, func(i int) ([]*devBuf, error) { return c.reshardOne(ctx, arrays[i], specs[i], sem) })
}

func (c *Client) reshardOne(ctx context.Context, a *array, spec ifrt.ArraySpec, sem ifrt.CopySemantics) ([]*devBuf, error) {
	src, err := a.ArraySpec.Sharding.IndexDomains(a.ArraySpec.Shape)
	if err != nil {
		return nil, err
	}
	dst, err := spec.Sharding.IndexDomains(spec.Shape)
	if err != nil {
		return nil, err
	}
	held, err := a.hold()
	if err != nil {
		return nil, err
	}
	defer releaseAll(held)
	var dense []byte // the whole array, fetched once if needed
	elem := spec.DType.HostByteSize()
	out := make([]*devBuf, len(dst))
	for j, dom := range dst {
		dev := spec.Sharding.Devices()[j]
		mem, err := c.memoryFor(dev, spec.Sharding.MemoryKind())
		if err != nil {
			releaseAll(out)
			return nil, err
		}
		best := -1
		for i, s := range src {
			if slices.Equal(s, dom) {
				if held[i].buf.Memory() == mem {
					best = i
					break
				}
				if best < 0 {
					best = i
				}
			}
		}
		if best >= 0 {
			out[j], err = c.place(ctx, held[best], dev, spec.Sharding.MemoryKind(), sem)
		} else {
			if dense == nil {
				dense, err = c.fetchDense(ctx, a.ArraySpec, held, nil, nil)
			}
			if err == nil {
				var b *pjrt.Buffer
				host := ifrt.ExtractDomain(dense, elem, spec.Shape, dom)
				b, err = c.upload(ctx, host, spec.DType, dom.Shape(), dev, spec.Sharding.MemoryKind(), pjrt.ImmutableOnlyDuringCall)
				if err == nil {
					out[j] = newDevBuf(b)
				}
			}
		}
		if err != nil {
			releaseAll(out)
			return nil, err
		}
	}
	return out, nil
}

func (c *Client) Remap(ctx context.Context, plan ifrt.RemapPlan, xs []ifrt.Array, sem ifrt.CopySemantics) ([]ifrt.Array, error) {
	arrays, sources, err := c.check.Remap(plan, xs)
	if err != nil {
		return nil, err
	}
	held := make([][]*devBuf, len(arrays))
	defer func() {
		for _, h := range held {
			releaseAll(h)
		}
	}()
	for i, a := range arrays {
		if held[i], err = a.hold(); err != nil {
			return nil, err
		}
	}
	return c.derive(arrays, plan.OutputSpecs, sem, func(i int) ([]*devBuf, error) {
		from := make([]*devBuf, len(sources[i]))
		for k, src := range sources[i] {
			from[k] = held[src.Array][src.Shard]
		}
		spec := plan.OutputSpecs[i]
		return c.placeAll(ctx, from, spec.Sharding.Devices(), spec.Sharding.MemoryKind(), sem)
	})
}

func (c *Client) FullyReplicatedShard(ctx context.Context, x ifrt.Array, sem ifrt.CopySemantics) (ifrt.Array, error) {
	a, spec, err := c.check.FullyReplicated(x)
	if err != nil {
		return nil, err
	}
	return backend.One(c.placeEach(ctx, a, []ifrt.ArraySpec{spec}, sem))
}
