package gocpu_test

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/ifrt/gocpu"
)

// exportCase is a program of pjrt/pjrtifrt/testdata (gen_programs.py): StableHLO
// text, the portable artifact jax.export writes, and JAX's results.
type exportCase struct {
	Name    string
	Devices int
	Donated []int
	RTol    float64
	ATol    float64
	Inputs  []struct{ Type, Data, Sharding string }
	Outputs []struct{ Type, Data, Sharding string }
}

// TestCompileBytecode compiles each jax.export artifact and its text twin:
// the executables must describe the same parameters, outputs (types and
// shardings) and donations, and the bytecode one must compute JAX's results.
func TestCompileBytecode(t *testing.T) {
	files, err := filepath.Glob("../../pjrt/pjrtifrt/testdata/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no programs in pjrt/pjrtifrt/testdata: %v", err)
	}
	ctx := context.Background()
	c, err := gocpu.New(gocpu.Config{Devices: 8})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, f := range files {
		var g exportCase
		if err := json.Unmarshal(readFile(t, f), &g); err != nil {
			t.Fatal(err)
		}
		t.Run(g.Name, func(t *testing.T) {
			base := strings.TrimSuffix(f, ".json")
			opts := &ifrt.CompileOptions{Devices: c.Devices()[:g.Devices]}
			text, err := c.Compile(ctx, &ifrt.MLIRProgram{Module: readFile(t, base+".mlir")}, opts)
			if err != nil {
				t.Fatalf("Compile(text): %v", err)
			}
			bc, err := c.Compile(ctx, &ifrt.MLIRProgram{Module: readFile(t, base+".mlirbc")}, opts)
			if err != nil {
				t.Fatalf("Compile(bytecode): %v", err)
			}
			describe := func(e ifrt.LoadedExecutable) any {
				return []any{e.Parameters(), e.Outputs(), e.DonatableParameters()}
			}
			if diff := cmp.Diff(describe(text), describe(bc)); diff != "" {
				t.Errorf("bytecode executable differs from text (-text +bytecode):\n%s", diff)
			}
			for i, p := range append(bc.Parameters(), bc.Outputs()...) {
				// XLA rejects an iota tile assignment without its permutation.
				if s := p.OpSharding; s != nil && len(s.IotaReshapeDims) != len(s.IotaTransposePerm) {
					t.Errorf("value %d: iota reshape dims %v but permutation %v", i, s.IotaReshapeDims, s.IotaTransposePerm)
				}
			}
			for i, p := range bc.Parameters() {
				sharded := p.OpSharding != nil && p.OpSharding.Type != ifrt.OpShardingReplicated
				if want := g.Inputs[i].Sharding != ""; sharded != want {
					t.Errorf("parameter %d: sharded = %v, JAX says %q", i, sharded, g.Inputs[i].Sharding)
				}
			}
			if diff := cmp.Diff(g.Donated, bc.DonatableParameters(), cmp.Comparer(func(a, b []int) bool { return len(a)+len(b) == 0 || cmp.Equal(a, b) })); diff != "" {
				t.Errorf("donatable parameters (-JAX +bytecode):\n%s", diff)
			}
			var args []ifrt.Array
			for i, p := range bc.Parameters() {
				data, err := base64.StdEncoding.DecodeString(g.Inputs[i].Data)
				if err != nil {
					t.Fatal(err)
				}
				spec := ifrt.ArraySpec{DType: p.DType, Shape: p.Shape, Sharding: ifrt.NewSingleDeviceSharding(c.Devices()[0], "")}
				a, err := c.MakeArrayFromHostBuffer(ctx, data, spec, nil)
				if err != nil {
					t.Fatal(err)
				}
				args = append(args, a)
			}
			res, err := bc.Execute(ctx, args, nil)
			if err != nil {
				t.Fatalf("Execute: %v", err)
			}
			for i, out := range res.Outputs {
				want, err := base64.StdEncoding.DecodeString(g.Outputs[i].Data)
				if err != nil {
					t.Fatal(err)
				}
				got := make([]byte, len(want))
				if err := out.CopyToHostBuffer(ctx, got, nil); err != nil {
					t.Fatalf("output %d: %v", i, err)
				}
				if msg := closeEnough(g.Outputs[i].Type, got, want, g.RTol, g.ATol); msg != "" {
					t.Errorf("output %d: %s", i, msg)
				}
			}
		})
	}
}

// closeEnough compares f32 data within tolerance and everything else exactly.
func closeEnough(typ string, got, want []byte, rtol, atol float64) string {
	if typ != "f32" {
		if string(got) != string(want) {
			return "differs from JAX's"
		}
		return ""
	}
	for i := 0; i+4 <= len(want); i += 4 {
		g := float64(math.Float32frombits(binary.LittleEndian.Uint32(got[i:])))
		w := float64(math.Float32frombits(binary.LittleEndian.Uint32(want[i:])))
		if math.Abs(g-w) > atol+rtol*math.Abs(w)+1e-6 {
			return fmt.Sprintf("element %d = %g, JAX's is %g", i/4, g, w)
		}
	}
	return ""
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
