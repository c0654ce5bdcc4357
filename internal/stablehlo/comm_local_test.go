package stablehlo

import (
	"bytes"
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

const psum2 = `module attributes {mhlo.num_partitions = 2 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%a: tensor<3xf32>) -> tensor<3xf32> {
    %r = "stablehlo.all_reduce"(%a) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, use_global_device_ids}> ({
    ^bb0(%x: tensor<f32>, %y: tensor<f32>):
      %s = stablehlo.add %x, %y : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) : (tensor<3xf32>) -> tensor<3xf32>
    return %r : tensor<3xf32>
  }
}`

// runGridErrs runs every process of m over comms and returns each one's
// error; it fails the test if the processes do not all end.
func runGridErrs(t *testing.T, ctx context.Context, m *Module, comms []Communicator, args [][]*Tensor) []error {
	t.Helper()
	errs := make([]error, len(comms))
	var wg sync.WaitGroup
	for id := range comms {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p := Process{Partition: id, Comm: comms[id]}
			_, errs[id] = m.RunProcess(ctx, p, args[id])
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(defaultTestTimeout):
		t.Fatal("the processes did not all end")
	}
	return errs
}

// A process that fails before its collective fails everyone's: the others
// get Aborted naming it, and FirstFailure reports its own error.
func TestProcessFailureReachesEveryProcess(t *testing.T) {
	m := mustParse(t, psum2)
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			good := literal(t, "tensor<3xf32>", "[1, 2, 3]")
			bad := literal(t, "tensor<2xf32>", "[1, 2]")
			errs := runGridErrs(t, context.Background(), m, tr.new(2), [][]*Tensor{{good}, {bad}})
			if errorCode(errs[1]) != InvalidArgument {
				t.Fatalf("process 1: %v, want InvalidArgument", errs[1])
			}
			if errorCode(errs[0]) != Aborted {
				t.Fatalf("process 0: %v, want Aborted", errs[0])
			}
			if got := FirstFailure(errs); got != errs[1] {
				t.Errorf("FirstFailure = %v, want process 1's error", got)
			}
		})
	}
}

// Processes whose programs take different paths around a collective fail
// with Aborted instead of waiting for each other.
func TestDivergentCollectivesFail(t *testing.T) {
	m := mustParse(t, `module attributes {mhlo.num_partitions = 2 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%a: tensor<3xf32>) -> tensor<3xf32> {
    %p = stablehlo.partition_id : tensor<ui32>
    %z = stablehlo.constant dense<0> : tensor<ui32>
    %c = stablehlo.compare EQ, %p, %z : (tensor<ui32>, tensor<ui32>) -> tensor<i1>
    %r = "stablehlo.if"(%c) ({
      %s = "stablehlo.all_reduce"(%a) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, use_global_device_ids}> ({
      ^bb0(%x: tensor<f32>, %y: tensor<f32>):
        %t = stablehlo.add %x, %y : tensor<f32>
        stablehlo.return %t : tensor<f32>
      }) : (tensor<3xf32>) -> tensor<3xf32>
      stablehlo.return %s : tensor<3xf32>
    }, {
      stablehlo.return %a : tensor<3xf32>
    }) : (tensor<i1>) -> tensor<3xf32>
    return %r : tensor<3xf32>
  }
}`)
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			x := literal(t, "tensor<3xf32>", "[1, 2, 3]")
			errs := runGridErrs(t, context.Background(), m, tr.new(2), [][]*Tensor{{x}, {x}})
			if errs[1] != nil {
				t.Errorf("process 1 (no collective): %v", errs[1])
			}
			if errorCode(errs[0]) != Aborted {
				t.Errorf("process 0: %v, want Aborted", errs[0])
			}
		})
	}
}

// A process stuck in its own computation does not keep the others waiting
// past the context's end.
func TestCollectivesHonourContext(t *testing.T) {
	m := mustParse(t, `module attributes {mhlo.num_partitions = 2 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%a: tensor<3xf32>) -> tensor<3xf32> {
    %p = stablehlo.partition_id : tensor<ui32>
    %one = stablehlo.constant dense<1> : tensor<ui32>
    %w = stablehlo.while(%i = %p) : tensor<ui32>
     cond {
      %c = stablehlo.compare EQ, %i, %one : (tensor<ui32>, tensor<ui32>) -> tensor<i1>
      stablehlo.return %c : tensor<i1>
    } do {
      stablehlo.return %i : tensor<ui32>
    }
    %r = "stablehlo.all_reduce"(%a) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, use_global_device_ids}> ({
    ^bb0(%x: tensor<f32>, %y: tensor<f32>):
      %t = stablehlo.add %x, %y : tensor<f32>
      stablehlo.return %t : tensor<f32>
    }) : (tensor<3xf32>) -> tensor<3xf32>
    return %r : tensor<3xf32>
  }
}`)
	x := literal(t, "tensor<3xf32>", "[1, 2, 3]")
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	errs := runGridErrs(t, ctx, m, transports[0].new(2), [][]*Tensor{{x}, {x}})
	for id, err := range errs {
		if !errors.Is(err, context.DeadlineExceeded) && errorCode(err) != Aborted {
			t.Errorf("process %d: %v, want the context's error or Aborted", id, err)
		}
	}
	if err := FirstFailure(errs); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("FirstFailure = %v, want context.DeadlineExceeded", err)
	}
}

func TestLocalGroupContract(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), defaultTestTimeout)
	defer cancel()
	tag := Tag{Collective: 1}

	t.Run("delivers", func(t *testing.T) {
		g := NewLocalGroup(2)
		a, b := g.Endpoint(0), g.Endpoint(1)
		go a.Send(ctx, 1, tag, []byte("hello"))
		var got bytes.Buffer
		if err := b.Recv(ctx, 0, tag, 5, &got); err != nil || got.String() != "hello" {
			t.Fatalf("Recv = %q, %v", got.String(), err)
		}
	})
	t.Run("tag_mismatch_fails_both", func(t *testing.T) {
		g := NewLocalGroup(2)
		a, b := g.Endpoint(0), g.Endpoint(1)
		sent := make(chan error, 1)
		go func() { sent <- a.Send(ctx, 1, Tag{Collective: 2}, []byte("x")) }()
		if err := b.Recv(ctx, 0, tag, 1, &bytes.Buffer{}); errorCode(err) != Aborted {
			t.Errorf("Recv = %v, want Aborted", err)
		}
		if err := <-sent; errorCode(err) != Aborted {
			t.Errorf("Send = %v, want Aborted", err)
		}
	})
	t.Run("failure_wakes_pending_calls", func(t *testing.T) {
		g := NewLocalGroup(3)
		recv := make(chan error, 1)
		send := make(chan error, 1)
		go func() { recv <- g.Endpoint(0).Recv(ctx, 1, tag, 1, &bytes.Buffer{}) }()
		go func() { send <- g.Endpoint(2).Send(ctx, 0, tag, []byte("x")) }()
		g.Endpoint(1).Done(errors.New("boom"))
		if err := <-recv; errorCode(err) != Aborted {
			t.Errorf("Recv = %v, want Aborted", err)
		}
		if err := <-send; errorCode(err) != Aborted {
			t.Errorf("Send = %v, want Aborted", err)
		}
	})
	t.Run("ended_peer", func(t *testing.T) {
		g := NewLocalGroup(2)
		g.Endpoint(1).Done(nil)
		if err := g.Endpoint(0).Recv(ctx, 1, tag, 1, &bytes.Buffer{}); errorCode(err) != Aborted {
			t.Errorf("Recv from an ended peer = %v, want Aborted", err)
		}
		if err := g.Endpoint(0).Send(ctx, 1, tag, []byte("x")); errorCode(err) != Aborted {
			t.Errorf("Send to an ended peer = %v, want Aborted", err)
		}
	})
	t.Run("bad_peer", func(t *testing.T) {
		g := NewLocalGroup(2)
		for _, peer := range []int{-1, 0, 2} {
			if err := g.Endpoint(0).Send(ctx, peer, tag, nil); err == nil {
				t.Errorf("Send to %d succeeded", peer)
			}
		}
	})
}
