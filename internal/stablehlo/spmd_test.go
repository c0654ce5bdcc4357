package stablehlo

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

const addF32 = `({
      ^bb0(%x: tensor<f32>, %y: tensor<f32>):
        %s = stablehlo.add %x, %y : tensor<f32>
        stablehlo.return %s : tensor<f32>
      })`

// Manual regions in the ways JAX writes them, run with Run on global
// arguments and compared with what the program computes.
func TestManualRegions(t *testing.T) {
	cases := []struct {
		name, src string
		in, want  []string // literals of the argument and the result
		inT, outT string
	}{{
		// shard_map over "x" only: the body sees whole rows along the
		// automatic axis "y"; psum over "x" adds the two halves.
		name: "shardy_partially_manual",
		src: `module attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=2, "y"=2]>
  func.func public @main(%arg0: tensor<4x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {"y"}]>}) -> (tensor<2x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"y"}]>}) {
    %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"x", ?}, {"y"}]>] out_shardings=[<@mesh, [{?}, {"y"}]>] manual_axes={"x"} (%arg1: tensor<2x4xf32>) {
      %1 = "stablehlo.all_reduce"(%arg1) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 2], [1, 3]]> : tensor<2x2xi64>, use_global_device_ids}> ` + addF32 + ` : (tensor<2x4xf32>) -> tensor<2x4xf32>
      sdy.return %1 : tensor<2x4xf32>
    } : (tensor<4x4xf32>) -> tensor<2x4xf32>
    return %0 : tensor<2x4xf32>
  }
}`,
		inT: "tensor<4x4xf32>", in: []string{"[[1, 2, 3, 4], [5, 6, 7, 8], [10, 20, 30, 40], [50, 60, 70, 80]]"},
		outT: "tensor<2x4xf32>", want: []string{"[[11, 22, 33, 44], [55, 66, 77, 88]]"},
	}, {
		// A global op before the region and one after it.
		name: "shardy_between_global_ops",
		src: `module attributes {mhlo.num_partitions = 2 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=2]>
  func.func public @main(%arg0: tensor<4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}]>}) -> (tensor<4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}]>}) {
    %r = stablehlo.reverse %arg0, dims = [0] : tensor<4xf32>
    %0 = sdy.manual_computation(%r) in_shardings=[<@mesh, [{"x"}]>] out_shardings=[<@mesh, [{"x"}]>] manual_axes={"x"} (%arg1: tensor<2xf32>) {
      %1 = "stablehlo.collective_permute"(%arg1) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, source_target_pairs = dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>}> : (tensor<2xf32>) -> tensor<2xf32>
      sdy.return %1 : tensor<2xf32>
    } : (tensor<4xf32>) -> tensor<4xf32>
    %2 = stablehlo.reverse %0, dims = [0] : tensor<4xf32>
    return %2 : tensor<4xf32>
  }
}`,
		inT: "tensor<4xf32>", in: []string{"[1, 2, 3, 4]"},
		outT: "tensor<4xf32>", want: []string{"[3, 4, 1, 2]"},
	}, {
		// A region inside a called function: its operands are cut from the
		// global value and its results assembled again.
		name: "shardy_in_called_function",
		src: `module attributes {mhlo.num_partitions = 2 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=2]>
  func.func public @main(%a: tensor<4xf32>) -> tensor<4xf32> {
    %0 = func.call @inner(%a) : (tensor<4xf32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
  func.func private @inner(%b: tensor<4xf32>) -> tensor<4xf32> {
    %0 = sdy.manual_computation(%b) in_shardings=[<@mesh, [{"x"}]>] out_shardings=[<@mesh, [{"x"}]>] manual_axes={"x"} (%c: tensor<2xf32>) {
      %p = stablehlo.partition_id : tensor<ui32>
      %f = stablehlo.convert %p : (tensor<ui32>) -> tensor<f32>
      %k = stablehlo.broadcast_in_dim %f, dims = [] : (tensor<f32>) -> tensor<2xf32>
      %s = stablehlo.add %c, %k : tensor<2xf32>
      sdy.return %s : tensor<2xf32>
    } : (tensor<4xf32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}`,
		inT: "tensor<4xf32>", in: []string{"[1, 2, 3, 4]"},
		outT: "tensor<4xf32>", want: []string{"[1, 2, 4, 5]"},
	}, {
		name: "gspmd_in_called_function",
		src: `module attributes {mhlo.num_partitions = 2 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%a: tensor<4xf32>) -> tensor<4xf32> {
    %0 = func.call @inner(%a) : (tensor<4xf32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
  func.func private @inner(%b: tensor<4xf32>) -> tensor<4xf32> {
    %0 = stablehlo.custom_call @Sharding(%b) {mhlo.sharding = "{devices=[2]<=[2]}"} : (tensor<4xf32>) -> tensor<4xf32>
    %1 = stablehlo.custom_call @SPMDFullToShardShape(%0) {mhlo.sharding = "{manual}"} : (tensor<4xf32>) -> tensor<2xf32>
    %2 = "stablehlo.all_gather"(%1) <{all_gather_dim = 0 : i64, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[1, 0]]> : tensor<1x2xi64>, use_global_device_ids}> : (tensor<2xf32>) -> tensor<4xf32>
    %3 = stablehlo.custom_call @Sharding(%2) {mhlo.sharding = "{manual}"} : (tensor<4xf32>) -> tensor<4xf32>
    %4 = stablehlo.custom_call @SPMDShardToFullShape(%3) {mhlo.sharding = "{replicated}"} : (tensor<4xf32>) -> tensor<4xf32>
    return %4 : tensor<4xf32>
  }
}`,
		inT: "tensor<4xf32>", in: []string{"[1, 2, 3, 4]"},
		outT: "tensor<4xf32>", want: []string{"[3, 4, 1, 2]"},
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := mustParse(t, c.src)
			got, err := runMain(t, m, literal(t, c.inT, c.in[0]))
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if msg := compareTensors(got[0], literal(t, c.outT, c.want[0]), 0, 0); msg != "" {
				t.Error(msg)
			}
		})
	}
}

// runGrid runs every process of m over comms, each on its own goroutine,
// and returns their results or the failure FirstFailure picks.
func runGrid(ctx context.Context, m *Module, comms []Communicator, args [][]*Tensor) ([][]*Tensor, error) {
	outs := make([][]*Tensor, len(comms))
	errs := make([]error, len(comms))
	var wg sync.WaitGroup
	for id := range comms {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p := Process{Replica: id / m.NumPartitions(), Partition: id % m.NumPartitions(), Comm: comms[id]}
			outs[id], errs[id] = m.RunProcess(ctx, p, args[id])
		}()
	}
	wg.Wait()
	return outs, FirstFailure(errs)
}

// countingComm counts what a process sends.
type countingComm struct {
	Communicator
	messages, bytes *atomic.Int64
}

func (c countingComm) Send(ctx context.Context, to int, tag Tag, data []byte) error {
	c.messages.Add(1)
	c.bytes.Add(int64(len(data)))
	return c.Communicator.Send(ctx, to, tag, data)
}

// A shard_map whose arguments and results are placed as the program's are
// exchanges nothing beyond its collectives: each process keeps its blocks.
func TestManualRegionsKeepBlocksLocal(t *testing.T) {
	program := func(paramAttrs, prologue string) string {
		return `module attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=4]>
  func.func public @main(%arg0: tensor<8xf32>` + paramAttrs + `) -> tensor<8xf32> {
    ` + prologue + `
    %0 = sdy.manual_computation(%v) in_shardings=[<@mesh, [{"x"}]>] out_shardings=[<@mesh, [{"x"}]>] manual_axes={"x"} (%arg1: tensor<2xf32>) {
      %1 = stablehlo.add %arg1, %arg1 : tensor<2xf32>
      sdy.return %1 : tensor<2xf32>
    } : (tensor<8xf32>) -> tensor<8xf32>
    return %0 : tensor<8xf32>
  }
}`
	}
	const sharded = ` {sdy.sharding = #sdy.sharding<@mesh, [{"x"}]>}`
	x := literal(t, "tensor<8xf32>", "[1, 2, 3, 4, 5, 6, 7, 8]")
	want := literal(t, "tensor<8xf32>", "[2, 4, 6, 8, 10, 12, 14, 16]")
	for _, c := range []struct {
		name, sharding, prologue string
		sends                    bool
	}{
		{"global_op_between", sharded, `%v = stablehlo.optimization_barrier %arg0 : tensor<8xf32>`, true},
		{"direct", sharded, `%v = stablehlo.custom_call @Sharding(%arg0) {mhlo.sharding = "{devices=[4]<=[4]}"} : (tensor<8xf32>) -> tensor<8xf32>`, false},
		{"replicated_argument", ` {mhlo.sharding = "{replicated}"}`, `%v = stablehlo.custom_call @Sharding(%arg0) {mhlo.sharding = "{replicated}"} : (tensor<8xf32>) -> tensor<8xf32>`, false},
		// No declared shardings: the region's in- and out-shardings place
		// the parameter and the result.
		{"inferred", "", `%v = stablehlo.custom_call @Sharding(%arg0) {mhlo.sharding = "{devices=[4]<=[4]}"} : (tensor<8xf32>) -> tensor<8xf32>`, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := mustParse(t, program(c.sharding, c.prologue))
			g := NewLocalGroup(4)
			var messages, sent atomic.Int64
			comms := make([]Communicator, 4)
			args := make([][]*Tensor, 4)
			params, results := m.ProcessShardings()
			if c.name == "inferred" && (params[0] != "{devices=[4]<=[4]}" || results[0] != "{devices=[4]<=[4]}") {
				t.Errorf("ProcessShardings() = %q, %q, want the region's {devices=[4]<=[4]}", params, results)
			}
			pl, err := placementFor(params[0], x.Type, 4)
			if err != nil {
				t.Fatal(err)
			}
			for p := range comms {
				comms[p] = countingComm{g.Endpoint(p), &messages, &sent}
				start, limit := pl.block(p)
				args[p] = []*Tensor{encodeArray(sliceBlock(decodeTensor(x), start, limit))}
			}
			outs, err := runGrid(context.Background(), m, comms, args)
			if err != nil {
				t.Fatal(err)
			}
			for p, o := range outs {
				w := encodeArray(sliceBlock(decodeTensor(want), []int64{int64(2 * p)}, []int64{int64(2*p + 2)}))
				if msg := compareTensors(o[0], w, 0, 0); msg != "" {
					t.Errorf("partition %d: %s", p, msg)
				}
			}
			if got := messages.Load() > 0; got != c.sends {
				t.Errorf("%d messages (%d bytes) sent; want some: %v", messages.Load(), sent.Load(), c.sends)
			}
		})
	}
}

func TestRunProcessErrors(t *testing.T) {
	m := mustParse(t, `module attributes {mhlo.num_partitions = 2 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%a: tensor<4xf32> {mhlo.sharding = "{devices=[2]<=[2]}"}) -> tensor<4xf32> {
    %p = stablehlo.partition_id : tensor<ui32>
    return %a : tensor<4xf32>
  }
}`)
	ctx := context.Background()
	g := NewLocalGroup(2)
	block := literal(t, "tensor<2xf32>", "[1, 2]")
	for _, c := range []struct {
		name string
		p    Process
		args []*Tensor
		want string
	}{
		{"whole_value_for_a_block", Process{Partition: 0, Comm: g.Endpoint(0)}, []*Tensor{literal(t, "tensor<4xf32>", "[1, 2, 3, 4]")}, "tensor<2xf32>"},
		{"outside_the_grid", Process{Partition: 2, Comm: g.Endpoint(1)}, []*Tensor{block}, "outside"},
		{"no_communicator", Process{Partition: 1}, []*Tensor{block}, "Communicator"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := m.RunProcess(ctx, c.p, c.args)
			if errorCode(err) != InvalidArgument || !strings.Contains(err.Error(), c.want) {
				t.Errorf("RunProcess = %v, want InvalidArgument mentioning %q", err, c.want)
			}
		})
	}
}

// A parameter or result whose sharding cannot be laid out over the
// program's partitions fails every run with INVALID_ARGUMENT (the layouts are
// made once, at parse).
func TestRunProcessImpossibleSharding(t *testing.T) {
	for _, c := range []struct{ name, param, result string }{
		{"parameter", `{devices=[4]<=[4]}`, `{replicated}`},
		{"result", `{devices=[2]<=[2]}`, `{devices=[2,1]<=[2]}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := mustParse(t, fmt.Sprintf(`module attributes {mhlo.num_partitions = 2 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%%a: tensor<4xf32> {mhlo.sharding = "%s"}) -> (tensor<4xf32> {mhlo.sharding = "%s"}) {
    %%p = stablehlo.partition_id : tensor<ui32>
    return %%a : tensor<4xf32>
  }
}`, c.param, c.result))
			g := NewLocalGroup(2)
			for range 2 { // the second run sees the same layouts
				_, err := m.RunProcess(context.Background(), Process{Partition: 0, Comm: g.Endpoint(0)}, []*Tensor{literal(t, "tensor<2xf32>", "[1, 2]")})
				if errorCode(err) != InvalidArgument || !strings.Contains(err.Error(), "sharding") {
					t.Errorf("RunProcess = %v, want InvalidArgument naming the sharding", err)
				}
			}
		})
	}
}

func TestManualRegionsUnsupported(t *testing.T) {
	m := mustParse(t, `module attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x8xf32>) -> tensor<2x8xf32> {
    %0 = stablehlo.custom_call @Sharding(%arg0) {mhlo.sharding = "{devices=[2,1,2]<=[4] last_tile_dim_replicate}"} : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %1 = stablehlo.custom_call @SPMDFullToShardShape(%0) {mhlo.sharding = "{devices=[1,1,2,2]<=[4] last_tile_dims={manual, replicated}}"} : (tensor<4x8xf32>) -> tensor<2x8xf32>
    %2 = stablehlo.custom_call @SPMDShardToFullShape(%1) {mhlo.sharding = "{replicated}"} : (tensor<2x8xf32>) -> tensor<2x8xf32>
    return %2 : tensor<2x8xf32>
  }
}`)
	if err := m.Unsupported(); errorCode(err) != Unimplemented || !strings.Contains(err.Error(), "partially manual") {
		t.Errorf("Unsupported() = %v, want Unimplemented naming partially manual regions", err)
	}
}
