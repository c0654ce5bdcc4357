package proxyserver_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"testing"

	"github.com/openpathways/pathways/cluster/local"
	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/internal/testenv"
)

// gangBackend is a cluster whose 8 gocpu devices are spread over hosts of
// slices, so that every program over all of them is a gang.
func gangBackend(slices, hosts int) interopBackend {
	return interopBackend{
		name:             fmt.Sprintf("cluster_%dslices_%dhosts", slices, hosts),
		compilesBytecode: true,
		newClient: func(t *testing.T) ifrt.Client {
			ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
			defer cancel()
			l, err := local.Start(ctx, local.Config{Slices: slices, HostsPerSlice: hosts, DevicesPerSlice: 8 / (slices * hosts),
				NoProxy: true, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
			if err != nil {
				t.Fatalf("local.Start: %v", err)
			}
			t.Cleanup(func() { l.Close() })
			return l.Client
		},
	}
}

// TestInteropGang runs stock JAX's shard_map collectives and a 30-step
// data-parallel MLP over all 8 devices of a slice of 2 hosts (cpu:2hx4), of
// 2 slices of 2 hosts (cpu:2hx2) and of 2 slices on the PJRT CPU plugin:
// every program is one program across the workers, and the results match
// numpy and local CPU JAX.
func TestInteropGang(t *testing.T) {
	if testing.Short() {
		t.Skip("interop tests run real JAX processes; skipped with -short")
	}
	testenv.ForEachJAX(t, func(t *testing.T, jax testenv.JAX) {
		for _, b := range []interopBackend{gangBackend(1, 2), gangBackend(2, 2), pjrtGangBackend()} {
			t.Run(b.name, func(t *testing.T) {
				s := startInteropServer(t, jax, b, nil)
				out, err := s.runScript(t, "shard_map_programs.py", append(jitEnv, "XLA_FLAGS=--xla_force_host_platform_device_count=8")...)
				if err != nil {
					t.Fatal(err)
				}
				numpyErr := decode[map[string]float64](t, out, "numpy_err")
				cpuErr := decode[map[string]float64](t, out, "cpu_err")
				shardsOK := decode[map[string]bool](t, out, "shards_ok")
				if len(numpyErr) < 12 {
					t.Fatalf("the script checked %d programs, want 12: %s", len(numpyErr), out["numpy_err"])
				}
				for name, e := range numpyErr {
					if e > 1e-5 || cpuErr[name] > 1e-5 || !shardsOK[name] {
						t.Errorf("%s differs from numpy by %g and from local CPU JAX by %g; shards as their sharding says: %v", name, e, cpuErr[name], shardsOK[name])
					}
				}
				out, err = s.runScript(t, "jax_programs.py", jitEnv...)
				if err != nil {
					t.Fatal(err)
				}
				if raw, failed := out["dp_error"]; failed {
					t.Fatalf("data-parallel MLP over all devices failed: %s", raw)
				}
				type dp struct {
					Devices   int
					ParamErr  float64 `json:"param_err"`
					LossErr   float64 `json:"loss_err"`
					Decreased bool
				}
				r := decode[dp](t, out, "dp")
				if r.Devices != 8 || r.ParamErr > 1e-5 || r.LossErr > 1e-5 || !r.Decreased {
					t.Errorf("data-parallel MLP over %d devices: params differ from local CPU JAX by %g, losses by %g, loss decreased: %v",
						r.Devices, r.ParamErr, r.LossErr, r.Decreased)
				}
			})
		}
	})
}
