package proxyserver

import (
	"context"
	"strconv"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/baggage"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/internal/logging"
	"github.com/openpathways/pathways/internal/rpc"
	"github.com/openpathways/pathways/proxy/internal/wire"
	"github.com/openpathways/pathways/proxy/proxypb"
)

// Telemetry of the server, through the OpenTelemetry API (no-op unless the
// application installs an SDK). Every request of a session has a span,
// "IfrtProxy/<Kind>": a root span on the proxy server that JAX talks to
// (jaxlib sends no trace context), the child of the cluster client's span on a
// worker; compile and execute on the backend have spans of their own below it.
//
// The JAX session's id travels as the baggage member SessionBaggageKey from
// the proxy server to every worker, whose request logs carry it as
// "jax_session".

// SessionBaggageKey is the baggage member that carries the id of the JAX
// session a request serves, from the proxy server to the workers.
const SessionBaggageKey = "pathways.session"

var (
	meter         = rpc.Meter()
	requestsTotal = must(meter.Int64Counter("pathways.ifrt_proxy.requests",
		metric.WithDescription("IFRT Proxy requests served, by kind, code and role (proxy-server or worker).")))
	requestDuration = must(meter.Float64Histogram("pathways.ifrt_proxy.request.duration", metric.WithUnit("s"),
		metric.WithDescription("Time from a request's arrival to its response, by kind, code and role.")))
	compileDuration = must(meter.Float64Histogram("pathways.backend.compile.duration", metric.WithUnit("s"),
		metric.WithDescription("Time the backend took to compile a program, by platform and code.")))
	launchDuration = must(meter.Float64Histogram("pathways.backend.execute.launch.duration", metric.WithUnit("s"),
		metric.WithDescription("Time the backend took to launch an execution (until Execute returned, not until its results were ready), by platform and code.")))
	liveArrays = must(meter.Int64ObservableGauge("pathways.session.live_arrays",
		metric.WithDescription("Arrays a session holds, by session and role; a worker's are the sum over its sessions.")))
	liveBytes = must(meter.Int64ObservableGauge("pathways.session.live_bytes", metric.WithUnit("By"),
		metric.WithDescription("Bytes of the arrays a session holds, by session and role.")))
)

func must[T any](v T, err error) T {
	if err != nil {
		panic(err) // the API's instruments fail only on invalid names, fixed above
	}
	return v
}

// liveSessions are the sessions of every server of the process, which the
// gauges' callback reads.
var liveSessions sync.Map // *session → struct{}

func init() {
	if _, err := meter.RegisterCallback(observeSessions, liveArrays, liveBytes); err != nil {
		panic(err)
	}
}

func observeSessions(_ context.Context, o metric.Observer) error {
	liveSessions.Range(func(k, _ any) bool {
		s := k.(*session)
		s.mu.Lock()
		n := len(s.live)
		s.mu.Unlock()
		attrs := metric.WithAttributes(attribute.String("session", strconv.FormatUint(s.id, 10)), s.srv.roleAttr())
		o.ObserveInt64(liveArrays, int64(n), attrs)
		o.ObserveInt64(liveBytes, s.liveBytes.inUse(), attrs)
		return true
	})
	return nil
}

func (b *budget) inUse() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.used
}

// roleAttr tells a worker's server from a proxy server in metrics and spans:
// its logging component.
func (s *Server) roleAttr() attribute.KeyValue { return attribute.String("role", component(s.cfg)) }

// startRequest starts o's span, under the trace context the request carries
// (from the cluster client) or as a new root linked to the session's stream,
// and returns the context o's work runs in: the session's, with the span and
// the JAX session's id in its baggage.
func (s *session) startRequest(o *op, req *proxypb.IfrtRequest) context.Context {
	o.start = time.Now()
	ctx := wire.ExtractTraceContext(s.ctx, req.GetRequestMetadata())
	opts := []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindServer), trace.WithAttributes(
		attribute.String("ifrt_proxy.request", o.kind), attribute.Int64("ifrt_proxy.op_id", int64(o.id)),
		attribute.String("session", strconv.FormatUint(s.id, 10)), s.srv.roleAttr())}
	if !trace.SpanContextFromContext(ctx).IsRemote() {
		opts = append(opts, trace.WithNewRoot(), trace.WithLinks(trace.LinkFromContext(s.ctx)))
	}
	if jax := baggage.FromContext(ctx).Member(SessionBaggageKey); jax.Key() != "" {
		o.jaxSession = jax.Value()
	} else if m, err := baggage.NewMember(SessionBaggageKey, strconv.FormatUint(s.id, 10)); err == nil {
		if b, err := baggage.FromContext(ctx).SetMember(m); err == nil {
			ctx = baggage.ContextWithBaggage(ctx, b)
		}
	}
	ctx, o.span = rpc.Tracer().Start(ctx, "IfrtProxy/"+o.kind, opts...)
	return s.withSessionKey(ctx, o.jaxSession)
}

// endRequest ends o's span, counts it and logs it: at Warn when the server
// failed it (rpc.ServerFault), at Debug otherwise.
func (s *session) endRequest(o *op, err error) {
	attrs := metric.WithAttributes(attribute.String("ifrt_proxy.request", o.kind), rpc.CodeAttribute(err), s.srv.roleAttr())
	requestsTotal.Add(s.ctx, 1, attrs)
	requestDuration.Record(s.ctx, time.Since(o.start).Seconds(), attrs)
	if o.span != nil {
		rpc.EndSpan(o.span, err)
	}
	record(s, "IfrtProxy/"+o.kind, "request", o.start, map[string]string{"op_id": strconv.FormatUint(o.id, 10), "code": rpc.CodeAttribute(err).Value.AsString()})
	log := s.log
	if o.jaxSession != "" {
		log = log.With(logging.JAXSessionKey, o.jaxSession)
	}
	switch {
	case rpc.ServerFault(err):
		log.Warn("ifrt proxy request failed", "op_id", o.id, "kind", o.kind, "error", err)
	case err != nil:
		log.Debug("ifrt proxy request failed", "op_id", o.id, "kind", o.kind, "error", err)
	default:
		log.Debug("ifrt proxy request done", "op_id", o.id, "kind", o.kind)
	}
}

// compileOnBackend compiles on the session's backend under a span of its own,
// timing it.
func (s *session) compileOnBackend(ctx context.Context, p ifrt.Program, opts *ifrt.CompileOptions) (_ ifrt.LoadedExecutable, err error) {
	platform := attribute.String("platform", s.backend.Platform().Name)
	ctx, span := rpc.Tracer().Start(ctx, "backend.Compile", trace.WithAttributes(platform, s.srv.roleAttr()))
	start := time.Now()
	defer func() {
		compileDuration.Record(ctx, time.Since(start).Seconds(), metric.WithAttributes(platform, rpc.CodeAttribute(err)))
		rpc.EndSpan(span, err)
		record(s, "backend.Compile", "backend", start, map[string]string{"platform": platform.Value.AsString(), "code": rpc.CodeAttribute(err).Value.AsString()})
	}()
	return s.backend.Compile(ctx, p, opts)
}

// executeOnBackend runs e under a span of its own, timing its launch.
func (s *session) executeOnBackend(ctx context.Context, e *executable, args []ifrt.Array, opts *ifrt.ExecuteOptions) (_ []ifrt.Array, _ *ifrt.Future, err error) {
	platform := attribute.String("platform", s.backend.Platform().Name)
	ctx, span := rpc.Tracer().Start(ctx, "backend.Execute", trace.WithAttributes(platform, s.srv.roleAttr(), attribute.String("executable", e.name)))
	start := time.Now()
	defer func() {
		launchDuration.Record(ctx, time.Since(start).Seconds(), metric.WithAttributes(platform, rpc.CodeAttribute(err)))
		rpc.EndSpan(span, err)
		record(s, "backend.Execute", "backend", start, map[string]string{"executable": e.name, "platform": platform.Value.AsString(), "code": rpc.CodeAttribute(err).Value.AsString()})
	}()
	return e.execute(ctx, args, opts)
}

// component is the server's logging component: a worker's server logs as
// the worker.
func component(cfg Config) string {
	if cfg.ClusterClientsOnly {
		return "worker"
	}
	return "proxy-server"
}
