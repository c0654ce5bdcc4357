package cluster

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"google.golang.org/grpc"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/internal/logging"
	"github.com/openpathways/pathways/internal/rpc"
	"github.com/openpathways/pathways/rm"
)

// Option configures Connect.
type Option interface{ apply(*options) }

type options struct {
	logger        *slog.Logger
	dialOpts      []grpc.DialOption
	security      rm.Security
	keepalive     rpc.Keepalive
	waitReady     bool
	elasticSlices int // < 0: no limit
}

type optionFunc func(*options)

func (f optionFunc) apply(o *options) { f(o) }

// WithLogger sets the logger for connection and membership events. Default
// slog.Default().
func WithLogger(l *slog.Logger) Option { return optionFunc(func(o *options) { o.logger = l }) }

// WithDialOptions adds gRPC dial options for the RM and the workers (e.g. a
// bufconn dialer), after those of WithSecurity and WithKeepalive.
func WithDialOptions(opts ...grpc.DialOption) Option {
	return optionFunc(func(o *options) { o.dialOpts = append(o.dialOpts, opts...) })
}

// WithSecurity sets the cluster's credentials (see rm.Security), which the RM
// and the workers require when they were started with them. Default none:
// plaintext, no token.
func WithSecurity(sec rm.Security) Option { return optionFunc(func(o *options) { o.security = sec }) }

// WithKeepalive sets how often the client checks that each worker and the RM
// answer, and how long an answer may take: a worker that does not answer in
// time (frozen, or cut off by a dead network path) is lost, its data DATA_LOSS,
// and dialled again once it answers, even while the RM is down. Defaults 10s
// and 5s.
func WithKeepalive(interval, timeout time.Duration) Option {
	return optionFunc(func(o *options) { o.keepalive = rpc.Keepalive{Interval: interval, Timeout: timeout} })
}

// WithoutWaitingForSlices makes Connect return as soon as it has the cluster view,
// instead of waiting until every slice is up. Devices of missing hosts then fail
// with DATA_LOSS until their workers register.
func WithoutWaitingForSlices() Option { return optionFunc(func(o *options) { o.waitReady = false }) }

// Connect returns an ifrt.Client over the cluster that the resource manager at
// rmAddress ("host:port" or "grpc://host:port") manages. By default it waits until
// every slice is up, logging progress, or until ctx ends.
func Connect(ctx context.Context, rmAddress string, opts ...Option) (*Client, error) {
	o := options{logger: slog.Default(), waitReady: true, elasticSlices: -1}
	for _, opt := range opts {
		opt.apply(&o)
	}
	o.logger = logging.Component(o.logger, "cluster-client")
	rmc, err := rm.NewClient(rmAddress, rm.WithLogger(o.logger), rm.WithSecurity(o.security),
		rm.WithKeepalive(o.keepalive.Interval, o.keepalive.Timeout), rm.WithDialOptions(o.dialOpts...))
	if err != nil {
		return nil, err
	}
	view, err := waitForCluster(ctx, rmc, o)
	if err != nil {
		rmc.Close()
		return nil, fmt.Errorf("cluster: connecting to the resource manager at %s: %w", rmAddress, err)
	}
	devs, byID, links, platform := buildDevices(view)
	c := &Client{
		log: o.logger, rm: rmc, dialOpts: append(rpc.DialOptions(o.security, o.keepalive), append([]grpc.DialOption{rpc.ClusterClientDialOption()}, o.dialOpts...)...),
		probe: o.keepalive, devices: devs, byID: byID, links: links,
		platform:  ifrt.Platform{Name: platform, Version: view.InstanceType, RuntimeType: "pathways"},
		watchDone: make(chan struct{}), watching: make(chan struct{}), failure: newFailure(),
	}
	c.elastic = newElasticPolicy(o.elasticSlices, o.logger, c.failure)
	c.elastic.observe(rm.Event{Type: rm.EventSnapshot, Cluster: view})
	for _, l := range links {
		l.log = o.logger
		l.c = c
	}
	if err := c.apply(ctx, view, true); err != nil {
		c.Close()
		return nil, err
	}
	c.addHostCPUs()
	watchCtx, cancel := context.WithCancel(context.Background())
	c.stopWatch = cancel
	go c.watch(watchCtx)
	return c, nil
}

// waitForCluster returns the RM's view once every slice is up (or at once without
// waiting), logging each change while it waits. Its error says what it last
// saw: the RM's last error, or how many slices were up.
func waitForCluster(ctx context.Context, rmc *rm.Client, o options) (*rm.Cluster, error) {
	if !o.waitReady {
		return rmc.Cluster(ctx)
	}
	var view *rm.Cluster
	var last error
	for ev, err := range rmc.Watch(ctx) {
		if err != nil {
			if ctx.Err() == nil {
				last = err // the watch goes on, or ends after a permanent error
				continue
			}
			switch {
			case last != nil:
				return nil, fmt.Errorf("%w (last error: %w)", err, last)
			case view != nil:
				return nil, fmt.Errorf("%w while waiting for slices: %d of %d up", err, upSlices(view), len(view.Slices))
			}
			return nil, err
		}
		last = nil
		if ev.Type == rm.EventSnapshot {
			view = ev.Cluster
		} else if view != nil {
			view, err = rmc.Cluster(ctx)
			if err != nil {
				return nil, err
			}
		}
		if view == nil {
			continue
		}
		if view.Ready() {
			return view, nil
		}
		o.logger.Info("waiting for slices", "up", upSlices(view), "slices", len(view.Slices), "instance_type", view.InstanceType)
	}
	if last != nil {
		return nil, last // permanent
	}
	return nil, ctx.Err()
}

func upSlices(view *rm.Cluster) int {
	up := 0
	for _, s := range view.Slices {
		if s.Up {
			up++
		}
	}
	return up
}

// apply brings the links in line with a view of the cluster. With wait it
// returns once each worker listed live is dialled; without, it dials in the
// background (see dialInBackground), as the watch must.
func (c *Client) apply(ctx context.Context, view *rm.Cluster, wait bool) error {
	for _, w := range view.Workers {
		l := c.links[hostKey{w.Slice, w.Host}]
		if l == nil || !l.heard(viewAt{view.Epoch, view.RMIncarnation}) {
			continue
		}
		l.cancelRedial() // the RM's word replaces the link's own guess
		switch w.State {
		case rm.StateLive:
			if !wait {
				l.dialInBackground(ctx, w)
				continue
			}
			if err := l.up(ctx, w, c.dialOpts); err != nil {
				return err
			}
		case rm.StateLost:
			l.loseWorker(w)
		}
	}
	return nil
}

// watch follows the RM's membership events until the client closes: a lost worker
// takes its link down at once; a worker that registers again is dialled.
func (c *Client) watch(ctx context.Context) {
	defer close(c.watchDone)
	var last error
	synced := false
	for ev, err := range c.rm.Watch(ctx) {
		if err != nil {
			last = err // the RM client logs while it retries
			continue
		}
		c.elastic.observe(ev)
		c.suspend.observe(c, ev)
		var view *rm.Cluster
		snapshot := ev.Type == rm.EventSnapshot
		switch ev.Type {
		case rm.EventSnapshot:
			view = ev.Cluster
		case rm.EventWorkerJoined, rm.EventWorkerLost:
			view = &rm.Cluster{Workers: []rm.Worker{*ev.Worker}, Epoch: ev.Epoch}
		default:
			continue
		}
		_ = c.apply(ctx, view, false) // dials in the background: no error to report here
		if snapshot && !synced {
			synced = true
			close(c.watching)
		}
	}
	if ctx.Err() == nil && last != nil {
		err := ifrt.Errorf(ifrt.CodeOf(last), "cluster: the resource manager's watch ended, so workers coming and going are not seen; the session has failed: %w", last)
		if c.failure.set(err) {
			c.log.Error("stopped watching the resource manager; the session has failed", "error", last)
		}
	}
}

func (c *Client) Platform() ifrt.Platform             { return c.platform }
func (c *Client) Devices() ifrt.DeviceList            { return c.devices }
func (c *Client) AddressableDevices() ifrt.DeviceList { return c.devices }
func (c *Client) Attributes() ifrt.Attributes         { return ifrt.Attributes{"backend": "pathways"} }

func (c *Client) LookupDevice(id ifrt.DeviceID) (*ifrt.Device, error) {
	if p, ok := c.byID[id]; ok {
		return p.device, nil
	}
	return nil, ifrt.Errorf(ifrt.NotFound, "cluster: no device %d in the cluster", id)
}

// As sets *target to c when target is a **Client.
func (c *Client) As(target any) bool {
	switch p := target.(type) {
	case **Client:
		*p = c
		return true
	case *ifrt.Persister:
		*p = c
		return true
	}
	return false
}

// Close ends every worker session (the workers free what they held for this
// client) and stops watching the RM. It is idempotent.
func (c *Client) Close() error {
	// Under redialMu, so that a redial loop is either counted before Wait
	// or never starts (trackRedial).
	c.redialMu.Lock()
	closed := c.closed.Swap(true)
	c.redialMu.Unlock()
	if closed {
		return nil
	}
	if c.stopWatch != nil {
		c.stopWatch()
		<-c.watchDone
	}
	// The running redial loops end now rather than after their dial or
	// backoff.
	for _, l := range c.links {
		l.cancelRedial()
	}
	c.redials.Wait()
	c.dials.Wait()
	for _, l := range c.links {
		l.lose(0, ifrt.ErrClientClosed)
	}
	return c.rm.Close()
}

func (c *Client) checkOpen() error {
	if c.closed.Load() {
		return ifrt.ErrClientClosed
	}
	return c.failure.get()
}
