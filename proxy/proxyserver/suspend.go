package proxyserver

import (
	"context"
	"maps"
	"slices"
	"sync"

	"github.com/openpathways/pathways/ifrt"
)

// Pausing a server, for a worker whose slice is suspended: the requests in
// progress finish, new work is refused, and the worker saves the arrays the
// sessions hold, frees them and later puts them back under the same handles,
// so that the sessions' clients see their arrays again as they were.

// HeldArray is an array a session holds and the handles that name it there.
type HeldArray struct {
	Session uint64
	Handles []uint64
	Array   ifrt.Array
}

// pauseGate counts the requests that do work and, while paused, refuses
// new ones.
type pauseGate struct {
	mu      sync.Mutex
	refusal error // non-nil while paused
	n       int
	idle    chan struct{} // closed when n drops to 0; nil while n == 0
}

// pausable are the requests a paused server refuses: those that run programs,
// make arrays or read their data. Deleting, destructing and asking after
// arrays, futures and executables still work.
var pausable = map[string]bool{
	"CompileRequest": true, "LoadedExecutableExecuteRequest": true,
	"MakeArrayFromHostBufferRequest": true, "MakeArraysFromHostBufferShardsRequest": true,
	"AssembleArrayFromSingleDeviceArraysRequest": true, "DisassembleIntoSingleDeviceArraysRequest": true,
	"CopyArraysRequest": true, "ReshardArraysRequest": true, "RemapArraysRequest": true,
	"BitcastArraysRequest": true, "FullyReplicatedShardRequest": true, "CopyToHostBufferRequest": true,
}

// enter admits a request of kind, or returns the refusal while paused.
// An admitted request calls leave when it is done.
func (g *pauseGate) enter(kind string) (admitted bool, err error) {
	if !pausable[kind] {
		return false, nil
	}
	return g.admit()
}

func (g *pauseGate) admit() (bool, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.refusal != nil {
		return false, g.refusal
	}
	g.n++
	return true, nil
}

// Admit admits work that runs programs on the sessions' arrays outside the
// IFRT protocol (a worker's gang launch) as Pause admits a request: while
// paused it returns the refusal; otherwise the work calls done when it ends,
// and Pause waits for it.
func (s *Server) Admit() (done func(), err error) {
	if _, err := s.gate.admit(); err != nil {
		return nil, err
	}
	return sync.OnceFunc(s.gate.leave), nil
}

func (g *pauseGate) leave() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.n--
	if g.n == 0 && g.idle != nil {
		close(g.idle)
		g.idle = nil
	}
}

func (g *pauseGate) paused() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.refusal
}

// Pause makes the server refuse requests that run programs or make or read
// arrays with refusal (UNAVAILABLE, say), waits until the requests in
// progress are done (executions in flight finish; their outputs are held
// like any array), and returns every array the sessions hold, once each.
// Arrays that stand for a failure are left out. When ctx ends first the
// server is unpaused and ctx's error returned.
func (s *Server) Pause(ctx context.Context, refusal error) ([]HeldArray, error) {
	g := &s.gate
	g.mu.Lock()
	g.refusal = refusal
	for g.n > 0 {
		if g.idle == nil {
			g.idle = make(chan struct{})
		}
		idle := g.idle
		g.mu.Unlock()
		select {
		case <-idle:
		case <-ctx.Done():
			s.Unpause()
			return nil, ctx.Err()
		}
		g.mu.Lock()
	}
	g.mu.Unlock()
	var held []HeldArray
	for _, ss := range s.openSessions() {
		held = append(held, ss.heldArrays()...)
	}
	return held, nil
}

// Unpause lets every request run again.
func (s *Server) Unpause() {
	s.gate.mu.Lock()
	s.gate.refusal = nil
	s.gate.mu.Unlock()
}

// heldArrays returns the session's resolved arrays, each with its handles in
// ascending order.
func (ss *session) heldArrays() []HeldArray {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	byArray := map[ifrt.Array]int{}
	var out []HeldArray
	for _, h := range slices.Sorted(maps.Keys(ss.arrays)) {
		a, ok := resolvedArray(ss.arrays[h])
		if !ok || a.IsDeleted() {
			continue
		}
		if _, failed := ifrt.ArrayError(a); failed {
			continue
		}
		if i, ok := byArray[a]; ok {
			out[i].Handles = append(out[i].Handles, h)
			continue
		}
		byArray[a] = len(out)
		out = append(out, HeldArray{Session: ss.id, Handles: []uint64{h}, Array: a})
	}
	return out
}

// Evict frees the held arrays (Pause's): each is deleted, and under its
// handles the session holds instead an array that fails with err, until
// Restore puts an array back or the client deletes the handle.
func (s *Server) Evict(held []HeldArray, err error) {
	for _, h := range held {
		ss := s.session(h.Session)
		if ss == nil {
			h.Array.Delete()
			continue
		}
		stand := ifrt.NewErrorArray(specOf(h.Array), err)
		ss.mu.Lock()
		for _, handle := range h.Handles {
			if a, ok := resolvedArray(ss.arrays[handle]); ok && a == h.Array {
				ne := newEntry[ifrt.Array]()
				ne.Resolve(stand, nil)
				ss.arrays[handle] = ne
			}
		}
		ss.mu.Unlock()
		ss.forget(h.Array)
		h.Array.Delete()
	}
}

// Restore gives a back to session under handles, in place of what Evict left
// there; handles the client deleted meanwhile are skipped. It reports whether
// the session took a; if not (it ended, or every handle is gone) the caller
// deletes a.
func (s *Server) Restore(session uint64, handles []uint64, a ifrt.Array) bool {
	ss := s.session(session)
	if ss == nil {
		return false
	}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.ctx.Err() != nil {
		return false
	}
	took := false
	for _, handle := range handles {
		e, ok := ss.arrays[handle]
		if !ok || !standsIn(e) {
			continue
		}
		ne := newEntry[ifrt.Array]()
		ne.Resolve(a, nil)
		ss.arrays[handle] = ne
		ss.holdLocked(a)
		took = true
	}
	return took
}

// session returns the open session id, or nil.
func (s *Server) session(id uint64) *session {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sessions[id]
}

// resolvedArray returns the array e holds, if it is resolved to one.
func resolvedArray(e *entry[ifrt.Array]) (ifrt.Array, bool) {
	if e == nil {
		return nil, false
	}
	select {
	case <-e.Done():
	default:
		return nil, false
	}
	a, err := e.Await(context.Background())
	return a, err == nil && a != nil
}

// standsIn reports whether e holds an array Evict left.
func standsIn(e *entry[ifrt.Array]) bool {
	a, ok := resolvedArray(e)
	if !ok || a.IsDeleted() {
		return false // the client deleted it while it stood in
	}
	_, failed := ifrt.ArrayError(a)
	return failed
}

func specOf(a ifrt.Array) ifrt.ArraySpec {
	return ifrt.ArraySpec{DType: a.DType(), Shape: a.Shape(), Sharding: a.Sharding(), Layout: a.Layout()}
}
