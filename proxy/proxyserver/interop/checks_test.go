package interop_test

import (
	"encoding/json"
	"testing"
)

// checkShardMapPrograms runs shard_map_programs.py (stock JAX's shard_map
// collectives and pmap's psum over 8 devices) against s: every program matches numpy and
// local CPU JAX, and every device holds its block of the result.
func checkShardMapPrograms(t *testing.T, s *interopServer) map[string]json.RawMessage {
	t.Helper()
	out, err := s.runScript(t, "shard_map_programs.py", append(jitEnv, "XLA_FLAGS=--xla_force_host_platform_device_count=8")...)
	if err != nil {
		t.Fatal(err)
	}
	numpyErr := decode[map[string]float64](t, out, "numpy_err")
	cpuErr := decode[map[string]float64](t, out, "cpu_err")
	shardsOK := decode[map[string]bool](t, out, "shards_ok")
	if len(numpyErr) < 14 {
		t.Fatalf("the script checked %d programs, want 14: %s", len(numpyErr), out["numpy_err"])
	}
	for name, e := range numpyErr {
		if e > 1e-5 || cpuErr[name] > 1e-5 {
			t.Errorf("%s differs from numpy by %g and from local CPU JAX by %g", name, e, cpuErr[name])
		}
		if !shardsOK[name] {
			t.Errorf("%s: a device does not hold its block of the result", name)
		}
	}
	return out
}

// dataParallel is what jax_programs.py reports of its data-parallel MLP.
type dataParallel struct {
	Devices   int
	ParamErr  float64 `json:"param_err"`
	LossErr   float64 `json:"loss_err"`
	Decreased bool
}

// checkDataParallel reads the data-parallel MLP's report from out (what
// jax_programs.py printed, asked for devices, 0 for all): it ran, its
// parameters and losses match local CPU JAX, and the loss went down.
func checkDataParallel(t *testing.T, out map[string]json.RawMessage, devices int) dataParallel {
	t.Helper()
	if raw, failed := out["dp_error"]; failed {
		t.Fatalf("data-parallel MLP over %d devices failed: %s", devices, raw)
	}
	r := decode[dataParallel](t, out, "dp")
	if r.ParamErr > 1e-5 || r.LossErr > 1e-5 || !r.Decreased {
		t.Errorf("data-parallel MLP over %d devices: params differ from local CPU JAX by %g, losses by %g, loss decreased: %v",
			r.Devices, r.ParamErr, r.LossErr, r.Decreased)
	}
	return r
}
