package cluster_test

import (
	"testing"

	"github.com/openpathways/pathways/cluster/local"
	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/ifrt/ifrttest"
	"github.com/openpathways/pathways/internal/testenv"
	"github.com/openpathways/pathways/proxy"
)

// TestConformanceThroughProxy runs the ifrt suite on a proxy client of the
// IFRT Proxy server over the cluster: every bad input must fail with the code
// it has on the cluster client itself.
func TestConformanceThroughProxy(t *testing.T) {
	if testing.Short() {
		t.Skip("the cluster client's own run is enough in -short mode")
	}
	l := startLocal(t, local.Config{Slices: 2, DevicesPerSlice: 4})
	ifrttest.RunConformance(t, ifrttest.Harness{
		NewClient: func(t *testing.T) ifrt.Client {
			ctx := testenv.Context(t, defaultTestTimeout)
			c, err := proxy.Dial(ctx, l.ProxyAddress, proxy.WithLogger(quietLogger()))
			if err != nil {
				t.Fatalf("Dial: %v", err)
			}
			return c
		},
		Programs:          true,
		MaxProgramDevices: 4,
	})
}
