package backend

import "sync"

// Objects is the set of a client's live objects of one kind (arrays or
// executables). Close drains it; tests count it with Live to find leaks. The
// zero value is an empty, open set.
type Objects[T comparable] struct {
	mu      sync.Mutex
	m       map[T]struct{}
	drained bool
}

// Add registers x and reports whether it could: after Drain it cannot, and the
// caller frees x itself (the client closed while x was being made).
func (s *Objects[T]) Add(x T) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.drained {
		return false
	}
	if s.m == nil {
		s.m = map[T]struct{}{}
	}
	s.m[x] = struct{}{}
	return true
}

// Remove unregisters x and reports whether it was registered.
func (s *Objects[T]) Remove(x T) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.m[x]
	delete(s.m, x)
	return ok
}

// Drain empties the set for good and returns what it held, for Close to free.
func (s *Objects[T]) Drain() []T {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.drained = true
	out := make([]T, 0, len(s.m))
	for x := range s.m {
		out = append(out, x)
	}
	s.m = nil
	return out
}

// Live returns how many objects the set holds.
func (s *Objects[T]) Live() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.m)
}
