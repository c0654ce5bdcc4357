package rm

import (
	"log/slog"
	"time"
)

// retryLogEvery is how often a call that keeps failing says so.
const retryLogEvery = 5 * time.Second

// retryLog logs a call that keeps failing at most every retryLogEvery, with
// the address, the last error and the attempts so far, and logs once when it
// works again. The zero value is ready; it is not safe for concurrent use.
type retryLog struct {
	attempts int
	since    time.Time // first failure of the current run
	logged   time.Time
}

func (r *retryLog) failed(log *slog.Logger, msg, address string, err error) {
	now := time.Now()
	if r.attempts == 0 {
		r.since = now
	}
	r.attempts++
	if r.attempts > 1 && now.Sub(r.logged) < retryLogEvery {
		return
	}
	r.logged = now
	log.Warn(msg, "address", address, "error", err, "attempts", r.attempts, "failing_for", now.Sub(r.since).Round(time.Millisecond))
}

func (r *retryLog) succeeded(log *slog.Logger, msg, address string) {
	if r.attempts > 1 {
		log.Info(msg, "address", address, "after_attempts", r.attempts)
	}
	r.attempts = 0
}
