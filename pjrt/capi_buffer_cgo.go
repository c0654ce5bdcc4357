//go:build cgo

package pjrt

// Buffers and events.

/*
#include <stdlib.h>
#include "shim.h"
*/
import "C"

import (
	"runtime"
	"runtime/cgo"
	"unsafe"
)

// bufferFromHost: data must stay valid as the semantics require (the caller
// pins Go memory for semantics other than ImmutableOnlyDuringCall). Unless
// keepDone, the done-with-host-buffer event is destroyed at once and done is
// nil.
func (a *capi) bufferFromHost(c unsafe.Pointer, data unsafe.Pointer, t BufferType, dims, strides []int64,
	sem HostBufferSemantics, dev, mem unsafe.Pointer, keepDone bool) (buf, done unsafe.Pointer, err error) {
	var args C.PJRT_Client_BufferFromHostBuffer_Args
	args.client = (*C.PJRT_Client)(c)
	args.data = data
	args._type = C.PJRT_Buffer_Type(t)
	args.dims = (*C.int64_t)(base(dims))
	args.num_dims = C.size_t(len(dims))
	args.byte_strides = (*C.int64_t)(base(strides))
	args.num_byte_strides = C.size_t(len(strides))
	args.host_buffer_semantics = C.PJRT_HostBufferSemantics(sem)
	args.device = (*C.PJRT_Device)(dev)
	args.memory = (*C.PJRT_Memory)(mem)
	err = a.callClientBufferFromHostBuffer(&args)
	runtime.KeepAlive(dims)
	runtime.KeepAlive(strides)
	if err != nil {
		return nil, nil, err
	}
	done = unsafe.Pointer(args.done_with_host_buffer)
	if !keepDone && done != nil {
		_ = a.destroyEvent(done)
		done = nil
	}
	return unsafe.Pointer(args.buffer), done, nil
}

func (a *capi) destroyBuffer(b unsafe.Pointer) error {
	var args C.PJRT_Buffer_Destroy_Args
	args.buffer = (*C.PJRT_Buffer)(b)
	return a.callBufferDestroy(&args)
}

func (a *capi) deleteBuffer(b unsafe.Pointer) error {
	var args C.PJRT_Buffer_Delete_Args
	args.buffer = (*C.PJRT_Buffer)(b)
	return a.callBufferDelete(&args)
}

// bufferInfo reads a buffer's type, shape, device, memory (nil when the plugin
// cannot say) and size.
func (a *capi) bufferInfo(b unsafe.Pointer) (bufferInfo, error) {
	buf := (*C.PJRT_Buffer)(b)
	var et C.PJRT_Buffer_ElementType_Args
	et.buffer = buf
	if err := a.callBufferElementType(&et); err != nil {
		return bufferInfo{}, err
	}
	var dm C.PJRT_Buffer_Dimensions_Args
	dm.buffer = buf
	if err := a.callBufferDimensions(&dm); err != nil {
		return bufferInfo{}, err
	}
	var dv C.PJRT_Buffer_Device_Args
	dv.buffer = buf
	if err := a.callBufferDevice(&dv); err != nil {
		return bufferInfo{}, err
	}
	var mm C.PJRT_Buffer_Memory_Args
	mm.buffer = buf
	if a.callBufferMemory(&mm) != nil {
		mm.memory = nil
	}
	var sz C.PJRT_Buffer_OnDeviceSizeInBytes_Args
	sz.buffer = buf
	if err := a.callBufferOnDeviceSizeInBytes(&sz); err != nil {
		return bufferInfo{}, err
	}
	info := bufferInfo{
		typ:          BufferType(et._type),
		dims:         make([]int64, int(dm.num_dims)),
		onDeviceSize: int64(sz.on_device_size_in_bytes),
		device:       unsafe.Pointer(dv.device),
		memory:       unsafe.Pointer(mm.memory),
	}
	if dm.num_dims > 0 {
		copy(info.dims, unsafe.Slice((*int64)(unsafe.Pointer(dm.dims)), int(dm.num_dims)))
	}
	return info, nil
}

func (a *capi) bufferIsDeleted(b unsafe.Pointer) (bool, error) {
	var args C.PJRT_Buffer_IsDeleted_Args
	args.buffer = (*C.PJRT_Buffer)(b)
	err := a.callBufferIsDeleted(&args)
	return bool(args.is_deleted), err
}

func (a *capi) bufferReadyEvent(b unsafe.Pointer) (unsafe.Pointer, error) {
	var args C.PJRT_Buffer_ReadyEvent_Args
	args.buffer = (*C.PJRT_Buffer)(b)
	if err := a.callBufferReadyEvent(&args); err != nil {
		return nil, err
	}
	return unsafe.Pointer(args.event), nil
}

// bufferHostSize asks the plugin for the size of the host copy.
func (a *capi) bufferHostSize(b unsafe.Pointer) (int64, error) {
	var args C.PJRT_Buffer_ToHostBuffer_Args
	args.src = (*C.PJRT_Buffer)(b)
	err := a.callBufferToHostBuffer(&args)
	return int64(args.dst_size), err
}

// bufferToHost copies into dst. With wait the copy is complete on return and
// event is nil (dst is pinned here while the plugin may write it); otherwise
// the caller keeps dst pinned until event fires.
func (a *capi) bufferToHost(b unsafe.Pointer, dst unsafe.Pointer, n int, wait bool) (event unsafe.Pointer, err error) {
	var pin runtime.Pinner
	defer pin.Unpin()
	if dst != nil {
		pin.Pin(dst)
	}
	var args C.PJRT_Buffer_ToHostBuffer_Args
	args.src = (*C.PJRT_Buffer)(b)
	args.dst = dst
	args.dst_size = C.size_t(n)
	if err := a.callBufferToHostBuffer(&args); err != nil {
		return nil, err
	}
	event = unsafe.Pointer(args.event)
	if !wait || event == nil {
		return event, nil
	}
	err = a.awaitEvent(event)
	_ = a.destroyEvent(event)
	return nil, err
}

func (a *capi) bufferCopyToDevice(b, dev unsafe.Pointer) (unsafe.Pointer, error) {
	var args C.PJRT_Buffer_CopyToDevice_Args
	args.buffer = (*C.PJRT_Buffer)(b)
	args.dst_device = (*C.PJRT_Device)(dev)
	if err := a.callBufferCopyToDevice(&args); err != nil {
		return nil, err
	}
	return unsafe.Pointer(args.dst_buffer), nil
}

func (a *capi) bufferCopyToMemory(b, mem unsafe.Pointer) (unsafe.Pointer, error) {
	var args C.PJRT_Buffer_CopyToMemory_Args
	args.buffer = (*C.PJRT_Buffer)(b)
	args.dst_memory = (*C.PJRT_Memory)(mem)
	if err := a.callBufferCopyToMemory(&args); err != nil {
		return nil, err
	}
	return unsafe.Pointer(args.dst_buffer), nil
}

func (a *capi) destroyEvent(e unsafe.Pointer) error {
	var args C.PJRT_Event_Destroy_Args
	args.event = (*C.PJRT_Event)(e)
	return a.callEventDestroy(&args)
}

// awaitEvent blocks until e is ready and returns its error.
func (a *capi) awaitEvent(e unsafe.Pointer) error {
	var args C.PJRT_Event_Await_Args
	args.event = (*C.PJRT_Event)(e)
	return a.callEventAwait(&args)
}

// onReady arranges for st.fire to run once e is ready (possibly before onReady
// returns), through pjrtGoEventReady.
func (a *capi) onReady(e unsafe.Pointer, st *eventState) error {
	h := cgo.NewHandle(st)
	var args C.PJRT_Event_OnReady_Args
	args.event = (*C.PJRT_Event)(e)
	args = C.pjrt_on_ready_args(args, C.uintptr_t(h))
	if err := a.callEventOnReady(&args); err != nil {
		C.free(args.user_arg)
		h.Delete()
		return err
	}
	return nil
}
