package pjrt

import (
	"context"
	"runtime"
	"sync"
	"unsafe"
)

// Event is a future for work a plugin does in the background: a transfer, an
// execution on one device, the end of PJRT's use of host memory. It wraps a
// PJRT_Event.
//
// Await and Done honour the caller's context only for the wait: cancelling a
// context never cancels the device work. An Event is safe for concurrent use.
type Event struct {
	res    *resource // nil for events that never had a native object
	st     *eventState
	client *Client // keeps the client (and so the plugin's work) reachable
}

// eventState is the Go side of an event's completion. It is shared with the C
// callback through a cgo handle and never points at the Event.
type eventState struct {
	once sync.Once
	done chan struct{}
	err  error

	mu         sync.Mutex
	registered bool     // an OnReady callback is pending or has run
	after      []func() // run once, when the event fires

	api *capi // converts the error the OnReady callback reports
}

func newEventState() *eventState { return &eventState{done: make(chan struct{})} }

// fire records the outcome; the first call wins.
func (s *eventState) fire(err error) {
	s.once.Do(func() {
		s.err = err
		s.mu.Lock()
		hooks := s.after
		s.after = nil
		s.mu.Unlock()
		close(s.done)
		for _, h := range hooks {
			h()
		}
	})
}

// newEvent wraps a native event of client c (ptr may be nil: a completed
// event).
func newEvent(c *Client, ptr unsafe.Pointer) *Event {
	ev := &Event{st: newEventState(), client: c}
	if ptr == nil {
		ev.st.fire(nil)
		return ev
	}
	ev.st.api = c.st.api
	ev.res = newResource(c.st.api, c.st, resEvent, ptr)
	runtime.AddCleanup(ev, (*resource).cleanup, ev.res)
	return ev
}

// register arranges for st.fire to run when the native event is ready.
func (e *Event) register() {
	if e.res == nil {
		return
	}
	e.st.mu.Lock()
	if e.st.registered {
		e.st.mu.Unlock()
		return
	}
	e.st.registered = true
	e.st.mu.Unlock()
	ptr, err := e.res.acquire()
	if err != nil {
		e.st.fire(err)
		return
	}
	if err := e.res.api.onReady(ptr, e.st); err != nil {
		e.st.fire(err)
	}
	e.res.release()
	runtime.KeepAlive(e)
}

// Done returns a channel that is closed when the event is ready (or failed).
func (e *Event) Done() <-chan struct{} {
	e.register()
	return e.st.done
}

// Err returns the event's error once Done is closed, and nil before.
func (e *Event) Err() error {
	select {
	case <-e.st.done:
		return e.st.err
	default:
		return nil
	}
}

// Await waits until the event is ready and returns its error, or returns ctx's
// error if ctx ends first (the work itself continues). With a context that can
// never be cancelled, Await blocks in the plugin's own wait, the cheapest path.
func (e *Event) Await(ctx context.Context) error {
	select {
	case <-e.st.done:
		return e.st.err
	default:
	}
	if ctx.Done() == nil && e.res != nil {
		e.st.mu.Lock()
		registered := e.st.registered
		e.st.mu.Unlock()
		if !registered {
			ptr, err := e.res.acquire()
			if err != nil {
				return err
			}
			err = e.res.api.awaitEvent(ptr)
			e.res.release()
			runtime.KeepAlive(e)
			e.st.fire(err)
			return e.st.err
		}
	}
	e.register()
	select {
	case <-e.st.done:
		return e.st.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Close releases the native event. Waiting continues to work if Done or a
// cancellable Await had already been called; otherwise a later Await returns
// ErrClosed. Close is idempotent.
func (e *Event) Close() error {
	if e.res == nil {
		return nil
	}
	err := e.res.close()
	e.st.mu.Lock()
	registered := e.st.registered
	e.st.mu.Unlock()
	if !registered {
		e.st.fire(ErrClosed)
	}
	return err
}
