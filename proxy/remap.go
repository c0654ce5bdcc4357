package proxy

import "github.com/openpathways/pathways/ifrt"

// checkRemap validates a remap plan against its input arrays before it is sent,
// so that a bad plan fails in the call even when dispatching asynchronously:
// array indices and shard positions in range, matching dtypes, shards that fit
// the places they move to, and every output shard filled.
func checkRemap(plan ifrt.RemapPlan, ins []*array) error {
	if len(plan.InputSpecs) != len(ins) {
		return ifrt.Errorf(ifrt.InvalidArgument, "proxy: Remap: %d arrays for a plan with %d inputs", len(ins), len(plan.InputSpecs))
	}
	inDomains := make([][]ifrt.IndexDomain, len(ins))
	for i, a := range ins {
		s := plan.InputSpecs[i]
		if s.DType != a.spec.DType || !s.Shape.Equal(a.spec.Shape) {
			return ifrt.Errorf(ifrt.InvalidArgument, "proxy: Remap: input %d is %v%v, the plan says %v%v", i, a.spec.DType, a.spec.Shape, s.DType, s.Shape)
		}
		if s.Sharding == nil {
			return ifrt.Errorf(ifrt.InvalidArgument, "proxy: Remap: input spec %d has no sharding", i)
		}
		d, err := s.Sharding.IndexDomains(s.Shape)
		if err != nil {
			return err
		}
		inDomains[i] = d
	}
	outDomains := make([][]ifrt.IndexDomain, len(plan.OutputSpecs))
	filled := make([][]bool, len(plan.OutputSpecs))
	for i, s := range plan.OutputSpecs {
		d, err := s.Sharding.IndexDomains(s.Shape)
		if err != nil {
			return err
		}
		outDomains[i], filled[i] = d, make([]bool, len(d))
	}
	for k, m := range plan.Mappings {
		if m.InArray < 0 || m.InArray >= len(ins) || m.OutArray < 0 || m.OutArray >= len(plan.OutputSpecs) {
			return ifrt.Errorf(ifrt.InvalidArgument, "proxy: Remap: mapping %d moves array %d to %d, out of range", k, m.InArray, m.OutArray)
		}
		if in, out := plan.InputSpecs[m.InArray].DType, plan.OutputSpecs[m.OutArray].DType; in != out {
			return ifrt.Errorf(ifrt.InvalidArgument, "proxy: Remap: mapping %d moves %v shards into a %v array", k, in, out)
		}
		from, err := positions(m.From)
		if err != nil {
			return err
		}
		to, err := positions(m.To)
		if err != nil {
			return err
		}
		if len(from) != len(to) {
			return ifrt.Errorf(ifrt.InvalidArgument, "proxy: Remap: mapping %d moves %d shards into %d places", k, len(from), len(to))
		}
		src, dst := inDomains[m.InArray], outDomains[m.OutArray]
		for j := range from {
			f, t := from[j], to[j]
			if f >= int64(len(src)) || t >= int64(len(dst)) {
				return ifrt.Errorf(ifrt.InvalidArgument, "proxy: Remap: mapping %d moves shard %d to %d, out of range", k, f, t)
			}
			if !src[f].Shape().Equal(dst[t].Shape()) {
				return ifrt.Errorf(ifrt.InvalidArgument, "proxy: Remap: mapping %d moves a %v shard into a %v place", k, src[f].Shape(), dst[t].Shape())
			}
			filled[m.OutArray][t] = true
		}
	}
	for i, f := range filled {
		for j, ok := range f {
			if !ok {
				return ifrt.Errorf(ifrt.InvalidArgument, "proxy: Remap: shard %d of output %d is not filled", j, i)
			}
		}
	}
	return nil
}

func positions(ivs []ifrt.Interval) ([]int64, error) {
	var out []int64
	for _, iv := range ivs {
		p, err := iv.Positions()
		if err != nil {
			return nil, err
		}
		out = append(out, p...)
	}
	return out, nil
}
