package e2e

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/openpathways/pathways/internal/testenv"
)

// TestGangClusterOnPJRT is TestGangCluster on the README's cluster: worker
// processes on the PJRT CPU plugin, which run the program over both slices
// on their host interpreters.
func TestGangClusterOnPJRT(t *testing.T) {
	skipShort(t)
	plugin := pluginPath(t)
	if out, err := exec.Command("go", "env", "CGO_ENABLED").Output(); err != nil || strings.TrimSpace(string(out)) != "1" {
		t.Skip("the workers load the PJRT plugin with cgo, which this build has off")
	}
	testenv.ForEachJAX(t, func(t *testing.T, jax testenv.JAX) { testGangCluster(t, jax.Python, "pjrt:"+plugin) })
}
