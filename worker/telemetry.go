package worker

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/openpathways/pathways/internal/rpc"
)

// cacheLookups counts the compilation cache's answers (no-op unless the
// application installs an OpenTelemetry SDK); CompileCacheStats has the same
// numbers for this worker.
var cacheLookups, _ = rpc.Meter().Int64Counter("pathways.compile_cache.lookups",
	metric.WithDescription("Compilation cache lookups of the workers, by result (hit or miss)."))

var (
	cacheHit  = metric.WithAttributes(attribute.String("result", "hit"))
	cacheMiss = metric.WithAttributes(attribute.String("result", "miss"))
)

func countCacheLookup(ctx context.Context, hit bool) {
	if hit {
		cacheLookups.Add(ctx, 1, cacheHit)
	} else {
		cacheLookups.Add(ctx, 1, cacheMiss)
	}
}
