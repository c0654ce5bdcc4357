package worker

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// gapTimeout is how long a launch waits for launches with lower sequence
// numbers that have not arrived (their client may have died after taking
// its numbers) before it starts anyway.
// Our workers run launches concurrently, so a launch that starts out of
// order costs no deadlock, only the order: the wait is short.
const gapTimeout = 2 * time.Second

// sequencer starts this worker's gang launches in the order of their
// sequence numbers, which the resource manager hands out per worker (see
// rm.Client.Sequence): launch s starts once every launch below s has
// started. Launches whose worker sets overlap therefore start in the same
// order on every worker they share. Numbers start at 1 with each run of the
// RM and of the worker, and the incarnation tells runs apart.
type sequencer struct {
	log *slog.Logger

	mu          sync.Mutex
	incarnation string
	next        uint64          // the lowest number not started
	started     map[uint64]bool // started, above next
	moved       chan struct{}   // closed and replaced when next moves
}

func newSequencer(log *slog.Logger) *sequencer {
	return &sequencer{log: log, next: 1, started: map[uint64]bool{}, moved: make(chan struct{})}
}

// wait returns when launch seq of the given sequencer incarnation may
// start, and marks it started. seq 0 starts at once.
func (s *sequencer) wait(ctx context.Context, incarnation string, seq uint64) error {
	if seq == 0 {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.syncLocked(incarnation)
	if seq <= s.next { // its turn: the common case needs no timer
		s.markLocked(seq)
		return nil
	}
	timer := time.NewTimer(gapTimeout)
	defer timer.Stop()
	for seq > s.next {
		moved := s.moved
		s.mu.Unlock()
		select {
		case <-moved:
			timer.Reset(gapTimeout)
		case <-timer.C:
			s.mu.Lock()
			if seq > s.next {
				s.log.Warn("gang launches never arrived; starting later ones", "missing_from", s.next, "to", seq-1)
				s.next = seq
			}
			continue
		case <-ctx.Done():
			s.mu.Lock()
			return ctx.Err()
		}
		s.mu.Lock()
		if incarnation != s.incarnation {
			return nil // a new run of the sequencer: no order to keep with it
		}
	}
	s.markLocked(seq)
	return nil
}

// release gives up launch seq's turn without waiting (the launch failed
// before it could start), so that later ones need not wait for it.
func (s *sequencer) release(incarnation string, seq uint64) {
	if seq == 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.syncLocked(incarnation)
	s.markLocked(seq)
}

// syncLocked starts counting again for a new run of the sequencer.
func (s *sequencer) syncLocked(incarnation string) {
	if incarnation != s.incarnation {
		s.incarnation, s.next, s.started = incarnation, 1, map[uint64]bool{}
		s.advance()
	}
}

func (s *sequencer) markLocked(seq uint64) {
	switch {
	case seq == s.next:
		s.next++
		for s.started[s.next] {
			delete(s.started, s.next)
			s.next++
		}
		s.advance()
	case seq > s.next:
		s.started[seq] = true
	}
	// Below next: a number skipped after a gap, which keeps no order.
}

func (s *sequencer) advance() {
	close(s.moved)
	s.moved = make(chan struct{})
}
