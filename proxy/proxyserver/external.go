package proxyserver

import (
	"context"

	"github.com/openpathways/pathways/ifrt"
)

// Sessions' arrays seen from outside the IFRT Proxy protocol: a worker uses these
// to serve its peers, which read arrays of a client's session and add arrays made
// from data gathered from other workers.

// SessionArray returns the array that session sessionID holds under handle, waiting
// until the request that makes it has finished. NotFound for an unknown session or
// handle.
func (s *Server) SessionArray(ctx context.Context, sessionID, handle uint64) (ifrt.Array, error) {
	ss, err := s.liveSession(sessionID)
	if err != nil {
		return nil, err
	}
	ss.mu.Lock()
	e, ok := ss.arrays[handle]
	ss.mu.Unlock()
	if !ok {
		return nil, ifrt.Errorf(ifrt.NotFound, "proxyserver: session %d has no array %d", sessionID, handle)
	}
	select {
	case <-e.done:
		return e.val, e.err
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-ss.ctx.Done():
		return nil, ifrt.Errorf(ifrt.Canceled, "proxyserver: session %d has ended", sessionID)
	}
}

// AddSessionArray gives a, made outside the session's requests, to session
// sessionID under handle, a client handle its client reserved. The session then
// holds a like any array it made, and deletes it when the session ends.
func (s *Server) AddSessionArray(sessionID, handle uint64, a ifrt.Array) error {
	ss, err := s.liveSession(sessionID)
	if err != nil {
		return err
	}
	if err := checkClientHandle(handle); err != nil {
		return err
	}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.ctx.Err() != nil {
		return ifrt.Errorf(ifrt.Canceled, "proxyserver: session %d has ended", sessionID)
	}
	if _, dup := ss.arrays[handle]; dup {
		return ifrt.Errorf(ifrt.AlreadyExists, "proxyserver: session %d already has an array %d", sessionID, handle)
	}
	e := newEntry[ifrt.Array]()
	e.resolve(a, nil)
	ss.arrays[handle] = e
	ss.live[a]++
	return nil
}

func (s *Server) liveSession(id uint64) (*session, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ss, ok := s.sessions[id]
	if !ok {
		return nil, ifrt.Errorf(ifrt.NotFound, "proxyserver: no session %d", id)
	}
	return ss, nil
}
