package rpc

import (
	"context"
	"sync/atomic"

	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
)

// Health is the standard gRPC health service of every server of the module,
// tied to the server's lifecycle: SERVING from New, NOT_SERVING for good once
// Shutdown is called (when the server begins to drain or closes). A Watch
// ends once it has told its watcher NOT_SERVING after Shutdown, so that open
// watches do not hold up a graceful stop (grpc-go's own Watch runs until the
// watcher leaves). Its methods are safe for concurrent use.
type Health struct {
	*health.Server
	shutdown atomic.Bool
}

// NewHealth returns a health service that reports SERVING.
func NewHealth() *Health { return &Health{Server: health.NewServer()} }

// Shutdown reports NOT_SERVING for every service from now on and ends the
// watches once they have said so.
func (h *Health) Shutdown() {
	h.shutdown.Store(true)
	h.Server.Shutdown()
}

// Watch streams the service's status until the watcher leaves, or until it
// has sent NOT_SERVING after Shutdown.
func (h *Health) Watch(req *healthpb.HealthCheckRequest, stream healthpb.Health_WatchServer) error {
	ctx, cancel := context.WithCancel(stream.Context())
	defer cancel()
	w := &endingWatch{Health_WatchServer: stream, ctx: ctx, h: h, end: cancel}
	err := h.Server.Watch(req, w)
	if w.done.Load() {
		return nil
	}
	return err
}

// endingWatch is a watch stream that ends after it sends NOT_SERVING once
// its server is shut down.
type endingWatch struct {
	healthpb.Health_WatchServer
	ctx  context.Context
	h    *Health
	end  context.CancelFunc
	done atomic.Bool
}

func (w *endingWatch) Context() context.Context { return w.ctx }

func (w *endingWatch) Send(resp *healthpb.HealthCheckResponse) error {
	err := w.Health_WatchServer.Send(resp)
	if err == nil && w.h.shutdown.Load() && resp.GetStatus() == healthpb.HealthCheckResponse_NOT_SERVING {
		w.done.Store(true)
		w.end()
	}
	return err
}
