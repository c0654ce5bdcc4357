package proxyserver

import "time"

// runnerIdle is how long a runner's goroutine waits for more work before it
// ends.
const runnerIdle = 5 * time.Second

// runner runs a session's request work on goroutines it keeps while work
// comes: a fresh goroutine per request would regrow its stack every time
// (a tenth of the proxy's CPU on a tiny step), one kept warm has grown it
// already. It never makes a request wait for another: when no goroutine is
// idle, it starts one. Only the session's stream goroutine calls run, and
// stop, once run is no longer called.
type runner struct {
	tasks chan func() // unbuffered: a send succeeds only into an idle goroutine
}

func newRunner() *runner { return &runner{tasks: make(chan func())} }

// run runs f on an idle goroutine of r, or on a new one.
func (r *runner) run(f func()) {
	select {
	case r.tasks <- f:
	default:
		go r.loop(f)
	}
}

func (r *runner) loop(f func()) {
	idle := time.NewTimer(runnerIdle)
	defer idle.Stop()
	for {
		f()
		idle.Reset(runnerIdle)
		var ok bool
		select {
		case f, ok = <-r.tasks:
			if !ok {
				return
			}
		case <-idle.C:
			return
		}
	}
}

// stop ends r's idle goroutines; busy ones end when their work is done.
func (r *runner) stop() { close(r.tasks) }
