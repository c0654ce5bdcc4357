package interop_test

import (
	"strings"
	"testing"

	"github.com/openpathways/pathways/internal/testenv"
)

// TestInteropEverydayPatterns runs testdata/user_everyday.py, everyday JAX
// code beyond TestInteropUserPatterns, on the cluster of two gocpu slices and
// on the PJRT CPU plugin, and compares each pattern with local CPU JAX by
// value, shape, dtype, weak type and sharding: an eager op on a sharded array
// keeps its sharding, and an array too large for the backend fails with
// RESOURCE_EXHAUSTED, after which the session keeps working.
func TestInteropEverydayPatterns(t *testing.T) {
	forEachInterop(t, func(t *testing.T, jax testenv.JAX, b interopBackend) {
		if b.name != "cluster_gocpu" && b.name != "pjrt_cpu" {
			t.Skip("runs on cluster_gocpu and pjrt_cpu")
		}
		s := startInteropServer(t, jax, b, nil)
		out, err := s.runScript(t, "user_everyday.py", append(jitEnv, "XLA_FLAGS=--xla_force_host_platform_device_count=8")...)
		if err != nil {
			t.Fatal(err)
		}
		cases := decode[map[string]any](t, out, "cases")
		if len(cases) < 120 {
			t.Errorf("the script compared %d patterns, want at least 120", len(cases))
		}
		t.Logf("%d patterns compared with local CPU JAX", len(cases))
		for name, e := range cases {
			tol := 1e-5
			if strings.HasPrefix(name, "bf16_") {
				// XLA drops the rounding to bf16 between a bf16 dot and a
				// convert back to f32 (excess precision); gocpu rounds.
				tol = 0.05
			}
			if f, ok := e.(float64); !ok || f > tol {
				t.Errorf("%s: %v (tolerance %g)", name, e, tol)
			}
		}
		errs := decode[map[string]string](t, out, "errors")
		for name, want := range map[string]string{
			"use_deleted":    "deleted",
			"jit_deleted":    "deleted",
			"shape_mismatch": "TypeError",
			"huge_jit":       "RESOURCE_EXHAUSTED",
			"after":          "no error",
		} {
			if !strings.Contains(errs[name], want) {
				t.Errorf("%s: %q, want it to say %q", name, errs[name], want)
			}
		}
		s.expectFreed(t, b)
	})
}
