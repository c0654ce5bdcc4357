package worker

import (
	"context"
	"sync"
	"time"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/internal/rpc"
	"github.com/openpathways/pathways/worker/workerpb"
)

// Launches serves a client's stream of launches: each one runs as a Launch
// call would (its own goroutine, its sequence turn, its context ended by its
// timeout, its cancel message or the stream ending), and its result goes back
// on the stream when it is done. A launch costs one small message each way
// instead of a call; the stream lives as long as the client's connection, or
// until this worker leaves.
func (g *gang) Launches(stream workerpb.Gang_LaunchesServer) error {
	ctx, cancel := context.WithCancel(stream.Context())
	defer cancel()
	ls := &launchStream{g: g, stream: stream, running: map[uint64]context.CancelFunc{}}
	received := make(chan error, 1)
	go func() { received <- ls.receive(ctx) }()
	// Launches still running when the stream ends answer nobody: a stream
	// takes no Send once its handler has returned.
	defer func() {
		ls.sendMu.Lock()
		ls.ended = true
		ls.sendMu.Unlock()
	}()
	select {
	case err := <-received:
		return err
	case <-g.w.stopped():
		// A stream never ends by itself: leaving must not wait for it, only
		// for the launches it carries (as for calls in progress).
		select {
		case <-ls.drain():
		case <-ctx.Done():
		}
		return rpc.ToStatus(errLeaving)
	}
}

var errLeaving = ifrt.Errorf(ifrt.Unavailable, "worker: the worker is leaving")

// drain refuses further launches and returns a channel closed once the
// running ones are done.
func (ls *launchStream) drain() <-chan struct{} {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	if ls.idle == nil {
		ls.idle = make(chan struct{})
		if len(ls.running) == 0 {
			close(ls.idle)
		}
	}
	return ls.idle
}

// launchStream is the worker's side of one Launches stream.
type launchStream struct {
	g      *gang
	stream workerpb.Gang_LaunchesServer

	sendMu sync.Mutex
	ended  bool // the handler returned; guarded by sendMu

	mu      sync.Mutex
	running map[uint64]context.CancelFunc // by launch id
	idle    chan struct{}                 // made by drain, closed when running empties
}

func (ls *launchStream) receive(ctx context.Context) error {
	for {
		req, err := ls.stream.Recv()
		if err != nil {
			return err // io.EOF: the client closed it
		}
		if id, ok := req.GetRequest().(*workerpb.LaunchStreamRequest_Cancel); ok {
			ls.mu.Lock()
			stop := ls.running[id.Cancel]
			ls.mu.Unlock()
			if stop != nil {
				stop()
			}
			continue
		}
		launch := req.GetLaunch()
		if launch == nil {
			continue // a request kind this worker does not know
		}
		lctx, stop := context.WithCancel(ctx)
		if t := req.GetTimeoutNanos(); t > 0 {
			lctx, stop = context.WithTimeout(ctx, time.Duration(t))
		}
		ls.mu.Lock()
		leaving := ls.idle != nil
		if !leaving {
			ls.running[launch.GetLaunchId()] = stop
		}
		ls.mu.Unlock()
		if leaving {
			stop()
			ls.answer(launch.GetLaunchId(), nil, errLeaving)
			continue
		}
		go ls.run(lctx, stop, launch)
	}
}

// run runs one launch and sends its result.
func (ls *launchStream) run(ctx context.Context, stop context.CancelFunc, req *workerpb.LaunchRequest) {
	g := ls.g
	done := g.w.proxy.Track()
	start := time.Now()
	resp, err := g.launch(ctx, req)
	g.w.record("gang", "Gang/Launch", start, err)
	done()
	stop()
	ls.answer(req.GetLaunchId(), resp, err) // before a drain can end the stream
	ls.mu.Lock()
	delete(ls.running, req.GetLaunchId())
	if ls.idle != nil && len(ls.running) == 0 {
		close(ls.idle)
	}
	ls.mu.Unlock()
}

// answer sends a launch's result.
func (ls *launchStream) answer(id uint64, resp *workerpb.LaunchResponse, err error) {
	res := &workerpb.LaunchResult{LaunchId: id, SentBytes: resp.GetSentBytes()}
	if err != nil {
		code, msg := rpc.CodeAndMessage(err)
		res.Code, res.Message, res.Reason = int32(code), msg, rpc.ReasonOf(err)
	}
	ls.sendMu.Lock()
	defer ls.sendMu.Unlock()
	if !ls.ended {
		// A failed send means the stream is gone, and with it the client's wait.
		_ = ls.stream.Send(res)
	}
}
