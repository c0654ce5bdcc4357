package rm_test

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/rm"
)

// The gang scheduler numbers each worker's launches from 1, atomically over
// the hosts of one launch, and starts again for a new worker incarnation.
func TestSequence(t *testing.T) {
	ctx := testContext(t)
	var n network
	startRM(t, &n, rm.Config{InstanceType: "cpu:2hx2", InstanceCount: 2})
	raw := rawClient(t, &n)
	for _, w := range []struct {
		slice, host int32
		inc         string
	}{{0, 0, "a"}, {0, 1, "b"}, {1, 0, "c"}} {
		if _, err := raw.RegisterWorker(ctx, registerReq(w.slice, w.host, "w"+w.inc, w.inc, 2)); err != nil {
			t.Fatal(err)
		}
	}
	c := newClient(t, &n)
	a, b, d := rm.HostRef{Slice: 0, Host: 0}, rm.HostRef{Slice: 0, Host: 1}, rm.HostRef{Slice: 1, Host: 0}
	var got [][]uint64
	for _, hosts := range [][]rm.HostRef{{a, b}, {b, d}, {a}, {d, a, b}} {
		seqs, incs, err := c.Sequence(ctx, hosts)
		if err != nil {
			t.Fatal(err)
		}
		if len(incs) != len(hosts) || incs[0] == "" {
			t.Fatalf("incarnations %q", incs)
		}
		got = append(got, seqs)
	}
	want := [][]uint64{{1, 1}, {2, 1}, {2}, {2, 3, 3}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("sequence numbers (-want +got):\n%s", diff)
	}
	// A new run of host a's worker counts from 1 again.
	if _, err := raw.RegisterWorker(ctx, registerReq(0, 0, "wa", "a2", 2)); err != nil {
		t.Fatal(err)
	}
	if seqs, _, err := c.Sequence(ctx, []rm.HostRef{a}); err != nil || seqs[0] != 1 {
		t.Errorf("after a new incarnation: %v, %v; want [1]", seqs, err)
	}
	if _, _, err := c.Sequence(ctx, []rm.HostRef{{Slice: 1, Host: 1}}); ifrt.CodeOf(err) != ifrt.FailedPrecondition {
		t.Errorf("a host with no worker: %v, want FAILED_PRECONDITION", err)
	}
	if _, _, err := c.Sequence(ctx, []rm.HostRef{{Slice: 2, Host: 0}}); ifrt.CodeOf(err) != ifrt.InvalidArgument {
		t.Errorf("no such slice: %v, want INVALID_ARGUMENT", err)
	}
	if _, _, err := c.Sequence(ctx, []rm.HostRef{a, a}); ifrt.CodeOf(err) != ifrt.InvalidArgument {
		t.Errorf("a host twice: %v, want INVALID_ARGUMENT", err)
	}
}

// A blocking Get returns once another process puts the key; TryGet does not
// wait; groups keep their keys apart.
func TestKeyValue(t *testing.T) {
	ctx := testContext(t)
	var n network
	startRM(t, &n, rm.Config{InstanceType: "cpu:1", InstanceCount: 1})
	c := newClient(t, &n)
	g1, g2 := c.KeyValue("launch-1"), c.KeyValue("launch-2")
	if _, err := g1.TryGet(ctx, "nccl_id"); !errors.Is(err, ifrt.ErrNotFound) {
		t.Fatalf("TryGet of a missing key = %v, want NOT_FOUND", err)
	}
	got := make(chan []byte, 1)
	errc := make(chan error, 1)
	go func() {
		v, err := g1.Get(ctx, "nccl_id", 0)
		got <- v
		errc <- err
	}()
	if err := g2.Put(ctx, "nccl_id", []byte("other group")); err != nil {
		t.Fatal(err)
	}
	if err := g1.Put(ctx, "nccl_id", []byte("id-1")); err != nil {
		t.Fatal(err)
	}
	if v, err := <-got, <-errc; err != nil || string(v) != "id-1" {
		t.Errorf("blocking Get = %q, %v; want id-1", v, err)
	}
	if v, err := g2.TryGet(ctx, "nccl_id"); err != nil || string(v) != "other group" {
		t.Errorf("TryGet = %q, %v", v, err)
	}
	if _, err := g1.Get(ctx, "never", 50*time.Millisecond); !errors.Is(err, ifrt.ErrDeadlineExceeded) {
		t.Errorf("Get of a key nobody puts = %v, want DEADLINE_EXCEEDED", err)
	}
	if err := g1.Put(ctx, "", nil); !errors.Is(err, ifrt.ErrInvalidArgument) {
		t.Errorf("Put of an empty key = %v, want INVALID_ARGUMENT", err)
	}
	if err := g1.Put(ctx, "big", make([]byte, 2<<20)); !errors.Is(err, ifrt.ErrResourceExhausted) {
		t.Errorf("Put of 2 MiB = %v, want RESOURCE_EXHAUSTED", err)
	}
	if err := g1.Delete(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := g1.TryGet(ctx, "nccl_id"); !errors.Is(err, ifrt.ErrNotFound) {
		t.Errorf("TryGet after the group's deletion = %v, want NOT_FOUND", err)
	}
}
