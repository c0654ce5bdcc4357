package rm

import (
	"log/slog"
	"time"
)

// retryLogEvery is how often a call that keeps failing says so.
const retryLogEvery = 5 * time.Second

// retryLog logs a call that keeps failing: the lost message at Warn at the
// first failure and then at most every retryLogEvery, with the address, the
// last error and the attempts so far; the back message at Info once it works
// again. It is not safe for concurrent use.
type retryLog struct {
	lost, back string

	attempts int
	since    time.Time // first failure of the current run
	logged   time.Time
}

func (r *retryLog) failed(log *slog.Logger, address string, err error) {
	now := time.Now()
	if r.attempts == 0 {
		r.since = now
	}
	r.attempts++
	if r.attempts > 1 && now.Sub(r.logged) < retryLogEvery {
		return
	}
	r.logged = now
	log.Warn(r.lost, "address", address, "error", err, "attempts", r.attempts, "failing_for", now.Sub(r.since).Round(time.Millisecond))
}

func (r *retryLog) succeeded(log *slog.Logger, address string) {
	if r.attempts > 0 {
		log.Info(r.back, "address", address, "after", time.Since(r.since).Round(time.Millisecond), "attempts", r.attempts)
	}
	r.attempts = 0
}
