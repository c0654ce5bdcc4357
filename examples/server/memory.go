package main

import (
	"bufio"
	"bytes"
	"log/slog"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
)

// gocpu holds arrays in the Go heap and fails an op whose results would
// take it past the process's memory limit with RESOURCE_EXHAUSTED, as a
// device out of memory does. Unless GOMEMLIMIT is set, a gocpu worker sets
// that limit to 90% of the memory it may use (the machine's, or its
// cgroup's when lower), so that a program too large for the host fails
// instead of the kernel killing the worker and every session on it.
func limitGocpuMemory(goMemLimitSet bool, log *slog.Logger) {
	if goMemLimitSet {
		return
	}
	total := usableMemory("/proc/meminfo", "/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes")
	if total <= 0 {
		return
	}
	limit := total / 10 * 9
	debug.SetMemoryLimit(limit)
	log.Info("gocpu memory limit set (GOMEMLIMIT overrides it)", "bytes", limit, "usable", total)
}

// usableMemory is the machine's memory (meminfo's MemTotal) or the lowest
// cgroup limit below it; 0 when none can be read.
func usableMemory(meminfo string, cgroups ...string) int64 {
	n := memTotal(meminfo)
	for _, path := range cgroups {
		data, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		limit, err := strconv.ParseInt(string(bytes.TrimSpace(data)), 10, 64) // "max": no limit
		if err == nil && limit > 0 && (n <= 0 || limit < n) {
			n = limit
		}
	}
	return n
}

// memTotal reads MemTotal from a /proc/meminfo file: "MemTotal: 24683620 kB".
func memTotal(path string) int64 {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		rest, ok := strings.CutPrefix(s.Text(), "MemTotal:")
		if !ok {
			continue
		}
		kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
		if err != nil || kb <= 0 {
			return 0
		}
		return kb << 10
	}
	return 0
}
