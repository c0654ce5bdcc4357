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
	// Slices is the number of slices, each one worker (one host). Default 1.
	Slices int
	// DevicesPerSlice is the number of devices of each worker. Default 8.
	DevicesPerSlice int
	// NewBackend makes the backend of the worker of a slice. Default: gocpu with
	// DevicesPerSlice devices.
	NewBackend func(slice int) (ifrt.Client, error)
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
		return faults.Injector{StopWorker: l.stopWorker, StartWorker: l.startWorker, RestartRM: l.restartRM, Worker: l.worker}
	}
}

// Start starts an in-process cluster and connects a Client to it, waiting
// until every slice is up.
func Start(ctx context.Context, cfg Config) (*Cluster, error) {
	if cfg.Slices == 0 {
		cfg.Slices = 1
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
	l := &Cluster{cfg: cfg, workers: make([]*localWorker, cfg.Slices)}
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

	for i := range cfg.Slices {
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
		l.cfg.Logger.Warn("local: "+name+" stopped", "error", err)
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
	return rm.Config{
		InstanceType:  fmt.Sprintf("cpu:%d", l.cfg.DevicesPerSlice),
		InstanceCount: l.cfg.Slices,
		Logger:        l.cfg.Logger,
	}
}

// startWorker starts the worker of a slice (again, after stopWorker): a fresh
// backend on a new port. Its devices keep their ids.
func (l *Cluster) startWorker(ctx context.Context, slice int) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if slice < 0 || slice >= len(l.workers) {
		return fmt.Errorf("local: no slice %d", slice)
	}
	if l.workers[slice] != nil {
		return fmt.Errorf("local: the worker of slice %d is running", slice)
	}
	backend, err := l.cfg.NewBackend(slice)
	if err != nil {
		return err
	}
	ws, err := worker.New(worker.Config{Backend: backend, ResourceManager: l.RMAddress, Slice: slice, Logger: l.cfg.Logger,
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
			l.cfg.Logger.Warn("local: worker stopped", "slice", slice, "error", err)
		}
	}()
	select {
	case <-ws.Ready():
	case <-ctx.Done():
		ws.Close()
		backend.Close()
		return ctx.Err()
	}
	l.workers[slice] = &localWorker{server: ws, backend: backend}
	return nil
}

// stopWorker kills the worker of a slice at once, as a crash would: its arrays
// are gone and the RM reports it lost.
func (l *Cluster) stopWorker(slice int) error {
	l.mu.Lock()
	if slice < 0 || slice >= len(l.workers) {
		l.mu.Unlock()
		return fmt.Errorf("local: no slice %d", slice)
	}
	w := l.workers[slice]
	l.workers[slice] = nil
	l.mu.Unlock()
	if w == nil {
		return fmt.Errorf("local: the worker of slice %d is not running", slice)
	}
	w.server.Close()
	return w.backend.Close()
}

// worker returns the worker server of a slice (nil while stopped).
func (l *Cluster) worker(slice int) *worker.Server {
	l.mu.Lock()
	defer l.mu.Unlock()
	if slice < 0 || slice >= len(l.workers) {
		return nil
	}
	if w := l.workers[slice]; w != nil {
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
