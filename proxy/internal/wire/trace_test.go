package wire_test

import (
	"context"
	"testing"

	"go.opentelemetry.io/otel/baggage"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"

	"github.com/openpathways/pathways/proxy/internal/wire"
	"github.com/openpathways/pathways/proxy/proxypb"
)

func tracedContext(t testing.TB) context.Context {
	sc := trace.NewSpanContext(trace.SpanContextConfig{
		TraceID: trace.TraceID{1, 2, 3}, SpanID: trace.SpanID{4, 5, 6}, TraceFlags: trace.FlagsSampled,
	})
	m, err := baggage.NewMember("pathways.session", "42")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := baggage.New(m)
	return baggage.ContextWithBaggage(trace.ContextWithSpanContext(context.Background(), sc), b)
}

func TestTraceContextRoundTrip(t *testing.T) {
	md := &proxypb.RequestMetadata{}
	wire.InjectTraceContext(tracedContext(t), md)
	b, err := proto.Marshal(md)
	if err != nil {
		t.Fatal(err)
	}
	var back proxypb.RequestMetadata
	if err := proto.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	ctx := wire.ExtractTraceContext(context.Background(), &back)
	sc := trace.SpanContextFromContext(ctx)
	if !sc.IsRemote() || sc.TraceID() != (trace.TraceID{1, 2, 3}) || sc.SpanID() != (trace.SpanID{4, 5, 6}) || !sc.IsSampled() {
		t.Errorf("extracted span context %+v, want the injected one, remote", sc)
	}
	if got := baggage.FromContext(ctx).Member("pathways.session").Value(); got != "42" {
		t.Errorf("baggage pathways.session = %q, want 42", got)
	}
	// Nothing to carry: no payload.
	md = &proxypb.RequestMetadata{}
	wire.InjectTraceContext(context.Background(), md)
	if len(md.Payloads) != 0 {
		t.Errorf("a context without a trace got %d payloads", len(md.Payloads))
	}
}

func FuzzTraceContext(f *testing.F) {
	md := &proxypb.RequestMetadata{}
	wire.InjectTraceContext(tracedContext(f), md)
	f.Add(md.Payloads[0].Value)
	f.Add([]byte{})
	f.Add([]byte{0x0a, 0x02, 0x0a, 0xff})
	f.Fuzz(func(t *testing.T, b []byte) {
		md := &proxypb.RequestMetadata{Payloads: []*anypb.Any{{TypeUrl: wire.TraceContextTypeURL, Value: b}}}
		ctx := wire.ExtractTraceContext(context.Background(), md)
		// Whatever was accepted can be sent on.
		out := &proxypb.RequestMetadata{}
		wire.InjectTraceContext(ctx, out)
		if _, err := proto.Marshal(out); err != nil {
			t.Fatalf("re-encoding what was extracted: %v", err)
		}
	})
}
