package stablehlo

import "slices"

// DonatedParams returns the parameters an execution of f consumes, as XLA
// decides it: each with tf.aliasing_output, and each jax.buffer_donor that
// it can alias to an output. JAX marks every donated argument of a sharded
// program a donor and leaves the matching to XLA, which gives each output,
// in order, the first unmatched donor of the same type and sharding (an
// unannotated one, which the partitioner places, may match any); a donor no
// output takes is not donated (JAX warns "Some donated buffers were not
// usable" and the argument stays alive).
func (f *Func) DonatedParams() []int {
	var donated []int
	taken := make([]bool, len(f.results))
	var donors []int
	for i, v := range f.params {
		a, aliased := v.Attrs["tf.aliasing_output"]
		switch {
		case aliased:
			donated = append(donated, i)
			if a.Kind == AttrInt && a.Int >= 0 && int(a.Int) < len(taken) {
				taken[a.Int] = true
			}
		case v.DonorOrAlias:
			donors = append(donors, i)
		}
	}
	for k, out := range f.results {
		if taken[k] {
			continue
		}
		for j, i := range donors {
			if p := f.params[i]; p.Type.Equal(out.Type) && (p.Sharding == out.Sharding || p.Sharding == "" || out.Sharding == "") {
				donated = append(donated, i)
				donors = slices.Delete(donors, j, j+1)
				break
			}
		}
	}
	slices.Sort(donated)
	return donated
}
