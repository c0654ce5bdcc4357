package stablehlo

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// groupProgram is auto-sharded over 8 partitions: a matmul of x, sharded by
// rows or in 2×2 tiles with partial replication, and w, replicated, plus
// x's transpose, sharded by columns.
const groupProgram = `module @grouped attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%x: tensor<8x6xf32> {mhlo.sharding = "X_SHARDING"}, %w: tensor<6x4xf32> {mhlo.sharding = "{replicated}"}) -> (tensor<8x4xf32> {mhlo.sharding = "{devices=[8,1]<=[8]}"}, tensor<6x8xf32> {mhlo.sharding = "{devices=[1,4,2]<=[8] last_tile_dim_replicate}"}, tensor<6x4xf32>) {
    %0 = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<8x6xf32>, tensor<6x4xf32>) -> tensor<8x4xf32>
    %1 = stablehlo.transpose %x, dims = [1, 0] : (tensor<8x6xf32>) -> tensor<6x8xf32>
    %2 = stablehlo.multiply %w, %w : tensor<6x4xf32>
    return %0, %1, %2 : tensor<8x4xf32>, tensor<6x8xf32>, tensor<6x4xf32>
  }
}`

// TestRunGroup runs an auto-sharded program as groups of partitions (the
// workers of a gang), for several ways of grouping the 8 partitions and of
// sharding x, computed by the interpreter and by a WholeRun: every
// partition's blocks equal those of the global run, the groups exchange
// each block a group lacks exactly once (the per-process run sends every
// partition the whole of x), and a WholeRun is given the global arguments
// once per group.
func TestRunGroup(t *testing.T) {
	for _, xSharding := range []string{"{devices=[8,1]<=[8]}", "{devices=[2,2,2]<=[8] last_tile_dim_replicate}", "{devices=[1,2,4]<=[8] last_tile_dim_replicate}"} {
		m := mustParse(t, strings.Replace(groupProgram, "X_SHARDING", xSharding, 1))
		x := newArray(m.Main().Params()[0].Type)
		for k := range x.f32 {
			x.f32[k] = float32(k%7) - 3
		}
		w := newArray(m.Main().Params()[1].Type)
		for k := range w.f32 {
			w.f32[k] = float32(k%5) - 2
		}
		want, err := m.Run(context.Background(), []*Tensor{encodeArray(x), encodeArray(w)})
		if err != nil {
			t.Fatal(err)
		}
		params, results := m.ProcessShardings()
		xPlace, err := placementFor(params[0], x.t, 8)
		if err != nil {
			t.Fatal(err)
		}
		var wholeRuns atomic.Int64
		whole := func(ctx context.Context, args []*Tensor) ([]*Tensor, error) {
			wholeRuns.Add(1)
			for i, want := range []*array{x, w} {
				if msg := compareTensors(args[i], encodeArray(want), 0, 0); msg != "" {
					return nil, fmt.Errorf("global argument %d: %s", i, msg)
				}
			}
			return m.Run(ctx, args)
		}
		for _, group := range [][]int{
			{0, 0, 0, 0, 0, 0, 0, 0},
			{0, 0, 0, 0, 1, 1, 1, 1},
			{0, 1, 0, 1, 0, 1, 0, 1},
			{2, 2, 2, 1, 1, 1, 1, 1},
			{0, 1, 2, 3, 4, 5, 6, 7},
		} {
			for _, run := range []WholeRun{nil, whole} {
				t.Run(fmt.Sprint(xSharding, group, run != nil), func(t *testing.T) {
					wholeRuns.Store(0)
					lg := NewLocalGroup(8)
					var sent atomic.Int64
					members := map[int][]int{}
					for p, g := range group {
						members[g] = append(members[g], p)
					}
					outs := make([][]*Tensor, 8)
					errs := make([]error, 8) // by group id
					var wg sync.WaitGroup
					for gi, ps := range members {
						procs := make([]Process, len(ps))
						args := make([][]*Tensor, len(ps))
						for j, p := range ps {
							procs[j] = Process{Partition: p, Comm: countingComm{lg.Endpoint(p), new(atomic.Int64), &sent}}
							start, limit := xPlace.block(p)
							args[j] = []*Tensor{encodeArray(sliceBlock(x, start, limit)), encodeArray(w)}
						}
						wg.Go(func() {
							res, err := m.RunGroup(context.Background(), procs, group, args, run)
							errs[gi] = err
							for j, p := range ps {
								if err == nil {
									outs[p] = res[j]
								}
							}
						})
					}
					wg.Wait()
					if err := FirstFailure(errs); err != nil {
						t.Fatal(err)
					}
					for k := range want {
						rPlace, err := placementFor(results[k], want[k].Type, 8)
						if err != nil {
							t.Fatal(err)
						}
						for p := range 8 {
							start, limit := rPlace.block(p)
							block := encodeArray(sliceBlock(decodeTensor(want[k]), start, limit))
							if msg := compareTensors(outs[p][k], block, 0, 0); msg != "" {
								t.Errorf("result %d of partition %d: %s", k, p, msg)
							}
						}
					}
					// Each group receives once each of x's blocks none of its
					// partitions holds.
					var lacking int64
					for _, ps := range members {
						held := map[int]bool{}
						for _, p := range ps {
							held[xPlace.tileOf[p]] = true
						}
						for p, tile := range xPlace.tileOf {
							if !held[tile] && first(xPlace.tileOf, tile) == p {
								lacking += xPlace.localType(x.t, p).NumElements() * 4
							}
						}
					}
					if got := sent.Load(); got != lacking {
						t.Errorf("the groups sent %d bytes; the blocks they lack are %d", got, lacking)
					}
					if got := wholeRuns.Load(); run != nil && got != int64(len(members)) {
						t.Errorf("the whole program ran %d times for %d groups", got, len(members))
					}
				})
			}
		}
	}
}

// first returns the lowest partition holding tile.
func first(tileOf []int, tile int) int {
	for p, t := range tileOf {
		if t == tile {
			return p
		}
	}
	return -1
}

// RunGroup refuses what it cannot run, and ends every process's
// Communicator with its error.
func TestRunGroupErrors(t *testing.T) {
	auto := mustParse(t, strings.Replace(groupProgram, "X_SHARDING", "{devices=[8,1]<=[8]}", 1))
	collective := mustParse(t, `module attributes {mhlo.num_partitions = 2 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%a: tensor<2xi32>) -> tensor<2xi32> {
    %r = "stablehlo.all_reduce"(%a) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, use_global_device_ids}> ({
    ^bb0(%x: tensor<i32>, %y: tensor<i32>):
      %s = stablehlo.add %x, %y : tensor<i32>
      stablehlo.return %s : tensor<i32>
    }) : (tensor<2xi32>) -> tensor<2xi32>
    return %r : tensor<2xi32>
  }
}`)
	for _, c := range []struct {
		name  string
		m     *Module
		parts []int
		group []int
	}{
		{"collectives", collective, []int{0, 1}, []int{0, 0}},
		{"not_a_group", auto, []int{0, 1}, []int{0, 0, 0, 1, 1, 1, 1, 1}},
		{"groups_of_another_program", auto, []int{0}, []int{0, 1}},
		{"partition_twice", auto, []int{0, 0}, []int{0, 1, 1, 1, 1, 1, 1, 1}},
	} {
		t.Run(c.name, func(t *testing.T) {
			lg := NewLocalGroup(len(c.group))
			procs := make([]Process, len(c.parts))
			args := make([][]*Tensor, len(c.parts))
			for j, p := range c.parts {
				procs[j] = Process{Partition: p, Comm: lg.Endpoint(j)}
				args[j] = make([]*Tensor, len(c.m.Main().Params()))
			}
			_, err := c.m.RunGroup(context.Background(), procs, c.group, args, nil)
			if errorCode(err) != InvalidArgument {
				t.Fatalf("RunGroup = %v, want InvalidArgument", err)
			}
			if lg.abortErr() == nil {
				t.Error("RunGroup failed without ending its Communicators with the failure")
			}
		})
	}
}

// A WholeRun's failure is RunGroup's, and results of another count or type
// than the program's are refused; each ends the Communicators with it.
func TestRunGroupWholeErrors(t *testing.T) {
	m := mustParse(t, strings.Replace(groupProgram, "X_SHARDING", "{devices=[8,1]<=[8]}", 1))
	params, _ := m.ProcessShardings()
	x := newArray(m.Main().Params()[0].Type)
	w := newArray(m.Main().Params()[1].Type)
	xPlace, err := placementFor(params[0], x.t, 8)
	if err != nil {
		t.Fatal(err)
	}
	lost := errorf(Aborted, "the backend went away")
	for _, c := range []struct {
		name  string
		whole WholeRun
		code  int
	}{
		{"fails", func(context.Context, []*Tensor) ([]*Tensor, error) { return nil, lost }, Aborted},
		{"too_few_results", func(ctx context.Context, args []*Tensor) ([]*Tensor, error) {
			out, err := m.Run(ctx, args)
			return out[:2], err
		}, InvalidArgument},
		{"too_many_results", func(ctx context.Context, args []*Tensor) ([]*Tensor, error) {
			out, err := m.Run(ctx, args)
			return append(out, out[0]), err
		}, InvalidArgument},
		{"result_of_another_type", func(ctx context.Context, args []*Tensor) ([]*Tensor, error) {
			out, err := m.Run(ctx, args)
			out[0], out[1] = out[1], out[0]
			return out, err
		}, InvalidArgument},
	} {
		t.Run(c.name, func(t *testing.T) {
			lg := NewLocalGroup(8)
			procs := make([]Process, 8)
			args := make([][]*Tensor, 8)
			for p := range 8 {
				procs[p] = Process{Partition: p, Comm: lg.Endpoint(p)}
				start, limit := xPlace.block(p)
				args[p] = []*Tensor{encodeArray(sliceBlock(x, start, limit)), encodeArray(w)}
			}
			_, err := m.RunGroup(context.Background(), procs, make([]int, 8), args, c.whole)
			if errorCode(err) != c.code {
				t.Fatalf("RunGroup = %v, want %v", err, c.code)
			}
			if lg.abortErr() == nil {
				t.Error("RunGroup failed without ending its Communicators with the failure")
			}
		})
	}
}
