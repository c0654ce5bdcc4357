package worker

// GangPrograms counts the gang programs the worker holds, for tests.
func GangPrograms(s *Server) int {
	s.gang.mu.Lock()
	defer s.gang.mu.Unlock()
	return len(s.gang.programs)
}
