package worker

import (
	"context"
	"log/slog"
	"net"
	"sync"
	"time"

	"google.golang.org/grpc"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/internal/logging"
	"github.com/openpathways/pathways/internal/rpc"
	"github.com/openpathways/pathways/internal/shardio"
	"github.com/openpathways/pathways/proxy/proxyserver"
	"github.com/openpathways/pathways/rm"
	"github.com/openpathways/pathways/worker/workerpb"
)

// ErrServerClosed is returned by Serve after Close, and by Serve called after
// Shutdown or Close. It is the one value every server of the module returns.
var ErrServerClosed = rpc.ErrServerClosed

// Config configures a worker. Backend is required; the zero value of every other
// field is a valid default.
type Config struct {
	// Backend holds the worker's devices, arrays and programs. The worker does not
	// close it.
	Backend ifrt.Client
	// ResourceManager is the address of the RM to register with ("host:port" or
	// "grpc://host:port"). Empty: the worker runs standalone and registers nowhere.
	ResourceManager string
	// Slice is the index of the slice this worker's host belongs to. Default 0.
	Slice int
	// Host is the index of this host in its slice, or rm.AnyHost to let the RM
	// choose. Default 0.
	Host int
	// Address is where clients and other workers reach this worker. Default: the
	// address of the listener passed to Serve.
	Address string
	// Logger receives the worker's logs. Default slog.Default().
	Logger *slog.Logger
	// Security authenticates the worker to the RM and to other workers, and the
	// cluster's members to the worker: every call it serves, IFRT Proxy and peer,
	// must carry the cluster's credentials. Default none (see rm.Security).
	Security rm.Security
	// Limits bound the sessions of the worker's IFRT Proxy server (the cluster
	// clients') as proxyserver.Limits does. MaxSessionLiveBytes defaults to half
	// the machine's memory for a backend whose devices are CPUs (their arrays
	// are in this process's memory), and to no limit otherwise.
	Limits proxyserver.Limits
	// MaxRecvMsgSize bounds the messages the worker receives. Default
	// proxyserver.DefaultMaxRecvMsgSize.
	MaxRecvMsgSize int
	// MaxGatherBytes bounds the array one Gather makes, and one shard the
	// worker stores or loads for a checkpoint. Default
	// DefaultMaxGatherBytes.
	MaxGatherBytes int64
	// KeepaliveInterval and KeepaliveTimeout are how often the worker pings its
	// connections (to clients, the RM and other workers) and how long an answer
	// may take before the connection is dropped, so that a frozen or vanished
	// peer is noticed within seconds. Defaults 10s and 5s (grpc-go pings
	// servers at most every 10s).
	KeepaliveInterval time.Duration
	KeepaliveTimeout  time.Duration
	// DialOptions are added to those used to reach the RM and other workers
	// (Security's credentials, keepalive).
	DialOptions []grpc.DialOption
	// ServerOptions are added to the grpc.Server that Serve creates.
	ServerOptions []grpc.ServerOption
	// ScratchLocation is the cluster's scratch storage (--gcs_scratch_location):
	// "gs://bucket/prefix" (with package storage/gcs linked), "file:///dir" or a
	// directory. The worker keeps its compilation cache there, under
	// CompileCacheDir, shared by every worker and across restarts, when the
	// backend can serialize executables (ifrt.ExecutableSerializer). Empty: no
	// cache.
	ScratchLocation string
}

// DefaultMaxGatherBytes bounds one Gather result when Config.MaxGatherBytes is
// zero (16 GiB).
const DefaultMaxGatherBytes = 16 << 30

// Validate reports a missing backend, impossible indices or sizes, and
// incomplete credentials.
func (c Config) Validate() error {
	if c.Backend == nil {
		return ifrt.Errorf(ifrt.InvalidArgument, "worker: Config.Backend is required")
	}
	if c.Slice < 0 || c.Host < rm.AnyHost {
		return ifrt.Errorf(ifrt.InvalidArgument, "worker: slice %d host %d is out of range", c.Slice, c.Host)
	}
	if c.MaxGatherBytes < 0 || c.MaxRecvMsgSize < 0 || c.KeepaliveInterval < 0 || c.KeepaliveTimeout < 0 {
		return ifrt.Errorf(ifrt.InvalidArgument, "worker: Config sizes and durations must not be negative")
	}
	return c.Security.Validate()
}

func (c Config) keepalive() rpc.Keepalive {
	return rpc.Keepalive{Interval: c.KeepaliveInterval, Timeout: c.KeepaliveTimeout}
}

// Server is a worker: an IFRT Proxy server over its backend, the peer service other
// workers read from and gather through, and its registration with the RM.
type Server struct {
	cfg   Config
	log   *slog.Logger
	proxy *proxyserver.Server
	peer  *peer
	store *shardStore
	cache *compileCache // nil without a scratch location
	gang  *gang
	prof  *profiler
	sus   *suspender

	life rpc.Lifecycle

	mu        sync.Mutex
	reg       *rm.Registration
	rmClient  *rm.Client
	leaving   chan struct{} // closed when the worker leaves the RM
	leaveOnce sync.Once
	ready     chan struct{}
	readyOnce sync.Once
}

// New validates cfg and builds the worker. It starts nothing.
func New(cfg Config) (*Server, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	log = logging.Component(log, "worker")
	if cfg.MaxGatherBytes == 0 {
		cfg.MaxGatherBytes = DefaultMaxGatherBytes
	}
	if cfg.MaxRecvMsgSize == 0 {
		cfg.MaxRecvMsgSize = proxyserver.DefaultMaxRecvMsgSize
	}
	limits := cfg.Limits
	if limits.MaxSessionLiveBytes == 0 && cfg.Backend.Platform().Name == "cpu" {
		limits.MaxSessionLiveBytes = proxyserver.DefaultHostBufferBytes()
	}
	store := newShardStore(cfg.MaxGatherBytes)
	backend, cache, err := withCompileCache(cfg, log)
	if err != nil {
		return nil, err
	}
	ps, err := proxyserver.New(proxyserver.Config{
		Backend: backend, Logger: log, Limits: limits, ClusterClientsOnly: true,
		PluginPrograms:    map[string]proxyserver.PluginHandler{shardio.Key: store.handler},
		KeepaliveInterval: cfg.KeepaliveInterval, KeepaliveTimeout: cfg.KeepaliveTimeout,
	})
	if err != nil {
		return nil, err
	}
	s := &Server{cfg: cfg, log: log, proxy: ps, store: store, cache: cache, ready: make(chan struct{}), leaving: make(chan struct{})}
	s.peer = newPeer(s)
	s.gang = newGang(s)
	s.prof = newProfiler(s)
	s.life = rpc.Lifecycle{
		Build: func() *grpc.Server {
			gs := grpc.NewServer(s.ServerOptions()...)
			s.Register(gs)
			return gs
		},
		Begin: func(graceful bool) {
			if graceful {
				s.prof.stop()
				s.log.Info("draining")
			}
		},
		// Draining, the worker stays registered until its sessions are done.
		Drain: func(ctx context.Context) error {
			err := s.proxy.Shutdown(ctx)
			s.leave()
			return err
		},
		Abort: func() {
			s.leave()
			s.proxy.Close()
		},
		Finish: func() {
			s.peer.close()
			s.store.close()
			if s.cache != nil {
				s.cache.loc.Close()
			}
		},
	}
	s.sus = newSuspender(s)
	return s, nil
}

// dialOptions reach the RM and other workers.
func (s *Server) dialOptions() []grpc.DialOption {
	return append(rpc.DialOptions(s.cfg.Security, s.cfg.keepalive()), s.cfg.DialOptions...)
}

// ServerOptions are the options of the grpc.Server that Serve creates: the
// cluster's credentials, keepalive, message limits, then Config.ServerOptions.
// A caller that mounts the worker with Register on a server of its own starts
// that server with them.
func (s *Server) ServerOptions() []grpc.ServerOption {
	opts := rpc.ServerOptions(rpc.ServerConfig{
		Auth: s.cfg.Security, Keepalive: s.cfg.keepalive(),
		MaxRecvMsgSize: s.cfg.MaxRecvMsgSize, MaxSendMsgSize: proxyserver.DefaultMaxSendMsgSize,
		Logger: s.log,
	})
	return append(opts, s.cfg.ServerOptions...)
}

// Register mounts the IFRT Proxy service, the peer, gang and profiler
// services and the health service on r.
func (s *Server) Register(r grpc.ServiceRegistrar) {
	s.proxy.Register(r)
	s.proxy.RegisterHealth(r)
	workerpb.RegisterPeerServer(r, s.peer)
	workerpb.RegisterGangServer(r, s.gang)
	workerpb.RegisterProfilerServer(r, s.prof)
}

// Ready is closed once the worker serves and, with an RM, has registered.
func (s *Server) Ready() <-chan struct{} { return s.ready }

// PeerBytes returns how many bytes of array data this worker has fetched from
// other workers.
func (s *Server) PeerBytes() int64 { return s.peer.fetched.Load() }

// Proxy returns the worker's IFRT Proxy server.
func (s *Server) Proxy() *proxyserver.Server { return s.proxy }

// Serve serves on lis until Shutdown or Close, registering with the RM (when one is
// configured) and keeping the registration alive, re-registering if the RM
// restarts. It returns nil after Shutdown, ErrServerClosed after Close or when
// called after either, and the registration's error (closing the worker) when
// the RM refuses it.
func (s *Server) Serve(lis net.Listener) error {
	return s.life.Serve(lis, func() error {
		addr := s.cfg.Address
		if addr == "" {
			addr = lis.Addr().String()
		}
		if s.cfg.ResourceManager != "" {
			if err := s.register(addr); err != nil {
				return err
			}
		}
		s.readyOnce.Do(func() { close(s.ready) })
		s.log.Info("serving", "address", addr, "slice", s.cfg.Slice, "host", s.cfg.Host, "devices", len(s.cfg.Backend.AddressableDevices()))
		return nil
	})
}

// register claims the worker's host at the RM; the registration then keeps itself
// alive in the background.
func (s *Server) register(addr string) error {
	client, err := rm.NewClient(s.cfg.ResourceManager, rm.WithLogger(s.log), rm.WithSecurity(s.cfg.Security),
		rm.WithKeepalive(s.cfg.KeepaliveInterval, s.cfg.KeepaliveTimeout), rm.WithDialOptions(s.cfg.DialOptions...))
	if err != nil {
		return err
	}
	// The registration lives as long as ctx: until the worker stops.
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-s.leaving
		cancel()
	}()
	reg, err := client.RegisterAndHeartbeat(ctx, s.workerInfo(addr))
	if err != nil {
		client.Close()
		return err
	}
	s.mu.Lock()
	s.reg, s.rmClient = reg, client
	s.mu.Unlock()
	select {
	case <-s.leaving: // stopped while registering
		s.leave()
		return ErrServerClosed
	default:
	}
	go s.sus.follow(ctx, client, reg)
	a := reg.Assignment()
	s.log.Info("registered", "slice", a.Slice, "host", a.Host, "device_ids", a.DeviceIDs)
	return nil
}

// stopped is closed when the worker stops serving its sessions: once
// Shutdown's drain is over, or when Close begins. What lives as long as the
// worker (a gang launch's streams, a program's entry) ends with it.
func (s *Server) stopped() <-chan struct{} { return s.leaving }

func (s *Server) workerInfo(addr string) rm.WorkerInfo {
	p := s.cfg.Backend.Platform()
	info := rm.WorkerInfo{Slice: s.cfg.Slice, Host: s.cfg.Host, Address: addr, Platform: p.Name}
	for _, d := range s.cfg.Backend.AddressableDevices() {
		ld := rm.LocalDevice{Kind: d.Kind, LocalHardwareID: d.LocalHardwareID, DefaultMemoryKind: d.DefaultMemoryKind()}
		if coords, ok := d.Attributes.Int64s(ifrt.AttrCoords); ok {
			for _, c := range coords {
				ld.Coords = append(ld.Coords, int(c))
			}
		}
		if core, ok := d.Attributes.Int64(ifrt.AttrCoreOnChip); ok {
			ld.CoreOnChip = int(core)
		}
		for _, m := range d.Memories {
			ld.MemoryKinds = append(ld.MemoryKinds, m.Kind)
		}
		info.Devices = append(info.Devices, ld)
	}
	return info
}

// ListenAndServe listens on addr (e.g. ":29005") and serves.
func (s *Server) ListenAndServe(addr string) error { return rpc.ListenAndServe(addr, s.Serve) }

// Shutdown drains the worker: it turns its health service NOT_SERVING and takes
// no new sessions, but stays registered and serves its sessions until no
// request, transfer or peer call is in progress (the step a client is running
// finishes), or until ctx ends; then it ends the sessions, waits until they
// have freed their arrays, leaves the RM (which reports the host lost) and
// stops. Later calls return nil.
func (s *Server) Shutdown(ctx context.Context) error { return s.life.Shutdown(ctx) }

// Close stops the worker at once, without leaving the RM gracefully: to the RM it
// looks like a lost worker. It is idempotent.
func (s *Server) Close() error { return s.life.Close() }

// leave ends the worker's registration, once.
func (s *Server) leave() {
	s.leaveOnce.Do(func() { close(s.leaving) })
	s.mu.Lock()
	reg, client := s.reg, s.rmClient
	s.reg, s.rmClient = nil, nil
	s.mu.Unlock()
	if reg != nil {
		reg.Close()
	}
	if client != nil {
		client.Close()
	}
}
