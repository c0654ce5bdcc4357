package pjrtifrt_test

import (
	"context"
	"encoding/binary"
	"math"
	"os"
	"testing"

	"github.com/openpathways/pathways/ifrt"
)

// TestSerializeExecutable compiles a program, serializes it and loads the
// bytes into a fresh client, where it runs without being compiled.
func TestSerializeExecutable(t *testing.T) {
	for _, p := range cpuPlugins {
		t.Run(p.Name, func(t *testing.T) {
			module, err := os.ReadFile("testdata/mul_add.mlir")
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			a := p.client(t, 1)
			prog := &ifrt.MLIRProgram{Module: module}
			exe, err := a.Compile(ctx, prog, nil)
			if err != nil {
				t.Fatal(err)
			}
			data, err := a.SerializeExecutable(exe)
			if err != nil {
				t.Fatalf("SerializeExecutable: %v", err)
			}
			b := p.client(t, 1)
			if a.CompilerVersion() != b.CompilerVersion() || a.CompilerVersion() == "" {
				t.Fatalf("compiler versions %q and %q", a.CompilerVersion(), b.CompilerVersion())
			}
			loaded, err := b.LoadExecutable(ctx, data, prog, nil)
			if err != nil {
				t.Fatalf("LoadExecutable: %v", err)
			}
			in := make([]byte, 16)
			for i := range 4 {
				binary.LittleEndian.PutUint32(in[4*i:], math.Float32bits(float32(i)))
			}
			spec := ifrt.ArraySpec{DType: ifrt.F32, Shape: ifrt.Shape{4}, Sharding: ifrt.NewSingleDeviceSharding(b.AddressableDevices()[0], "")}
			x, err := b.MakeArrayFromHostBuffer(ctx, in, spec, nil)
			if err != nil {
				t.Fatal(err)
			}
			res, err := loaded.Execute(ctx, []ifrt.Array{x, x}, nil)
			if err != nil {
				t.Fatal(err)
			}
			out := make([]byte, 16)
			if err := res.Outputs[0].CopyToHostBuffer(ctx, out, nil); err != nil {
				t.Fatal(err)
			}
			for i := range 4 {
				if got := math.Float32frombits(binary.LittleEndian.Uint32(out[4*i:])); got != float32(i*i+1) {
					t.Errorf("out[%d] = %v, want %v", i, got, i*i+1)
				}
			}
			if _, err := b.LoadExecutable(ctx, []byte("garbage"), prog, nil); err == nil {
				t.Error("LoadExecutable of garbage succeeded")
			}
			for _, a := range append(res.Outputs, x) {
				a.Delete()
			}
			loaded.Delete()
			exe.Delete()
		})
	}
}
