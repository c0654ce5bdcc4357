package worker_test

import (
	"errors"
	"net"
	"testing"

	"github.com/openpathways/pathways/internal/rpc"
	"github.com/openpathways/pathways/internal/testenv"
	"github.com/openpathways/pathways/proxy/proxyserver"
	"github.com/openpathways/pathways/rm"
	"github.com/openpathways/pathways/worker"
)

// TestServeAfterShutdownRefuses: worker.Serve called after Shutdown served
// again. A stopped worker now refuses with the module's one ErrServerClosed,
// the value the RM and the proxy server return too, and Shutdown returned only
// once the sessions had freed their arrays.
func TestServeAfterShutdownRefuses(t *testing.T) {
	s := startStandalone(t)
	ctx := testenv.Context(t, defaultTestTimeout)
	c := dialWithArray(t, ctx, s)
	defer c.Close()
	if err := s.w.Shutdown(ctx); err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	if arrays, _ := s.backend.Live(); arrays != 0 {
		t.Errorf("when Shutdown returned the backend held %d arrays; want none", arrays)
	}
	if err := <-s.served; err != nil {
		t.Errorf("Serve after Shutdown = %v, want nil", err)
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.w.Serve(lis); !errors.Is(err, worker.ErrServerClosed) {
		t.Errorf("Serve called after Shutdown = %v, want ErrServerClosed", err)
	}
	if worker.ErrServerClosed != rpc.ErrServerClosed || rm.ErrServerClosed != rpc.ErrServerClosed || proxyserver.ErrServerClosed != rpc.ErrServerClosed {
		t.Errorf("the servers' ErrServerClosed values differ")
	}
}
