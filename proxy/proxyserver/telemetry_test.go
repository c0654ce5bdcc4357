package proxyserver_test

import (
	"testing"
	"time"

	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/internal/testenv"
	"github.com/openpathways/pathways/proxy"
	"github.com/openpathways/pathways/proxy/proxyserver"
	"github.com/openpathways/pathways/proxy/proxyserver/proxyservertest"
)

// TestLiveArrayGauges: with an SDK installed, the sessions' live arrays and
// bytes are reported per session while the session holds them.
func TestLiveArrayGauges(t *testing.T) {
	reader := testenv.Metrics()
	ctx := testenv.Context(t, 30*time.Second)
	srv, _ := proxyservertest.OverGocpu(t, 2, proxyserver.Config{})
	client, err := proxy.Dial(ctx, "grpc://"+proxyservertest.Serve(t, srv))
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	dev := client.AddressableDevices()[0]
	a, err := ifrt.MakeArrayFromSlice(ctx, client, []float32{1, 2, 3, 4}, ifrt.Shape{4}, ifrt.NewSingleDeviceSharding(dev, dev.DefaultMemoryKind()))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Delete()
	if err := a.Ready().Await(ctx); err != nil {
		t.Fatal(err)
	}

	gauges := func() map[string]int64 {
		var rm metricdata.ResourceMetrics
		if err := reader.Collect(ctx, &rm); err != nil {
			t.Fatal(err)
		}
		out := map[string]int64{}
		for _, sm := range rm.ScopeMetrics {
			for _, m := range sm.Metrics {
				if g, ok := m.Data.(metricdata.Gauge[int64]); ok {
					for _, p := range g.DataPoints {
						if role, _ := p.Attributes.Value("role"); role.AsString() == "proxy-server" {
							out[m.Name] += p.Value
						}
					}
				}
			}
		}
		return out
	}
	got := gauges()
	if got["pathways.session.live_arrays"] != 1 || got["pathways.session.live_bytes"] != 16 {
		t.Errorf("gauges while the session holds one f32[4]: %v, want 1 array of 16 bytes", got)
	}
}
