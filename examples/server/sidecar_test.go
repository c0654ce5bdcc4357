package main

import (
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openpathways/pathways/cluster"
	"github.com/openpathways/pathways/internal/testenv"
)

func TestSidecarIsAWorkerFlag(t *testing.T) {
	_, err := parse([]string{"--node_type=resource_manager", "--instance_type=cpu:2", "--sidecar=python3 x.py"}, envOf(), io.Discard)
	if err == nil || !strings.Contains(err.Error(), "worker flag") {
		t.Errorf("--sidecar on the resource manager: %v, want an error saying it is a worker flag", err)
	}
}

// TestRunWorkerWithSidecar: a worker started with --sidecar registers its
// accelerators alone with the resource manager, and the cluster client finds
// its host's CPU device beside them.
func TestRunWorkerWithSidecar(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a Python sidecar; skipped with -short")
	}
	py := testenv.Python(t)
	if out, err := exec.Command(py, "-c", "import cloudpickle, jax").CombinedOutput(); err != nil {
		testenv.Missing(t, testenv.RequireInteropVar, "the Python interop environment lacks jax or cloudpickle ("+string(out)+"): run `make setup`")
	}
	ctx := testenv.Context(t, 2*time.Minute)
	rm, addr := startRM(ctx, t)
	script := filepath.Join(testenv.ModuleRoot(), "sidecar", "python", "pathways_sidecar.py")
	w, line := startServer(ctx, t, "worker", []string{"--server_port=0", "--resource_manager_address=" + addr, "--sidecar=" + py + " " + script}, envOf("HOST_ADDRESS", "127.0.0.1"))
	if !strings.Contains(line, "2 cpu devices") {
		t.Errorf("ready line %q", line)
	}
	c, err := cluster.Connect(ctx, addr)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, d := range c.Devices() {
		kinds = append(kinds, d.Kind)
		if d.NonPrimary != (d.Kind == "cpu") {
			t.Errorf("device %d of kind %q: NonPrimary %v", d.ID, d.Kind, d.NonPrimary)
		}
	}
	if strings.Join(kinds, ",") != "cpu_accelerator,cpu_accelerator,cpu" {
		t.Errorf("the cluster's devices are of kinds %v, want two accelerators and the host's CPU device", kinds)
	}
	c.Close()
	w.Stop(t)
	rm.Stop(t)
}
