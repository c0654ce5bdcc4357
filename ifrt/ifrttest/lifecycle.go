package ifrttest

import (
	"context"
	"fmt"
	"math"
	"sync"
	"testing"

	"github.com/openpathways/pathways/ifrt"
)

func testUseAfterDelete(t *testing.T, h Harness) {
	e := h.env(t, 2)
	data := values(ifrt.F32, 8, 1)
	a := e.put(data, ifrt.F32, ifrt.Shape{8}, e.tiled(e.devs[:2], 2))
	if err := a.Delete().Await(e.ctx); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	if !a.IsDeleted() {
		t.Fatalf("IsDeleted() = false after Delete")
	}
	if err := a.Delete().Await(e.ctx); err != nil {
		t.Errorf("second Delete: %v", err)
	}
	wantCode(t, "CopyToHostBuffer after Delete", a.CopyToHostBuffer(e.ctx, make([]byte, 32), nil), ifrt.ErrArrayDeleted)
	_, err := e.client.Reshard(e.ctx, []ifrt.Array{a}, []ifrt.ArraySpec{{DType: ifrt.F32, Shape: ifrt.Shape{8}, Sharding: e.single(0)}}, ifrt.AlwaysCopy)
	wantCode(t, "Reshard after Delete", err, ifrt.ErrArrayDeleted)
	_, err = e.client.DisassembleArray(e.ctx, a, ifrt.AlwaysCopy)
	wantCode(t, "DisassembleArray after Delete", err, ifrt.ErrArrayDeleted)
	_, err = e.client.CopyArrays(e.ctx, []ifrt.Array{a}, reversed(e.devs[:2]), nil, ifrt.AlwaysCopy)
	wantCode(t, "CopyArrays after Delete", err, ifrt.ErrArrayDeleted)
}

func testDonation(t *testing.T, h Harness) {
	e := h.env(t, 2)
	data := values(ifrt.U32, 4, 2)
	a := e.put(data, ifrt.U32, ifrt.Shape{4}, e.single(0))
	out, err := e.client.CopyArrays(e.ctx, []ifrt.Array{a}, e.devs[1:2], nil, ifrt.DonateInput)
	if err != nil {
		t.Fatalf("CopyArrays(DonateInput): %v", err)
	}
	if !a.IsDeleted() {
		t.Errorf("donated array is still alive")
	}
	e.wantContents(out[0], data)

	b := e.put(data, ifrt.U32, ifrt.Shape{4}, e.single(0))
	reused, err := e.client.CopyArrays(e.ctx, []ifrt.Array{b}, e.devs[1:2], nil, ifrt.ReuseInput)
	if err != nil {
		t.Fatalf("CopyArrays(ReuseInput): %v", err)
	}
	b.Delete()
	e.wantContents(reused[0], data) // deleting the input must not take the result with it
}

func testFutures(t *testing.T, h Harness) {
	e := h.env(t, 1)
	a := e.put(values(ifrt.S8, 16, 3), ifrt.S8, ifrt.Shape{16}, e.single(0))
	if err := a.Ready().Await(e.ctx); err != nil {
		t.Errorf("Ready: %v", err)
	}
	select {
	case <-a.Ready().Done():
	case <-e.ctx.Done():
		t.Fatalf("Ready().Done() never closed")
	}
	cancelled, cancel := context.WithCancel(e.ctx)
	cancel()
	pending, resolve := ifrt.NewFuture()
	if err := pending.Await(cancelled); err != context.Canceled {
		t.Errorf("Await on a cancelled context = %v, want context.Canceled", err)
	}
	resolve(nil)
	if err := ifrt.JoinFutures(a.Ready(), pending, a.Delete()).Await(e.ctx); err != nil {
		t.Errorf("JoinFutures: %v", err)
	}
	if err := a.Ready().Await(e.ctx); err == nil {
		t.Errorf("Ready of a deleted array succeeded")
	}
}

func testBadInput(t *testing.T, h Harness) {
	e := h.env(t, 1)
	spec := func(d ifrt.DType, shape ifrt.Shape) ifrt.ArraySpec {
		return ifrt.ArraySpec{DType: d, Shape: shape, Sharding: e.single(0)}
	}
	cases := []struct {
		name string
		data []byte
		spec ifrt.ArraySpec
		opts *ifrt.HostBufferOptions
	}{
		{"short buffer", make([]byte, 7), spec(ifrt.F32, ifrt.Shape{2}), nil},
		{"long buffer", make([]byte, 9), spec(ifrt.F32, ifrt.Shape{2}), nil},
		{"negative dimension", nil, spec(ifrt.F32, ifrt.Shape{-1}), nil},
		{"overflowing shape", nil, spec(ifrt.F32, ifrt.Shape{math.MaxInt64 / 2, 4}), nil},
		{"invalid dtype", nil, spec(ifrt.DType(77), ifrt.Shape{1}), nil},
		{"no sharding", nil, ifrt.ArraySpec{DType: ifrt.F32, Shape: ifrt.Shape{1}}, nil},
		{"foreign device", make([]byte, 4), ifrt.ArraySpec{DType: ifrt.F32, Shape: ifrt.Shape{1},
			Sharding: ifrt.NewSingleDeviceSharding(&ifrt.Device{ID: 1 << 29}, "")}, nil},
		{"misaligned stride", make([]byte, 16), spec(ifrt.F32, ifrt.Shape{2}), &ifrt.HostBufferOptions{ByteStrides: []int64{6}}},
		{"strides of another rank", make([]byte, 8), spec(ifrt.F32, ifrt.Shape{2}), &ifrt.HostBufferOptions{ByteStrides: []int64{4, 4}}},
		{"sharding rank mismatch", make([]byte, 16), ifrt.ArraySpec{DType: ifrt.F32, Shape: ifrt.Shape{4}, Sharding: e.tiled(e.devs[:1], 1, 1)}, nil},
	}
	for _, c := range cases {
		done := 0
		opts := c.opts
		if opts == nil {
			opts = &ifrt.HostBufferOptions{}
		}
		opts.OnDoneWithHostBuffer = func() { done++ }
		_, err := e.client.MakeArrayFromHostBuffer(e.ctx, c.data, c.spec, opts)
		wantCode(t, c.name, err, ifrt.ErrInvalidArgument)
		if done != 1 {
			t.Errorf("%s: OnDoneWithHostBuffer called %d times, want 1", c.name, done)
		}
	}
	other := h.NewClient(t)
	defer other.Close()
	foreign, err := other.MakeArrayFromHostBuffer(e.ctx, make([]byte, 4), ifrt.ArraySpec{
		DType: ifrt.F32, Shape: ifrt.Shape{1}, Sharding: ifrt.NewSingleDeviceSharding(other.AddressableDevices()[0], ""),
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.client.CopyArrays(e.ctx, []ifrt.Array{foreign}, e.devs[:1], nil, ifrt.AlwaysCopy)
	wantCode(t, "CopyArrays of another client's array", err, ifrt.ErrInvalidArgument)
}

func testConcurrent(t *testing.T, h Harness) {
	e := h.env(t, 2)
	n := int64(len(e.devs))
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for g := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- concurrentWork(e, g, n)
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}

func concurrentWork(e *env, g int, n int64) error {
	shape := ifrt.Shape{2 * n, 4}
	for i := range 8 {
		data := values(ifrt.F32, shape.NumElements(), uint64(g*100+i))
		s1, _ := ifrt.NewTiledSharding(e.devs, n, 1)
		a, err := e.client.MakeArrayFromHostBuffer(e.ctx, data, ifrt.ArraySpec{DType: ifrt.F32, Shape: shape, Sharding: s1}, nil)
		if err != nil {
			return err
		}
		s2, _ := ifrt.NewTiledSharding(reversed(e.devs), 1, 2)
		if n%2 != 0 {
			s2, _ = ifrt.NewTiledSharding(reversed(e.devs), 1, 1)
		}
		out, err := e.client.Reshard(e.ctx, []ifrt.Array{a}, []ifrt.ArraySpec{{DType: ifrt.F32, Shape: shape, Sharding: s2}}, ifrt.DonateInput)
		if err != nil {
			return err
		}
		got := make([]byte, len(data))
		if err := out[0].CopyToHostBuffer(e.ctx, got, nil); err != nil {
			return err
		}
		if string(got) != string(data) {
			return fmt.Errorf("goroutine %d iteration %d: contents changed", g, i)
		}
		if err := out[0].Delete().Await(e.ctx); err != nil {
			return err
		}
	}
	return nil
}
