package gocpu_test

import (
	"context"
	"encoding/base64"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/ifrt/gocpu"
	"github.com/openpathways/pathways/internal/golden"
)

// TestCompileBytecode compiles each jax.export artifact and its text twin:
// the executables must describe the same parameters, outputs (types and
// shardings) and donations, and the bytecode one must compute JAX's results.
func TestCompileBytecode(t *testing.T) {
	files := golden.Files(t, "../../pjrt/pjrtifrt/testdata/*.json", 1)
	ctx := context.Background()
	c := newClient(t, gocpu.Config{Devices: 8})
	for _, f := range files {
		g := golden.Load(t, f)
		t.Run(g.Name, func(t *testing.T) {
			base := strings.TrimSuffix(f, ".json")
			opts := &ifrt.CompileOptions{Devices: c.Devices()[:g.Devices]}
			text, err := c.Compile(ctx, &ifrt.MLIRProgram{Module: golden.ReadFile(t, base+".mlir")}, opts)
			if err != nil {
				t.Fatalf("Compile(text): %v", err)
			}
			bc, err := c.Compile(ctx, &ifrt.MLIRProgram{Module: golden.ReadFile(t, base+".mlirbc")}, opts)
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
			golden.CheckOutputs(ctx, t, res.Outputs, g)
		})
	}
}
