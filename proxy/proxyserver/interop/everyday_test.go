package interop_test

import (
	"strings"
	"testing"

	"github.com/openpathways/pathways/internal/testenv"
)

// TestInteropEverydayPatterns runs testdata/user_everyday.py, everyday JAX
// code beyond TestInteropUserPatterns, on the cluster of two gocpu slices and
// on the PJRT CPU plugin, and compares each pattern with local CPU JAX by
// value, shape, dtype, weak type and sharding (on the cluster, over a mesh made
// as multislice users make theirs, by mesh_utils.create_hybrid_device_mesh
// with the slices along its first axis): an eager op on a sharded array
// keeps its sharding, and an array too large for the backend fails with
// RESOURCE_EXHAUSTED, after which the session keeps working. With the newest
// jaxlib on the cluster it runs twice: with 64-bit types, and with JAX's
// default 32-bit ones.
func TestInteropEverydayPatterns(t *testing.T) {
	forEachInterop(t, backendsNamed(t, "cluster_gocpu", "pjrt_cpu"), func(t *testing.T, jax testenv.JAX, b interopBackend) {
		s := startInteropServer(t, jax, b, nil)
		// JAX's default 32-bit types too, as most users run it: a matter of
		// the backend's types, so once.
		modes := []string{"x64"}
		if b.name == "cluster_gocpu" && newestJAX(jax) {
			modes = append(modes, "x32")
		}
		for _, mode := range modes {
			t.Run(mode, func(t *testing.T) {
				runEverydayPatterns(t, s, mode)
			})
		}
		s.expectFreed(t, b)
	})
}

// runEverydayPatterns runs user_everyday.py on s with 64-bit types on ("x64")
// or off ("x32") and checks what it reports.
func runEverydayPatterns(t *testing.T, s *interopServer, mode string) {
	x64 := "1"
	if mode == "x32" {
		x64 = "0"
	}
	out, err := s.runScript(t, "user_everyday.py", append(jitEnv, "XLA_FLAGS=--xla_force_host_platform_device_count=8", "INTEROP_X64="+x64)...)
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
}
