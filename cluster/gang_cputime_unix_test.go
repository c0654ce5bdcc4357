//go:build unix

package cluster_test

import (
	"syscall"
	"time"
)

// processCPU is the CPU time the process has used so far (user and
// system), so that a benchmark on a shared machine can report what a launch
// costs apart from how long it waited for a core.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
