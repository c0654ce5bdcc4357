package cluster

import (
	"context"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/ifrt/backend"
)

func (c *Client) AssembleArray(ctx context.Context, spec ifrt.ArraySpec, parts []ifrt.Array, sem ifrt.CopySemantics) (ifrt.Array, error) {
	arrays, err := c.check().Assemble(spec, parts)
	if err != nil {
		return nil, err
	}
	places, domains, err := c.checkSpec(spec)
	if err != nil {
		return nil, err
	}
	src := make([]*shard, len(arrays))
	for i, a := range arrays {
		shards, err := a.live()
		if err != nil {
			return nil, ifrt.Errorf(ifrt.CodeOf(err), "cluster: array %d: %w", i, err)
		}
		s := *shards[0]
		s.domain = domains[i]
		src[i] = &s
	}
	shards, err := c.adopt(ctx, sem, spec.Sharding.MemoryKind(), src, places, arrays...)
	if err != nil {
		return nil, err
	}
	return &array{c: c, Described: backend.Described{ArraySpec: spec}, shards: shards}, nil
}

// adopt returns shards for a new array that holds exactly the given source shards
// in place: donated inputs hand theirs over; otherwise each is copied.
func (c *Client) adopt(ctx context.Context, sem ifrt.CopySemantics, kind ifrt.MemoryKind, src []*shard, places []*placement, inputs ...*array) ([]*shard, error) {
	if sem == ifrt.DonateInput && sameKind(src, kind) {
		for _, a := range inputs {
			a.release()
		}
		return src, nil
	}
	out := make([]*shard, len(src))
	err := parallel(len(src), func(i int) error {
		var err error
		out[i], err = c.copyShard(ctx, src[i], places[i], src[i].domain, kind)
		return err
	})
	if err != nil {
		deleteShards(out)
		return nil, err
	}
	backend.Donate(sem, inputs...)
	return out, nil
}

func sameKind(src []*shard, kind ifrt.MemoryKind) bool {
	for _, s := range src {
		if s.array.Sharding().MemoryKind() != kind {
			return false
		}
	}
	return true
}

func (c *Client) DisassembleArray(ctx context.Context, x ifrt.Array, sem ifrt.CopySemantics) ([]ifrt.Array, error) {
	a, err := c.check().Array(x)
	if err != nil {
		return nil, err
	}
	shards, err := a.live()
	if err != nil {
		return nil, err
	}
	kind := a.ArraySpec.Sharding.MemoryKind()
	places := make([]*placement, len(shards))
	for i, s := range shards {
		places[i] = s.place
	}
	parts, err := c.adopt(ctx, sem, kind, shards, places, a)
	if err != nil {
		return nil, err
	}
	out := make([]ifrt.Array, len(parts))
	for i, s := range parts {
		spec := localSpec(a.ArraySpec.DType, s.domain, s.place.device, kind)
		spec.Layout = a.ArraySpec.Layout
		s.domain = ifrt.FullDomain(spec.Shape)
		out[i] = &array{c: c, Described: backend.Described{ArraySpec: spec}, shards: []*shard{s}}
	}
	return out, nil
}

func (c *Client) CopyArrays(ctx context.Context, xs []ifrt.Array, devices ifrt.DeviceList, memoryKind *ifrt.MemoryKind, sem ifrt.CopySemantics) ([]ifrt.Array, error) {
	_, specs, err := c.check().Copy(xs, devices, memoryKind)
	if err != nil {
		return nil, err
	}
	return c.Reshard(ctx, xs, specs, sem)
}

func (c *Client) Reshard(ctx context.Context, xs []ifrt.Array, specs []ifrt.ArraySpec, sem ifrt.CopySemantics) ([]ifrt.Array, error) {
	arrays, err := c.check().Reshard(xs, specs)
	if err != nil {
		return nil, err
	}
	out := make([]ifrt.Array, len(arrays))
	for i, a := range arrays {
		spec := specs[i]
		places, domains, err := c.checkSpec(spec)
		if err != nil {
			return nil, err
		}
		src, err := a.live()
		if err != nil {
			return nil, err
		}
		shards, err := c.place(ctx, spec.DType, spec.Sharding.MemoryKind(), src, places, domains)
		if err != nil {
			return nil, err
		}
		out[i] = &array{c: c, Described: backend.Described{ArraySpec: spec}, shards: shards}
	}
	backend.Donate(sem, arrays...)
	return out, nil
}

func (c *Client) Remap(ctx context.Context, plan ifrt.RemapPlan, xs []ifrt.Array, sem ifrt.CopySemantics) ([]ifrt.Array, error) {
	arrays, sources, err := c.check().Remap(plan, xs)
	if err != nil {
		return nil, err
	}
	in := make([][]*shard, len(arrays))
	for i, a := range arrays {
		if in[i], err = a.live(); err != nil {
			return nil, err
		}
	}
	type move struct {
		from     *shard
		out, pos int
	}
	var moves []move
	outPlaces := make([][]*placement, len(plan.OutputSpecs))
	outDomains := make([][]ifrt.IndexDomain, len(plan.OutputSpecs))
	for i, spec := range plan.OutputSpecs {
		if outPlaces[i], outDomains[i], err = c.checkSpec(spec); err != nil {
			return nil, err
		}
		for k, src := range sources[i] {
			moves = append(moves, move{in[src.Array][src.Shard], i, k})
		}
	}
	shards := make([][]*shard, len(plan.OutputSpecs))
	for i := range shards {
		shards[i] = make([]*shard, len(outPlaces[i]))
	}
	err = parallel(len(moves), func(k int) error {
		m := moves[k]
		s, err := c.copyShard(ctx, m.from, outPlaces[m.out][m.pos], outDomains[m.out][m.pos], plan.OutputSpecs[m.out].Sharding.MemoryKind())
		shards[m.out][m.pos] = s
		return err
	})
	if err != nil {
		for _, s := range shards {
			deleteShards(s)
		}
		return nil, err
	}
	out := make([]ifrt.Array, len(shards))
	for i := range shards {
		out[i] = &array{c: c, Described: backend.Described{ArraySpec: plan.OutputSpecs[i]}, shards: shards[i]}
	}
	backend.Donate(sem, arrays...)
	return out, nil
}

func (c *Client) FullyReplicatedShard(ctx context.Context, x ifrt.Array, sem ifrt.CopySemantics) (ifrt.Array, error) {
	a, spec, err := c.check().FullyReplicated(x)
	if err != nil {
		return nil, err
	}
	shards, err := a.live()
	if err != nil {
		return nil, err
	}
	if len(shards) == 1 && sem == ifrt.ReuseInput {
		return a.view(spec)
	}
	first := shards[0]
	s, err := c.copyShard(ctx, first, first.place, first.domain, spec.Sharding.MemoryKind())
	if err != nil {
		return nil, err
	}
	backend.Donate(sem, a)
	return &array{c: c, Described: backend.Described{ArraySpec: spec}, shards: []*shard{s}}, nil
}
