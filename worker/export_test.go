package worker

// GangPrograms counts the gang programs the worker holds, for tests.
func GangPrograms(s *Server) int {
	s.gang.mu.Lock()
	defer s.gang.mu.Unlock()
	return len(s.gang.programs)
}

// SetMaxSharedSegments bounds the shared-memory segments of the workers made
// from now on, for tests of a full pool; restore undoes it.
func SetMaxSharedSegments(n int) (restore func()) {
	old := maxSegments
	maxSegments = n
	return func() { maxSegments = old }
}
