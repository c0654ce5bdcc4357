package pjrt_test

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/internal/testenv"
	"github.com/openpathways/pathways/pjrt"
)

// ffiProgram calls a Go handler through XLA's typed FFI with a column-major
// operand, as JAX's LAPACK calls do, and two scalar attributes.
const ffiProgram = `module @ffi {
  func.func public @main(%a: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<i32>) {
    %0:2 = stablehlo.custom_call @TARGET(%a) {backend_config = "", mhlo.backend_config = {scale = 3 : ui8, bias = -2 : i64}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<> : tensor<0xindex>]} : (tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<i32>)
    return %0#0, %0#1 : tensor<2x3xf32>, tensor<i32>
  }
}`

// TestFFIHandler registers Go handlers with each CPU plugin and runs
// programs that call them: the handler sees the call's buffers in the call
// site's layout and its attributes, writes the results, and a handler's
// error fails the execution with its code and message.
func TestFFIHandler(t *testing.T) {
	testenv.ForEachCPUPlugin(t, func(t *testing.T, tp testenv.Plugin) {
		plugin := testPlugin{tp}.load(t)
		var calls atomic.Int32
		var seen atomic.Value
		affine := func(call *pjrt.FFICall) error {
			calls.Add(1)
			in, out := call.Args[0], call.Results[0]
			seen.Store(fmt.Sprintf("%v%v -> %v%v, %v attrs %v, count %v%v", in.DType, in.Dims, out.DType, out.Dims, bytesF32(in.Data), call.Attrs, call.Results[1].DType, call.Results[1].Dims))
			for i := 0; i+4 <= len(in.Data); i += 4 {
				v := math.Float32frombits(binary.LittleEndian.Uint32(in.Data[i:]))
				binary.LittleEndian.PutUint32(out.Data[i:], math.Float32bits(v*float32(call.Attrs["scale"])+float32(call.Attrs["bias"])))
			}
			binary.LittleEndian.PutUint32(call.Results[1].Data, uint32(len(in.Data)/4))
			return nil
		}
		failing := func(*pjrt.FFICall) error {
			return ifrt.Errorf(ifrt.FailedPrecondition, "the matrix is not what it seems")
		}
		prefix := "openpathways_test_" + tp.Name + "_"
		if err := plugin.RegisterFFIHandler(prefix+"affine", "cpu", affine); errors.Is(err, ifrt.ErrUnimplemented) {
			t.Skipf("plugin cannot register FFI handlers: %v", err)
		} else if err != nil {
			t.Fatal(err)
		}
		// A second registration of the same target does nothing.
		if err := plugin.RegisterFFIHandler(prefix+"affine", "cpu", failing); err != nil {
			t.Fatalf("registering again: %v", err)
		}
		if err := plugin.RegisterFFIHandler(prefix+"failing", "cpu", failing); err != nil {
			t.Fatal(err)
		}

		c := testPlugin{tp}.client(t, 1)
		ctx := testContext(t)
		x := mustCompile(t, c, strings.ReplaceAll(ffiProgram, "TARGET", prefix+"affine"), pjrt.CompileOptions{})
		a := upload(t, c, f32Bytes(1, 2, 3, 4, 5, 6), pjrt.F32, []int64{2, 3}, nil)
		outs, events, err := x.Execute(ctx, [][]*pjrt.Buffer{{a}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer closeAll(outs, events)
		if err := events[0].Await(ctx); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]float32{1, 4, 7, 10, 13, 16}, bytesF32(download(t, outs[0][0]))); diff != "" {
			t.Errorf("result (-want +got):\n%s", diff)
		}
		if got := binary.LittleEndian.Uint32(download(t, outs[0][1])); got != 6 {
			t.Errorf("count = %d, want 6", got)
		}
		want := "f32[2 3] -> f32[2 3], [1 4 2 5 3 6] attrs map[bias:-2 scale:3], count s32[]"
		if got, _ := seen.Load().(string); got != want || calls.Load() != 1 {
			t.Errorf("handler saw %q in %d calls, want %q in 1 (a column-major operand)", got, calls.Load(), want)
		}

		bad := mustCompile(t, c, strings.ReplaceAll(ffiProgram, "TARGET", prefix+"failing"), pjrt.CompileOptions{})
		outs2, events2, err := bad.Execute(ctx, [][]*pjrt.Buffer{{a}}, nil)
		if err == nil {
			defer closeAll(outs2, events2)
			err = events2[0].Await(ctx)
		}
		var perr *pjrt.Error
		if !errors.As(err, &perr) || perr.Code != ifrt.FailedPrecondition || !strings.Contains(perr.Msg, "the matrix is not what it seems") {
			t.Errorf("failing handler: %v, want FAILED_PRECONDITION with the handler's message", err)
		}
	})
}

// TestFFIHandlerSlots registers more handlers than one row of ffi.c's
// trampolines and checks that each target runs its own handler.
func TestFFIHandlerSlots(t *testing.T) {
	tp := testenv.LammpsPlugin
	plugin := testPlugin{tp}.load(t)
	const n = 100 // past slot 64: rows 8 to 15 of the trampolines
	prefix := "openpathways_test_slots_"
	for k := range n {
		h := func(call *pjrt.FFICall) error {
			binary.LittleEndian.PutUint32(call.Results[1].Data, uint32(k))
			return nil
		}
		if err := plugin.RegisterFFIHandler(fmt.Sprint(prefix, k), "cpu", h); errors.Is(err, ifrt.ErrUnimplemented) {
			t.Skipf("plugin cannot register FFI handlers: %v", err)
		} else if err != nil {
			t.Fatal(err)
		}
	}
	c := testPlugin{tp}.client(t, 1)
	ctx := testContext(t)
	a := upload(t, c, f32Bytes(1, 2, 3, 4, 5, 6), pjrt.F32, []int64{2, 3}, nil)
	for _, k := range []int{3, 11, 70, n - 1} {
		x := mustCompile(t, c, strings.ReplaceAll(ffiProgram, "TARGET", fmt.Sprint(prefix, k)), pjrt.CompileOptions{})
		outs, events, err := x.Execute(ctx, [][]*pjrt.Buffer{{a}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := events[0].Await(ctx); err != nil {
			t.Fatal(err)
		}
		if got := binary.LittleEndian.Uint32(download(t, outs[0][1])); got != uint32(k) {
			t.Errorf("target %d ran the handler of target %d", k, got)
		}
		closeAll(outs, events)
	}
}
