package main

import (
	"log/slog"
	"runtime/debug"

	"github.com/openpathways/pathways/proxy/proxyserver"
)

// gocpu holds arrays in the Go heap and fails an op whose results would
// take it past the process's memory limit with RESOURCE_EXHAUSTED, as a
// device out of memory does. Unless GOMEMLIMIT is set, a gocpu worker sets
// that limit to 90% of the memory its host may use (the machine's, or its
// cgroup's when lower), so that a program too large for the host fails
// instead of the kernel killing the worker and every session on it.
func limitGocpuMemory(goMemLimitSet bool, log *slog.Logger) {
	if goMemLimitSet {
		return
	}
	total := proxyserver.HostMemory()
	limit := total / 10 * 9
	debug.SetMemoryLimit(limit)
	log.Info("gocpu memory limit set (GOMEMLIMIT overrides it)", "bytes", limit, "host_memory", total)
}
