package cluster_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/openpathways/pathways/cluster"
	"github.com/openpathways/pathways/cluster/local"
	"github.com/openpathways/pathways/cluster/local/localtest"
	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/ifrt/gocpu"
	"github.com/openpathways/pathways/internal/golden"
)

// psumProgram is JAX's shard_map(lambda x: psum(2 * x, "x")) over 4 devices
// of an 8-vector: the result is [24, 32] for the input 0..7.
const psumProgram = "../internal/stablehlo/testdata/golden/shard_map_psum_shardy.mlir"

// runPsum runs the psum program compiled for devices once and checks its
// result.
func runPsum(ctx context.Context, c ifrt.Client, exe ifrt.LoadedExecutable) error {
	x, err := psumInput(ctx, c, exe)
	if err != nil {
		return err
	}
	defer x.Delete()
	return launchPsum(ctx, exe, x)
}

// psumInput is the psum program's input 0..7.
func psumInput(ctx context.Context, c ifrt.Client, exe ifrt.LoadedExecutable) (ifrt.Array, error) {
	s, err := ifrt.NewHloSharding(exe.Devices(), "", *exe.Parameters()[0].OpSharding)
	if err != nil {
		return nil, err
	}
	return c.MakeArrayFromHostBuffer(ctx, f32Bytes(0, 1, 2, 3, 4, 5, 6, 7), ifrt.ArraySpec{DType: ifrt.F32, Shape: ifrt.Shape{8}, Sharding: s}, nil)
}

// launchPsum runs the psum program on x and checks its result.
func launchPsum(ctx context.Context, exe ifrt.LoadedExecutable, x ifrt.Array) error {
	res, err := exe.Execute(ctx, []ifrt.Array{x}, nil)
	if err != nil {
		return err
	}
	defer res.Outputs[0].Delete()
	got := make([]byte, 8)
	if err := res.Outputs[0].CopyToHostBuffer(ctx, got, nil); err != nil {
		return err
	}
	if string(got) != string(f32Bytes(24, 32)) {
		return errors.New("psum gave a wrong result")
	}
	return nil
}

// A participant killed during a loop of spanning launches fails the launch
// with DATA_LOSS (no hang); the other slice's own programs go on; once the
// worker is back, spanning launches work again on the same client.
func TestGangLostParticipant(t *testing.T) {
	l := startLocal(t, local.Config{Slices: 2, DevicesPerSlice: 4, NoProxy: true})
	ctx := testContext(t)
	all := l.Client.Devices()
	slice0 := mustCompile(ctx, t, l.Client, all[:4])
	loseParticipant(ctx, t, l, mustCompile(ctx, t, l.Client, ifrt.DeviceList{all[0], all[2], all[4], all[6]}), func() {
		if err := runPsum(ctx, l.Client, slice0); err != nil {
			t.Fatalf("slice 0's own program while slice 1 is down: %v", err)
		}
	})
}

// loseParticipant stops worker 1 during a loop of launches of spanning (the
// psum program) and checks that the launch fails with DATA_LOSS, runs
// whileDown, starts the worker again and checks that spanning launches work
// again on the same client.
func loseParticipant(ctx context.Context, t *testing.T, l *localtest.Cluster, spanning ifrt.LoadedExecutable, whileDown func()) {
	t.Helper()
	ran := make(chan int, 100)
	failed := make(chan error, 1)
	go func() {
		for i := 0; ; i++ {
			if err := runPsum(ctx, l.Client, spanning); err != nil {
				failed <- err
				return
			}
			ran <- i
		}
	}()
	for range 3 {
		select {
		case <-ran:
		case err := <-failed:
			t.Fatalf("a spanning launch failed before any fault: %v", err)
		}
	}
	if err := l.StopWorker(1); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-failed:
		if !errors.Is(err, ifrt.ErrDataLoss) {
			t.Fatalf("the launch after the participant was killed: %v, want DATA_LOSS", err)
		}
	case <-ctx.Done():
		t.Fatal("spanning launches hang after a participant was killed")
	}
	whileDown()
	if err := l.StartWorker(ctx, 1); err != nil {
		t.Fatal(err)
	}
	for {
		err := runPsum(ctx, l.Client, spanning)
		if err == nil {
			break
		}
		if !errors.Is(err, ifrt.ErrDataLoss) {
			t.Fatalf("a spanning launch while the worker returns: %v, want success or DATA_LOSS", err)
		}
		select {
		case <-ctx.Done():
			t.Fatalf("spanning launches did not work again after the worker came back: %v", err)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// Two clients (two JAX sessions) launching spanning programs over the same
// workers at once all finish: launches start in one order on every worker.
func TestGangConcurrentClients(t *testing.T) {
	l := startLocal(t, local.Config{Slices: 2, DevicesPerSlice: 4, NoProxy: true})
	ctx := testContext(t)
	errc := make(chan error, 2)
	for range 2 {
		c := connect(t, l.RMAddress)
		all := c.Devices()
		exe, err := c.Compile(ctx, &ifrt.MLIRProgram{Module: golden.ReadFile(t, psumProgram)}, &ifrt.CompileOptions{Devices: ifrt.DeviceList{all[1], all[3], all[5], all[7]}})
		if err != nil {
			t.Fatal(err)
		}
		go func() {
			for range 20 {
				if err := runPsum(ctx, c, exe); err != nil {
					errc <- err
					return
				}
			}
			errc <- nil
		}()
	}
	for range 2 {
		if err := <-errc; err != nil {
			t.Fatal(err)
		}
	}
}

func connect(t *testing.T, rmAddress string, opts ...cluster.Option) *cluster.Client {
	t.Helper()
	ctx := testContext(t)
	c, err := cluster.Connect(ctx, rmAddress, append([]cluster.Option{cluster.WithLogger(quietLogger())}, opts...)...)
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// oneProcessBackend is a backend the worker does not know to run part of a
// program over several processes (as the PJRT plugins cannot): gocpu behind
// another type.
type oneProcessBackend struct{ ifrt.Client }

// A worker whose backend cannot run its part of a spanning program runs it on
// its host interpreter, copying the partitions' blocks in and out: the
// program gives the same result as on gocpu workers, and the workers' own
// programs still run on their backends.
func TestGangOnOneProcessBackend(t *testing.T) {
	l := startLocal(t, local.Config{Slices: 2, DevicesPerSlice: 4, NoProxy: true,
		NewBackend: func(int) (ifrt.Client, error) {
			c, err := gocpu.New(gocpu.Config{Devices: 4})
			return oneProcessBackend{c}, err
		}})
	ctx := testContext(t)
	all := l.Client.Devices()
	for _, devs := range []ifrt.DeviceList{{all[0], all[2], all[4], all[6]}, all[:4]} {
		if err := runPsum(ctx, l.Client, mustCompile(ctx, t, l.Client, devs)); err != nil {
			t.Errorf("psum over %v: %v", devs, err)
		}
	}
}

func mustCompile(ctx context.Context, t *testing.T, c ifrt.Client, devs ifrt.DeviceList) ifrt.LoadedExecutable {
	t.Helper()
	exe, err := c.Compile(ctx, &ifrt.MLIRProgram{Module: golden.ReadFile(t, psumProgram)}, &ifrt.CompileOptions{Devices: devs})
	if err != nil {
		t.Fatalf("Compile on %v: %v", devs, err)
	}
	t.Cleanup(func() { exe.Delete() })
	return exe
}

// A launch's deadline reaches every participant: a launch that cannot finish
// ends when its context does, and the workers go on with later launches.
func TestGangDeadlineReachesEveryParticipant(t *testing.T) {
	l := startLocal(t, local.Config{Slices: 2, DevicesPerSlice: 4, NoProxy: true})
	ctx := testContext(t)
	all := l.Client.Devices()
	devs := ifrt.DeviceList{all[0], all[4]}
	stuck, err := l.Client.Compile(ctx, &ifrt.MLIRProgram{Module: []byte(golden.StuckAllReduce)}, &ifrt.CompileOptions{Devices: devs})
	if err != nil {
		t.Fatal(err)
	}
	defer stuck.Delete()
	s, err := ifrt.NewHloSharding(devs, "", ifrt.Replicated())
	if err != nil {
		t.Fatal(err)
	}
	x, err := l.Client.MakeArrayFromHostBuffer(ctx, f32Bytes(1, 2, 3), ifrt.ArraySpec{DType: ifrt.F32, Shape: ifrt.Shape{3}, Sharding: s}, nil)
	if err != nil {
		t.Fatal(err)
	}
	short, cancelShort := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancelShort()
	if _, err := stuck.Execute(short, []ifrt.Array{x}, nil); err == nil {
		t.Fatal("a launch that cannot finish succeeded")
	} else if c := ifrt.CodeOf(err); c != ifrt.DeadlineExceeded && c != ifrt.Canceled {
		t.Fatalf("the stuck launch: %v (code %v), want DEADLINE_EXCEEDED", err, c)
	}
	spanning := mustCompile(ctx, t, l.Client, ifrt.DeviceList{all[0], all[2], all[4], all[6]})
	if err := runPsum(ctx, l.Client, spanning); err != nil {
		t.Fatalf("a spanning launch after the stuck one: %v", err)
	}
}
