package interop_test

import (
	"context"
	"os/exec"
	"slices"
	"testing"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/ifrt/gocpu"
	"github.com/openpathways/pathways/internal/testenv"
	"github.com/openpathways/pathways/storage"
	_ "github.com/openpathways/pathways/storage/gcs"
	"github.com/openpathways/pathways/storage/gcs/gcstest"
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
		orbaxRoundTrip(t, jax, t.TempDir(), t.TempDir())
	})
}

// TestInteropOrbaxGCS is TestInteropOrbax on gs:// locations of the
// fake-gcs-server emulator, in process: the workers reach it through package
// storage/gcs, Orbax's own files go through gcsfs (anonymously) and plain
// Orbax's arrays through TensorStore's gcs driver. No credentials are needed
// and nothing leaves loopback.
func TestInteropOrbaxGCS(t *testing.T) {
	if testing.Short() {
		t.Skip("interop tests run real JAX processes; skipped with -short")
	}
	host := gcstest.Start(t, "orbax-ckpt")
	testenv.ForEachJAX(t, func(t *testing.T, jax testenv.JAX) {
		if err := exec.Command(jax.Python, "-c", "import gcsfs").Run(); err != nil {
			testenv.Missing(t, testenv.RequireInteropVar, "gcsfs, which Orbax needs for gs://, is not in "+jax.Python+
				": run `make setup` (scripts/setup_python.sh)")
		}
		root := "gs://orbax-ckpt/" + jax.Name()
		orbaxRoundTrip(t, jax, root+"/first", root+"/second", emulatorEnv(host)...)
	})
}

// emulatorEnv points the Python side at the emulator at host, which
// gcstest.Start has named in STORAGE_EMULATOR_HOST for gcsfs already:
// gcsfs without credentials and without its zonal-bucket probe (a gRPC call
// the emulator does not serve, retried for a minute per bucket), and
// TensorStore at its URL with the fixed token TensorStore takes in tests
// instead of looking for credentials.
func emulatorEnv(host string) []string {
	return []string{
		"FSSPEC_GCS_TOKEN=anon",
		"GCSFS_EXPERIMENTAL_ZB_HNS_SUPPORT=false",
		"TENSORSTORE_GCS_HTTP_URL=http://" + host,
		"GOOGLE_AUTH_TOKEN_FOR_TESTING=emulator",
	}
}

// orbaxRoundTrip runs testdata/orbax_checkpoint.py: a save through the proxy
// to first/proxy with its restores, plain Orbax's restore of it and save to
// first/local, and a restore of that through the proxy, with second as the
// proxy's save location then.
func orbaxRoundTrip(t *testing.T, jax testenv.JAX, first, second string, env ...string) {
	t.Helper()
	b := interopBackend{name: "cluster_gocpu", newClient: func(t *testing.T) ifrt.Client {
		return startCluster(t, 2, func(int) (ifrt.Client, error) { return gocpu.New(gocpu.Config{Devices: 4}) })
	}}
	s := startInteropServer(t, jax, b, nil)
	run := func(key string, extra ...string) {
		t.Helper()
		out, err := s.runScript(t, "orbax_checkpoint.py", slices.Concat(env, extra)...)
		if err != nil {
			t.Fatal(err)
		}
		if decode[bool](t, out, key) != true {
			t.Fatalf("orbax_checkpoint.py did not print %s: %v", key, out)
		}
	}
	// The local JAX first needs a checkpoint of the proxy's.
	run("restored", "MODE=proxy_save", "ENABLE_PATHWAYS_PERSISTENCE=1", "CKPT_DIR="+first)
	loc, err := storage.Open(context.Background(), first)
	if err != nil {
		t.Fatal(err)
	}
	defer loc.Close()
	if _, err := loc.Get(context.Background(), "proxy/params.w/.zarray"); err != nil {
		t.Errorf("the workers wrote no Zarr array: %v", err)
	}
	run("local_saved", "MODE=local", "CKPT_DIR="+first)
	run("restored_local", "MODE=proxy_save", "ENABLE_PATHWAYS_PERSISTENCE=1", "CKPT_DIR="+second, "LOCAL_DIR="+first+"/local")
}
