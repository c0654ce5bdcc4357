package gocpu_test

import (
	"context"
	"testing"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/ifrt/gocpu"
)

// A host buffer given away (ImmutableZeroCopy, no OnDoneWithHostBuffer)
// becomes the memory of every shard holding the whole array, however the
// sharding is spelled (one device, a one-device HLO sharding, replicated over
// two devices); with a callback, or for shards that are parts of it, the
// array has its own copy, and the callback runs once.
func TestZeroCopyHostBuffer(t *testing.T) {
	ctx := context.Background()
	c := newClient(t, gocpu.Config{Devices: 2})
	one := ifrt.NewSingleDeviceSharding(c.Devices()[0], "")
	two, err := ifrt.NewHloSharding(c.Devices(), "", ifrt.Replicated())
	if err != nil {
		t.Fatal(err)
	}
	oneHlo, err := ifrt.NewHloSharding(c.Devices()[1:], "", ifrt.Replicated())
	if err != nil {
		t.Fatal(err)
	}
	tiled, err := ifrt.NewTiledSharding(c.Devices(), 2)
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	for _, tc := range []struct {
		name     string
		sharding ifrt.Sharding
		opts     *ifrt.HostBufferOptions
		shared   bool
	}{
		{"given away", one, &ifrt.HostBufferOptions{Semantics: ifrt.ImmutableZeroCopy}, true},
		{"with a callback", one, &ifrt.HostBufferOptions{Semantics: ifrt.ImmutableZeroCopy, OnDoneWithHostBuffer: func() { calls++ }}, false},
		{"replicated over two devices", two, &ifrt.HostBufferOptions{Semantics: ifrt.ImmutableZeroCopy}, true},
		{"one device, HLO sharding", oneHlo, &ifrt.HostBufferOptions{Semantics: ifrt.ImmutableZeroCopy}, true},
		{"tiled over two devices", tiled, &ifrt.HostBufferOptions{Semantics: ifrt.ImmutableZeroCopy}, false},
		{"only during the call", one, nil, false},
	} {
		buf := []byte{1, 2, 3, 4}
		a, err := c.MakeArrayFromHostBuffer(ctx, buf, ifrt.ArraySpec{DType: ifrt.U8, Shape: ifrt.Shape{4}, Sharding: tc.sharding}, tc.opts)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		buf[0] = 9 // only to see whether the array shares it
		got := make([]byte, 4)
		if err := a.CopyToHostBuffer(ctx, got, nil); err != nil {
			t.Fatal(err)
		}
		if shared := got[0] == 9; shared != tc.shared {
			t.Errorf("%s: the array shares the host buffer: %v, want %v", tc.name, shared, tc.shared)
		}
		a.Delete()
	}
	if calls != 1 {
		t.Errorf("OnDoneWithHostBuffer ran %d times, want 1", calls)
	}
}

// An array on one device lends its bytes (ifrt.HostBytes) without a copy;
// one over several devices has none to lend, and a deleted one fails.
func TestHostBytes(t *testing.T) {
	ctx := context.Background()
	c := newClient(t, gocpu.Config{Devices: 2})
	two, err := ifrt.NewHloSharding(c.Devices(), "", ifrt.Replicated())
	if err != nil {
		t.Fatal(err)
	}
	buf := []byte{1, 2, 3, 4}
	spec := ifrt.ArraySpec{DType: ifrt.U8, Shape: ifrt.Shape{4}, Sharding: ifrt.NewSingleDeviceSharding(c.Devices()[0], "")}
	a, err := c.MakeArrayFromHostBuffer(ctx, buf, spec, &ifrt.HostBufferOptions{Semantics: ifrt.ImmutableZeroCopy})
	if err != nil {
		t.Fatal(err)
	}
	got, ok, err := ifrt.HostBytes(a)
	if err != nil || !ok || &got[0] != &buf[0] || len(got) != 4 {
		t.Errorf("HostBytes of an array on one device = %v, %v, %v; want the adopted buffer", got, ok, err)
	}
	a.Delete()
	if _, _, err := ifrt.HostBytes(a); ifrt.CodeOf(err) != ifrt.CodeOf(ifrt.ErrArrayDeleted) {
		t.Errorf("HostBytes of a deleted array: %v, want %v", err, ifrt.ErrArrayDeleted)
	}
	spec.Sharding = two
	b, err := c.MakeArrayFromHostBuffer(ctx, buf, spec, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok, err := ifrt.HostBytes(b); ok || err != nil {
		t.Errorf("HostBytes of an array over two devices: %v, %v; want none to lend", ok, err)
	}
}
