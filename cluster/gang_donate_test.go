package cluster_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/openpathways/pathways/cluster/local"
	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/internal/testenv"
)

// addDonor adds two 8-vectors sharded over 8 devices, the first a buffer
// donor, as JAX lowers jit(lambda a, b: a + b, donate_argnums=0).
const addDonor = `module @add attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%a: tensor<8xf32> {mhlo.sharding = "{devices=[8]<=[8]}", jax.buffer_donor = true}, %b: tensor<8xf32> {mhlo.sharding = "{devices=[8]<=[8]}"}) -> (tensor<8xf32> {mhlo.sharding = "{devices=[8]<=[8]}"}) {
    %0 = stablehlo.add %a, %b : tensor<8xf32>
    return %0 : tensor<8xf32>
  }
}`

// A program spanning two slices refuses its donated argument passed twice
// before anything is consumed, runs once the argument is excluded from
// donation, and then consumes it when donated.
func TestGangDonatedArgumentPassedTwice(t *testing.T) {
	l := startLocal(t, local.Config{Slices: 2, DevicesPerSlice: 4, NoProxy: true})
	ctx := testenv.Context(t, defaultTestTimeout)
	exe, put := compileOverAll(ctx, t, l.Client, addDonor)
	x := put()
	if _, err := exe.Execute(ctx, []ifrt.Array{x, x}, nil); ifrt.CodeOf(err) != ifrt.InvalidArgument || x.IsDeleted() {
		t.Fatalf("Execute with the donated argument passed twice: %v, argument deleted %v; want INVALID_ARGUMENT and the argument kept", err, x.IsDeleted())
	}
	res, err := exe.Execute(ctx, []ifrt.Array{x, x}, &ifrt.ExecuteOptions{NonDonatableInputs: []int{0}})
	if err != nil || x.IsDeleted() {
		t.Fatalf("Execute with the argument excluded from donation: %v, argument deleted %v", err, x.IsDeleted())
	}
	got := make([]byte, 32)
	if err := res.Outputs[0].CopyToHostBuffer(ctx, got, nil); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, f32Bytes(0, 2, 4, 6, 8, 10, 12, 14)) {
		t.Errorf("x + x = %v", got)
	}
	y := put()
	if _, err := exe.Execute(ctx, []ifrt.Array{x, y}, nil); err != nil || !x.IsDeleted() || y.IsDeleted() {
		t.Errorf("Execute donating the first argument: %v; deleted %v and %v, want true and false", err, x.IsDeleted(), y.IsDeleted())
	}
}

// compileOverAll compiles module, an 8-partition program of one f32[8]
// parameter, over c's 8 devices, and returns it and a function that puts
// [0 1 ... 7] in the parameter's sharding. The executable is deleted when
// the test ends.
func compileOverAll(ctx context.Context, t *testing.T, c ifrt.Client, module string) (ifrt.LoadedExecutable, func() ifrt.Array) {
	t.Helper()
	devs := c.Devices()
	exe, err := c.Compile(ctx, &ifrt.MLIRProgram{Module: []byte(module)}, &ifrt.CompileOptions{Devices: devs})
	if err != nil {
		t.Fatalf("Compile: %v", err)
	}
	t.Cleanup(func() { exe.Delete() })
	s, err := ifrt.NewHloSharding(devs, "", *exe.Parameters()[0].OpSharding)
	if err != nil {
		t.Fatal(err)
	}
	return exe, func() ifrt.Array {
		x, err := c.MakeArrayFromHostBuffer(ctx, f32Bytes(0, 1, 2, 3, 4, 5, 6, 7), ifrt.ArraySpec{DType: ifrt.F32, Shape: ifrt.Shape{8}, Sharding: s}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return x
	}
}
