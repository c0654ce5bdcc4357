package stablehlo

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestResultShardingsFollowElementwiseOps: an SPMD result without a declared
// sharding takes the sharding of what it is computed from elementwise (as
// XLA's propagation gives `x * 2` of a sharded x). Where sharded operands
// disagree, or a reduction and a broadcast lie between, the result is what
// XLA compiled for these very modules (TestResultShardingsFollowXLAPropagation
// has more); a GSPMD sharding constraint is followed elementwise.
func TestResultShardingsFollowElementwiseOps(t *testing.T) {
	const rows, cols = "{devices=[2,1,4]<=[8] last_tile_dim_replicate}", "{devices=[1,4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"
	for _, c := range []struct{ name, body, want string }{
		{"identity", `return %arg0`, rows},
		{"scaled", `%c = stablehlo.constant dense<2.0> : tensor<f32>
    %b = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<f32>) -> tensor<8x8xf32>
    %m = stablehlo.multiply %arg0, %b : tensor<8x8xf32>
    %t = stablehlo.tanh %m : tensor<8x8xf32>
    %k = stablehlo.convert %t : (tensor<8x8xf32>) -> tensor<8x8xbf16>
    %r = stablehlo.convert %k : (tensor<8x8xbf16>) -> tensor<8x8xf32>
    return %r`, rows},
		{"with_unplaced_operand", `%d = stablehlo.dot_general %arg1, %arg1, contracting_dims = [1] x [0] : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
    %s = stablehlo.subtract %arg0, %d : tensor<8x8xf32>
    return %s`, rows},
		{"operands_disagree", `%s = stablehlo.add %arg0, %arg2 : tensor<8x8xf32>
    return %s`, "{devices=[2,4]<=[8]}"},
		{"constraint", `%a = stablehlo.add %arg1, %arg1 : tensor<8x8xf32>
    %c = stablehlo.custom_call @Sharding(%a) {mhlo.sharding = "{devices=[8,1]<=[8]}"} : (tensor<8x8xf32>) -> tensor<8x8xf32>
    %e = stablehlo.exponential %c : tensor<8x8xf32>
    return %e`, "{devices=[8,1]<=[8]}"},
		{"sdy_constraint", `%c = sdy.sharding_constraint %arg1 <@mesh, [{}, {"b"}]> : tensor<8x8xf32>
    %n = stablehlo.negate %c : tensor<8x8xf32>
    return %n`, cols},
		{"reduction", `%z = stablehlo.constant dense<0.0> : tensor<f32>
    %r = stablehlo.reduce(%arg0 init: %z) applies stablehlo.add across dimensions = [1] : (tensor<8x8xf32>, tensor<f32>) -> tensor<8xf32>
    %b = stablehlo.broadcast_in_dim %r, dims = [0] : (tensor<8xf32>) -> tensor<8x8xf32>
    return %b`, rows},
	} {
		t.Run(c.name, func(t *testing.T) {
			body := c.body + " : tensor<8x8xf32>"
			m := mustParse(t, `module @m attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["a"=2, "b"=4]>
  func.func public @main(%arg0: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"a"}, {}]>}, %arg1: tensor<8x8xf32>, %arg2: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"b"}]>}) -> tensor<8x8xf32> {
    `+body+`
  }
}`)
			params, results := m.ProcessShardings()
			if params[0] != rows || params[2] != cols {
				t.Fatalf("parameter shardings %q, want %q and %q", params, rows, cols)
			}
			if results[0] != c.want {
				t.Errorf("result sharding %q, want %q", results[0], c.want)
			}
			if got := m.Main().Results()[0].Sharding; got != "" {
				t.Errorf("Results()[0].Sharding = %q, want the declared one, none", got)
			}
			checkProcessPlacements(t, m)
		})
	}
}

// checkProcessPlacements checks that runs lay out @main's parameters and
// results (the placements made at parse) as its ProcessShardings say.
func checkProcessPlacements(t *testing.T, m *Module) {
	t.Helper()
	params, results := m.ProcessShardings()
	check := func(what string, shardings []string, vals []Value, got []*placement) {
		for i, v := range vals {
			want, err := placementFor(shardings[i], v.Type, m.numPartitions)
			if err != nil {
				t.Fatalf("%s %d: %v", what, i, err)
			}
			if diff := cmp.Diff(want, got[i], cmp.AllowUnexported(placement{})); diff != "" {
				t.Errorf("%s %d is laid out otherwise than its sharding %q says (-want +got):\n%s", what, i, shardings[i], diff)
			}
		}
	}
	check("parameter", params, m.main.params, m.paramPls)
	check("result", results, m.main.results, m.resultPls)
}
