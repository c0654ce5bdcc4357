package proxy

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/internal/rpc"
	"github.com/openpathways/pathways/proxy/internal/wire"
	"github.com/openpathways/pathways/proxy/proxypb"
)

// destructBatchDelay is how long DestructArray handles wait to be sent together,
// unless another request goes out first and takes them along, or a gang launch
// does (TakeDestructs). jaxlib flushes its batch after about 50µs; waiting a
// millisecond lets a loop of launches over several workers hand each launch's
// released outputs to the next one, instead of a request and an answer per
// worker, for arrays freed at most a millisecond later.
const destructBatchDelay = time.Millisecond

// responseFunc receives the response to one request, or the error that ended the
// session before it came. It runs on the session's receive goroutine and must not
// block.
type responseFunc func(*proxypb.IfrtResponse, error)

// session is one IfrtSession stream: requests go out in order, each with the next
// op id; responses come back in any order and go to the function registered for
// their op id.
type session struct {
	log    *slog.Logger
	stream proxypb.GrpcIfrtService_IfrtSessionClient
	cancel context.CancelFunc // ends the stream

	// sendMu serializes Send on the stream (grpc-go streams are not safe for
	// concurrent sends) and keeps op ids in the order requests go out, which is
	// the order the server handles them in.
	sendMu sync.Mutex
	nextOp uint64

	mu      sync.Mutex
	pending map[uint64]responseFunc
	err     error         // why the session ended; set once
	done    chan struct{} // closed when the session ends

	dmu        sync.Mutex
	destructs  []uint64 // handles waiting for a batched DestructArrayRequest
	flushArmed bool
	batchDelay time.Duration // destructBatchDelay; tests lengthen it

	recvDone chan struct{}
}

func newSession(stream proxypb.GrpcIfrtService_IfrtSessionClient, cancel context.CancelFunc, log *slog.Logger) *session {
	return &session{
		log:        log,
		stream:     stream,
		cancel:     cancel,
		nextOp:     1,
		pending:    map[uint64]responseFunc{},
		done:       make(chan struct{}),
		recvDone:   make(chan struct{}),
		batchDelay: destructBatchDelay,
	}
}

// start runs the receive loop. onEnd is called once, with the error that ended the
// session, after every pending request has been failed with it.
func (s *session) start(onEnd func(error)) {
	go func() {
		defer close(s.recvDone)
		for {
			resp, err := s.stream.Recv()
			if err != nil {
				onEnd(s.end(disconnected(err)))
				return
			}
			op := resp.GetResponseMetadata().GetOpId()
			s.mu.Lock()
			f, ok := s.pending[op]
			delete(s.pending, op)
			s.mu.Unlock()
			if !ok {
				s.log.Warn("response to an unknown op id", "op_id", op)
				continue
			}
			f(resp, nil)
		}
	}()
}

// disconnected is the error every pending and later request gets once the stream
// has ended, as in jaxlib: UNAVAILABLE, whatever the stream's status was.
func disconnected(cause error) error {
	if errors.Is(cause, io.EOF) {
		cause = errors.New("the server ended the session")
	}
	return &ifrt.Error{
		Code: ifrt.Unavailable,
		Msg:  "proxy: connection to IFRT proxy server was terminated: " + cause.Error(),
		Err:  cause,
	}
}

// end marks the session as ended with err (unless it already was), fails every
// pending request and returns the error the session ended with.
func (s *session) end(err error) error {
	s.mu.Lock()
	if s.err != nil {
		err = s.err
		s.mu.Unlock()
		return err
	}
	s.err = err
	pending := s.pending
	s.pending = map[uint64]responseFunc{}
	close(s.done)
	s.mu.Unlock()
	for _, f := range pending {
		f(nil, err)
	}
	return err
}

// close ends the session from the client side: the stream is cancelled, which
// makes the server free everything the session holds.
func (s *session) close() {
	_ = s.end(ifrt.ErrClientClosed) // an earlier end's error is no news to the closer
	s.cancel()
	<-s.recvDone
}

// Err returns why the session ended, or nil while it is alive.
func (s *session) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// lastOpID returns the op id of the last request sent, 0 before the first.
func (s *session) lastOpID() uint64 {
	s.sendMu.Lock()
	defer s.sendMu.Unlock()
	return s.nextOp - 1
}

// send sends one request and registers f for its response. Handles waiting for a
// batched DestructArrayRequest go out first.
func (s *session) send(req *proxypb.IfrtRequest, f responseFunc) error {
	s.sendMu.Lock()
	defer s.sendMu.Unlock()
	if err := s.flushDestructsLocked(); err != nil {
		return err
	}
	return s.sendLocked(req, f)
}

func (s *session) sendLocked(req *proxypb.IfrtRequest, f responseFunc) error {
	op := s.nextOp
	s.mu.Lock()
	if s.err != nil {
		err := s.err
		s.mu.Unlock()
		return err
	}
	s.pending[op] = f
	s.mu.Unlock()
	s.nextOp++
	if req.RequestMetadata == nil {
		req.RequestMetadata = &proxypb.RequestMetadata{}
	}
	req.RequestMetadata.OpId = op
	if err := s.stream.Send(req); err != nil {
		// The receive loop sees the stream's real status and fails f with it.
		if !errors.Is(err, io.EOF) {
			_ = s.end(disconnected(err)) // f fails with whichever error ended the session
		}
		<-s.done
		return s.Err()
	}
	return nil
}

// call sends req and waits for its response. A response with an error status
// becomes that error (with its code); a response without a typed field is
// Internal. If ctx ends first, call returns ctx's error and the response, when it
// comes, is dropped.
func (s *session) call(ctx context.Context, req *proxypb.IfrtRequest) (*proxypb.IfrtResponse, error) {
	return s.callOrLate(ctx, req, nil)
}

// callOrLate is call, except that a successful response that comes after ctx
// ended goes to late (on the receive goroutine, so late must not block), which
// can free what the server made for a caller that is gone.
func (s *session) callOrLate(ctx context.Context, req *proxypb.IfrtRequest, late func(*proxypb.IfrtResponse)) (_ *proxypb.IfrtResponse, err error) {
	ctx, span := startRequestSpan(ctx, req)
	defer func() { rpc.EndSpan(span, err) }()
	type result struct {
		resp *proxypb.IfrtResponse
		err  error
	}
	var (
		mu        sync.Mutex
		abandoned bool
	)
	ch := make(chan result, 1)
	err = s.send(req, func(resp *proxypb.IfrtResponse, err error) {
		mu.Lock()
		gone := abandoned
		if !gone {
			ch <- result{resp, err}
		}
		mu.Unlock()
		if gone && late != nil && err == nil && responseError(resp) == nil {
			late(resp)
		}
	})
	if err != nil {
		return nil, err
	}
	var r result
	select {
	case r = <-ch:
	case <-ctx.Done():
		mu.Lock()
		select {
		case r = <-ch: // it came just now
		default:
			abandoned = true
		}
		mu.Unlock()
		if abandoned {
			return nil, ctx.Err()
		}
	}
	if r.err != nil {
		return nil, r.err
	}
	return r.resp, responseError(r.resp)
}

// future sends req and returns a future resolved with the response's error.
// The request carries ctx's trace context and baggage as a waited call's
// does: a worker keys per-session state (the sidecar's objects) and its logs
// by the JAX session the baggage names. The span covers the send only;
// waiting for its end would take a goroutine per request.
func (s *session) future(ctx context.Context, req *proxypb.IfrtRequest) *ifrt.Future {
	_, span := startRequestSpan(ctx, req)
	defer span.End()
	f, resolve := ifrt.NewFuture()
	err := s.send(req, func(resp *proxypb.IfrtResponse, err error) {
		if err == nil {
			err = responseError(resp)
		}
		resolve(err)
	})
	if err != nil {
		resolve(err)
	}
	return f
}

// responseError returns the error a response carries: its status if that is not
// OK, Internal if it has no typed field.
func responseError(resp *proxypb.IfrtResponse) error {
	if st := resp.GetResponseMetadata().GetStatus(); st.GetCode() != proxypb.Code_OK {
		return wire.StatusToError(st)
	}
	if resp.Response == nil {
		return ifrt.Errorf(ifrt.Internal, "proxy: the server's response to op %d has no content", resp.GetResponseMetadata().GetOpId())
	}
	return nil
}

// typed returns x, or an Internal error when the response held another kind of
// message than the request asked for (x is then nil).
func typed[T any](x *T, what string) (*T, error) {
	if x == nil {
		return nil, ifrt.Errorf(ifrt.Internal, "proxy: the server answered a %s with another kind of response", what)
	}
	return x, nil
}

// destruct queues a DestructArrayRequest for handle. Handles are sent in batches:
// with the next request, or after destructBatchDelay. It never blocks, so it is
// safe to call from a cleanup function.
func (s *session) destruct(handle uint64) {
	s.dmu.Lock()
	s.destructs = append(s.destructs, handle)
	arm := !s.flushArmed
	s.flushArmed = true
	delay := s.batchDelay
	s.dmu.Unlock()
	if arm {
		time.AfterFunc(delay, func() {
			s.sendMu.Lock()
			defer s.sendMu.Unlock()
			_ = s.flushDestructsLocked()
		})
	}
}

// takeDestructs removes the queued destruct handles and returns them with the
// op id of the last request sent (see Client.TakeDestructs).
func (s *session) takeDestructs() ([]uint64, uint64) {
	s.sendMu.Lock()
	defer s.sendMu.Unlock()
	s.dmu.Lock()
	defer s.dmu.Unlock()
	handles := s.destructs
	s.destructs = nil
	return handles, s.nextOp - 1
}

// flushDestructsLocked sends the queued destruct handles, if any, as one request.
// The caller holds sendMu.
func (s *session) flushDestructsLocked() error {
	s.dmu.Lock()
	handles := s.destructs
	s.destructs = nil
	s.flushArmed = false
	s.dmu.Unlock()
	if len(handles) == 0 {
		return nil
	}
	req := &proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_DestructArrayRequest{
		DestructArrayRequest: &proxypb.DestructArrayRequest{ArrayHandle: handles},
	}}
	return s.sendLocked(req, func(resp *proxypb.IfrtResponse, err error) {
		if err == nil {
			err = responseError(resp)
		}
		if err != nil && s.Err() == nil {
			s.log.Debug("destructing arrays failed", "handles", len(handles), "error", err)
		}
	})
}
