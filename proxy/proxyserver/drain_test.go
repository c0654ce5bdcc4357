package proxyserver_test

import (
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/proto"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/internal/faultnet"
	"github.com/openpathways/pathways/proxy/internal/wire"
	"github.com/openpathways/pathways/proxy/proxypb"
	"github.com/openpathways/pathways/proxy/proxyserver"
)

// TestShutdownDrains: SIGTERM failed a 0.5 GiB upload in flight. Now Shutdown
// refuses new sessions and reports NOT_SERVING, but the session's device_put in
// progress (an upload, and the request waiting for it) finishes; then, with
// nothing in progress, the server ends the session and stops.
func TestShutdownDrains(t *testing.T) {
	h := newHarness(t, nil)
	s := h.session(t)
	data := iota32(1 << 20) // 4 MiB
	meta, _ := proto.Marshal(&proxypb.GrpcHostBufferStoreMetadata{SessionId: s.id, Handle: 1, BufferSize: int64(len(data))})
	up, err := h.client.HostBufferStore(metadata.AppendToOutgoingContext(ctxT(t), proxyserver.HostBufferMetadataKey, string(meta)))
	if err != nil {
		t.Fatal(err)
	}
	half := len(data) / 2
	if err := up.Send(&proxypb.GrpcHostBufferStoreRequest{Data: data[:half]}); err != nil {
		t.Fatal(err)
	}
	if md, _ := up.Header(); md == nil {
		t.Fatal("the upload was not taken")
	}
	// As jaxlib does, the request that consumes the buffer goes out at once.
	mk := s.send(makeArrayReq(t, 1, ifrt.F32, ifrt.Shape{1 << 20}, h.single(0)))

	shut := make(chan error, 1)
	go func() { shut <- h.srv.Shutdown(ctxT(t)) }()
	health := grpc_health_v1.NewHealthClient(h.conn)
	for {
		r, err := health.Check(ctxT(t), &grpc_health_v1.HealthCheckRequest{})
		if err != nil {
			t.Fatal(err)
		}
		if r.GetStatus() == grpc_health_v1.HealthCheckResponse_NOT_SERVING {
			break
		}
	}
	sm, _ := proto.Marshal(&proxypb.GrpcIfrtSessionMetadata{Version: &proxypb.IfrtProxyVersion{ProtocolVersion: wire.ProtocolMax, IfrtSerdesVersionNumber: 3}})
	st, err := h.client.IfrtSession(metadata.AppendToOutgoingContext(ctxT(t), proxyserver.SessionMetadataKey, string(sm)))
	if err == nil {
		_, err = st.Recv()
	}
	if !errorsIsCode(err, codes.Unavailable) {
		t.Errorf("a new session while draining: %v, want UNAVAILABLE", err)
	}

	if err := up.Send(&proxypb.GrpcHostBufferStoreRequest{Data: data[half:]}); err != nil {
		t.Fatalf("the rest of the upload: %v", err)
	}
	if _, err := up.CloseAndRecv(); err != nil {
		t.Fatalf("the upload in flight at Shutdown failed: %v", err)
	}
	mustOK(t, s.wait(mk))
	if err := <-shut; err != nil {
		t.Errorf("Shutdown: %v", err)
	}
	<-s.ended
	h.expectFreed(t)
}

// TestVanishedClientIsFreed: a client behind a dead network path kept its
// session and arrays for good (grpc-go pings after 2 h idle). The server's
// keepalive drops the connection, which ends the session.
func TestVanishedClientIsFreed(t *testing.T) {
	h := newTCPHarness(t, func(c *proxyserver.Config) {
		c.KeepaliveInterval, c.KeepaliveTimeout = time.Second, time.Second
	})
	path, err := faultnet.Listen(h.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer path.Close()
	viaPath := *h
	viaPath.addr = path.Addr()
	client := viaPath.from(t, "127.0.0.1")
	s := client.session(t)
	s.makeArray(1, iota32(1<<18), ifrt.F32, ifrt.Shape{1 << 18}, h.single(0))
	if a, _ := h.backend.Live(); a != 1 {
		t.Fatalf("the backend holds %d arrays, want 1", a)
	}
	path.Freeze() // packets stop, the sockets stay open: no FIN, no RST
	h.expectFreed(t)
}
