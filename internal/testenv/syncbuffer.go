package testenv

import (
	"strings"
	"sync"
)

// SyncBuffer collects what a server's goroutines or a child process write
// (a log sink) while a test reads it: every method is safe for concurrent
// use, and the zero value is ready.
type SyncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// String returns everything written so far.
func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
