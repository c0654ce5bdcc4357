package sidecar_test

import (
	"encoding/json"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

// killOnMark kills the process that pid names once the file mark exists
// (colocated_steps.py's killed call creates it from inside the call) and
// sends its pid on the channel it returns. It stops watching when the test
// ends.
func killOnMark(t *testing.T, mark string, pid func() int) <-chan int {
	stop := make(chan struct{})
	t.Cleanup(func() { close(stop) })
	killed := make(chan int, 1)
	go func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
			if _, err := os.Stat(mark); err == nil {
				p := pid()
				syscall.Kill(p, syscall.SIGKILL)
				killed <- p
				return
			}
		}
	}()
	return killed
}

// checkRaisedAndKilled checks what colocated_steps.py's raising and killed
// calls printed: the user's ValueError on an argument of the given shape
// ("(8,)"), and DATA_LOSS from a call whose sidecar killOnMark killed.
func checkRaisedAndKilled(t *testing.T, out map[string]json.RawMessage, shape string, killed <-chan int) {
	t.Helper()
	if got := field[string](t, out, "raised"); !strings.Contains(got, "ValueError: colocated boom on "+shape) {
		t.Errorf("the raising function gave %q, want the ValueError and its message", got)
	}
	if got := field[string](t, out, "killed"); !strings.Contains(got, "DATA_LOSS") {
		t.Errorf("the call during which the sidecar died gave %q, want DATA_LOSS", got)
	}
	select {
	case <-killed:
	default:
		t.Error("the sidecar was never killed")
	}
}
