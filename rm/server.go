package rm

import (
	"context"
	"crypto/rand"
	"fmt"
	"log/slog"
	mrand "math/rand/v2"
	"net"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/health/grpc_health_v1"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/internal/logging"
	"github.com/openpathways/pathways/internal/rpc"
)

// Server is the resource manager. Create it with New, mount it with Register
// or serve it with Serve, stop it with Shutdown or Close. Its methods are safe
// for concurrent use.
type Server struct {
	cfg         Config
	it          InstanceType
	timeout     time.Duration
	log         *slog.Logger
	incarnation string
	ready       chan struct{}
	quit        chan struct{} // closed when Shutdown or Close begins
	health      *rpc.Health

	mu        sync.Mutex
	slots     [][]*slot // [slice][host]
	liveHosts []int     // per slice
	up        []bool    // per slice
	leases    map[uint64]*lease
	watchers  map[*watcher]struct{}
	epoch     uint64
	streams   uint64 // heartbeat streams opened, for stream ids
	stopping  bool
	isReady   bool

	life rpc.Lifecycle

	suspended []suspension // per slice, guarded by mu (suspend.go)
}

// slot is one host of one slice.
type slot struct {
	slice, host int
	ids         []ifrt.DeviceID
	state       State
	info        WorkerInfo // the last registration; Host is resolved
	lostReason  string
	lease       *lease // while live
	seq         sequenceState
}

// lease is one registration of a slot. It ends when the worker is lost or
// replaced; its heartbeat stream, if any, then ends with err.
type lease struct {
	id       uint64
	slot     *slot
	deadline time.Time
	timer    *time.Timer
	done     chan struct{} // closed when the lease ends; err is set before
	err      error
	stream   uint64        // the heartbeat stream that owns the lease, 0 if none
	takeover chan struct{} // closed when another stream takes the lease
}

// New validates cfg and returns a Server. It starts nothing: no goroutines, no
// sockets. Errors are INVALID_ARGUMENT.
func New(cfg Config) (*Server, error) {
	it, err := cfg.instanceType()
	if err != nil {
		return nil, err
	}
	s := &Server{
		cfg:         cfg,
		it:          it,
		timeout:     cfg.heartbeatTimeout(),
		log:         logging.Component(cfg.logger(), "rm"),
		incarnation: rand.Text(),
		ready:       make(chan struct{}),
		quit:        make(chan struct{}),
		health:      rpc.NewHealth(),
		liveHosts:   make([]int, cfg.InstanceCount),
		up:          make([]bool, cfg.InstanceCount),
		suspended:   make([]suspension, cfg.InstanceCount),
		leases:      make(map[uint64]*lease),
		watchers:    make(map[*watcher]struct{}),
	}
	s.slots = make([][]*slot, cfg.InstanceCount)
	for sl := range s.slots {
		s.slots[sl] = make([]*slot, it.Hosts)
		for h := range s.slots[sl] {
			ids := make([]ifrt.DeviceID, it.DevicesPerHost())
			for l := range ids {
				ids[l] = deviceID(it, sl, h, l)
			}
			s.slots[sl][h] = &slot{slice: sl, host: h, ids: ids, state: StateMissing}
		}
	}
	s.life = rpc.Lifecycle{
		Build: func() *grpc.Server {
			gs := grpc.NewServer(s.ServerOptions()...)
			s.Register(gs)
			grpc_health_v1.RegisterHealthServer(gs, s.health)
			return gs
		},
		Begin: s.stop,
	}
	return s, nil
}

// InstanceType returns the parsed instance type.
func (s *Server) InstanceType() InstanceType { return s.it }

// Register mounts the ResourceManager service on r (a *grpc.Server the
// caller owns). Call Shutdown or Close before stopping that server: they end
// the long-lived heartbeat and watch streams, which a graceful stop would
// otherwise wait for.
func (s *Server) Register(r grpc.ServiceRegistrar) {
	registerService(r, s)
}

// ServerOptions are the options of the grpc.Server that Serve creates: the
// cluster's credentials, keepalive, then Config.ServerOptions. A caller that
// mounts the RM with Register on a server of its own starts it with them.
func (s *Server) ServerOptions() []grpc.ServerOption {
	opts := rpc.ServerOptions(rpc.ServerConfig{
		Auth:      s.cfg.Security,
		Keepalive: rpc.Keepalive{Interval: s.cfg.KeepaliveInterval, Timeout: s.cfg.KeepaliveTimeout},
		Logger:    s.log,
	})
	return append(opts, s.cfg.ServerOptions...)
}

// Serve serves the ResourceManager and the standard health service on lis
// with a grpc.Server of its own (ServerOptions) and blocks. It returns nil after
// Shutdown, ErrServerClosed after Close or when called after either, and
// otherwise the listener's error. Serve may be called for several listeners.
func (s *Server) Serve(lis net.Listener) error {
	return s.life.Serve(lis, func() error {
		s.log.Info("resource manager serving", "addr", lis.Addr().String(), "instance_type", s.it.Name,
			"instance_count", s.cfg.InstanceCount, "hosts_per_slice", s.it.Hosts, "devices_per_host", s.it.DevicesPerHost())
		return nil
	})
}

// ListenAndServe listens on the TCP address addr (e.g. ":29001") and calls
// Serve.
func (s *Server) ListenAndServe(addr string) error { return rpc.ListenAndServe(addr, s.Serve) }

// Shutdown stops the server gracefully: new registrations are refused,
// heartbeat and watch streams end with UNAVAILABLE, and in-flight calls
// finish. If ctx ends first the remaining calls are cut off and ctx's error
// is returned. Workers are not marked lost: the RM's memory goes with it.
// Calls after the first return nil.
func (s *Server) Shutdown(ctx context.Context) error { return s.life.Shutdown(ctx) }

// Close stops the server at once, cutting off every call. It is idempotent
// and always returns nil.
func (s *Server) Close() error { return s.life.Close() }

// stop ends what the RM serves when Shutdown or Close begins: leases stop
// expiring, and the heartbeat and watch streams end.
func (s *Server) stop(graceful bool) {
	s.mu.Lock()
	s.stopping = true
	for _, l := range s.leases {
		l.timer.Stop()
	}
	s.mu.Unlock()
	close(s.quit)
	s.health.Shutdown()
	s.log.Info("resource manager stopping", "graceful", graceful)
}

func errShuttingDown() error {
	return ifrt.Errorf(ifrt.Unavailable, "rm: the resource manager is shutting down")
}

// Ready returns a channel closed the first time every slice is up. It is not
// reopened when a slice goes down later; use Cluster or a watch for that.
func (s *Server) Ready() <-chan struct{} { return s.ready }

// Cluster returns the current view.
func (s *Server) Cluster() *Cluster {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.snapshotLocked()
}

func (s *Server) snapshotLocked() *Cluster {
	c := &Cluster{
		InstanceType:   s.it.Name,
		InstanceCount:  s.cfg.InstanceCount,
		HostsPerSlice:  s.it.Hosts,
		DevicesPerHost: s.it.DevicesPerHost(),
		RMIncarnation:  s.incarnation,
		Epoch:          s.epoch,
	}
	for i, hosts := range s.slots {
		c.Slices = append(c.Slices, s.sliceLocked(i))
		for _, sl := range hosts {
			c.Workers = append(c.Workers, sl.view())
			for l, id := range sl.ids {
				d := Device{ID: id, Slice: sl.slice, Host: sl.host, Local: l, State: sl.state}
				if sl.state != StateMissing {
					d.WorkerAddress = sl.info.Address
					d.Platform = sl.info.Platform
					d.Description = sl.info.Devices[l].clone()
				}
				c.Devices = append(c.Devices, d)
			}
		}
	}
	return c
}

func (sl *slot) view() Worker {
	w := Worker{Slice: sl.slice, Host: sl.host, State: sl.state, DeviceIDs: sl.ids, LostReason: sl.lostReason}
	if sl.state != StateMissing {
		w.Address, w.Incarnation, w.Platform = sl.info.Address, sl.info.Incarnation, sl.info.Platform
	}
	return w.clone()
}

// registration is what a successful registration returns.
type registration struct {
	leaseID uint64
	host    int
	ids     []ifrt.DeviceID
	epoch   uint64
}

// register claims a slot for a validated request.
func (s *Server) register(w WorkerInfo) (registration, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopping {
		return registration{}, errShuttingDown()
	}
	sl, err := s.pickSlotLocked(w)
	if err != nil {
		return registration{}, err
	}
	w.Host = sl.host
	rejoin := false // the same process registering again while live
	if sl.state == StateLive {
		old := sl.info
		switch {
		case old.Incarnation == w.Incarnation:
			rejoin = true
			s.endLeaseLocked(sl.lease, ifrt.Errorf(ifrt.Aborted, "rm: lease replaced by a new registration of the same worker"))
		case old.Address == w.Address:
			s.lostLocked(sl, fmt.Sprintf("replaced by incarnation %q at the same address", w.Incarnation),
				ifrt.Errorf(ifrt.Aborted, "rm: a new incarnation of this worker registered"))
		default:
			return registration{}, ifrt.Errorf(ifrt.AlreadyExists,
				"rm: slice %d host %d is held by the live worker at %s (incarnation %q); a worker at %s cannot take it until that one is lost",
				sl.slice, sl.host, old.Address, old.Incarnation, w.Address)
		}
	}
	sl.info, sl.state, sl.lostReason = w, StateLive, ""
	l := &lease{id: s.newLeaseIDLocked(), slot: sl, deadline: time.Now().Add(s.timeout), done: make(chan struct{})}
	l.timer = time.AfterFunc(s.timeout, func() { s.expire(l) })
	sl.lease = l
	s.leases[l.id] = l
	if !rejoin {
		s.liveHosts[sl.slice]++
		s.epoch++
		view := sl.view()
		s.emitLocked(Event{Type: EventWorkerJoined, Epoch: s.epoch, Worker: &view})
		s.log.Debug("worker joined", "slice", sl.slice, "host", sl.host, "address", w.Address, "incarnation", w.Incarnation)
		if s.liveHosts[sl.slice] == s.it.Hosts {
			s.up[sl.slice] = true
			s.epoch++
			s.emitLocked(Event{Type: EventSliceUp, Epoch: s.epoch, Slice: sl.slice})
			s.log.Info("slice up", "slice", sl.slice)
			s.checkReadyLocked()
			s.autoResumeLocked(sl.slice)
		}
	}
	return registration{leaseID: l.id, host: sl.host, ids: sl.view().DeviceIDs, epoch: s.epoch}, nil
}

func (s *Server) pickSlotLocked(w WorkerInfo) (*slot, error) {
	hosts := s.slots[w.Slice]
	if w.Host != AnyHost {
		return hosts[w.Host], nil
	}
	// The same process asking again keeps its host; a worker coming back
	// to the address it had gets its old host (and ids) back.
	for _, sl := range hosts {
		if sl.state == StateLive && sl.info.Incarnation == w.Incarnation {
			return sl, nil
		}
	}
	for _, sl := range hosts {
		if sl.state == StateLost && sl.info.Address == w.Address {
			return sl, nil
		}
	}
	// Otherwise a host nobody has held, then one whose worker was lost (its
	// own worker may still come back for it).
	for _, want := range []State{StateMissing, StateLost} {
		for _, sl := range hosts {
			if sl.state == want {
				return sl, nil
			}
		}
	}
	return nil, ifrt.Errorf(ifrt.ResourceExhausted, "rm: slice %d is full: all %d hosts are held by live workers", w.Slice, len(hosts))
}

func (s *Server) newLeaseIDLocked() uint64 {
	for {
		id := mrand.Uint64()
		if _, taken := s.leases[id]; id != 0 && !taken {
			return id
		}
	}
}

func (s *Server) checkReadyLocked() {
	if s.isReady {
		return
	}
	for _, up := range s.up {
		if !up {
			return
		}
	}
	s.isReady = true
	close(s.ready)
	s.log.Info("all slices up", "instance_count", s.cfg.InstanceCount, "instance_type", s.it.Name)
}

// endLeaseLocked ends l: its timer stops and its heartbeat stream ends with err.
func (s *Server) endLeaseLocked(l *lease, err error) {
	l.timer.Stop()
	delete(s.leases, l.id)
	l.err = err
	close(l.done)
	if l.slot.lease == l {
		l.slot.lease = nil
	}
}

// lostLocked marks the live slot sl lost.
func (s *Server) lostLocked(sl *slot, reason string, streamErr error) {
	s.endLeaseLocked(sl.lease, streamErr)
	sl.state, sl.lostReason = StateLost, reason
	s.liveHosts[sl.slice]--
	s.epoch++
	view := sl.view()
	s.emitLocked(Event{Type: EventWorkerLost, Epoch: s.epoch, Worker: &view})
	s.log.Warn("worker lost", "slice", sl.slice, "host", sl.host, "address", sl.info.Address, "incarnation", sl.info.Incarnation, "reason", reason)
	if s.up[sl.slice] {
		s.up[sl.slice] = false
		s.epoch++
		s.emitLocked(Event{Type: EventSliceDown, Epoch: s.epoch, Slice: sl.slice})
		s.log.Warn("slice down", "slice", sl.slice)
	}
	s.suspendHostLostLocked(sl)
}

// expire runs when l's timer fires.
func (s *Server) expire(l *lease) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopping || s.leases[l.id] != l {
		return
	}
	if left := time.Until(l.deadline); left > 0 {
		l.timer.Reset(left)
		return
	}
	s.lostLocked(l.slot, fmt.Sprintf("no heartbeat for %v", s.timeout),
		ifrt.Errorf(ifrt.DeadlineExceeded, "rm: no heartbeat for %v; register again", s.timeout))
}

// beat records a heartbeat on l from stream id; false if l or the stream no
// longer holds the lease.
func (s *Server) beat(l *lease, stream uint64) (uint64, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.leases[l.id] != l || l.stream != stream {
		return 0, false
	}
	l.deadline = time.Now().Add(s.timeout)
	return s.epoch, true
}

// attach makes a new heartbeat stream the owner of lease id.
// It returns the lease, the stream's id and a channel closed when yet another
// stream takes over.
func (s *Server) attach(id uint64) (l *lease, stream uint64, takeover <-chan struct{}, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopping {
		return nil, 0, nil, errShuttingDown()
	}
	l = s.leases[id]
	if l == nil {
		return nil, 0, nil, ifrt.Errorf(ifrt.NotFound, "rm: lease %#x is not held (the resource manager restarted or the worker was lost); register again", id)
	}
	if l.takeover != nil {
		close(l.takeover)
	}
	s.streams++
	l.stream, l.takeover = s.streams, make(chan struct{})
	l.deadline = time.Now().Add(s.timeout)
	return l, l.stream, l.takeover, nil
}

// detach is called when heartbeat stream ends on its own (broken or closed by
// the worker): if it still owns its lease, the worker is lost at once.
func (s *Server) detach(l *lease, stream uint64, reason string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopping || s.leases[l.id] != l || l.stream != stream {
		return
	}
	s.lostLocked(l.slot, reason, ifrt.Errorf(ifrt.Canceled, "rm: heartbeat stream ended"))
}

// watcher is one Watch stream.
type watcher struct {
	ch      chan Event
	dropped chan struct{} // closed when the watcher fell behind
}

// watchBuffer is how many events a watcher may lag behind before it is
// dropped: enough for every host of the cluster to join and every slice to
// come up, within bounds (a dropped watcher watches again and gets a fresh
// snapshot, so the bound costs only a reconnection).
func (s *Server) watchBuffer() int {
	n := 2 * s.cfg.InstanceCount * (s.it.Hosts + 1)
	return min(max(n, 256), 8192)
}

func (s *Server) subscribe() (*watcher, *Cluster, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopping {
		return nil, nil, errShuttingDown()
	}
	if len(s.watchers) >= s.cfg.maxWatchers() {
		return nil, nil, ifrt.Errorf(ifrt.ResourceExhausted, "rm: %d Watch streams are open, the max_watchers limit", len(s.watchers))
	}
	w := &watcher{ch: make(chan Event, s.watchBuffer()), dropped: make(chan struct{})}
	s.watchers[w] = struct{}{}
	return w, s.snapshotLocked(), nil
}

func (s *Server) unsubscribe(w *watcher) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.watchers, w)
}

func (s *Server) emitLocked(e Event) {
	for w := range s.watchers {
		select {
		case w.ch <- e:
		default:
			delete(s.watchers, w)
			close(w.dropped)
		}
	}
}
