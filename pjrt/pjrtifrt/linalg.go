package pjrtifrt

import (
	"context"
	"log/slog"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/internal/stablehlo"
	"github.com/openpathways/pathways/internal/stablehlo/ifrtconv"
	"github.com/openpathways/pathways/pjrt"
)

// JAX lowers jnp.linalg on CPU to custom calls of LAPACK kernels
// (lapack_sgetrf_ffi, ...) that jaxlib registers with its own in-process
// CPU client. A CPU plugin loaded by a worker has none of them, so such a
// program would fail to compile ("No FFI handler registered"). The client
// registers the interpreter's implementations of those targets with a CPU
// plugin instead (its float64 arithmetic, docs/gocpu.md), once per plugin.
func registerLinalg(p *pjrt.Plugin, log *slog.Logger) {
	for _, target := range stablehlo.LinalgTargets() {
		if err := p.RegisterFFIHandler(target, "cpu", linalgHandler(target)); err != nil {
			log.Debug("LAPACK custom call not registered; programs using it will not compile", "target", target, "err", err)
			return
		}
	}
}

// linalgHandler runs target on a call's buffers. JAX gives these calls
// their matrices in column-major order: every operand and result whose
// rank is the largest operand rank (a batch of matrices) has its last two
// dimensions swapped in memory, and the interpreter wants them row-major.
func linalgHandler(target string) pjrt.FFIHandler {
	return func(call *pjrt.FFICall) error {
		rank := 0
		for _, b := range call.Args {
			rank = max(rank, len(b.Dims))
		}
		columnMajor := func(b pjrt.FFIBuffer) bool { return rank >= 2 && len(b.Dims) == rank }
		args := make([]*stablehlo.Tensor, len(call.Args))
		for i, b := range call.Args {
			t, err := tensorType(b)
			if err != nil {
				return err
			}
			data := b.Data
			if columnMajor(b) {
				data = swapMatrixOrder(data, b.Dims, t.Elem.ByteSize(), true)
			}
			if args[i], err = stablehlo.NewTensor(t, data); err != nil {
				return err
			}
		}
		results := make([]stablehlo.TensorType, len(call.Results))
		for i, b := range call.Results {
			t, err := tensorType(b)
			if err != nil {
				return err
			}
			results[i] = t
		}
		out, err := stablehlo.CallLinalg(context.Background(), target, call.Attrs, args, results)
		if err != nil {
			return err
		}
		for i, b := range call.Results {
			data := out[i].Data
			if columnMajor(b) {
				data = swapMatrixOrder(data, b.Dims, results[i].Elem.ByteSize(), false)
			}
			copy(b.Data, data)
		}
		return nil
	}
}

func tensorType(b pjrt.FFIBuffer) (stablehlo.TensorType, error) {
	e, ok := ifrtconv.ElemType(b.DType)
	if !ok {
		return stablehlo.TensorType{}, ifrt.Errorf(ifrt.Unimplemented, "pjrtifrt: LAPACK call on %v elements", b.DType)
	}
	return stablehlo.TensorType{Elem: e, Shape: b.Dims}, nil
}

// swapMatrixOrder copies a batch of matrices of the given dims (the last
// two are rows and columns) from column-major to row-major order, or back
// when toRowMajor is false.
func swapMatrixOrder(data []byte, dims []int64, elem int, toRowMajor bool) []byte {
	rows, cols := int(dims[len(dims)-2]), int(dims[len(dims)-1])
	out := make([]byte, len(data))
	size := rows * cols * elem
	for base := 0; base+size <= len(data); base += size {
		for i := range rows {
			for j := range cols {
				rm, cm := base+(i*cols+j)*elem, base+(j*rows+i)*elem
				if toRowMajor {
					copy(out[rm:rm+elem], data[cm:cm+elem])
				} else {
					copy(out[cm:cm+elem], data[rm:rm+elem])
				}
			}
		}
	}
	return out
}
