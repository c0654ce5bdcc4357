package proxyserver

import (
	"context"
	"strconv"
	"sync"

	"github.com/openpathways/pathways/ifrt"
)

// Session keys (ifrt.SessionKey) tell the backend which client session a
// call serves: this server's session id, followed on a worker by the JAX
// session's id from the request's baggage ("7/3": this worker's session 7,
// serving JAX session 3), so that a backend keeping state per session (the
// sidecar's colocated objects) keeps the JAX sessions apart even when one
// cluster client serves several. When the session ends, the backend is told
// of every key its requests used (ifrt.EndSession).
type sessionKeys struct {
	mu   sync.Mutex
	used map[string]struct{}
}

// withSessionKey returns ctx with the key of the session's request serving
// jaxSession ("" on the proxy server that JAX talks to), and remembers it.
func (s *session) withSessionKey(ctx context.Context, jaxSession string) context.Context {
	key := strconv.FormatUint(s.id, 10)
	if jaxSession != "" {
		key += "/" + jaxSession
	}
	s.keys.mu.Lock()
	if s.keys.used == nil {
		s.keys.used = map[string]struct{}{}
	}
	s.keys.used[key] = struct{}{}
	s.keys.mu.Unlock()
	return ifrt.WithSessionKey(ctx, key)
}

// endBackendSessions tells the backend that the session's keys are done; its
// requests are.
func (s *session) endBackendSessions() {
	s.keys.mu.Lock()
	used := s.keys.used
	s.keys.used = nil
	s.keys.mu.Unlock()
	for key := range used {
		ifrt.EndSession(s.backend, key)
	}
}
