package rpc

import (
	"context"
	"sync"
	"sync/atomic"

	"go.opentelemetry.io/contrib/instrumentation/google.golang.org/grpc/otelgrpc"
	"go.opentelemetry.io/contrib/instrumentation/google.golang.org/grpc/otelgrpc/filters"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	otelcodes "go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/grpc"
	"google.golang.org/grpc/stats"

	"github.com/openpathways/pathways/ifrt"
)

// InstrumentationName names the module's tracer and meter.
const InstrumentationName = "github.com/openpathways/pathways"

// Propagator carries trace context and baggage across every hop of the
// module (gRPC metadata, and IFRT Proxy requests between the cluster client
// and its workers), whatever propagator the application set globally: W3C
// trace context and baggage.
var Propagator propagation.TextMapPropagator = propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})

// Tracer is the module's tracer from the global provider: a no-op until the
// application installs an SDK (otel.SetTracerProvider), before or after.
func Tracer() trace.Tracer { return otel.Tracer(InstrumentationName) }

// Meter is the module's meter from the global provider, a no-op until the
// application installs an SDK.
func Meter() metric.Meter { return otel.Meter(InstrumentationName) }

// notHealth leaves the health service out of traces: orchestrators and the
// cluster client's liveness checks probe it every few seconds.
var notHealth = filters.Not(filters.HealthCheck())

func telemetryServerOptions() []grpc.ServerOption {
	return []grpc.ServerOption{
		grpc.StatsHandler(byteCounter{side: "server", next: otelgrpc.NewServerHandler(otelgrpc.WithPropagators(Propagator), otelgrpc.WithFilter(notHealth))}),
	}
}

// telemetryDialOption is TelemetryDialOption's option, recognisable so that a
// connection is not instrumented twice (HasTelemetry).
type telemetryDialOption struct{ grpc.DialOption }

// TelemetryDialOption instruments a connection: a client span per call, with
// the trace context sent in its metadata, and the byte counters. DialOptions
// includes it.
func TelemetryDialOption() grpc.DialOption {
	return telemetryDialOption{grpc.WithStatsHandler(byteCounter{side: "client",
		next: otelgrpc.NewClientHandler(otelgrpc.WithPropagators(Propagator), otelgrpc.WithFilter(notHealth))})}
}

// HasTelemetry reports whether opts hold TelemetryDialOption.
func HasTelemetry(opts []grpc.DialOption) bool {
	for _, o := range opts {
		if _, ok := o.(telemetryDialOption); ok {
			return true
		}
	}
	return false
}

// byteCounter counts the bytes of the messages a server or client sends and
// receives, by method: pathways.rpc.bytes{rpc.method, side, direction}; then
// it hands every event to next (otelgrpc's handler).
type byteCounter struct {
	side string
	next stats.Handler
}

type methodKey struct{}

var rpcBytes, _ = Meter().Int64Counter("pathways.rpc.bytes",
	metric.WithUnit("By"), metric.WithDescription("Bytes of gRPC messages on the wire, by method, side (server or client) and direction (in or out)."))

func (b byteCounter) TagRPC(ctx context.Context, info *stats.RPCTagInfo) context.Context {
	return b.next.TagRPC(context.WithValue(ctx, methodKey{}, info.FullMethodName), info)
}

func (b byteCounter) HandleRPC(ctx context.Context, s stats.RPCStats) {
	b.next.HandleRPC(ctx, s)
	var n int
	var dir string
	switch p := s.(type) {
	case *stats.InPayload:
		n, dir = p.WireLength, "in"
	case *stats.OutPayload:
		n, dir = p.WireLength, "out"
	default:
		return
	}
	method, _ := ctx.Value(methodKey{}).(string)
	rpcBytes.Add(ctx, int64(n), byteAttributes(method, b.side, dir))
}

// byteAttributeSets holds each (method, side, direction)'s attribute set:
// hashing a set costs more than the message it counts (a tiny launch's
// Launch call), even when no meter provider is installed. At most
// maxByteAttributeSets are kept, since a client names the method it calls.
var (
	byteAttributeSets    sync.Map // [3]string → metric.MeasurementOption
	byteAttributeSetsLen atomic.Int64
)

const maxByteAttributeSets = 1024

func byteAttributes(method, side, dir string) metric.MeasurementOption {
	k := [3]string{method, side, dir}
	if o, ok := byteAttributeSets.Load(k); ok {
		return o.(metric.MeasurementOption)
	}
	o := metric.WithAttributeSet(attribute.NewSet(
		attribute.String("rpc.method", method), attribute.String("side", side), attribute.String("direction", dir)))
	if byteAttributeSetsLen.Load() < maxByteAttributeSets {
		if _, loaded := byteAttributeSets.LoadOrStore(k, o); !loaded {
			byteAttributeSetsLen.Add(1)
		}
	}
	return o
}

func (b byteCounter) TagConn(ctx context.Context, info *stats.ConnTagInfo) context.Context {
	return b.next.TagConn(ctx, info)
}

func (b byteCounter) HandleConn(ctx context.Context, s stats.ConnStats) { b.next.HandleConn(ctx, s) }

// EndSpan ends span, marking it failed with err's message and ifrt code when
// err is not nil.
func EndSpan(span trace.Span, err error) {
	if err != nil {
		_, msg := CodeAndMessage(err)
		span.SetAttributes(CodeAttribute(err))
		span.SetStatus(otelcodes.Error, msg)
	}
	span.End()
}

// CodeAttribute is err's ifrt code as the attribute "code": "OK" for nil.
func CodeAttribute(err error) attribute.KeyValue {
	if err == nil {
		return attribute.String("code", ifrt.OK.String())
	}
	code, _ := CodeAndMessage(err)
	return attribute.String("code", code.String())
}
