package local

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"sync"

	"github.com/openpathways/pathways/cluster"
	"github.com/openpathways/pathways/cluster/local/internal/faults"
	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/ifrt/gocpu"
	"github.com/openpathways/pathways/proxy/proxyserver"
	"github.com/openpathways/pathways/rm"
	"github.com/openpathways/pathways/worker"
)

// Config configures Start. The zero value is one slice of 8 gocpu devices.
type Config struct {
	// Slices is the number of slices. Default 1.
	Slices int
	// HostsPerSlice is the number of hosts (workers) of each slice. Default 1.
	HostsPerSlice int
	// DevicesPerSlice is the number of devices of each worker (of each host:
	// a slice has HostsPerSlice × DevicesPerSlice). Default 8.
	DevicesPerSlice int
	// NewBackend makes the backend of worker i (slice i/HostsPerSlice, host
	// i%HostsPerSlice). Default: gocpu with DevicesPerSlice devices.
	NewBackend func(i int) (ifrt.Client, error)
	// Logger receives the logs of every component. Default slog.Default().
	Logger *slog.Logger
	// NoProxy leaves out the IFRT Proxy server over the cluster.
	NoProxy bool
	// ScratchLocation is the workers' scratch storage (worker.Config), where
	// they keep their shared compilation cache. Default none.
	ScratchLocation string
}

// Cluster is an in-process cluster: a resource manager, one worker per slice
// and an IFRT Proxy server over the whole cluster, each serving gRPC on a
// loopback port, and a Client connected to it. Close stops everything.
type Cluster struct {
	// Client is the cluster, as a Go ifrt.Client.
	Client *cluster.Client
	// RMAddress is the resource manager's address (host:port).
	RMAddress string
	// ProxyAddress is where JAX connects (JAX_BACKEND_TARGET=grpc://ProxyAddress);
	// empty with Config.NoProxy.
	ProxyAddress string

	cfg     Config
	rm      *rm.Server
	proxy   *proxyserver.Server
	mu      sync.Mutex
	workers []*localWorker
}

type localWorker struct {
	server  *worker.Server
	backend ifrt.Client
}

// Package localtest reaches the fault injection through here.
func init() {
	faults.Of = func(c any) faults.Injector {
		l := c.(*Cluster)
		return faults.Injector{StopWorker: l.stopWorker, StartWorker: l.startWorker, RestartRM: l.restartRM, Worker: l.worker, PreemptWorker: l.preemptWorker}
	}
}

// Start starts an in-process cluster and connects a Client to it, waiting
// until every slice is up.
func Start(ctx context.Context, cfg Config) (*Cluster, error) {
	if cfg.Slices == 0 {
		cfg.Slices = 1
	}
	if cfg.HostsPerSlice == 0 {
		cfg.HostsPerSlice = 1
	}
	if cfg.DevicesPerSlice == 0 {
		cfg.DevicesPerSlice = 8
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.NewBackend == nil {
		n := cfg.DevicesPerSlice
		cfg.NewBackend = func(int) (ifrt.Client, error) { return gocpu.New(gocpu.Config{Devices: n}) }
	}
	l := &Cluster{cfg: cfg, workers: make([]*localWorker, cfg.Slices*cfg.HostsPerSlice)}
	rms, err := rm.New(l.rmConfig())
	if err != nil {
		return nil, err
	}
	l.rm = rms
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	l.RMAddress = lis.Addr().String()
	go l.serve("resource manager", func() error { return rms.Serve(lis) })

	for i := range l.workers {
		if err := l.startWorker(ctx, i); err != nil {
			l.Close()
			return nil, err
		}
	}
	l.Client, err = cluster.Connect(ctx, l.RMAddress, cluster.WithLogger(cfg.Logger))
	if err != nil {
		l.Close()
		return nil, err
	}
	if !cfg.NoProxy {
		// Each JAX session gets a cluster client of its own, so that what one
		// session holds or suffers is its own.
		ps, err := proxyserver.New(proxyserver.Config{
			Logger: cfg.Logger,
			SessionBackend: func(ctx context.Context, log *slog.Logger) (ifrt.Client, error) {
				return cluster.Connect(ctx, l.RMAddress, cluster.WithLogger(log))
			},
		})
		if err != nil {
			l.Close()
			return nil, err
		}
		plis, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			l.Close()
			return nil, err
		}
		l.proxy, l.ProxyAddress = ps, plis.Addr().String()
		go l.serve("proxy server", func() error { return ps.Serve(plis) })
	}
	return l, nil
}

// serve runs a server's Serve and logs how it ended, unless it was stopped.
func (l *Cluster) serve(name string, serve func() error) {
	if err := serve(); err != nil && !errors.Is(err, rm.ErrServerClosed) && !errors.Is(err, proxyserver.ErrServerClosed) {
		l.cfg.Logger.Warn(name+" stopped", "error", err)
	}
}

// restartRM stops the resource manager and starts a new one, with no memory of
// the cluster, on the same address: the workers register again by themselves.
func (l *Cluster) restartRM() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.rm.Close()
	rms, err := rm.New(l.rmConfig())
	if err != nil {
		return err
	}
	lis, err := net.Listen("tcp", l.RMAddress)
	if err != nil {
		return fmt.Errorf("local: listen again on %s: %w", l.RMAddress, err)
	}
	l.rm = rms
	go l.serve("resource manager", func() error { return rms.Serve(lis) })
	return nil
}

func (l *Cluster) rmConfig() rm.Config {
	it := fmt.Sprintf("cpu:%d", l.cfg.DevicesPerSlice)
	if l.cfg.HostsPerSlice > 1 {
		it = fmt.Sprintf("cpu:%dhx%d", l.cfg.HostsPerSlice, l.cfg.DevicesPerSlice)
	}
	return rm.Config{
		InstanceType:  it,
		InstanceCount: l.cfg.Slices,
		Logger:        l.cfg.Logger,
	}
}

// startWorker starts worker i (again, after stopWorker): a fresh backend on a
// new port. Its devices keep their ids. Worker i is host i%HostsPerSlice of
// slice i/HostsPerSlice.
func (l *Cluster) startWorker(ctx context.Context, i int) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if i < 0 || i >= len(l.workers) {
		return fmt.Errorf("local: no worker %d", i)
	}
	if l.workers[i] != nil {
		return fmt.Errorf("local: worker %d is running", i)
	}
	backend, err := l.cfg.NewBackend(i)
	if err != nil {
		return err
	}
	slice, host := i/l.cfg.HostsPerSlice, i%l.cfg.HostsPerSlice
	ws, err := worker.New(worker.Config{Backend: backend, ResourceManager: l.RMAddress, Slice: slice, Host: host, Logger: l.cfg.Logger,
		ScratchLocation: l.cfg.ScratchLocation})
	if err != nil {
		backend.Close()
		return err
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		backend.Close()
		return err
	}
	go func() {
		if err := ws.Serve(lis); err != nil && !errors.Is(err, worker.ErrServerClosed) {
			l.cfg.Logger.Warn("worker stopped", "slice", slice, "host", host, "error", err)
		}
	}()
	select {
	case <-ws.Ready():
	case <-ctx.Done():
		ws.Close()
		backend.Close()
		return ctx.Err()
	}
	l.workers[i] = &localWorker{server: ws, backend: backend}
	return nil
}

// stopWorker kills worker i at once, as a crash would: its arrays are gone
// and the RM reports it lost.
func (l *Cluster) stopWorker(i int) error {
	l.mu.Lock()
	if i < 0 || i >= len(l.workers) {
		l.mu.Unlock()
		return fmt.Errorf("local: no worker %d", i)
	}
	w := l.workers[i]
	l.workers[i] = nil
	l.mu.Unlock()
	if w == nil {
		return fmt.Errorf("local: worker %d is not running", i)
	}
	w.server.Close()
	return w.backend.Close()
}

// preemptWorker stops worker i as SIGTERM with a preemption notice does: it
// suspends its slice, then shuts down.
func (l *Cluster) preemptWorker(ctx context.Context, i int) error {
	l.mu.Lock()
	if i < 0 || i >= len(l.workers) || l.workers[i] == nil {
		l.mu.Unlock()
		return fmt.Errorf("local: worker %d is not running", i)
	}
	w := l.workers[i]
	l.workers[i] = nil
	l.mu.Unlock()
	err := w.server.Terminate(ctx, true)
	return errors.Join(err, w.backend.Close())
}

// worker returns worker i's server (nil while stopped).
func (l *Cluster) worker(i int) *worker.Server {
	l.mu.Lock()
	defer l.mu.Unlock()
	if i < 0 || i >= len(l.workers) {
		return nil
	}
	if w := l.workers[i]; w != nil {
		return w.server
	}
	return nil
}

// Close stops the client, the proxy server, the workers and the RM.
func (l *Cluster) Close() error {
	var errs []error
	if l.proxy != nil {
		errs = append(errs, l.proxy.Close())
	}
	if l.Client != nil {
		errs = append(errs, l.Client.Close())
	}
	for i := range l.workers {
		if l.worker(i) != nil {
			errs = append(errs, l.stopWorker(i))
		}
	}
	l.mu.Lock()
	errs = append(errs, l.rm.Close())
	l.mu.Unlock()
	return errors.Join(errs...)
}
