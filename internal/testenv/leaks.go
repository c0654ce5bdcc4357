package testenv

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// leakWait bounds how long the leak check waits for goroutines that are on
// their way out (a connection closing, a timer's last tick).
const leakWait = 10 * time.Second

// RunWithoutLeaks runs a package's tests and then fails (exit code 1) when
// goroutines the tests started are still running after a bounded wait,
// printing their stacks. Use it from TestMain:
//
//	func TestMain(m *testing.M) { os.Exit(testenv.RunWithoutLeaks(m)) }
func RunWithoutLeaks(m *testing.M) int {
	before := goroutines()
	code := m.Run()
	if code != 0 {
		return code
	}
	if leaked := waitForLeaks(before, leakWait); len(leaked) > 0 {
		fmt.Fprintf(os.Stderr, "testenv: %d goroutines started by the tests are still running:\n\n%s\n", len(leaked), strings.Join(leaked, "\n\n"))
		return 1
	}
	return 0
}

// waitForLeaks returns the stacks of the goroutines not in before that are
// still running once wait has passed (at once when there are none).
func waitForLeaks(before map[uint64]string, wait time.Duration) []string {
	deadline := time.Now().Add(wait)
	for delay := time.Millisecond; ; delay = min(2*delay, 100*time.Millisecond) {
		var leaked []string
		for id, stack := range goroutines() {
			if _, ok := before[id]; !ok && !benign(stack) {
				leaked = append(leaked, stack)
			}
		}
		if len(leaked) == 0 || time.Now().After(deadline) {
			return leaked
		}
		time.Sleep(delay)
	}
}

// benign are the goroutines of the test runner and the runtime that outlive a
// test by design, and the goroutine taking the snapshot.
func benign(stack string) bool {
	for _, s := range []string{
		"testing.(*T).Run(",
		"testing.(*M).",
		"testing.tRunner(",
		"testing.runTests(",
		"os/signal.signal_recv",
		"os/signal.loop",
		"runtime.ensureSigM",
		"testenv.goroutines(",
	} {
		if strings.Contains(stack, s) {
			return true
		}
	}
	return false
}

// goroutines returns the stack of every goroutine, by id.
func goroutines() map[uint64]string {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	out := map[uint64]string{}
	for _, g := range strings.Split(string(buf), "\n\n") {
		rest, ok := strings.CutPrefix(g, "goroutine ")
		if !ok {
			continue
		}
		idText, _, _ := strings.Cut(rest, " ")
		if id, err := strconv.ParseUint(idText, 10, 64); err == nil {
			out[id] = g
		}
	}
	return out
}
