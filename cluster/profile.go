package cluster

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"sync"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/internal/profiling"
	"github.com/openpathways/pathways/internal/rpc"
	"github.com/openpathways/pathways/worker/workerpb"
)

// traceCallTimeout bounds each step of a worker's trace call (starting,
// collecting the events), so that a worker that stops answering fails its
// part of the trace instead of holding up the others.
const traceCallTimeout = time.Minute

var _ profiling.Hosts = (*Client)(nil)

// StartHostTraces starts a trace on the workers that sel chooses (every one,
// those owning sel.DeviceIDs, at most sel.MaxNumHosts of them in slice and host
// order) through their Profiler service; the proxy server's profileRequest
// calls it. INVALID_ARGUMENT for a device id the cluster lacks; a worker that
// cannot start (FAILED_PRECONDITION: it is tracing already; UNAVAILABLE: it
// is down) fails the start with its code, and the others are stopped.
func (c *Client) StartHostTraces(ctx context.Context, sel profiling.Selection) (profiling.HostTraces, error) {
	if sel.MaxNumHosts < 0 || sel.MaxDuration < 0 {
		return nil, ifrt.Errorf(ifrt.InvalidArgument, "cluster: a trace's host count and duration must not be negative")
	}
	links, err := c.traceLinks(sel)
	if err != nil {
		return nil, err
	}
	traces := &hostTraces{hosts: make([]*hostTrace, len(links))}
	err = parallel(len(links), func(i int) error {
		t, err := startHostTrace(ctx, links[i], sel.MaxDuration)
		traces.hosts[i] = t
		return err
	})
	if err != nil {
		traces.Abandon()
		return nil, err
	}
	return traces, nil
}

// traceLinks are the links of the hosts sel chooses, in slice and host order.
func (c *Client) traceLinks(sel profiling.Selection) ([]*link, error) {
	chosen := map[*link]bool{}
	for _, id := range sel.DeviceIDs {
		p := c.byID[ifrt.DeviceID(id)]
		if p == nil {
			return nil, ifrt.Errorf(ifrt.InvalidArgument, "cluster: device %d is not in the cluster", id)
		}
		chosen[p.link] = true
	}
	var links []*link
	for _, l := range c.links {
		if len(sel.DeviceIDs) == 0 || chosen[l] {
			links = append(links, l)
		}
	}
	sort.Slice(links, func(i, j int) bool {
		a, b := links[i].key, links[j].key
		return a.slice < b.slice || (a.slice == b.slice && a.host < b.host)
	})
	if sel.MaxNumHosts > 0 && len(links) > sel.MaxNumHosts {
		links = links[:sel.MaxNumHosts]
	}
	return links, nil
}

// hostTraces are the trace calls of one profileRequest, one per worker.
type hostTraces struct {
	hosts []*hostTrace
}

// hostTrace is one worker's trace call, open from start to stop.
type hostTrace struct {
	process string
	began   time.Time
	stream  workerpb.Profiler_TraceClient
	ctx     context.Context // the call's; cancel ends it with a cause
	cancel  context.CancelCauseFunc
}

func startHostTrace(ctx context.Context, l *link, maxDuration time.Duration) (*hostTrace, error) {
	l.mu.Lock()
	conn, addr := l.conn, l.addr
	l.mu.Unlock()
	prefix := fmt.Sprintf("cluster: worker of slice %d host %d: starting its trace: ", l.key.slice, l.key.host)
	if conn == nil {
		return nil, ifrt.Errorf(ifrt.Unavailable, "%sit is not connected", prefix)
	}
	// The call outlives the request that starts it: it ends at stop.
	callCtx, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
	h := &hostTrace{process: fmt.Sprintf("worker slice %d host %d (%s)", l.key.slice, l.key.host, addr), ctx: callCtx, cancel: cancel}
	var started *workerpb.TraceStarted
	err := h.bounded(ctx, func() error {
		stream, err := workerpb.NewProfilerClient(conn).Trace(callCtx)
		if err != nil {
			return err
		}
		h.stream = stream
		start := &workerpb.TraceStart{MaxDurationNs: int64(maxDuration)}
		if err := stream.Send(&workerpb.TraceControl{Action: &workerpb.TraceControl_Start{Start: start}}); err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		msg, err := stream.Recv()
		if err != nil {
			return err
		}
		if started = msg.GetStarted(); started == nil {
			return ifrt.Errorf(ifrt.Internal, "the worker answered start with no start time")
		}
		return nil
	})
	if err != nil {
		err = traceError(callCtx, prefix, err)
		cancel(nil)
		return nil, err
	}
	h.began = time.Unix(0, started.GetStartUnixNs())
	return h, nil
}

// bounded runs step on the call, ending the call when ctx ends or the step
// takes longer than traceCallTimeout; the error is then why.
func (h *hostTrace) bounded(ctx context.Context, step func() error) error {
	stopOnCtx := context.AfterFunc(ctx, func() { h.cancel(context.Cause(ctx)) })
	defer stopOnCtx()
	timer := time.AfterFunc(traceCallTimeout, func() {
		h.cancel(ifrt.Errorf(ifrt.DeadlineExceeded, "%s did not answer within %v", h.process, traceCallTimeout))
	})
	defer timer.Stop()
	err := step()
	if err != nil && h.ctx.Err() != nil {
		return context.Cause(h.ctx)
	}
	return err
}

func (t *hostTraces) Stop(ctx context.Context) ([]profiling.HostTrace, error) {
	out := make([]profiling.HostTrace, len(t.hosts))
	var wg sync.WaitGroup
	for i, h := range t.hosts {
		wg.Go(func() { out[i] = h.stop(ctx) })
	}
	wg.Wait()
	var errs []error
	for _, h := range out {
		if h.Err != nil {
			errs = append(errs, h.Err)
		}
	}
	if len(errs) > 0 {
		// The first host's code is the stop's.
		return out, ifrt.WithCode(ifrt.CodeOf(errs[0]), errors.Join(errs...))
	}
	return out, nil
}

// stop asks the worker for its events and reads them; a worker that fails
// midway keeps the events it sent.
func (h *hostTrace) stop(ctx context.Context) profiling.HostTrace {
	out := profiling.HostTrace{Process: h.process, Start: h.began}
	defer h.cancel(nil)
	err := h.bounded(ctx, func() error {
		stop := &workerpb.TraceControl{Action: &workerpb.TraceControl_Stop{Stop: &workerpb.TraceStop{}}}
		// io.EOF: the worker ended the call already (it is stopping and sent
		// its events unasked); they are still to be read.
		if err := h.stream.Send(stop); err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		for {
			msg, err := h.stream.Recv()
			if err != nil {
				return err
			}
			chunk := msg.GetChunk()
			if chunk == nil {
				return ifrt.Errorf(ifrt.Internal, "the worker sent a second start time")
			}
			events, err := decodeTraceChunk(chunk, len(out.Events))
			if err != nil {
				return err
			}
			out.Events = append(out.Events, events...)
			if chunk.GetLast() {
				out.Dropped = int(chunk.GetDropped())
				return nil
			}
		}
	})
	if errors.Is(err, io.EOF) {
		err = ifrt.Errorf(ifrt.Unavailable, "the worker ended the call before its last events")
	}
	if err != nil {
		out.Err = traceError(h.ctx, h.process+": stopping its trace: ", err)
	}
	return out
}

// traceError is the error of a trace call, prefixed, with its code: the
// worker's, or the cause that ended the call. A call that gRPC cancelled
// because the client closed the worker's connection (the link saw the worker
// lost) while the call's own context still runs is UNAVAILABLE: the worker is
// gone, nobody cancelled the trace.
func traceError(callCtx context.Context, prefix string, err error) error {
	if callCtx.Err() != nil {
		return context.Cause(callCtx)
	}
	var ie *ifrt.Error
	if errors.As(err, &ie) {
		return ifrt.Errorf(ie.Code, "%s%w", prefix, err)
	}
	if status.Code(err) == codes.Canceled {
		err = status.Error(codes.Unavailable, "the connection to the worker closed: "+status.Convert(err).Message())
	}
	return rpc.CallError(callCtx, prefix, err)
}

func (t *hostTraces) Abandon() {
	for _, h := range t.hosts {
		if h != nil {
			h.cancel(nil)
		}
	}
}
