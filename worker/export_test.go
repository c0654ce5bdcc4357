package worker

import "github.com/openpathways/pathways/proxy/proxyserver"

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

// SetBeforeSave has f see the arrays each suspension is about to save, from
// now on; restore undoes it.
func SetBeforeSave(f func([]proxyserver.HeldArray)) (restore func()) {
	old := testHookBeforeSave
	testHookBeforeSave = f
	return func() { testHookBeforeSave = old }
}
