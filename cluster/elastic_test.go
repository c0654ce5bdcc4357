package cluster_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/openpathways/pathways/cluster"
	"github.com/openpathways/pathways/cluster/local"
	"github.com/openpathways/pathways/cluster/local/localtest"
	"github.com/openpathways/pathways/ifrt"
)

// elasticClient connects a client with WithElasticSlices(k) to a local cluster
// of three slices of two devices.
func elasticClient(t *testing.T, k int) (*localtest.Cluster, *cluster.Client) {
	t.Helper()
	l := startLocal(t, local.Config{Slices: 3, DevicesPerSlice: 2, NoProxy: true})
	ctx := testContext(t)
	c, err := cluster.Connect(ctx, l.RMAddress, cluster.WithLogger(quietLogger()), cluster.WithElasticSlices(k))
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return l, c
}

// putOn puts a small array on the first device of a slice.
func putOn(ctx context.Context, c *cluster.Client, slice int) (ifrt.Array, error) {
	d := c.Devices()[2*slice]
	return c.MakeArrayFromHostBuffer(ctx, f32Bytes(1, 2), ifrt.ArraySpec{DType: ifrt.F32, Shape: ifrt.Shape{2}, Sharding: ifrt.NewSingleDeviceSharding(d, "")}, nil)
}

// eventually retries f until it returns nil or the test's time is up.
func eventually(t *testing.T, ctx context.Context, what string, f func() error) {
	t.Helper()
	for {
		err := f()
		if err == nil {
			return
		}
		if ctx.Err() != nil {
			t.Fatalf("%s: %v", what, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func wantCode(err error, target error) error {
	if errors.Is(err, target) {
		return nil
	}
	if err == nil {
		return errors.New("no error")
	}
	return err
}

// TestElasticSlicesWithinLimit loses as many slices as allowed: the session
// goes on, the lost slices fail with DATA_LOSS, and they work again on return.
func TestElasticSlicesWithinLimit(t *testing.T) {
	l, c := elasticClient(t, 2)
	ctx := testContext(t)
	for _, s := range []int{1, 2} {
		if err := l.StopWorker(s); err != nil {
			t.Fatal(err)
		}
		eventually(t, ctx, "putting on a lost slice", func() error {
			_, err := putOn(ctx, c, s)
			return wantCode(err, ifrt.ErrDataLoss)
		})
	}
	if _, err := putOn(ctx, c, 0); err != nil {
		t.Fatalf("with 2 of 3 slices lost and 2 allowed, slice 0: %v", err)
	}
	if err := c.Err(); err != nil {
		t.Fatalf("Err = %v, want nil", err)
	}
	for _, s := range []int{1, 2} {
		if err := l.StartWorker(ctx, s); err != nil {
			t.Fatal(err)
		}
		eventually(t, ctx, "putting on a returned slice", func() error {
			_, err := putOn(ctx, c, s)
			return err
		})
	}
	select {
	case <-c.Failed():
		t.Error("Failed is closed")
	default:
	}
}

// TestElasticSlicesOverLimit loses one slice more than allowed: every request
// fails with UNAVAILABLE saying so, and keeps failing after the slices return.
func TestElasticSlicesOverLimit(t *testing.T) {
	l, c := elasticClient(t, 1)
	ctx := testContext(t)
	if err := l.StopWorker(2); err != nil {
		t.Fatal(err)
	}
	eventually(t, ctx, "putting on the lost slice", func() error {
		_, err := putOn(ctx, c, 2)
		return wantCode(err, ifrt.ErrDataLoss)
	})
	kept, err := putOn(ctx, c, 0)
	if err != nil {
		t.Fatalf("one slice lost of one allowed: %v", err)
	}

	if err := l.StopWorker(1); err != nil {
		t.Fatal(err)
	}
	select {
	case <-c.Failed():
	case <-ctx.Done():
		t.Fatal("the session did not fail with 2 slices lost and 1 allowed")
	}
	_, err = putOn(ctx, c, 0)
	if !errors.Is(err, ifrt.ErrUnavailable) {
		t.Fatalf("after the session failed, a put on a live slice: %v, want UNAVAILABLE", err)
	}
	for _, want := range []string{"2 slices lost", "at most 1", "--num_elastic_instances"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if err := kept.CopyToHostBuffer(ctx, make([]byte, 8), nil); !errors.Is(err, ifrt.ErrUnavailable) {
		t.Errorf("reading an array of a live slice after the failure: %v, want UNAVAILABLE", err)
	}
	if !errors.Is(c.Err(), ifrt.ErrUnavailable) {
		t.Errorf("Err = %v", c.Err())
	}

	// Failure is for good: slices coming back do not revive the session.
	for _, s := range []int{1, 2} {
		if err := l.StartWorker(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := putOn(ctx, c, 1); !errors.Is(err, ifrt.ErrUnavailable) {
		t.Errorf("after the slices returned: %v, want UNAVAILABLE still", err)
	}
}

// TestElasticSlicesDefault: without the option, losing every slice but one
// leaves the session working.
func TestElasticSlicesDefault(t *testing.T) {
	l := startLocal(t, local.Config{Slices: 3, DevicesPerSlice: 2, NoProxy: true})
	ctx := testContext(t)
	for _, s := range []int{1, 2} {
		if err := l.StopWorker(s); err != nil {
			t.Fatal(err)
		}
		eventually(t, ctx, "putting on a lost slice", func() error {
			_, err := putOn(ctx, l.Client, s)
			return wantCode(err, ifrt.ErrDataLoss)
		})
	}
	if _, err := putOn(ctx, l.Client, 0); err != nil {
		t.Fatalf("slice 0: %v", err)
	}
	if err := l.Client.Err(); err != nil {
		t.Errorf("Err = %v", err)
	}
}

// TestProgramsOutliveTheirWorker: a program compiled before its worker was lost
// runs again once the worker returns, and a program compiled while its worker
// is lost compiles (elsewhere), fails with DATA_LOSS when run, and runs once the
// worker returns — what pathwaysutils' slice health check needs.
func TestProgramsOutliveTheirWorker(t *testing.T) {
	l := startLocal(t, local.Config{Slices: 2, DevicesPerSlice: 4, NoProxy: true})
	ctx := testContext(t)
	c := l.Client
	second := c.Devices()[4:8]
	s, _ := ifrt.NewTiledSharding(second, 4)
	put := func() (ifrt.Array, error) {
		return c.MakeArrayFromHostBuffer(ctx, f32Bytes(1, 2, 3, 4, 5, 6, 7, 8), ifrt.ArraySpec{DType: ifrt.F32, Shape: ifrt.Shape{8}, Sharding: s}, nil)
	}
	compile := func() (ifrt.LoadedExecutable, error) {
		return c.Compile(ctx, &ifrt.MLIRProgram{Module: []byte(double)}, &ifrt.CompileOptions{Devices: second})
	}
	before, err := compile()
	if err != nil {
		t.Fatal(err)
	}
	if err := l.StopWorker(1); err != nil {
		t.Fatal(err)
	}
	var during ifrt.LoadedExecutable
	eventually(t, ctx, "compiling for a lost worker", func() error {
		if _, err := put(); !errors.Is(err, ifrt.ErrDataLoss) {
			return errors.New("the loss has not reached the client yet")
		}
		var err error
		during, err = compile()
		return err
	})
	if len(during.Outputs()) != 1 || !during.Devices().Equal(second) {
		t.Errorf("the program compiled while its worker is lost describes %d outputs on %v", len(during.Outputs()), during.Devices())
	}
	if _, err := during.Execute(ctx, nil, nil); !errors.Is(err, ifrt.ErrDataLoss) {
		t.Errorf("running it while the worker is lost: %v, want DATA_LOSS", err)
	}

	if err := l.StartWorker(ctx, 1); err != nil {
		t.Fatal(err)
	}
	var x ifrt.Array
	eventually(t, ctx, "putting on the returned worker", func() error {
		var err error
		x, err = put()
		return err
	})
	for name, exe := range map[string]ifrt.LoadedExecutable{"compiled before the loss": before, "compiled during the loss": during} {
		res, err := exe.Execute(ctx, []ifrt.Array{x}, nil)
		if err != nil {
			t.Errorf("program %s, after the worker returned: %v", name, err)
			continue
		}
		if got := readF32(t, ctx, res.Outputs[0]); got[0] != 2 || got[7] != 16 {
			t.Errorf("program %s: 2x = %v", name, got)
		}
	}
}
