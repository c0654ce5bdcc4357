package interop_test

import (
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/internal/testenv"
)

// TestStepFigures prints the tiny step's added cost through a proxy straight
// over the PJRT CPU plugin and through a one-worker cluster on it, against
// local CPU JAX in the same process, and the ratio of the two added costs;
// then the step rate of 4 JAX clients, each on a device of its own slice of a
// 4-slice cluster behind one proxy, running together, as a share of each
// one's rate alone. scripts/bench.sh runs it; it asserts no time.
func TestStepFigures(t *testing.T) {
	if os.Getenv(benchVar) != "1" {
		t.Skip("a benchmark: set " + benchVar + "=1 (scripts/bench.sh does)")
	}
	python := testenv.Python(t)
	added := map[string]float64{}
	for _, name := range []string{"pjrt_cpu", "cluster_pjrt_cpu"} {
		t.Run(name, func(t *testing.T) {
			s := startBenchServer(t, interopBackendNamed(t, name), python, nil)
			out, err := s.runScript(t, "bench_step.py", "JAX_PLATFORMS=proxy,cpu", "LOCAL=1")
			if err != nil {
				t.Fatal(err)
			}
			f := func(k string) float64 { return decode[float64](t, out, k) }
			added[name] = f("added_step_ms")
			t.Logf("%s: tiny step %.3f ms (local CPU %.3f ms, added %.3f ms)", name, f("proxy_step_ms"), f("local_step_ms"), f("added_step_ms"))
		})
	}
	if p, c := added["pjrt_cpu"], added["cluster_pjrt_cpu"]; p > 0 && c > 0 {
		t.Logf("tiny step: added cost through the cluster = %.2fx the added cost of a proxy straight over the backend", c/p)
	}
	t.Run("4_clients_4_slices", func(t *testing.T) { concurrentClients(t, python, 4) })
}

// concurrentClients runs n JAX clients against one proxy over an n-slice
// cluster of PJRT CPU workers, client i on the first device of slice i: each
// measures its step alone (one after another, the others connected and idle),
// then all together, and the test prints each one's rate together as a share
// of its rate alone. It also prints what bounds that share when the processor
// is the limit: the CPU time a step takes alone, in the client and in this
// process (proxy and workers), against the step's time. n clients whose steps
// need C of CPU each, on P cores, cannot each keep more than P·T/(n·C) of a
// solo rate 1/T.
func concurrentClients(t *testing.T, python string, n int) {
	b := interopBackendNamed(t, "cluster_pjrt_cpu")
	b.newClient = func(t *testing.T) ifrt.Client { return startCluster(t, n, lammpsBackend(t, 8/n)) }
	s := startBenchServer(t, b, python, nil)
	turn := make([]chan struct{}, n+1) // turn[i] closed: client i may measure alone
	for i := range turn {
		turn[i] = make(chan struct{})
	}
	close(turn[0])
	var together sync.WaitGroup
	together.Add(n)
	outs := make([]map[string]json.RawMessage, n)
	errs := make([]error, n)
	serverCPU := make([]time.Duration, n) // this process's CPU time during client i's solo phase
	var done sync.WaitGroup
	for i := range n {
		done.Add(1)
		go func() {
			defer done.Done()
			var once sync.Once
			leave := func() { // the next client's turn, and this one is ready for all together
				once.Do(func() { close(turn[i+1]); together.Done() })
			}
			defer leave() // a client that failed holds no one up
			outs[i], errs[i] = s.runSteps(t, "bench_step.py", func(step string) {
				switch step {
				case "solo":
					<-turn[i]
					serverCPU[i] = -processCPU(t)
				case "together":
					serverCPU[i] += processCPU(t)
					leave()
					together.Wait()
				}
			}, "PHASES=1", fmt.Sprintf("SLICE=%d", i))
		}()
	}
	done.Wait()
	var shares, bounds []string
	for i := range n {
		if errs[i] != nil {
			t.Fatalf("client %d: %v", i, errs[i])
		}
		solo, both := decode[float64](t, outs[i], "solo_step_ms"), decode[float64](t, outs[i], "together_step_ms")
		shares = append(shares, fmt.Sprintf("client %d %.3f -> %.3f ms = %.2fx", i, solo, both, solo/both))
		steps := decode[float64](t, outs[i], "steps")
		client, server := decode[float64](t, outs[i], "solo_cpu_ms"), float64(serverCPU[i].Microseconds())/1e3/steps
		cores := float64(runtime.NumCPU())
		bounds = append(bounds, fmt.Sprintf("client %d %.3f+%.3f ms CPU per %.3f ms step: at most %.2fx",
			i, client, server, solo, min(1, cores*solo/(float64(n)*(client+server)))))
	}
	t.Logf("%d concurrent clients on %d slices, step rate together as a share of alone: %s", n, n, strings.Join(shares, "; "))
	t.Logf("CPU per step alone (client + proxy and workers) and the share %d clients can keep on %d cores: %s", n, runtime.NumCPU(), strings.Join(bounds, "; "))
}

// processCPU is the CPU time this process has used so far, user and system.
// It may run on any goroutine.
func processCPU(t *testing.T) time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		t.Errorf("getrusage: %v", err)
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}
