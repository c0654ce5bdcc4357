package proxyserver

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/binary"
	"log/slog"
	"net"
	"sync"

	"google.golang.org/grpc"
	"google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/peer"
	"google.golang.org/protobuf/proto"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/internal/logging"
	"github.com/openpathways/pathways/internal/profiling"
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
// server already closed or shut down. It is the one value every server of the
// module returns.
var ErrServerClosed = rpc.ErrServerClosed

// Server is an IFRT Proxy server over one ifrt.Client. Its methods are safe for
// concurrent use.
type Server struct {
	proxypb.UnimplementedGrpcIfrtServiceServer

	cfg     Config
	backend ifrt.Client
	log     *slog.Logger
	health  *rpc.Health
	act     *activity // work in progress, for draining
	gate    pauseGate // Pause (suspend.go)
	// hostBytes is the host-buffer bytes of every session together.
	hostBytes *budget
	rec       *profiling.Recorder // see Recorder

	life rpc.Lifecycle

	mu       sync.Mutex
	sessions map[uint64]*session
	ready    chan struct{}

	readyOnce sync.Once
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
		rec:       &profiling.Recorder{},
	}
	if s.cfg.PluginPrograms[ProfileKey] == nil {
		s.cfg.PluginPrograms[ProfileKey] = profilePlugin(s.rec)
	}
	s.health.SetServingStatus(proxypb.GrpcIfrtService_ServiceDesc.ServiceName, grpc_health_v1.HealthCheckResponse_SERVING)
	s.life = rpc.Lifecycle{
		Build: func() *grpc.Server {
			gs := grpc.NewServer(s.ServerOptions()...)
			s.Register(gs)
			s.RegisterHealth(gs)
			return gs
		},
		Begin: func(graceful bool) {
			s.health.Shutdown()
			if graceful {
				s.log.Info("ifrt proxy server draining", "sessions", s.Sessions())
			}
		},
		Drain: s.drain,
		Abort: s.endSessions,
	}
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
// with ServerOptions (panic recovery, message limits, keepalive, the codec
// under which bad requests are INVALID_ARGUMENT). Shutdown and Close then end
// the server's sessions and wait for them as they do under Serve; stopping r
// is the caller's.
func (s *Server) Register(r grpc.ServiceRegistrar) {
	proxypb.RegisterGrpcIfrtServiceServer(r, s)
	s.readyOnce.Do(func() { close(s.ready) })
}

// Ready returns a channel closed once the service is registered (by Register
// or Serve) and can take calls.
func (s *Server) Ready() <-chan struct{} { return s.ready }

// ServerOptions are the options of the grpc.Server that Serve creates: panic
// recovery, the message limits and keepalive of Config, then
// Config.ServerOptions.
func (s *Server) ServerOptions() []grpc.ServerOption {
	opts := rpc.ServerOptions(rpc.ServerConfig{
		Keepalive:      rpc.Keepalive{Interval: s.cfg.KeepaliveInterval, Timeout: s.cfg.KeepaliveTimeout},
		MaxRecvMsgSize: s.cfg.MaxRecvMsgSize,
		MaxSendMsgSize: s.cfg.MaxSendMsgSize,
		Logger:         s.log,
	})
	return append(opts, s.cfg.ServerOptions...)
}

// Serve serves the service and the health service on lis with its own
// grpc.Server (ServerOptions) until Shutdown or Close. It returns nil after
// Shutdown and ErrServerClosed after Close or when called after either.
func (s *Server) Serve(lis net.Listener) error {
	return s.life.Serve(lis, func() error {
		s.log.Info("ifrt proxy server serving", "addr", lis.Addr().String())
		return nil
	})
}

// ListenAndServe listens on the TCP address addr and calls Serve.
func (s *Server) ListenAndServe(addr string) error { return rpc.ListenAndServe(addr, s.Serve) }

// Shutdown drains the server: it refuses new sessions (UNAVAILABLE) and turns
// the health service NOT_SERVING, lets open sessions go on until nothing is in
// progress (no request being served, no host buffer in transit or waiting to be
// consumed), or until ctx ends, and then ends the sessions, waits until they
// have freed what they held, and stops. Mounted with Register, it waits the
// same way and leaves the caller's grpc.Server running. It returns ctx's error
// when ctx cut the drain short. Later calls return nil.
func (s *Server) Shutdown(ctx context.Context) error { return s.life.Shutdown(ctx) }

// Close ends every session and closes every connection now. It is idempotent.
func (s *Server) Close() error { return s.life.Close() }

// drain waits until nothing is in progress, then ends the sessions and waits
// until they have freed everything.
func (s *Server) drain(ctx context.Context) error {
	err := s.act.wait(ctx)
	s.endSessions()
	if werr := s.waitSessions(ctx); err == nil {
		err = werr
	}
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

// endSessions tells every open session to end.
func (s *Server) endSessions() {
	for _, ss := range s.openSessions() {
		ss.cancel()
	}
}

// waitSessions waits until no session is open, or returns ctx's error when it
// ends first.
func (s *Server) waitSessions(ctx context.Context) error {
	for {
		s.mu.Lock()
		var one *session
		for _, ss := range s.sessions {
			one = ss
			break
		}
		s.mu.Unlock()
		if one == nil {
			return nil
		}
		select {
		case <-one.finished:
		case <-ctx.Done():
			return ctx.Err()
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
func (s *Server) GetVersion(ctx context.Context, req *proxypb.GrpcGetVersionRequest) (*proxypb.GrpcGetVersionResponse, error) {
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
func (s *Server) IfrtSession(stream proxypb.GrpcIfrtService_IfrtSessionServer) error {
	md, _ := metadata.FromIncomingContext(stream.Context())
	vals := md.Get(SessionMetadataKey)
	if len(vals) == 0 {
		return rpc.ToStatus(ifrt.Errorf(ifrt.InvalidArgument, "IfrtSession: missing %s header", SessionMetadataKey))
	}
	var meta proxypb.GrpcIfrtSessionMetadata
	if err := proto.Unmarshal([]byte(vals[0]), &meta); err != nil {
		return rpc.ToStatus(ifrt.Errorf(ifrt.InvalidArgument, "IfrtSession: malformed %s header: %v", SessionMetadataKey, err))
	}
	v := meta.GetVersion().GetProtocolVersion()
	if v < wire.ProtocolMin || v > wire.ProtocolMax {
		return rpc.ToStatus(ifrt.Errorf(ifrt.InvalidArgument, "IfrtSession: protocol version %d is outside [%d, %d]", v, wire.ProtocolMin, wire.ProtocolMax))
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
	if s.life.Stopped() {
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
		return nil, rpc.ToStatus(ifrt.Errorf(ifrt.NotFound, "unknown session id %d", id))
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
// read (the response headers then say the upload is taken), and memory is
// taken as bytes arrive (receiveBuffer).
func (s *Server) HostBufferStore(stream proxypb.GrpcIfrtService_HostBufferStoreServer) error {
	md, _ := metadata.FromIncomingContext(stream.Context())
	vals := md.Get(HostBufferMetadataKey)
	if len(vals) == 0 {
		return rpc.ToStatus(ifrt.Errorf(ifrt.InvalidArgument, "HostBufferStore: missing %s header", HostBufferMetadataKey))
	}
	var meta proxypb.GrpcHostBufferStoreMetadata
	if err := proto.Unmarshal([]byte(vals[0]), &meta); err != nil {
		return rpc.ToStatus(ifrt.Errorf(ifrt.InvalidArgument, "HostBufferStore: malformed %s header: %v", HostBufferMetadataKey, err))
	}
	u, err := s.admitUpload(stream.Context(), "HostBufferStore", &meta)
	if err != nil {
		return err
	}
	// Headers now tell the client that the upload is taken; a refused one ends
	// with its status and no headers.
	if err := stream.SendHeader(nil); err != nil {
		u.abort()
		return err
	}
	data, err := receiveBuffer(stream, meta.GetHandle(), meta.GetBufferSize())
	if err != nil {
		u.abort()
		return err
	}
	if err := u.finish(data); err != nil {
		return err
	}
	return stream.SendAndClose(&proxypb.GrpcHostBufferStoreResponse{})
}

// HostBufferLookup streams one host buffer back, in chunks; at least one
// message, even for an empty buffer.
func (s *Server) HostBufferLookup(req *proxypb.GrpcHostBufferLookupRequest, stream proxypb.GrpcIfrtService_HostBufferLookupServer) error {
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
		if err := stream.SendMsg(lookupChunk(data[off:end])); err != nil {
			return err
		}
		if end == len(data) {
			return nil
		}
	}
}

// HostBufferDelete drops one host buffer.
func (s *Server) HostBufferDelete(ctx context.Context, req *proxypb.GrpcHostBufferDeleteRequest) (*proxypb.GrpcHostBufferDeleteResponse, error) {
	ss, err := s.ownedSession(ctx, req.GetSessionId())
	if err != nil {
		return nil, err
	}
	if err := ss.buffers.remove(req.GetHandle()); err != nil {
		return nil, rpc.ToStatus(err)
	}
	return &proxypb.GrpcHostBufferDeleteResponse{}, nil
}

// peerAddress is the address of the call's client, or "".
func peerAddress(ctx context.Context) string {
	if p, ok := peer.FromContext(ctx); ok && p.Addr != nil {
		return p.Addr.String()
	}
	return ""
}
