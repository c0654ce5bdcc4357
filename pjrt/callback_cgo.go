//go:build cgo

package pjrt

/*
#include <stdint.h>
#include "pjrt_c_api.h"
*/
import "C"

import "runtime/cgo"

// pjrtGoEventReady is called by shim.c's PJRT_Event_OnReady callback, on a
// plugin thread or inline in the registering call, once the event is ready;
// err is the event's error (nil on success), which it converts and destroys.
//
//export pjrtGoEventReady
func pjrtGoEventReady(handle C.uintptr_t, err *C.PJRT_Error) {
	h := cgo.Handle(handle)
	st := h.Value().(*eventState)
	h.Delete()
	st.fire(st.api.err(err))
}
