package proxyserver_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/ifrt/gocpu"
	"github.com/openpathways/pathways/internal/testenv"
)

// TestInteropOrbax saves an Orbax checkpoint through the proxy server to a
// cluster of two workers, which write their own shards; restores it through
// the proxy into other shardings; restores it with plain Orbax on CPU JAX; and
// restores plain Orbax's checkpoint of the same tree through the proxy. Every
// array is compared bit for bit.
func TestInteropOrbax(t *testing.T) {
	if testing.Short() {
		t.Skip("interop tests run real JAX processes; skipped with -short")
	}
	testenv.ForEachJAX(t, func(t *testing.T, jax testenv.JAX) {
		b := interopBackend{name: "cluster_gocpu", newClient: func(t *testing.T) ifrt.Client {
			return startCluster(t, 2, func(int) (ifrt.Client, error) { return gocpu.New(gocpu.Config{Devices: 4}) })
		}}
		dir := t.TempDir()
		// The local JAX first needs a checkpoint of the proxy's.
		s := startInteropServer(t, jax, b, nil)
		out, err := s.runScript(t, "orbax_checkpoint.py", "MODE=proxy_save", "ENABLE_PATHWAYS_PERSISTENCE=1", "CKPT_DIR="+dir)
		if err != nil {
			t.Fatal(err)
		}
		if decode[bool](t, out, "restored") != true {
			t.Fatalf("the proxy's save and restore did not finish: %v", out)
		}
		if _, err := os.Stat(filepath.Join(dir, "proxy", "params.w", ".zarray")); err != nil {
			t.Errorf("the workers wrote no Zarr array: %v", err)
		}
		out, err = s.runScript(t, "orbax_checkpoint.py", "MODE=local", "CKPT_DIR="+dir)
		if err != nil {
			t.Fatal(err)
		}
		if decode[bool](t, out, "local_saved") != true {
			t.Fatalf("plain Orbax did not restore the proxy's checkpoint: %v", out)
		}
		out, err = s.runScript(t, "orbax_checkpoint.py", "MODE=proxy_save", "ENABLE_PATHWAYS_PERSISTENCE=1",
			"CKPT_DIR="+t.TempDir(), "LOCAL_DIR="+filepath.Join(dir, "local"))
		if err != nil {
			t.Fatal(err)
		}
		if decode[bool](t, out, "restored_local") != true {
			t.Fatalf("the proxy did not restore plain Orbax's checkpoint: %v", out)
		}
	})
}
