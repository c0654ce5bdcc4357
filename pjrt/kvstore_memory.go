package pjrt

import (
	"context"
	"sync"
	"time"

	"github.com/openpathways/pathways/ifrt"
)

// MemoryKeyValueStore is a KeyValueStore in this process's memory: for
// several clients of one process that act as the processes of one
// multi-process client (tests, the mock-NCCL GPU setup). Processes on other
// machines need a store they all reach, such as the resource manager's
// coordination service. The zero value is empty and ready; it is safe for
// concurrent use.
type MemoryKeyValueStore struct {
	mu      sync.Mutex
	values  map[string][]byte
	waiters map[string]chan struct{} // closed when the key is put
}

var _ KeyValueStore = (*MemoryKeyValueStore)(nil)

// Get waits until key is put, the timeout passes (DeadlineExceeded) or ctx
// ends.
func (s *MemoryKeyValueStore) Get(ctx context.Context, key string, timeout time.Duration) ([]byte, error) {
	s.mu.Lock()
	if v, ok := s.values[key]; ok {
		s.mu.Unlock()
		return v, nil
	}
	if s.waiters == nil {
		s.waiters = map[string]chan struct{}{}
	}
	ch, ok := s.waiters[key]
	if !ok {
		ch = make(chan struct{})
		s.waiters[key] = ch
	}
	s.mu.Unlock()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case <-ch:
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.values[key], nil
	case <-timer.C:
		return nil, errorf(ifrt.DeadlineExceeded, "key %q: not put within %v", key, timeout)
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// TryGet returns key's value, or NotFound.
func (s *MemoryKeyValueStore) TryGet(ctx context.Context, key string) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if v, ok := s.values[key]; ok {
		return v, nil
	}
	return nil, errorf(ifrt.NotFound, "key %q not found", key)
}

// Put sets key to a copy of value and wakes its waiters.
func (s *MemoryKeyValueStore) Put(ctx context.Context, key string, value []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.values == nil {
		s.values = map[string][]byte{}
	}
	s.values[key] = append([]byte{}, value...)
	if ch, ok := s.waiters[key]; ok {
		close(ch)
		delete(s.waiters, key)
	}
	return nil
}

// Len returns how many keys the store holds.
func (s *MemoryKeyValueStore) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.values)
}
