package interop_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/openpathways/pathways/internal/testenv"
)

// TestInteropUserPatterns runs what a JAX user writes first (testdata/
// user_patterns.py) over a mesh of all 8 devices and compares it with local CPU
// JAX: jit of arguments without shardings of their own (numpy, PRNG keys,
// uncommitted and mixed arguments), and a transformer trained with donated
// sharded parameters. Donation must take effect: the old parameters read as
// deleted, as many as on local JAX, and the backend holds no second copy of
// them.
func TestInteropUserPatterns(t *testing.T) {
	forEachInterop(t, everyBackend(t), func(t *testing.T, jax testenv.JAX, b interopBackend) {
		s := startInteropServer(t, jax, b, nil)
		live := map[string]int{}
		out, err := s.runSteps(t, "user_patterns.py", func(step string) {
			n, _, ok := b.live(s.backend)
			if !ok {
				t.Fatalf("backend %s cannot count its arrays", b.name)
			}
			live[step] = n
		}, append(jitEnv, "PAUSE=1", "XLA_FLAGS=--xla_force_host_platform_device_count=8")...)
		if err != nil {
			t.Fatal(err)
		}

		var patterns map[string]any
		if err := json.Unmarshal(out["pattern_err"], &patterns); err != nil || len(patterns) == 0 {
			t.Fatalf("pattern_err = %s", out["pattern_err"])
		}
		for name, e := range patterns {
			if f, ok := e.(float64); !ok || f > 1e-6 {
				t.Errorf("%s: differs from local CPU JAX: %v", name, e)
			}
		}
		for _, key := range []string{"loss_err", "param_err", "checkpoint_err"} {
			if e := decode[float64](t, out, key); e > 1e-6 {
				t.Errorf("%s = %g, want at most 1e-6 against local CPU JAX", key, e)
			}
		}
		if !decode[bool](t, out, "decreased") {
			t.Errorf("the loss did not decrease: %s", out["losses"])
		}
		// Every parameter local CPU JAX deletes must read as deleted here too.
		// Local JAX may keep more: jaxlib 0.11.2 does not delete a donated
		// array after device_get (numpy keeps a zero-copy view of the CPU
		// buffer), which a remote array does not have.
		deleted, local := decode[int](t, out, "donated_deleted"), decode[int](t, out, "local_donated_deleted")
		perLeaf, localPerLeaf := decode[[]bool](t, out, "deleted"), decode[[]bool](t, out, "local_deleted")
		kept := 0
		for i := range min(len(perLeaf), len(localPerLeaf)) {
			if localPerLeaf[i] && !perLeaf[i] {
				kept++
			}
		}
		if deleted == 0 || kept > 0 || len(perLeaf) != len(localPerLeaf) {
			t.Errorf("%d of %s donated parameters read as deleted, %d on local CPU JAX; %d that local JAX deleted were kept", deleted, out["donated_total"], local, kept)
		} else if deleted != local {
			t.Logf("%d donated parameters read as deleted, %d on local CPU JAX, which kept the others alive", deleted, local)
		}
		if msg := decode[string](t, out, "read_deleted"); !strings.Contains(msg, "deleted") {
			t.Errorf("reading a donated array gave %q, want an error saying it was deleted", msg)
		}
		// Six old parameter trees are still referenced at "donated"; had
		// donation not freed them, the backend would hold seven trees.
		if live["initialized"] == 0 || live["donated"] >= 2*live["initialized"] {
			t.Errorf("the backend holds %d arrays after six donating steps and %d after initializing: donation did not free the old parameters", live["donated"], live["initialized"])
		}
		t.Logf("backend arrays: %d with one parameter tree, %d after six donating steps", live["initialized"], live["donated"])
		s.expectFreed(t, b)
	})
}

// TestInteropIntrospection: compiled.as_text() shows the compiled HLO,
// cost_analysis() and memory_analysis() what the backend reports, and
// pathwaysutils'
// experimental.reshard moves arrays between device sets, copying or donating,
// and its Pathways array calls (split and concatenate by mesh axis,
// transfer_to_shardings, reshard) give the values and devices they promise.
func TestInteropIntrospection(t *testing.T) {
	forEachInterop(t, everyBackend(t), func(t *testing.T, jax testenv.JAX, b interopBackend) {
		s := startInteropServer(t, jax, b, nil)
		out, err := s.runScript(t, "introspection.py", jitEnv...)
		if err != nil {
			t.Fatal(err)
		}
		if !b.compiledHLO {
			// gocpu interprets the StableHLO it was given: it has no compiled
			// program to print (UNIMPLEMENTED, which JAX reports as None), and
			// estimates costs from the program.
			if text := string(out["text"]); text != `"None"` {
				t.Errorf("compiled.as_text() = %s, want \"None\"", text)
			}
			if cost := decode[[]string](t, out, "cost"); !slices.Equal(cost, []string{"bytes accessed", "flops", "transcendentals"}) {
				t.Errorf("cost_analysis() has keys %q, want bytes accessed, flops and transcendentals", cost)
			}
		}
		if b.compiledHLO {
			if text := decode[string](t, out, "text"); !strings.HasPrefix(text, "HloModule ") || !strings.Contains(text, "sine") {
				t.Errorf("compiled.as_text() = %q, want the compiled HLO", text)
			}
			// The CPU plugin under test does not implement
			// PJRT_Executable_GetCostAnalysis; the interpreter's estimate
			// stands in, where JAX had None.
			if cost := decode[[]string](t, out, "cost"); !slices.Contains(cost, "flops") {
				t.Errorf("cost_analysis() has keys %q, want flops among them", cost)
			}
		}
		// One f64[4,4] in (the scripts enable x64), one out: the backend's
		// memory analysis, where JAX had None.
		if mem := decode[[]int64](t, out, "memory"); !slices.Equal(mem, []int64{128, 128}) {
			t.Errorf("memory_analysis() argument and output bytes = %v, want [128 128]", mem)
		}
		for _, key := range []string{"reshard_copy", "reshard_donated", "reshard_kept", "concatenated", "resharded"} {
			if !decode[bool](t, out, key) {
				t.Errorf("%s = false", key)
			}
		}
		// One entry per slice, per target or per section, each true.
		for key, n := range map[string]int{"split_values": 2, "split_devices": 2, "split_computes": 2, "transferred": 3, "split_uneven": 4} {
			if got := decode[[]bool](t, out, key); len(got) != n || slices.Contains(got, false) {
				t.Errorf("%s = %v, want %d times true", key, got, n)
			}
		}
	})
}
