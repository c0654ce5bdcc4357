package cluster_test

import (
	"context"
	"errors"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/health/grpc_health_v1"

	"github.com/openpathways/pathways/cluster"
	"github.com/openpathways/pathways/cluster/local"
	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/ifrt/gocpu"
	"github.com/openpathways/pathways/internal/faultnet"
	"github.com/openpathways/pathways/internal/testenv"
	"github.com/openpathways/pathways/rm"
	"github.com/openpathways/pathways/worker"
)

// Tests of issue 11's faults at the cluster client: a frozen worker with the RM
// down (defect 6), a session that broke while the worker stayed registered and
// a failed compile retried on every worker (defect 3), a worker stopping in the
// middle of a step (defect 7).

// pathCluster is an RM and workers whose clients reach each worker through a
// faultnet.Proxy (the address the worker registers), and a client connected to
// them.
type pathCluster struct {
	rm     *rm.Server
	paths  []*faultnet.Proxy
	client *cluster.Client
}

func startPathCluster(t *testing.T, slices int, opts ...cluster.Option) *pathCluster {
	t.Helper()
	ctx := testContext(t)
	rms, err := rm.New(rm.Config{InstanceType: "cpu:2", InstanceCount: slices, Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	rmLis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go rms.Serve(rmLis)
	t.Cleanup(func() { rms.Close() })
	pc := &pathCluster{rm: rms}
	for i := range slices {
		backend, err := gocpu.New(gocpu.Config{Devices: 2})
		if err != nil {
			t.Fatal(err)
		}
		lis, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		path, err := faultnet.Listen(lis.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		w, err := worker.New(worker.Config{Backend: backend, ResourceManager: rmLis.Addr().String(), Slice: i, Address: path.Addr(), Logger: quietLogger(),
			KeepaliveInterval: time.Second, KeepaliveTimeout: time.Second})
		if err != nil {
			t.Fatal(err)
		}
		go w.Serve(lis)
		t.Cleanup(func() { w.Close(); path.Close(); backend.Close() })
		select {
		case <-w.Ready():
		case <-ctx.Done():
			t.Fatal("a worker did not register")
		}
		pc.paths = append(pc.paths, path)
	}
	pc.client, err = cluster.Connect(ctx, rmLis.Addr().String(), append([]cluster.Option{cluster.WithLogger(quietLogger())}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pc.client.Close() })
	return pc
}

// TestFrozenWorkerWithTheRMDown: a frozen worker blocked its clients for good
// when the RM, which would have noticed, was down. The client's own liveness
// check takes the worker's link down with DATA_LOSS; closing the client ends
// the link's redial loop.
func TestFrozenWorkerWithTheRMDown(t *testing.T) {
	pc := startPathCluster(t, 2, cluster.WithKeepalive(100*time.Millisecond, 300*time.Millisecond))
	ctx := testContext(t)
	if _, err := putOn(ctx, pc.client, 0); err != nil {
		t.Fatal(err)
	}
	pc.rm.Close()
	pc.paths[0].Freeze()
	// The client's own check finds it (grpc-go's keepalive would, after 10s at
	// the least).
	if _, err := putOn(ctx, pc.client, 0); !errors.Is(err, ifrt.ErrDataLoss) || !strings.Contains(err.Error(), "did not answer") {
		t.Errorf("a transfer to the frozen worker: %v, want DATA_LOSS from the liveness check", err)
	}
	if _, err := putOn(ctx, pc.client, 1); err != nil {
		t.Errorf("a transfer to the other worker: %v", err)
	}
	// The lost link redials, asking the RM that is down; Close ends that
	// loop and waits for it, where it used to run on through its dial and
	// backoff after Close returned (a goroutine the leak check caught).
	eventually(t, ctx, "the lost link redialling", func() error {
		if cluster.Redialing(pc.client) == 0 {
			return errors.New("no link redials")
		}
		return nil
	})
	if err := pc.client.Close(); err != nil {
		t.Fatal(err)
	}
	if n := cluster.Redialing(pc.client); n != 0 {
		t.Errorf("%d links still redial after Close returned", n)
	}
}

// TestBrokenSessionIsDialledAgain: a worker session that ended while the worker
// stayed registered left the link down for good (after issue 11's malformed
// compile, every slice). The client asks the RM and dials the worker again.
func TestBrokenSessionIsDialledAgain(t *testing.T) {
	pc := startPathCluster(t, 1)
	ctx := testContext(t)
	old, err := putOn(ctx, pc.client, 0)
	if err != nil {
		t.Fatal(err)
	}
	pc.paths[0].Cut()
	eventually(t, ctx, "a transfer after the session broke", func() error {
		_, err := putOn(ctx, pc.client, 0)
		return err
	})
	if err := old.CopyToHostBuffer(ctx, make([]byte, 8), nil); !errors.Is(err, ifrt.ErrDataLoss) {
		t.Errorf("an array of the broken session: %v, want DATA_LOSS", err)
	}
}

// failingCompiles is a backend whose compiles fail with err and are counted.
type failingCompiles struct {
	ifrt.Client
	err      error
	compiles *atomic.Int32
}

func (f failingCompiles) Compile(context.Context, ifrt.Program, *ifrt.CompileOptions) (ifrt.LoadedExecutable, error) {
	f.compiles.Add(1)
	return nil, f.err
}

// TestFailedCompileIsNotRetriedElsewhere: the cluster client compiled a program
// that its worker refused on every other worker. A program error stays one,
// whatever its code, when the worker that gave it is still there.
func TestFailedCompileIsNotRetriedElsewhere(t *testing.T) {
	for _, progErr := range []error{
		ifrt.Errorf(ifrt.InvalidArgument, "bad bytecode \xff\xfe"),
		ifrt.Errorf(ifrt.DataLoss, "the plugin says DATA_LOSS about the program"),
	} {
		var counts [2]atomic.Int32
		l := startLocal(t, local.Config{Slices: 2, DevicesPerSlice: 2, NoProxy: true,
			NewBackend: func(slice int) (ifrt.Client, error) {
				b, err := gocpu.New(gocpu.Config{Devices: 2})
				return failingCompiles{b, progErr, &counts[slice]}, err
			}})
		ctx := testenv.Context(t, defaultTestTimeout)
		_, err := l.Client.Compile(ctx, &ifrt.MLIRProgram{Module: []byte("garbage")}, &ifrt.CompileOptions{Devices: l.Client.Devices()[:2]})
		if ifrt.CodeOf(err) != ifrt.CodeOf(progErr) {
			t.Errorf("Compile = %v, want the worker's %v", err, ifrt.CodeOf(progErr))
		}
		if n := counts[1].Load(); n != 0 {
			t.Errorf("%v: the program was compiled %d times on the other worker", ifrt.CodeOf(progErr), n)
		}
		if _, err := putOn(ctx, l.Client, 0); err != nil {
			t.Errorf("the worker's link after the failed compile: %v", err)
		}
	}
}

// gatedPuts is a backend whose MakeArrayFromHostBuffer of a 3-element array
// waits until release is closed.
type gatedPuts struct {
	ifrt.Client
	entered chan struct{}
	release chan struct{}
}

func (g gatedPuts) MakeArrayFromHostBuffer(ctx context.Context, data []byte, spec ifrt.ArraySpec, opts *ifrt.HostBufferOptions) (ifrt.Array, error) {
	if spec.Shape.NumElements() == 3 {
		g.entered <- struct{}{}
		<-g.release
	}
	return g.Client.MakeArrayFromHostBuffer(ctx, data, spec, opts)
}

// waitNotServing waits until the worker of a slice reports NOT_SERVING: it has
// begun to drain.
func waitNotServing(t *testing.T, ctx context.Context, rmAddr string, slice int) {
	t.Helper()
	rmc, err := rm.NewClient(rmAddr, rm.WithLogger(quietLogger()))
	if err != nil {
		t.Fatal(err)
	}
	defer rmc.Close()
	view, err := rmc.Cluster(ctx)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := grpc.NewClient(view.Workers[slice].Address, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	eventually(t, ctx, "the worker reports NOT_SERVING", func() error {
		r, err := grpc_health_v1.NewHealthClient(conn).Check(ctx, &grpc_health_v1.HealthCheckRequest{})
		if err != nil {
			return err
		}
		if r.GetStatus() != grpc_health_v1.HealthCheckResponse_NOT_SERVING {
			return errors.New(r.GetStatus().String())
		}
		return nil
	})
}

// stillLive reports an error unless the RM lists the worker of a slice as live.
func stillLive(ctx context.Context, rmAddr string, slice int) error {
	rmc, err := rm.NewClient(rmAddr, rm.WithLogger(quietLogger()))
	if err != nil {
		return err
	}
	defer rmc.Close()
	view, err := rmc.Cluster(ctx)
	if err != nil {
		return err
	}
	if st := view.Workers[slice].State; st != rm.StateLive {
		return errors.New("the RM lists the worker as " + st.String())
	}
	return nil
}

// TestWorkerShutdownFinishesTheStepInFlight: SIGTERM to a worker failed the step
// in flight with DATA_LOSS (the worker left the RM first). It now finishes what
// is in progress, then leaves.
func TestWorkerShutdownFinishesTheStepInFlight(t *testing.T) {
	gate := gatedPuts{entered: make(chan struct{}, 1), release: make(chan struct{})}
	l := startLocal(t, local.Config{Slices: 2, DevicesPerSlice: 2, NoProxy: true,
		NewBackend: func(slice int) (ifrt.Client, error) {
			b, err := gocpu.New(gocpu.Config{Devices: 2})
			if slice == 0 {
				gate.Client = b
				return gate, err
			}
			return b, err
		}})
	ctx := testContext(t)
	c := l.Client
	put := make(chan error, 1)
	go func() {
		_, err := c.MakeArrayFromHostBuffer(ctx, f32Bytes(1, 2, 3), ifrt.ArraySpec{DType: ifrt.F32, Shape: ifrt.Shape{3}, Sharding: ifrt.NewSingleDeviceSharding(c.Devices()[0], "")}, nil)
		put <- err
	}()
	<-gate.entered
	w := l.Worker(0)
	stopped := make(chan error, 1)
	go func() { stopped <- w.Shutdown(ctx) }()
	waitNotServing(t, ctx, l.RMAddress, 0)
	// Draining, the worker is still registered: the step goes on.
	if err := stillLive(ctx, l.RMAddress, 0); err != nil {
		t.Errorf("while the worker drains: %v", err)
	}
	close(gate.release)
	if err := <-put; err != nil {
		t.Errorf("the transfer in flight when the worker was told to stop: %v", err)
	}
	if err := <-stopped; err != nil {
		t.Errorf("Shutdown: %v", err)
	}
	eventually(t, ctx, "the stopped worker's slice fails", func() error {
		_, err := putOn(ctx, c, 0)
		return wantCode(err, ifrt.ErrDataLoss)
	})
}
