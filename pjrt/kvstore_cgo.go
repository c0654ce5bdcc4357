//go:build cgo

package pjrt

/*
#include <stdlib.h>
#include <string.h>
#include "shim.h"
*/
import "C"

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/openpathways/pathways/ifrt"
)

// The Go side of shim.c's key-value callbacks. They run on plugin threads,
// during PJRT_Client_Create and afterwards. The handle they get names the
// client's kvBridge in bridges, from which it is removed only after
// PJRT_Client_Destroy returns; a plugin that calls back later still (one that
// kept the store alive elsewhere) gets CANCELLED, not a crash. For the same
// reason the 8 bytes of C memory holding the handle are never freed.
var (
	bridges    sync.Map // uintptr -> *kvBridge
	lastBridge atomic.Uintptr
)

func bridgeOf(handle C.uintptr_t) (*kvBridge, bool) {
	b, ok := bridges.Load(uintptr(handle))
	if !ok {
		return nil, false
	}
	return b.(*kvBridge), true
}

var errClientClosed = &Error{Code: ifrt.Canceled, Msg: "key-value store called after its client was closed"}

//export pjrtGoKVGet
func pjrtGoKVGet(handle C.uintptr_t, key *C.char, keySize C.size_t, timeoutMS C.int, tryOnly C.int) (r C.pjrt_kv_result) {
	b, ok := bridgeOf(handle)
	if !ok {
		return kvFailure(ifrt.Canceled, errClientClosed)
	}
	defer recoverKV(&r)
	k := C.GoStringN(key, C.int(keySize))
	timeout := time.Duration(timeoutMS) * time.Millisecond
	if timeoutMS < 0 { // no limit but the client's life
		timeout = time.Duration(1<<63 - 1)
	}
	v, err := b.get(k, timeout, tryOnly != 0)
	if err != nil {
		return kvFailure(b.callbackCode(err), err)
	}
	if len(v) > 0 {
		r.value = (*C.char)(C.CBytes(v))
		r.value_size = C.size_t(len(v))
	}
	return r
}

//export pjrtGoKVPut
func pjrtGoKVPut(handle C.uintptr_t, key *C.char, keySize C.size_t, value *C.char, valueSize C.size_t) (r C.pjrt_kv_result) {
	b, ok := bridgeOf(handle)
	if !ok {
		return kvFailure(ifrt.Canceled, errClientClosed)
	}
	defer recoverKV(&r)
	var v []byte
	if valueSize > 0 {
		v = C.GoBytes(unsafe.Pointer(value), C.int(valueSize))
	}
	if err := b.put(C.GoStringN(key, C.int(keySize)), v); err != nil {
		return kvFailure(b.callbackCode(err), err)
	}
	return r
}

// recoverKV turns a panic in the store into an INTERNAL error for the
// plugin: a panic on a plugin thread would end the process.
func recoverKV(r *C.pjrt_kv_result) {
	if p := recover(); p != nil {
		*r = kvFailure(ifrt.Internal, fmt.Errorf("key-value store panicked: %v", p))
	}
}

func kvFailure(code ifrt.Code, err error) C.pjrt_kv_result {
	var r C.pjrt_kv_result
	msg := err.Error()
	r.code = C.int(code)
	r.msg = C.CString(msg)
	r.msg_size = C.size_t(len(msg))
	return r
}

// kvCreateArgs sets the key-value callbacks of args for b, through a handle
// that b.release removes (after the client is destroyed, or when creation
// fails).
func kvCreateArgs(args *C.PJRT_Client_Create_Args, b *kvBridge) {
	h := lastBridge.Add(1)
	bridges.Store(h, b)
	*args = C.pjrt_kv_create_args(*args, C.uintptr_t(h))
	b.release = func() { bridges.Delete(h) }
}
