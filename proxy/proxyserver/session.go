package proxyserver

import (
	"context"
	"crypto/rand"
	"errors"
	"io"
	"log/slog"
	"runtime/debug"
	"slices"
	"strconv"
	"sync"
	"time"

	"go.opentelemetry.io/otel/trace"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/proto"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/ifrt/backend"
	"github.com/openpathways/pathways/internal/logging"
	"github.com/openpathways/pathways/internal/rpc"
	"github.com/openpathways/pathways/proxy/internal/wire"
	"github.com/openpathways/pathways/proxy/proxypb"
)

// session is one IfrtSession stream and everything it holds. Its handles,
// arrays, executables and host buffers are its own: requests on the stream can
// name only them, and host-buffer calls reach them only with the session's
// token or from the session's client host (see Server.ownedSession).
//
// Requests are planned one at a time, in arrival order, on the stream's
// goroutine: planning decodes the request, looks up the handles it uses and
// registers the handles it creates (as pending entries), without blocking.
// The work then runs on a goroutine of its own (one the session's runner keeps
// warm), waits for the entries it uses, and resolves the entries it created;
// its response goes out when it is done, in whatever order. So a handle
// created by request N is visible to request N+1 even while N's work is
// pending, and a request that deletes an array waits for the requests before
// it that use the array.
type session struct {
	srv        *Server
	backend    ifrt.Client // the server's, or the session's own (Config.SessionBackend)
	id         uint64
	token      string // see wire.SessionTokenMetadataKey
	clientHost string // where the stream comes from (clientHost)
	version    *proxypb.IfrtProxyVersion
	log        *slog.Logger
	stream     proxypb.GrpcIfrtService_IfrtSessionServer
	buffers    *hostBuffers

	// The session's limits (Config.Limits).
	hostBytes *budget       // host-buffer bytes
	liveBytes *budget       // bytes of the arrays it holds
	uploads   chan struct{} // one token per HostBufferStore call open; nil: no limit
	inflight  chan struct{} // one token per request in progress; nil: no limit

	failure   error // why the backend failed; set and read on the stream's goroutine
	closeOnce sync.Once
	keys      sessionKeys // the backend's session keys its requests used (sessionkey.go)

	ctx      context.Context
	cancel   context.CancelFunc
	finished chan struct{} // closed when the session has freed everything
	work     sync.WaitGroup
	runner   *runner // runs the requests' work (runner.go)
	sendMu   sync.Mutex
	planned  plannedOps // how far the requests are planned (planned.go)

	mu         sync.Mutex
	arrays     map[uint64]*entry[ifrt.Array]
	exes       map[uint64]*entry[*executable]
	futures    map[uint64]*ifrt.Future
	nextHandle uint64
	live       map[ifrt.Array]int // arrays this session produced, by reference count
	liveExes   map[*executable]struct{}
}

func newSession(srv *Server, id uint64, stream proxypb.GrpcIfrtService_IfrtSessionServer, v *proxypb.IfrtProxyVersion, clientHost string) *session {
	ctx, cancel := context.WithCancel(stream.Context())
	lim := srv.cfg.Limits
	var inflight, uploads chan struct{}
	if lim.MaxInflightRequests != NoLimit {
		inflight = make(chan struct{}, lim.MaxInflightRequests)
	}
	if lim.MaxInflightUploads != NoLimit {
		uploads = make(chan struct{}, lim.MaxInflightUploads)
	}
	return &session{
		srv: srv, backend: srv.backend, id: id, version: v, stream: stream,
		token:      rand.Text(),
		clientHost: clientHost,
		log:        srv.log.With(logging.SessionKey, strconv.FormatUint(id, 10)),
		buffers:    newHostBuffers(srv.act),
		hostBytes:  newBudget("max_session_host_buffer_bytes", "bytes of host buffers of the session", lim.MaxSessionHostBufferBytes),
		liveBytes:  newBudget("max_session_live_bytes", "bytes of arrays of the session", lim.MaxSessionLiveBytes),
		uploads:    uploads,
		inflight:   inflight,
		ctx:        ctx,
		cancel:     cancel,
		finished:   make(chan struct{}),
		runner:     newRunner(),
		arrays:     map[uint64]*entry[ifrt.Array]{},
		exes:       map[uint64]*entry[*executable]{},
		futures:    map[uint64]*ifrt.Future{},
		nextHandle: wire.ServerHandleMin,
		live:       map[ifrt.Array]int{},
		liveExes:   map[*executable]struct{}{},
	}
}

// run reads requests until the stream ends, then frees everything.
func (s *session) run() error {
	failed, err := s.openBackend()
	if err != nil {
		s.srv.endSession(s)
		close(s.finished)
		s.log.Warn("ifrt proxy session could not start", "error", err)
		return rpc.ToStatus(err)
	}
	liveSessions.Store(s, struct{}{})
	defer liveSessions.Delete(s)
	s.log.Info("ifrt proxy session started", "protocol_version", s.version.GetProtocolVersion(), "serdes_version", s.version.GetIfrtSerdesVersionNumber(), "client", s.clientHost)
	if s.srv.cfg.ClusterClientsOnly && !rpc.FromClusterClient(s.stream.Context()) {
		s.log.Warn("a client other than the Pathways cluster client opened a session on this worker: it bypasses the resource manager and the proxy server and sees only this worker's devices; point JAX at the proxy server instead",
			"peer", peerAddress(s.stream.Context()))
	}
	defer s.teardown(time.Now())
	if err := s.stream.SendHeader(metadata.Pairs(wire.SessionTokenMetadataKey, s.token)); err != nil {
		return err
	}
	// Requests are read on their own goroutine so that closing the server ends
	// the session even when the stream's transport is the caller's (Register).
	reqs := make(chan *proxypb.IfrtRequest)
	var recvErr error // why reading stopped; read after reqs is closed
	go func() {
		defer close(reqs)
		for {
			req, err := s.stream.Recv()
			if err != nil {
				recvErr = err
				return
			}
			select {
			case reqs <- req:
			case <-s.ctx.Done():
				return
			}
		}
	}()
	for {
		select {
		case req, ok := <-reqs:
			if !ok {
				if errors.Is(recvErr, io.EOF) || s.stream.Context().Err() != nil {
					return nil
				}
				return recvErr // a request that did not decode: INVALID_ARGUMENT
			}
			if s.inflight != nil {
				select {
				case s.inflight <- struct{}{}:
				case <-s.ctx.Done():
					continue
				}
			}
			s.dispatch(req)
		case <-failed:
			failed = nil
			s.backendFailed(s.backend.(failingBackend).Err())
		case <-s.ctx.Done():
			if s.stream.Context().Err() != nil {
				return nil
			}
			return rpc.ToStatus(ifrt.Errorf(ifrt.Unavailable, "the IFRT proxy server is closing"))
		}
	}
}

// backendFailed ends the session's work after its backend failed as a whole:
// every later request gets err, which says why (the session's client keeps
// its stream until it goes, as jaxlib reports a closed stream only as
// CANCELLED), and the backend is closed once the requests in flight are done,
// so that what the session held is freed.
func (s *session) backendFailed(err error) {
	s.log.Warn("ifrt proxy session failed with its backend; its requests fail from now on", "error", err)
	s.failure = err
	go func() {
		s.work.Wait()
		s.closeBackend()
	}()
}

// closeBackend closes the session's own backend, once.
func (s *session) closeBackend() {
	if s.srv.cfg.SessionBackend == nil {
		return
	}
	s.closeOnce.Do(func() {
		if err := s.backend.Close(); err != nil {
			s.log.Warn("closing the session's backend", "error", err)
		}
	})
}

// failingBackend is a backend that can fail as a whole (see Config.SessionBackend).
type failingBackend interface {
	Failed() <-chan struct{}
	Err() error
}

// openBackend opens the session's own backend when the server makes one per
// session, and returns a channel closed if that backend fails (nil if it cannot).
func (s *session) openBackend() (<-chan struct{}, error) {
	if s.srv.cfg.SessionBackend == nil {
		return nil, nil
	}
	b, err := s.srv.cfg.SessionBackend(s.ctx, s.log)
	if err != nil {
		return nil, err
	}
	s.backend = b
	if f, ok := b.(failingBackend); ok {
		return f.Failed(), nil
	}
	return nil, nil
}

// teardown cancels pending work, waits for it, and frees every array,
// executable and host buffer of the session.
func (s *session) teardown(start time.Time) {
	s.cancel()
	s.work.Wait()
	s.runner.stop()
	s.buffers.close()
	s.mu.Lock()
	arrays, exes := s.live, s.liveExes
	s.live, s.liveExes = map[ifrt.Array]int{}, map[*executable]struct{}{}
	s.arrays, s.exes, s.futures = map[uint64]*entry[ifrt.Array]{}, map[uint64]*entry[*executable]{}, map[uint64]*ifrt.Future{}
	s.mu.Unlock()
	for a := range arrays {
		a.Delete()
		s.liveBytes.release(arrayBytes(a))
	}
	for e := range exes {
		e.release()
	}
	s.endBackendSessions()
	s.closeBackend()
	s.log.Info("ifrt proxy session ended", "duration", time.Since(start), "freed_arrays", len(arrays), "freed_executables", len(exes))
	s.srv.endSession(s)
	close(s.finished)
}

// op is one request in flight.
type op struct {
	id      uint64
	kind    string
	results []*entry[ifrt.Array] // array handles the request creates
	uses    []chan struct{}      // closed when the request is done with what it uses
	after   []chan struct{}      // earlier requests this one must wait for
	gated   bool                 // admitted by the server's pause gate (suspend.go)

	// Telemetry (telemetry.go).
	start      time.Time
	span       trace.Span
	jaxSession string // the JAX session the request serves, on a worker
}

// waitFor records that o runs after the request that closes c.
func (o *op) waitFor(cs ...chan struct{}) {
	for _, c := range cs {
		if c != nil && !slices.Contains(o.uses, c) {
			o.after = append(o.after, c)
		}
	}
}

// use marks e as used by o until o finishes. Callers hold the session's mu.
//
// Uses are ordered as readers and writers: a request that consumes e (deletes
// it, or may donate it) waits for every earlier use, and every later use
// waits for it; requests that only read e run concurrently.
func use[T any](o *op, e *entry[T], consume bool) {
	o.waitFor(e.lastWriter)
	u := make(chan struct{})
	if consume {
		o.waitFor(priorUses(e)...)
		e.lastWriter = u
	}
	e.uses = append(e.uses, u)
	o.uses = append(o.uses, u)
}

// awaitOrder waits for the earlier requests o must follow.
func (o *op) awaitOrder(ctx context.Context) error { return waitAll(ctx, o.after) }

// plan is the planning step of a request: it returns either a response (the
// request is done), or work to run asynchronously, or an error.
type runFunc func(ctx context.Context) (*proxypb.IfrtResponse, error)

func (s *session) dispatch(req *proxypb.IfrtRequest) {
	s.srv.act.add()
	o := &op{id: req.GetRequestMetadata().GetOpId(), kind: wire.RequestKind(req)}
	// Planning registers the request's handles (or fails it); peers waiting
	// for this op id need only that, not its run, which may start first.
	defer s.planned.advance(o.id)
	ctx := s.startRequest(o, req)
	if s.failure != nil {
		s.finish(o, nil, s.failure)
		return
	}
	var err error
	if o.gated, err = s.srv.gate.enter(o.kind); err != nil {
		s.finish(o, nil, err)
		return
	}
	var (
		resp *proxypb.IfrtResponse
		run  runFunc
	)
	func() {
		defer func() {
			if r := recover(); r != nil {
				err = s.panicked(o, r)
			}
		}()
		resp, run, err = s.plan(o, req)
	}()
	if err != nil || run == nil {
		s.finish(o, resp, err)
		return
	}
	s.work.Add(1)
	s.runner.run(func() {
		defer s.work.Done()
		var resp *proxypb.IfrtResponse
		var err error
		func() {
			defer func() {
				if r := recover(); r != nil {
					err = s.panicked(o, r)
				}
			}()
			resp, err = run(ctx)
		}()
		s.finish(o, resp, err)
	})
}

func (s *session) panicked(o *op, r any) error {
	s.log.Error("ifrt proxy request panicked", "op_id", o.id, "kind", o.kind, "panic", r, "stack", string(debug.Stack()))
	return ifrt.Errorf(ifrt.Internal, "proxyserver: %s request %d failed: internal error: %v", o.kind, o.id, r)
}

// finish records err under every array handle the request created and did not
// resolve, releases what the request used, and sends its response.
func (s *session) finish(o *op, resp *proxypb.IfrtResponse, err error) {
	for _, e := range o.results {
		if err != nil {
			e.Resolve(nil, err)
		} else {
			e.Resolve(nil, ifrt.Errorf(ifrt.Internal, "proxyserver: %s request %d did not produce this array", o.kind, o.id))
		}
	}
	for _, u := range o.uses {
		close(u)
	}
	s.endRequest(o, err)
	if err != nil {
		resp = &proxypb.IfrtResponse{}
	}
	if resp == nil {
		resp = &proxypb.IfrtResponse{}
	}
	resp.ResponseMetadata = &proxypb.ResponseMetadata{OpId: o.id, Status: wire.ErrorToStatus(err)}
	if _, merr := proto.Marshal(resp); merr != nil {
		// grpc-go ends the whole stream when a message does not marshal (a
		// string that is not UTF-8, say); this request fails instead.
		s.log.Warn("ifrt proxy response cannot be encoded", "op_id", o.id, "kind", o.kind, "error", merr)
		resp = &proxypb.IfrtResponse{ResponseMetadata: &proxypb.ResponseMetadata{OpId: o.id, Status: wire.ErrorToStatus(
			ifrt.Errorf(ifrt.Internal, "proxyserver: the response to %s request %d cannot be encoded: %v", o.kind, o.id, merr))}}
	}
	s.sendMu.Lock()
	serr := s.stream.Send(resp)
	s.sendMu.Unlock()
	if serr != nil {
		s.log.Debug("ifrt proxy response not sent", "op_id", o.id, "error", serr)
	}
	if s.inflight != nil {
		<-s.inflight
	}
	if o.gated {
		s.srv.gate.leave()
	}
	s.srv.act.done()
}

// Handles.

// checkClientHandle validates a handle the client chose.
func checkClientHandle(h uint64) error {
	if h == 0 || h >= wire.ServerHandleMin {
		return ifrt.Errorf(ifrt.InvalidArgument, "handle %d is not a client handle: want [1, 2^48)", h)
	}
	return nil
}

// mint returns a fresh server handle. Callers hold s.mu.
func (s *session) mint() uint64 {
	h := s.nextHandle
	s.nextHandle++
	return h
}

// reserveArrays registers pending entries under the client handles hs, or under
// n fresh server handles if hs is empty, and returns the handles.
func (s *session) reserveArrays(o *op, hs []uint64, n int) ([]uint64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case len(hs) == 0:
		hs = make([]uint64, max(n, 0))
		for i := range hs {
			hs[i] = s.mint()
		}
	case n >= 0 && len(hs) != n:
		return nil, ifrt.Errorf(ifrt.InvalidArgument, "%d result handles for %d results", len(hs), n)
	default:
		for _, h := range hs {
			if err := checkClientHandle(h); err != nil {
				return nil, err
			}
		}
	}
	seen := make(map[uint64]bool, len(hs))
	for _, h := range hs {
		if _, dup := s.arrays[h]; dup || seen[h] {
			return nil, ifrt.Errorf(ifrt.AlreadyExists, "array handle %d is already in use", h)
		}
		seen[h] = true
	}
	for _, h := range hs {
		e := newEntry[ifrt.Array]()
		s.arrays[h] = e
		o.results = append(o.results, e)
	}
	return hs, nil
}

// useArrays looks up the arrays hs and marks them used by o until o
// finishes; consume(i), if not nil, says whether o may consume the i-th.
func (s *session) useArrays(o *op, hs []uint64, consume func(i int) bool) ([]*entry[ifrt.Array], error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]*entry[ifrt.Array], len(hs))
	for i, h := range hs {
		e, ok := s.arrays[h]
		if !ok {
			return nil, ifrt.Errorf(ifrt.NotFound, "Unknown array handle: %d", h)
		}
		out[i] = e
	}
	for i, e := range out {
		use(o, e, consume != nil && consume(i))
	}
	return out, nil
}

// consumeAll is the consume argument of useArrays for requests that donate
// all their inputs.
func consumeIf(donate bool) func(int) bool {
	if !donate {
		return nil
	}
	return func(int) bool { return true }
}

// priorUses returns the uses of e registered so far. Callers hold s.mu.
func priorUses[T any](e *entry[T]) []chan struct{} {
	live := e.uses[:0]
	for _, u := range e.uses {
		select {
		case <-u:
		default:
			live = append(live, u)
		}
	}
	e.uses = live
	return append([]chan struct{}(nil), live...)
}

func waitAll(ctx context.Context, chans []chan struct{}) error {
	for _, c := range chans {
		select {
		case <-c:
		case <-ctx.Done():
			return ifrt.Errorf(ifrt.Canceled, "the session has ended")
		}
	}
	return nil
}

// awaitArrays waits for the requests o must follow, then for the entries, and
// returns their arrays.
func awaitArrays(ctx context.Context, o *op, es []*entry[ifrt.Array]) ([]ifrt.Array, error) {
	if err := o.awaitOrder(ctx); err != nil {
		return nil, err
	}
	out := make([]ifrt.Array, len(es))
	for i, e := range es {
		a, err := e.wait(ctx)
		if err != nil {
			return nil, err
		}
		// An array that stands for a failure (MakeErrorArrays, failed outputs)
		// fails whatever uses it, with its own error.
		if failure, ok := ifrt.ArrayError(a); ok {
			return nil, failure
		}
		out[i] = a
	}
	return out, nil
}

// onArrays plans a request that reads the arrays hs, consuming those consume
// says (nil: none): run gets them once the requests before it that use them are
// done, and makes the response.
func (s *session) onArrays(o *op, hs []uint64, consume func(i int) bool, run func(ctx context.Context, in []ifrt.Array) (*proxypb.IfrtResponse, error)) (*proxypb.IfrtResponse, runFunc, error) {
	es, err := s.useArrays(o, hs, consume)
	if err != nil {
		return nil, nil, err
	}
	return nil, func(ctx context.Context) (*proxypb.IfrtResponse, error) {
		in, err := awaitArrays(ctx, o, es)
		if err != nil {
			return nil, err
		}
		return run(ctx, in)
	}, nil
}

// wanted is the handles a request names for its one result: none when h
// is 0 (the server picks it).
func wanted(h uint64) []uint64 {
	if h == 0 {
		return nil
	}
	return []uint64{h}
}

// produced resolves o's reserved entries with arrays, which the session now
// holds. If the counts differ, the arrays are deleted and an error returned.
func (s *session) produced(o *op, arrays []ifrt.Array) error {
	if len(arrays) != len(o.results) {
		for _, a := range arrays {
			a.Delete()
		}
		return ifrt.Errorf(ifrt.Internal, "%s produced %d arrays for %d result handles", o.kind, len(arrays), len(o.results))
	}
	s.hold(arrays...)
	for i, e := range o.results {
		e.Resolve(arrays[i], nil)
	}
	o.results = nil
	return nil
}

// hold counts arrays as held by the session, and their bytes against its
// max_session_live_bytes limit (after the fact: they exist already).
func (s *session) hold(arrays ...ifrt.Array) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.holdLocked(arrays...)
}

func (s *session) holdLocked(arrays ...ifrt.Array) {
	for _, a := range arrays {
		if a == nil {
			continue
		}
		if s.live[a] == 0 {
			s.liveBytes.add(arrayBytes(a))
		}
		s.live[a]++
	}
}

// drop releases one reference to a; the last one deletes it.
func (s *session) drop(a ifrt.Array) {
	s.mu.Lock()
	n, ok := s.live[a]
	if ok && n > 1 {
		s.live[a] = n - 1
		s.mu.Unlock()
		return
	}
	delete(s.live, a)
	s.mu.Unlock()
	if ok {
		backend.Release(a) // nobody waits for a dropped array's deletion
		s.liveBytes.release(arrayBytes(a))
		memoryReturn.released(arrayBytes(a))
	}
}

// forget stops holding a, whatever its references (it was deleted).
func (s *session) forget(a ifrt.Array) {
	s.mu.Lock()
	_, ok := s.live[a]
	delete(s.live, a)
	s.mu.Unlock()
	if ok {
		s.liveBytes.release(arrayBytes(a))
		memoryReturn.released(arrayBytes(a))
	}
}

// checkLive fails with RESOURCE_EXHAUSTED when n more bytes of arrays would pass
// the session's max_session_live_bytes limit. It reserves nothing: the arrays
// are counted by hold once they exist.
func (s *session) checkLive(n int64) error {
	if err := s.liveBytes.reserve(n); err != nil {
		return err
	}
	s.liveBytes.release(n)
	return nil
}

// arrayBytes is the dense size of a (0 for arrays without a size, such as
// tokens).
func arrayBytes(a ifrt.Array) int64 {
	n, err := a.Shape().ByteSize(a.DType())
	if err != nil {
		return 0
	}
	return n
}

// registerFuture registers f under a fresh server handle, or under h if it is
// a valid client handle, and returns the handle.
func (s *session) registerFuture(h uint64, f *ifrt.Future) (uint64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if h == 0 {
		h = s.mint()
	} else if err := checkClientHandle(h); err != nil {
		return 0, err
	}
	if _, dup := s.futures[h]; dup {
		return 0, ifrt.Errorf(ifrt.AlreadyExists, "future handle %d is already in use", h)
	}
	s.futures[h] = f
	return h, nil
}

// takeFuture removes and returns the future h.
func (s *session) takeFuture(h uint64) (*ifrt.Future, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f, ok := s.futures[h]
	if !ok {
		return nil, ifrt.Errorf(ifrt.NotFound, "Unknown future handle: %d", h)
	}
	delete(s.futures, h)
	return f, nil
}

// lookup resolves device ids against the backend.
func (s *session) lookup(id ifrt.DeviceID) (*ifrt.Device, error) {
	return s.backend.LookupDevice(id)
}

// entry is a handle's value, possibly still being computed.
type entry[T any] struct {
	*backend.Future[T]

	// Guarded by the session's mu.
	uses       []chan struct{} // requests using the entry, closed as each finishes
	lastWriter chan struct{}   // the latest request that may consume the entry
}

// pendingUses returns what a request that drops e must wait for. Callers hold
// the session's mu.
func pendingUses[T any](e *entry[T]) []chan struct{} {
	out := priorUses(e)
	if e.lastWriter != nil {
		out = append(out, e.lastWriter)
	}
	return out
}

func newEntry[T any]() *entry[T] { return &entry[T]{Future: backend.NewFuture[T]()} }

// wait waits for the entry's value; ctx is the session's or its request's.
func (e *entry[T]) wait(ctx context.Context) (T, error) {
	v, err := e.Await(ctx)
	if err != nil && err == ctx.Err() {
		return v, ifrt.Errorf(ifrt.Canceled, "the session has ended")
	}
	return v, err
}
