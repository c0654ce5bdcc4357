package pjrtifrt

import (
	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/pjrt"
)

// bufferTypes maps ifrt element types to PJRT_Buffer_Type. The numberings
// differ (ifrt follows xla.PrimitiveType, PJRT has its own enum).
var bufferTypes = map[ifrt.DType]pjrt.BufferType{
	ifrt.PRED: pjrt.PRED, ifrt.S2: pjrt.S2, ifrt.S4: pjrt.S4, ifrt.S8: pjrt.S8, ifrt.S16: pjrt.S16,
	ifrt.S32: pjrt.S32, ifrt.S64: pjrt.S64, ifrt.U2: pjrt.U2, ifrt.U4: pjrt.U4, ifrt.U8: pjrt.U8,
	ifrt.U16: pjrt.U16, ifrt.U32: pjrt.U32, ifrt.U64: pjrt.U64, ifrt.F16: pjrt.F16, ifrt.BF16: pjrt.BF16,
	ifrt.F32: pjrt.F32, ifrt.F64: pjrt.F64, ifrt.C64: pjrt.C64, ifrt.C128: pjrt.C128,
	ifrt.F8E5M2: pjrt.F8E5M2, ifrt.F8E4M3FN: pjrt.F8E4M3FN, ifrt.F8E4M3B11FNUZ: pjrt.F8E4M3B11FNUZ,
	ifrt.F8E5M2FNUZ: pjrt.F8E5M2FNUZ, ifrt.F8E4M3FNUZ: pjrt.F8E4M3FNUZ, ifrt.F8E4M3: pjrt.F8E4M3,
	ifrt.F8E3M4: pjrt.F8E3M4, ifrt.F4E2M1FN: pjrt.F4E2M1FN, ifrt.F8E8M0FNU: pjrt.F8E8M0FNU,
	ifrt.TOKEN: pjrt.Token,
}

var dtypes = func() map[pjrt.BufferType]ifrt.DType {
	m := make(map[pjrt.BufferType]ifrt.DType, len(bufferTypes))
	for d, t := range bufferTypes {
		m[t] = d
	}
	return m
}()

// BufferType returns the PJRT element type of d; ok is false for STRING and
// invalid types.
func BufferType(d ifrt.DType) (t pjrt.BufferType, ok bool) {
	t, ok = bufferTypes[d]
	return t, ok
}

// DType returns the ifrt element type of t; ok is false for PJRT types ifrt
// does not have (S1, U1, F6E2M3FN, F6E3M2FN).
func DType(t pjrt.BufferType) (d ifrt.DType, ok bool) {
	d, ok = dtypes[t]
	return d, ok
}
