package local_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/openpathways/pathways/cluster/local"
	"github.com/openpathways/pathways/internal/testenv"
)

// TestJAXTrace runs a JAX jit through the cluster with an in-memory
// OpenTelemetry exporter installed, and finds one trace whose spans go from
// the proxy server's request through the cluster client and the worker down
// to the backend, for the compile and for the execution; the worker's request
// logs carry the JAX session's id.
func TestJAXTrace(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a real JAX process; skipped with -short")
	}
	python := testenv.Python(t)
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	otel.SetTracerProvider(tp)
	t.Cleanup(func() {
		if err := tp.Shutdown(context.Background()); err != nil {
			t.Error(err)
		}
	})
	before := measured(t)

	logs := &testenv.SyncBuffer{}
	ctx := testenv.Context(t, 2*time.Minute)
	c, err := local.Start(ctx, local.Config{Logger: slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()

	out := runJAX(t, python, c.ProxyAddress, "jit_once.py")
	var got []int
	if err := json.Unmarshal(out["result"], &got); err != nil || len(got) != 4 || got[3] != 7 {
		t.Fatalf("the jit printed %s (%v), want [1 3 5 7]", out["result"], err)
	}

	after := measured(t)
	for _, want := range []string{
		"pathways.ifrt_proxy.requests/proxy-server", "pathways.ifrt_proxy.requests/worker",
		"pathways.ifrt_proxy.request.duration", "pathways.backend.compile.duration", "pathways.backend.execute.launch.duration",
		"pathways.rpc.bytes", "rpc.server.call.duration",
	} {
		if after[want] <= before[want] {
			t.Errorf("no %s measured (%v before the jit, %v after)", want, before[want], after[want])
		}
	}

	spans := exp.GetSpans()
	byID := map[string]tracetest.SpanStub{}
	for _, s := range spans {
		byID[s.SpanContext.SpanID().String()] = s
	}
	// chain is the span's ancestry, from the root, as "name[role|platform]".
	chain := func(s tracetest.SpanStub) []string {
		var names []string
		for {
			label := s.Name
			for _, a := range s.Attributes {
				if a.Key == "role" || a.Key == "platform" {
					label += "[" + a.Value.AsString() + "]"
				}
			}
			names = append([]string{label}, names...)
			p, ok := byID[s.Parent.SpanID().String()]
			if !s.Parent.IsValid() || !ok {
				if s.Parent.IsValid() {
					names = append([]string{"<missing parent>"}, names...)
				}
				return names
			}
			s = p
		}
	}
	for kind, want := range map[string][]string{
		"Compile": {"IfrtProxy/CompileRequest[proxy-server]", "backend.Compile[cpu][proxy-server]", "cluster.Compile",
			"IfrtProxyClient/CompileRequest", "IfrtProxy/CompileRequest[worker]", "backend.Compile[cpu][worker]"},
		"Execute": {"IfrtProxy/LoadedExecutableExecuteRequest[proxy-server]", "backend.Execute[cpu][proxy-server]", "cluster.Execute",
			"IfrtProxyClient/LoadedExecutableExecuteRequest", "IfrtProxy/LoadedExecutableExecuteRequest[worker]", "backend.Execute[cpu][worker]"},
	} {
		found := false
		for _, s := range spans {
			if s.Name != "backend."+kind || !hasAttr(s.Attributes, attribute.String("role", "worker")) {
				continue
			}
			got := chain(s)
			if slices.Equal(got, want) && s.SpanContext.TraceID() == byID[s.Parent.SpanID().String()].SpanContext.TraceID() {
				found = true
				break
			}
			t.Logf("%s span chain: %v", kind, got)
		}
		if !found {
			t.Errorf("no backend %s span on a worker whose ancestry is %v", kind, want)
		}
	}

	// The worker's request logs carry the id of the proxy's session.
	proxySessions, workerLines := map[string]bool{}, 0
	for _, r := range jsonRecords(logs.String()) {
		if r["msg"] == "ifrt proxy session started" && r["session"] != nil {
			proxySessions[toString(r["session"])] = true
		}
	}
	for _, r := range jsonRecords(logs.String()) {
		if r["kind"] == "LoadedExecutableExecuteRequest" && r["jax_session"] != nil {
			workerLines++
			if r["component"] != "worker" {
				t.Errorf("a worker's request log has component %v, want worker: %v", r["component"], r)
			}
			if !proxySessions[toString(r["jax_session"])] {
				t.Errorf("a worker's request log carries jax_session=%v, which is no session's: %v", r["jax_session"], r)
			}
		}
	}
	for _, line := range strings.Split(logs.String(), "\n") {
		if strings.Count(line, `"component":`) > 1 {
			t.Errorf("a log line names its component twice: %s", line)
		}
	}
	if workerLines == 0 {
		t.Errorf("no worker request log carries jax_session")
	}
}

func hasAttr(attrs []attribute.KeyValue, want attribute.KeyValue) bool {
	for _, a := range attrs {
		if a == want {
			return true
		}
	}
	return false
}

func toString(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// measured reads what the test binary measured so far: per metric, the sum
// of its counters or its histograms' counts; requests only count successful
// executions, keyed by role (proxy-server or worker).
func measured(t *testing.T) map[string]float64 {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := testenv.Metrics().Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	seen := map[string]float64{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			switch d := m.Data.(type) {
			case metricdata.Sum[int64]:
				for _, p := range d.DataPoints {
					kind, _ := p.Attributes.Value("ifrt_proxy.request")
					code, _ := p.Attributes.Value("code")
					role, _ := p.Attributes.Value("role")
					if m.Name == "pathways.ifrt_proxy.requests" && kind.AsString() == "LoadedExecutableExecuteRequest" && code.AsString() == "OK" {
						seen[m.Name+"/"+role.AsString()] += float64(p.Value)
					} else if m.Name != "pathways.ifrt_proxy.requests" {
						seen[m.Name] += float64(p.Value)
					}
				}
			case metricdata.Histogram[float64]:
				for _, p := range d.DataPoints {
					seen[m.Name] += float64(p.Count)
				}
			}
		}
	}
	return seen
}
