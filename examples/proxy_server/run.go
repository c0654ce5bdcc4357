package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net"
	"slices"
	"strings"

	"github.com/openpathways/pathways/cluster"
	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/internal/envconfig"
	"github.com/openpathways/pathways/internal/profiling"
	"github.com/openpathways/pathways/internal/serverflags"
	"github.com/openpathways/pathways/internal/xlaflags"
	"github.com/openpathways/pathways/proxy/proxyserver"
	"github.com/openpathways/pathways/rm"
)

const defaultPort = 29000

type config struct {
	port          int
	rmAddress     string
	scratch       envconfig.Scratch
	elastic       int
	virtualSlices []rm.InstanceType
	xla           xlaflags.Flags
	common        serverflags.Common
	security      rm.Security
	limits        serverflags.Limits
	largeTransfer string // --large_transfer_directory
}

// parse reads the command line and the environment; --xla_* flags are taken
// out first.
func parse(args []string, env func(string) string, stderr io.Writer) (config, error) {
	var c config
	xla, rest, err := xlaflags.Split(args)
	if err != nil {
		return c, err
	}
	c.xla = xla
	fs := flag.NewFlagSet("proxy_server", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var scratch, virtual string
	var elastic, elasticAlias int
	fs.IntVar(&c.port, "server_port", defaultPort, "port JAX connects to (0 picks a free port)")
	fs.StringVar(&c.rmAddress, "resource_manager_address", "", "the resource manager's host:port (required)")
	fs.StringVar(&scratch, "gcs_scratch_location", "", "scratch storage: gs://bucket/prefix, file:///dir or a directory (validated; nothing is stored yet)")
	fs.IntVar(&elastic, "num_elastic_instances", 0, "how many slices may be lost at once while the session goes on")
	fs.IntVar(&elasticAlias, "num_elastic_slices", 0, "alias of --num_elastic_instances")
	fs.StringVar(&virtual, "virtual_slices", "", "the slices wanted, one <kind>:<topology> per slice, comma-separated")
	fs.StringVar(&c.largeTransfer, "large_transfer_directory", "", "directory shared with the JAX client (a memory-backed volume), where it writes host buffers of at least IFRT_PROXY_GRPC_LARGE_TRANSFER_OPTIMIZATION_THRESHOLD_BYTES when its IFRT_PROXY_GRPC_LARGE_TRANSFER_OPTIMIZATION_DIRECTORY names it; see docs/dataplane.md")
	c.common.Register(fs)
	c.limits.Register(fs)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage of proxy_server (and any --xla_<name>=<value>):\n")
		fs.PrintDefaults()
	}
	set, err := serverflags.Parse(fs, rest)
	if err != nil {
		return c, err
	}

	if c.port < 0 || c.port > 65535 {
		return c, fmt.Errorf("--server_port=%d is not a port", c.port)
	}
	if err := c.common.Check(); err != nil {
		return c, err
	}
	if err := c.limits.Check(); err != nil {
		return c, err
	}
	if c.security, err = c.common.Security(envconfig.Lookup(env)); err != nil {
		return c, err
	}
	if c.rmAddress == "" {
		return c, fmt.Errorf("--resource_manager_address is required (the resource manager's host:port, e.g. localhost:29001)")
	}
	if _, _, err := net.SplitHostPort(strings.TrimPrefix(c.rmAddress, "grpc://")); err != nil {
		return c, fmt.Errorf("--resource_manager_address=%q: want host:port", c.rmAddress)
	}
	if c.scratch, err = envconfig.ParseScratchLocation(scratch); err != nil {
		return c, err
	}
	c.elastic = elastic
	if set["num_elastic_slices"] {
		if set["num_elastic_instances"] && elastic != elasticAlias {
			return c, fmt.Errorf("--num_elastic_instances=%d and --num_elastic_slices=%d disagree (they are the same setting)", elastic, elasticAlias)
		}
		c.elastic = elasticAlias
	}
	if c.elastic < 0 {
		return c, fmt.Errorf("--num_elastic_instances=%d: want 0 or more", c.elastic)
	}
	if virtual != "" {
		for _, v := range strings.Split(virtual, ",") {
			it, err := rm.ParseInstanceType(strings.TrimSpace(v))
			if err != nil {
				return c, fmt.Errorf("--virtual_slices: %w", err)
			}
			c.virtualSlices = append(c.virtualSlices, it)
		}
	}
	if len(c.virtualSlices) > 0 && c.elastic >= len(c.virtualSlices) {
		return c, fmt.Errorf("--num_elastic_instances=%d would let every one of the %d --virtual_slices be lost", c.elastic, len(c.virtualSlices))
	}
	return c, nil
}

// run is the whole program: it connects to the cluster, serves until ctx ends,
// then shuts down gracefully.
func run(ctx context.Context, args []string, env func(string) string, stdout, stderr io.Writer) error {
	c, err := parse(args, env, stderr)
	if err != nil {
		return err
	}
	log, err := c.common.Logger(stderr, c.security, "the resource manager or a worker can join or read the cluster")
	if err != nil {
		return err
	}
	log.Info("proxy server starting", "resource_manager", c.rmAddress, "num_elastic_instances", c.elastic,
		"virtual_slices", len(c.virtualSlices), "xla_flags", c.xla.String(), "gcs_scratch_location", c.scratch.String())

	lis, err := c.common.Listen(c.port)
	if err != nil {
		return err
	}
	defer lis.Close()
	log.Info("waiting for every slice of the cluster", "resource_manager", c.rmAddress)
	interval, timeout := c.common.Keepalive()
	client, err := cluster.Connect(ctx, c.rmAddress, cluster.WithLogger(log),
		cluster.WithSecurity(c.security), cluster.WithKeepalive(interval, timeout))
	if err != nil {
		if ctx.Err() != nil {
			return nil // stopped while waiting
		}
		return err
	}
	defer client.Close()
	if err := checkVirtualSlices(c.virtualSlices, client); err != nil {
		return err
	}
	// pathwaysutils' Shared Pathways Service counts these lines in the proxy's
	// log to learn that its slices are ready.
	for _, s := range sliceIndices(client) {
		log.Info(fmt.Sprintf("Transition slice %d: unplaced -> placed", s), "slice", s)
	}
	// Every JAX session gets a cluster client of its own, which the elastic
	// policy watches: losing more slices than --num_elastic_instances ends the
	// sessions that were running, and a new session starts once every slice is
	// back, so JAX programs never need another proxy server.
	srv, err := proxyserver.New(proxyserver.Config{
		Logger: log, Limits: c.limits.Proxy(),
		MaxRecvMsgSize: int(c.limits.MaxMessageBytes), KeepaliveInterval: interval, KeepaliveTimeout: timeout,
		LargeTransferDirectory: c.largeTransfer,
		SessionBackend: func(ctx context.Context, log *slog.Logger) (ifrt.Client, error) {
			return connectSession(ctx, c, log)
		},
	})
	if err != nil {
		return err
	}
	healthCtx, stopHealth := context.WithCancel(ctx)
	defer stopHealth()
	go reportHealth(healthCtx, c, srv, log)
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(lis) }()
	log.Info("IFRT proxy server started with status OK", "address", lis.Addr().String(), "devices", len(client.Devices()))
	fmt.Fprintf(stdout, "IFRT proxy server started with status OK; proxy server ready on %s (%d devices)\n", lis.Addr(), len(client.Devices()))

	for {
		select {
		case err := <-errc:
			if err == nil {
				return errors.New("the server stopped on its own")
			}
			return err
		case <-ctx.Done():
			log.Info("shutting down", "cause", context.Cause(ctx))
			sctx, cancel := context.WithTimeout(context.Background(), c.common.DrainTimeout)
			defer cancel()
			if err := srv.Shutdown(sctx); err != nil {
				log.Warn("graceful shutdown cut short", "error", err)
				srv.Close()
			}
			if err := <-errc; err != nil && !errors.Is(err, proxyserver.ErrServerClosed) {
				return err
			}
			log.Info("stopped")
			return nil
		}
	}
}

// checkVirtualSlices checks that the cluster can give the slices asked for.
func checkVirtualSlices(want []rm.InstanceType, c *cluster.Client) error {
	if len(want) == 0 {
		return nil
	}
	have := c.Platform().Version // the RM's instance type
	for _, it := range want {
		if it.Name != have {
			return fmt.Errorf("--virtual_slices asks for %s; the resource manager's slices are %s", it.Name, have)
		}
	}
	if n := len(sliceIndices(c)); len(want) > n {
		return fmt.Errorf("--virtual_slices asks for %d slices; the resource manager has %d", len(want), n)
	}
	return nil
}

// sliceIndices lists the cluster's slices in order.
func sliceIndices(c *cluster.Client) []int64 {
	seen := map[int64]bool{}
	for _, d := range c.Devices() {
		if s, ok := d.Attributes.Int64(ifrt.AttrSliceIndex); ok {
			seen[s] = true
		}
	}
	return slices.Sorted(maps.Keys(seen))
}

// connectSession connects a JAX session's own client to the cluster, waiting
// until every slice is up, with the session's elastic policy and --xla_* flags.
func connectSession(ctx context.Context, c config, log *slog.Logger) (ifrt.Client, error) {
	interval, timeout := c.common.Keepalive()
	client, err := cluster.Connect(ctx, c.rmAddress, cluster.WithLogger(log), cluster.WithElasticSlices(c.elastic),
		cluster.WithSecurity(c.security), cluster.WithKeepalive(interval, timeout))
	if err != nil {
		return nil, err
	}
	return sessionBackend{Client: xlaflags.Wrap(client, c.xla), cluster: client}, nil
}

// sessionBackend is a session's cluster client behind the --xla_* flags; it
// tells the proxy server when the session has failed, and has the workers
// take traces for jax.profiler.start_trace (profiling.Hosts).
type sessionBackend struct {
	ifrt.Client
	cluster *cluster.Client
}

func (b sessionBackend) Failed() <-chan struct{} { return b.cluster.Failed() }
func (b sessionBackend) Err() error              { return b.cluster.Err() }
func (b sessionBackend) StartHostTraces(ctx context.Context, sel profiling.Selection) (profiling.HostTraces, error) {
	return b.cluster.StartHostTraces(ctx, sel)
}

// reportHealth keeps the health service in line with the cluster until ctx
// ends: NOT_SERVING while more slices are down than --num_elastic_instances
// allows (sessions then fail, and a new one waits for the slices), SERVING
// once they are back. It tells an orchestrator probing the proxy. A
// suspended slice is not down (cluster.SliceHealth), whoever left it.
func reportHealth(ctx context.Context, c config, srv *proxyserver.Server, log *slog.Logger) {
	interval, timeout := c.common.Keepalive()
	rmc, err := rm.NewClient(c.rmAddress, rm.WithLogger(log), rm.WithSecurity(c.security), rm.WithKeepalive(interval, timeout))
	if err != nil {
		log.Error("the health service cannot follow the cluster", "error", err)
		return
	}
	defer rmc.Close()
	var health cluster.SliceHealth // the rule the sessions' clients follow
	serving := true
	for ev, err := range rmc.Watch(ctx) {
		if err != nil {
			continue // the RM client logs while it retries
		}
		health.Observe(ev)
		down := health.Down()
		if ok := len(down) <= c.elastic; ok != serving {
			serving = ok
			srv.SetServing(ok)
			if ok {
				log.Info("the lost slices are back; the health service reports SERVING")
			} else {
				log.Error("more slices are down than --num_elastic_instances allows; sessions fail and new ones wait; the health service reports NOT_SERVING",
					"slices_down", down, "num_elastic_instances", c.elastic)
			}
		}
	}
}
