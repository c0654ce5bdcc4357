package testenv

import (
	"sync"

	"go.opentelemetry.io/otel"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
)

var metrics = sync.OnceValue(func() *sdkmetric.ManualReader {
	r := sdkmetric.NewManualReader()
	otel.SetMeterProvider(sdkmetric.NewMeterProvider(sdkmetric.WithReader(r)))
	return r
})

// Metrics returns the reader of an OpenTelemetry SDK meter provider that
// it installs as the global one on first use and keeps for the life of the
// test binary. A provider per test would not do: instruments made from the
// global provider (the servers make theirs when their package loads) follow
// only the first provider ever installed, so a second run (-count=2) would
// measure nothing. Readings are cumulative over the binary's tests; compare
// a reading with one taken before the work being measured.
func Metrics() *sdkmetric.ManualReader { return metrics() }
