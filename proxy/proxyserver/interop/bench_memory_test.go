package interop_test

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/openpathways/pathways/internal/testenv"
)

// memoryBenchVar sets the array size of TestDataplaneMemory in MiB (default
// 1024).
const memoryBenchVar = "PATHWAYS_BENCH_MEMORY_MIB"

// TestDataplaneMemory prints the resident memory of the test process (the
// proxy server, and for the cluster its worker too, and the PJRT CPU plugin's
// device memory, all in this one process) while JAX puts one large array
// through it, reads it back and deletes it: the peak of each phase and the
// level at its end, above the level before, in multiples of the array's size.
func TestDataplaneMemory(t *testing.T) {
	if os.Getenv(benchVar) != "1" {
		t.Skip("a benchmark: set " + benchVar + "=1 (scripts/bench.sh does)")
	}
	if _, err := residentBytes(); err != nil {
		t.Skipf("no resident memory figure here: %v", err)
	}
	python := testenv.Python(t)
	mib := int64(1024)
	if v := os.Getenv(memoryBenchVar); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n <= 0 {
			t.Fatalf("%s=%q: want a positive number of MiB", memoryBenchVar, v)
		}
		mib = n
	}
	size := mib << 20
	for _, backend := range []string{"pjrt_cpu", "cluster_pjrt_cpu", "gocpu", "cluster_gocpu"} {
		t.Run(backend, func(t *testing.T) {
			s := startBenchServer(t, interopBackendNamed(t, backend), python, nil)
			m := startRSSMonitor()
			defer m.stop()
			var base int64
			var report bytes.Buffer
			_, err := s.runSteps(t, "bench_memory.py", func(step string) {
				// What the server gives back, it gives back a second after
				// the last release.
				time.Sleep(2 * time.Second)
				peak, now := m.phase()
				if step == "before" {
					base = now
					return
				}
				x := func(n int64) float64 { return float64(n-base) / float64(size) }
				fmt.Fprintf(&report, "; %s: peak %+.2fx, then %+.2fx", step, x(peak), x(now))
			}, "BENCH_MEMORY_BYTES="+strconv.FormatInt(size, 10))
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s, %d MiB array, resident memory above the start in array sizes%s", backend, mib, report.String())
		})
	}
}

// rssMonitor samples the process's resident memory every millisecond and
// keeps the peak of the current phase.
type rssMonitor struct {
	mu   sync.Mutex
	peak int64
	done chan struct{}
	wg   sync.WaitGroup
}

func startRSSMonitor() *rssMonitor {
	m := &rssMonitor{done: make(chan struct{})}
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-m.done:
				return
			case <-tick.C:
				m.sample()
			}
		}
	}()
	return m
}

func (m *rssMonitor) sample() int64 {
	n, _ := residentBytes()
	m.mu.Lock()
	defer m.mu.Unlock()
	m.peak = max(m.peak, n)
	return n
}

// phase returns the peak since the last call and the level now, and starts a
// new phase.
func (m *rssMonitor) phase() (peak, now int64) {
	now = m.sample()
	m.mu.Lock()
	defer m.mu.Unlock()
	peak, m.peak = m.peak, now
	return peak, now
}

func (m *rssMonitor) stop() {
	close(m.done)
	m.wg.Wait()
}

// residentBytes is the process's resident memory, from /proc/self/statm.
func residentBytes() (int64, error) {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0, err
	}
	var size, resident int64
	if _, err := fmt.Sscan(string(b), &size, &resident); err != nil {
		return 0, err
	}
	return resident * int64(os.Getpagesize()), nil
}
