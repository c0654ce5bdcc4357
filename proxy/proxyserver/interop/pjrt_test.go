package interop_test

import (
	"errors"
	"testing"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/internal/testenv"
	"github.com/openpathways/pathways/pjrt"
	"github.com/openpathways/pathways/pjrt/pjrtifrt"
)

// The CPU PJRT plugin built from jaxlib's XLA (lammps-jax-pjrt-cpu) compiles
// the bytecode JAX sends, SPMD programs included, so the jit scripts run
// against it. (The xla-cpu-pjrt plugin lacks the Shardings extension that
// pjrtifrt needs for SPMD bytecode.) Only this test file links pjrt; the
// server does not.
func init() {
	interopBackends = append(interopBackends, interopBackend{
		name:        "pjrt_cpu",
		compiledHLO: true,
		newClient: func(t *testing.T) ifrt.Client {
			path := testenv.LammpsPlugin.Path(t)
			ctx := testenv.Context(t, testTimeout)
			c, err := pjrtifrt.New(ctx, pjrtifrt.Config{PluginPath: path, Devices: 8})
			if errors.Is(err, pjrt.ErrCgoUnavailable) {
				t.Skip("built without cgo")
			}
			if err != nil {
				t.Fatalf("pjrtifrt.New(%s): %v", path, err)
			}
			return c
		},
		live: func(c ifrt.Client) (int, int, bool) {
			var p *pjrtifrt.Client
			if !c.As(&p) {
				return 0, 0, false
			}
			a, e := p.Live()
			return a, e, true
		},
	})
}
