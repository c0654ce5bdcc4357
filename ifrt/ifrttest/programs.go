package ifrttest

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/openpathways/pathways/ifrt"
)

// addMul computes (a+b)*a on f32[4]; its first argument may be donated.
const addMul = `module @jit_add_mul attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xf32> {jax.buffer_donor = true}, %arg1: tensor<4xf32>) -> (tensor<4xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.add %arg0, %arg1 : tensor<4xf32>
    %1 = stablehlo.multiply %0, %arg0 : tensor<4xf32>
    return %1 : tensor<4xf32>
  }
}
`

// castDonor converts f32[4] to s32[4] with its argument donated (jnp's
// x.astype(jnp.int32) with donate_argnums): the output, of another type but
// the same size, takes the argument's buffer.
const castDonor = `module @jit_cast attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xf32> {jax.buffer_donor = true}) -> (tensor<4xi32> {jax.result_info = "result"}) {
    %0 = stablehlo.convert %arg0 : (tensor<4xf32>) -> tensor<4xi32>
    return %0 : tensor<4xi32>
  }
}
`

// shardedProgram doubles f32[2n,4] split by rows over n devices and sums its columns.
func shardedProgram(n int) string { return shardedProgramDonating(n, false) }

// shardedProgramDonating is shardedProgram, whose argument may be donated when
// donor is set.
func shardedProgramDonating(n int, donor bool) string {
	donorAttr := ""
	if donor {
		donorAttr = ", jax.buffer_donor = true"
	}
	return fmt.Sprintf(`module @jit_sharded attributes {mhlo.num_partitions = %[1]d : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%%arg0: tensor<%[2]dx4xf32> {mhlo.sharding = "{devices=[%[1]d,1]<=[%[1]d]}"%[3]s}) -> (tensor<%[2]dx4xf32> {mhlo.sharding = "{devices=[%[1]d,1]<=[%[1]d]}"}, tensor<4xf32> {mhlo.sharding = "{replicated}"}) {
    %%0 = stablehlo.add %%arg0, %%arg0 : tensor<%[2]dx4xf32>
    %%cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %%1 = stablehlo.reduce(%%arg0 init: %%cst) applies stablehlo.add across dimensions = [0] : (tensor<%[2]dx4xf32>, tensor<f32>) -> tensor<4xf32>
    return %%0, %%1 : tensor<%[2]dx4xf32>, tensor<4xf32>
  }
}
`, n, 2*n, donorAttr)
}

func f32s(b []byte) []float32 {
	out := make([]float32, len(b)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}

func f32bytes(v ...float32) []byte {
	out := make([]byte, 4*len(v))
	for i, f := range v {
		binary.LittleEndian.PutUint32(out[4*i:], math.Float32bits(f))
	}
	return out
}

func testCompileAndExecute(t *testing.T, h Harness) {
	e, exe := h.oneDeviceProgram(t, 1, addMul)
	if got := len(exe.Parameters()); got != 2 {
		t.Errorf("Parameters() has %d entries, want 2", got)
	}
	if outs := exe.Outputs(); len(outs) != 1 || outs[0].DType != ifrt.F32 || !outs[0].Shape.Equal(ifrt.Shape{4}) {
		t.Errorf("Outputs() = %+v, want one f32[4]", outs)
	}
	x := e.put(f32bytes(1, 2, 3, 4), ifrt.F32, ifrt.Shape{4}, e.single(0))
	y := e.put(f32bytes(10, 20, 30, 40), ifrt.F32, ifrt.Shape{4}, e.single(0))
	res, err := exe.Execute(e.ctx, []ifrt.Array{x, y}, &ifrt.ExecuteOptions{NonDonatableInputs: []int{0}, FillStatus: true})
	if err != nil {
		t.Fatalf("Execute: %v", err)
	}
	if err := res.Status.Await(e.ctx); err != nil {
		t.Fatalf("execution status: %v", err)
	}
	if got, want := f32s(e.get(res.Outputs[0])), []float32{11, 44, 99, 176}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("(x+y)*x = %v, want %v", got, want)
	}
	if x.IsDeleted() {
		t.Errorf("a non-donatable argument was deleted")
	}

	_, err = exe.Execute(e.ctx, []ifrt.Array{x}, nil)
	wantCode(t, "Execute with too few arguments", err, ifrt.ErrInvalidArgument)
	wrong := e.put(values(ifrt.S32, 4, 1), ifrt.S32, ifrt.Shape{4}, e.single(0))
	_, err = exe.Execute(e.ctx, []ifrt.Array{x, wrong}, nil)
	wantCode(t, "Execute with an s32 argument", err, ifrt.ErrInvalidArgument)

	// A donated argument passed again would be read after its donation.
	_, err = exe.Execute(e.ctx, []ifrt.Array{x, x}, nil)
	wantCode(t, "Execute with the donated argument passed twice", err, ifrt.ErrInvalidArgument)
	if x.IsDeleted() {
		t.Fatalf("a refused execution deleted its argument")
	}
	res, err = exe.Execute(e.ctx, []ifrt.Array{x, x}, &ifrt.ExecuteOptions{NonDonatableInputs: []int{0}})
	if err != nil {
		t.Fatalf("Execute with the argument passed twice, not donated: %v", err)
	}
	if got, want := f32s(e.get(res.Outputs[0])), []float32{2, 8, 18, 32}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("(x+x)*x = %v, want %v", got, want)
	}

	res, err = exe.Execute(e.ctx, []ifrt.Array{x, y}, nil)
	if err != nil {
		t.Fatalf("Execute with donation: %v", err)
	}
	if !x.IsDeleted() {
		t.Errorf("the donated argument is still alive")
	}
	_, err = exe.Execute(e.ctx, []ifrt.Array{x, y}, nil)
	wantCode(t, "Execute with a donated argument", err, ifrt.ErrArrayDeleted)

	if err := exe.Delete().Await(e.ctx); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	_, err = exe.Execute(e.ctx, []ifrt.Array{res.Outputs[0], y}, nil)
	wantCode(t, "Execute after Delete", err, ifrt.ErrExecutableDeleted)

	_, err = e.client.Compile(e.ctx, &ifrt.MLIRProgram{Module: []byte("module { func.func @main( }")}, &ifrt.CompileOptions{Devices: e.devs[:1]})
	wantCode(t, "Compile of malformed MLIR", err, ifrt.ErrInvalidArgument)
}

func testExecuteSharded(t *testing.T, h Harness) {
	if !h.Programs {
		t.Skip("the backend does not compile StableHLO text")
	}
	e, exe := h.programEnv(t, 2, shardedProgram)
	n := len(e.devs)
	shape := ifrt.Shape{int64(2 * n), 4}
	in := make([]float32, shape.NumElements())
	for i := range in {
		in[i] = float32(i)
	}
	x := e.put(f32bytes(in...), ifrt.F32, shape, e.tiled(e.devs, int64(n), 1))
	res, err := exe.Execute(e.ctx, []ifrt.Array{x}, nil)
	if err != nil {
		t.Fatalf("Execute: %v", err)
	}
	if len(res.Outputs) != 2 {
		t.Fatalf("Execute gave %d outputs, want 2", len(res.Outputs))
	}
	if want := e.tiled(e.devs, int64(n), 1); !ifrt.EquivalentShardings(res.Outputs[0].Sharding(), want, shape) {
		t.Errorf("output 0 has %v, want %v", res.Outputs[0].Sharding(), want)
	}
	doubled := f32s(e.get(res.Outputs[0]))
	sums := make([]float32, 4)
	for i, v := range in {
		if doubled[i] != 2*v {
			t.Fatalf("output 0 element %d = %v, want %v", i, doubled[i], 2*v)
		}
		sums[i%4] += v
	}
	if got := f32s(e.get(res.Outputs[1])); fmt.Sprint(got) != fmt.Sprint(sums) {
		t.Errorf("column sums = %v, want %v", got, sums)
	}
	if !res.Outputs[1].Sharding().IsFullyReplicated() {
		t.Errorf("output 1 has %v, want replicated", res.Outputs[1].Sharding())
	}
}

// testExecuteShardedDonation donates an argument sharded over several devices:
// every shard is consumed, the array reads as deleted, and excluding the
// argument keeps it.
func testExecuteShardedDonation(t *testing.T, h Harness) {
	if !h.Programs {
		t.Skip("the backend does not compile StableHLO text")
	}
	e, exe := h.programEnv(t, 2, func(n int) string { return shardedProgramDonating(n, true) })
	n := len(e.devs)
	if got := exe.DonatableParameters(); fmt.Sprint(got) != "[0]" {
		t.Errorf("DonatableParameters() = %v, want [0]", got)
	}
	shape := ifrt.Shape{int64(2 * n), 4}
	in := make([]float32, shape.NumElements())
	for i := range in {
		in[i] = float32(i)
	}
	put := func() ifrt.Array { return e.put(f32bytes(in...), ifrt.F32, shape, e.tiled(e.devs, int64(n), 1)) }

	kept := put()
	_, err := exe.Execute(e.ctx, []ifrt.Array{kept}, &ifrt.ExecuteOptions{NonDonatableInputs: []int{0}})
	if err != nil {
		t.Fatalf("Execute with the argument excluded from donation: %v", err)
	}
	if kept.IsDeleted() {
		t.Fatalf("an argument excluded from donation was deleted")
	}
	if got := f32s(e.get(kept)); fmt.Sprint(got) != fmt.Sprint(in) {
		t.Errorf("the kept argument reads %v, want %v", got, in)
	}

	x := put()
	res, err := exe.Execute(e.ctx, []ifrt.Array{x}, nil)
	if err != nil {
		t.Fatalf("Execute with donation: %v", err)
	}
	if !x.IsDeleted() {
		t.Errorf("the donated sharded argument is still alive")
	}
	if _, err := e.client.DisassembleArray(e.ctx, x, ifrt.AlwaysCopy); !errors.Is(err, ifrt.ErrArrayDeleted) {
		t.Errorf("DisassembleArray of the donated argument: got %v, want ErrArrayDeleted", err)
	}
	doubled := f32s(e.get(res.Outputs[0]))
	for i, v := range in {
		if doubled[i] != 2*v {
			t.Fatalf("output 0 element %d = %v, want %v", i, doubled[i], 2*v)
		}
	}
	_, err = exe.Execute(e.ctx, []ifrt.Array{x}, nil)
	wantCode(t, "Execute with a donated argument", err, ifrt.ErrArrayDeleted)
}

// testExecuteDonationToOtherType donates an argument whose buffer an output
// of another type and the same size takes over: XLA pairs donors with
// outputs by size, so the argument is consumed.
func testExecuteDonationToOtherType(t *testing.T, h Harness) {
	e, exe := h.oneDeviceProgram(t, 1, castDonor)
	x := e.put(f32bytes(1, 2, 3, 4), ifrt.F32, ifrt.Shape{4}, e.single(0))
	res, err := exe.Execute(e.ctx, []ifrt.Array{x}, nil)
	if err != nil {
		t.Fatalf("Execute: %v", err)
	}
	want := make([]byte, 16)
	for i := range 4 {
		binary.LittleEndian.PutUint32(want[4*i:], uint32(i+1))
	}
	if got := e.get(res.Outputs[0]); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("convert gives bytes %v, want %v", got, want)
	}
	if !x.IsDeleted() || fmt.Sprint(res.Donated) != "[0]" {
		t.Errorf("after the run the donated argument is deleted: %v, Donated = %v; want true and [0]", x.IsDeleted(), res.Donated)
	}
}
