package proxyserver

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/binary"
	"errors"
	"io"
	"log/slog"
	"net"
	"runtime/debug"
	"sync"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/internal/logging"
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
	health  *rpc.Health
	act     *activity // work in progress, for draining
	// hostBytes is the host-buffer bytes of every session together.
	hostBytes *budget

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
	s := &Server{
		cfg:       cfg,
		backend:   cfg.Backend,
		log:       logging.Component(cfg.Logger, component(cfg)),
		health:    rpc.NewHealth(),
		act:       newActivity(),
		hostBytes: newBudget("max_host_buffer_bytes", "bytes of host buffers of all sessions", cfg.Limits.MaxHostBufferBytes),
		sessions:  map[uint64]*session{},
		ready:     make(chan struct{}),
	}
	s.health.SetServingStatus(proxypb.GrpcIfrtService_ServiceDesc.ServiceName, grpc_health_v1.HealthCheckResponse_SERVING)
	return s, nil
}

// RegisterHealth mounts the standard gRPC health service on r: SERVING while
// the server serves, NOT_SERVING after SetServing(false) and from the moment
// Shutdown or Close begins. Serve mounts it on its own grpc.Server.
func (s *Server) RegisterHealth(r grpc.ServiceRegistrar) {
	grpc_health_v1.RegisterHealthServer(r, s.health)
}

// SetServing sets what the health service reports for the server and for the
// IFRT Proxy service: an orchestrator probing it learns that the server cannot
// do its work (for a proxy over a cluster: more slices lost than it may lose),
// though it still answers. Shutdown and Close set NOT_SERVING for good.
func (s *Server) SetServing(serving bool) {
	st := grpc_health_v1.HealthCheckResponse_NOT_SERVING
	if serving {
		st = grpc_health_v1.HealthCheckResponse_SERVING
	}
	s.health.SetServingStatus("", st)
	s.health.SetServingStatus(proxypb.GrpcIfrtService_ServiceDesc.ServiceName, st)
}

// Register mounts the IFRT Proxy service on r, so that it can share a
// grpc.Server with other services. The caller owns r and its options: start it
// with ServerOptions (message limits, keepalive, the codec under which bad
// requests are INVALID_ARGUMENT).
func (s *Server) Register(r grpc.ServiceRegistrar) {
	proxypb.RegisterGrpcIfrtServiceServer(r, s)
	s.readyOnce.Do(func() { close(s.ready) })
}

// Ready returns a channel closed once the service is registered (by Register
// or Serve) and can take calls.
func (s *Server) Ready() <-chan struct{} { return s.ready }

// ServerOptions are the options of the grpc.Server that Serve creates: the
// message limits and keepalive of Config, then Config.ServerOptions.
func (s *Server) ServerOptions() []grpc.ServerOption {
	opts := rpc.ServerOptions(rpc.ServerConfig{
		Keepalive:      rpc.Keepalive{Interval: s.cfg.KeepaliveInterval, Timeout: s.cfg.KeepaliveTimeout},
		MaxRecvMsgSize: s.cfg.MaxRecvMsgSize,
		MaxSendMsgSize: s.cfg.MaxSendMsgSize,
	})
	return append(opts, s.cfg.ServerOptions...)
}

// Serve serves the service and the health service on lis with its own
// grpc.Server (ServerOptions) until Shutdown or Close. It returns nil after
// Shutdown and ErrServerClosed after Close.
func (s *Server) Serve(lis net.Listener) error {
	s.mu.Lock()
	if s.stopped {
		s.mu.Unlock()
		lis.Close()
		return ErrServerClosed
	}
	if s.gs == nil {
		s.gs = grpc.NewServer(s.ServerOptions()...)
		s.Register(s.gs)
		s.RegisterHealth(s.gs)
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

// Shutdown drains the server: it refuses new sessions (UNAVAILABLE) and turns
// the health service NOT_SERVING, lets open sessions go on until nothing is in
// progress (no request being served, no host buffer in transit or waiting to be
// consumed), or until ctx ends, and then ends the sessions and stops. It
// returns ctx's error when ctx cut the drain short. It is idempotent.
func (s *Server) Shutdown(ctx context.Context) error {
	var err error
	s.shutdownOnce.Do(func() {
		s.mu.Lock()
		s.stopped = true
		gs, open := s.gs, len(s.sessions)
		s.mu.Unlock()
		s.health.Shutdown()
		s.log.Info("ifrt proxy server draining", "sessions", open)
		err = s.act.wait(ctx)
		for _, ss := range s.openSessions() {
			ss.cancel()
		}
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

func (s *Server) openSessions() []*session {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]*session, 0, len(s.sessions))
	for _, ss := range s.sessions {
		out = append(out, ss)
	}
	return out
}

// Close ends every session and closes every connection now. It is idempotent.
func (s *Server) Close() error {
	s.closeOnce.Do(func() {
		s.mu.Lock()
		s.closed, s.stopped = true, true
		s.mu.Unlock()
		s.health.Shutdown()
		s.stopNow()
	})
	return nil
}

func (s *Server) stopNow() {
	s.mu.Lock()
	gs := s.gs
	s.mu.Unlock()
	for _, ss := range s.openSessions() {
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
	ss, err := s.newSession(stream, meta.GetVersion())
	if err != nil {
		return rpc.ToStatus(err)
	}
	return ss.run()
}

func (s *Server) newSession(stream proxypb.GrpcIfrtService_IfrtSessionServer, v *proxypb.IfrtProxyVersion) (*session, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped {
		return nil, ifrt.Errorf(ifrt.Unavailable, "IfrtSession: the server is shutting down")
	}
	if limit := s.cfg.Limits.MaxSessions; limit != NoLimit && len(s.sessions) >= limit {
		return nil, ifrt.Errorf(ifrt.ResourceExhausted, "IfrtSession: the server has %d sessions open, its max_sessions limit", len(s.sessions))
	}
	id := randomSessionID()
	for s.sessions[id] != nil {
		id = randomSessionID()
	}
	ss := newSession(s, id, stream, v, clientHost(stream.Context()))
	s.sessions[ss.id] = ss
	return ss, nil
}

// randomSessionID returns a session id no one can guess: the host-buffer calls
// of jaxlib's client name their session by id alone.
func randomSessionID() uint64 {
	var b [8]byte
	rand.Read(b[:])
	return binary.LittleEndian.Uint64(b[:])>>1 | 1
}

// clientHost is the network host a call comes from (the IP address, with ::1
// read as 127.0.0.1), or the whole peer address when it has no host.
func clientHost(ctx context.Context) string {
	p, ok := peer.FromContext(ctx)
	if !ok || p.Addr == nil {
		return ""
	}
	addr := p.Addr.String()
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return addr
	}
	ip := net.ParseIP(host)
	switch {
	case ip == nil:
		return host
	case ip.Equal(net.IPv6loopback):
		return "127.0.0.1"
	}
	return ip.String()
}

func (s *Server) endSession(ss *session) {
	s.mu.Lock()
	delete(s.sessions, ss.id)
	s.mu.Unlock()
}

// ownedSession returns session id if the call comes from its client: it
// carries the session's token (what OpenPathways' own client sends, which keeps
// its host buffers on a connection of its own), or it comes from the host the
// session's stream comes from (jaxlib's client, which has no token to send,
// uses a second connection from the same process). Anyone else is told that
// the session does not exist.
func (s *Server) ownedSession(ctx context.Context, id uint64) (*session, error) {
	s.mu.Lock()
	ss, ok := s.sessions[id]
	s.mu.Unlock()
	if !ok || !ss.ownedBy(ctx) {
		return nil, status.Errorf(codes.NotFound, "unknown session id %d", id)
	}
	return ss, nil
}

func (ss *session) ownedBy(ctx context.Context) bool {
	md, _ := metadata.FromIncomingContext(ctx)
	for _, tok := range md.Get(wire.SessionTokenMetadataKey) {
		if subtle.ConstantTimeCompare([]byte(tok), []byte(ss.token)) == 1 {
			return true
		}
	}
	return ss.clientHost != "" && clientHost(ctx) == ss.clientHost
}

// HostBufferStore receives one host buffer in chunks. The buffer's announced
// size is reserved against the host-buffer limits before the first chunk is
// read (the response headers then say the upload is taken), and memory grows
// only as bytes arrive.
func (s *Server) HostBufferStore(stream proxypb.GrpcIfrtService_HostBufferStoreServer) (err error) {
	defer s.recoverRPC("HostBufferStore", &err)
	md, _ := metadata.FromIncomingContext(stream.Context())
	vals := md.Get(HostBufferMetadataKey)
	if len(vals) == 0 {
		return status.Errorf(codes.InvalidArgument, "HostBufferStore: missing %s header", HostBufferMetadataKey)
	}
	var meta proxypb.GrpcHostBufferStoreMetadata
	if err := proto.Unmarshal([]byte(vals[0]), &meta); err != nil {
		return status.Errorf(codes.InvalidArgument, "HostBufferStore: malformed %s header: %v", HostBufferMetadataKey, err)
	}
	size := meta.GetBufferSize()
	if size < 0 {
		return status.Errorf(codes.InvalidArgument, "HostBufferStore: negative buffer size %d", size)
	}
	if size > s.cfg.MaxHostBufferSize {
		return status.Errorf(codes.ResourceExhausted, "HostBufferStore: a buffer of %d bytes is over the server's limit of %d for one host buffer", size, s.cfg.MaxHostBufferSize)
	}
	ss, err := s.ownedSession(stream.Context(), meta.GetSessionId())
	if err != nil {
		return err
	}
	if err := checkClientHandle(meta.GetHandle()); err != nil {
		return rpc.ToStatus(err)
	}
	if err := ss.uploads.reserve(1); err != nil {
		return rpc.ToStatus(err)
	}
	defer ss.uploads.release(1)
	res, err := reserveAll(size, ss.hostBytes, s.hostBytes)
	if err != nil {
		return rpc.ToStatus(err)
	}
	s.act.add()
	defer s.act.done()
	// Headers now tell the client that the upload is taken; a refused one ends
	// with its status and no headers.
	if err := stream.SendHeader(nil); err != nil {
		res.release()
		return err
	}
	data, err := receiveBuffer(stream, meta.GetHandle(), size)
	if err != nil {
		res.release()
		return err
	}
	if err := ss.buffers.put(meta.GetHandle(), data, res); err != nil {
		return rpc.ToStatus(err)
	}
	return stream.SendAndClose(&proxypb.GrpcHostBufferStoreResponse{})
}

// receiveBuffer reads exactly size bytes from the stream, growing the buffer as
// they come (at most doubling it), never past size.
func receiveBuffer(stream proxypb.GrpcIfrtService_HostBufferStoreServer, handle uint64, size int64) ([]byte, error) {
	var data []byte
	for {
		req, err := stream.Recv()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		chunk := req.GetData()
		if int64(len(data))+int64(len(chunk)) > size {
			return nil, status.Errorf(codes.DataLoss, "HostBufferStore: handle %d: received more than the announced %d bytes", handle, size)
		}
		if need := len(data) + len(chunk); need > cap(data) {
			grown := make([]byte, len(data), min(size, int64(max(need, 2*cap(data), 64<<10))))
			copy(grown, data)
			data = grown
		}
		data = append(data, chunk...)
	}
	if int64(len(data)) != size {
		return nil, status.Errorf(codes.DataLoss, "HostBufferStore: handle %d: received %d bytes, announced %d", handle, len(data), size)
	}
	if data == nil {
		data = []byte{}
	}
	return data, nil
}

// HostBufferLookup streams one host buffer back, in chunks; at least one
// message, even for an empty buffer.
func (s *Server) HostBufferLookup(req *proxypb.GrpcHostBufferLookupRequest, stream proxypb.GrpcIfrtService_HostBufferLookupServer) (err error) {
	defer s.recoverRPC("HostBufferLookup", &err)
	ss, err := s.ownedSession(stream.Context(), req.GetSessionId())
	if err != nil {
		return err
	}
	s.act.add()
	defer s.act.done()
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
	ss, err := s.ownedSession(ctx, req.GetSessionId())
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
