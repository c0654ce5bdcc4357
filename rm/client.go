package rm

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"iter"
	"log/slog"
	mrand "math/rand/v2"
	"strings"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/internal/logging"
	"github.com/openpathways/pathways/internal/rpc"
	"github.com/openpathways/pathways/rm/rmpb"
)

// Option configures a Client.
type Option interface{ apply(*options) }

type options struct {
	logger     *slog.Logger
	dialOpts   []grpc.DialOption
	security   Security
	keepalive  rpc.Keepalive
	minBackoff time.Duration
	maxBackoff time.Duration
}

func defaultOptions() options {
	return options{minBackoff: 50 * time.Millisecond, maxBackoff: 5 * time.Second}
}

type optionFunc func(*options)

func (f optionFunc) apply(o *options) { f(o) }

// WithLogger sets the client's logger; the default is slog.Default().
func WithLogger(l *slog.Logger) Option { return optionFunc(func(o *options) { o.logger = l }) }

// WithDialOptions adds gRPC dial options, applied after the defaults
// (WithSecurity's credentials, keepalive, reconnect backoff), so they can
// replace them: grpc.WithContextDialer for in-memory connections, say.
func WithDialOptions(opts ...grpc.DialOption) Option {
	return optionFunc(func(o *options) { o.dialOpts = append(o.dialOpts, opts...) })
}

// WithSecurity sets the cluster's credentials (see Security), which the RM
// requires when it was started with them. Default none: plaintext.
func WithSecurity(sec Security) Option { return optionFunc(func(o *options) { o.security = sec }) }

// WithKeepalive sets how often the client pings the RM and how long an answer
// may take before the connection is dropped (and calls retried). Defaults 10s
// and 5s; grpc-go pings no more often than every 10s.
func WithKeepalive(interval, timeout time.Duration) Option {
	return optionFunc(func(o *options) { o.keepalive = rpc.Keepalive{Interval: interval, Timeout: timeout} })
}

// WithBackoff sets the delays between attempts to register or watch again:
// starting at min, doubling up to max, with jitter. The defaults are 50ms and
// 5s. Non-positive values keep the default.
func WithBackoff(min, max time.Duration) Option {
	return optionFunc(func(o *options) {
		if min > 0 {
			o.minBackoff = min
		}
		if max > 0 {
			o.maxBackoff = max
		}
		if o.maxBackoff < o.minBackoff {
			o.maxBackoff = o.minBackoff
		}
	})
}

// Client talks to a resource manager: workers register through it, the
// Pathways client watches the cluster through it. Its methods are safe for
// concurrent use.
type Client struct {
	target string
	conn   *grpc.ClientConn
	rpc    rmpb.ResourceManagerClient
	opts   options
	log    *slog.Logger

	mu     sync.Mutex
	regs   map[*Registration]struct{}
	closed bool
}

// NewClient returns a client of the resource manager at target: "host:port",
// "grpc://host:port", or any gRPC target. Like grpc.NewClient it does not
// connect; the first call does, and calls retry while the RM is unreachable
// as each method documents.
func NewClient(target string, opts ...Option) (*Client, error) {
	o := defaultOptions()
	for _, opt := range opts {
		opt.apply(&o)
	}
	if o.logger == nil {
		o.logger = slog.Default()
	}
	target = strings.TrimPrefix(target, "grpc://")
	dial := append(rpc.DialOptions(o.security, o.keepalive),
		// The backoff spaces reconnects; MinConnectTimeout is what one
		// attempt may take (without it grpc-go gives the first attempt only
		// the first backoff delay, 50 ms by default: too short for a TLS
		// handshake across regions or a loaded machine).
		grpc.WithConnectParams(grpc.ConnectParams{Backoff: backoff.Config{
			BaseDelay: o.minBackoff, Multiplier: 1.6, Jitter: 0.2, MaxDelay: o.maxBackoff,
		}, MinConnectTimeout: 20 * time.Second}),
	)
	conn, err := grpc.NewClient(target, append(dial, o.dialOpts...)...)
	if err != nil {
		return nil, ifrt.Errorf(ifrt.InvalidArgument, "rm: client for %q: %w", target, err)
	}
	return &Client{
		target: target,
		conn:   conn,
		rpc:    rmpb.NewResourceManagerClient(conn),
		opts:   o,
		log:    logging.Component(o.logger, "rm-client"),
		regs:   make(map[*Registration]struct{}),
	}, nil
}

// Close ends every registration made through c (their workers leave the
// cluster) and closes the connection. It is idempotent.
func (c *Client) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	regs := make([]*Registration, 0, len(c.regs))
	for r := range c.regs {
		regs = append(regs, r)
	}
	c.mu.Unlock()
	for _, r := range regs {
		r.Close()
	}
	return c.conn.Close()
}

func (c *Client) isClosed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.closed
}

func errClientClosed() error { return ifrt.Errorf(ifrt.FailedPrecondition, "rm: client is closed") }

// Cluster returns the resource manager's current view. It does not retry.
func (c *Client) Cluster(ctx context.Context) (*Cluster, error) {
	resp, err := c.rpc.GetCluster(ctx, &rmpb.GetClusterRequest{})
	if err != nil {
		return nil, rpc.CallError(ctx, "rm: ", err)
	}
	return clusterFromPB(resp.GetCluster()), nil
}

// Watch returns the cluster's events: first an EventSnapshot with the whole
// view, then the changes. When the stream breaks (the RM restarted or is
// unreachable, or this watcher fell behind) Watch yields the error, connects
// again with backoff and delivers a fresh EventSnapshot, which replaces the
// view. The sequence ends when the loop stops, when ctx is done (yielding
// ctx's error), when the client closes, or after a permanent error such as an
// address that is not a resource manager's (yielded last). While the RM cannot
// be reached, the client logs a warning with its address and the last error
// every few seconds.
func (c *Client) Watch(ctx context.Context) iter.Seq2[Event, error] {
	return func(yield func(Event, error) bool) {
		b := c.newBackoff()
		failing := retryLog{lost: "lost the resource manager; watching again until it is back", back: "the resource manager is back"}
		for {
			err := c.watchOnce(ctx, yield, b, &failing)
			if err == errStopped {
				return
			}
			if ctx.Err() != nil {
				yield(Event{}, context.Cause(ctx))
				return
			}
			if c.isClosed() {
				yield(Event{}, errClientClosed())
				return
			}
			if permanent(err) {
				yield(Event{}, c.notAnRM(err))
				return
			}
			failing.failed(c.log, c.target, err)
			if !yield(Event{}, err) {
				return
			}
			if !sleep(ctx, b.next()) {
				yield(Event{}, context.Cause(ctx))
				return
			}
		}
	}
}

// notAnRM says what an Unimplemented answer most likely means.
func (c *Client) notAnRM(err error) error {
	if ifrt.CodeOf(err) != ifrt.Unimplemented {
		return err
	}
	return ifrt.Errorf(ifrt.Unimplemented, "rm: %s does not serve the resource manager's API (is it a worker's or a proxy server's address?): %w", c.target, err)
}

var errStopped = errors.New("rm: consumer stopped")

func (c *Client) watchOnce(ctx context.Context, yield func(Event, error) bool, b *backoffState, failing *retryLog) error {
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stream, err := c.rpc.Watch(wctx, &rmpb.WatchRequest{})
	if err != nil {
		return rpc.CallError(ctx, "rm: ", err)
	}
	for {
		ev, err := stream.Recv()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return ifrt.Errorf(ifrt.Unavailable, "rm: watch stream ended")
			}
			return rpc.CallError(ctx, "rm: ", err)
		}
		b.reset()
		failing.succeeded(c.log, c.target)
		if !yield(eventFromPB(ev), nil) {
			return errStopped
		}
	}
}

// Assignment is what the resource manager gave a registered worker.
type Assignment struct {
	Slice, Host int
	// DeviceIDs are the global ids of the worker's devices, in local order.
	// They are the same for every registration of the same slice and host.
	DeviceIDs         []ifrt.DeviceID
	Epoch             uint64
	RMIncarnation     string
	HeartbeatInterval time.Duration
	HeartbeatTimeout  time.Duration
}

// Registration keeps one worker registered: it heartbeats, and registers again
// (same slice, host and incarnation, hence the same device ids) whenever the
// registration is lost, for example because the resource manager restarted.
// Its methods are safe for concurrent use.
type Registration struct {
	c      *Client
	cancel context.CancelFunc
	done   chan struct{}

	mu      sync.Mutex
	info    WorkerInfo // Host is pinned after the first registration
	cur     Assignment
	lease   uint64 // of cur
	changed chan struct{}
	err     error
}

// RegisterAndHeartbeat registers a worker and keeps it registered until ctx
// is done or the Registration (or the Client) is closed; ctx bounds the whole
// life of the registration, not only the first call.
//
// It returns once the first registration succeeded. Until then it retries
// errors that can pass (UNAVAILABLE while the RM is unreachable,
// ALREADY_EXISTS while the previous run of this worker is still considered
// live, RESOURCE_EXHAUSTED while the slice is full), logging each at Warn;
// it returns at once on errors that cannot (INVALID_ARGUMENT, OUT_OF_RANGE,
// FAILED_PRECONDITION for a topology mismatch). If ctx ends first, the error
// wraps both ctx's error and the last attempt's.
//
// An empty info.Incarnation is replaced by a random one. With info.Host ==
// AnyHost the RM picks a host, which is then kept for every later
// registration.
func (c *Client) RegisterAndHeartbeat(ctx context.Context, info WorkerInfo) (*Registration, error) {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil, errClientClosed()
	}
	c.mu.Unlock()
	if info.Incarnation == "" {
		info.Incarnation = rand.Text()
	}
	info.Devices = append([]LocalDevice(nil), info.Devices...)
	rctx, cancel := context.WithCancel(ctx)
	r := &Registration{c: c, cancel: cancel, done: make(chan struct{}), info: info, changed: make(chan struct{})}
	lease, err := r.register(rctx)
	if err != nil {
		cancel()
		return nil, err
	}
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		cancel()
		return nil, errClientClosed()
	}
	c.regs[r] = struct{}{}
	c.mu.Unlock()
	go r.run(rctx, lease)
	return r, nil
}

// Assignment returns the latest assignment.
func (r *Registration) Assignment() Assignment {
	r.mu.Lock()
	defer r.mu.Unlock()
	a := r.cur
	a.DeviceIDs = append([]ifrt.DeviceID(nil), a.DeviceIDs...)
	return a
}

// Changed returns a channel closed at the next registration (after a loss or
// an RM restart). Take it before reading Assignment so as not to miss one.
func (r *Registration) Changed() <-chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.changed
}

// Done returns a channel closed when the registration has ended for good.
func (r *Registration) Done() <-chan struct{} { return r.done }

// Err returns why the registration ended: nil after Close, ctx's error when
// its context ended, or a permanent error from the resource manager (the RM
// came back with a configuration that no longer fits this worker). It is nil
// while the registration lasts.
func (r *Registration) Err() error {
	select {
	case <-r.done:
	default:
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}

// Close ends the registration: the worker closes its heartbeat stream, so the
// resource manager marks it lost at once. It waits for that and is
// idempotent; it returns nil.
func (r *Registration) Close() error {
	r.mu.Lock()
	if r.err == nil {
		r.err = errClosed
	}
	r.mu.Unlock()
	r.cancel()
	<-r.done
	r.c.mu.Lock()
	delete(r.c.regs, r)
	r.c.mu.Unlock()
	return nil
}

var errClosed = errors.New("rm: registration closed")

// register registers r.info, retrying errors that can pass, and returns the
// lease.
func (r *Registration) register(ctx context.Context) (uint64, error) {
	b := r.c.newBackoff()
	r.mu.Lock()
	info := r.info
	r.mu.Unlock()
	req := workerInfoToPB(info)
	var last error
	failing := retryLog{lost: "registering with the resource manager failed; retrying", back: "registered with the resource manager"}
	for {
		actx, cancel := context.WithTimeout(ctx, registerAttemptTimeout)
		resp, err := r.c.rpc.RegisterWorker(actx, req)
		cancel()
		if err == nil {
			failing.succeeded(r.c.log, r.c.target)
			r.store(info, resp)
			return resp.GetLeaseId(), nil
		}
		err = rpc.CallError(ctx, "rm: ", err)
		if ctx.Err() != nil {
			if last == nil {
				return 0, err
			}
			return 0, fmt.Errorf("rm: registering slice %d host %d: %w (last attempt: %w)", info.Slice, info.Host, err, last)
		}
		if permanent(err) {
			return 0, r.c.notAnRM(err)
		}
		if r.c.isClosed() {
			return 0, errClientClosed()
		}
		// An attempt cut short by a deadline says less than the error before
		// it (gRPC may report ctx's deadline before ctx.Err does).
		if c := ifrt.CodeOf(err); last == nil || (c != ifrt.DeadlineExceeded && c != ifrt.Canceled) {
			last = err
		}
		failing.failed(r.c.log.With("slice", info.Slice, "host", info.Host), r.c.target, err)
		if !sleep(ctx, b.next()) {
			return 0, fmt.Errorf("rm: registering slice %d host %d: %w (last attempt: %w)", info.Slice, info.Host, context.Cause(ctx), last)
		}
	}
}

// registerAttemptTimeout bounds one RegisterWorker call, so that a hung RM
// is retried rather than waited for.
const registerAttemptTimeout = 10 * time.Second

func (r *Registration) store(info WorkerInfo, resp *rmpb.RegisterWorkerResponse) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.info.Host = int(resp.GetHostIndex())
	r.lease = resp.GetLeaseId()
	r.cur = Assignment{
		Slice:             info.Slice,
		Host:              int(resp.GetHostIndex()),
		DeviceIDs:         idsFromPB(resp.GetDeviceIds()),
		Epoch:             resp.GetEpoch(),
		RMIncarnation:     resp.GetRmIncarnation(),
		HeartbeatInterval: resp.GetHeartbeatInterval().AsDuration(),
		HeartbeatTimeout:  resp.GetHeartbeatTimeout().AsDuration(),
	}
	close(r.changed)
	r.changed = make(chan struct{})
}

func (r *Registration) run(ctx context.Context, lease uint64) {
	defer close(r.done)
	for {
		a := r.Assignment()
		err := r.heartbeat(ctx, lease, a)
		if ctx.Err() != nil {
			r.finish(context.Cause(ctx))
			return
		}
		r.c.log.Info("registration lost; registering again", "slice", a.Slice, "host", a.Host, "error", err)
		lease, err = r.register(ctx)
		if err != nil {
			if ctx.Err() != nil {
				err = context.Cause(ctx)
			} else {
				r.c.log.Error("registration ended", "slice", a.Slice, "host", a.Host, "error", err)
			}
			r.finish(err)
			return
		}
		na := r.Assignment()
		r.c.log.Info("registered again", "slice", na.Slice, "host", na.Host, "rm_incarnation", na.RMIncarnation)
	}
}

func (r *Registration) finish(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err == nil {
		r.err = err
	}
	if r.err == errClosed {
		r.err = nil
	}
}

// leaveTimeout bounds how long a leaving worker waits for the RM to close the
// heartbeat stream after the worker closed its side.
const leaveTimeout = time.Second

// heartbeat runs one heartbeat stream for lease until it fails or ctx ends.
func (r *Registration) heartbeat(ctx context.Context, lease uint64, a Assignment) error {
	sctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	defer cancel()
	stream, err := r.c.rpc.Heartbeat(sctx)
	if err != nil {
		return rpc.CallError(sctx, "rm: ", err)
	}
	req := &rmpb.HeartbeatRequest{LeaseId: lease}
	if err := stream.Send(req); err != nil {
		_, err = stream.Recv() // the real error
		return rpc.CallError(sctx, "rm: ", err)
	}
	errc := make(chan error, 1)
	acks := make(chan struct{}, 1)
	go func() {
		for {
			if _, err := stream.Recv(); err != nil {
				errc <- err
				return
			}
			select {
			case acks <- struct{}{}:
			default:
			}
		}
	}()
	interval, timeout := a.HeartbeatInterval, a.HeartbeatTimeout
	if interval <= 0 {
		interval = DefaultHeartbeatTimeout / heartbeatsPerTimeout
	}
	if timeout <= 0 {
		timeout = DefaultHeartbeatTimeout
	}
	ticker := time.NewTicker(interval)
	defer ticker.Stop()
	lastAck := time.Now()
	for {
		select {
		case <-ctx.Done():
			// Leave: close our side so the RM marks the worker lost now.
			stream.CloseSend()
			select {
			case err := <-errc:
				r.c.log.Debug("heartbeat stream ended after leaving", "error", err)
			case <-time.After(leaveTimeout):
			}
			return context.Cause(ctx)
		case err := <-errc:
			if errors.Is(err, io.EOF) {
				return ifrt.Errorf(ifrt.Unavailable, "rm: the resource manager ended the heartbeat stream")
			}
			return rpc.CallError(sctx, "rm: ", err)
		case <-acks:
			lastAck = time.Now()
		case <-ticker.C:
			if time.Since(lastAck) > timeout {
				return ifrt.Errorf(ifrt.Unavailable, "rm: the resource manager did not answer heartbeats for %v", timeout)
			}
			if err := stream.Send(req); err != nil {
				return rpc.CallError(sctx, "rm: ", <-errc)
			}
		}
	}
}

// backoffState computes exponential delays with jitter.
type backoffState struct {
	min, max, cur time.Duration
}

func (c *Client) newBackoff() *backoffState {
	return &backoffState{min: c.opts.minBackoff, max: c.opts.maxBackoff}
}

func (b *backoffState) next() time.Duration {
	if b.cur == 0 {
		b.cur = b.min
	}
	d := b.cur
	b.cur = min(2*b.cur, b.max)
	// Between d/2 and d.
	return d/2 + time.Duration(mrand.Int64N(int64(d/2)+1))
}

func (b *backoffState) reset() { b.cur = 0 }

// sleep waits for d or until ctx ends; false if ctx ended.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
