package proxy_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"runtime"
	"testing"
	"time"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/ifrt/gocpu"
	"github.com/openpathways/pathways/ifrt/ifrttest"
	"github.com/openpathways/pathways/internal/testenv"
	"github.com/openpathways/pathways/proxy"
	"github.com/openpathways/pathways/proxy/proxyserver"
	"github.com/openpathways/pathways/proxy/proxyserver/proxyservertest"
	"google.golang.org/grpc"
	"google.golang.org/grpc/test/bufconn"
)

const defaultTestTimeout = 60 * time.Second

// startServer serves a proxyserver over a fresh gocpu backend on a bufconn
// listener and returns the dial options that reach it.
func startServer(t testing.TB, devices int) []proxy.Option {
	t.Helper()
	opts, _, _ := startServerWith(t, devices)
	return opts
}

func quietLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }

func startServerWith(t testing.TB, devices int) ([]proxy.Option, *proxyserver.Server, *gocpu.Client) {
	t.Helper()
	srv, backend := proxyservertest.OverGocpu(t, devices, proxyserver.Config{})
	lis := bufconn.Listen(4 << 20)
	served := make(chan error, 1)
	go func() { served <- srv.Serve(lis) }()
	t.Cleanup(func() {
		srv.Close()
		if err := <-served; !errors.Is(err, proxyserver.ErrServerClosed) {
			t.Errorf("Serve after Close = %v, want ErrServerClosed", err)
		}
	})
	return []proxy.Option{
		proxy.WithDialOptions(grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return lis.DialContext(ctx) })),
		proxy.WithInsecure(),
		proxy.WithLogger(quietLogger()),
	}, srv, backend
}

func dial(t testing.TB, opts []proxy.Option) *proxy.Client {
	t.Helper()
	return dialTarget(t, "passthrough:///bufnet", opts...)
}

func dialTarget(t testing.TB, target string, opts ...proxy.Option) *proxy.Client {
	t.Helper()
	ctx := testenv.Context(t, defaultTestTimeout)
	c, err := proxy.Dial(ctx, target, opts...)
	if err != nil {
		t.Fatalf("Dial: %v", err)
	}
	return c
}

// gocpuCompiles reports whether the gocpu backend compiles StableHLO text yet.
func gocpuCompiles(t *testing.T) bool {
	c, err := gocpu.New(gocpu.Config{Devices: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	const prog = `func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  return %a : tensor<2xf32>
}`
	_, err = c.Compile(context.Background(), &ifrt.MLIRProgram{Module: []byte(prog)}, &ifrt.CompileOptions{Devices: c.AddressableDevices()})
	return !errors.Is(err, ifrt.ErrUnimplemented)
}

// TestConformance runs the ifrt conformance suite on proxy clients of a
// proxyserver over gocpu: over bufconn with 8 devices (full coverage) and 3 (an
// odd count), over loopback TCP, and dispatching asynchronously.
func TestConformance(t *testing.T) {
	programs := gocpuCompiles(t)
	for _, tc := range []struct {
		name    string
		devices int
		tcp     bool
		async   bool
	}{{"bufconn8", 8, false, false}, {"bufconn3", 3, false, false}, {"tcp8", 8, true, false}, {"async8", 8, false, true}} {
		t.Run(tc.name, func(t *testing.T) {
			if testing.Short() && tc.name != "bufconn8" {
				t.Skip("one transport is enough in -short mode")
			}
			ifrttest.RunConformance(t, ifrttest.Harness{
				NewClient: func(t *testing.T) ifrt.Client {
					if tc.tcp {
						return dialTarget(t, startTCPServer(t, tc.devices), proxy.WithLogger(quietLogger()))
					}
					opts := startServer(t, tc.devices)
					if tc.async {
						opts = append(opts, proxy.WithAsyncDispatch())
					}
					return dial(t, opts)
				},
				Programs: programs,
			})
		})
	}
}

func TestCloseEndsTheServerSession(t *testing.T) {
	opts, srv, backend := startServerWith(t, 2)
	c := dial(t, opts)
	if got := srv.Sessions(); got != 1 {
		t.Fatalf("server has %d sessions, want 1", got)
	}
	ctx := testenv.Context(t, defaultTestTimeout)
	spec := ifrt.ArraySpec{DType: ifrt.F32, Shape: ifrt.Shape{2}, Sharding: ifrt.NewSingleDeviceSharding(c.Devices()[0], "")}
	if _, err := c.MakeArrayFromHostBuffer(ctx, make([]byte, 8), spec, nil); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	for srv.Sessions() != 0 {
		if ctx.Err() != nil {
			t.Fatal("the server kept the session after Close")
		}
		time.Sleep(time.Millisecond)
	}
	for arrays, _ := backend.Live(); arrays != 0; arrays, _ = backend.Live() {
		if ctx.Err() != nil {
			t.Fatalf("the backend still holds %d arrays after Close", arrays)
		}
		time.Sleep(time.Millisecond)
	}
	if _, err := c.MakeArrayFromHostBuffer(ctx, make([]byte, 8), spec, nil); !errors.Is(err, ifrt.ErrClientClosed) {
		t.Errorf("MakeArrayFromHostBuffer after Close = %v, want ErrClientClosed", err)
	}
}

func TestServerCloseDisconnectsTheClient(t *testing.T) {
	opts, srv, _ := startServerWith(t, 2)
	lost := make(chan error, 1)
	c := dial(t, append(opts, proxy.WithOnDisconnect(func(err error) { lost <- err })))
	defer c.Close()
	srv.Close()
	ctx := testenv.Context(t, defaultTestTimeout)
	select {
	case err := <-lost:
		if !errors.Is(err, ifrt.ErrUnavailable) {
			t.Errorf("on_disconnect got %v, want Unavailable", err)
		}
	case <-ctx.Done():
		t.Fatal("the client did not notice the server closing")
	}
	<-c.Done()
	spec := ifrt.ArraySpec{DType: ifrt.F32, Shape: ifrt.Shape{2}, Sharding: ifrt.NewSingleDeviceSharding(c.Devices()[0], "")}
	if _, err := c.MakeArrayFromHostBuffer(ctx, make([]byte, 8), spec, nil); !errors.Is(err, ifrt.ErrUnavailable) {
		t.Errorf("call after the server closed = %v, want Unavailable", err)
	}
}

func TestVersionNegotiatedWithProxyServer(t *testing.T) {
	c := dial(t, startServer(t, 1))
	defer c.Close()
	if p, _ := c.Version(); p < 16 {
		t.Errorf("negotiated protocol %d", p)
	}
	if got := c.Platform().RuntimeType; len(got) < len("proxy/") || got[:6] != "proxy/" {
		t.Errorf("RuntimeType = %q, want proxy/...", got)
	}
}

// startTCPServer serves a proxyserver over gocpu on a loopback TCP port and
// returns its target, in JAX_BACKEND_TARGET's form.
func startTCPServer(t testing.TB, devices int) string {
	t.Helper()
	srv, _ := proxyservertest.OverGocpu(t, devices, proxyserver.Config{})
	return "grpc://" + proxyservertest.Serve(t, srv)
}

func TestOpenByName(t *testing.T) {
	target := startTCPServer(t, 2)
	ctx := testenv.Context(t, defaultTestTimeout)
	c, err := ifrt.Open(ctx, "proxy:"+target)
	if err != nil {
		t.Fatalf("ifrt.Open: %v", err)
	}
	defer c.Close()
	var pc *proxy.Client
	if !c.As(&pc) || len(pc.AddressableDevices()) != 2 {
		t.Errorf("ifrt.Open gave %T with %d devices", c, len(c.AddressableDevices()))
	}
	if _, err := ifrt.Open(ctx, "proxy"); !errors.Is(err, ifrt.ErrInvalidArgument) {
		t.Errorf(`ifrt.Open("proxy") = %v, want InvalidArgument`, err)
	}
}

func TestUnreachableArraysAreFreedOnTheServer(t *testing.T) {
	opts, _, backend := startServerWith(t, 2)
	c := dial(t, opts)
	defer c.Close()
	ctx := testenv.Context(t, defaultTestTimeout)
	kept, err := c.MakeArrayFromHostBuffer(ctx, make([]byte, 8), ifrt.ArraySpec{
		DType: ifrt.F32, Shape: ifrt.Shape{2}, Sharding: ifrt.NewSingleDeviceSharding(c.Devices()[0], "")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	func() {
		for range 20 {
			spec := ifrt.ArraySpec{DType: ifrt.F32, Shape: ifrt.Shape{2}, Sharding: ifrt.NewSingleDeviceSharding(c.Devices()[1], "")}
			if _, err := c.MakeArrayFromHostBuffer(ctx, make([]byte, 8), spec, nil); err != nil {
				t.Fatal(err)
			}
		}
	}()
	for {
		runtime.GC()
		arrays, _ := backend.Live()
		if arrays == 1 {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("the backend holds %d arrays, want only the one still referenced", arrays)
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := kept.Ready().Await(ctx); err != nil {
		t.Errorf("the referenced array: %v", err)
	}
}

// TestConcurrentChurn mixes array traffic from many goroutines with garbage
// collections, so that batched destructs interleave with other requests.
func TestConcurrentChurn(t *testing.T) {
	opts, _, backend := startServerWith(t, 4)
	c := dial(t, opts)
	defer c.Close()
	ctx := testenv.Context(t, defaultTestTimeout)
	devs := c.AddressableDevices()
	errs := make(chan error, 8)
	for g := range 8 {
		go func() {
			for i := range 40 {
				s, _ := ifrt.NewTiledSharding(devs, int64(len(devs)))
				data := make([]byte, 4*len(devs))
				data[0] = byte(g + i)
				a, err := c.MakeArrayFromHostBuffer(ctx, data, ifrt.ArraySpec{DType: ifrt.S32, Shape: ifrt.Shape{int64(len(devs))}, Sharding: s}, nil)
				if err != nil {
					errs <- err
					return
				}
				parts, err := c.DisassembleArray(ctx, a, ifrt.AlwaysCopy)
				if err != nil {
					errs <- err
					return
				}
				got := make([]byte, 4)
				if err := parts[0].CopyToHostBuffer(ctx, got, nil); err != nil || got[0] != byte(g+i) {
					errs <- fmt.Errorf("goroutine %d: shard 0 = %v, %v", g, got, err)
					return
				}
				if i%10 == 0 {
					runtime.GC()
				}
			}
			errs <- nil
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	for {
		runtime.GC()
		if arrays, _ := backend.Live(); arrays == 0 {
			break
		}
		if ctx.Err() != nil {
			arrays, _ := backend.Live()
			t.Fatalf("the backend still holds %d arrays", arrays)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestCopyArraysFromDifferentDevices(t *testing.T) {
	c := dial(t, startServer(t, 3))
	defer c.Close()
	ctx := testenv.Context(t, defaultTestTimeout)
	devs := c.AddressableDevices()
	var in []ifrt.Array
	for i := range 2 {
		a, err := c.MakeArrayFromHostBuffer(ctx, []byte{byte(10 + i)}, ifrt.ArraySpec{
			DType: ifrt.U8, Shape: ifrt.Shape{1}, Sharding: ifrt.NewSingleDeviceSharding(devs[i], "")}, nil)
		if err != nil {
			t.Fatal(err)
		}
		in = append(in, a)
	}
	out, err := c.CopyArrays(ctx, in, devs[2:], nil, ifrt.DonateInput)
	if err != nil {
		t.Fatalf("CopyArrays: %v", err)
	}
	for i, a := range out {
		got := make([]byte, 1)
		if err := a.CopyToHostBuffer(ctx, got, nil); err != nil || got[0] != byte(10+i) || a.Sharding().Devices()[0].ID != devs[2].ID {
			t.Errorf("copy %d: %v on %v, %v", i, got, a.Sharding().Devices(), err)
		}
		if !in[i].IsDeleted() {
			t.Errorf("donated input %d is alive", i)
		}
	}
}

// scale doubles f32[4]; jaxlib-style programs are MLIR text here.
const scale = `func.func public @main(%arg0: tensor<4xf32>) -> (tensor<4xf32>) {
  %0 = stablehlo.add %arg0, %arg0 : tensor<4xf32>
  return %0 : tensor<4xf32>
}`

func TestRepeatedExecutionsWithStatus(t *testing.T) {
	if !gocpuCompiles(t) {
		t.Skip("gocpu does not compile programs yet")
	}
	for _, async := range []bool{false, true} {
		t.Run(fmt.Sprintf("async=%v", async), func(t *testing.T) {
			opts := startServer(t, 2)
			if async {
				opts = append(opts, proxy.WithAsyncDispatch())
			}
			c := dial(t, opts)
			defer c.Close()
			ctx := testenv.Context(t, defaultTestTimeout)
			dev := c.AddressableDevices()[1]
			exe, err := c.Compile(ctx, &ifrt.MLIRProgram{Module: []byte(scale)}, &ifrt.CompileOptions{Devices: ifrt.DeviceList{dev}})
			if err != nil {
				t.Fatalf("Compile: %v", err)
			}
			spec := ifrt.ArraySpec{DType: ifrt.F32, Shape: ifrt.Shape{4}, Sharding: ifrt.NewSingleDeviceSharding(dev, "")}
			x, err := c.MakeArrayFromHostBuffer(ctx, make([]byte, 16), spec, nil)
			if err != nil {
				t.Fatal(err)
			}
			for i := range 3 {
				res, err := exe.Execute(ctx, []ifrt.Array{x}, &ifrt.ExecuteOptions{FillStatus: true})
				if err != nil {
					t.Fatalf("Execute %d: %v", i, err)
				}
				if err := res.Status.Await(ctx); err != nil {
					t.Fatalf("status of execution %d: %v", i, err)
				}
				if got := res.Outputs[0].Sharding().Devices(); len(got) != 1 || got[0].ID != dev.ID {
					t.Errorf("execution %d: output on %v, want device %d", i, got, dev.ID)
				}
				x = res.Outputs[0]
			}
			got := make([]byte, 16)
			if err := x.CopyToHostBuffer(ctx, got, nil); err != nil {
				t.Fatal(err)
			}
			wrong := []ifrt.Array{x, x}
			if _, err := exe.Execute(ctx, wrong, nil); !errors.Is(err, ifrt.ErrInvalidArgument) {
				t.Errorf("Execute with two arguments = %v", err)
			}
		})
	}
}
