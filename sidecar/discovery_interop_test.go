package sidecar_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestInteropColocatedDiscovery runs colocated Python functions declared
// without out_specs_fn through the proxy server of a two-slice cluster: JAX
// learns their output specs from a first call that returns them as a string
// array, which reaches it through the worker, the cluster and the proxy; the
// specs name the client's device. Across hosts, where each sidecar sees only
// its shard, discovery fails with a message that says to give out_specs_fn.
func TestInteropColocatedDiscovery(t *testing.T) { forEachJAX(t, testInteropColocatedDiscovery) }

func testInteropColocatedDiscovery(t *testing.T, py string) {
	cl, _ := startColocatedCluster(t, py)
	out := runJAX(t, py, cl.ProxyAddress, "colocated_discovery.py")

	for key, want := range map[string][]float64{"first": {0, 2, 4, 6}, "second": {2, 4, 6, 8}, "other": {4, 6, 8, 10}, "counter": {1, 2, 3}} {
		if diff := cmp.Diff(want, field[[]float64](t, out, key)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", key, diff)
		}
	}
	if diff := cmp.Diff([]string{"host-0", "host-1"}, field[[]string](t, out, "names")); diff != "" {
		t.Errorf("the hosts the calls ran on (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(field[[]int](t, out, "host_ids"), field[[]int](t, out, "devices")); diff != "" {
		t.Errorf("the devices of the results, by the discovered specs (-host CPU devices +got):\n%s", diff)
	}
	if got := field[string](t, out, "across_hosts"); !strings.Contains(got, "out_specs_fn") {
		t.Errorf("discovery across two hosts gave %q, want an error asking for out_specs_fn", got)
	}
	t.Logf("across hosts: %s", out["across_hosts"])
}
