package proxyserver

import (
	"strconv"
	"time"

	"github.com/openpathways/pathways/internal/profiling"
)

// Recorder is what the server records while a trace is taken (the
// profileRequest plugin program, or a worker's Profiler service): every IFRT
// Proxy request of a session, and every compile and execution on the backend,
// one row per session.
func (s *Server) Recorder() *profiling.Recorder { return s.rec }

// record adds an event of s's session that began at start and ends now to
// the server's trace, if one is being taken.
func record(s *session, name, cat string, start time.Time, args map[string]string) {
	if !s.srv.rec.Tracing() {
		return
	}
	s.srv.rec.Record("session "+strconv.FormatUint(s.id, 10), name, cat, start, args)
}
