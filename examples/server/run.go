package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/openpathways/pathways/ifrt"
	_ "github.com/openpathways/pathways/ifrt/gocpu" // registers "gocpu"
	"github.com/openpathways/pathways/internal/envconfig"
	"github.com/openpathways/pathways/internal/serverflags"
	"github.com/openpathways/pathways/pjrt/pjrtifrt" // registers "pjrt"
	"github.com/openpathways/pathways/rm"
	"github.com/openpathways/pathways/storage"
	_ "github.com/openpathways/pathways/storage/gcs" // serves gs:// scratch locations
	"github.com/openpathways/pathways/worker"
)

// Default ports: the RM's is what every Pathways manifest uses; the worker's is
// xpk's and pathways-job's (the Cloud docs pass --server_port=29001 to workers
// too, which works as they run on other hosts).
const (
	defaultRMPort     = 29001
	defaultWorkerPort = 29005
)

const nodeTypeRM = "resource_manager"

// config is the command line and environment, checked.
type config struct {
	nodeType      string // nodeTypeRM or "worker"
	port          int
	instanceType  string
	instanceCount int
	rmAddress     string
	scratch       envconfig.Scratch
	enableGCSOLM  bool
	backend       string
	sidecar       string // worker: the sidecar's command line
	megascale     envconfig.Megascale
	host          int // index in the slice; rm.AnyHost: the RM picks
	hostAddress   string
	skipMDS       bool
	common        serverflags.Common
	security      rm.Security
	limits        serverflags.Limits // worker
	maxWatchers   int                // RM
	noticeFile    string             // worker: --preemption_notice_file
	goMemLimit    bool               // GOMEMLIMIT is set
}

func (c config) isRM() bool { return c.nodeType == nodeTypeRM }

// parse reads the flags and the environment and rejects unknown, malformed and
// contradictory settings.
func parse(args []string, env func(string) string, stderr io.Writer) (config, error) {
	fs := flag.NewFlagSet("server", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var c config
	c.goMemLimit = env("GOMEMLIMIT") != ""
	var scratch string
	fs.StringVar(&c.nodeType, "node_type", "", `"resource_manager" runs the resource manager; absent or "worker" runs a worker`)
	var port portFlag
	fs.Var(&port, "server_port", fmt.Sprintf("gRPC `port` (default %d for the resource manager, %d for a worker; 0 picks a free port)", defaultRMPort, defaultWorkerPort))
	fs.StringVar(&c.instanceType, "instance_type", "", "shape of every slice, <kind>:<topology>, e.g. tpuv5e:4x4 or cpu:4 (required for the resource manager)")
	fs.IntVar(&c.instanceCount, "instance_count", 1, "resource manager: number of slices")
	fs.StringVar(&c.rmAddress, "resource_manager_address", "", "worker: the resource manager's host:port (required)")
	fs.StringVar(&scratch, "gcs_scratch_location", "", "scratch storage: gs://bucket/prefix, file:///dir or a directory; workers keep the shared compilation cache there (compilation_cache/)")
	fs.BoolVar(&c.enableGCSOLM, "enable_gcs_olm", false, fmt.Sprintf("resource manager: set a lifecycle rule on the gs:// scratch bucket that deletes compilation cache entries after %d days", cacheExpiryDays))
	fs.StringVar(&c.backend, "backend", "gocpu", "worker: gocpu, or pjrt:<plugin .so> for a PJRT plugin")
	fs.StringVar(&c.sidecar, "sidecar", "", "worker: run jax.experimental.colocated_python functions in a sidecar started with this command, split at spaces, e.g. \"python3 sidecar/python/pathways_sidecar.py\" (see docs/sidecar.md); default none")
	fs.IntVar(&c.maxWatchers, "max_watchers", rm.DefaultMaxWatchers, "resource manager: Watch streams open at once")
	fs.StringVar(&c.noticeFile, "preemption_notice_file", "", "worker: a `file` whose existence at SIGTERM means the host is preempted: the worker first suspends its slice, saving its arrays to --gcs_scratch_location, to resume on a replacement")
	c.common.Register(fs)
	c.limits.Register(fs)
	set, err := serverflags.Parse(fs, args)
	if err != nil {
		return c, err
	}

	switch c.nodeType {
	case nodeTypeRM:
	case "", "worker":
		c.nodeType = "worker"
	default:
		return c, fmt.Errorf("--node_type=%q: want %q, or leave it out for a worker", c.nodeType, nodeTypeRM)
	}
	switch {
	case port.set:
		c.port = port.port
	case c.isRM():
		c.port = defaultRMPort
	default:
		c.port = defaultWorkerPort
	}
	if c.port < 0 || c.port > 65535 {
		return c, fmt.Errorf("--server_port=%d is not a port", c.port)
	}
	if c.scratch, err = envconfig.ParseScratchLocation(scratch); err != nil {
		return c, err
	}
	if c.enableGCSOLM && c.scratch.Scheme != "gs" {
		return c, fmt.Errorf("--enable_gcs_olm needs a gs:// --gcs_scratch_location")
	}
	if c.instanceType != "" {
		if _, err := rm.ParseInstanceType(c.instanceType); err != nil {
			return c, fmt.Errorf("--instance_type: %w", err)
		}
	}
	if err := c.common.Check(); err != nil {
		return c, err
	}
	look := envconfig.Lookup(env)
	if c.security, err = c.common.Security(look); err != nil {
		return c, err
	}
	c.hostAddress = look.String(envconfig.HostAddress)
	if c.skipMDS, err = look.Bool(envconfig.TPUSkipMDSQuery); err != nil {
		return c, err
	}

	if c.isRM() {
		for _, name := range []string{"resource_manager_address", "backend", "sidecar", "max_sessions", "max_session_host_buffer_bytes", "max_host_buffer_bytes", "max_session_live_bytes", "max_inflight_uploads", "max_message_bytes"} {
			if set[name] {
				return c, fmt.Errorf("--%s is a worker flag; the resource manager (--node_type=resource_manager) does not take it", name)
			}
		}
		if c.maxWatchers <= 0 {
			return c, fmt.Errorf("--max_watchers=%d: want at least 1", c.maxWatchers)
		}
		if c.instanceType == "" {
			return c, fmt.Errorf("the resource manager needs --instance_type, e.g. tpuv5e:4x4 or cpu:4")
		}
		if c.instanceCount < 1 {
			return c, fmt.Errorf("--instance_count=%d: want at least 1", c.instanceCount)
		}
		return c, nil
	}

	for _, name := range []string{"instance_count", "max_watchers"} {
		if set[name] {
			return c, fmt.Errorf("--%s is a resource manager flag; a worker does not take it", name)
		}
	}
	if err := c.limits.Check(); err != nil {
		return c, err
	}
	if c.rmAddress == "" {
		return c, fmt.Errorf("a worker needs --resource_manager_address (or --node_type=resource_manager for the resource manager)")
	}
	if _, _, err := net.SplitHostPort(strings.TrimPrefix(c.rmAddress, "grpc://")); err != nil {
		return c, fmt.Errorf("--resource_manager_address=%q: want host:port", c.rmAddress)
	}
	if _, _, err := splitBackend(c.backend); err != nil {
		return c, err
	}
	if c.megascale, err = look.Megascale(); err != nil {
		return c, err
	}
	c.host = rm.AnyHost
	if id, ok, err := look.Int(envconfig.TPUWorkerID); err != nil {
		return c, err
	} else if ok {
		c.host = id
	}
	return c, nil
}

// splitBackend parses --backend: "gocpu", or "pjrt:<path>" / "pjrt:plugin=<path>[,...]".
func splitBackend(b string) (name, plugin string, err error) {
	switch {
	case b == "gocpu":
		return "gocpu", "", nil
	case strings.HasPrefix(b, "pjrt:"):
		rest := strings.TrimPrefix(b, "pjrt:")
		if strings.Contains(rest, "=") {
			plugin = ifrt.ParseConfig(rest)["plugin"]
		} else {
			plugin = rest
		}
		if plugin == "" {
			return "", "", fmt.Errorf("--backend=%q: want pjrt:<plugin .so>", b)
		}
		return "pjrt", plugin, nil
	}
	return "", "", fmt.Errorf("--backend=%q: want gocpu or pjrt:<plugin .so>", b)
}

// run is the whole program: it serves until ctx ends, then shuts down
// gracefully. Errors in the command line come back before anything starts.
func run(ctx context.Context, args []string, env func(string) string, stdout, stderr io.Writer) error {
	c, err := parse(args, env, stderr)
	if err != nil {
		return err
	}
	log, err := c.common.Logger(stderr, c.security, "this port can register workers and read or place arrays")
	if err != nil {
		return err
	}
	if c.isRM() {
		err = runRM(ctx, c, log, stdout)
	} else {
		err = runWorker(ctx, c, log, stdout)
	}
	if err != nil && ctx.Err() != nil {
		// Stopped (SIGTERM) before it was ready, e.g. while waiting for the RM.
		log.Info("stopped before ready", "error", err)
		return nil
	}
	return err
}

// server is what rm.Server and worker.Server have in common.
type server interface {
	Serve(net.Listener) error
	Shutdown(context.Context) error
	Close() error
}

// serve runs srv on lis until ctx ends (then drains it for up to drain) or it
// stops on its own. ready, if set, is called once it serves.
func serve(ctx context.Context, srv server, lis net.Listener, log *slog.Logger, drain time.Duration, ready <-chan struct{}, onReady func()) error {
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(lis) }()
	if ready == nil {
		onReady()
	}
	for {
		select {
		case <-ready:
			onReady()
			ready = nil
		case err := <-errc:
			if err == nil {
				return errors.New("the server stopped on its own")
			}
			return err
		case <-ctx.Done():
			log.Info("shutting down", "cause", context.Cause(ctx))
			sctx, cancel := context.WithTimeout(context.Background(), drain)
			defer cancel()
			if err := srv.Shutdown(sctx); err != nil {
				log.Warn("graceful shutdown cut short", "error", err)
				srv.Close()
			}
			err := <-errc
			if err != nil && !errors.Is(err, rm.ErrServerClosed) && !errors.Is(err, worker.ErrServerClosed) {
				return err
			}
			log.Info("stopped")
			return nil
		}
	}
}

func runRM(ctx context.Context, c config, log *slog.Logger, stdout io.Writer) error {
	interval, timeout := c.common.Keepalive()
	srv, err := rm.New(rm.Config{InstanceType: c.instanceType, InstanceCount: c.instanceCount, Logger: log,
		Security: c.security, MaxWatchers: c.maxWatchers, KeepaliveInterval: interval, KeepaliveTimeout: timeout})
	if err != nil {
		return err
	}
	lis, err := c.common.Listen(c.port)
	if err != nil {
		return err
	}
	log.Info("resource manager starting", "instance_type", c.instanceType, "instance_count", c.instanceCount,
		"address", lis.Addr().String(), "host_address", c.hostAddress, "gcs_scratch_location", c.scratch.String(),
		"enable_gcs_olm", c.enableGCSOLM, "tpu_skip_mds_query", c.skipMDS)
	if c.enableGCSOLM {
		setCacheLifecycle(ctx, c.scratch.String(), log)
	}
	return serve(ctx, srv, lis, log, c.common.DrainTimeout, nil, func() {
		fmt.Fprintf(stdout, "resource manager ready on %s\n", lis.Addr())
	})
}

func runWorker(ctx context.Context, c config, log *slog.Logger, stdout io.Writer) error {
	slice := max(c.megascale.SliceID, 0)
	it, err := workerInstanceType(ctx, c, log)
	if err != nil {
		return err
	}
	if c.megascale.NumSlices > 0 && it.count > 0 && c.megascale.NumSlices != it.count {
		return fmt.Errorf("%s=%d but the resource manager has %d slices", envconfig.MegascaleNumSlices, c.megascale.NumSlices, it.count)
	}
	if it.count > 0 && slice >= it.count {
		return fmt.Errorf("%s=%d but the resource manager has %d slices", envconfig.MegascaleSliceID, slice, it.count)
	}
	unregister, err := registerRMStore(c, log)
	if err != nil {
		return err
	}
	defer unregister()
	if name, _, err := splitBackend(c.backend); err == nil && name == "gocpu" {
		limitGocpuMemory(c.goMemLimit, log)
	}
	backend, err := openBackend(ctx, c.backend, it.InstanceType)
	if err != nil {
		return fmt.Errorf("--backend=%s: %w", c.backend, err)
	}
	defer backend.Close()
	if c.sidecar != "" {
		host, stop, err := withSidecar(ctx, backend, c.sidecar, log)
		if err != nil {
			return fmt.Errorf("--sidecar=%q: %w", c.sidecar, err)
		}
		defer stop()
		backend = host
	}

	lis, err := c.common.Listen(c.port)
	if err != nil {
		return err
	}
	addr, err := advertised(c.hostAddress, lis.Addr())
	if err != nil {
		lis.Close()
		return err
	}
	interval, timeout := c.common.Keepalive()
	srv, err := worker.New(worker.Config{
		Backend: backend, ResourceManager: c.rmAddress, Slice: slice, Host: c.host,
		Address: addr, Logger: log, Security: c.security, Limits: c.limits.Proxy(),
		MaxRecvMsgSize: int(c.limits.MaxMessageBytes), KeepaliveInterval: interval, KeepaliveTimeout: timeout,
		ScratchLocation: c.scratch.String(),
	})
	if err != nil {
		lis.Close()
		return err
	}
	log.Info("worker starting", "slice", slice, "host", c.host, "address", addr, "listen", lis.Addr().String(),
		"resource_manager", c.rmAddress, "backend", c.backend, "devices", len(backend.AddressableDevices()),
		"platform", backend.Platform().Name, "megascale_num_slices", c.megascale.NumSlices,
		"megascale_coordinator_address", c.megascale.CoordinatorAddress,
		"gcs_scratch_location", c.scratch.String(), "tpu_skip_mds_query", c.skipMDS)
	return serve(ctx, terminating{srv, c.noticeFile}, lis, log, c.common.DrainTimeout, srv.Ready(), func() {
		fmt.Fprintf(stdout, "worker ready on %s (slice %d, %d %s devices)\n", addr, slice, len(backend.AddressableDevices()), backend.Platform().Name)
	})
}

// terminating is a worker whose graceful stop (SIGTERM) first suspends its
// slice when a preemption notice is there (worker.Server.Terminate).
type terminating struct {
	*worker.Server
	notice string // --preemption_notice_file
}

func (t terminating) Shutdown(ctx context.Context) error {
	return t.Terminate(ctx, worker.PreemptionNoticed(t.notice))
}

// slices is the instance type a worker opens its backend for, and the
// cluster's slice count when the worker asked the RM (0 otherwise).
type slices struct {
	rm.InstanceType
	count int
}

// workerInstanceType is --instance_type, or else the RM's, which it waits for.
func workerInstanceType(ctx context.Context, c config, log *slog.Logger) (slices, error) {
	if c.instanceType != "" {
		it, err := rm.ParseInstanceType(c.instanceType)
		return slices{InstanceType: it}, err
	}
	client, err := rm.NewClient(c.rmAddress, rm.WithLogger(log), rm.WithSecurity(c.security))
	if err != nil {
		return slices{}, err
	}
	defer client.Close()
	var last error
	for ev, err := range client.Watch(ctx) {
		if err != nil {
			// The RM client logs while it retries; the loop ends with ctx or
			// after a permanent error.
			if ctx.Err() == nil {
				last = err
			}
			continue
		}
		if ev.Type != rm.EventSnapshot {
			continue
		}
		it, err := rm.ParseInstanceType(ev.Cluster.InstanceType)
		if err != nil {
			return slices{}, err
		}
		return slices{InstanceType: it, count: ev.Cluster.InstanceCount}, nil
	}
	switch {
	case ctx.Err() == nil:
		return slices{}, fmt.Errorf("waiting for the resource manager at %s: %w", c.rmAddress, last)
	case last != nil:
		return slices{}, fmt.Errorf("waiting for the resource manager at %s: %w (last error: %w)", c.rmAddress, context.Cause(ctx), last)
	}
	return slices{}, fmt.Errorf("waiting for the resource manager at %s: %w", c.rmAddress, context.Cause(ctx))
}

// rmStore is the key-value store name under which --backend=pjrt:...,kv=rm
// reaches the resource manager's coordination service.
const rmStore = "rm"

// registerRMStore registers the resource manager's coordination service as
// the store "rm" when --backend names it, so that the processes of one PJRT
// client exchange what their plugin needs through the RM. The returned
// function unregisters it and closes its RM client.
func registerRMStore(c config, log *slog.Logger) (func(), error) {
	if !strings.HasPrefix(c.backend, "pjrt:") || ifrt.ParseConfig(strings.TrimPrefix(c.backend, "pjrt:"))["kv"] != rmStore {
		return func() {}, nil
	}
	client, err := rm.NewClient(c.rmAddress, rm.WithLogger(log), rm.WithSecurity(c.security))
	if err != nil {
		return nil, err
	}
	pjrtifrt.RegisterKeyValueStore(rmStore, client.KeyValue("pjrt"))
	return func() {
		pjrtifrt.RegisterKeyValueStore(rmStore, nil)
		client.Close()
	}, nil
}

// openBackend opens the worker's backend with one host's devices of it.
func openBackend(ctx context.Context, spec string, it rm.InstanceType) (ifrt.Client, error) {
	name, plugin, err := splitBackend(spec)
	if err != nil {
		return nil, err
	}
	n := it.DevicesPerHost()
	if name == "gocpu" {
		if it.Platform != "cpu" {
			return nil, fmt.Errorf("gocpu has cpu devices; instance type %s has %s devices (use --backend=pjrt:<plugin>)", it.Name, it.Platform)
		}
		return ifrt.Open(ctx, fmt.Sprintf("gocpu:devices=%d", n))
	}
	// The options of pjrt:plugin=<.so>,... pass through (process=<i>/<n>,kv=<store>
	// make the worker one process of a multi-process client; see pjrtifrt).
	cfg := strings.TrimPrefix(spec, "pjrt:")
	if !strings.Contains(cfg, "=") {
		cfg = "plugin=" + plugin
	}
	if _, set := ifrt.ParseConfig(cfg)["devices"]; !set && it.Platform == "cpu" {
		// The CPU plugins make one device unless told otherwise.
		cfg += fmt.Sprintf(",devices=%d", n)
	}
	return ifrt.Open(ctx, "pjrt:"+cfg)
}

// advertised is the address the worker gives the RM: HOST_ADDRESS (with the
// listening port unless it has one), else the address it listens on when that
// is one address (--listen_address=127.0.0.1: the host name may resolve to an
// interface it does not listen on), else the host name and the port.
func advertised(hostAddress string, lis net.Addr) (string, error) {
	listenHost, port, err := net.SplitHostPort(lis.String())
	if err != nil {
		return "", err
	}
	host := hostAddress
	if ip := net.ParseIP(listenHost); host == "" && ip != nil && !ip.IsUnspecified() {
		host = listenHost
	}
	if host == "" {
		if host, err = os.Hostname(); err != nil {
			return "", fmt.Errorf("no %s and no host name: %w", envconfig.HostAddress, err)
		}
	}
	if h, p, err := net.SplitHostPort(host); err == nil && p != "" {
		return net.JoinHostPort(h, p), nil
	}
	return net.JoinHostPort(host, port), nil
}

// portFlag is --server_port, whose default depends on --node_type: unset, it
// prints no default of its own (the usage text states both).
type portFlag struct {
	port int
	set  bool
}

func (p *portFlag) String() string {
	if p == nil || !p.set {
		return ""
	}
	return strconv.Itoa(p.port)
}

func (p *portFlag) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil {
		return errors.New("want a port number")
	}
	p.port, p.set = n, true
	return nil
}

// cacheExpiryDays is how old a compilation cache entry gets before the bucket's
// lifecycle rule (--enable_gcs_olm) deletes it.
const cacheExpiryDays = 30

// setCacheLifecycle sets the scratch bucket's lifecycle rule for the
// compilation cache. A failure (often a missing storage.buckets.update
// permission) is logged: the cluster works without the rule.
func setCacheLifecycle(ctx context.Context, scratch string, log *slog.Logger) {
	loc, err := storage.Open(ctx, scratch)
	if err == nil {
		defer loc.Close()
		err = loc.ExpireAfter(ctx, worker.CompileCacheDir, cacheExpiryDays)
	}
	if err != nil {
		log.Warn("--enable_gcs_olm: no lifecycle rule was set", "gcs_scratch_location", scratch, "error", err)
		return
	}
	log.Info("lifecycle rule set: compilation cache entries are deleted after their age limit", "gcs_scratch_location", scratch, "days", cacheExpiryDays)
}
