package pjrt

import (
	"fmt"
	"os"
	"sort"
	"sync"
	"unsafe"
)

// resKind says how a resource's native pointer is destroyed.
type resKind int

const (
	// In the order a client closes them, last first: events, buffers,
	// executables.
	resExecutable resKind = iota
	resBuffer
	resEvent
	resTopology // PJRT_TopologyDescription; never owned by a client
	resCompiled // PJRT_Executable from PJRT_Compile; never owned by a client
)

// resource owns one native PJRT object (buffer, loaded executable, event). The
// Go wrapper (Buffer, Executable, Event) points at its resource; the resource
// never points back, so runtime.AddCleanup on the wrapper can free it.
//
// mu is held for reading for the length of every C call that uses ptr, and for
// writing by close, so an object is never destroyed under a running call.
type resource struct {
	mu    sync.RWMutex
	ptr   unsafe.Pointer // nil once closed
	extra unsafe.Pointer // resExecutable: the PJRT_Executable* (metadata side)
	kind  resKind
	api   *capi
	owner *clientState // nil for objects not tied to a client
	// onClose runs after the native object is destroyed (event resources of a
	// buffer's host-done event, for example).
	onClose []func()
}

func newResource(api *capi, owner *clientState, kind resKind, ptr unsafe.Pointer) *resource {
	r := &resource{ptr: ptr, kind: kind, api: api, owner: owner}
	switch kind {
	case resBuffer:
		live.buffers.Add(1)
	case resExecutable:
		live.executables.Add(1)
	case resEvent:
		live.events.Add(1)
	case resTopology:
		live.topologies.Add(1)
	case resCompiled:
		live.executables.Add(1)
	}
	if owner != nil {
		owner.adopt(r)
	}
	return r
}

// acquire read-locks r and returns its pointer, or ErrClosed.
func (r *resource) acquire() (unsafe.Pointer, error) {
	r.mu.RLock()
	if r.ptr == nil {
		r.mu.RUnlock()
		return nil, ErrClosed
	}
	return r.ptr, nil
}

func (r *resource) release() { r.mu.RUnlock() }

// holder is what a call holds open for its length: a resource, or a
// client's state.
type holder interface {
	acquire() (unsafe.Pointer, error)
	release()
}

// callWith runs f with h's pointer, held open for the call, once the
// plugin is known to provide fn.
func callWith[T any](api *capi, h holder, fn apiFn, f func(ptr unsafe.Pointer) (T, error)) (T, error) {
	var zero T
	if err := api.need(fn); err != nil {
		return zero, err
	}
	ptr, err := h.acquire()
	if err != nil {
		return zero, err
	}
	defer h.release()
	return f(ptr)
}

// close destroys the native object once; later calls return nil. The write
// lock is held while the object is destroyed, so a concurrent close (the
// client's) returns only once it is gone.
func (r *resource) close() error {
	r.mu.Lock()
	ptr, extra := r.ptr, r.extra
	if ptr == nil {
		r.mu.Unlock()
		return nil
	}
	var err error
	switch r.kind {
	case resBuffer:
		err = r.api.destroyBuffer(ptr)
		live.buffers.Add(-1)
	case resExecutable:
		if extra != nil {
			err = r.api.destroyExecutable(extra)
		}
		if e := r.api.destroyLoaded(ptr); err == nil {
			err = e
		}
		live.executables.Add(-1)
	case resEvent:
		err = r.api.destroyEvent(ptr)
		live.events.Add(-1)
	case resTopology:
		err = r.api.destroyTopology(ptr)
		live.topologies.Add(-1)
	case resCompiled:
		err = r.api.destroyExecutable(ptr)
		live.executables.Add(-1)
	}
	r.ptr, r.extra = nil, nil
	hooks := r.onClose
	r.onClose = nil
	r.mu.Unlock()
	if r.owner != nil {
		r.owner.disown(r)
	}
	for _, h := range hooks {
		h()
	}
	return err
}

var kindNames = [...]string{resExecutable: "Executable", resBuffer: "Buffer", resEvent: "Event",
	resTopology: "Topology", resCompiled: "CompiledExecutable"}

// cleanup is the runtime.AddCleanup function of buffers, executables and events.
func (r *resource) cleanup() {
	r.mu.RLock()
	open := r.ptr != nil
	r.mu.RUnlock()
	if open && invariants {
		fmt.Fprintf(os.Stderr, "pjrt: %s garbage-collected without Close\n", kindNames[r.kind])
	}
	_ = r.close()
}

// cleanup is the runtime.AddCleanup function of clients.
func (s *clientState) cleanup() {
	s.mu.RLock()
	open := s.ptr != nil
	s.mu.RUnlock()
	if open && invariants {
		fmt.Fprintf(os.Stderr, "pjrt: Client garbage-collected without Close\n")
	}
	_ = s.close()
}

// clientState owns the PJRT_Client pointer and the set of live objects created
// through the client, so closing the client closes them first (destroying a
// client under live buffers crashes some plugins).
type clientState struct {
	api *capi
	mu  sync.RWMutex // read: calls using ptr; write: close
	ptr unsafe.Pointer
	kv  *kvBridge // nil without a key-value store

	childMu  sync.Mutex
	children map[*resource]struct{}
}

func (s *clientState) adopt(r *resource) {
	s.childMu.Lock()
	if s.children == nil {
		s.children = make(map[*resource]struct{})
	}
	s.children[r] = struct{}{}
	s.childMu.Unlock()
}

func (s *clientState) disown(r *resource) {
	s.childMu.Lock()
	delete(s.children, r)
	s.childMu.Unlock()
}

func (s *clientState) acquire() (unsafe.Pointer, error) {
	s.mu.RLock()
	if s.ptr == nil {
		s.mu.RUnlock()
		return nil, ErrClosed
	}
	return s.ptr, nil
}

func (s *clientState) release() { s.mu.RUnlock() }

func (s *clientState) close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ptr == nil {
		return nil
	}
	var first error
	// Events first, then buffers, then executables, then the client. Objects
	// created while this runs (an event started on a buffer not yet closed) are
	// caught by the next pass; no new ones can start once everything is closed.
	for {
		s.childMu.Lock()
		batch := make([]*resource, 0, len(s.children))
		for r := range s.children {
			batch = append(batch, r)
		}
		s.childMu.Unlock()
		if len(batch) == 0 {
			break
		}
		sort.Slice(batch, func(i, j int) bool { return batch[i].kind > batch[j].kind })
		for _, r := range batch {
			if err := r.close(); err != nil && first == nil {
				first = err
			}
		}
	}
	if s.kv != nil {
		s.kv.cancel() // a plugin thread blocked in a Get returns now
	}
	err := s.api.destroyClient(s.ptr)
	s.ptr = nil
	if s.kv != nil {
		s.kv.close() // the plugin no longer calls back: retire the callbacks' id
	}
	live.clients.Add(-1)
	if first == nil {
		first = err
	}
	return first
}
