package worker

import (
	"errors"
	"io"
	"log/slog"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/ifrt/gocpu"
	"github.com/openpathways/pathways/internal/stablehlo"
	"github.com/openpathways/pathways/internal/testenv"
)

// hostPsum sums a 2-vector over 2 partitions.
const hostPsum = `module @psum attributes {mhlo.num_partitions = 2 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%x: tensor<2xf32>) -> tensor<2xf32> {
    %r = "stablehlo.all_reduce"(%x) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, use_global_device_ids}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) : (tensor<2xf32>) -> tensor<2xf32>
    return %r : tensor<2xf32>
  }
}`

// opaqueBackend is gocpu behind a type the worker does not know, so that its
// gang partitions run through host memory as a PJRT plugin's do.
type opaqueBackend struct{ ifrt.Client }

// The host runner runs partitions on its own gocpu client on the backend's
// arrays: the outputs are the backend's arrays on the partitions' devices,
// and the host copies are gone after each run. An argument it cannot copy
// fails that partition and, through its communicator, the others.
func TestHostRunner(t *testing.T) {
	ctx := testenv.Context(t, time.Minute)
	inner, err := gocpu.New(gocpu.Config{Devices: 2, FirstDeviceID: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer inner.Close()
	w, err := New(Config{Backend: opaqueBackend{inner}, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	r, ok := w.gang.runner.(*hostRunner)
	if !ok {
		t.Fatalf("a worker on %T runs partitions with %T, want the host runner", w.cfg.Backend, w.gang.runner)
	}
	prog, err := r.compile(ctx, []byte(hostPsum))
	if err != nil {
		t.Fatal(err)
	}
	devs := inner.AddressableDevices()
	args := make([]ifrt.Array, 2)
	for p, dev := range devs {
		spec := ifrt.ArraySpec{DType: ifrt.F32, Shape: ifrt.Shape{2}, Sharding: ifrt.NewSingleDeviceSharding(dev, "")}
		if args[p], err = ifrt.MakeArrayFromSlice(ctx, inner, []float32{float32(p + 1), 10}, spec.Shape, spec.Sharding); err != nil {
			t.Fatal(err)
		}
	}
	run := func() ([][]ifrt.Array, []error) {
		outs, errs := make([][]ifrt.Array, 2), make([]error, 2)
		group := stablehlo.NewLocalGroup(2)
		var wg sync.WaitGroup
		for p, dev := range devs {
			wg.Go(func() {
				part := gocpu.GangPart{Partition: p, Device: dev, Args: args[p : p+1], Comm: group.Endpoint(p)}
				var o [][]ifrt.Array
				if o, errs[p] = r.run(ctx, prog, []gocpu.GangPart{part}, nil); errs[p] == nil {
					outs[p] = o[0]
				}
			})
		}
		wg.Wait()
		return outs, errs
	}

	outs, errs := run()
	for p, dev := range devs {
		if errs[p] != nil {
			t.Fatalf("partition %d: %v", p, errs[p])
		}
		got, err := ifrt.ArrayToSlice[float32](ctx, outs[p][0])
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, []float32{3, 20}) || !slices.Equal(outs[p][0].Sharding().Devices(), ifrt.DeviceList{dev}) {
			t.Errorf("partition %d gave %v on %v, want [3 20] on device %d", p, got, outs[p][0].Sharding().Devices(), dev.ID)
		}
		deleteAll(outs[p])
	}
	if a, _ := inner.Live(); a != 2 {
		t.Errorf("the backend holds %d arrays, want the 2 arguments (the outputs were deleted)", a)
	}
	if a, e := r.host.Live(); a != 0 || e != 0 {
		t.Errorf("the host client holds %d arrays and %d executables after the run, want none", a, e)
	}

	args[1].Delete()
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, errs = run()
	}()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("partition 0 waits for ever for partition 1, whose argument was deleted")
	}
	if !errors.Is(errs[1], ifrt.ErrArrayDeleted) || errs[0] == nil {
		t.Errorf("with partition 1's argument deleted: partition 0 %v, partition 1 %v; want an error and the deleted array's", errs[0], errs[1])
	}
	if a, _ := r.host.Live(); a != 0 {
		t.Errorf("the host client holds %d arrays after a failed run, want none", a)
	}
}
