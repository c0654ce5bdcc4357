package testenv

import (
	"strings"
	"testing"
	"time"
)

func blockedUntil(stop chan struct{}) { <-stop }

func TestWaitForLeaksFindsAGoroutineLeftRunning(t *testing.T) {
	before := goroutines()
	stop := make(chan struct{})
	go blockedUntil(stop)
	leaked := waitForLeaks(before, 10*time.Millisecond)
	if len(leaked) != 1 || !strings.Contains(leaked[0], "testenv.blockedUntil") {
		t.Errorf("with one goroutine left blocked, waitForLeaks = %q; want its stack", leaked)
	}
	close(stop)
	if leaked := waitForLeaks(before, leakWait); len(leaked) != 0 {
		t.Errorf("after it returned, waitForLeaks = %q; want none", leaked)
	}
}
