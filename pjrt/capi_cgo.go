//go:build cgo

package pjrt

// The cgo side of the package. Each *capi method fills PJRT argument structs
// in Go and calls the generated wrappers of calls_cgo_gen.go, one cgo crossing
// per PJRT call; shim.c holds the few things Go cannot do (dlopen, the named
// value union, the OnReady callback, plugin deleters, the Shardings
// extension). The rest of the package is portable Go that holds C pointers as
// unsafe.Pointer.
//
// Argument structs live on the Go stack and go to C by value (see
// calls_gen.h), so their pointer fields follow the rules for cgo arguments:
// they may point at Go memory without Go pointers in it (host data, dims,
// serialized protos) for the length of the call. Go memory that holds Go
// pointers (a PJRT_Program) has those pinned (runtime.Pinner), and memory the
// plugin uses after the call returns is C memory or pinned until it is done.

/*
#cgo CFLAGS: -O2 -std=gnu11
#cgo LDFLAGS: -ldl
#include <stdlib.h>
#include "shim.h"
*/
import "C"

import (
	"fmt"
	"runtime"
	"unsafe"

	"github.com/openpathways/pathways/ifrt"
)

const haveCgo = true

// capi is a loaded plugin's function table.
type capi struct {
	api        *C.PJRT_Api
	structSize uintptr
	major      int
	minor      int
	has        [numFns]bool // the table reaches the slot and it is set
}

func loadAPI(path string) (*capi, error) {
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	var cerr *C.char
	api := C.pjrt_load(cpath, &cerr)
	if api == nil {
		msg := "unknown error"
		if cerr != nil {
			msg = C.GoString(cerr)
			C.free(unsafe.Pointer(cerr))
		}
		return nil, fmt.Errorf("pjrt: loading %s: %s", path, msg)
	}
	a := &capi{
		api:        api,
		structSize: uintptr(api.struct_size),
		major:      int(api.pjrt_api_version.major_version),
		minor:      int(api.pjrt_api_version.minor_version),
	}
	for fn, off := range fnOffsets {
		a.has[fn] = off+unsafe.Sizeof(uintptr(0)) <= a.structSize &&
			*(*unsafe.Pointer)(unsafe.Add(unsafe.Pointer(api), off)) != nil
	}
	return a, nil
}

// err converts a PJRT_Error* into an *Error with the plugin's code and message,
// and destroys it; nil stays nil. A code the plugin cannot say, or says is OK,
// becomes UNKNOWN.
func (a *capi) err(e *C.PJRT_Error) error {
	if e == nil {
		return nil
	}
	code := ifrt.Unknown
	var gc C.PJRT_Error_GetCode_Args
	gc.error = e
	if ge := a.callErrorGetCode(&gc); ge != nil {
		a.destroyError(ge)
	} else if gc.code != C.PJRT_Error_Code_OK {
		code = ifrt.Code(gc.code)
	}
	var m C.PJRT_Error_Message_Args
	m.error = e
	a.callErrorMessage(&m)
	msg := gostr(m.message, m.message_size)
	a.destroyError(e)
	return &Error{Code: code, Msg: msg}
}

func (a *capi) destroyError(e *C.PJRT_Error) {
	var d C.PJRT_Error_Destroy_Args
	d.error = e
	a.callErrorDestroy(&d)
}

func gostr(p *C.char, n C.size_t) string {
	if p == nil || n == 0 {
		return ""
	}
	return C.GoStringN(p, C.int(n))
}

// ptrList copies the n C pointers of the C array p.
func ptrList(p unsafe.Pointer, n C.size_t) []unsafe.Pointer {
	if p == nil || n == 0 {
		return nil
	}
	return append([]unsafe.Pointer(nil), unsafe.Slice((*unsafe.Pointer)(p), int(n))...)
}

// base returns a pointer to the first element of s, or nil for an empty s.
func base[T any](s []T) unsafe.Pointer {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Pointer(unsafe.SliceData(s))
}

// pinned is base(s), with s's memory pinned by pin.
func pinned[T any](pin *runtime.Pinner, s []T) unsafe.Pointer {
	p := base(s)
	if p != nil {
		pin.Pin(p)
	}
	return p
}

// program returns a PJRT_Program for code in format; the memory it points at is
// pinned with pin.
func program(pin *runtime.Pinner, code []byte, format string) *C.PJRT_Program {
	p := new(C.PJRT_Program)
	p.struct_size = C.PJRT_Program_STRUCT_SIZE
	p.code = (*C.char)(pinned(pin, code))
	p.code_size = C.size_t(len(code))
	p.format = (*C.char)(pinned(pin, unsafe.Slice(unsafe.StringData(format), len(format))))
	p.format_size = C.size_t(len(format))
	return p
}

func namedValues(nvs *C.PJRT_NamedValue, n C.size_t) map[string]any {
	out := make(map[string]any, int(n))
	for i := C.size_t(0); i < n; i++ {
		v := C.pjrt_nv_get(nvs, i)
		name := gostr(v.name, v.name_size)
		switch v._type {
		case C.PJRT_NamedValue_kString:
			out[name] = gostr(v.str, v.value_size)
		case C.PJRT_NamedValue_kInt64:
			out[name] = int64(v.i64)
		case C.PJRT_NamedValue_kInt64List:
			list := make([]int64, int(v.value_size))
			if v.value_size > 0 && v.i64s != nil {
				copy(list, unsafe.Slice((*int64)(unsafe.Pointer(v.i64s)), int(v.value_size)))
			}
			out[name] = list
		case C.PJRT_NamedValue_kFloat:
			out[name] = float32(v.f)
		case C.PJRT_NamedValue_kBool:
			out[name] = bool(v.b)
		}
	}
	return out
}

// cNamedValues builds opts as a C PJRT_NamedValue array; free releases it.
func cNamedValues(opts []namedValue) (nvs *C.PJRT_NamedValue, free func()) {
	var allocs []unsafe.Pointer
	free = func() {
		for _, p := range allocs {
			C.free(p)
		}
	}
	if len(opts) == 0 {
		return nil, free
	}
	nvs = (*C.PJRT_NamedValue)(C.calloc(C.size_t(len(opts)), C.size_t(unsafe.Sizeof(C.PJRT_NamedValue{}))))
	allocs = append(allocs, unsafe.Pointer(nvs))
	for i, o := range opts {
		name := C.CString(o.name)
		allocs = append(allocs, unsafe.Pointer(name))
		var str *C.char
		var list *C.int64_t
		var i64 C.int64_t
		var f C.float
		var b C.bool
		size := C.size_t(1)
		switch o.kind {
		case nvString:
			str = C.CString(o.s)
			allocs = append(allocs, unsafe.Pointer(str))
			size = C.size_t(len(o.s))
		case nvInt64:
			i64 = C.int64_t(o.i)
		case nvInt64List:
			size = C.size_t(len(o.list))
			if len(o.list) > 0 {
				list = (*C.int64_t)(C.malloc(C.size_t(8 * len(o.list))))
				allocs = append(allocs, unsafe.Pointer(list))
				copy(unsafe.Slice((*int64)(unsafe.Pointer(list)), len(o.list)), o.list)
			}
		case nvFloat:
			f = C.float(o.f)
		case nvBool:
			b = C.bool(o.b)
		}
		C.pjrt_nv_set(nvs, C.size_t(i), name, C.size_t(len(o.name)), C.int(o.kind), str, i64, list, f, b, size)
	}
	return nvs, free
}

// serialized copies out bytes a plugin serialized, then releases them with the
// plugin's deleter.
func serialized(bytes *C.char, n C.size_t, owner unsafe.Pointer, deleter *[0]byte) []byte {
	out := C.GoBytes(unsafe.Pointer(bytes), C.int(n))
	C.pjrt_call_deleter(deleter, owner)
	return out
}

func (a *capi) initialize() error {
	var args C.PJRT_Plugin_Initialize_Args
	return a.callPluginInitialize(&args)
}

func (a *capi) attributes() (map[string]any, error) {
	var args C.PJRT_Plugin_Attributes_Args
	if err := a.callPluginAttributes(&args); err != nil {
		return nil, err
	}
	return namedValues(args.attributes, args.num_attributes), nil
}

// extensionTypes walks the plugin's extension chain (at most 64 links).
func (a *capi) extensionTypes() []int {
	var out []int
	for e := a.api.extension_start; e != nil && len(out) < 64; e = e.next {
		out = append(out, int(e._type))
	}
	return out
}

// cNoop is an empty C call, for measuring the cgo crossing.
func cNoop() { C.pjrt_noop() }

// signalSnapshot returns handler address and flags for signals 1..n.
func signalSnapshot(n int) (handlers []uintptr, flags []int) {
	h := make([]C.uintptr_t, n)
	f := make([]C.int, n)
	C.pjrt_signal_snapshot(&h[0], &f[0], C.int(n))
	handlers = make([]uintptr, n)
	flags = make([]int, n)
	for i := range h {
		handlers[i] = uintptr(h[i])
		flags[i] = int(f[i])
	}
	return handlers, flags
}
