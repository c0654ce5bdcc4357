package wire

import (
	"context"
	"fmt"
	"strings"

	"go.opentelemetry.io/otel/propagation"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/types/known/anypb"

	"github.com/openpathways/pathways/internal/rpc"
	"github.com/openpathways/pathways/proxy/proxypb"
)

// TraceContextTypeURL names the RequestMetadata payload in which this
// module's client sends a request's trace context and baggage (W3C
// traceparent, tracestate, baggage), so that the worker's spans for the
// request are children of the cluster client's: an IFRT Proxy session is one
// long stream, whose gRPC metadata cannot say which request a span belongs to.
// The payload's value is the encoding of
//
//	message TraceContext { map<string, string> fields = 1; }
//
// jaxlib sends no such payload, and servers that do not know it ignore it.
const TraceContextTypeURL = "type.googleapis.com/openpathways.TraceContext"

// Bounds on what ExtractTraceContext reads: W3C baggage is at most 8192 bytes.
const (
	maxTraceFields     = 8
	maxTraceFieldBytes = 8192
)

// InjectTraceContext adds ctx's trace context and baggage to md as a payload,
// if ctx has any.
func InjectTraceContext(ctx context.Context, md *proxypb.RequestMetadata) {
	carrier := propagation.MapCarrier{}
	rpc.Propagator.Inject(ctx, carrier)
	if len(carrier) == 0 {
		return
	}
	var b []byte
	for k, v := range carrier {
		var entry []byte
		entry = protowire.AppendTag(entry, 1, protowire.BytesType)
		entry = protowire.AppendString(entry, k)
		entry = protowire.AppendTag(entry, 2, protowire.BytesType)
		entry = protowire.AppendString(entry, v)
		b = protowire.AppendTag(b, 1, protowire.BytesType)
		b = protowire.AppendBytes(b, entry)
	}
	md.Payloads = append(md.Payloads, &anypb.Any{TypeUrl: TraceContextTypeURL, Value: b})
}

// ExtractTraceContext returns ctx with the trace context and baggage of md's
// payload, when it has a well-formed one. Tracing is best effort: a malformed
// payload is ignored.
func ExtractTraceContext(ctx context.Context, md *proxypb.RequestMetadata) context.Context {
	for _, p := range md.GetPayloads() {
		if p.GetTypeUrl() != TraceContextTypeURL {
			continue
		}
		if carrier, ok := decodeTraceFields(p.GetValue()); ok {
			return rpc.Propagator.Extract(ctx, carrier)
		}
	}
	return ctx
}

func decodeTraceFields(b []byte) (propagation.MapCarrier, bool) {
	out := propagation.MapCarrier{}
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 || num != 1 || typ != protowire.BytesType {
			return nil, false
		}
		b = b[n:]
		entry, n := protowire.ConsumeBytes(b)
		if n < 0 || len(out) == maxTraceFields {
			return nil, false
		}
		b = b[n:]
		var k, v string
		for len(entry) > 0 {
			num, typ, n := protowire.ConsumeTag(entry)
			if n < 0 || typ != protowire.BytesType || (num != 1 && num != 2) {
				return nil, false
			}
			entry = entry[n:]
			s, n := protowire.ConsumeString(entry)
			if n < 0 || len(s) > maxTraceFieldBytes {
				return nil, false
			}
			entry = entry[n:]
			if num == 1 {
				k = s
			} else {
				v = s
			}
		}
		out[k] = v
	}
	return out, true
}

// RequestKind names the request's type, as in "CompileRequest"; "unknown"
// for a request without one.
func RequestKind(req *proxypb.IfrtRequest) string {
	if req.GetRequest() == nil {
		return "unknown"
	}
	return strings.TrimPrefix(fmt.Sprintf("%T", req.GetRequest()), "*proxypb.IfrtRequest_")
}
