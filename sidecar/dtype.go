package sidecar

import "github.com/openpathways/pathways/ifrt"

// numpyNames are the dtypes a sidecar exchanges, by numpy's (and ml_dtypes')
// names; "string" is numpy's StringDType.
var numpyNames = map[ifrt.DType]string{
	ifrt.PRED: "bool",
	ifrt.S8:   "int8", ifrt.S16: "int16", ifrt.S32: "int32", ifrt.S64: "int64",
	ifrt.U8: "uint8", ifrt.U16: "uint16", ifrt.U32: "uint32", ifrt.U64: "uint64",
	ifrt.F16: "float16", ifrt.BF16: "bfloat16", ifrt.F32: "float32", ifrt.F64: "float64",
	ifrt.C64: "complex64", ifrt.C128: "complex128",
	// A STRING output's file holds a serialized StringArrayContents.
	ifrt.STRING: "string",
}

func numpyName(d ifrt.DType) (string, error) {
	n, ok := numpyNames[d]
	if !ok {
		return "", ifrt.Errorf(ifrt.Unimplemented, "sidecar: arrays of %v cannot go to colocated Python", d)
	}
	return n, nil
}
