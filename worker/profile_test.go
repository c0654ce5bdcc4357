package worker_test

import (
	"context"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	"github.com/openpathways/pathways/internal/testenv"
	"github.com/openpathways/pathways/worker/workerpb"
)

func (s *standalone) profiler(t *testing.T) workerpb.ProfilerClient {
	conn, err := grpc.NewClient(s.addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return workerpb.NewProfilerClient(conn)
}

var (
	startTrace = &workerpb.TraceControl{Action: &workerpb.TraceControl_Start{Start: &workerpb.TraceStart{}}}
	stopTrace  = &workerpb.TraceControl{Action: &workerpb.TraceControl_Stop{Stop: &workerpb.TraceStop{}}}
)

// openTrace starts a trace call and returns it, with the code of the
// worker's answer to first.
func openTrace(t *testing.T, ctx context.Context, p workerpb.ProfilerClient, first *workerpb.TraceControl) (workerpb.Profiler_TraceClient, codes.Code) {
	t.Helper()
	stream, err := p.Trace(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := stream.Send(first); err != nil {
		t.Fatal(err)
	}
	msg, err := stream.Recv()
	if err == nil && msg.GetStarted().GetStartUnixNs() == 0 {
		t.Fatalf("the worker answered start with %v", msg)
	}
	return stream, status.Code(err)
}

// readTrace reads a trace's chunks to the last and returns its event names.
func readTrace(t *testing.T, stream workerpb.Profiler_TraceClient) map[string]bool {
	t.Helper()
	names := map[string]bool{}
	for {
		msg, err := stream.Recv()
		if err != nil {
			t.Fatalf("reading the trace: %v", err)
		}
		for _, e := range msg.GetChunk().GetEvents() {
			names[e.GetName()] = true
		}
		if msg.GetChunk().GetLast() {
			return names
		}
	}
}

// TestProfilerProtocol drives a worker's Profiler service over gRPC: bad
// first messages are INVALID_ARGUMENT, a second trace FAILED_PRECONDITION;
// the trace holds the worker's IFRT Proxy requests; a call that ends before
// stop frees the worker for the next trace.
func TestProfilerProtocol(t *testing.T) {
	s := startStandalone(t)
	ctx := testenv.Context(t, defaultTestTimeout)
	p := s.profiler(t)
	negative := &workerpb.TraceControl{Action: &workerpb.TraceControl_Start{Start: &workerpb.TraceStart{MaxDurationNs: -1}}}
	for name, first := range map[string]*workerpb.TraceControl{"stop first": stopTrace, "negative duration": negative, "empty": {}} {
		if _, code := openTrace(t, ctx, p, first); code != codes.InvalidArgument {
			t.Errorf("%s: %v, want INVALID_ARGUMENT", name, code)
		}
	}

	stream, code := openTrace(t, ctx, p, startTrace)
	if code != codes.OK {
		t.Fatal(code)
	}
	if _, code := openTrace(t, ctx, p, startTrace); code != codes.FailedPrecondition {
		t.Errorf("a second trace: %v, want FAILED_PRECONDITION", code)
	}
	c := dialWithArray(t, ctx, s)
	defer c.Close()
	if err := stream.Send(stopTrace); err != nil {
		t.Fatal(err)
	}
	if names := readTrace(t, stream); !names["IfrtProxy/MakeArrayFromHostBufferRequest"] {
		t.Errorf("the worker's trace: %v, want its MakeArrayFromHostBuffer", names)
	}

	// A second start within a trace is refused, and the trace let go.
	stream, _ = openTrace(t, ctx, p, startTrace)
	if err := stream.Send(startTrace); err != nil {
		t.Fatal(err)
	}
	if _, err := stream.Recv(); status.Code(err) != codes.InvalidArgument {
		t.Errorf("start within a trace: %v, want INVALID_ARGUMENT", err)
	}

	// A call cancelled before stop discards its trace; the next one starts
	// once the worker has seen the cancellation.
	callCtx, cancelCall := context.WithCancel(ctx)
	openTrace(t, callCtx, p, startTrace)
	cancelCall()
	for {
		stream, code := openTrace(t, ctx, p, startTrace)
		if code == codes.OK {
			stream.CloseSend() // half-closing stops the trace too
			readTrace(t, stream)
			break
		}
		if code != codes.FailedPrecondition || ctx.Err() != nil {
			t.Fatalf("a trace after a cancelled one: %v", code)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestProfilerDrain: a worker shutting down sends its trace without being
// asked, and its trace call does not hold up the drain.
func TestProfilerDrain(t *testing.T) {
	s := startStandalone(t)
	ctx := testenv.Context(t, defaultTestTimeout)
	stream, code := openTrace(t, ctx, s.profiler(t), startTrace)
	if code != codes.OK {
		t.Fatal(code)
	}
	done := make(chan error, 1)
	go func() { done <- s.w.Shutdown(ctx) }()
	readTrace(t, stream)
	if err := <-done; err != nil {
		t.Errorf("Shutdown while tracing: %v", err)
	}
}
