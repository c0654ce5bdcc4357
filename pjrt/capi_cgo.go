//go:build cgo

package pjrt

// This file is the only place that talks to C. Every method on *capi is one cgo
// crossing into shim.c (sometimes fusing several PJRT calls); the rest of the
// package is portable Go that holds C pointers as unsafe.Pointer.

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
	"runtime/cgo"
	"unsafe"
)

const haveCgo = true

// capi is a loaded plugin's function table.
type capi struct {
	api        *C.PJRT_Api
	structSize uintptr
	major      int
	minor      int
	has        []bool // by apiFn
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
	var size C.size_t
	var major, minor C.int
	C.pjrt_api_header(api, &size, &major, &minor)
	a := &capi{api: api, structSize: uintptr(size), major: int(major), minor: int(minor)}
	a.has = make([]bool, numFns)
	for i := range a.has {
		a.has[i] = bool(C.pjrt_has(api, C.int(i)))
	}
	return a, nil
}

// fnTable describes the shim's slot list, for tests.
func fnTable() (names []string, minors []int, offsets []uintptr) {
	n := int(C.pjrt_fn_count())
	for i := 0; i < n; i++ {
		names = append(names, C.GoString(C.pjrt_fn_name(C.int(i))))
		minors = append(minors, int(C.pjrt_fn_min_minor(C.int(i))))
		offsets = append(offsets, uintptr(C.pjrt_fn_offset(C.int(i))))
	}
	return names, minors, offsets
}

// err converts a PJRT_Error* into *Error (destroying it); nil stays nil.
func (a *capi) err(e *C.PJRT_Error) error {
	if e == nil {
		return nil
	}
	info := C.pjrt_take_error(a.api, e)
	msg := ""
	if info.msg != nil {
		msg = C.GoStringN(info.msg, C.int(info.msg_len))
		C.free(unsafe.Pointer(info.msg))
	}
	return &Error{Code: Code(info.code), Msg: msg}
}

func gostr(p *C.char, n C.size_t) string {
	if p == nil || n == 0 {
		return ""
	}
	return C.GoStringN(p, C.int(n))
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

func ptrList(p unsafe.Pointer, n C.size_t) []unsafe.Pointer {
	if n == 0 || p == nil {
		return nil
	}
	src := unsafe.Slice((*unsafe.Pointer)(p), int(n))
	return append([]unsafe.Pointer(nil), src...)
}

func (a *capi) initialize() error {
	return a.err(C.pjrt_plugin_initialize(a.api))
}

func (a *capi) attributes() (map[string]any, error) {
	r := C.pjrt_plugin_attributes(a.api)
	if r.err != nil {
		return nil, a.err(r.err)
	}
	return namedValues(r.nvs, r.n), nil
}

func (a *capi) extensionTypes() []int {
	var buf [64]C.int
	n := int(C.pjrt_extension_types(a.api, &buf[0], C.int(len(buf))))
	out := make([]int, n)
	for i := range out {
		out[i] = int(buf[i])
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

// createClient calls Client_Create with opts as named values.
func (a *capi) createClient(opts []namedValue) (unsafe.Pointer, error) {
	nvs, free := cNamedValues(opts)
	defer free()
	r := C.pjrt_client_create(a.api, nvs, C.size_t(len(opts)))
	if r.err != nil {
		return nil, a.err(r.err)
	}
	return r.ptr, nil
}

func (a *capi) destroyClient(c unsafe.Pointer) error {
	return a.err(C.pjrt_client_destroy(a.api, (*C.PJRT_Client)(c)))
}

func (a *capi) clientStrings(c unsafe.Pointer) (name, version string, process int, err error) {
	cl := (*C.PJRT_Client)(c)
	r := C.pjrt_client_platform_name(a.api, cl)
	if r.err != nil {
		return "", "", 0, a.err(r.err)
	}
	name = gostr(r.s, r.n)
	r = C.pjrt_client_platform_version(a.api, cl)
	if r.err != nil {
		return "", "", 0, a.err(r.err)
	}
	version = gostr(r.s, r.n)
	pi := C.pjrt_client_process_index(a.api, cl)
	if pi.err != nil {
		return "", "", 0, a.err(pi.err)
	}
	return name, version, int(pi.v), nil
}

// clientList: which 0 = devices, 1 = addressable devices, 2 = addressable memories.
func (a *capi) clientList(c unsafe.Pointer, which int) ([]unsafe.Pointer, error) {
	r := C.pjrt_client_list(a.api, (*C.PJRT_Client)(c), C.int(which))
	if r.err != nil {
		return nil, a.err(r.err)
	}
	return ptrList(unsafe.Pointer(r.ptrs), r.n), nil
}

func (a *capi) defaultDeviceAssignment(c unsafe.Pointer, replicas, partitions int) ([]int, error) {
	n := replicas * partitions
	out := (*C.int)(C.calloc(C.size_t(n), C.size_t(unsafe.Sizeof(C.int(0)))))
	defer C.free(unsafe.Pointer(out))
	if err := a.err(C.pjrt_client_default_device_assignment(a.api, (*C.PJRT_Client)(c), C.int(replicas), C.int(partitions), out, C.size_t(n))); err != nil {
		return nil, err
	}
	ids := make([]int, n)
	for i, v := range unsafe.Slice(out, n) {
		ids[i] = int(v)
	}
	return ids, nil
}

func (a *capi) deviceInfo(d unsafe.Pointer) (deviceInfo, error) {
	return a.toDeviceInfo(C.pjrt_device_info_get(a.api, (*C.PJRT_Device)(d)))
}

func (a *capi) toDeviceInfo(r C.pjrt_device_info) (deviceInfo, error) {
	if r.err != nil {
		return deviceInfo{}, a.err(r.err)
	}
	return deviceInfo{
		id:              int(r.id),
		processIndex:    int(r.process_index),
		localHardwareID: int(r.local_hardware_id),
		kind:            gostr(r.kind, r.kind_size),
		debug:           gostr(r.debug, r.debug_size),
		str:             gostr(r.str, r.str_size),
		attrs:           namedValues(r.attrs, r.num_attrs),
		addressable:     bool(r.addressable),
	}, nil
}

func (a *capi) createTopology(name string, opts []namedValue) (unsafe.Pointer, error) {
	nvs, free := cNamedValues(opts)
	defer free()
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	r := C.pjrt_topology_create(a.api, cname, C.size_t(len(name)), nvs, C.size_t(len(opts)))
	if r.err != nil {
		return nil, a.err(r.err)
	}
	return r.ptr, nil
}

func (a *capi) destroyTopology(t unsafe.Pointer) error {
	return a.err(C.pjrt_topology_destroy(a.api, (*C.PJRT_TopologyDescription)(t)))
}

func (a *capi) topologyInfo(t unsafe.Pointer) (name, version string, devices []deviceInfo, err error) {
	tp := (*C.PJRT_TopologyDescription)(t)
	r := C.pjrt_topology_platform_name(a.api, tp)
	if r.err != nil {
		return "", "", nil, a.err(r.err)
	}
	name = gostr(r.s, r.n)
	r = C.pjrt_topology_platform_version(a.api, tp)
	if r.err != nil {
		return "", "", nil, a.err(r.err)
	}
	version = gostr(r.s, r.n)
	d := C.pjrt_topology_descriptions(a.api, tp)
	if d.err != nil {
		return "", "", nil, a.err(d.err)
	}
	for _, p := range ptrList(unsafe.Pointer(d.ptrs), d.n) {
		info, err := a.toDeviceInfo(C.pjrt_description_info_get(a.api, (*C.PJRT_DeviceDescription)(p)))
		if err != nil {
			return "", "", nil, err
		}
		devices = append(devices, info)
	}
	return name, version, devices, nil
}

// compileForTopology runs PJRT_Compile; client may be nil. The result is a
// PJRT_Executable (not loaded).
func (a *capi) compileForTopology(t, client unsafe.Pointer, program []byte, format string, opts []byte) (unsafe.Pointer, error) {
	cformat := C.CString(format)
	defer C.free(unsafe.Pointer(cformat))
	r := C.pjrt_compile_for_topology(a.api, (*C.PJRT_TopologyDescription)(t), (*C.PJRT_Client)(client),
		unsafe.Pointer(unsafe.SliceData(program)), C.size_t(len(program)),
		cformat, C.size_t(len(format)),
		unsafe.Pointer(unsafe.SliceData(opts)), C.size_t(len(opts)))
	runtime.KeepAlive(program)
	runtime.KeepAlive(opts)
	if r.err != nil {
		return nil, a.err(r.err)
	}
	return r.ptr, nil
}

func (a *capi) deviceMemories(d unsafe.Pointer) (mems []unsafe.Pointer, def unsafe.Pointer, err error) {
	r := C.pjrt_device_memories(a.api, (*C.PJRT_Device)(d))
	if r.err != nil {
		return nil, nil, a.err(r.err)
	}
	mems = ptrList(unsafe.Pointer(r.ptrs), r.n)
	dr := C.pjrt_device_default_memory(a.api, (*C.PJRT_Device)(d))
	if dr.err != nil {
		return mems, nil, a.err(dr.err)
	}
	return mems, dr.ptr, nil
}

func (a *capi) memoryInfo(m unsafe.Pointer) (memoryInfo, error) {
	r := C.pjrt_memory_info_get(a.api, (*C.PJRT_Memory)(m))
	if r.err != nil {
		return memoryInfo{}, a.err(r.err)
	}
	info := memoryInfo{
		id:      int(r.id),
		kindID:  -1,
		kind:    gostr(r.kind, r.kind_size),
		debug:   gostr(r.debug, r.debug_size),
		str:     gostr(r.str, r.str_size),
		devices: ptrList(unsafe.Pointer(r.devices), r.num_devices),
	}
	if a.has[fnMemoryKindID] {
		k := C.pjrt_memory_kind_id(a.api, (*C.PJRT_Memory)(m))
		if k.err == nil {
			info.kindID = int(k.v)
		} else {
			_ = a.err(k.err)
		}
	}
	return info, nil
}

func (a *capi) compile(c unsafe.Pointer, program []byte, format string, opts []byte) (unsafe.Pointer, error) {
	cformat := C.CString(format)
	defer C.free(unsafe.Pointer(cformat))
	r := C.pjrt_client_compile(a.api, (*C.PJRT_Client)(c),
		unsafe.Pointer(unsafe.SliceData(program)), C.size_t(len(program)),
		cformat, C.size_t(len(format)),
		unsafe.Pointer(unsafe.SliceData(opts)), C.size_t(len(opts)))
	runtime.KeepAlive(program)
	runtime.KeepAlive(opts)
	if r.err != nil {
		return nil, a.err(r.err)
	}
	return r.ptr, nil
}

func (a *capi) deserializeAndLoad(c unsafe.Pointer, data []byte) (unsafe.Pointer, error) {
	r := C.pjrt_deserialize_and_load(a.api, (*C.PJRT_Client)(c), unsafe.Pointer(unsafe.SliceData(data)), C.size_t(len(data)))
	runtime.KeepAlive(data)
	if r.err != nil {
		return nil, a.err(r.err)
	}
	return r.ptr, nil
}

func (a *capi) getExecutable(le unsafe.Pointer) (unsafe.Pointer, error) {
	r := C.pjrt_loaded_get_executable(a.api, (*C.PJRT_LoadedExecutable)(le))
	if r.err != nil {
		return nil, a.err(r.err)
	}
	return r.ptr, nil
}

func (a *capi) destroyLoaded(le unsafe.Pointer) error {
	return a.err(C.pjrt_loaded_destroy(a.api, (*C.PJRT_LoadedExecutable)(le)))
}

func (a *capi) destroyExecutable(e unsafe.Pointer) error {
	return a.err(C.pjrt_executable_destroy(a.api, (*C.PJRT_Executable)(e)))
}

func (a *capi) loadedDevices(le unsafe.Pointer) ([]unsafe.Pointer, error) {
	r := C.pjrt_loaded_addressable_devices(a.api, (*C.PJRT_LoadedExecutable)(le))
	if r.err != nil {
		return nil, a.err(r.err)
	}
	return ptrList(unsafe.Pointer(r.ptrs), r.n), nil
}

// logicalIDs returns (replica, partition) per addressable device.
func (a *capi) logicalIDs(le unsafe.Pointer) ([][2]int, error) {
	r := C.pjrt_loaded_logical_ids(a.api, (*C.PJRT_LoadedExecutable)(le))
	if r.err != nil {
		return nil, a.err(r.err)
	}
	out := make([][2]int, int(r.n))
	if r.n > 0 {
		ids := unsafe.Slice((*C.PJRT_LogicalDeviceIds)(unsafe.Pointer(r.ptrs)), int(r.n))
		for i, id := range ids {
			out[i] = [2]int{int(id.replica), int(id.partition)}
		}
	}
	return out, nil
}

func (a *capi) executableName(e unsafe.Pointer) (string, error) {
	r := C.pjrt_executable_name(a.api, (*C.PJRT_Executable)(e))
	if r.err != nil {
		return "", a.err(r.err)
	}
	return gostr(r.s, r.n), nil
}

func (a *capi) executableFingerprint(e unsafe.Pointer) (string, error) {
	r := C.pjrt_executable_fingerprint(a.api, (*C.PJRT_Executable)(e))
	if r.err != nil {
		return "", a.err(r.err)
	}
	return gostr(r.s, r.n), nil
}

// executableCount: which 0 replicas, 1 partitions, 2 outputs, 3 code size.
func (a *capi) executableCount(e unsafe.Pointer, which int) (int64, error) {
	r := C.pjrt_executable_count(a.api, (*C.PJRT_Executable)(e), C.int(which))
	if r.err != nil {
		return 0, a.err(r.err)
	}
	return int64(r.v), nil
}

func (a *capi) outputTypes(e unsafe.Pointer) ([]BufferType, error) {
	r := C.pjrt_executable_output_types(a.api, (*C.PJRT_Executable)(e))
	if r.err != nil {
		return nil, a.err(r.err)
	}
	out := make([]BufferType, int(r.n))
	if r.n > 0 {
		for i, t := range unsafe.Slice(r.types, int(r.n)) {
			out[i] = BufferType(t)
		}
	}
	return out, nil
}

func (a *capi) outputDims(e unsafe.Pointer, numOutputs int) ([][]int64, error) {
	r := C.pjrt_executable_output_dims(a.api, (*C.PJRT_Executable)(e), C.size_t(numOutputs))
	if r.err != nil {
		return nil, a.err(r.err)
	}
	out := make([][]int64, numOutputs)
	if numOutputs == 0 || r.ranks == nil {
		return out, nil
	}
	ranks := unsafe.Slice(r.ranks, numOutputs)
	total := 0
	for _, n := range ranks {
		total += int(n)
	}
	var dims []int64
	if total > 0 {
		dims = unsafe.Slice((*int64)(unsafe.Pointer(r.dims)), total)
	}
	off := 0
	for i, n := range ranks {
		out[i] = append([]int64{}, dims[off:off+int(n)]...)
		off += int(n)
	}
	return out, nil
}

// memoryKinds: which 0 outputs, 1 parameters.
func (a *capi) memoryKinds(e unsafe.Pointer, which, n int) ([]string, error) {
	r := C.pjrt_executable_memory_kinds(a.api, (*C.PJRT_Executable)(e), C.int(which), C.size_t(n))
	if r.err != nil {
		return nil, a.err(r.err)
	}
	out := make([]string, n)
	if n > 0 && r.kinds != nil {
		kinds := unsafe.Slice(r.kinds, n)
		sizes := unsafe.Slice(r.sizes, n)
		for i := range out {
			out[i] = gostr(kinds[i], sizes[i])
		}
	}
	return out, nil
}

func (a *capi) takeBytes(r C.pjrt_bytes_result) ([]byte, error) {
	if r.err != nil {
		return nil, a.err(r.err)
	}
	out := C.GoBytes(unsafe.Pointer(r.bytes), C.int(r.n))
	C.pjrt_free_serialized(r)
	return out, nil
}

func (a *capi) costAnalysis(e unsafe.Pointer) (map[string]any, error) {
	r := C.pjrt_executable_cost_analysis(a.api, (*C.PJRT_Executable)(e))
	if r.err != nil {
		return nil, a.err(r.err)
	}
	return namedValues(r.nvs, r.n), nil
}

// optimizedProgram asks for the program's size, then for the program.
func (a *capi) optimizedProgram(e unsafe.Pointer) (format string, code []byte, err error) {
	r := C.pjrt_executable_optimized_program(a.api, (*C.PJRT_Executable)(e), nil, 0)
	if r.err != nil {
		return "", nil, a.err(r.err)
	}
	if r.code_size == 0 {
		return gostr(r.format, r.format_size), nil, nil
	}
	buf := (*C.char)(C.malloc(r.code_size))
	defer C.free(unsafe.Pointer(buf))
	r = C.pjrt_executable_optimized_program(a.api, (*C.PJRT_Executable)(e), buf, r.code_size)
	if r.err != nil {
		return "", nil, a.err(r.err)
	}
	return gostr(r.format, r.format_size), C.GoBytes(unsafe.Pointer(buf), C.int(r.code_size)), nil
}

func (a *capi) serialize(e unsafe.Pointer) ([]byte, error) {
	return a.takeBytes(C.pjrt_executable_serialize(a.api, (*C.PJRT_Executable)(e)))
}

func (a *capi) compileOptions(e unsafe.Pointer) ([]byte, error) {
	return a.takeBytes(C.pjrt_executable_compile_options(a.api, (*C.PJRT_Executable)(e)))
}

func (a *capi) deviceAssignment(le unsafe.Pointer) ([]byte, error) {
	return a.takeBytes(C.pjrt_loaded_device_assignment(a.api, (*C.PJRT_LoadedExecutable)(le)))
}

// shardings returns serialized xla.OpSharding protos; ok is false when the
// plugin has no shardings extension. which: 0 outputs, 1 parameters.
func (a *capi) shardings(e unsafe.Pointer, which int) (out [][]byte, ok bool, err error) {
	r := C.pjrt_executable_shardings(a.api, (*C.PJRT_Executable)(e), C.int(which))
	if r.err != nil {
		return nil, true, a.err(r.err)
	}
	if r.n == C.SIZE_MAX {
		return nil, false, nil
	}
	n := int(r.n)
	out = make([][]byte, n)
	if n > 0 {
		items := unsafe.Slice(r.items, n)
		sizes := unsafe.Slice(r.sizes, n)
		for i := range out {
			out[i] = C.GoBytes(unsafe.Pointer(items[i]), C.int(sizes[i]))
		}
	}
	return out, true, nil
}

// execute runs le. args holds numDevices rows of numArgs buffers; the results
// are numDevices rows of numOutputs buffers and (if wantEvents) one event per
// device.
func (a *capi) execute(le unsafe.Pointer, args []unsafe.Pointer, numDevices, numArgs, numOutputs int,
	device unsafe.Pointer, nonDonatable []int64, launchID int, wantEvents bool) (outs, events []unsafe.Pointer, err error) {
	// The argument, output and event arrays are C memory: the plugin reads and
	// writes them during the call, and the argument array holds C pointers only.
	words := len(args) + numDevices*numOutputs + numDevices + len(nonDonatable)
	if words == 0 {
		words = 1
	}
	mem := C.calloc(C.size_t(words), 8)
	defer C.free(mem)
	all := unsafe.Slice((*unsafe.Pointer)(mem), words)
	cargs := all[:len(args)]
	copy(cargs, args)
	couts := all[len(args) : len(args)+numDevices*numOutputs]
	cevents := all[len(args)+numDevices*numOutputs : len(args)+numDevices*numOutputs+numDevices]
	var nd *C.int64_t
	if len(nonDonatable) > 0 {
		ndMem := all[len(args)+numDevices*numOutputs+numDevices:]
		nds := unsafe.Slice((*int64)(unsafe.Pointer(&ndMem[0])), len(nonDonatable))
		copy(nds, nonDonatable)
		nd = (*C.int64_t)(unsafe.Pointer(&ndMem[0]))
	}
	var evPtr **C.PJRT_Event
	if wantEvents && numDevices > 0 {
		evPtr = (**C.PJRT_Event)(unsafe.Pointer(&cevents[0]))
	}
	var argPtr, outPtr **C.PJRT_Buffer
	if len(cargs) > 0 {
		argPtr = (**C.PJRT_Buffer)(unsafe.Pointer(&cargs[0]))
	}
	if len(couts) > 0 {
		outPtr = (**C.PJRT_Buffer)(unsafe.Pointer(&couts[0]))
	}
	e := C.pjrt_execute(a.api, (*C.PJRT_LoadedExecutable)(le), argPtr, C.size_t(numDevices), C.size_t(numArgs),
		outPtr, C.size_t(numOutputs), evPtr, (*C.PJRT_Device)(device), nd, C.size_t(len(nonDonatable)), C.int(launchID))
	if e != nil {
		return nil, nil, a.err(e)
	}
	outs = append([]unsafe.Pointer(nil), couts...)
	if wantEvents {
		events = append([]unsafe.Pointer(nil), cevents...)
	}
	return outs, events, nil
}

// bufferFromHost: data must stay valid as the semantics require (the caller
// pins Go memory for semantics other than ImmutableOnlyDuringCall).
func (a *capi) bufferFromHost(c unsafe.Pointer, data unsafe.Pointer, t BufferType, dims, strides []int64,
	sem HostBufferSemantics, dev, mem unsafe.Pointer, keepDone bool) (buf, done unsafe.Pointer, err error) {
	var dimsPtr, stridesPtr *C.int64_t
	if len(dims) > 0 {
		dimsPtr = (*C.int64_t)(unsafe.Pointer(unsafe.SliceData(dims)))
	}
	if len(strides) > 0 {
		stridesPtr = (*C.int64_t)(unsafe.Pointer(unsafe.SliceData(strides)))
	}
	r := C.pjrt_buffer_from_host(a.api, (*C.PJRT_Client)(c), data, C.int(t), dimsPtr, C.size_t(len(dims)),
		stridesPtr, C.size_t(len(strides)), C.int(sem), (*C.PJRT_Device)(dev), (*C.PJRT_Memory)(mem), C.bool(!keepDone))
	runtime.KeepAlive(dims)
	runtime.KeepAlive(strides)
	if r.err != nil {
		return nil, nil, a.err(r.err)
	}
	return unsafe.Pointer(r.buffer), unsafe.Pointer(r.done), nil
}

func (a *capi) destroyBuffer(b unsafe.Pointer) error {
	return a.err(C.pjrt_buffer_destroy(a.api, (*C.PJRT_Buffer)(b)))
}

func (a *capi) deleteBuffer(b unsafe.Pointer) error {
	return a.err(C.pjrt_buffer_delete(a.api, (*C.PJRT_Buffer)(b)))
}

func (a *capi) bufferInfo(b unsafe.Pointer) (bufferInfo, error) {
	r := C.pjrt_buffer_info_get(a.api, (*C.PJRT_Buffer)(b), C.bool(true))
	if r.err != nil {
		return bufferInfo{}, a.err(r.err)
	}
	info := bufferInfo{
		typ:          BufferType(r._type),
		dims:         make([]int64, int(r.num_dims)),
		onDeviceSize: int64(r.on_device_size),
		device:       unsafe.Pointer(r.device),
		memory:       unsafe.Pointer(r.memory),
	}
	if r.num_dims > 0 {
		copy(info.dims, unsafe.Slice((*int64)(unsafe.Pointer(r.dims)), int(r.num_dims)))
	}
	return info, nil
}

func (a *capi) bufferIsDeleted(b unsafe.Pointer) (bool, error) {
	r := C.pjrt_buffer_is_deleted(a.api, (*C.PJRT_Buffer)(b))
	if r.err != nil {
		return false, a.err(r.err)
	}
	return r.v != 0, nil
}

func (a *capi) bufferReadyEvent(b unsafe.Pointer) (unsafe.Pointer, error) {
	r := C.pjrt_buffer_ready_event(a.api, (*C.PJRT_Buffer)(b))
	if r.err != nil {
		return nil, a.err(r.err)
	}
	return r.ptr, nil
}

func (a *capi) bufferHostSize(b unsafe.Pointer) (int64, error) {
	r := C.pjrt_buffer_host_size(a.api, (*C.PJRT_Buffer)(b))
	if r.err != nil {
		return 0, a.err(r.err)
	}
	return int64(r.v), nil
}

// bufferToHost copies into dst. With wait the copy is complete on return and
// event is nil; otherwise dst must stay valid (pinned) until event fires.
func (a *capi) bufferToHost(b unsafe.Pointer, dst unsafe.Pointer, n int, wait bool) (event unsafe.Pointer, err error) {
	r := C.pjrt_buffer_to_host(a.api, (*C.PJRT_Buffer)(b), dst, C.size_t(n), C.bool(wait))
	if r.err != nil {
		return nil, a.err(r.err)
	}
	return r.ptr, nil
}

func (a *capi) bufferCopyToDevice(b, dev unsafe.Pointer) (unsafe.Pointer, error) {
	r := C.pjrt_buffer_copy_to_device(a.api, (*C.PJRT_Buffer)(b), (*C.PJRT_Device)(dev))
	if r.err != nil {
		return nil, a.err(r.err)
	}
	return r.ptr, nil
}

func (a *capi) bufferCopyToMemory(b, mem unsafe.Pointer) (unsafe.Pointer, error) {
	r := C.pjrt_buffer_copy_to_memory(a.api, (*C.PJRT_Buffer)(b), (*C.PJRT_Memory)(mem))
	if r.err != nil {
		return nil, a.err(r.err)
	}
	return r.ptr, nil
}

func (a *capi) destroyEvent(e unsafe.Pointer) error {
	return a.err(C.pjrt_event_destroy(a.api, (*C.PJRT_Event)(e)))
}

func (a *capi) awaitEvent(e unsafe.Pointer) error {
	return a.err(C.pjrt_event_await(a.api, (*C.PJRT_Event)(e)))
}

func (a *capi) eventIsReady(e unsafe.Pointer) (bool, error) {
	r := C.pjrt_event_is_ready(a.api, (*C.PJRT_Event)(e))
	if r.err != nil {
		return false, a.err(r.err)
	}
	return r.v != 0, nil
}

// onReady arranges for st.fire to run once e is ready (possibly before onReady
// returns), through pjrtGoEventReady.
func (a *capi) onReady(e unsafe.Pointer, st *eventState) error {
	h := cgo.NewHandle(st)
	if err := a.err(C.pjrt_event_on_ready(a.api, (*C.PJRT_Event)(e), C.uintptr_t(h))); err != nil {
		h.Delete()
		return err
	}
	return nil
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
