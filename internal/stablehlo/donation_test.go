package stablehlo

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestDonatedParams checks which parameters an execution consumes: explicit
// aliases always, buffer donors only where an output of their type and
// sharding is left for them, first donor first.
func TestDonatedParams(t *testing.T) {
	const s = `mhlo.sharding = "{devices=[2,1]<=[2]}"`
	const f4 = "tensor<4xf32>"
	for _, c := range []struct {
		name, params, results, ret string
		want                       []int
	}{
		{"alias_and_unused_donor", "%a: tensor<4xf32> {tf.aliasing_output = 0 : i32}, %b: tensor<4xf32>", f4, "%b : " + f4, []int{0}},
		{"two_donors_one_output", "%a: tensor<4xf32> {jax.buffer_donor = true}, %b: tensor<4xf32> {jax.buffer_donor = true}", f4, "%b : " + f4, []int{0}},
		{"two_donors_two_outputs", "%a: tensor<4xf32> {jax.buffer_donor = true}, %b: tensor<4xf32> {jax.buffer_donor = true}",
			f4 + ", " + f4, "%b, %a : " + f4 + ", " + f4, []int{0, 1}},
		{"output_taken_by_an_alias", "%a: tensor<4xf32> {jax.buffer_donor = true}, %b: tensor<4xf32> {tf.aliasing_output = 0 : i32}", f4, "%a : " + f4, []int{1}},
		{"other_type", "%a: tensor<4xi32> {jax.buffer_donor = true}, %b: tensor<4xf32> {jax.buffer_donor = true}", f4, "%b : " + f4, []int{1}},
		{"other_sharding", "%a: tensor<4xf32> {jax.buffer_donor = true, mhlo.sharding = \"{replicated}\"}, %b: tensor<4xf32> {jax.buffer_donor = true, " + s + "}",
			f4 + " {" + s + "}", "%b : " + f4, []int{1}},
		{"unannotated_output", "%a: tensor<4xf32> {jax.buffer_donor = true, " + s + "}", f4, "%a : " + f4, []int{0}},
		{"none", "%a: tensor<4xf32>", f4, "%a : " + f4, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := mustParse(t, "func.func @main("+c.params+") -> ("+c.results+") {\n  return "+c.ret+"\n}")
			if got := m.Main().DonatedParams(); !cmp.Equal(got, c.want) {
				t.Errorf("DonatedParams() = %v, want %v", got, c.want)
			}
		})
	}
}
