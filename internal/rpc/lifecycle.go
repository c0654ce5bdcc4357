package rpc

import (
	"context"
	"errors"
	"net"
	"sync"

	"google.golang.org/grpc"

	"github.com/openpathways/pathways/ifrt"
)

// ErrServerClosed is what Serve returns after Close, and when it is called
// after Shutdown or Close. Every server of the module returns this one value
// (rm.ErrServerClosed, worker.ErrServerClosed and proxyserver.ErrServerClosed
// are it).
var ErrServerClosed = errors.New("pathways: server closed")

// Lifecycle is the Serve, Shutdown and Close of every server of the module, so
// that they mean the same everywhere:
//
//   - Serve serves on a listener with the server's own grpc.Server (made once,
//     by Build), until Shutdown or Close: nil after Shutdown, ErrServerClosed
//     after Close, and ErrServerClosed at once (closing the listener) when
//     called after either. It may be called for several listeners.
//   - Shutdown begins stopping (Begin), waits for the server's work (Drain,
//     which also covers a server mounted on a caller's grpc.Server), then stops
//     its own grpc.Server gracefully. If ctx ends first, what remains is cut
//     off (Abort) and ctx's error returned. Later calls return nil at once.
//   - Close begins stopping, cuts everything off (Abort) and stops the
//     grpc.Server at once. It is idempotent and returns nil.
//
// Begin, Drain, Abort and Finish are the server's hooks; each may be nil.
// Abort may run twice (Shutdown cut short, then Close). Finish runs once,
// after the grpc.Server stopped. A Lifecycle is safe for concurrent use; its
// fields must be set before its first method call.
type Lifecycle struct {
	Build  func() *grpc.Server
	Begin  func(graceful bool)
	Drain  func(ctx context.Context) error
	Abort  func()
	Finish func()

	mu      sync.Mutex
	gs      *grpc.Server
	stopped bool // Shutdown or Close began
	closed  bool // Close was called

	beginOnce, finishOnce, shutdownOnce, closeOnce sync.Once
}

// ListenAndServe listens on the TCP address addr and calls serve (a server's
// Serve) with the listener. A failure to listen is UNAVAILABLE.
func ListenAndServe(addr string, serve func(net.Listener) error) error {
	lis, err := net.Listen("tcp", addr)
	if err != nil {
		return ifrt.Errorf(ifrt.Unavailable, "listen on %s: %w", addr, err)
	}
	return serve(lis)
}

// Serve serves on lis. started, if not nil, runs once the grpc.Server serves
// (a worker registers then); when it fails, Serve stops what it started and
// returns its error. See Lifecycle for what Serve returns.
func (l *Lifecycle) Serve(lis net.Listener, started func() error) error {
	l.mu.Lock()
	if l.stopped {
		l.mu.Unlock()
		lis.Close()
		return ErrServerClosed
	}
	if l.gs == nil {
		l.gs = l.Build()
	}
	gs := l.gs
	l.mu.Unlock()

	errc := make(chan error, 1)
	go func() { errc <- gs.Serve(lis) }()
	if started != nil {
		if err := started(); err != nil {
			l.Close()
			if serveErr := <-errc; serveErr != nil && !errors.Is(serveErr, grpc.ErrServerStopped) {
				return errors.Join(err, serveErr)
			}
			return err
		}
	}
	err := <-errc
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case l.closed:
		return ErrServerClosed
	case l.stopped:
		return nil
	}
	return err
}

// Stopped reports whether Shutdown or Close began.
func (l *Lifecycle) Stopped() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.stopped
}

// begin marks the server stopping and runs Begin once; it returns the
// server's own grpc.Server, if Serve made one.
func (l *Lifecycle) begin(graceful bool) *grpc.Server {
	l.mu.Lock()
	l.stopped = true
	if !graceful {
		l.closed = true
	}
	gs := l.gs
	l.mu.Unlock()
	l.beginOnce.Do(func() {
		if l.Begin != nil {
			l.Begin(graceful)
		}
	})
	return gs
}

func (l *Lifecycle) abort() {
	if l.Abort != nil {
		l.Abort()
	}
}

func (l *Lifecycle) finish() {
	l.finishOnce.Do(func() {
		if l.Finish != nil {
			l.Finish()
		}
	})
}

// Shutdown stops the server gracefully; see Lifecycle.
func (l *Lifecycle) Shutdown(ctx context.Context) error {
	var err error
	l.shutdownOnce.Do(func() {
		gs := l.begin(true)
		if l.Drain != nil {
			err = l.Drain(ctx)
		}
		if gs != nil {
			done := make(chan struct{})
			go func() {
				gs.GracefulStop()
				close(done)
			}()
			select {
			case <-done:
			case <-ctx.Done():
				// Handlers still running (a backend call that does not
				// return) finish on their own; Shutdown does not wait.
				l.abort()
				gs.Stop()
			}
		}
		if ctx.Err() != nil {
			err = ctx.Err()
			l.abort()
		}
		l.finish()
	})
	return err
}

// Close stops the server at once; see Lifecycle.
func (l *Lifecycle) Close() error {
	l.closeOnce.Do(func() {
		gs := l.begin(false)
		l.abort()
		if gs != nil {
			gs.Stop()
		}
		l.finish()
	})
	return nil
}
