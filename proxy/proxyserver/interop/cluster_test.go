package interop_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/openpathways/pathways/cluster"
	"github.com/openpathways/pathways/cluster/local"
	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/ifrt/gocpu"
	"github.com/openpathways/pathways/internal/testenv"
	"github.com/openpathways/pathways/pjrt"
	"github.com/openpathways/pathways/pjrt/pjrtifrt"
)

// The same scripts against a whole in-process cluster (resource manager and
// workers, package cluster/local) as the proxy server's backend, as in a Pathways
// deployment: "cluster_gocpu" spreads the 8 devices over two workers, so device_put
// and device_get cross workers and programs over all 8 run as gangs;
// "cluster_pjrt_cpu" is one worker of 8 devices on the PJRT CPU plugin, which
// runs no program spanning workers.
func init() {
	interopBackends = append(interopBackends,
		interopBackend{
			name:          "cluster_gocpu",
			workerDevices: 4,
			newClient: func(t *testing.T) ifrt.Client {
				return startCluster(t, 2, func(int) (ifrt.Client, error) { return gocpu.New(gocpu.Config{Devices: 4}) })
			},
			live: clusterLive,
		},
		interopBackend{
			name:        "cluster_pjrt_cpu",
			compiledHLO: true,
			newClient: func(t *testing.T) ifrt.Client {
				return startCluster(t, 1, lammpsBackend(t, 8))
			},
			live: clusterLive,
		})
}

// lammpsBackend makes workers' backends of devices devices on the PJRT CPU
// plugin, skipping t without the plugin.
func lammpsBackend(t *testing.T, devices int) func(int) (ifrt.Client, error) {
	path := testenv.LammpsPlugin.Path(t)
	return func(int) (ifrt.Client, error) {
		ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
		defer cancel()
		c, err := pjrtifrt.New(ctx, pjrtifrt.Config{PluginPath: path, Devices: devices})
		if errors.Is(err, pjrt.ErrCgoUnavailable) {
			t.Skip("built without cgo")
		}
		return c, err
	}
}

// clusterBackends remembers each cluster client's worker backends, so that live
// can count what the workers hold.
var clusterBackends = map[*cluster.Client][]ifrt.Client{}

func startCluster(t *testing.T, slices int, newBackend func(int) (ifrt.Client, error)) ifrt.Client {
	var backends []ifrt.Client
	ctx := testenv.Context(t, testTimeout)
	devices := 8 / slices
	l, err := local.Start(ctx, local.Config{
		Slices: slices, DevicesPerSlice: devices, NoProxy: true,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		NewBackend: func(i int) (ifrt.Client, error) {
			c, err := newBackend(i)
			if err == nil {
				backends = append(backends, c)
			}
			return c, err
		},
	})
	if err != nil {
		t.Fatalf("local.Start: %v", err)
	}
	t.Cleanup(func() { l.Close() })
	clusterBackends[l.Client] = backends
	return l.Client
}

// clusterLive counts what the workers hold, waiting for deletes that are still on
// their way to the workers.
func clusterLive(c ifrt.Client) (int, int, bool) {
	var pc *cluster.Client
	if !c.As(&pc) {
		return 0, 0, false
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		arrays, exes := 0, 0
		for _, b := range clusterBackends[pc] {
			var a, e int
			var g *gocpu.Client
			var p *pjrtifrt.Client
			switch {
			case b.As(&g):
				a, e = g.Live()
			case b.As(&p):
				a, e = p.Live()
			}
			arrays, exes = arrays+a, exes+e
		}
		if arrays == 0 && exes == 0 || time.Now().After(deadline) {
			return arrays, exes, true
		}
		time.Sleep(20 * time.Millisecond)
	}
}
