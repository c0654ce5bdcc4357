package stablehlo

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestDonatedParams checks which parameters an execution consumes, as XLA
// pairs them: explicit aliases always, buffer donors where an output no
// alias claims has their size in bytes and a compatible sharding, largest
// first.
func TestDonatedParams(t *testing.T) {
	const s = `mhlo.sharding = "{devices=[2,1]<=[2]}"`
	const f4 = "tensor<4xf32>"
	for _, c := range []struct {
		name, params, results, ret string
		want                       []int
	}{
		{"alias_and_unmarked", "%a: tensor<4xf32> {tf.aliasing_output = 0 : i32}, %b: tensor<4xf32>", f4, "%b : " + f4, []int{0}},
		{"two_donors_one_output", "%a: tensor<4xf32> {jax.buffer_donor = true}, %b: tensor<4xf32> {jax.buffer_donor = true}", f4, "%b : " + f4, []int{0}},
		{"two_donors_two_outputs", "%a: tensor<4xf32> {jax.buffer_donor = true}, %b: tensor<4xf32> {jax.buffer_donor = true}",
			f4 + ", " + f4, "%b, %a : " + f4 + ", " + f4, []int{0, 1}},
		{"output_taken_by_an_alias", "%a: tensor<4xf32> {jax.buffer_donor = true}, %b: tensor<4xf32> {tf.aliasing_output = 0 : i32}", f4, "%a : " + f4, []int{1}},
		{"other_type_same_bytes", "%a: tensor<4xf32> {jax.buffer_donor = true}", "tensor<4xi32>", "%c : tensor<4xi32>", []int{0}},
		{"other_bytes", "%a: tensor<4xf64> {jax.buffer_donor = true}, %b: tensor<4xf32> {jax.buffer_donor = true}", f4, "%b : " + f4, []int{1}},
		{"larger_first", "%a: tensor<2xf32> {jax.buffer_donor = true}, %b: tensor<8xf32> {jax.buffer_donor = true}",
			"tensor<8xf32>, tensor<2xf32>", "%b, %a : tensor<8xf32>, tensor<2xf32>", []int{0, 1}},
		{"unannotated_output", "%a: tensor<4xf32> {jax.buffer_donor = true, " + s + "}", f4, "%a : " + f4, []int{0}},
		{"replicated_output", "%a: tensor<4xf32> {jax.buffer_donor = true, " + s + "}", f4 + " {mhlo.sharding = \"{replicated}\"}", "%a : " + f4, nil},
		{"none", "%a: tensor<4xf32>", f4, "%a : " + f4, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := mustParse(t, "func.func @main("+c.params+") -> ("+c.results+") {\n"+
				"  %c = stablehlo.convert %a : (tensor<4xf32>) -> tensor<4xi32>\n"+
				"  return "+c.ret+"\n}")
			if got := m.Main().DonatedParams(); !cmp.Equal(got, c.want) {
				t.Errorf("DonatedParams() = %v, want %v", got, c.want)
			}
		})
	}
}
