package rm_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/test/bufconn"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/internal/testenv"
	"github.com/openpathways/pathways/rm"
	"github.com/openpathways/pathways/rm/rmpb"
)

// defaultTestTimeout bounds every wait; tests never assert on elapsed time.
const defaultTestTimeout = 20 * time.Second

// quiet is a logger that drops everything below Error, so test output stays
// readable; run with -v and change it to see the logs.
var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

func testContext(t *testing.T) context.Context {
	t.Helper()
	ctx := testenv.Context(t, defaultTestTimeout)
	return ctx
}

// network is an in-memory network with one address whose listener can be
// replaced, to restart a resource manager "at the same address".
type network struct {
	mu  sync.Mutex
	lis *bufconn.Listener
}

func (n *network) listen() *bufconn.Listener {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.lis = bufconn.Listen(1 << 20)
	return n.lis
}

func (n *network) dial(ctx context.Context, _ string) (net.Conn, error) {
	n.mu.Lock()
	lis := n.lis
	n.mu.Unlock()
	if lis == nil {
		return nil, errors.New("connection refused")
	}
	return lis.DialContext(ctx)
}

func (n *network) dialOption() grpc.DialOption { return grpc.WithContextDialer(n.dial) }

// rmServer is a running resource manager.
type rmServer struct {
	*rm.Server
	served chan error // Serve's result
}

// startRM starts a resource manager on net and closes it at cleanup.
func startRM(t *testing.T, n *network, cfg rm.Config) *rmServer {
	t.Helper()
	if cfg.Logger == nil {
		cfg.Logger = quiet
	}
	s, err := rm.New(cfg)
	if err != nil {
		t.Fatalf("rm.New(%+v): %v", cfg, err)
	}
	lis := n.listen()
	r := &rmServer{Server: s, served: make(chan error, 1)}
	go func() { r.served <- s.Serve(lis) }()
	t.Cleanup(func() { s.Close() })
	return r
}

// rawClient is a plain gRPC client of the service on n.
func rawClient(t *testing.T, n *network) rmpb.ResourceManagerClient {
	t.Helper()
	conn, err := grpc.NewClient("passthrough:///rm", n.dialOption(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return rmpb.NewResourceManagerClient(conn)
}

// newClient is an rm.Client on n.
func newClient(t *testing.T, n *network) *rm.Client {
	t.Helper()
	c, err := rm.NewClient("passthrough:///rm", rm.WithLogger(quiet),
		rm.WithDialOptions(n.dialOption()), rm.WithBackoff(5*time.Millisecond, 50*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// localDevices describes n devices as a CPU worker would.
func localDevices(n int) []rm.LocalDevice {
	ds := make([]rm.LocalDevice, n)
	for i := range ds {
		ds[i] = rm.LocalDevice{
			Kind: "cpu", LocalHardwareID: i,
			MemoryKinds:       []ifrt.MemoryKind{ifrt.MemoryKindDevice, ifrt.MemoryKindUnpinnedHost},
			DefaultMemoryKind: ifrt.MemoryKindDevice,
		}
	}
	return ds
}

// registerReq is a valid RegisterWorker request for n devices.
func registerReq(slice, host int32, addr, inc string, n int) *rmpb.RegisterWorkerRequest {
	req := &rmpb.RegisterWorkerRequest{SliceIndex: slice, HostIndex: host, Address: addr, Incarnation: inc, Platform: "cpu"}
	for i := range n {
		req.Devices = append(req.Devices, &rmpb.LocalDevice{
			Kind: "cpu", LocalHardwareId: int32(i), MemoryKinds: []string{"device"}, DefaultMemoryKind: "device",
		})
	}
	return req
}

// heartbeat opens a heartbeat stream for lease and returns it once the RM
// has answered its first heartbeat; closing its send side loses the worker.
func heartbeat(ctx context.Context, t *testing.T, raw rmpb.ResourceManagerClient, lease uint64) rmpb.ResourceManager_HeartbeatClient {
	t.Helper()
	s, err := raw.Heartbeat(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Send(&rmpb.HeartbeatRequest{LeaseId: lease}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Recv(); err != nil {
		t.Fatalf("heartbeat answer: %v", err)
	}
	return s
}

// watch runs c.Watch in the background and hands its events over a channel.
func watch(t *testing.T, c *rm.Client) <-chan rm.Event {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	ch := make(chan rm.Event, 1024)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ev, err := range c.Watch(ctx) {
			if err != nil {
				continue // the watch goes on, or ends after this error
			}
			ch <- ev
		}
	}()
	t.Cleanup(func() { cancel(); <-done })
	return ch
}

// next returns the next event, failing the test at the deadline.
func next(ctx context.Context, t *testing.T, ch <-chan rm.Event) rm.Event {
	t.Helper()
	select {
	case ev := <-ch:
		return ev
	case <-ctx.Done():
		t.Fatalf("waiting for a watch event: %v", ctx.Err())
	}
	panic("unreachable")
}

// waitFor skips events until one of type typ arrives and returns it.
func waitFor(ctx context.Context, t *testing.T, ch <-chan rm.Event, typ rm.EventType) rm.Event {
	t.Helper()
	for {
		if ev := next(ctx, t, ch); ev.Type == typ {
			return ev
		}
	}
}
