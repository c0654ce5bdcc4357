package proxy_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"

	"go.opentelemetry.io/otel/baggage"
	"google.golang.org/grpc"
	"google.golang.org/grpc/test/bufconn"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/ifrt/gocpu"
	"github.com/openpathways/pathways/internal/testenv"
	"github.com/openpathways/pathways/proxy"
	"github.com/openpathways/pathways/proxy/proxyserver"
)

// keyRecorder is a backend that records the session key of every execution.
type keyRecorder struct {
	ifrt.Client
	mu   sync.Mutex
	keys []string
}

func (k *keyRecorder) Compile(ctx context.Context, p ifrt.Program, o *ifrt.CompileOptions) (ifrt.LoadedExecutable, error) {
	e, err := k.Client.Compile(ctx, p, o)
	if err != nil {
		return nil, err
	}
	return recordedExecutable{e, k}, nil
}

type recordedExecutable struct {
	ifrt.LoadedExecutable
	k *keyRecorder
}

func (e recordedExecutable) Execute(ctx context.Context, args []ifrt.Array, o *ifrt.ExecuteOptions) (*ifrt.ExecuteResult, error) {
	e.k.mu.Lock()
	e.k.keys = append(e.k.keys, ifrt.SessionKey(ctx))
	e.k.mu.Unlock()
	return e.LoadedExecutable.Execute(ctx, args, o)
}

// TestAsyncExecuteCarriesBaggage: an execution sent without waiting
// (WithAsyncExecute, as the cluster client sends them to workers) carries
// the caller's baggage as a waited one does, so a worker keys it by the same
// JAX session: the sidecar's colocated objects lived under two keys when it
// did not. So does the poll of the execution's status, which the worker's
// request log then names by the same JAX session.
func TestAsyncExecuteCarriesBaggage(t *testing.T) {
	if !gocpuCompiles(t) {
		t.Skip("gocpu does not compile programs yet")
	}
	cpu, err := gocpu.New(gocpu.Config{Devices: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer cpu.Close()
	rec := &keyRecorder{Client: cpu}
	var log testenv.SyncBuffer
	srv, err := proxyserver.New(proxyserver.Config{Backend: rec, Logger: slog.New(slog.NewJSONHandler(&log, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	if err != nil {
		t.Fatal(err)
	}
	lis := bufconn.Listen(1 << 20)
	served := make(chan error, 1)
	go func() { served <- srv.Serve(lis) }()
	defer func() {
		srv.Close()
		if err := <-served; !errors.Is(err, proxyserver.ErrServerClosed) {
			t.Errorf("Serve after Close = %v", err)
		}
	}()
	c := dial(t, []proxy.Option{
		proxy.WithDialOptions(grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return lis.DialContext(ctx) })),
		proxy.WithInsecure(), proxy.WithLogger(quietLogger()), proxy.WithAsyncExecute(),
	})
	defer c.Close()

	ctx := testenv.Context(t, defaultTestTimeout)
	m, err := baggage.NewMember(proxyserver.SessionBaggageKey, "77")
	if err != nil {
		t.Fatal(err)
	}
	b, err := baggage.New(m)
	if err != nil {
		t.Fatal(err)
	}
	ctx = baggage.ContextWithBaggage(ctx, b)
	dev := c.AddressableDevices()[0]
	exe, err := c.Compile(ctx, &ifrt.MLIRProgram{Module: []byte(scale)}, &ifrt.CompileOptions{Devices: ifrt.DeviceList{dev}})
	if err != nil {
		t.Fatal(err)
	}
	x, err := c.MakeArrayFromHostBuffer(ctx, make([]byte, 16), ifrt.ArraySpec{DType: ifrt.F32, Shape: ifrt.Shape{4}, Sharding: ifrt.NewSingleDeviceSharding(dev, "")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 { // the first waits for its answer, the others do not
		res, err := exe.Execute(ctx, []ifrt.Array{x}, &ifrt.ExecuteOptions{FillStatus: true})
		if err != nil {
			t.Fatalf("Execute %d: %v", i, err)
		}
		if err := res.Status.Await(ctx); err != nil {
			t.Fatalf("execution %d: %v", i, err)
		}
	}
	polls := 0
	for line := range strings.Lines(log.String()) {
		var rec struct {
			Msg, Kind  string
			JAXSession string `json:"jax_session"`
		}
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		if rec.Msg != "ifrt proxy request done" || !strings.Contains(rec.Kind, "FetchExecuteResult") && !strings.Contains(rec.Kind, "CheckFuture") {
			continue
		}
		polls++
		if rec.JAXSession != "77" {
			t.Errorf("the server logged a %s for JAX session %q, want 77", rec.Kind, rec.JAXSession)
		}
	}
	if polls < 3 {
		t.Errorf("the server logged %d status polls, want at least 3:\n%s", polls, log.String())
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.keys) != 3 {
		t.Fatalf("the backend saw %d executions, want 3", len(rec.keys))
	}
	for i, k := range rec.keys {
		if k != rec.keys[0] || len(k) < 3 || k[len(k)-3:] != "/77" {
			t.Errorf("execution %d ran under session key %q, want the first's (%q), naming JAX session 77", i, k, rec.keys[0])
		}
	}
}
