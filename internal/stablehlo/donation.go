package stablehlo

import (
	"cmp"
	"slices"
)

// DonatedParams returns the parameters an execution of f consumes, as XLA
// decides it (its input-output alias pass): each with tf.aliasing_output,
// and each jax.buffer_donor that an output takes over. XLA pairs donors
// with the outputs no alias claims by size in bytes, largest first, the
// type aside (x.astype(jnp.int32) of a donated float32 x consumes x); here
// each output, largest first, takes the first donor left of its size, in
// its memory kind and with a compatible sharding (the same, or either side
// unannotated, which the partitioner places). A donor no output takes stays
// alive, as on local JAX.
func (f *Func) DonatedParams() []int {
	var donated []int
	taken := make([]bool, len(f.results))
	var donors []int
	for i, v := range f.params {
		if a, aliased := v.Attrs["tf.aliasing_output"]; aliased {
			donated = append(donated, i)
			if a.Kind == AttrInt && a.Int >= 0 && int(a.Int) < len(taken) {
				taken[a.Int] = true
			}
		} else if v.DonorOrAlias {
			donors = append(donors, i)
		}
	}
	var outs []int
	for k := range f.results {
		if !taken[k] {
			outs = append(outs, k)
		}
	}
	largestFirst := func(vs []Value) func(a, b int) int {
		return func(a, b int) int { return cmp.Compare(vs[b].Type.byteSize(), vs[a].Type.byteSize()) }
	}
	slices.SortStableFunc(donors, largestFirst(f.params))
	slices.SortStableFunc(outs, largestFirst(f.results))
	for _, k := range outs {
		out := f.results[k]
		for j, i := range donors {
			p := f.params[i]
			if p.Type.byteSize() == out.Type.byteSize() && memoryKind(p) == memoryKind(out) &&
				(p.Sharding == out.Sharding || p.Sharding == "" || out.Sharding == "") {
				donated = append(donated, i)
				donors = slices.Delete(donors, j, j+1)
				break
			}
		}
	}
	slices.Sort(donated)
	return donated
}

// memoryKind is a parameter's or result's mhlo.memory_kind, "" for the
// device's own memory.
func memoryKind(v Value) string {
	if a := v.Attrs["mhlo.memory_kind"]; a != nil && a.Kind == AttrString && a.Str != "device" {
		return a.Str
	}
	return ""
}
