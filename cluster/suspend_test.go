package cluster_test

import (
	"bytes"
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/openpathways/pathways/cluster"
	"github.com/openpathways/pathways/cluster/local"
	"github.com/openpathways/pathways/cluster/local/localtest"
	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/ifrt/gocpu"
	"github.com/openpathways/pathways/internal/testenv"
	"github.com/openpathways/pathways/rm"
	_ "github.com/openpathways/pathways/storage/gcs"
	"github.com/openpathways/pathways/storage/gcs/gcstest"
)

// backends records the gocpu backend of each worker, so that a test can see
// what its devices hold.
type backends struct {
	mu sync.Mutex
	by map[int]*gocpu.Client
}

func (b *backends) new(i int) (ifrt.Client, error) {
	c, err := gocpu.New(gocpu.Config{Devices: 4})
	if err != nil {
		return nil, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.by == nil {
		b.by = map[int]*gocpu.Client{}
	}
	b.by[i] = c
	return c, nil
}

func (b *backends) liveArrays(i int) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	n, _ := b.by[i].Live()
	return n
}

// suspendArrays are arrays on slice 1 (devices 4..7) of several dtypes,
// sharded and replicated, and the bytes they hold.
type suspendArrays struct {
	arrays []ifrt.Array
	want   [][]byte
}

func makeSuspendArrays(t *testing.T, ctx context.Context, c ifrt.Client) suspendArrays {
	t.Helper()
	slice1 := c.Devices()[4:8]
	tiled, _ := ifrt.NewTiledSharding(slice1, 4)
	tiled2, _ := ifrt.NewTiledSharding(slice1, 2, 2)
	replicated, _ := ifrt.NewHloSharding(slice1, "", ifrt.Replicated())
	specs := []ifrt.ArraySpec{
		{DType: ifrt.F32, Shape: ifrt.Shape{8}, Sharding: tiled},
		{DType: ifrt.BF16, Shape: ifrt.Shape{6}, Sharding: replicated},
		{DType: ifrt.S32, Shape: ifrt.Shape{4, 2}, Sharding: tiled2},
		{DType: ifrt.U8, Shape: ifrt.Shape{5}, Sharding: ifrt.NewSingleDeviceSharding(slice1[2], "")},
	}
	var out suspendArrays
	for i, spec := range specs {
		n, _ := spec.Shape.ByteSize(spec.DType)
		data := make([]byte, n)
		for k := range data {
			data[k] = byte(k*13 + i*7 + 1)
		}
		if spec.DType == ifrt.F32 {
			data = f32Bytes(1, 2, 3, 4, 5, 6, 7, 8)
		}
		a, err := c.MakeArrayFromHostBuffer(ctx, data, spec, nil)
		if err != nil {
			t.Fatalf("MakeArrayFromHostBuffer %v: %v", spec.DType, err)
		}
		out.arrays = append(out.arrays, a)
		out.want = append(out.want, data)
	}
	return out
}

// check reads every array back and compares it bit for bit.
func (s suspendArrays) check(t *testing.T, ctx context.Context, when string) {
	t.Helper()
	for i, a := range s.arrays {
		got := make([]byte, len(s.want[i]))
		if err := a.CopyToHostBuffer(ctx, got, nil); err != nil {
			t.Fatalf("%s: reading the %v array: %v", when, a.DType(), err)
		}
		if !bytes.Equal(got, s.want[i]) {
			t.Errorf("%s: the %v array reads %v, want %v", when, a.DType(), got, s.want[i])
		}
	}
}

// waitSliceState waits until the client has seen slice i in state.
func waitSliceState(t *testing.T, ctx context.Context, c *cluster.Client, i int, state rm.SliceState) {
	t.Helper()
	for c.SliceState(i) != state {
		select {
		case <-ctx.Done():
			t.Fatalf("slice %d is %v, never %v", i, c.SliceState(i), state)
		default:
		}
		sleepBriefly()
	}
}

// TestSuspendResume suspends slice 1, checks that its devices are free and
// its arrays refuse work with UNAVAILABLE while slice 0 keeps working,
// resumes it on the same worker, then preempts the worker (SIGTERM with a
// notice) and resumes on a replacement; the arrays read back bit-exact each
// time and a program runs over them. Once to a directory, once to the Cloud
// Storage emulator.
func TestSuspendResume(t *testing.T) {
	gcstest.Start(t, "scratch-bucket")
	for _, tc := range []struct{ name, scratch string }{
		{"file", "file://" + t.TempDir()},
		{"gcs", "gs://scratch-bucket/pathways"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var bs backends
			l := startLocal(t, local.Config{Slices: 2, DevicesPerSlice: 4, NoProxy: true, ScratchLocation: tc.scratch, NewBackend: bs.new})
			ctx := testenv.Context(t, defaultTestTimeout)
			c := l.Client
			arrays := makeSuspendArrays(t, ctx, c)
			other, err := c.MakeArrayFromHostBuffer(ctx, f32Bytes(9, 8), ifrt.ArraySpec{DType: ifrt.F32, Shape: ifrt.Shape{2}, Sharding: ifrt.NewSingleDeviceSharding(c.Devices()[0], "")}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if n := bs.liveArrays(1); n == 0 {
				t.Fatalf("slice 1's worker holds no arrays before suspending")
			}
			elastic, err := cluster.Connect(ctx, l.RMAddress, cluster.WithLogger(quietLogger()), cluster.WithElasticSlices(0))
			if err != nil {
				t.Fatal(err)
			}
			defer elastic.Close()

			if err := c.SuspendSlice(ctx, 1); err != nil {
				t.Fatalf("SuspendSlice: %v", err)
			}
			suspendedChecks(t, ctx, l, &bs, arrays)
			if got := readF32(t, ctx, other); got[0] != 9 || got[1] != 8 {
				t.Errorf("slice 0's array reads %v while slice 1 is suspended", got)
			}

			if err := c.ResumeSlice(ctx, 1); err != nil {
				t.Fatalf("ResumeSlice: %v", err)
			}
			if n := bs.liveArrays(1); n == 0 {
				t.Errorf("slice 1's worker holds no arrays after resuming")
			}
			arrays.check(t, ctx, "resumed on the same worker")
			runDouble(t, ctx, c, arrays.arrays[0])

			// Preempted: the worker suspends its slice and leaves; the slice
			// resumes on its own when the replacement registers.
			if err := l.PreemptWorker(ctx, 1); err != nil {
				t.Fatalf("PreemptWorker: %v", err)
			}
			waitSliceState(t, ctx, c, 1, rm.SliceSuspended)
			if err := l.StartWorker(ctx, 1); err != nil {
				t.Fatal(err)
			}
			waitSliceState(t, ctx, c, 1, rm.SliceActive)
			arrays.check(t, ctx, "resumed on a replacement")
			runDouble(t, ctx, c, arrays.arrays[0])
			if err := elastic.Err(); err != nil {
				t.Errorf("a client that may lose no slice failed over a suspended one: %v", err)
			}
		})
	}
}

// suspendedChecks: the slice is SUSPENDED for the RM and the client, its
// worker holds no arrays, and work on it is UNAVAILABLE.
func suspendedChecks(t *testing.T, ctx context.Context, l *localtest.Cluster, bs *backends, arrays suspendArrays) {
	t.Helper()
	c := l.Client
	view, err := rmClusterView(ctx, l.RMAddress)
	if err != nil {
		t.Fatal(err)
	}
	if s := view.Slices[1]; s.State != rm.SliceSuspended || s.SuspendGeneration == 0 || s.SuspendLocation == "" {
		t.Errorf("the RM lists slice 1 as %+v; want SUSPENDED with a generation and location", s)
	}
	if s := view.Slices[0]; s.State != rm.SliceActive {
		t.Errorf("the RM lists slice 0 as %v", s.State)
	}
	if got := c.SliceState(1); got != rm.SliceSuspended {
		t.Errorf("the client sees slice 1 %v", got)
	}
	if n := bs.liveArrays(1); n != 0 {
		t.Errorf("slice 1's worker holds %d arrays while suspended; want none", n)
	}
	for i, a := range arrays.arrays {
		buf := make([]byte, len(arrays.want[i]))
		if err := a.CopyToHostBuffer(ctx, buf, nil); !errors.Is(err, ifrt.ErrUnavailable) {
			t.Errorf("reading the %v array while suspended: %v; want UNAVAILABLE", a.DType(), err)
		}
	}
	_, err = c.Compile(ctx, &ifrt.MLIRProgram{Module: []byte(double)}, &ifrt.CompileOptions{Devices: c.Devices()[4:8]})
	if !errors.Is(err, ifrt.ErrUnavailable) {
		t.Errorf("compiling for a suspended slice: %v; want UNAVAILABLE", err)
	}
}

// runDouble runs 2x over x (tiled over slice 1) and checks the result.
func runDouble(t *testing.T, ctx context.Context, c ifrt.Client, x ifrt.Array) {
	t.Helper()
	exe, err := c.Compile(ctx, &ifrt.MLIRProgram{Module: []byte(double)}, &ifrt.CompileOptions{Devices: c.Devices()[4:8]})
	if err != nil {
		t.Fatalf("Compile: %v", err)
	}
	res, err := exe.Execute(ctx, []ifrt.Array{x}, nil)
	if err != nil {
		t.Fatalf("Execute over a resumed array: %v", err)
	}
	if got := readF32(t, ctx, res.Outputs[0]); got[0] != 2 || got[7] != 16 {
		t.Errorf("2x = %v", got)
	}
}

// TestSuspendWithoutScratch: without a scratch location a slice cannot be
// suspended (FAILED_PRECONDITION), and it keeps working.
func TestSuspendWithoutScratch(t *testing.T) {
	l := startLocal(t, local.Config{Slices: 2, DevicesPerSlice: 4, NoProxy: true})
	ctx := testenv.Context(t, defaultTestTimeout)
	arrays := makeSuspendArrays(t, ctx, l.Client)
	err := l.Client.SuspendSlice(ctx, 1)
	if !errors.Is(err, ifrt.ErrFailedPrecondition) {
		t.Fatalf("SuspendSlice without a scratch location: %v; want FAILED_PRECONDITION", err)
	}
	waitSliceState(t, ctx, l.Client, 1, rm.SliceActive)
	arrays.check(t, ctx, "after a refused suspension")
}

func rmClusterView(ctx context.Context, addr string) (*rm.Cluster, error) {
	c, err := rm.NewClient(addr, rm.WithLogger(quietLogger()))
	if err != nil {
		return nil, err
	}
	defer c.Close()
	return c.Cluster(ctx)
}

func sleepBriefly() { time.Sleep(10 * time.Millisecond) }

// TestSuspendLetsRequestsInFlightFinish: a request in progress on the
// slice's worker when it is asked to suspend finishes, and what it made is
// saved and comes back.
func TestSuspendLetsRequestsInFlightFinish(t *testing.T) {
	var bs backends
	gate, l := startGated(t, &bs)
	ctx := testenv.Context(t, defaultTestTimeout)
	c := l.Client
	put := make(chan error, 1)
	var inFlight ifrt.Array
	go func() {
		var err error
		inFlight, err = c.MakeArrayFromHostBuffer(ctx, f32Bytes(1, 2, 3), ifrt.ArraySpec{DType: ifrt.F32, Shape: ifrt.Shape{3}, Sharding: ifrt.NewSingleDeviceSharding(c.Devices()[5], "")}, nil)
		put <- err
	}()
	<-gate.entered
	suspended := make(chan error, 1)
	go func() { suspended <- c.SuspendSlice(ctx, 1) }()
	waitSliceState(t, ctx, c, 1, rm.SliceSuspending)
	select {
	case err := <-suspended:
		t.Fatalf("SuspendSlice returned (%v) while a request was in flight", err)
	default:
	}
	close(gate.release)
	if err := <-put; err != nil {
		t.Fatalf("the request in flight: %v; want it to finish", err)
	}
	if err := <-suspended; err != nil {
		t.Fatalf("SuspendSlice: %v", err)
	}
	if n := bs.liveArrays(1); n != 0 {
		t.Errorf("slice 1's worker holds %d arrays while suspended", n)
	}
	if err := c.ResumeSlice(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if got := readF32(t, ctx, inFlight); got[2] != 3 {
		t.Errorf("the array made in flight reads %v", got)
	}
}

// TestSuspendLosesACrashedWorker: a worker that dies while it suspends (here
// waiting for a request that never finishes) does not hang the suspension:
// SuspendSlice is DATA_LOSS, and after the slice resumes on a replacement
// that host's arrays are DATA_LOSS while the rest of the cluster works.
func TestSuspendLosesACrashedWorker(t *testing.T) {
	var bs backends
	gate, l := startGated(t, &bs)
	t.Cleanup(func() { close(gate.release) })
	ctx := testenv.Context(t, defaultTestTimeout)
	c := l.Client
	arrays := makeSuspendArrays(t, ctx, c)
	go func() {
		// Held in flight until the worker is killed, when it fails.
		_, _ = c.MakeArrayFromHostBuffer(ctx, f32Bytes(1, 2, 3), ifrt.ArraySpec{DType: ifrt.F32, Shape: ifrt.Shape{3}, Sharding: ifrt.NewSingleDeviceSharding(c.Devices()[5], "")}, nil)
	}()
	<-gate.entered
	suspended := make(chan error, 1)
	go func() { suspended <- c.SuspendSlice(ctx, 1) }()
	waitSliceState(t, ctx, c, 1, rm.SliceSuspending)
	if err := l.StopWorker(1); err != nil {
		t.Fatal(err)
	}
	if err := <-suspended; !errors.Is(err, ifrt.ErrDataLoss) {
		t.Fatalf("SuspendSlice with its worker crashed: %v; want DATA_LOSS", err)
	}
	if err := l.StartWorker(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if err := c.ResumeSlice(ctx, 1); err != nil {
		t.Fatalf("ResumeSlice: %v", err)
	}
	for i, a := range arrays.arrays {
		buf := make([]byte, len(arrays.want[i]))
		if err := a.CopyToHostBuffer(ctx, buf, nil); !errors.Is(err, ifrt.ErrDataLoss) {
			t.Errorf("the %v array of the crashed worker: %v; want DATA_LOSS", a.DType(), err)
		}
	}
	runDouble(t, ctx, c, mustPut(t, ctx, c))
}

// mustPut makes 1..8 tiled over slice 1.
func mustPut(t *testing.T, ctx context.Context, c ifrt.Client) ifrt.Array {
	t.Helper()
	s, _ := ifrt.NewTiledSharding(c.Devices()[4:8], 4)
	a, err := c.MakeArrayFromHostBuffer(ctx, f32Bytes(1, 2, 3, 4, 5, 6, 7, 8), ifrt.ArraySpec{DType: ifrt.F32, Shape: ifrt.Shape{8}, Sharding: s}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// startGated starts two slices with a scratch directory, whose first worker
// of slice 1 holds back the making of 3-element arrays (gatedPuts): one
// request then stays in flight until the test lets it go.
func startGated(t *testing.T, bs *backends) (gatedPuts, *localtest.Cluster) {
	gate := gatedPuts{entered: make(chan struct{}, 1), release: make(chan struct{})}
	var once sync.Once
	l := startLocal(t, local.Config{Slices: 2, DevicesPerSlice: 4, NoProxy: true, ScratchLocation: t.TempDir(),
		NewBackend: func(i int) (ifrt.Client, error) {
			b, err := bs.new(i)
			gated := false
			if i == 1 {
				once.Do(func() { gated = true })
			}
			if gated {
				g := gate
				g.Client = b
				return g, err
			}
			return b, err
		}})
	return gate, l
}

// TestSuspendedSliceAndAnRMRestart: the RM keeps no state across a restart,
// suspensions included; a suspended slice's workers then take their arrays
// back on their own, and a new suspension (numbered from 1 again) works.
func TestSuspendedSliceAndAnRMRestart(t *testing.T) {
	l := startLocal(t, local.Config{Slices: 2, DevicesPerSlice: 4, NoProxy: true, ScratchLocation: t.TempDir()})
	ctx := testenv.Context(t, defaultTestTimeout)
	c := l.Client
	arrays := makeSuspendArrays(t, ctx, c)
	if err := c.SuspendSlice(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if err := l.RestartRM(); err != nil {
		t.Fatal(err)
	}
	waitSliceState(t, ctx, c, 1, rm.SliceActive)
	for {
		// The workers restore once they see the new RM; until then reads
		// are UNAVAILABLE.
		buf := make([]byte, len(arrays.want[0]))
		err := arrays.arrays[0].CopyToHostBuffer(ctx, buf, nil)
		if err == nil {
			break
		}
		if !errors.Is(err, ifrt.ErrUnavailable) || ctx.Err() != nil {
			t.Fatalf("reading after the RM restarted: %v", err)
		}
		sleepBriefly()
	}
	arrays.check(t, ctx, "after the RM restarted")
	for {
		// Only an up slice can be suspended: wait for its worker to register
		// with the new RM.
		view, err := rmClusterView(ctx, l.RMAddress)
		if err == nil && view.Slices[1].Up {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("slice 1 never came up under the new RM: %v", err)
		}
		sleepBriefly()
	}
	if err := c.SuspendSlice(ctx, 1); err != nil {
		t.Fatalf("suspending again under the new RM: %v", err)
	}
	if err := c.ResumeSlice(ctx, 1); err != nil {
		t.Fatal(err)
	}
	arrays.check(t, ctx, "suspended and resumed under the new RM")
}
