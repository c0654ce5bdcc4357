package proxyserver

import (
	"context"
	"crypto/subtle"
	"strings"
	"sync"

	"github.com/openpathways/pathways/ifrt"
)

// Sessions' arrays seen from outside the IFRT Proxy protocol: a worker uses these
// to serve its peers, which read arrays of a client's session and add arrays made
// from data gathered from other workers. Each call names the session by its id
// and its token (see wire.SessionTokenMetadataKey), which only the session's
// client knows: a session is invisible to whoever lacks it (NotFound).

// SessionArray returns the array that session sessionID holds under handle, waiting
// until the request that makes it has finished. afterOp is the op id of the last
// request the session's client had sent when it named the array (0: none to wait
// for): the handle is looked up once the session has planned that request, since
// the caller may have come by another path than the session's stream and overtaken
// it. NotFound for an unknown session or handle, or a wrong token.
func (s *Server) SessionArray(ctx context.Context, sessionID uint64, token string, handle, afterOp uint64) (ifrt.Array, error) {
	ss, err := s.liveSession(sessionID, token)
	if err != nil {
		return nil, err
	}
	if err := ss.planned.await(ctx, ss.ctx.Done(), afterOp); err != nil {
		return nil, err
	}
	ss.mu.Lock()
	e, ok := ss.arrays[handle]
	ss.mu.Unlock()
	if !ok {
		return nil, ifrt.Errorf(ifrt.NotFound, "proxyserver: session %d has no array %d", sessionID, handle)
	}
	select {
	case <-e.Done():
		return e.Await(ctx)
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-ss.ctx.Done():
		return nil, ifrt.Errorf(ifrt.Canceled, "proxyserver: session %d has ended", sessionID)
	}
}

// DestructSessionArrays destructs handles of session sessionID as a
// DestructArrayRequest would, once the session has planned request afterOp: a
// worker's gang launch carries the handles its client dropped (see
// proxy.Client.TakeDestructs). It returns once the handles are forgotten; an
// array still in use is released when its uses end. Unknown handles are
// NOT_FOUND, and the known ones are destructed anyway.
func (s *Server) DestructSessionArrays(ctx context.Context, sessionID uint64, token string, handles []uint64, afterOp uint64) error {
	ss, err := s.liveSession(sessionID, token)
	if err != nil {
		return err
	}
	if err := ss.planned.await(ctx, ss.ctx.Done(), afterOp); err != nil {
		return err
	}
	ss.mu.Lock()
	targets, unknown := ss.forgetArraysLocked(handles)
	ss.mu.Unlock()
	if settled(targets) {
		ss.dropWhenUnused(targets)
	} else {
		go ss.dropWhenUnused(targets) // a use in flight: not on the caller's time
	}
	if len(unknown) > 0 {
		return ifrt.Errorf(ifrt.NotFound, "proxyserver: session %d has no arrays %s", sessionID, strings.Join(unknown, ", "))
	}
	return nil
}

// settled says whether every target's array is made and no use of it is in
// flight.
func settled(targets []destructTarget) bool {
	for _, t := range targets {
		select {
		case <-t.e.Done():
		default:
			return false
		}
		for _, u := range t.prior {
			select {
			case <-u:
			default:
				return false
			}
		}
	}
	return true
}

// CheckSessionBytes fails with RESOURCE_EXHAUSTED when n more bytes of arrays
// would pass the session's max_session_live_bytes limit, so that a caller can
// check before it allocates an array for AddSessionArray.
func (s *Server) CheckSessionBytes(sessionID uint64, token string, n int64) error {
	ss, err := s.liveSession(sessionID, token)
	if err != nil {
		return err
	}
	return ss.checkLive(n)
}

// AddSessionArray gives a, made outside the session's requests, to session
// sessionID under handle, a client handle its client reserved. The session then
// holds a like any array it made, and deletes it when the session ends.
func (s *Server) AddSessionArray(sessionID uint64, token string, handle uint64, a ifrt.Array) error {
	ss, err := s.liveSession(sessionID, token)
	if err != nil {
		return err
	}
	if err := checkClientHandle(handle); err != nil {
		return err
	}
	if err := s.gate.paused(); err != nil {
		return err // an array made after Pause would not be saved
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
	e.Resolve(a, nil)
	ss.arrays[handle] = e
	ss.holdLocked(a)
	return nil
}

// SessionDone returns a channel closed when session sessionID ends, so that
// what a worker keeps for a session outside it (compiled gang programs) can
// go with it. NotFound for an unknown session or a wrong token.
func (s *Server) SessionDone(sessionID uint64, token string) (<-chan struct{}, error) {
	ss, err := s.liveSession(sessionID, token)
	if err != nil {
		return nil, err
	}
	return ss.ctx.Done(), nil
}

// Track counts work done for the server's sessions outside its own calls (a
// worker's peer calls) as in progress until done is called, so that a
// draining server waits for it.
func (s *Server) Track() (done func()) {
	s.act.add()
	var once sync.Once
	return func() { once.Do(s.act.done) }
}

func (s *Server) liveSession(id uint64, token string) (*session, error) {
	s.mu.Lock()
	ss, ok := s.sessions[id]
	s.mu.Unlock()
	if !ok || subtle.ConstantTimeCompare([]byte(token), []byte(ss.token)) != 1 {
		return nil, ifrt.Errorf(ifrt.NotFound, "proxyserver: no session %d", id)
	}
	return ss, nil
}
