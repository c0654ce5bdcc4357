package proxyserver_test

import (
	"net"
	"testing"

	"google.golang.org/grpc"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/proxy"
	"github.com/openpathways/pathways/proxy/proxyserver"
	"github.com/openpathways/pathways/proxy/proxyserver/proxyservertest"
)

// TestShutdownUnderRegisterWaitsForSessions: mounted with Register on the
// caller's grpc.Server, Shutdown returned before the sessions had freed their
// arrays. It now returns after, as under Serve, and leaves the caller's server
// running.
func TestShutdownUnderRegisterWaitsForSessions(t *testing.T) {
	srv, backend := proxyservertest.OverGocpu(t, 2, proxyserver.Config{})
	gs := grpc.NewServer(srv.ServerOptions()...)
	srv.Register(gs)
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go gs.Serve(lis)
	defer gs.Stop()

	ctx := ctxT(t)
	c, err := proxy.Dial(ctx, "grpc://"+lis.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for range 3 {
		if _, err := c.MakeArrayFromHostBuffer(ctx, make([]byte, 8), ifrt.ArraySpec{DType: ifrt.F32, Shape: ifrt.Shape{2}, Sharding: ifrt.NewSingleDeviceSharding(c.AddressableDevices()[0], "")}, nil); err != nil {
			t.Fatal(err)
		}
	}
	if arrays, _ := backend.Live(); arrays != 3 {
		t.Fatalf("the backend holds %d arrays, want 3", arrays)
	}
	if err := srv.Shutdown(ctx); err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	if arrays, _ := backend.Live(); arrays != 0 || srv.Sessions() != 0 {
		t.Errorf("when Shutdown returned the backend held %d arrays and %d sessions were open; want none", arrays, srv.Sessions())
	}
	again, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Serve(again); err != proxyserver.ErrServerClosed {
		t.Errorf("Serve after Shutdown = %v, want ErrServerClosed", err)
	}
}
