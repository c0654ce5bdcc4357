//go:build cgo

package pjrt

/*
#include <stdlib.h>
#include "ffi.h"
*/
import "C"

import (
	"fmt"
	"unsafe"

	"github.com/openpathways/pathways/ifrt"
)

func (a *capi) registerFFI(slot int, target, platform string) error {
	ct, cp := C.CString(target), C.CString(platform)
	defer C.free(unsafe.Pointer(ct))
	defer C.free(unsafe.Pointer(cp))
	var absent C.int
	e := C.pjrt_ffi_register(a.api, C.int(slot), ct, C.size_t(len(target)), cp, C.size_t(len(platform)), &absent)
	if absent != 0 {
		return ifrt.Errorf(ifrt.Unimplemented, "the plugin cannot register FFI handlers (no FFI extension with register_handler)")
	}
	return a.err(e)
}

// Attribute and argument kinds of the XLA FFI call frame.
const (
	ffiBuffer     = 1
	ffiAttrScalar = 3
)

// pjrtGoFFICall runs the handler of slot on a call frame, on a plugin
// thread (ffi.c's trampolines).
//
//export pjrtGoFFICall
func pjrtGoFFICall(slot C.int, frame *C.pjrt_ffi_call_frame) (r C.pjrt_ffi_result) {
	defer func() {
		if p := recover(); p != nil {
			r = ffiFailure(ifrt.Internal, fmt.Errorf("pjrt: FFI handler panicked: %v", p))
		}
	}()
	h := ffiHandler(int(slot))
	if h == nil {
		return ffiFailure(ifrt.Internal, fmt.Errorf("pjrt: no FFI handler in slot %d", slot))
	}
	call, err := decodeFFICall(frame)
	if err != nil {
		return ffiFailure(ifrt.InvalidArgument, err)
	}
	if err := h(call); err != nil {
		return ffiFailure(ifrt.CodeOf(err), err)
	}
	return r
}

func ffiFailure(code ifrt.Code, err error) C.pjrt_ffi_result {
	if code == ifrt.OK {
		code = ifrt.Unknown
	}
	return C.pjrt_ffi_result{code: C.int(code), msg: C.CString(err.Error())}
}

func decodeFFICall(f *C.pjrt_ffi_call_frame) (*FFICall, error) {
	args, err := ffiBuffers(&f.args)
	if err != nil {
		return nil, fmt.Errorf("pjrt: FFI argument %w", err)
	}
	rets, err := ffiBuffers(&f.rets)
	if err != nil {
		return nil, fmt.Errorf("pjrt: FFI result %w", err)
	}
	return &FFICall{Args: args, Results: rets, Attrs: ffiAttrs(&f.attrs)}, nil
}

func ffiBuffers(l *C.pjrt_ffi_list) ([]FFIBuffer, error) {
	n := int(l.size)
	if n == 0 {
		return nil, nil
	}
	types := unsafe.Slice(l.types, n)
	items := unsafe.Slice(l.items, n)
	out := make([]FFIBuffer, n)
	for i := range out {
		if types[i] != ffiBuffer {
			return nil, fmt.Errorf("%d is of kind %d, not a buffer", i, types[i])
		}
		b := (*C.pjrt_ffi_buffer)(items[i])
		dt, ok := ifrt.DTypeFromPrimitiveType(int32(b.dtype))
		if !ok {
			return nil, fmt.Errorf("%d has unknown element type %d", i, b.dtype)
		}
		var dims []int64
		if b.rank > 0 {
			dims = append(dims, unsafe.Slice((*int64)(unsafe.Pointer(b.dims)), int(b.rank))...)
		}
		size, err := ifrt.Shape(dims).ByteSize(dt)
		if err != nil || dt.HostByteSize() == 0 {
			return nil, fmt.Errorf("%d (%v%v) has no byte size", i, dt, dims)
		}
		var data []byte
		if size > 0 {
			data = unsafe.Slice((*byte)(b.data), size)
		}
		out[i] = FFIBuffer{DType: dt, Dims: dims, Data: data}
	}
	return out, nil
}

func ffiAttrs(a *C.pjrt_ffi_attrs) map[string]int64 {
	n := int(a.size)
	out := make(map[string]int64, n)
	if n == 0 {
		return out
	}
	types := unsafe.Slice(a.types, n)
	names := unsafe.Slice(a.names, n)
	values := unsafe.Slice(a.attrs, n)
	for i := range n {
		if types[i] != ffiAttrScalar {
			continue
		}
		s := (*C.pjrt_ffi_scalar)(values[i])
		v, ok := ffiScalar(int32(s.dtype), s.value)
		if !ok {
			continue
		}
		out[C.GoStringN(names[i].ptr, C.int(names[i].len))] = v
	}
	return out
}

// ffiScalar reads an integer or boolean scalar attribute.
func ffiScalar(dtype int32, p unsafe.Pointer) (int64, bool) {
	dt, _ := ifrt.DTypeFromPrimitiveType(dtype)
	switch dt {
	case ifrt.PRED, ifrt.U8:
		return int64(*(*uint8)(p)), true
	case ifrt.S8:
		return int64(*(*int8)(p)), true
	case ifrt.S16:
		return int64(*(*int16)(p)), true
	case ifrt.U16:
		return int64(*(*uint16)(p)), true
	case ifrt.S32:
		return int64(*(*int32)(p)), true
	case ifrt.U32:
		return int64(*(*uint32)(p)), true
	case ifrt.S64, ifrt.U64:
		return *(*int64)(p), true
	}
	return 0, false
}
