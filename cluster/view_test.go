package cluster_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/openpathways/pathways/cluster/local"
	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/ifrt/backend"
	"github.com/openpathways/pathways/ifrt/gocpu"
	"github.com/openpathways/pathways/internal/testenv"
)

// startCounted is a one-worker cluster whose worker backend the test can count.
func startCounted(t *testing.T) (ifrt.Client, *gocpu.Client) {
	var g *gocpu.Client
	l := startLocal(t, local.Config{Slices: 1, DevicesPerSlice: 2, NoProxy: true, NewBackend: func(int) (ifrt.Client, error) {
		var err error
		g, err = gocpu.New(gocpu.Config{Devices: 2})
		return g, err
	}})
	return l.Client, g
}

// waitLive waits for the worker to hold want arrays (deletions reach it
// asynchronously) and fails if it does not.
func waitLive(t *testing.T, g *gocpu.Client, want int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		n, _ := g.Live()
		if n == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the worker holds %d arrays, want %d", n, want)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestFullyReplicatedShardOfOneDeviceIsAView: the read-back jaxlib does for
// every single-device array (FullyReplicatedShard with ReuseInput) makes no
// copy on the worker, and either array outlives the other's deletion.
func TestFullyReplicatedShardOfOneDeviceIsAView(t *testing.T) {
	c, g := startCounted(t)
	ctx := testenv.Context(t, defaultTestTimeout)
	want := []float32{1, 2, 3, 4}
	spec := ifrt.ArraySpec{DType: ifrt.F32, Shape: ifrt.Shape{4}, Sharding: ifrt.NewSingleDeviceSharding(c.Devices()[0], "")}
	a, err := c.MakeArrayFromHostBuffer(ctx, f32Bytes(want...), spec, nil)
	if err != nil {
		t.Fatal(err)
	}
	v, err := c.FullyReplicatedShard(ctx, a, ifrt.ReuseInput)
	if err != nil {
		t.Fatal(err)
	}
	waitLive(t, g, 1)
	if err := a.Delete().Await(ctx); err != nil {
		t.Fatal(err)
	}
	if !a.IsDeleted() || v.IsDeleted() {
		t.Errorf("after deleting the array: IsDeleted = %v, view's %v; want true, false", a.IsDeleted(), v.IsDeleted())
	}
	if got := readF32(t, ctx, v); !cmp.Equal(got, want) {
		t.Errorf("the view after its array's deletion reads %v, want %v", got, want)
	}
	waitLive(t, g, 1)
	if err := v.Delete().Await(ctx); err != nil {
		t.Fatal(err)
	}
	waitLive(t, g, 0)

	// AlwaysCopy keeps the result independent: a copy.
	b, err := c.MakeArrayFromHostBuffer(ctx, f32Bytes(want...), spec, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.FullyReplicatedShard(ctx, b, ifrt.AlwaysCopy); err != nil {
		t.Fatal(err)
	}
	waitLive(t, g, 2)
}

// TestReleaseFreesOnTheWorker: a released array (what the proxy server does
// with an array JAX destructs) is freed on its worker, without a future.
func TestReleaseFreesOnTheWorker(t *testing.T) {
	c, g := startCounted(t)
	ctx := testenv.Context(t, defaultTestTimeout)
	s, _ := ifrt.NewTiledSharding(c.Devices(), 2)
	a, err := c.MakeArrayFromHostBuffer(ctx, f32Bytes(1, 2, 3, 4), ifrt.ArraySpec{DType: ifrt.F32, Shape: ifrt.Shape{4}, Sharding: s}, nil)
	if err != nil {
		t.Fatal(err)
	}
	waitLive(t, g, 2)
	backend.Release(a)
	if !a.IsDeleted() {
		t.Error("a released array is not deleted")
	}
	waitLive(t, g, 0)
}
