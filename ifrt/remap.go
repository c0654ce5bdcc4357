package ifrt

// ShardSource names one shard of a remap's inputs: shard Shard (a position in the
// device list of its sharding) of input array Array.
type ShardSource struct{ Array, Shard int }

// Sources checks the plan against its specs and returns, for each output array and
// each of its shards in order, the input shard it is made of. Every output shard must
// be filled exactly from a shard of the same dtype and shape. Callers check that
// the arrays they remap match InputSpecs.
func (p RemapPlan) Sources() ([][]ShardSource, error) {
	inDomains := make([][]IndexDomain, len(p.InputSpecs))
	for i, spec := range p.InputSpecs {
		if err := spec.Validate(); err != nil {
			return nil, err
		}
		inDomains[i], _ = spec.Sharding.IndexDomains(spec.Shape)
	}
	outDomains := make([][]IndexDomain, len(p.OutputSpecs))
	sources := make([][]ShardSource, len(p.OutputSpecs))
	filled := make([][]bool, len(p.OutputSpecs))
	for i, spec := range p.OutputSpecs {
		if err := spec.Validate(); err != nil {
			return nil, err
		}
		outDomains[i], _ = spec.Sharding.IndexDomains(spec.Shape)
		sources[i] = make([]ShardSource, len(outDomains[i]))
		filled[i] = make([]bool, len(outDomains[i]))
	}
	for _, m := range p.Mappings {
		if m.InArray < 0 || m.InArray >= len(p.InputSpecs) || m.OutArray < 0 || m.OutArray >= len(p.OutputSpecs) {
			return nil, Errorf(InvalidArgument, "ifrt: remap mapping %d->%d is out of range", m.InArray, m.OutArray)
		}
		from, err := expandIntervals(m.From, len(inDomains[m.InArray]))
		if err != nil {
			return nil, err
		}
		to, err := expandIntervals(m.To, len(outDomains[m.OutArray]))
		if err != nil {
			return nil, err
		}
		if len(from) != len(to) {
			return nil, Errorf(InvalidArgument, "ifrt: remap moves %d shards into %d places", len(from), len(to))
		}
		in, out := p.InputSpecs[m.InArray], p.OutputSpecs[m.OutArray]
		for k := range from {
			f, t := from[k], to[k]
			if in.DType != out.DType || !inDomains[m.InArray][f].Shape().Equal(outDomains[m.OutArray][t].Shape()) {
				return nil, Errorf(InvalidArgument, "ifrt: remap shard %d of input %d (%v%v) does not fit shard %d of output %d (%v%v)",
					f, m.InArray, in.DType, inDomains[m.InArray][f].Shape(), t, m.OutArray, out.DType, outDomains[m.OutArray][t].Shape())
			}
			if filled[m.OutArray][t] {
				return nil, Errorf(InvalidArgument, "ifrt: remap fills shard %d of output %d twice", t, m.OutArray)
			}
			filled[m.OutArray][t] = true
			sources[m.OutArray][t] = ShardSource{Array: m.InArray, Shard: int(f)}
		}
	}
	for i, f := range filled {
		for k, ok := range f {
			if !ok {
				return nil, Errorf(InvalidArgument, "ifrt: remap leaves shard %d of output %d missing", k, i)
			}
		}
	}
	return sources, nil
}

// CheckRemapInputs checks that arrays are what plan's InputSpecs describe.
func CheckRemapInputs(plan RemapPlan, arrays []Array) error {
	if len(arrays) != len(plan.InputSpecs) {
		return Errorf(InvalidArgument, "ifrt: remap plan takes %d arrays, got %d", len(plan.InputSpecs), len(arrays))
	}
	for i, a := range arrays {
		spec := plan.InputSpecs[i]
		if a.DType() != spec.DType || !a.Shape().Equal(spec.Shape) || !EquivalentShardings(a.Sharding(), spec.Sharding, spec.Shape) {
			return Errorf(InvalidArgument, "ifrt: remap input %d is %v%v with %v, the plan says %v%v with %v",
				i, a.DType(), a.Shape(), a.Sharding(), spec.DType, spec.Shape, spec.Sharding)
		}
	}
	return nil
}

// expandIntervals lists the positions of ivs, none of which may reach limit (the
// number of shards), so that a malformed plan cannot make it allocate without bound.
func expandIntervals(ivs []Interval, limit int) ([]int64, error) {
	var out []int64
	for _, iv := range ivs {
		if iv.End > int64(limit) {
			return nil, Errorf(InvalidArgument, "ifrt: remap interval [%d:%d:%d] reaches past the %d shards", iv.Start, iv.End, iv.Step, limit)
		}
		p, err := iv.Positions()
		if err != nil {
			return nil, err
		}
		out = append(out, p...)
	}
	return out, nil
}
