package sidecar_test

import (
	"log/slog"
	"testing"
	"time"

	"github.com/openpathways/pathways/cluster/local"
	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/ifrt/gocpu"
	"github.com/openpathways/pathways/internal/testenv"
	"github.com/openpathways/pathways/sidecar"
)

// BenchmarkColocatedVersusClient times numpy work on 64 MiB on a host's CPU
// device, from stock JAX through the proxy server of a one-worker cluster:
// a colocated Python call against device_get + the same work in the client +
// device_put back (testdata/colocated_bench.py), in one run. It reports both
// times and client/sidecar, the speed-up of keeping the bytes on the host.
// Here every hop is loopback on one machine; across a network the client's
// round trip costs more and the ratio grows.
func BenchmarkColocatedVersusClient(b *testing.B) {
	py := sidecarPython(b)
	ctx := testenv.Context(b, 5*time.Minute)
	proc, err := sidecar.Start(ctx, sidecar.Config{Command: []string{py, script()}})
	if err != nil {
		b.Fatal(err)
	}
	defer proc.Close()
	cl, err := local.Start(ctx, local.Config{
		DevicesPerSlice: 2, Logger: slog.New(slog.DiscardHandler),
		NewBackend: func(int) (ifrt.Client, error) {
			accel, err := gocpu.New(gocpu.Config{Devices: 2})
			if err != nil {
				return nil, err
			}
			return sidecar.NewClient(accel, sidecar.ClientConfig{Process: proc})
		},
	})
	if err != nil {
		b.Fatal(err)
	}
	defer cl.Close()
	for b.Loop() {
		out := runJAX(b, py, cl.ProxyAddress, "colocated_bench.py")
		if !field[bool](b, out, "equal") {
			b.Fatal("the colocated result differs from the client's")
		}
		s, c := field[float64](b, out, "sidecar_s"), field[float64](b, out, "client_s")
		b.ReportMetric(s, "sidecar_s")
		b.ReportMetric(c, "client_s")
		b.ReportMetric(c/s, "client/sidecar")
	}
}
