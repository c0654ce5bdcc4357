//go:build !unix

package cluster_test

import "time"

// processCPU is unknown here: the benchmark reports no CPU time.
func processCPU() time.Duration { return 0 }
