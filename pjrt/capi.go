package pjrt

import "unsafe"

// Plain-Go results of the C layer (capi_cgo.go).

type deviceInfo struct {
	id, processIndex, localHardwareID int
	kind, debug, str                  string
	attrs                             map[string]any
	addressable                       bool
}

type memoryInfo struct {
	id, kindID       int
	kind, debug, str string
	devices          []unsafe.Pointer
}

type bufferInfo struct {
	typ          BufferType
	dims         []int64
	onDeviceSize int64
	device       unsafe.Pointer
	memory       unsafe.Pointer
}
