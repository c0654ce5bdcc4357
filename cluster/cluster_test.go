package cluster_test

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"log/slog"
	"math"
	"testing"
	"time"

	"github.com/openpathways/pathways/cluster"
	"github.com/openpathways/pathways/cluster/local"
	"github.com/openpathways/pathways/cluster/local/localtest"
	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/ifrt/ifrttest"
	"github.com/openpathways/pathways/internal/testenv"
)

const defaultTestTimeout = 60 * time.Second

func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// testContext ends at the test's deadline for one step, or when it ends.
func testContext(t testing.TB) context.Context { return testenv.Context(t, defaultTestTimeout) }

func startLocal(t testing.TB, cfg local.Config) *localtest.Cluster {
	t.Helper()
	ctx := testContext(t)
	if cfg.Logger == nil {
		cfg.Logger = quietLogger()
	}
	l, err := localtest.Start(ctx, cfg)
	if err != nil {
		t.Fatalf("localtest.Start: %v", err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

// TestConformance runs the ifrt suite over a cluster of two workers with four
// devices each, so that copies, reshards and programs (gangs, whose
// collectives cross workers) span workers.
func TestConformance(t *testing.T) {
	l := startLocal(t, local.Config{Slices: 2, DevicesPerSlice: 4, NoProxy: true})
	ifrttest.RunConformance(t, ifrttest.Harness{
		NewClient: func(t *testing.T) ifrt.Client {
			ctx := testenv.Context(t, defaultTestTimeout)
			c, err := cluster.Connect(ctx, l.RMAddress, cluster.WithLogger(quietLogger()))
			if err != nil {
				t.Fatalf("Connect: %v", err)
			}
			return c
		},
		Programs:    true,
		Collectives: true,
	})
}

func f32Bytes(v ...float32) []byte {
	b := make([]byte, 4*len(v))
	for i, f := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(f))
	}
	return b
}

func readF32(t *testing.T, ctx context.Context, a ifrt.Array) []float32 {
	t.Helper()
	b := make([]byte, 4*a.Shape().NumElements())
	if err := a.CopyToHostBuffer(ctx, b, nil); err != nil {
		t.Fatalf("CopyToHostBuffer: %v", err)
	}
	out := make([]float32, len(b)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}

const double = `module @double attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%x: tensor<8xf32> {mhlo.sharding = "{devices=[4]<=[4]}"}) -> (tensor<8xf32> {mhlo.sharding = "{devices=[4]<=[4]}"}) {
    %0 = stablehlo.add %x, %x : tensor<8xf32>
    return %0 : tensor<8xf32>
  }
}`

// TestProgramsRunOnTheirWorker compiles a program for the devices of one slice and
// runs it there; a program spanning slices runs on both.
func TestProgramsRunOnTheirWorker(t *testing.T) {
	l := startLocal(t, local.Config{Slices: 2, DevicesPerSlice: 4, NoProxy: true})
	ctx := testContext(t)
	c := l.Client
	second := c.Devices()[4:8]
	exe, err := c.Compile(ctx, &ifrt.MLIRProgram{Module: []byte(double)}, &ifrt.CompileOptions{Devices: second})
	if err != nil {
		t.Fatalf("Compile on slice 1: %v", err)
	}
	s, _ := ifrt.NewTiledSharding(second, 4)
	x, err := c.MakeArrayFromHostBuffer(ctx, f32Bytes(1, 2, 3, 4, 5, 6, 7, 8), ifrt.ArraySpec{DType: ifrt.F32, Shape: ifrt.Shape{8}, Sharding: s}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := exe.Execute(ctx, []ifrt.Array{x}, nil)
	if err != nil {
		t.Fatalf("Execute: %v", err)
	}
	if got := res.Outputs[0].Sharding().Devices(); !got.Equal(second) {
		t.Errorf("output is on %v, want %v", got, second)
	}
	if got := readF32(t, ctx, res.Outputs[0]); got[0] != 2 || got[7] != 16 {
		t.Errorf("2x = %v", got)
	}

	// Across workers, the program runs as a gang; its output stays spread
	// over both.
	spanning := ifrt.DeviceList{c.Devices()[2], c.Devices()[3], c.Devices()[4], c.Devices()[5]}
	gang, err := c.Compile(ctx, &ifrt.MLIRProgram{Module: []byte(double)}, &ifrt.CompileOptions{Devices: spanning})
	if err != nil {
		t.Fatalf("Compile across workers: %v", err)
	}
	s, _ = ifrt.NewTiledSharding(spanning, 4)
	y, err := c.MakeArrayFromHostBuffer(ctx, f32Bytes(1, 2, 3, 4, 5, 6, 7, 8), ifrt.ArraySpec{DType: ifrt.F32, Shape: ifrt.Shape{8}, Sharding: s}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err = gang.Execute(ctx, []ifrt.Array{y}, nil)
	if err != nil {
		t.Fatalf("Execute across workers: %v", err)
	}
	if got := res.Outputs[0].Sharding().Devices(); !got.Equal(spanning) {
		t.Errorf("output is on %v, want %v", got, spanning)
	}
	if got := readF32(t, ctx, res.Outputs[0]); got[0] != 2 || got[7] != 16 {
		t.Errorf("2x across workers = %v", got)
	}
}

// TestLostWorker kills one worker: its arrays fail with DATA_LOSS, the other
// slice keeps working, and once the worker is back its devices work again with
// the same ids and no reconnection by the client.
func TestLostWorker(t *testing.T) {
	l := startLocal(t, local.Config{Slices: 2, DevicesPerSlice: 2, NoProxy: true})
	ctx := testContext(t)
	c := l.Client
	devs := c.Devices()
	put := func(d *ifrt.Device) (ifrt.Array, error) {
		return c.MakeArrayFromHostBuffer(ctx, f32Bytes(1, 2), ifrt.ArraySpec{DType: ifrt.F32, Shape: ifrt.Shape{2}, Sharding: ifrt.NewSingleDeviceSharding(d, "")}, nil)
	}
	onLost, err := put(devs[2])
	if err != nil {
		t.Fatal(err)
	}
	onKept, err := put(devs[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := l.StopWorker(1); err != nil {
		t.Fatal(err)
	}
	// The loss reaches the client through the broken session or the RM's watch.
	for {
		err := onLost.CopyToHostBuffer(ctx, make([]byte, 8), nil)
		if errors.Is(err, ifrt.ErrDataLoss) {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("reading an array of the lost worker: %v, want DATA_LOSS", err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if got := readF32(t, ctx, onKept); got[1] != 2 {
		t.Errorf("array on the other slice reads %v", got)
	}
	if _, err := put(devs[3]); !errors.Is(err, ifrt.ErrDataLoss) {
		t.Errorf("putting on a lost device: %v, want DATA_LOSS", err)
	}

	if err := l.StartWorker(ctx, 1); err != nil {
		t.Fatal(err)
	}
	for {
		a, err := put(devs[3])
		if err == nil {
			if got := readF32(t, ctx, a); got[0] != 1 {
				t.Errorf("array on the restarted worker reads %v", got)
			}
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("the restarted worker's device never worked again: %v", err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := onLost.CopyToHostBuffer(ctx, make([]byte, 8), nil); !errors.Is(err, ifrt.ErrDataLoss) {
		t.Errorf("an array of the lost worker after its return: %v, want DATA_LOSS", err)
	}
}

// TestRMRestart restarts the resource manager: the workers register again by
// themselves and the arrays they hold survive.
func TestRMRestart(t *testing.T) {
	l := startLocal(t, local.Config{Slices: 2, DevicesPerSlice: 2, NoProxy: true})
	ctx := testContext(t)
	c := l.Client
	s, _ := ifrt.NewTiledSharding(c.Devices(), 4)
	x, err := c.MakeArrayFromHostBuffer(ctx, f32Bytes(1, 2, 3, 4), ifrt.ArraySpec{DType: ifrt.F32, Shape: ifrt.Shape{4}, Sharding: s}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.RestartRM(); err != nil {
		t.Fatal(err)
	}
	// Once both workers are back in the new RM's view, a fresh client sees a
	// ready cluster.
	again, err := cluster.Connect(ctx, l.RMAddress, cluster.WithLogger(quietLogger()))
	if err != nil {
		t.Fatalf("Connect after the RM restarted: %v", err)
	}
	defer again.Close()
	if got := readF32(t, ctx, x); got[3] != 4 {
		t.Errorf("array after the RM restarted reads %v", got)
	}
	y, err := c.Reshard(ctx, []ifrt.Array{x}, []ifrt.ArraySpec{{DType: ifrt.F32, Shape: ifrt.Shape{4}, Sharding: ifrt.NewSingleDeviceSharding(c.Devices()[3], "")}}, ifrt.AlwaysCopy)
	if err != nil {
		t.Fatalf("Reshard after the RM restarted: %v", err)
	}
	if got := readF32(t, ctx, y[0]); got[0] != 1 || got[3] != 4 {
		t.Errorf("resharded array reads %v", got)
	}
}

// TestCopiesMoveWorkerToWorker checks that a reshard from one slice to another
// moves the bytes between the workers: the destination worker fetched them.
func TestCopiesMoveWorkerToWorker(t *testing.T) {
	l := startLocal(t, local.Config{Slices: 2, DevicesPerSlice: 2, NoProxy: true})
	ctx := testContext(t)
	c := l.Client
	const n = 1 << 18 // 1 MiB of f32
	data := make([]float32, n)
	for i := range data {
		data[i] = float32(i)
	}
	first := c.Devices()[:2]
	s, _ := ifrt.NewTiledSharding(first, 2)
	x, err := c.MakeArrayFromHostBuffer(ctx, f32Bytes(data...), ifrt.ArraySpec{DType: ifrt.F32, Shape: ifrt.Shape{n}, Sharding: s}, nil)
	if err != nil {
		t.Fatal(err)
	}
	before := l.Worker(1).PeerBytes()
	target := ifrt.NewSingleDeviceSharding(c.Devices()[2], "")
	out, err := c.Reshard(ctx, []ifrt.Array{x}, []ifrt.ArraySpec{{DType: ifrt.F32, Shape: ifrt.Shape{n}, Sharding: target}}, ifrt.AlwaysCopy)
	if err != nil {
		t.Fatalf("Reshard to slice 1: %v", err)
	}
	if moved := l.Worker(1).PeerBytes() - before; moved != 4*n {
		t.Errorf("the worker of slice 1 fetched %d bytes from its peer, want %d", moved, 4*n)
	}
	if got := readF32(t, ctx, out[0]); got[n-1] != n-1 {
		t.Errorf("last element = %v", got[n-1])
	}
}

func TestOpenByName(t *testing.T) {
	l := startLocal(t, local.Config{Slices: 1, DevicesPerSlice: 2, NoProxy: true})
	ctx := testContext(t)
	c, err := ifrt.Open(ctx, "pathways:rm="+l.RMAddress)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer c.Close()
	if n := len(c.Devices()); n != 2 {
		t.Errorf("the cluster has %d devices, want 2", n)
	}
	for _, bad := range []string{"pathways", "pathways:rm=", "pathways:rm=x,colour=blue"} {
		if _, err := ifrt.Open(ctx, bad); !errors.Is(err, ifrt.ErrInvalidArgument) {
			t.Errorf("Open(%q) = %v, want InvalidArgument", bad, err)
		}
	}
}
