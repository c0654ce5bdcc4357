package interop_test

import (
	"context"
	"os"
	"strconv"
	"sync"
	"testing"

	"google.golang.org/grpc"

	"github.com/openpathways/pathways/internal/testenv"
	"github.com/openpathways/pathways/proxy/proxyserver"
)

// methodCounter counts the unary calls the server receives, by method.
type methodCounter struct {
	mu sync.Mutex
	n  map[string]int
}

func (c *methodCounter) intercept(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	c.mu.Lock()
	if c.n == nil {
		c.n = map[string]int{}
	}
	c.n[info.FullMethod]++
	c.mu.Unlock()
	return handler(ctx, req)
}

func (c *methodCounter) count(method string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n[method]
}

const readFromDiskMethod = "/xla.ifrt.proxy.GrpcIfrtService/HostBufferReadFromDisk"

// largeTransferEnv is the client environment that sends buffers of at least
// threshold bytes through dir.
func largeTransferEnv(dir string, threshold int) []string {
	return []string{
		"IFRT_PROXY_GRPC_LARGE_TRANSFER_OPTIMIZATION_DIRECTORY=" + dir,
		"IFRT_PROXY_GRPC_LARGE_TRANSFER_OPTIMIZATION_THRESHOLD_BYTES=" + strconv.Itoa(threshold),
	}
}

// TestInteropLargeTransfer: with jaxlib's large-transfer variables set, every
// pinned jaxlib sends its large device_put through a file in the shared
// directory, which the server reads, deletes and serves bit-exact; small
// buffers still stream.
func TestInteropLargeTransfer(t *testing.T) {
	if testing.Short() {
		t.Skip("interop tests run real JAX processes; skipped with -short")
	}
	testenv.ForEachJAX(t, func(t *testing.T, jax testenv.JAX) {
		dir := t.TempDir()
		calls := &methodCounter{}
		s := startBenchServer(t, interopBackendNamed(t, "gocpu"), jax.Python, func(c *proxyserver.Config) {
			c.LargeTransferDirectory = dir
			c.ServerOptions = []grpc.ServerOption{grpc.ChainUnaryInterceptor(calls.intercept)}
		})
		out, err := s.runScript(t, "large_transfer.py", largeTransferEnv(dir, 1<<20)...)
		if err != nil {
			t.Fatal(err)
		}
		for name, ok := range decode[map[string]bool](t, out, "bit_exact") {
			if !ok {
				t.Errorf("%s: not bit-exact through the large-transfer path", name)
			}
		}
		// The 16 MiB array; the small one and the jit results stay on gRPC.
		if n := calls.count(readFromDiskMethod); n != 1 {
			t.Errorf("the server received %d HostBufferReadFromDisk calls, want 1 (the 16 MiB device_put)", n)
		}
		if left, _ := os.ReadDir(dir); len(left) != 0 {
			t.Errorf("files left in the large-transfer directory: %v", left)
		}
	})
}
