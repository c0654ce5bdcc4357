package cluster_test

import (
	"slices"
	"testing"

	"github.com/openpathways/pathways/cluster/local"
	"github.com/openpathways/pathways/ifrt"
)

// addOne is x + 1 on f32[16].
const addOne = `module @jit_add_one attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<16xf32>) -> (tensor<16xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.constant dense<1.0> : tensor<16xf32>
    %1 = stablehlo.add %arg0, %0 : tensor<16xf32>
    return %1 : tensor<16xf32>
  }
}`

// TestReshardOfAFreshArrayAcrossSlices spreads an array computed a moment
// ago on one device of slice 0 over the devices of both slices, as
// jax.device_put(jnp.arange(16.0) + i, mesh_sharding) does. The request that
// makes the array may still be on its way to slice 0's worker when slice
// 1's worker asks it for its piece: 1 run in 4 failed with NOT_FOUND
// ("session … has no array N") before the piece named the last request the
// client had sent and the source waited until its session had handled it.
func TestReshardOfAFreshArrayAcrossSlices(t *testing.T) {
	l := startLocal(t, local.Config{Slices: 2, DevicesPerSlice: 4})
	c := l.Client
	ctx := testContext(t)
	devs := c.Devices()
	spread, err := ifrt.NewTiledSharding(devs, int64(len(devs)))
	if err != nil {
		t.Fatal(err)
	}
	one := ifrt.NewSingleDeviceSharding(devs[0], "")
	exe, err := c.Compile(ctx, &ifrt.MLIRProgram{Module: []byte(addOne)}, &ifrt.CompileOptions{Devices: ifrt.DeviceList{devs[0]}})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 100 {
		in := make([]float32, 16)
		want := make([]float32, 16)
		for k := range want {
			in[k] = float32(k + i)
			want[k] = in[k] + 1
		}
		x, err := ifrt.MakeArrayFromSlice(ctx, c, in, ifrt.Shape{16}, one)
		if err != nil {
			t.Fatal(err)
		}
		res, err := exe.Execute(ctx, []ifrt.Array{x}, nil)
		if err != nil {
			t.Fatal(err)
		}
		x.Delete()
		out, err := c.Reshard(ctx, res.Outputs, []ifrt.ArraySpec{{DType: ifrt.F32, Shape: ifrt.Shape{16}, Sharding: spread}}, ifrt.DonateInput)
		if err != nil {
			t.Fatalf("round %d: Reshard: %v", i, err)
		}
		got, err := ifrt.ArrayToSlice[float32](ctx, out[0])
		if err != nil {
			t.Fatalf("round %d: reading the spread array: %v", i, err)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("round %d: got %v, want %v", i, got, want)
		}
		out[0].Delete()
	}
}
