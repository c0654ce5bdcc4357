package proxyserver

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"runtime/debug"
	"sync"
	"sync/atomic"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/internal/rpc"
	"github.com/openpathways/pathways/proxy/internal/wire"
	"github.com/openpathways/pathways/proxy/proxypb"
)

// Metadata keys of the IFRT Proxy protocol.
const (
	// SessionMetadataKey carries a serialized GrpcIfrtSessionMetadata on every
	// IfrtSession stream.
	SessionMetadataKey = "ifrt-proxy-grpc-ifrt-session-metadata-bin"
	// HostBufferMetadataKey carries a serialized GrpcHostBufferStoreMetadata on
	// every HostBufferStore stream.
	HostBufferMetadataKey = "ifrt-proxy-grpc-host-buffer-store-metadata-bin"
)

// ErrServerClosed is returned by Serve after Close, and by Serve called on a
// server already closed or shut down.
var ErrServerClosed = errors.New("proxyserver: server closed")

// Server is an IFRT Proxy server over one ifrt.Client. Its methods are safe for
// concurrent use.
type Server struct {
	proxypb.UnimplementedGrpcIfrtServiceServer

	cfg     Config
	backend ifrt.Client
	log     *slog.Logger

	nextSession atomic.Uint64

	mu       sync.Mutex
	sessions map[uint64]*session
	gs       *grpc.Server
	closed   bool // Close was called
	stopped  bool // Close or Shutdown was called
	ready    chan struct{}

	readyOnce    sync.Once
	closeOnce    sync.Once
	shutdownOnce sync.Once
}

var _ proxypb.GrpcIfrtServiceServer = (*Server)(nil)

// New validates cfg and returns a server. It starts nothing.
func New(cfg Config) (*Server, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	return &Server{
		cfg:      cfg,
		backend:  cfg.Backend,
		log:      cfg.Logger,
		sessions: map[uint64]*session{},
		ready:    make(chan struct{}),
	}, nil
}

// Register mounts the IFRT Proxy service on r, so that it can share a
// grpc.Server with other services. The caller owns r and its message size
// limits (raise them: see DefaultMaxMsgSize).
func (s *Server) Register(r grpc.ServiceRegistrar) {
	proxypb.RegisterGrpcIfrtServiceServer(r, s)
	s.readyOnce.Do(func() { close(s.ready) })
}

// Ready returns a channel closed once the service is registered (by Register
// or Serve) and can take calls.
func (s *Server) Ready() <-chan struct{} { return s.ready }

// Serve serves the service on lis with its own grpc.Server (raised message
// size limits, Config.ServerOptions) until Shutdown or Close. It returns nil
// after Shutdown and ErrServerClosed after Close.
func (s *Server) Serve(lis net.Listener) error {
	s.mu.Lock()
	if s.stopped {
		s.mu.Unlock()
		lis.Close()
		return ErrServerClosed
	}
	if s.gs == nil {
		opts := append([]grpc.ServerOption{
			grpc.MaxRecvMsgSize(s.cfg.MaxRecvMsgSize),
			grpc.MaxSendMsgSize(s.cfg.MaxSendMsgSize),
		}, s.cfg.ServerOptions...)
		s.gs = grpc.NewServer(opts...)
		s.Register(s.gs)
	}
	gs := s.gs
	s.mu.Unlock()

	s.log.Info("ifrt proxy server serving", "addr", lis.Addr().String())
	err := gs.Serve(lis)
	s.mu.Lock()
	closed, stopped := s.closed, s.stopped
	s.mu.Unlock()
	switch {
	case closed:
		return ErrServerClosed
	case stopped:
		return nil
	}
	return err
}

// ListenAndServe listens on the TCP address addr and calls Serve.
func (s *Server) ListenAndServe(addr string) error {
	lis, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	return s.Serve(lis)
}

// Shutdown stops accepting connections and waits for open sessions to end, or
// for ctx to end, after which it closes them as Close does. It is idempotent.
func (s *Server) Shutdown(ctx context.Context) error {
	var err error
	s.shutdownOnce.Do(func() {
		s.mu.Lock()
		s.stopped = true
		gs := s.gs
		s.mu.Unlock()
		done := make(chan struct{})
		go func() {
			defer close(done)
			if gs != nil {
				gs.GracefulStop()
			} else {
				s.waitSessions(ctx)
			}
		}()
		select {
		case <-done:
		case <-ctx.Done():
			err = ctx.Err()
			s.stopNow()
			<-done
		}
	})
	return err
}

// Close ends every session and closes every connection now. It is idempotent.
func (s *Server) Close() error {
	s.closeOnce.Do(func() {
		s.mu.Lock()
		s.closed, s.stopped = true, true
		s.mu.Unlock()
		s.stopNow()
	})
	return nil
}

func (s *Server) stopNow() {
	s.mu.Lock()
	gs := s.gs
	sessions := make([]*session, 0, len(s.sessions))
	for _, ss := range s.sessions {
		sessions = append(sessions, ss)
	}
	s.mu.Unlock()
	for _, ss := range sessions {
		ss.cancel()
	}
	if gs != nil {
		gs.Stop()
	}
}

// waitSessions waits until no session is open, or ctx ends.
func (s *Server) waitSessions(ctx context.Context) {
	for {
		s.mu.Lock()
		var one *session
		for _, ss := range s.sessions {
			one = ss
			break
		}
		s.mu.Unlock()
		if one == nil {
			return
		}
		select {
		case <-one.finished:
		case <-ctx.Done():
			return
		}
	}
}

// Sessions reports how many IfrtSession streams are open.
func (s *Server) Sessions() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.sessions)
}

// GetVersion negotiates the protocol version; see wire.NegotiateVersion.
func (s *Server) GetVersion(ctx context.Context, req *proxypb.GrpcGetVersionRequest) (_ *proxypb.GrpcGetVersionResponse, err error) {
	defer s.recoverRPC("GetVersion", &err)
	addr := peerAddress(ctx)
	min, max := req.GetMinVersion(), req.GetMaxVersion()
	v, nerr := wire.NegotiateVersion(min, max)
	s.log.Info("ifrt proxy client version",
		"peer", addr,
		"client_protocol_min", min.GetProtocolVersion(), "client_protocol_max", max.GetProtocolVersion(),
		"client_serdes_min", min.GetIfrtSerdesVersionNumber(), "client_serdes_max", max.GetIfrtSerdesVersionNumber(),
		"server_protocol_min", wire.ProtocolMin, "server_protocol_max", wire.ProtocolMax,
		"chosen_protocol", v.GetProtocolVersion(), "chosen_serdes", v.GetIfrtSerdesVersionNumber(),
		"error", nerr)
	if nerr != nil {
		return nil, rpc.ToStatus(nerr)
	}
	return &proxypb.GrpcGetVersionResponse{Version: v}, nil
}

// IfrtSession serves one client session; see session.go.
func (s *Server) IfrtSession(stream proxypb.GrpcIfrtService_IfrtSessionServer) (err error) {
	defer s.recoverRPC("IfrtSession", &err)
	md, _ := metadata.FromIncomingContext(stream.Context())
	vals := md.Get(SessionMetadataKey)
	if len(vals) == 0 {
		return status.Errorf(codes.InvalidArgument, "IfrtSession: missing %s header", SessionMetadataKey)
	}
	var meta proxypb.GrpcIfrtSessionMetadata
	if err := proto.Unmarshal([]byte(vals[0]), &meta); err != nil {
		return status.Errorf(codes.InvalidArgument, "IfrtSession: malformed %s header: %v", SessionMetadataKey, err)
	}
	v := meta.GetVersion().GetProtocolVersion()
	if v < wire.ProtocolMin || v > wire.ProtocolMax {
		return status.Errorf(codes.InvalidArgument, "IfrtSession: protocol version %d is outside [%d, %d]", v, wire.ProtocolMin, wire.ProtocolMax)
	}
	ss := s.newSession(stream, meta.GetVersion())
	if ss == nil {
		return status.Error(codes.Unavailable, "IfrtSession: server is shutting down")
	}
	return ss.run()
}

func (s *Server) newSession(stream proxypb.GrpcIfrtService_IfrtSessionServer, v *proxypb.IfrtProxyVersion) *session {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped {
		return nil
	}
	ss := newSession(s, s.nextSession.Add(1), stream, v)
	s.sessions[ss.id] = ss
	return ss
}

func (s *Server) endSession(ss *session) {
	s.mu.Lock()
	delete(s.sessions, ss.id)
	s.mu.Unlock()
}

func (s *Server) session(id uint64) (*session, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ss, ok := s.sessions[id]
	if !ok {
		return nil, status.Errorf(codes.NotFound, "unknown session id %d", id)
	}
	return ss, nil
}

// HostBufferStore receives one host buffer in chunks.
func (s *Server) HostBufferStore(stream proxypb.GrpcIfrtService_HostBufferStoreServer) (err error) {
	defer s.recoverRPC("HostBufferStore", &err)
	md, _ := metadata.FromIncomingContext(stream.Context())
	vals := md.Get(HostBufferMetadataKey)
	if len(vals) == 0 {
		return status.Errorf(codes.Internal, "HostBufferStore: missing %s header", HostBufferMetadataKey)
	}
	var meta proxypb.GrpcHostBufferStoreMetadata
	if err := proto.Unmarshal([]byte(vals[0]), &meta); err != nil {
		return status.Errorf(codes.DataLoss, "HostBufferStore: malformed %s header: %v", HostBufferMetadataKey, err)
	}
	size := meta.GetBufferSize()
	if size < 0 || size > s.cfg.MaxHostBufferSize {
		return status.Errorf(codes.InvalidArgument, "HostBufferStore: buffer size %d is outside [0, %d]", size, s.cfg.MaxHostBufferSize)
	}
	ss, err := s.session(meta.GetSessionId())
	if err != nil {
		return err
	}
	if err := checkClientHandle(meta.GetHandle()); err != nil {
		return rpc.ToStatus(err)
	}
	data := make([]byte, 0, min(size, 64<<20))
	for {
		req, err := stream.Recv()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		if int64(len(data))+int64(len(req.GetData())) > size {
			return status.Errorf(codes.DataLoss, "HostBufferStore: handle %d: received more than the announced %d bytes", meta.GetHandle(), size)
		}
		data = append(data, req.GetData()...)
	}
	if int64(len(data)) != size {
		return status.Errorf(codes.DataLoss, "HostBufferStore: handle %d: received %d bytes, announced %d", meta.GetHandle(), len(data), size)
	}
	if err := ss.buffers.put(meta.GetHandle(), data); err != nil {
		return rpc.ToStatus(err)
	}
	return stream.SendAndClose(&proxypb.GrpcHostBufferStoreResponse{})
}

// HostBufferLookup streams one host buffer back, in chunks; at least one
// message, even for an empty buffer.
func (s *Server) HostBufferLookup(req *proxypb.GrpcHostBufferLookupRequest, stream proxypb.GrpcIfrtService_HostBufferLookupServer) (err error) {
	defer s.recoverRPC("HostBufferLookup", &err)
	ss, err := s.session(req.GetSessionId())
	if err != nil {
		return err
	}
	data, err := ss.buffers.lookup(stream.Context(), req.GetHandle())
	if err != nil {
		return rpc.ToStatus(err)
	}
	for off := 0; ; off += s.cfg.ChunkSize {
		end := min(off+s.cfg.ChunkSize, len(data))
		if err := stream.Send(&proxypb.GrpcHostBufferLookupResponse{Data: data[off:end]}); err != nil {
			return err
		}
		if end == len(data) {
			return nil
		}
	}
}

// HostBufferDelete drops one host buffer.
func (s *Server) HostBufferDelete(ctx context.Context, req *proxypb.GrpcHostBufferDeleteRequest) (_ *proxypb.GrpcHostBufferDeleteResponse, err error) {
	defer s.recoverRPC("HostBufferDelete", &err)
	ss, err := s.session(req.GetSessionId())
	if err != nil {
		return nil, err
	}
	if err := ss.buffers.remove(req.GetHandle()); err != nil {
		return nil, rpc.ToStatus(err)
	}
	return &proxypb.GrpcHostBufferDeleteResponse{}, nil
}

// recoverRPC turns a panic in an RPC handler into an INTERNAL error, logged
// with its stack.
func (s *Server) recoverRPC(method string, err *error) {
	if r := recover(); r != nil {
		s.log.Error("ifrt proxy RPC panicked", "method", method, "panic", r, "stack", string(debug.Stack()))
		*err = status.Errorf(codes.Internal, "%s: internal error: %v", method, r)
	}
}

// HostBufferReadFromDisk is the optional file-based transfer, which clients
// use only when configured to; it is not supported.
func (s *Server) HostBufferReadFromDisk(context.Context, *proxypb.GrpcHostBufferReadFromDiskRequest) (*proxypb.GrpcHostBufferReadFromDiskResponse, error) {
	return nil, status.Error(codes.Unimplemented, "HostBufferReadFromDisk is not supported by this server; leave IFRT_PROXY_GRPC_LARGE_TRANSFER_OPTIMIZATION_* unset")
}

// peerAddress is the address of the call's client, or "".
func peerAddress(ctx context.Context) string {
	if p, ok := peer.FromContext(ctx); ok && p.Addr != nil {
		return p.Addr.String()
	}
	return ""
}
