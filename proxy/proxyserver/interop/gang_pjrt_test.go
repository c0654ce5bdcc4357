package interop_test

import (
	"testing"

	"github.com/openpathways/pathways/ifrt"
)

// pjrtGangBackend is two workers of 4 devices on the PJRT CPU plugin:
// programs over all 8 devices span both workers, whose plugin runs no program
// over several processes, so they run on the workers' host interpreters.
// TestInteropGang runs on it; the whole interop suite passes on it too (run
// once by adding it to interopBackends: 155 s a jaxlib against 138 s for
// "cluster_gocpu"), which would double the suite's time in CI.
func pjrtGangBackend() interopBackend {
	return interopBackend{
		name:          "cluster_pjrt_2workers",
		compiledHLO:   true,
		workerDevices: 4,
		newClient: func(t *testing.T) ifrt.Client {
			return startCluster(t, 2, lammpsBackend(t, 4))
		},
		live: clusterLive,
	}
}
