package cluster

import (
	"context"
	"errors"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/health/grpc_health_v1"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/internal/rpc"
	"github.com/openpathways/pathways/rm"
)

// checkLiveness asks the worker behind conn for its health every probe
// interval until stop is closed. A worker that does not answer within the
// probe timeout (a frozen process, a dead network path) is lost: the link goes
// down with DATA_LOSS at once, rather than when the RM notices, which it
// cannot while it is down itself. Any answer, even NOT_SERVING from a
// draining worker, is a live worker.
func (l *link) checkLiveness(conn *grpc.ClientConn, gen uint64, stop <-chan struct{}) {
	probe := l.c.probe.WithDefaults()
	health := grpc_health_v1.NewHealthClient(conn)
	tick := time.NewTicker(probe.Interval)
	defer tick.Stop()
	for {
		select {
		case <-stop:
			return
		case <-tick.C:
		}
		ctx, cancel := context.WithTimeout(context.Background(), probe.Timeout)
		_, err := health.Check(ctx, &grpc_health_v1.HealthCheckRequest{})
		cancel()
		switch ifrt.CodeOf(rpc.FromStatus(err)) {
		case ifrt.DeadlineExceeded, ifrt.Unavailable:
			select {
			case <-stop:
				return
			default:
			}
			l.lose(gen, ifrt.Errorf(ifrt.DataLoss, "it did not answer a health check within %v: %v", probe.Timeout, err))
			l.redial()
			return
		}
	}
}

// redial brings the link back after it went down on its own (its session ended,
// or the worker did not answer) while the RM may still list the worker: it asks
// the RM, with backoff, and dials the worker it lists as live for the host,
// until the link is up again, the RM reports the worker lost (its watch then
// brings the worker back when it registers again) or the client closes.
func (l *link) redial() {
	if !l.redialing.CompareAndSwap(false, true) {
		return
	}
	if !l.c.trackRedial() {
		l.redialing.Store(false)
		return
	}
	loop, stop := context.WithCancel(context.Background())
	l.mu.Lock()
	l.stopRedial = stop
	l.mu.Unlock()
	go func() {
		defer l.c.redials.Done()
		defer l.redialing.Store(false)
		defer stop()
		wait := 100 * time.Millisecond
		for !l.c.closed.Load() && loop.Err() == nil {
			if _, _, _, err := l.session(); err == nil {
				return // up again (the RM's watch may have brought it back)
			}
			ctx, cancel := context.WithTimeout(loop, dialTimeout)
			done, err := l.redialOnce(ctx)
			cancel()
			if done {
				return
			}
			if err != nil {
				l.log.Debug("dialling a worker again", "slice", l.key.slice, "host", l.key.host, "error", err)
			}
			select {
			case <-time.After(wait):
			case <-loop.Done():
			}
			wait = min(2*wait, 5*time.Second)
		}
	}()
}

// trackRedial counts a redial loop about to start, for Close to wait for,
// and reports false once the client is closed (no loop may start then).
func (c *Client) trackRedial() bool {
	c.redialMu.Lock()
	defer c.redialMu.Unlock()
	if c.closed.Load() {
		return false
	}
	c.redials.Add(1)
	return true
}

// dialTimeout bounds one attempt to dial a worker the RM lists as live.
const dialTimeout = 10 * time.Second

// cancelRedial ends a redial loop or a dial in the background in progress,
// which may be dialling an address the RM no longer lists (a killed worker
// it has not noticed yet, or one that left while the watch lagged).
func (l *link) cancelRedial() {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, stop := range []context.CancelFunc{l.stopRedial, l.stopDial} {
		if stop != nil {
			stop()
		}
	}
}

// dialInBackground dials worker w for the RM's watch, which must
// not wait for it: the worker the event lists may be gone already (the watch
// lags behind the RM, or the snapshot was taken just before the worker left),
// and the events that say so wait behind the dial. The next event for the
// host ends it (cancelRedial); one that fails, or is ended with the link
// left down, leaves the link to redial, which asks the RM again.
func (l *link) dialInBackground(parent context.Context, w rm.Worker) {
	l.mu.Lock()
	if l.client != nil && l.addr == w.Address && l.incarnation == w.Incarnation {
		l.mu.Unlock()
		return
	}
	ctx, cancel := context.WithTimeout(parent, dialTimeout)
	l.stopDial = cancel
	l.mu.Unlock()
	l.c.dials.Add(1)
	go func() {
		defer l.c.dials.Done()
		defer cancel()
		err := l.upUnlessClosed(ctx, w)
		switch {
		case err == nil:
		case errors.Is(ctx.Err(), context.Canceled):
			// The RM said more about the host, or the client closed. What it
			// said may be of an older worker (its loss, seen after its
			// replacement registered), which dials nobody: a link left down
			// asks the RM which worker is live.
			if l.down() && !l.c.closed.Load() {
				l.redial()
			}
		default:
			l.log.Warn("reconnecting to a worker", "slice", l.key.slice, "host", l.key.host, "address", w.Address, "error", err)
			l.redial()
		}
	}()
}

// redialOnce makes one attempt; done is true when there is nothing more to do.
func (l *link) redialOnce(ctx context.Context) (done bool, err error) {
	view, err := l.c.rm.Cluster(ctx)
	if err != nil {
		return false, err
	}
	if i := l.key.slice; i < len(view.Slices) {
		// Before the link is up to a replacement, the client knows of the
		// suspension its predecessor saved under (suspendState.note).
		l.c.suspend.note(l.c, view.Slices[i], viewAt{view.Epoch, view.RMIncarnation})
	}
	for _, w := range view.Workers {
		if w.Slice != l.key.slice || w.Host != l.key.host {
			continue
		}
		if !l.heard(viewAt{view.Epoch, view.RMIncarnation}) || w.State != rm.StateLive {
			return true, nil // the link heard newer news meanwhile, or the worker is gone
		}
		if err := l.upUnlessClosed(ctx, w); err != nil {
			return false, err
		}
		return true, nil
	}
	return true, errors.New("the resource manager does not know the host")
}

// upUnlessClosed is up, for the dials that run beside the client's Close:
// a link that came up after Close went through the links goes down again.
func (l *link) upUnlessClosed(ctx context.Context, w rm.Worker) error {
	if err := l.up(ctx, w, l.c.dialOpts); err != nil {
		return err
	}
	if l.c.closed.Load() {
		l.lose(0, ifrt.ErrClientClosed) // Close ran while we dialled
	}
	return nil
}
