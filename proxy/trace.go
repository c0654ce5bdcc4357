package proxy

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/openpathways/pathways/internal/rpc"
	"github.com/openpathways/pathways/proxy/internal/wire"
	"github.com/openpathways/pathways/proxy/proxypb"
)

// startRequestSpan starts the client span of one request and puts its trace
// context in the request's metadata, so that the server's span for the
// request is its child (see wire.TraceContextTypeURL). It is a no-op span
// unless the application installed an OpenTelemetry SDK.
func startRequestSpan(ctx context.Context, req *proxypb.IfrtRequest) (context.Context, trace.Span) {
	kind := wire.RequestKind(req)
	ctx, span := rpc.Tracer().Start(ctx, "IfrtProxyClient/"+kind,
		trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attribute.String("ifrt_proxy.request", kind)))
	if req.RequestMetadata == nil {
		req.RequestMetadata = &proxypb.RequestMetadata{}
	}
	wire.InjectTraceContext(ctx, req.RequestMetadata)
	return ctx, span
}
