//go:build cgo

package pjrt

// Clients, devices, memories, topologies and compilation.

/*
#include <stdlib.h>
#include "pjrt_c_api.h"
*/
import "C"

import (
	"runtime"
	"unsafe"
)

// createClient calls Client_Create with opts as named values and, if kv is
// set, the key-value callbacks that reach it.
func (a *capi) createClient(opts []namedValue, kv *kvBridge) (unsafe.Pointer, error) {
	nvs, free := cNamedValues(opts)
	defer free()
	var args C.PJRT_Client_Create_Args
	args.create_options = nvs
	args.num_options = C.size_t(len(opts))
	if kv != nil {
		kvCreateArgs(&args, kv)
	}
	if err := a.callClientCreate(&args); err != nil {
		return nil, err
	}
	return unsafe.Pointer(args.client), nil
}

func (a *capi) destroyClient(c unsafe.Pointer) error {
	var args C.PJRT_Client_Destroy_Args
	args.client = (*C.PJRT_Client)(c)
	return a.callClientDestroy(&args)
}

func (a *capi) clientStrings(c unsafe.Pointer) (name, version string, process int, err error) {
	cl := (*C.PJRT_Client)(c)
	var pn C.PJRT_Client_PlatformName_Args
	pn.client = cl
	if err := a.callClientPlatformName(&pn); err != nil {
		return "", "", 0, err
	}
	var pv C.PJRT_Client_PlatformVersion_Args
	pv.client = cl
	if err := a.callClientPlatformVersion(&pv); err != nil {
		return "", "", 0, err
	}
	var pi C.PJRT_Client_ProcessIndex_Args
	pi.client = cl
	if err := a.callClientProcessIndex(&pi); err != nil {
		return "", "", 0, err
	}
	return gostr(pn.platform_name, pn.platform_name_size), gostr(pv.platform_version, pv.platform_version_size),
		int(pi.process_index), nil
}

// clientList: which 0 = devices, 1 = addressable devices, 2 = addressable memories.
func (a *capi) clientList(c unsafe.Pointer, which int) ([]unsafe.Pointer, error) {
	cl := (*C.PJRT_Client)(c)
	switch which {
	case 0:
		var args C.PJRT_Client_Devices_Args
		args.client = cl
		if err := a.callClientDevices(&args); err != nil {
			return nil, err
		}
		return ptrList(unsafe.Pointer(args.devices), args.num_devices), nil
	case 1:
		var args C.PJRT_Client_AddressableDevices_Args
		args.client = cl
		if err := a.callClientAddressableDevices(&args); err != nil {
			return nil, err
		}
		return ptrList(unsafe.Pointer(args.addressable_devices), args.num_addressable_devices), nil
	default:
		var args C.PJRT_Client_AddressableMemories_Args
		args.client = cl
		if err := a.callClientAddressableMemories(&args); err != nil {
			return nil, err
		}
		return ptrList(unsafe.Pointer(args.addressable_memories), args.num_addressable_memories), nil
	}
}

func (a *capi) defaultDeviceAssignment(c unsafe.Pointer, replicas, partitions int) ([]int, error) {
	n := replicas * partitions
	out := (*C.int)(C.calloc(C.size_t(n), C.size_t(unsafe.Sizeof(C.int(0)))))
	defer C.free(unsafe.Pointer(out))
	var args C.PJRT_Client_DefaultDeviceAssignment_Args
	args.client = (*C.PJRT_Client)(c)
	args.num_replicas = C.int(replicas)
	args.num_partitions = C.int(partitions)
	args.default_assignment_size = C.size_t(n)
	args.default_assignment = out
	if err := a.callClientDefaultDeviceAssignment(&args); err != nil {
		return nil, err
	}
	ids := make([]int, n)
	for i, v := range unsafe.Slice(out, n) {
		ids[i] = int(v)
	}
	return ids, nil
}

// deviceInfo describes an addressable or non-addressable device of a client.
func (a *capi) deviceInfo(d unsafe.Pointer) (deviceInfo, error) {
	dev := (*C.PJRT_Device)(d)
	var gd C.PJRT_Device_GetDescription_Args
	gd.device = dev
	if err := a.callDeviceGetDescription(&gd); err != nil {
		return deviceInfo{}, err
	}
	info, err := a.descriptionInfo(gd.device_description)
	if err != nil {
		return deviceInfo{}, err
	}
	var ia C.PJRT_Device_IsAddressable_Args
	ia.device = dev
	if err := a.callDeviceIsAddressable(&ia); err != nil {
		return deviceInfo{}, err
	}
	info.addressable = bool(ia.is_addressable)
	if info.addressable {
		var lh C.PJRT_Device_LocalHardwareId_Args
		lh.device = dev
		if err := a.callDeviceLocalHardwareID(&lh); err != nil {
			return deviceInfo{}, err
		}
		info.localHardwareID = int(lh.local_hardware_id)
	}
	return info, nil
}

// descriptionInfo reads a device description (not addressable, local hardware
// ID -1).
func (a *capi) descriptionInfo(desc *C.PJRT_DeviceDescription) (deviceInfo, error) {
	info := deviceInfo{localHardwareID: -1}
	var id C.PJRT_DeviceDescription_Id_Args
	id.device_description = desc
	if err := a.callDeviceDescriptionID(&id); err != nil {
		return info, err
	}
	info.id = int(id.id)
	var pi C.PJRT_DeviceDescription_ProcessIndex_Args
	pi.device_description = desc
	if err := a.callDeviceDescriptionProcessIndex(&pi); err != nil {
		return info, err
	}
	info.processIndex = int(pi.process_index)
	var k C.PJRT_DeviceDescription_Kind_Args
	k.device_description = desc
	if err := a.callDeviceDescriptionKind(&k); err != nil {
		return info, err
	}
	info.kind = gostr(k.device_kind, k.device_kind_size)
	var ds C.PJRT_DeviceDescription_DebugString_Args
	ds.device_description = desc
	if err := a.callDeviceDescriptionDebugString(&ds); err != nil {
		return info, err
	}
	info.debug = gostr(ds.debug_string, ds.debug_string_size)
	var ts C.PJRT_DeviceDescription_ToString_Args
	ts.device_description = desc
	if err := a.callDeviceDescriptionToString(&ts); err != nil {
		return info, err
	}
	info.str = gostr(ts.to_string, ts.to_string_size)
	var at C.PJRT_DeviceDescription_Attributes_Args
	at.device_description = desc
	if err := a.callDeviceDescriptionAttributes(&at); err != nil {
		return info, err
	}
	info.attrs = namedValues(at.attributes, at.num_attributes)
	return info, nil
}

func (a *capi) deviceMemories(d unsafe.Pointer) (mems []unsafe.Pointer, def unsafe.Pointer, err error) {
	var am C.PJRT_Device_AddressableMemories_Args
	am.device = (*C.PJRT_Device)(d)
	if err := a.callDeviceAddressableMemories(&am); err != nil {
		return nil, nil, err
	}
	mems = ptrList(unsafe.Pointer(am.memories), am.num_memories)
	var dm C.PJRT_Device_DefaultMemory_Args
	dm.device = (*C.PJRT_Device)(d)
	if err := a.callDeviceDefaultMemory(&dm); err != nil {
		return mems, nil, err
	}
	return mems, unsafe.Pointer(dm.memory), nil
}

func (a *capi) memoryInfo(m unsafe.Pointer) (memoryInfo, error) {
	mem := (*C.PJRT_Memory)(m)
	info := memoryInfo{kindID: -1}
	var id C.PJRT_Memory_Id_Args
	id.memory = mem
	if err := a.callMemoryID(&id); err != nil {
		return memoryInfo{}, err
	}
	info.id = int(id.id)
	var k C.PJRT_Memory_Kind_Args
	k.memory = mem
	if err := a.callMemoryKind(&k); err != nil {
		return memoryInfo{}, err
	}
	info.kind = gostr(k.kind, k.kind_size)
	var ds C.PJRT_Memory_DebugString_Args
	ds.memory = mem
	if err := a.callMemoryDebugString(&ds); err != nil {
		return memoryInfo{}, err
	}
	info.debug = gostr(ds.debug_string, ds.debug_string_size)
	var ts C.PJRT_Memory_ToString_Args
	ts.memory = mem
	if err := a.callMemoryToString(&ts); err != nil {
		return memoryInfo{}, err
	}
	info.str = gostr(ts.to_string, ts.to_string_size)
	var ab C.PJRT_Memory_AddressableByDevices_Args
	ab.memory = mem
	if err := a.callMemoryAddressableByDevices(&ab); err != nil {
		return memoryInfo{}, err
	}
	info.devices = ptrList(unsafe.Pointer(ab.devices), ab.num_devices)
	// The kind ID is optional (0.48): without it, or on error, it stays -1.
	var ki C.PJRT_Memory_Kind_Id_Args
	ki.memory = mem
	if a.callMemoryKindID(&ki) == nil {
		info.kindID = int(ki.kind_id)
	}
	return info, nil
}

func (a *capi) createTopology(name string, opts []namedValue) (unsafe.Pointer, error) {
	nvs, free := cNamedValues(opts)
	defer free()
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	var args C.PJRT_TopologyDescription_Create_Args
	args.topology_name = cname
	args.topology_name_size = C.size_t(len(name))
	args.create_options = nvs
	args.num_options = C.size_t(len(opts))
	if err := a.callTopologyDescriptionCreate(&args); err != nil {
		return nil, err
	}
	return unsafe.Pointer(args.topology), nil
}

func (a *capi) destroyTopology(t unsafe.Pointer) error {
	var args C.PJRT_TopologyDescription_Destroy_Args
	args.topology = (*C.PJRT_TopologyDescription)(t)
	return a.callTopologyDescriptionDestroy(&args)
}

func (a *capi) topologyInfo(t unsafe.Pointer) (name, version string, devices []deviceInfo, err error) {
	tp := (*C.PJRT_TopologyDescription)(t)
	var pn C.PJRT_TopologyDescription_PlatformName_Args
	pn.topology = tp
	if err := a.callTopologyDescriptionPlatformName(&pn); err != nil {
		return "", "", nil, err
	}
	var pv C.PJRT_TopologyDescription_PlatformVersion_Args
	pv.topology = tp
	if err := a.callTopologyDescriptionPlatformVersion(&pv); err != nil {
		return "", "", nil, err
	}
	var dd C.PJRT_TopologyDescription_GetDeviceDescriptions_Args
	dd.topology = tp
	if err := a.callTopologyDescriptionGetDeviceDescriptions(&dd); err != nil {
		return "", "", nil, err
	}
	if dd.num_descriptions > 0 {
		for _, desc := range unsafe.Slice(dd.descriptions, int(dd.num_descriptions)) {
			info, err := a.descriptionInfo(desc)
			if err != nil {
				return "", "", nil, err
			}
			devices = append(devices, info)
		}
	}
	return gostr(pn.platform_name, pn.platform_name_size), gostr(pv.platform_version, pv.platform_version_size), devices, nil
}

// compileForTopology runs PJRT_Compile; client may be nil. The result is a
// PJRT_Executable (not loaded).
func (a *capi) compileForTopology(t, client unsafe.Pointer, code []byte, format string, opts []byte) (unsafe.Pointer, error) {
	var pin runtime.Pinner
	defer pin.Unpin()
	var args C.PJRT_Compile_Args
	args.topology = (*C.PJRT_TopologyDescription)(t)
	args.program = program(&pin, code, format)
	args.compile_options = (*C.char)(base(opts))
	args.compile_options_size = C.size_t(len(opts))
	args.client = (*C.PJRT_Client)(client)
	err := a.callCompile(&args)
	runtime.KeepAlive(opts)
	if err != nil {
		return nil, err
	}
	return unsafe.Pointer(args.executable), nil
}

func (a *capi) compile(c unsafe.Pointer, code []byte, format string, opts []byte) (unsafe.Pointer, error) {
	var pin runtime.Pinner
	defer pin.Unpin()
	var args C.PJRT_Client_Compile_Args
	args.client = (*C.PJRT_Client)(c)
	args.program = program(&pin, code, format)
	args.compile_options = (*C.char)(base(opts))
	args.compile_options_size = C.size_t(len(opts))
	err := a.callClientCompile(&args)
	runtime.KeepAlive(opts)
	if err != nil {
		return nil, err
	}
	return unsafe.Pointer(args.executable), nil
}

func (a *capi) deserializeAndLoad(c unsafe.Pointer, data []byte) (unsafe.Pointer, error) {
	var args C.PJRT_Executable_DeserializeAndLoad_Args
	args.client = (*C.PJRT_Client)(c)
	args.serialized_executable = (*C.char)(base(data))
	args.serialized_executable_size = C.size_t(len(data))
	err := a.callExecutableDeserializeAndLoad(&args)
	runtime.KeepAlive(data)
	if err != nil {
		return nil, err
	}
	return unsafe.Pointer(args.loaded_executable), nil
}
