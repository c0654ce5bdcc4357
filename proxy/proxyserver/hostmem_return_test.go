package proxyserver

import (
	"testing"
	"time"
)

// TestMemoryReturnRunsOnceAfterABurst: releases under the threshold arm
// nothing; a burst over it arms one return, which frees once. The quiet
// period is an hour, so nothing here depends on how fast the machine is: the
// test fires the armed return itself.
func TestMemoryReturnRunsOnceAfterABurst(t *testing.T) {
	freed := make(chan struct{}, 8)
	r := &osReturn{threshold: 100, quiet: time.Hour, free: func() { freed <- struct{}{} }}
	fire := func() {
		t.Helper()
		r.mu.Lock()
		armed := r.timer != nil && r.pending >= r.threshold
		if armed {
			r.timer.Reset(0)
		}
		r.mu.Unlock()
		if !armed {
			t.Fatal("no return armed")
		}
		<-freed
	}
	r.released(99)
	r.mu.Lock()
	armed := r.timer != nil
	r.mu.Unlock()
	if armed {
		t.Fatal("99 bytes under a threshold of 100 armed a return")
	}
	for range 5 {
		r.released(100)
	}
	fire()
	if len(freed) != 0 {
		t.Errorf("a burst of 5 releases freed %d more times, want once", len(freed))
	}
	r.mu.Lock()
	left := r.pending
	r.mu.Unlock()
	if left != 0 {
		t.Errorf("%d bytes still pending after the return ran", left)
	}
	r.released(100)
	fire() // the next burst frees again
}
