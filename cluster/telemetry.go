package cluster

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/openpathways/pathways/internal/rpc"
)

// startSpan starts a span of the cluster client under ctx's: the proxy
// server's request span when the client serves a JAX session. The worker
// requests it makes are its children (the proxy client sends the trace
// context with each request), and so are the gang calls (over gRPC metadata).
// It is a no-op unless the application installed an OpenTelemetry SDK.
func startSpan(ctx context.Context, name string, attrs ...attribute.KeyValue) (context.Context, trace.Span) {
	return rpc.Tracer().Start(ctx, name, trace.WithAttributes(attrs...))
}
