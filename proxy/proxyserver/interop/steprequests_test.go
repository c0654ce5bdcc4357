package interop_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"sort"
	"strings"
	"sync"
	"testing"

	"google.golang.org/grpc"

	"github.com/openpathways/pathways/cluster"
	"github.com/openpathways/pathways/cluster/local"
	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/ifrt/gocpu"
	"github.com/openpathways/pathways/internal/testenv"
	"github.com/openpathways/pathways/proxy/proxypb"
	"github.com/openpathways/pathways/proxy/proxyserver"
)

// requestTally counts the requests crossing one gRPC hop: each IfrtRequest of
// a session stream by kind, and every other call by method.
type requestTally struct {
	mu sync.Mutex
	n  map[string]int
}

func (t *requestTally) add(kind string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.n == nil {
		t.n = map[string]int{}
	}
	t.n[kind]++
}

func (t *requestTally) snapshot() map[string]int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return maps.Clone(t.n)
}

func (t *requestTally) message(m any) {
	if r, ok := m.(*proxypb.IfrtRequest); ok {
		t.add(strings.TrimPrefix(fmt.Sprintf("%T", r.GetRequest()), "*proxypb.IfrtRequest_"))
	}
}

func (t *requestTally) method(name string) {
	if !strings.HasSuffix(name, "/IfrtSession") {
		t.add(name[strings.LastIndex(name, "/")+1:])
	}
}

// Server side: what JAX sends the proxy.
func (t *requestTally) serverOptions() []grpc.ServerOption {
	return []grpc.ServerOption{
		grpc.ChainUnaryInterceptor(func(ctx context.Context, req any, info *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
			t.method(info.FullMethod)
			return h(ctx, req)
		}),
		grpc.ChainStreamInterceptor(func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, h grpc.StreamHandler) error {
			t.method(info.FullMethod)
			return h(srv, tallyServerStream{ss, t})
		}),
	}
}

type tallyServerStream struct {
	grpc.ServerStream
	t *requestTally
}

func (s tallyServerStream) RecvMsg(m any) error {
	err := s.ServerStream.RecvMsg(m)
	if err == nil {
		s.t.message(m)
	}
	return err
}

// Client side: what the cluster client sends the workers.
func (t *requestTally) dialOptions() []grpc.DialOption {
	return []grpc.DialOption{
		grpc.WithChainUnaryInterceptor(func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
			if strings.Contains(method, "GrpcIfrtService") {
				t.method(method)
			}
			return invoker(ctx, method, req, reply, cc, opts...)
		}),
		grpc.WithChainStreamInterceptor(func(ctx context.Context, desc *grpc.StreamDesc, cc *grpc.ClientConn, method string, streamer grpc.Streamer, opts ...grpc.CallOption) (grpc.ClientStream, error) {
			cs, err := streamer(ctx, desc, cc, method, opts...)
			if err != nil || !strings.Contains(method, "GrpcIfrtService") {
				return cs, err
			}
			t.method(method)
			return tallyClientStream{cs, t}, nil
		}),
	}
}

type tallyClientStream struct {
	grpc.ClientStream
	t *requestTally
}

func (s tallyClientStream) SendMsg(m any) error {
	s.t.message(m)
	return s.ClientStream.SendMsg(m)
}

func diff(after, before map[string]int) map[string]int {
	out := map[string]int{}
	for k, v := range after {
		if d := v - before[k]; d != 0 {
			out[k] = d
		}
	}
	return out
}

func total(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

func describe(m map[string]int, steps int) string {
	var parts []string
	for k, v := range m {
		parts = append(parts, fmt.Sprintf("%s %.2g", k, float64(v)/float64(steps)))
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}

// TestStepRequests counts, for the tiny JAX step through a proxy over a
// one-worker cluster, the requests JAX sends the proxy and those the proxy
// sends the worker: at most one to the worker per request from JAX, and none
// of the round trips the answer does not need: no worker-side copy for the
// read-back of a single-device result (FullyReplicatedShard is a view), no
// questions about donation (executions say what they donated), no deletion
// futures for arrays JAX destructs, no host-buffer calls for a small
// read-back (it comes inline).
func TestStepRequests(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a real JAX process; skipped with -short")
	}
	const steps = 20
	python := testenv.Python(t)
	ctx := testenv.Context(t, testTimeout)
	l, err := local.Start(ctx, local.Config{
		Slices: 1, DevicesPerSlice: 8, NoProxy: true,
		Logger:     slog.New(slog.NewTextHandler(io.Discard, nil)),
		NewBackend: func(int) (ifrt.Client, error) { return gocpu.New(gocpu.Config{Devices: 8}) },
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	toWorker, fromJAX := &requestTally{}, &requestTally{}
	c, err := cluster.Connect(ctx, l.RMAddress, cluster.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))),
		cluster.WithDialOptions(toWorker.dialOptions()...))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	b := interopBackend{name: "cluster", newClient: func(*testing.T) ifrt.Client { return c }}
	s := startBenchServer(t, b, python, func(cfg *proxyserver.Config) { cfg.ServerOptions = fromJAX.serverOptions() })

	var jaxStart, workerStart, jaxSteps, workerSteps map[string]int
	out, err := s.runSteps(t, "step_requests.py", func(step string) {
		switch step {
		case "start":
			jaxStart, workerStart = fromJAX.snapshot(), toWorker.snapshot()
		case "end":
			jaxSteps, workerSteps = diff(fromJAX.snapshot(), jaxStart), diff(toWorker.snapshot(), workerStart)
		}
	}, fmt.Sprintf("STEPS=%d", steps))
	if err != nil {
		t.Fatal(err)
	}
	if !decode[bool](t, out, "correct") {
		t.Fatal("the steps computed wrong values")
	}
	t.Logf("per step, JAX -> proxy: %s", describe(jaxSteps, steps))
	t.Logf("per step, proxy -> worker: %s", describe(workerSteps, steps))
	if j, w := total(jaxSteps), total(workerSteps); w > j {
		t.Errorf("%d steps: the proxy sent the worker %d requests for JAX's %d, want at most one per JAX request", steps, w, j)
	}
	// The read-back comes inline with its CopyToHostBuffer: no HostBufferLookup
	// or HostBufferDelete.
	for _, kind := range []string{"FullyReplicatedShardRequest", "CopyArraysRequest", "IsArrayDeletedRequest", "DeleteArrayRequest", "CheckFutureRequest", "HostBufferLookup", "HostBufferDelete"} {
		if n := workerSteps[kind]; n > 0 {
			t.Errorf("%d steps sent the worker %d %s, want none", steps, n, kind)
		}
	}
}
