package proxyserver

import (
	"bytes"
	"os"
	"strconv"
	"sync"
	"syscall"
)

// HostMemory is the memory this process's host may use, in bytes: the
// machine's physical memory, or its cgroup's limit when lower (a container's
// memory limit); a fixed guess where neither can be read.
var HostMemory = sync.OnceValue(func() int64 {
	var si syscall.Sysinfo_t
	total := int64(0)
	if syscall.Sysinfo(&si) == nil {
		total = int64(si.Totalram) * int64(si.Unit)
	}
	total = lowestLimit(total, "/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes")
	if total <= 0 {
		return fallbackHostMemory
	}
	return total
})

// lowestLimit is total or the lowest limit below it that one of the cgroup
// files gives (v2 memory.max, v1 memory.limit_in_bytes); total <= 0 means
// unknown. A file holding "max", or missing, sets no limit.
func lowestLimit(total int64, cgroupFiles ...string) int64 {
	for _, path := range cgroupFiles {
		data, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		limit, err := strconv.ParseInt(string(bytes.TrimSpace(data)), 10, 64)
		if err == nil && limit > 0 && (total <= 0 || limit < total) {
			total = limit
		}
	}
	return total
}
