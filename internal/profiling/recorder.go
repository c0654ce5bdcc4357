package profiling

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/openpathways/pathways/ifrt"
)

// Event is one span of a host's work: it began Start after its trace did and
// lasted Duration. Thread groups a host's events into rows ("session 3",
// "gang", "peer").
type Event struct {
	Name     string
	Category string
	Thread   string
	Start    time.Duration
	Duration time.Duration
	Args     map[string]string
}

// MaxEvents bounds one host's trace: a long trace keeps its first events and
// counts the others as dropped.
const MaxEvents = 1 << 20

// Recorder takes the traces of one server, one at a time.
type Recorder struct {
	active atomic.Pointer[Trace]
}

// Trace is one trace being taken, from Start to Stop.
type Trace struct {
	rec      *Recorder
	start    time.Time
	deadline time.Time // zero: until stopped

	mu      sync.Mutex
	events  []Event
	dropped int
	stopped bool
}

// Start begins a trace that records until Stop, or for maxDuration when it
// is positive. It fails with FAILED_PRECONDITION while another trace is taken.
func (r *Recorder) Start(maxDuration time.Duration) (*Trace, error) {
	t := &Trace{rec: r, start: time.Now()}
	if maxDuration > 0 {
		t.deadline = t.start.Add(maxDuration)
	}
	if !r.active.CompareAndSwap(nil, t) {
		return nil, ifrt.Errorf(ifrt.FailedPrecondition, "a trace is already being taken here; stop it first")
	}
	return t, nil
}

// Tracing reports whether a trace is being taken.
func (r *Recorder) Tracing() bool { return r != nil && r.active.Load() != nil }

// Record adds to the trace being taken, if any, an event that began at start
// and ends now.
func (r *Recorder) Record(thread, name, category string, start time.Time, args map[string]string) {
	if r == nil {
		return
	}
	t := r.active.Load()
	if t == nil || start.Before(t.start) || (!t.deadline.IsZero() && start.After(t.deadline)) {
		return
	}
	e := Event{Name: name, Category: category, Thread: thread, Start: start.Sub(t.start), Duration: time.Since(start), Args: args}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.stopped {
		return
	}
	if len(t.events) >= MaxEvents {
		t.dropped++
		return
	}
	t.events = append(t.events, e)
}

// Began is when the trace started.
func (t *Trace) Began() time.Time { return t.start }

// Stop ends the trace, if it still runs, and returns its events and how many
// it dropped. Later calls return the same events.
func (t *Trace) Stop() ([]Event, int) {
	t.rec.active.CompareAndSwap(t, nil)
	t.mu.Lock()
	defer t.mu.Unlock()
	t.stopped = true
	return t.events, t.dropped
}
