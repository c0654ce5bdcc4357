//go:build cgo

package pjrt

/*
#include <stdint.h>
#include <stdlib.h>
*/
import "C"

import (
	"runtime/cgo"
	"unsafe"
)

// pjrtGoEventReady is called from shim.c's PJRT_Event_OnReady callback, on a
// plugin thread or inline in the registering call, once the event is ready. It
// takes ownership of msg.
//
//export pjrtGoEventReady
func pjrtGoEventReady(handle C.uintptr_t, code C.int, msg *C.char, n C.size_t) {
	var err error
	if code != 0 {
		text := ""
		if msg != nil {
			text = C.GoStringN(msg, C.int(n))
		}
		err = &Error{Code: Code(code), Msg: text}
	}
	if msg != nil {
		C.free(unsafe.Pointer(msg))
	}
	h := cgo.Handle(handle)
	st := h.Value().(*eventState)
	h.Delete()
	st.fire(err)
}
