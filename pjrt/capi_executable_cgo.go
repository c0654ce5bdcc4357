//go:build cgo

package pjrt

// Executables: metadata, serialization and execution.

/*
#include <stdlib.h>
#include "shim.h"
*/
import "C"

import (
	"unsafe"

	"github.com/openpathways/pathways/ifrt"
)

func (a *capi) getExecutable(le unsafe.Pointer) (unsafe.Pointer, error) {
	var args C.PJRT_LoadedExecutable_GetExecutable_Args
	args.loaded_executable = (*C.PJRT_LoadedExecutable)(le)
	if err := a.callLoadedExecutableGetExecutable(&args); err != nil {
		return nil, err
	}
	return unsafe.Pointer(args.executable), nil
}

func (a *capi) destroyLoaded(le unsafe.Pointer) error {
	var args C.PJRT_LoadedExecutable_Destroy_Args
	args.executable = (*C.PJRT_LoadedExecutable)(le)
	return a.callLoadedExecutableDestroy(&args)
}

func (a *capi) destroyExecutable(e unsafe.Pointer) error {
	var args C.PJRT_Executable_Destroy_Args
	args.executable = (*C.PJRT_Executable)(e)
	return a.callExecutableDestroy(&args)
}

func (a *capi) loadedDevices(le unsafe.Pointer) ([]unsafe.Pointer, error) {
	var args C.PJRT_LoadedExecutable_AddressableDevices_Args
	args.executable = (*C.PJRT_LoadedExecutable)(le)
	if err := a.callLoadedExecutableAddressableDevices(&args); err != nil {
		return nil, err
	}
	return ptrList(unsafe.Pointer(args.addressable_devices), args.num_addressable_devices), nil
}

// logicalIDs returns (replica, partition) per addressable device.
func (a *capi) logicalIDs(le unsafe.Pointer) ([][2]int, error) {
	var args C.PJRT_LoadedExecutable_AddressableDeviceLogicalIds_Args
	args.executable = (*C.PJRT_LoadedExecutable)(le)
	if err := a.callLoadedExecutableAddressableDeviceLogicalIDs(&args); err != nil {
		return nil, err
	}
	n := int(args.num_addressable_device_logical_ids)
	out := make([][2]int, n)
	if n > 0 {
		for i, id := range unsafe.Slice(args.addressable_device_logical_ids, n) {
			out[i] = [2]int{int(id.replica), int(id.partition)}
		}
	}
	return out, nil
}

func (a *capi) executableName(e unsafe.Pointer) (string, error) {
	var args C.PJRT_Executable_Name_Args
	args.executable = (*C.PJRT_Executable)(e)
	if err := a.callExecutableName(&args); err != nil {
		return "", err
	}
	return gostr(args.executable_name, args.executable_name_size), nil
}

func (a *capi) executableFingerprint(e unsafe.Pointer) (string, error) {
	var args C.PJRT_Executable_Fingerprint_Args
	args.executable = (*C.PJRT_Executable)(e)
	if err := a.callExecutableFingerprint(&args); err != nil {
		return "", err
	}
	return gostr(args.executable_fingerprint, args.executable_fingerprint_size), nil
}

// executableCount: which 0 replicas, 1 partitions, 2 outputs, 3 code size.
func (a *capi) executableCount(e unsafe.Pointer, which int) (int64, error) {
	x := (*C.PJRT_Executable)(e)
	switch which {
	case 0:
		var args C.PJRT_Executable_NumReplicas_Args
		args.executable = x
		err := a.callExecutableNumReplicas(&args)
		return int64(args.num_replicas), err
	case 1:
		var args C.PJRT_Executable_NumPartitions_Args
		args.executable = x
		err := a.callExecutableNumPartitions(&args)
		return int64(args.num_partitions), err
	case 2:
		var args C.PJRT_Executable_NumOutputs_Args
		args.executable = x
		err := a.callExecutableNumOutputs(&args)
		return int64(args.num_outputs), err
	default:
		var args C.PJRT_Executable_SizeOfGeneratedCodeInBytes_Args
		args.executable = x
		err := a.callExecutableSizeOfGeneratedCodeInBytes(&args)
		return int64(args.size_in_bytes), err
	}
}

func (a *capi) outputTypes(e unsafe.Pointer) ([]BufferType, error) {
	var args C.PJRT_Executable_OutputElementTypes_Args
	args.executable = (*C.PJRT_Executable)(e)
	if err := a.callExecutableOutputElementTypes(&args); err != nil {
		return nil, err
	}
	n := int(args.num_output_types)
	out := make([]BufferType, n)
	if n > 0 {
		for i, t := range unsafe.Slice(args.output_types, n) {
			out[i] = BufferType(t)
		}
	}
	return out, nil
}

func (a *capi) outputDims(e unsafe.Pointer, numOutputs int) ([][]int64, error) {
	var args C.PJRT_Executable_OutputDimensions_Args
	args.executable = (*C.PJRT_Executable)(e)
	args.num_outputs = C.size_t(numOutputs)
	if err := a.callExecutableOutputDimensions(&args); err != nil {
		return nil, err
	}
	out := make([][]int64, numOutputs)
	if numOutputs == 0 || args.dim_sizes == nil {
		return out, nil
	}
	ranks := unsafe.Slice(args.dim_sizes, numOutputs)
	total := 0
	for _, n := range ranks {
		total += int(n)
	}
	var dims []int64
	if total > 0 {
		dims = unsafe.Slice((*int64)(unsafe.Pointer(args.dims)), total)
	}
	off := 0
	for i, n := range ranks {
		out[i] = append([]int64{}, dims[off:off+int(n)]...)
		off += int(n)
	}
	return out, nil
}

// memoryKinds: which 0 outputs, 1 parameters; n is the count expected.
func (a *capi) memoryKinds(e unsafe.Pointer, which, n int) ([]string, error) {
	var kinds **C.char
	var sizes *C.size_t
	if which == 0 {
		var args C.PJRT_Executable_OutputMemoryKinds_Args
		args.executable = (*C.PJRT_Executable)(e)
		args.num_outputs = C.size_t(n)
		if err := a.callExecutableOutputMemoryKinds(&args); err != nil {
			return nil, err
		}
		kinds, sizes = args.memory_kinds, args.memory_kind_sizes
	} else {
		var args C.PJRT_Executable_ParameterMemoryKinds_Args
		args.executable = (*C.PJRT_Executable)(e)
		args.num_parameters = C.size_t(n)
		if err := a.callExecutableParameterMemoryKinds(&args); err != nil {
			return nil, err
		}
		kinds, sizes = args.memory_kinds, args.memory_kind_sizes
	}
	out := make([]string, n)
	if n > 0 && kinds != nil {
		ks, ss := unsafe.Slice(kinds, n), unsafe.Slice(sizes, n)
		for i := range out {
			out[i] = gostr(ks[i], ss[i])
		}
	}
	return out, nil
}

func (a *capi) costAnalysis(e unsafe.Pointer) (map[string]any, error) {
	var args C.PJRT_Executable_GetCostAnalysis_Args
	args.executable = (*C.PJRT_Executable)(e)
	if err := a.callExecutableGetCostAnalysis(&args); err != nil {
		return nil, err
	}
	return namedValues(args.properties, args.num_properties), nil
}

// compiledMemoryStats reads the plugin's figures. The arguments are zeroed,
// so a plugin older than a field leaves it 0.
func (a *capi) compiledMemoryStats(e unsafe.Pointer) (ifrt.CompiledMemoryStats, error) {
	var args C.PJRT_Executable_GetCompiledMemoryStats_Args
	args.executable = (*C.PJRT_Executable)(e)
	if err := a.callExecutableGetCompiledMemoryStats(&args); err != nil {
		return ifrt.CompiledMemoryStats{}, err
	}
	return ifrt.CompiledMemoryStats{
		GeneratedCodeSizeInBytes:     int64(args.generated_code_size_in_bytes),
		ArgumentSizeInBytes:          int64(args.argument_size_in_bytes),
		OutputSizeInBytes:            int64(args.output_size_in_bytes),
		AliasSizeInBytes:             int64(args.alias_size_in_bytes),
		TempSizeInBytes:              int64(args.temp_size_in_bytes),
		PeakMemoryInBytes:            int64(args.peak_memory_in_bytes),
		HostGeneratedCodeSizeInBytes: int64(args.host_generated_code_size_in_bytes),
		HostArgumentSizeInBytes:      int64(args.host_argument_size_in_bytes),
		HostOutputSizeInBytes:        int64(args.host_output_size_in_bytes),
		HostAliasSizeInBytes:         int64(args.host_alias_size_in_bytes),
		HostTempSizeInBytes:          int64(args.host_temp_size_in_bytes),
	}, nil
}

// optimizedProgram asks for the program's size, then for the program.
func (a *capi) optimizedProgram(e unsafe.Pointer) (format string, code []byte, err error) {
	// The PJRT_Program is C memory: the plugin writes its format pointer.
	p := (*C.PJRT_Program)(C.calloc(1, C.size_t(unsafe.Sizeof(C.PJRT_Program{}))))
	defer C.free(unsafe.Pointer(p))
	p.struct_size = C.PJRT_Program_STRUCT_SIZE
	var args C.PJRT_Executable_OptimizedProgram_Args
	args.executable = (*C.PJRT_Executable)(e)
	args.program = p
	if err := a.callExecutableOptimizedProgram(&args); err != nil {
		return "", nil, err
	}
	if p.code_size == 0 {
		return gostr(p.format, p.format_size), nil, nil
	}
	size := p.code_size
	*p = C.PJRT_Program{struct_size: C.PJRT_Program_STRUCT_SIZE, code: (*C.char)(C.malloc(size)), code_size: size}
	defer C.free(unsafe.Pointer(p.code))
	if err := a.callExecutableOptimizedProgram(&args); err != nil {
		return "", nil, err
	}
	return gostr(p.format, p.format_size), C.GoBytes(unsafe.Pointer(p.code), C.int(p.code_size)), nil
}

func (a *capi) serialize(e unsafe.Pointer) ([]byte, error) {
	var args C.PJRT_Executable_Serialize_Args
	args.executable = (*C.PJRT_Executable)(e)
	if err := a.callExecutableSerialize(&args); err != nil {
		return nil, err
	}
	return serialized(args.serialized_bytes, args.serialized_bytes_size,
		unsafe.Pointer(args.serialized_executable), args.serialized_executable_deleter), nil
}

func (a *capi) compileOptions(e unsafe.Pointer) ([]byte, error) {
	var args C.PJRT_Executable_GetCompileOptions_Args
	args.executable = (*C.PJRT_Executable)(e)
	if err := a.callExecutableGetCompileOptions(&args); err != nil {
		return nil, err
	}
	return serialized(args.serialized_bytes, args.serialized_bytes_size,
		unsafe.Pointer(args.serialized_compile_options), args.serialized_compile_options_deleter), nil
}

func (a *capi) deviceAssignment(le unsafe.Pointer) ([]byte, error) {
	var args C.PJRT_LoadedExecutable_GetDeviceAssignment_Args
	args.executable = (*C.PJRT_LoadedExecutable)(le)
	if err := a.callLoadedExecutableGetDeviceAssignment(&args); err != nil {
		return nil, err
	}
	return serialized(args.serialized_bytes, args.serialized_bytes_size,
		unsafe.Pointer(args.serialized_device_assignment), args.serialized_device_assignment_deleter), nil
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
	// One C block, in words: the options, the per-device row pointers into the
	// flat argument and output arrays, those arrays, the events and the
	// non-donatable indices. The plugin reads and writes it during the call;
	// it holds no Go pointer.
	const word = int(unsafe.Sizeof(uintptr(0)))
	optWords := (int(unsafe.Sizeof(C.PJRT_ExecuteOptions{})) + word - 1) / word
	argRowsAt := optWords
	outRowsAt := argRowsAt + numDevices
	argsAt := outRowsAt + numDevices
	outsAt := argsAt + len(args)
	eventsAt := outsAt + numDevices*numOutputs
	indicesAt := eventsAt + numDevices
	words := indicesAt + len(nonDonatable)
	mem := C.calloc(C.size_t(words), C.size_t(word))
	defer C.free(mem)
	at := func(i int) unsafe.Pointer { return unsafe.Add(mem, i*word) }
	slots := func(i, n int) []unsafe.Pointer { return unsafe.Slice((*unsafe.Pointer)(at(i)), n) }

	copy(slots(argsAt, len(args)), args)
	argRows, outRows := slots(argRowsAt, numDevices), slots(outRowsAt, numDevices)
	for d := range numDevices {
		argRows[d] = at(argsAt + d*numArgs)
		outRows[d] = at(outsAt + d*numOutputs)
	}
	opts := (*C.PJRT_ExecuteOptions)(mem)
	opts.struct_size = C.PJRT_ExecuteOptions_STRUCT_SIZE
	opts.launch_id = C.int(launchID)
	if len(nonDonatable) > 0 {
		copy(unsafe.Slice((*int64)(at(indicesAt)), len(nonDonatable)), nonDonatable)
		opts.non_donatable_input_indices = (*C.int64_t)(at(indicesAt))
		opts.num_non_donatable_input_indices = C.size_t(len(nonDonatable))
	}

	var ea C.PJRT_LoadedExecutable_Execute_Args
	ea.executable = (*C.PJRT_LoadedExecutable)(le)
	ea.options = opts
	ea.argument_lists = (***C.PJRT_Buffer)(at(argRowsAt))
	ea.num_devices = C.size_t(numDevices)
	ea.num_args = C.size_t(numArgs)
	ea.output_lists = (***C.PJRT_Buffer)(at(outRowsAt))
	if wantEvents && numDevices > 0 {
		ea.device_complete_events = (**C.PJRT_Event)(at(eventsAt))
	}
	ea.execute_device = (*C.PJRT_Device)(device)
	if err := a.callLoadedExecutableExecute(&ea); err != nil {
		return nil, nil, err
	}
	outs = append([]unsafe.Pointer(nil), slots(outsAt, numDevices*numOutputs)...)
	if wantEvents {
		events = append([]unsafe.Pointer(nil), slots(eventsAt, numDevices)...)
	}
	return outs, events, nil
}
