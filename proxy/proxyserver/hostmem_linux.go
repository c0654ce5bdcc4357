package proxyserver

import (
	"sync"
	"syscall"
)

// hostMemory is the machine's physical memory in bytes.
var hostMemory = sync.OnceValue(func() int64 {
	var si syscall.Sysinfo_t
	if syscall.Sysinfo(&si) != nil || si.Totalram == 0 {
		return fallbackHostMemory
	}
	return int64(si.Totalram) * int64(si.Unit)
})
