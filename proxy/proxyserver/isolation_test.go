package proxyserver_test

import (
	"bytes"
	"context"
	"errors"
	"math"
	"net"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/proto"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/proxy/internal/wire"
	"github.com/openpathways/pathways/proxy/proxypb"
	"github.com/openpathways/pathways/proxy/proxyserver"
)

// Tests of issue 11's defect 4: a session's host buffers are its own. Session B
// read A's uploaded bytes and A's device_get result, deleted A's buffer, and
// stored A's next handle so that A's array got B's bytes.

// from returns a harness whose client connects to h's TCP port from the local
// address ip (another loopback address stands for another machine).
func (h *harness) from(t *testing.T, ip string) *harness {
	t.Helper()
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
	conn, err := grpc.NewClient(h.addr,
		grpc.WithContextDialer(func(ctx context.Context, a string) (net.Conn, error) { return d.DialContext(ctx, "tcp", a) }),
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(math.MaxInt32)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	other := *h
	other.conn, other.client = conn, proxypb.NewGrpcIfrtServiceClient(conn)
	return &other
}

// as returns a view of s whose host-buffer calls go through h's client, under
// s's session id.
func (s *sess) as(h *harness) *sess { return &sess{t: s.t, h: h, id: s.id} }

func TestHostBuffersBelongToTheirSession(t *testing.T) {
	h := newTCPHarness(t, nil)
	a := h.session(t)
	mallory := h.from(t, "127.0.0.2")
	b := mallory.session(t)
	if b.id == a.id+1 || b.id == a.id-1 {
		t.Errorf("session ids %d and %d are sequential", a.id, b.id)
	}
	// B knows A's session id (say it leaked) but calls from another host.
	spy := a.as(mallory)

	// A's upload, not yet consumed.
	secret := f32bytes(1, 2, 3, 4)
	if err := a.store(10, secret); err != nil {
		t.Fatal(err)
	}
	if got, _, err := spy.lookup(10); !errorsIsCode(err, codes.NotFound) {
		t.Errorf("B read A's uploaded buffer: %v, %v; want NOT_FOUND", got, err)
	}
	if _, err := mallory.client.HostBufferDelete(ctxT(t), &proxypb.GrpcHostBufferDeleteRequest{SessionId: a.id, Handle: 10}); !errorsIsCode(err, codes.NotFound) {
		t.Errorf("B deleted A's buffer: %v, want NOT_FOUND", err)
	}
	// B pre-stores the handle A uses next.
	if err := spy.store(11, f32bytes(66, 66, 66, 66)); !errorsIsCode(err, codes.NotFound) {
		t.Errorf("B stored into A's session: %v, want NOT_FOUND", err)
	}
	mustOK(t, a.call(makeArrayReq(t, 10, ifrt.F32, ifrt.Shape{4}, h.single(0))))
	a.makeArray(11, f32bytes(5, 6, 7, 8), ifrt.F32, ifrt.Shape{4}, h.single(0))
	// A's device_get result.
	resp := a.call(&proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_CopyToHostBufferRequest{CopyToHostBufferRequest: &proxypb.CopyToHostBufferRequest{
		ArrayHandle: 11, HostBufferHandle: 12}}})
	mustOK(t, resp)
	if got, _, err := spy.lookup(12); !errorsIsCode(err, codes.NotFound) {
		t.Errorf("B read A's device_get result: %v, %v; want NOT_FOUND", got, err)
	}
	got, _, err := a.lookup(12)
	if err != nil || !bytes.Equal(got, f32bytes(5, 6, 7, 8)) {
		t.Errorf("A's own device_get = %v, %v; want its own bytes", f32s(got), err)
	}
	back, err := a.fetch(10, 13, nil)
	if err != nil || !bytes.Equal(back, secret) {
		t.Errorf("A's first array = %v, %v; want %v", f32s(back), err, f32s(secret))
	}

	// The session's token, which only its client learns (in the stream's
	// header), lets its own host-buffer calls come from anywhere, as
	// OpenPathways' client's second connection does.
	token := a.token(t)
	if token == "" {
		t.Fatal("the session stream's header carries no token")
	}
	if err := spy.storeWith(14, f32bytes(9), token); err != nil {
		t.Errorf("a store with the session's token from another host: %v", err)
	}
	if err := spy.storeWith(15, f32bytes(9), "guess"); !errorsIsCode(err, codes.NotFound) {
		t.Errorf("a store with a wrong token: %v, want NOT_FOUND", err)
	}
}

// TestSessionArraysNeedTheToken: the arrays a worker's peers read are reached
// with the session's token only.
func TestSessionArraysNeedTheToken(t *testing.T) {
	h := newHarness(t, nil)
	s := h.session(t)
	s.makeArray(1, f32bytes(1, 2), ifrt.F32, ifrt.Shape{2}, h.single(0))
	if _, err := h.srv.SessionArray(ctxT(t), s.id, "", 1, 0); !ifrtIs(err, ifrt.ErrNotFound) {
		t.Errorf("SessionArray without the token: %v, want NOT_FOUND", err)
	}
	if _, err := h.srv.SessionArray(ctxT(t), s.id, s.token(t), 1, 0); err != nil {
		t.Errorf("SessionArray with the token: %v", err)
	}
}

// token returns the session token the server sent in the stream's header.
func (s *sess) token(t *testing.T) string {
	t.Helper()
	md, err := s.stream.Header()
	if err != nil {
		t.Fatal(err)
	}
	if v := md.Get(wire.SessionTokenMetadataKey); len(v) > 0 {
		return v[0]
	}
	return ""
}

// storeWith stores data under handle with a session token header.
func (s *sess) storeWith(handle uint64, data []byte, token string) error {
	meta, _ := proto.Marshal(&proxypb.GrpcHostBufferStoreMetadata{SessionId: s.id, Handle: handle, BufferSize: int64(len(data))})
	ctx := metadata.AppendToOutgoingContext(ctxT(s.t), proxyserver.HostBufferMetadataKey, string(meta), wire.SessionTokenMetadataKey, token)
	st, err := s.h.client.HostBufferStore(ctx)
	if err != nil {
		return err
	}
	st.Send(&proxypb.GrpcHostBufferStoreRequest{Data: data})
	_, err = st.CloseAndRecv()
	return err
}

func ifrtIs(err, target error) bool { return errors.Is(err, target) }
