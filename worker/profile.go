package worker

import (
	"context"
	"errors"
	"io"
	"sync"
	"time"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/internal/profiling"
	"github.com/openpathways/pathways/internal/rpc"
	"github.com/openpathways/pathways/worker/workerpb"
)

// profiler serves workerpb.Profiler: traces of the worker's recorder, which
// its IFRT Proxy server (requests, compiles, executions) and its gang and peer
// services (record) fill.
type profiler struct {
	workerpb.UnimplementedProfilerServer
	w *Server

	stopping chan struct{} // closed when the worker begins stopping
	stopOnce sync.Once
}

// traceChunkEvents is how many events one TraceChunk carries: a few hundred
// kilobytes, well under every message limit.
const traceChunkEvents = 1024

func newProfiler(w *Server) *profiler { return &profiler{w: w, stopping: make(chan struct{})} }

// stop makes every trace in progress send its events now, and refuses new
// ones: a draining worker's trace calls must not hold up its drain. (Close
// cuts them off instead.)
func (p *profiler) stop() { p.stopOnce.Do(func() { close(p.stopping) }) }

func (p *profiler) Trace(stream workerpb.Profiler_TraceServer) error {
	first, err := stream.Recv()
	if err != nil {
		return err
	}
	start := first.GetStart()
	if start == nil || start.GetMaxDurationNs() < 0 {
		return rpc.ToStatus(ifrt.Errorf(ifrt.InvalidArgument, "worker: a trace call begins with start, whose duration is not negative"))
	}
	select {
	case <-p.stopping:
		return rpc.ToStatus(ifrt.Errorf(ifrt.Unavailable, "worker: stopping; it takes no new trace"))
	default:
	}
	t, err := p.w.proxy.Recorder().Start(time.Duration(start.GetMaxDurationNs()))
	if err != nil {
		return rpc.ToStatus(ifrt.Errorf(ifrt.CodeOf(err), "worker: %w", err))
	}
	defer t.Stop() // a call that ends before stop discards its trace
	started := &workerpb.TraceStarted{StartUnixNs: t.Began().UnixNano()}
	if err := stream.Send(&workerpb.TraceData{Data: &workerpb.TraceData_Started{Started: started}}); err != nil {
		return err
	}
	next := make(chan error, 1)
	go func() {
		msg, err := stream.Recv()
		switch {
		case errors.Is(err, io.EOF):
			err = nil // half-closing stops the trace too
		case err == nil && msg.GetStop() == nil:
			err = rpc.ToStatus(ifrt.Errorf(ifrt.InvalidArgument, "worker: a started trace takes nothing but stop"))
		}
		next <- err
	}()
	select {
	case err := <-next:
		if err != nil {
			return err
		}
	case <-p.stopping:
	case <-stream.Context().Done():
		return stream.Context().Err()
	}
	events, dropped := t.Stop()
	return sendTrace(stream, events, dropped)
}

// sendTrace sends events in chunks, the last one marked.
func sendTrace(stream workerpb.Profiler_TraceServer, events []profiling.Event, dropped int) error {
	for {
		n := min(len(events), traceChunkEvents)
		chunk := &workerpb.TraceChunk{Events: make([]*workerpb.TraceEvent, n), Last: n == len(events)}
		for i, e := range events[:n] {
			chunk.Events[i] = &workerpb.TraceEvent{
				Name: e.Name, Category: e.Category, Thread: e.Thread,
				StartNs: int64(e.Start), DurationNs: int64(e.Duration), Args: e.Args,
			}
		}
		if chunk.Last {
			chunk.Dropped = int64(dropped)
		}
		if err := stream.Send(&workerpb.TraceData{Data: &workerpb.TraceData_Chunk{Chunk: chunk}}); err != nil {
			return err
		}
		if chunk.Last {
			return nil
		}
		events = events[n:]
	}
}

// record adds a span of the gang or peer service (thread) that began at
// start and ended with err to the worker's trace, if one is taken.
func (s *Server) record(thread, name string, start time.Time, err error) {
	rec := s.proxy.Recorder()
	if !rec.Tracing() {
		return
	}
	rec.Record(thread, name, thread, start, map[string]string{"code": rpc.CodeAttribute(err).Value.AsString()})
}

// unary serves one call of the gang or peer service (thread): the call counts
// as work in progress for Shutdown, is recorded as name in the worker's trace,
// and fails with a gRPC status.
func unary[Req, Resp any](ctx context.Context, s *Server, thread, name string, req Req, call func(context.Context, Req) (Resp, error)) (Resp, error) {
	defer s.proxy.Track()()
	start := time.Now()
	resp, err := call(ctx, req)
	s.record(thread, name, start, err)
	if err != nil {
		var none Resp
		return none, rpc.ToStatus(err)
	}
	return resp, nil
}
