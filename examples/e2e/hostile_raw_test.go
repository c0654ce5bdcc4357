package e2e

import (
	"context"
	"errors"
	"io"
	"math"
	"net"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/mem"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/openpathways/pathways/internal/rpc"
	"github.com/openpathways/pathways/proxy/proxypb"
)

// The raw gRPC clients of the hostile suite: what an attacker (or a buggy client)
// can send with our protos, nothing of our client libraries in between.

// IFRT Proxy metadata keys (upstream's; the suite spells them out as an outside
// client would).
const (
	sessionMetadataKey    = "ifrt-proxy-grpc-ifrt-session-metadata-bin"
	hostBufferMetadataKey = "ifrt-proxy-grpc-host-buffer-store-metadata-bin"
	sessionTokenKey       = "openpathways-session-token"
)

// dialRaw connects to addr from the local address from ("" for any), with
// extra dial options (credentials).
func dialRaw(t *testing.T, addr, from string, opts ...grpc.DialOption) *grpc.ClientConn {
	t.Helper()
	d := &net.Dialer{}
	if from != "" {
		d.LocalAddr = &net.TCPAddr{IP: net.ParseIP(from)}
	}
	base := []grpc.DialOption{
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithContextDialer(func(ctx context.Context, a string) (net.Conn, error) { return d.DialContext(ctx, "tcp", a) }),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(math.MaxInt32), grpc.MaxCallSendMsgSize(math.MaxInt32)),
	}
	conn, err := grpc.NewClient(addr, append(base, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// tokenAuth is the dial option of a member of the cluster.
func tokenAuth(token string) grpc.DialOption {
	return rpc.Auth{Token: token}.DialOptions()[1]
}

// rawSession is one IfrtSession driven one request at a time.
type rawSession struct {
	t      *testing.T
	conn   *grpc.ClientConn
	client proxypb.GrpcIfrtServiceClient
	stream proxypb.GrpcIfrtService_IfrtSessionClient
	cancel context.CancelFunc
	id     uint64
	token  string
	nextOp uint64
}

func sessionMetadata(ctx context.Context) context.Context {
	meta, _ := proto.Marshal(&proxypb.GrpcIfrtSessionMetadata{Version: &proxypb.IfrtProxyVersion{ProtocolVersion: 25, IfrtSerdesVersionNumber: 3}})
	return metadata.AppendToOutgoingContext(ctx, sessionMetadataKey, string(meta))
}

// openSession opens a session on conn and sends Init; err is the status of a
// refused one.
func openSession(t *testing.T, ctx context.Context, conn *grpc.ClientConn) (*rawSession, error) {
	t.Helper()
	sctx, cancel := context.WithCancel(sessionMetadata(ctx))
	client := proxypb.NewGrpcIfrtServiceClient(conn)
	stream, err := client.IfrtSession(sctx)
	if err != nil {
		cancel()
		return nil, err
	}
	s := &rawSession{t: t, conn: conn, client: client, stream: stream, cancel: cancel}
	resp, err := s.call(&proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_InitRequest{InitRequest: &proxypb.InitRequest{}}})
	if err != nil {
		cancel()
		return nil, err
	}
	s.id = resp.GetInitResponse().GetSessionId()
	if md, err := stream.Header(); err == nil && len(md.Get(sessionTokenKey)) > 0 {
		s.token = md.Get(sessionTokenKey)[0]
	}
	t.Cleanup(s.close)
	return s, nil
}

func mustSession(t *testing.T, ctx context.Context, conn *grpc.ClientConn) *rawSession {
	t.Helper()
	s, err := openSession(t, ctx, conn)
	if err != nil {
		t.Fatalf("opening a session: %v", err)
	}
	return s
}

func (s *rawSession) close() { s.cancel() }

// call sends req and returns its response; err is the stream's status when the
// session ended instead.
func (s *rawSession) call(req *proxypb.IfrtRequest) (*proxypb.IfrtResponse, error) {
	s.nextOp++
	req.RequestMetadata = &proxypb.RequestMetadata{OpId: s.nextOp}
	if err := s.stream.Send(req); err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	for {
		resp, err := s.stream.Recv()
		if err != nil {
			return nil, err
		}
		if resp.GetResponseMetadata().GetOpId() == s.nextOp {
			return resp, nil
		}
	}
}

// callStatus sends req and returns the request's status: its error, or the
// session's when the session ended.
func (s *rawSession) callStatus(req *proxypb.IfrtRequest) (*proxypb.IfrtResponse, *status.Status) {
	resp, err := s.call(req)
	if err != nil {
		return nil, status.Convert(err)
	}
	st := resp.GetResponseMetadata().GetStatus()
	return resp, status.New(codeOf(st.GetCode()), st.GetMessage())
}

// store uploads data under handle; extra metadata pairs are added.
func (s *rawSession) store(ctx context.Context, client proxypb.GrpcIfrtServiceClient, handle uint64, data []byte, announced int64, kv ...string) error {
	meta, _ := proto.Marshal(&proxypb.GrpcHostBufferStoreMetadata{SessionId: s.id, Handle: handle, BufferSize: announced})
	st, err := client.HostBufferStore(metadata.AppendToOutgoingContext(ctx, append([]string{hostBufferMetadataKey, string(meta)}, kv...)...))
	if err != nil {
		return err
	}
	for off := 0; off < len(data); off += 1 << 20 {
		if err := st.Send(&proxypb.GrpcHostBufferStoreRequest{Data: data[off:min(off+1<<20, len(data))]}); err != nil {
			break // the server ended the call: CloseAndRecv says why
		}
	}
	_, err = st.CloseAndRecv()
	return err
}

// lookup reads a host buffer back.
func lookup(ctx context.Context, client proxypb.GrpcIfrtServiceClient, session, handle uint64) ([]byte, error) {
	st, err := client.HostBufferLookup(ctx, &proxypb.GrpcHostBufferLookupRequest{SessionId: session, Handle: handle})
	if err != nil {
		return nil, err
	}
	var out []byte
	for {
		m, err := st.Recv()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		out = append(out, m.GetData()...)
	}
}

// rawCodec sends a []byte as it is: bytes that are no request.
type rawCodec struct{}

func (rawCodec) Name() string { return "proto" }
func (rawCodec) Marshal(v any) (mem.BufferSlice, error) {
	return mem.BufferSlice{mem.SliceBuffer(*v.(*[]byte))}, nil
}
func (rawCodec) Unmarshal(mem.BufferSlice, any) error { return nil }
