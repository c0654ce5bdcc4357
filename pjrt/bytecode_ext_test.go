package pjrt_test

import (
	"os"
	"regexp"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/pjrt"
)

// TestJAXPortableArtifact compiles the StableHLO portable artifact (MLIR
// bytecode, VHLO) that the pinned JAX 0.10.2 serializes with jax.export
// (testdata/gen_jax_artifact.py) on each CPU plugin. A plugin whose StableHLO
// is at least the artifact's version must compile and run it; an older one must
// fail cleanly with the plugin's error.
func TestJAXPortableArtifact(t *testing.T) {
	artifact, err := os.ReadFile("testdata/jax_export_f32.mlirbc")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`StableHLO_v(\d+)\.(\d+)\.(\d+)`).FindSubmatch(artifact)
	if m == nil {
		t.Fatal("no StableHLO producer version in the artifact")
	}
	var artifactVersion []int64
	for _, s := range m[1:] {
		v, _ := strconv.ParseInt(string(s), 10, 64)
		artifactVersion = append(artifactVersion, v)
	}
	t.Logf("artifact: %d bytes, StableHLO %v", len(artifact), artifactVersion)
	for _, p := range cpuPlugins {
		t.Run(p.Name, func(t *testing.T) {
			c := p.client(t, 1)
			current, minimum, _ := c.Plugin().StableHLOVersions()
			supported := versionLE(artifactVersion, current) && versionLE(minimum, artifactVersion)
			x, err := c.Compile(testContext(t), artifact, "mlir", pjrt.CompileOptions{}.Marshal())
			if err != nil {
				t.Logf("plugin StableHLO %v (minimum %v): compiling the JAX 0.10.2 artifact fails: %v", current, minimum, err)
				if supported {
					t.Errorf("plugin should accept a StableHLO %v artifact", artifactVersion)
				}
				if ifrt.CodeOf(err) == ifrt.OK {
					t.Errorf("error without a code: %v", err)
				}
				return
			}
			defer x.Close()
			t.Logf("plugin StableHLO %v (minimum %v): the JAX 0.10.2 artifact compiles", current, minimum)
			a := upload(t, c, f32Bytes(1, 2, 3, 4), pjrt.F32, []int64{4}, nil)
			b := upload(t, c, f32Bytes(2, 2, 2, 2), pjrt.F32, []int64{4}, nil)
			outs, events, err := x.Execute(testContext(t), [][]*pjrt.Buffer{{a, b}}, nil)
			if err != nil {
				t.Fatalf("Execute: %v", err)
			}
			defer closeAll(outs, events)
			if got := bytesF32(download(t, outs[0][0])); !cmp.Equal(got, []float32{3, 5, 7, 9}) {
				t.Errorf("x*y+1 = %v", got)
			}
		})
	}
}

// TestJAXPortableArtifactSPMD compiles JAX's 8-way Shardy-partitioned export
// (sdy dialect in the artifact) with num_partitions=8 and runs it per device.
func TestJAXPortableArtifactSPMD(t *testing.T) {
	artifact, err := os.ReadFile("testdata/jax_export_spmd8.mlirbc")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range cpuPlugins {
		t.Run(p.Name, func(t *testing.T) {
			c := p.client(t, 8)
			ctx := testContext(t)
			opts := pjrt.CompileOptions{NumPartitions: 8, UseSPMDPartitioning: true, UseShardyPartitioner: true,
				DeviceAssignment: [][]int{{0, 1, 2, 3, 4, 5, 6, 7}}}
			x, err := c.Compile(ctx, artifact, "mlir", opts.Marshal())
			if err != nil {
				t.Skipf("plugin does not compile JAX 0.10.2's Shardy SPMD artifact: %v", err)
			}
			defer x.Close()
			dims, _ := x.OutputDims()
			t.Logf("compiled: %d partitions, per-device output dims %v", x.NumPartitions(), dims)
			bm := f32Bytes(1, 0, 0, 1, 1, 1, 2, 0)
			args := make([][]*pjrt.Buffer, 8)
			for i, d := range x.AddressableDevices() {
				f := float32(4 * i)
				row := upload(t, c, f32Bytes(f, f+1, f+2, f+3), pjrt.F32, []int64{1, 4}, &pjrt.HostBufferOptions{Device: d})
				args[i] = []*pjrt.Buffer{row, upload(t, c, bm, pjrt.F32, []int64{4, 2}, &pjrt.HostBufferOptions{Device: d})}
			}
			outs, events, err := x.Execute(ctx, args, nil)
			if err != nil {
				t.Fatalf("Execute: %v", err)
			}
			defer closeAll(outs, events)
			for i := range outs {
				f := float32(4 * i)
				want := []float32{f + (f + 2) + 2*(f+3), (f + 1) + (f + 2)}
				if got := bytesF32(download(t, outs[i][0])); !cmp.Equal(got, want) {
					t.Errorf("device %d: a@b row = %v, want %v", i, got, want)
				}
				if got := bytesF32(download(t, outs[i][1])); !cmp.Equal(got, []float32{112, 120, 128, 136}) {
					t.Errorf("device %d: column sums = %v", i, got)
				}
			}
		})
	}
}

func versionLE(a, b []int64) bool {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return len(a) <= len(b)
}
