package cluster_test

import (
	"bytes"
	"testing"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/proxy"
	"github.com/openpathways/pathways/rm"
)

// TestSuspendArraysOverSeveralDevices: a client of one worker's own proxy
// session holds arrays over several of its devices (tiled, replicated); the
// slice is suspended (they are saved device by device and freed: reading
// them is UNAVAILABLE) and resumed, and they read back bit-exact.
func TestSuspendArraysOverSeveralDevices(t *testing.T) {
	l, _ := startSuspendable(t)
	ctx := testContext(t)
	view, err := rmClusterView(ctx, l.RMAddress)
	if err != nil {
		t.Fatal(err)
	}
	var addr string
	for _, w := range view.Workers {
		if w.Slice == 1 {
			addr = w.Address
		}
	}
	c, err := proxy.Dial(ctx, addr, proxy.WithLogger(quietLogger()))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	devs := c.AddressableDevices()
	tiled, _ := ifrt.NewTiledSharding(devs, 2, 2)
	replicated, _ := ifrt.NewHloSharding(devs[1:3], "", ifrt.Replicated())
	specs := []ifrt.ArraySpec{
		{DType: ifrt.S32, Shape: ifrt.Shape{4, 2}, Sharding: tiled},
		{DType: ifrt.BF16, Shape: ifrt.Shape{6}, Sharding: replicated},
	}
	var arrays []ifrt.Array
	var want [][]byte
	for i, spec := range specs {
		n, _ := spec.Shape.ByteSize(spec.DType)
		data := make([]byte, n)
		for k := range data {
			data[k] = byte(k*11 + i*5 + 3)
		}
		a, err := c.MakeArrayFromHostBuffer(ctx, data, spec, nil)
		if err != nil {
			t.Fatalf("MakeArrayFromHostBuffer %v: %v", spec.DType, err)
		}
		arrays, want = append(arrays, a), append(want, data)
	}
	read := func(i int) ([]byte, error) {
		got := make([]byte, len(want[i]))
		return got, arrays[i].CopyToHostBuffer(ctx, got, nil)
	}

	rmc, err := rm.NewClient(l.RMAddress, rm.WithLogger(quietLogger()))
	if err != nil {
		t.Fatal(err)
	}
	defer rmc.Close()
	if _, err := rmc.SuspendSlice(ctx, 1, rm.SuspendOptions{Reason: "test"}); err != nil {
		t.Fatalf("SuspendSlice: %v", err)
	}
	if _, err := read(0); ifrt.CodeOf(err) != ifrt.Unavailable {
		t.Errorf("reading an array of the suspended slice: %v, want UNAVAILABLE", err)
	}
	if _, err := rmc.ResumeSlice(ctx, 1); err != nil {
		t.Fatalf("ResumeSlice: %v", err)
	}
	for i := range arrays {
		got, err := read(i)
		if err != nil {
			t.Fatalf("after the resume, reading the %v array: %v", specs[i].DType, err)
		}
		if !bytes.Equal(got, want[i]) {
			t.Errorf("after the resume the %v array reads %v, want %v", specs[i].DType, got, want[i])
		}
	}
}
