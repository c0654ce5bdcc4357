package proxyserver

import (
	"sync/atomic"
	"testing"
	"time"
)

// TestMemoryReturnRunsOnceAfterABurst: releases under the threshold free
// nothing; a burst over it frees once, after the burst.
func TestMemoryReturnRunsOnceAfterABurst(t *testing.T) {
	var runs atomic.Int32
	freed := make(chan struct{}, 8)
	r := &osReturn{threshold: 100, quiet: 20 * time.Millisecond, free: func() { runs.Add(1); freed <- struct{}{} }}
	r.released(99)
	time.Sleep(60 * time.Millisecond)
	if n := runs.Load(); n != 0 {
		t.Fatalf("99 bytes under a threshold of 100 freed %d times", n)
	}
	for range 5 {
		r.released(100)
	}
	<-freed
	time.Sleep(60 * time.Millisecond)
	if n := runs.Load(); n != 1 {
		t.Errorf("a burst of 5 releases freed %d times, want 1", n)
	}
	r.released(100)
	<-freed // the next burst frees again
}
