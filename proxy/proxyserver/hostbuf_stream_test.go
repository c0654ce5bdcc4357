package proxyserver_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"math"
	"net"
	"testing"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/ifrt/gocpu"
	"github.com/openpathways/pathways/proxy/proxypb"
	"github.com/openpathways/pathways/proxy/proxyserver"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	grpcstatus "google.golang.org/grpc/status"
	"google.golang.org/grpc/test/bufconn"
	"google.golang.org/protobuf/proto"
)

// newStockHarness serves the proxy on a grpc.Server of its own, without
// rpc.ServerOptions: the stock protobuf codec decodes and encodes the
// host-buffer chunks.
func newStockHarness(t *testing.T) *harness {
	backend, err := gocpu.New(gocpu.Config{Devices: 8})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { backend.Close() })
	srv, err := proxyserver.New(proxyserver.Config{Backend: backend, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	gs := grpc.NewServer()
	srv.Register(gs)
	lis := bufconn.Listen(1 << 20)
	go gs.Serve(lis)
	t.Cleanup(func() { srv.Close(); gs.Stop() })
	conn, err := grpc.NewClient("passthrough:///bufnet",
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return lis.DialContext(ctx) }),
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(math.MaxInt32), grpc.MaxCallSendMsgSize(math.MaxInt32)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return &harness{t: t, srv: srv, backend: backend, conn: conn, client: proxypb.NewGrpcIfrtServiceClient(conn), logs: &syncBuffer{}}
}

// TestHostBuffersRoundTripOnEitherCodec: a buffer of several chunks (past the
// sizes the receive buffer grows through) goes up, into an array and back
// intact, whether the server's codec hands the chunks over as gRPC buffers
// (Serve) or as decoded messages (a grpc.Server of the caller's).
func TestHostBuffersRoundTripOnEitherCodec(t *testing.T) {
	for name, newH := range map[string]func(*testing.T) *harness{
		"Serve":       func(t *testing.T) *harness { return newHarness(t, nil) },
		"stock codec": newStockHarness,
	} {
		t.Run(name, func(t *testing.T) {
			h := newH(t)
			s := h.session(t)
			data := make([]byte, 3<<20+5)
			for i := range data {
				data[i] = byte(i * 7)
			}
			s.makeArray(1, data, ifrt.U8, ifrt.Shape{int64(len(data))}, h.single(0))
			back, err := s.fetch(1, 2, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(back, data) {
				t.Errorf("%d bytes came back, equal to the %d sent: %v", len(back), len(data), bytes.Equal(back, data))
			}

			// More bytes than announced are lost data, the session goes on.
			meta, _ := proto.Marshal(&proxypb.GrpcHostBufferStoreMetadata{SessionId: s.id, Handle: 3, BufferSize: 2 << 20})
			st, err := h.client.HostBufferStore(metadata.AppendToOutgoingContext(ctxT(t), proxyserver.HostBufferMetadataKey, string(meta)))
			if err != nil {
				t.Fatal(err)
			}
			for range 3 {
				if st.Send(&proxypb.GrpcHostBufferStoreRequest{Data: make([]byte, 1<<20)}) != nil {
					break
				}
			}
			if _, err := st.CloseAndRecv(); grpcstatus.Code(err) != codes.DataLoss {
				t.Errorf("3 MiB for an announced 2 MiB: %v, want DATA_LOSS", err)
			}
			mustOK(t, s.call(&proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_InitRequest{InitRequest: &proxypb.InitRequest{}}}))
		})
	}
}

// TestHostBufferStoreRejectsMalformedChunks: bytes that are no
// GrpcHostBufferStoreRequest are INVALID_ARGUMENT, and the session goes on.
func TestHostBufferStoreRejectsMalformedChunks(t *testing.T) {
	h := newHarness(t, nil)
	s := h.session(t)
	for name, msg := range map[string][]byte{
		"length past the end": {0x0a, 5, 1, 2},
		"group wire type":     {0x0b},
	} {
		meta, _ := proto.Marshal(&proxypb.GrpcHostBufferStoreMetadata{SessionId: s.id, Handle: 9, BufferSize: 8})
		ctx := metadata.AppendToOutgoingContext(ctxT(t), proxyserver.HostBufferMetadataKey, string(meta))
		st, err := h.conn.NewStream(ctx, &proxypb.GrpcIfrtService_ServiceDesc.Streams[1], proxypb.GrpcIfrtService_HostBufferStore_FullMethodName, grpc.ForceCodecV2(rawCodec{}))
		if err != nil {
			t.Fatal(err)
		}
		st.SendMsg(&msg)
		st.CloseSend()
		if err := st.RecvMsg(new([]byte)); grpcstatus.Code(err) != codes.InvalidArgument {
			t.Errorf("%s: %v, want INVALID_ARGUMENT", name, err)
		}
	}
	mustOK(t, s.call(&proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_InitRequest{InitRequest: &proxypb.InitRequest{}}}))
}
