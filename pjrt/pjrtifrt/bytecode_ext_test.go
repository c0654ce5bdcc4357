package pjrtifrt_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/internal/golden"
	"github.com/openpathways/pathways/pjrt/pjrtifrt"
)

// TestBytecodeSignature compiles each testdata program as text and as the
// jax.export portable artifact: the bytecode executable must describe the same
// parameters (types, shardings), outputs and donations, which it reads from
// the module as it does from text.
func TestBytecodeSignature(t *testing.T) {
	files := golden.Files(t, "testdata/*.json", 1)
	forEachClient(t, 8, func(t *testing.T, c *pjrtifrt.Client) {
		for _, f := range files {
			g := golden.Load(t, f)
			t.Run(g.Name, func(t *testing.T) {
				opts := &ifrt.CompileOptions{Devices: c.AddressableDevices()[:g.Devices]}
				var got []any
				for _, form := range []string{".mlir", ".mlirbc"} {
					module := golden.ReadFile(t, strings.TrimSuffix(f, ".json")+form)
					exe, err := c.Compile(testContext(t), &ifrt.MLIRProgram{Module: module}, opts)
					if err != nil {
						t.Fatalf("Compile(%s): %v", form, err)
					}
					if exe.Parameters() == nil {
						t.Errorf("%s: Parameters() is nil", form)
					}
					got = append(got, []any{exe.Parameters(), exe.Outputs(), exe.DonatableParameters()})
					exe.Delete()
				}
				if diff := cmp.Diff(got[0], got[1]); diff != "" {
					t.Errorf("bytecode executable differs from text (-text +bytecode):\n%s", diff)
				}
			})
		}
	})
}
