// Package communicatortest checks implementations of
// stablehlo.Communicator, the interface that carries the collectives of an
// SPMD execution between its processes. The in-process LocalGroup, the
// routed one (stablehlo.Route) and a network implementation all pass the
// same checks:
//
//	func TestPeerCommunicator(t *testing.T) {
//		communicatortest.Run(t, func(t *testing.T, n int) []stablehlo.Communicator {
//			return dialPeers(t, n) // n connected participants of one new execution
//		})
//	}
//
// Run executes every collective of the StableHLO specification's examples
// (all_reduce, all_gather, reduce_scatter, all_to_all, collective_permute,
// collective_broadcast, partition_id, replica_id over replica and partition
// groups and mesh axes) with one goroutine per participant, a collective of
// 512 KiB, and the contract's failure rules: a failing participant fails
// everyone's execution with an Aborted error, programs that disagree on
// their collectives fail instead of waiting, a context's end stops every
// participant, messages of one pair arrive in order and a mismatched tag is
// refused. Pipes is a reference implementation over byte streams.
//
// Run starts its subtests with t.Run, one after another; the factory is
// called once per subtest and may register cleanups with t.Cleanup.
package communicatortest

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/openpathways/pathways/internal/golden"
	"github.com/openpathways/pathways/internal/stablehlo"
)

// NewGroup returns the connected Communicators of the n participants
// (numbered 0 to n-1) of one new execution.
type NewGroup func(t *testing.T, n int) []stablehlo.Communicator

// timeout bounds each subtest: an implementation that hangs fails instead
// of stalling the test binary.
const timeout = 60 * time.Second

// Run checks the Communicators newGroup makes; see the package comment.
func Run(t *testing.T, newGroup NewGroup) {
	t.Run("collectives", func(t *testing.T) {
		for _, c := range collectiveCases() {
			t.Run(c.name, func(t *testing.T) { runCase(t, newGroup, c) })
		}
	})
	t.Run("large", func(t *testing.T) { runLarge(t, newGroup) })
	t.Run("failure_reaches_every_process", func(t *testing.T) { runFailure(t, newGroup) })
	t.Run("divergent_collectives_fail", func(t *testing.T) { runDivergent(t, newGroup) })
	t.Run("context_ends_every_process", func(t *testing.T) { runContext(t, newGroup) })
	t.Run("messages", func(t *testing.T) { runMessages(t, newGroup) })
}

// runProcesses runs every process of m over comms, each on its own
// goroutine, and returns their results and errors; it fails the test when
// they do not all end within timeout.
func runProcesses(t *testing.T, ctx context.Context, m *stablehlo.Module, comms []stablehlo.Communicator, args [][]*stablehlo.Tensor) ([][]*stablehlo.Tensor, []error) {
	t.Helper()
	outs := make([][]*stablehlo.Tensor, len(comms))
	errs := make([]error, len(comms))
	var wg sync.WaitGroup
	for id := range comms {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p := stablehlo.Process{Replica: id / m.NumPartitions(), Partition: id % m.NumPartitions(), Comm: comms[id]}
			outs[id], errs[id] = m.RunProcess(ctx, p, args[id])
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(timeout):
		t.Fatalf("the %d processes did not all end within %v", len(comms), timeout)
	}
	return outs, errs
}

func parse(t *testing.T, src string) *stablehlo.Module {
	t.Helper()
	m, err := stablehlo.Parse([]byte(src))
	if err != nil {
		t.Fatalf("Parse: %v\n%s", err, src)
	}
	return m
}

// literal builds a tensor from an MLIR dense literal.
func literal(t *testing.T, typ, lit string) *stablehlo.Tensor {
	t.Helper()
	m := parse(t, "func.func @main() -> "+typ+" {\n  %0 = stablehlo.constant dense<"+lit+"> : "+typ+"\n  return %0 : "+typ+"\n}")
	out, err := m.Run(context.Background(), nil)
	if err != nil {
		t.Fatalf("literal %s %s: %v", typ, lit, err)
	}
	return out[0]
}

func code(err error) int {
	var e *stablehlo.Error
	if errors.As(err, &e) {
		return e.Code()
	}
	return -1
}

func runCase(t *testing.T, newGroup NewGroup, c gridCase) {
	src := c.module()
	m := parse(t, src)
	n := c.replicas * c.partitions
	args := make([][]*stablehlo.Tensor, n)
	for id := range n {
		for i, typ := range c.params {
			args[id] = append(args[id], literal(t, typ, c.in[id][i]))
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	outs, errs := runProcesses(t, ctx, m, newGroup(t, n), args)
	if err := stablehlo.FirstFailure(errs); err != nil {
		t.Fatalf("run: %v\n%s", err, src)
	}
	for id := range n {
		for k, typ := range c.results {
			if want := literal(t, typ, c.want[id][k]); !bytes.Equal(outs[id][k].Data, want.Data) {
				t.Errorf("process %d result %d: got bytes %v, want %v (%s)", id, k, outs[id][k].Data, want.Data, c.want[id][k])
			}
		}
	}
}

// runLarge all-gathers and all-reduces 128 KiB per participant over 4
// participants: messages larger than any stream's buffer, sent by every
// participant at once.
func runLarge(t *testing.T, newGroup NewGroup) {
	const n, elems = 4, 32 << 10
	m := parse(t, `module attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%a: tensor<32768xi32>) -> (tensor<131072xi32>, tensor<32768xi32>) {
    %g = "stablehlo.all_gather"(%a) <{all_gather_dim = 0 : i64, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, use_global_device_ids}> : (tensor<32768xi32>) -> tensor<131072xi32>
    %s = "stablehlo.all_reduce"(%a) <{channel_handle = #stablehlo.channel_handle<handle = 2, type = 1>, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, use_global_device_ids}> ({
    ^bb0(%x: tensor<i32>, %y: tensor<i32>):
      %t = stablehlo.add %x, %y : tensor<i32>
      stablehlo.return %t : tensor<i32>
    }) : (tensor<32768xi32>) -> tensor<32768xi32>
    return %g, %s : tensor<131072xi32>, tensor<32768xi32>
  }
}`)
	value := func(p, i int) int32 { return int32(p*elems + i) }
	typ := m.Main().Params()[0].Type
	args := make([][]*stablehlo.Tensor, n)
	for p := range n {
		data := make([]byte, 4*elems)
		for i := range elems {
			binary.LittleEndian.PutUint32(data[4*i:], uint32(value(p, i)))
		}
		args[p] = []*stablehlo.Tensor{{Type: typ, Data: data}}
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	outs, errs := runProcesses(t, ctx, m, newGroup(t, n), args)
	if err := stablehlo.FirstFailure(errs); err != nil {
		t.Fatal(err)
	}
	for p := range n {
		gathered, sum := outs[p][0].Data, outs[p][1].Data
		for q := range n {
			if !bytes.Equal(gathered[4*elems*q:4*elems*(q+1)], args[q][0].Data) {
				t.Errorf("process %d: block %d of the all_gather differs from process %d's argument", p, q, q)
			}
		}
		for i := range elems {
			want := value(0, i) + value(1, i) + value(2, i) + value(3, i)
			if got := int32(binary.LittleEndian.Uint32(sum[4*i:])); got != want {
				t.Fatalf("process %d: all_reduce element %d = %d, want %d", p, i, got, want)
			}
		}
	}
}

// A process that fails before its collective fails everyone's: the others
// get Aborted, and FirstFailure reports the failing process's own error.
func runFailure(t *testing.T, newGroup NewGroup) {
	m := parse(t, golden.PsumTwo)
	good := literal(t, "tensor<3xf32>", "[1, 2, 3]")
	bad := literal(t, "tensor<2xf32>", "[1, 2]")
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	_, errs := runProcesses(t, ctx, m, newGroup(t, 2), [][]*stablehlo.Tensor{{good}, {bad}})
	if code(errs[1]) != stablehlo.InvalidArgument {
		t.Fatalf("process 1: %v, want InvalidArgument", errs[1])
	}
	if code(errs[0]) != stablehlo.Aborted {
		t.Fatalf("process 0: %v, want Aborted", errs[0])
	}
	if got := stablehlo.FirstFailure(errs); got != errs[1] {
		t.Errorf("FirstFailure = %v, want process 1's error", got)
	}
}

// Processes whose programs take different paths around a collective fail
// with Aborted instead of waiting for each other.
func runDivergent(t *testing.T, newGroup NewGroup) {
	m := parse(t, `module attributes {mhlo.num_partitions = 2 : i32, mhlo.num_replicas = 1 : i32} {
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
	x := literal(t, "tensor<3xf32>", "[1, 2, 3]")
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	_, errs := runProcesses(t, ctx, m, newGroup(t, 2), [][]*stablehlo.Tensor{{x}, {x}})
	if errs[1] != nil {
		t.Errorf("process 1 (no collective): %v", errs[1])
	}
	if code(errs[0]) != stablehlo.Aborted {
		t.Errorf("process 0: %v, want Aborted", errs[0])
	}
}

// A process stuck in its own computation does not keep the others waiting
// past the context's end.
func runContext(t *testing.T, newGroup NewGroup) {
	m := parse(t, golden.StuckAllReduce)
	x := literal(t, "tensor<3xf32>", "[1, 2, 3]")
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, errs := runProcesses(t, ctx, m, newGroup(t, 2), [][]*stablehlo.Tensor{{x}, {x}})
	for id, err := range errs {
		if !errors.Is(err, context.DeadlineExceeded) && code(err) != stablehlo.Aborted {
			t.Errorf("process %d: %v, want the context's error or Aborted", id, err)
		}
	}
	if err := stablehlo.FirstFailure(errs); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("FirstFailure = %v, want context.DeadlineExceeded", err)
	}
}

// runMessages checks Send and Recv directly.
func runMessages(t *testing.T, newGroup NewGroup) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	tag := func(c uint64, m uint32) stablehlo.Tag { return stablehlo.Tag{Collective: c, Message: m} }
	doneAll := func(comms []stablehlo.Communicator, err error) {
		for _, c := range comms {
			c.Done(err)
		}
	}

	t.Run("in_order", func(t *testing.T) {
		comms := newGroup(t, 2)
		defer doneAll(comms, nil)
		msgs := [][]byte{[]byte("first"), make([]byte, 10000), []byte("third")}
		for i := range msgs[1] {
			msgs[1][i] = byte(i)
		}
		sent := make(chan error, 1)
		go func() {
			for i, m := range msgs {
				if err := comms[0].Send(ctx, 1, tag(1, uint32(i)), m); err != nil {
					sent <- err
					return
				}
			}
			sent <- nil
		}()
		for i, m := range msgs {
			var got bytes.Buffer
			if err := comms[1].Recv(ctx, 0, tag(1, uint32(i)), len(m), &got); err != nil || !bytes.Equal(got.Bytes(), m) {
				t.Fatalf("message %d: Recv = %d bytes, %v; want the %d bytes sent", i, got.Len(), err, len(m))
			}
		}
		if err := <-sent; err != nil {
			t.Fatalf("Send: %v", err)
		}
	})
	t.Run("tag_mismatch_refused", func(t *testing.T) {
		comms := newGroup(t, 2)
		defer doneAll(comms, errors.New("test over"))
		go func() { _ = comms[0].Send(ctx, 1, tag(2, 0), []byte("x")) }() // fails once Recv refuses; Recv is what the case checks
		var got bytes.Buffer
		if err := comms[1].Recv(ctx, 0, tag(1, 0), 1, &got); err == nil || got.Len() != 0 {
			t.Errorf("Recv of another tag = %q, %v; want an error and nothing written", got.String(), err)
		}
	})
	t.Run("size_mismatch_refused", func(t *testing.T) {
		comms := newGroup(t, 2)
		defer doneAll(comms, errors.New("test over"))
		go func() { _ = comms[0].Send(ctx, 1, tag(1, 0), []byte("xy")) }() // fails once Recv refuses; Recv is what the case checks
		if err := comms[1].Recv(ctx, 0, tag(1, 0), 3, &bytes.Buffer{}); err == nil {
			t.Error("Recv of another size succeeded")
		}
	})
	t.Run("failure_wakes_pending_calls", func(t *testing.T) {
		comms := newGroup(t, 3)
		recv := make(chan error, 1)
		send := make(chan error, 1)
		go func() { recv <- comms[0].Recv(ctx, 1, tag(1, 0), 1, &bytes.Buffer{}) }()
		go func() { send <- comms[2].Send(ctx, 0, tag(1, 0), make([]byte, 1<<20)) }()
		comms[1].Done(errors.New("boom"))
		if err := <-recv; code(err) != stablehlo.Aborted {
			t.Errorf("Recv from the failed participant = %v, want Aborted", err)
		}
		// Participant 0 never receives from 2: the failure must release
		// 2's Send of a message larger than any buffer.
		if err := <-send; code(err) != stablehlo.Aborted {
			t.Errorf("pending Send = %v, want Aborted", err)
		}
		comms[0].Done(errors.New("test over"))
		comms[2].Done(errors.New("test over"))
	})
	t.Run("ended_peer", func(t *testing.T) {
		comms := newGroup(t, 2)
		comms[1].Done(nil)
		if err := comms[0].Recv(ctx, 1, tag(1, 0), 1, &bytes.Buffer{}); code(err) != stablehlo.Aborted {
			t.Errorf("Recv from an ended peer = %v, want Aborted", err)
		}
		if err := comms[0].Send(ctx, 1, tag(1, 0), make([]byte, 1<<20)); code(err) != stablehlo.Aborted {
			t.Errorf("Send to an ended peer = %v, want Aborted", err)
		}
		comms[0].Done(nil)
	})
	t.Run("context", func(t *testing.T) {
		comms := newGroup(t, 2)
		defer doneAll(comms, nil)
		short, cancel := context.WithCancel(ctx)
		cancel()
		if err := comms[0].Recv(short, 1, tag(1, 0), 1, &bytes.Buffer{}); !errors.Is(err, context.Canceled) {
			t.Errorf("Recv with an ended context = %v, want context.Canceled", err)
		}
	})
}
