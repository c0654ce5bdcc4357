package communicatortest

import (
	"fmt"
	"strings"
)

// gridCase is a program over a replica × partition grid with each process's
// arguments and expected results, as MLIR dense literals.
type gridCase struct {
	name                 string
	replicas, partitions int
	params, results      []string // types
	body                 string   // defines %r (or %r#i when several results)
	in, want             [][]string
}

// module returns the case's program as MLIR text.
func (c gridCase) module() string {
	var ps []string
	for i, t := range c.params {
		ps = append(ps, fmt.Sprintf("%%a%d: %s", i, t))
	}
	rets := "%r"
	if len(c.results) > 1 {
		var r []string
		for i := range c.results {
			r = append(r, fmt.Sprintf("%%r#%d", i))
		}
		rets = strings.Join(r, ", ")
	}
	rs := strings.Join(c.results, ", ")
	return fmt.Sprintf("module attributes {mhlo.num_partitions = %d : i32, mhlo.num_replicas = %d : i32} {\n"+
		"  sdy.mesh @mesh = <[\"a\"=2, \"b\"=2], device_ids=[3, 1, 2, 0]>\n"+
		"  func.func public @main(%s) -> (%s) {\n%s\n    return %s : %s\n  }\n}\n",
		c.partitions, c.replicas, strings.Join(ps, ", "), rs, c.body, rets, rs)
}

// rows splits each process's literals, separated by ";".
func rows(vals ...string) [][]string {
	out := make([][]string, len(vals))
	for i, v := range vals {
		out[i] = strings.Split(v, ";")
	}
	return out
}

const addI64 = `({
    ^bb0(%x: tensor<i64>, %y: tensor<i64>):
      %s = stablehlo.add %x, %y : tensor<i64>
      stablehlo.return %s : tensor<i64>
    })`

// collectiveCases are the examples of the StableHLO specification and the
// group strategies its "Collective ops" section defines.
func collectiveCases() []gridCase {
	i64x4 := "tensor<4xi64>"
	return []gridCase{{
		name: "all_reduce_cross_replica_variadic", replicas: 2, partitions: 1,
		params: []string{i64x4, i64x4}, results: []string{i64x4, i64x4},
		body: `    %r:2 = "stablehlo.all_reduce"(%a0, %a1) ` + addI64 + ` {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, channel_handle = #stablehlo.channel_handle<handle = 0, type = 0>} : (tensor<4xi64>, tensor<4xi64>) -> (tensor<4xi64>, tensor<4xi64>)`,
		in:   rows("[1, 2, 3, 4];[9, 10, 11, 12]", "[5, 6, 7, 8];[13, 14, 15, 16]"),
		want: rows("[6, 8, 10, 12];[22, 24, 26, 28]", "[6, 8, 10, 12];[22, 24, 26, 28]"),
	}, {
		// With a channel and without global ids, a replica group spans
		// every partition of its replicas.
		name: "all_reduce_cross_replica_and_partition", replicas: 2, partitions: 2,
		params: []string{"tensor<2xi64>"}, results: []string{"tensor<2xi64>"},
		body: `    %r = "stablehlo.all_reduce"(%a0) ` + addI64 + ` {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>} : (tensor<2xi64>) -> tensor<2xi64>`,
		in:   rows("[1, 0]", "[2, 0]", "[4, 0]", "[8, 1]"),
		want: rows("[15, 1]", "[15, 1]", "[15, 1]", "[15, 1]"),
	}, {
		// Flattened ids in groups of different sizes (-1 pads the shorter).
		name: "all_reduce_uneven_flattened_groups", replicas: 1, partitions: 5,
		params: []string{"tensor<3xi64>"}, results: []string{"tensor<3xi64>"},
		body: `    %r = "stablehlo.all_reduce"(%a0) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 2, 4], [3, 1, -1]]> : tensor<2x3xi64>, use_global_device_ids}> ` + addI64 + ` : (tensor<3xi64>) -> tensor<3xi64>`,
		in:   rows("[1, 1, 1]", "[2, 2, 2]", "[4, 4, 4]", "[8, 8, 8]", "[16, 16, 16]"),
		want: rows("[21, 21, 21]", "[10, 10, 10]", "[21, 21, 21]", "[10, 10, 10]", "[21, 21, 21]"),
	}, {
		// Any computation: the reduction runs in group order, the same
		// on every member.
		name: "all_reduce_in_group_order", replicas: 1, partitions: 3,
		params: []string{"tensor<2xf32>"}, results: []string{"tensor<2xf32>"},
		body: `    %r = "stablehlo.all_reduce"(%a0) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[2, 0, 1]]> : tensor<1x3xi64>, use_global_device_ids}> ({
    ^bb0(%x: tensor<f32>, %y: tensor<f32>):
      %t = stablehlo.constant dense<2.0> : tensor<f32>
      %m = stablehlo.multiply %x, %t : tensor<f32>
      %s = stablehlo.subtract %m, %y : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) : (tensor<2xf32>) -> tensor<2xf32>`,
		in: rows("[1, 10]", "[2, 20]", "[4, 40]"),
		// ((4*2 - 1)*2 - 2) = 12
		want: rows("[12, 120]", "[12, 120]", "[12, 120]"),
	}, {
		name: "all_reduce_bf16_max_and_i8_wraps", replicas: 1, partitions: 2,
		params: []string{"tensor<2xbf16>", "tensor<2xi8>"}, results: []string{"tensor<2xbf16>", "tensor<2xi8>"},
		body: `    %m = "stablehlo.all_reduce"(%a0) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, use_global_device_ids}> ({
    ^bb0(%x: tensor<bf16>, %y: tensor<bf16>):
      %s = stablehlo.maximum %x, %y : tensor<bf16>
      stablehlo.return %s : tensor<bf16>
    }) : (tensor<2xbf16>) -> tensor<2xbf16>
    %w = "stablehlo.all_reduce"(%a1) <{channel_handle = #stablehlo.channel_handle<handle = 2, type = 1>, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, use_global_device_ids}> ({
    ^bb0(%x: tensor<i8>, %y: tensor<i8>):
      %s = stablehlo.add %x, %y : tensor<i8>
      stablehlo.return %s : tensor<i8>
    }) : (tensor<2xi8>) -> tensor<2xi8>
    %r:2 = stablehlo.optimization_barrier %m, %w : tensor<2xbf16>, tensor<2xi8>`,
		in:   rows("[1.5, -3.0];[100, -100]", "[-2.0, 7.25];[100, -100]"),
		want: rows("[1.5, 7.25];[-56, 56]", "[1.5, 7.25];[-56, 56]"),
	}, {
		name: "all_gather", replicas: 2, partitions: 1,
		params: []string{"tensor<2x2xi64>"}, results: []string{"tensor<2x4xi64>"},
		body: `    %r = "stablehlo.all_gather"(%a0) {all_gather_dim = 1 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, channel_handle = #stablehlo.channel_handle<handle = 0, type = 0>} : (tensor<2x2xi64>) -> tensor<2x4xi64>`,
		in:   rows("[[1, 2], [3, 4]]", "[[5, 6], [7, 8]]"),
		want: rows("[[1, 2, 5, 6], [3, 4, 7, 8]]", "[[1, 2, 5, 6], [3, 4, 7, 8]]"),
	}, {
		// Groups in the order listed, not by id.
		name: "all_gather_reordered_group", replicas: 1, partitions: 4,
		params: []string{"tensor<1xi64>"}, results: []string{"tensor<2xi64>"},
		body: `    %r = "stablehlo.all_gather"(%a0) <{all_gather_dim = 0 : i64, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[3, 0], [1, 2]]> : tensor<2x2xi64>, use_global_device_ids}> : (tensor<1xi64>) -> tensor<2xi64>`,
		in:   rows("[10]", "[11]", "[12]", "[13]"),
		want: rows("[13, 10]", "[11, 12]", "[11, 12]", "[13, 10]"),
	}, {
		name: "reduce_scatter", replicas: 2, partitions: 1,
		params: []string{"tensor<2x4xi64>"}, results: []string{"tensor<2x2xi64>"},
		body: `    %r = "stablehlo.reduce_scatter"(%a0) ` + addI64 + ` {scatter_dimension = 1 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, channel_handle = #stablehlo.channel_handle<handle = 0, type = 0>} : (tensor<2x4xi64>) -> tensor<2x2xi64>`,
		in:   rows("[[1, 2, 3, 4], [5, 6, 7, 8]]", "[[9, 10, 11, 12], [13, 14, 15, 16]]"),
		want: rows("[[10, 12], [18, 20]]", "[[14, 16], [22, 24]]"),
	}, {
		name: "all_to_all", replicas: 2, partitions: 1,
		params: []string{"tensor<2x4xi64>"}, results: []string{"tensor<4x2xi64>"},
		body: `    %r = "stablehlo.all_to_all"(%a0) {split_dimension = 1 : i64, concat_dimension = 0 : i64, split_count = 2 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2x4xi64>) -> tensor<4x2xi64>`,
		in:   rows("[[1, 2, 3, 4], [5, 6, 7, 8]]", "[[9, 10, 11, 12], [13, 14, 15, 16]]"),
		want: rows("[[1, 2], [5, 6], [9, 10], [13, 14]]", "[[3, 4], [7, 8], [11, 12], [15, 16]]"),
	}, {
		// Blocks concatenated along an inner dimension: interleaved rows.
		name: "all_to_all_concat_inner", replicas: 2, partitions: 1,
		params: []string{"tensor<4x2xi64>"}, results: []string{"tensor<2x4xi64>"},
		body: `    %r = "stablehlo.all_to_all"(%a0) {split_dimension = 0 : i64, concat_dimension = 1 : i64, split_count = 2 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<4x2xi64>) -> tensor<2x4xi64>`,
		in:   rows("[[1, 2], [3, 4], [5, 6], [7, 8]]", "[[9, 10], [11, 12], [13, 14], [15, 16]]"),
		want: rows("[[1, 2, 9, 10], [3, 4, 11, 12]]", "[[5, 6, 13, 14], [7, 8, 15, 16]]"),
	}, {
		// With a channel, all_to_all groups partitions of each replica.
		name: "all_to_all_cross_partition", replicas: 2, partitions: 2,
		params: []string{"tensor<2xi64>"}, results: []string{"tensor<2xi64>"},
		body: `    %r = "stablehlo.all_to_all"(%a0) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, split_dimension = 0 : i64, concat_dimension = 0 : i64, split_count = 2 : i64, replica_groups = dense<[[1, 0]]> : tensor<1x2xi64>}> : (tensor<2xi64>) -> tensor<2xi64>`,
		in:   rows("[1, 2]", "[3, 4]", "[5, 6]", "[7, 8]"),
		want: rows("[4, 2]", "[3, 1]", "[8, 6]", "[7, 5]"),
	}, {
		name: "collective_permute", replicas: 3, partitions: 1,
		params: []string{"tensor<2x2xi64>"}, results: []string{"tensor<2x2xi64>"},
		body: `    %r = "stablehlo.collective_permute"(%a0) {source_target_pairs = dense<[[0, 1], [1, 2]]> : tensor<2x2xi64>, channel_handle = #stablehlo.channel_handle<handle = 0, type = 0>} : (tensor<2x2xi64>) -> tensor<2x2xi64>`,
		in:   rows("[[1, 2], [3, 4]]", "[[5, 6], [7, 8]]", "[[9, 10], [11, 12]]"),
		want: rows("[[0, 0], [0, 0]]", "[[1, 2], [3, 4]]", "[[5, 6], [7, 8]]"),
	}, {
		name: "collective_permute_ring_and_self", replicas: 1, partitions: 4,
		params: []string{"tensor<1xf32>"}, results: []string{"tensor<1xf32>"},
		body: `    %r = "stablehlo.collective_permute"(%a0) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, source_target_pairs = dense<[[0, 1], [1, 2], [2, 0], [3, 3]]> : tensor<4x2xi64>}> : (tensor<1xf32>) -> tensor<1xf32>`,
		in:   rows("[0.5]", "[1.5]", "[2.5]", "[3.5]"),
		want: rows("[2.5]", "[0.5]", "[1.5]", "[3.5]"),
	}, {
		name: "collective_broadcast", replicas: 4, partitions: 1,
		params: []string{"tensor<1x2xi64>"}, results: []string{"tensor<1x2xi64>"},
		body: `    %r = "stablehlo.collective_broadcast"(%a0) {replica_groups = dense<[[2, 1]]> : tensor<1x2xi64>, channel_handle = #stablehlo.channel_handle<handle = 0, type = 0>} : (tensor<1x2xi64>) -> tensor<1x2xi64>`,
		in:   rows("[[1, 2]]", "[[3, 4]]", "[[5, 6]]", "[[7, 8]]"),
		want: rows("[[0, 0]]", "[[5, 6]]", "[[5, 6]]", "[[0, 0]]"),
	}, {
		name: "partition_and_replica_id", replicas: 2, partitions: 3,
		params: nil, results: []string{"tensor<ui32>", "tensor<ui32>"},
		body: `    %p = stablehlo.partition_id : tensor<ui32>
    %q = stablehlo.replica_id : tensor<ui32>
    %r:2 = stablehlo.optimization_barrier %p, %q : tensor<ui32>, tensor<ui32>`,
		in:   [][]string{nil, nil, nil, nil, nil, nil},
		want: rows("0;0", "1;0", "2;0", "0;1", "1;1", "2;1"),
	}, {
		// Mesh axes: @mesh is a=2 × b=2 over devices [3, 1, 2, 0]; the
		// groups along b are [3, 1] and [2, 0].
		name: "all_gather_mesh_axes", replicas: 1, partitions: 4,
		params: []string{"tensor<1xi64>"}, results: []string{"tensor<2xi64>"},
		body: `    %r = "stablehlo.all_gather"(%a0) <{all_gather_dim = 0 : i64, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = #stablehlo.replica_group_mesh_axes<mesh = @mesh, axes = [#stablehlo.axis_ref<name = "b">]>, use_global_device_ids}> : (tensor<1xi64>) -> tensor<2xi64>`,
		in:   rows("[10]", "[11]", "[12]", "[13]"),
		want: rows("[12, 10]", "[13, 11]", "[12, 10]", "[13, 11]"),
	}, {
		// Along both axes, a varies slowest: [3, 1, 2, 0].
		name: "all_gather_mesh_axes_both", replicas: 1, partitions: 4,
		params: []string{"tensor<1xi64>"}, results: []string{"tensor<4xi64>"},
		body: `    %r = "stablehlo.all_gather"(%a0) <{all_gather_dim = 0 : i64, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = #stablehlo.replica_group_mesh_axes<mesh = @mesh, axes = [#stablehlo.axis_ref<name = "a">, #stablehlo.axis_ref<name = "b">]>, use_global_device_ids}> : (tensor<1xi64>) -> tensor<4xi64>`,
		in:   rows("[10]", "[11]", "[12]", "[13]"),
		want: rows("[13, 11, 12, 10]", "[13, 11, 12, 10]", "[13, 11, 12, 10]", "[13, 11, 12, 10]"),
	}}
}
