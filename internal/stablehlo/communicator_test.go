package stablehlo_test

import (
	"bytes"
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/openpathways/pathways/internal/stablehlo"
	"github.com/openpathways/pathways/internal/stablehlo/communicatortest"
)

func TestLocalGroup(t *testing.T) {
	communicatortest.Run(t, func(t *testing.T, n int) []stablehlo.Communicator {
		g := stablehlo.NewLocalGroup(n)
		out := make([]stablehlo.Communicator, n)
		for i := range out {
			out[i] = g.Endpoint(i)
		}
		return out
	})
}

func TestPipes(t *testing.T) {
	communicatortest.Run(t, func(t *testing.T, n int) []stablehlo.Communicator { return communicatortest.Pipes(n) })
}

// TestRoute runs the participants as workers of two devices each, as a
// gang does: the devices of one worker talk through their LocalGroup, the
// others through streams.
func TestRoute(t *testing.T) {
	communicatortest.Run(t, func(t *testing.T, n int) []stablehlo.Communicator {
		const perWorker = 2
		far := communicatortest.Pipes(n)
		near := map[int]*stablehlo.LocalGroup{}
		out := make([]stablehlo.Communicator, n)
		for i := range out {
			w := i / perWorker
			if near[w] == nil {
				near[w] = stablehlo.NewLocalGroup(n)
			}
			out[i] = stablehlo.Route(near[w].Endpoint(i), far[i], func(peer int) bool { return peer/perWorker == w })
		}
		return out
	})
}

// Two workers each run half of a program's processes with RunLocal, over
// streams between them, and get what the processes compute together.
func TestRunLocal(t *testing.T) {
	m, err := stablehlo.Parse([]byte(`module attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%a: tensor<2xi32>) -> tensor<2xi32> {
    %r = "stablehlo.all_reduce"(%a) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, use_global_device_ids}> ({
    ^bb0(%x: tensor<i32>, %y: tensor<i32>):
      %s = stablehlo.add %x, %y : tensor<i32>
      stablehlo.return %s : tensor<i32>
    }) : (tensor<2xi32>) -> tensor<2xi32>
    return %r : tensor<2xi32>
  }
}`))
	if err != nil {
		t.Fatal(err)
	}
	typ := m.Main().Params()[0].Type
	arg := func(p byte) []*stablehlo.Tensor {
		return []*stablehlo.Tensor{{Type: typ, Data: []byte{p, 0, 0, 0, 10 * p, 0, 0, 0}}}
	}
	ctx := context.Background()
	far := communicatortest.Pipes(4)
	remote := func(id int) stablehlo.Communicator { return far[id] }
	workers := [][]int{{0, 1}, {3, 2}}
	outs := make([][][]*stablehlo.Tensor, len(workers))
	errs := make([]error, len(workers))
	var wg sync.WaitGroup
	for w, ids := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var args [][]*stablehlo.Tensor
			for _, id := range ids {
				args = append(args, arg(byte(id+1)))
			}
			outs[w], errs[w] = m.RunLocal(ctx, ids, args, remote)
		}()
	}
	wg.Wait()
	want := []byte{10, 0, 0, 0, 100, 0, 0, 0}
	for w, ids := range workers {
		if errs[w] != nil {
			t.Fatalf("worker %d: %v", w, errs[w])
		}
		for j, id := range ids {
			if got := outs[w][j][0].Data; !bytes.Equal(got, want) {
				t.Errorf("process %d on worker %d: %v, want %v", id, w, got, want)
			}
		}
	}

	for _, c := range []struct {
		name   string
		ids    []int
		remote func(int) stablehlo.Communicator
	}{
		{"no_remote", []int{0, 1}, nil},
		{"nil_remote", []int{0, 1}, func(int) stablehlo.Communicator { return nil }},
		{"repeated_id", []int{0, 0}, remote},
		{"id_out_of_grid", []int{0, 4}, remote},
	} {
		_, err := m.RunLocal(ctx, c.ids, [][]*stablehlo.Tensor{arg(1), arg(2)}, c.remote)
		var se *stablehlo.Error
		if !errors.As(err, &se) || se.Code() != stablehlo.InvalidArgument {
			t.Errorf("%s: %v, want InvalidArgument", c.name, err)
		}
	}
}
