package pjrt

import (
	"fmt"
	"sync"

	"github.com/openpathways/pathways/ifrt"
)

// An FFIHandler runs calls of a custom-call target in programs a plugin
// compiled (RegisterFFIHandler). It runs on the plugin's threads, possibly
// several calls at once, and must not keep call's memory after it returns.
// An error fails the execution with the error's ifrt.CodeOf code.
type FFIHandler func(call *FFICall) error

// FFICall is one call of a custom-call target.
type FFICall struct {
	// Args and Results are XLA's buffers, in the custom call's operand and
	// result order. A handler reads Args and writes every Result; a result
	// may share memory with an argument (operand_output_aliases).
	Args, Results []FFIBuffer
	// Attrs holds the call's integer and boolean scalar attributes (from
	// mhlo.backend_config), by name. Other attribute kinds are left out.
	Attrs map[string]int64
}

// FFIBuffer is one argument or result of an FFICall.
type FFIBuffer struct {
	DType ifrt.DType
	// Dims are the logical dimensions. How Data orders them is the call
	// site's operand or result layout, which the call does not carry: the
	// handler knows it from its contract with the program's producer.
	Dims []int64
	// Data is XLA's memory, valid only during the call.
	Data []byte
}

// ffiSlots maps the C trampolines of ffi.c to their handlers. Slots are
// never freed: a plugin keeps its handlers for the life of the process.
var ffiSlots struct {
	mu       sync.Mutex
	handlers []FFIHandler   // by slot
	byKey    map[ffiKey]int // registrations made
}

type ffiKey struct {
	api              *capi
	target, platform string
}

// maxFFIHandlers is PJRT_FFI_SLOTS of ffi.h.
const maxFFIHandlers = 128

// The PJRT API versions whose PJRT_FFI_Register_Handler_Args layout ffi.c
// was checked against (the two pinned CPU plugins). XLA has had a version of
// that struct with an api_version field before the handler, which ffi.c
// would misread, so other versions are refused rather than risked.
const (
	ffiMinMinor = 81
	ffiMaxMinor = 115
)

// RegisterFFIHandler makes h the handler of the custom-call target on
// platform ("cpu", "cuda") in every program the plugin compiles from now on,
// through the plugin's FFI extension. The target is called through XLA's
// typed FFI: a stablehlo.custom_call with an mhlo.backend_config dictionary,
// as JAX emits them. Registrations last as long as the process: a second call for
// the same plugin, target and platform does nothing and returns nil. It
// fails with Unimplemented when the plugin cannot register handlers (no FFI
// extension, or one older than handler registration), and with
// ResourceExhausted past 128 registrations in the process. Plugins of PJRT
// API versions other than 0.81 to 0.115 are refused with Unimplemented: the
// layout of the registration arguments changed within XLA's history, and
// only those versions' was checked.
func (p *Plugin) RegisterFFIHandler(target, platform string, h FFIHandler) error {
	if h == nil || target == "" || platform == "" {
		return ifrt.Errorf(ifrt.InvalidArgument, "pjrt: an FFI handler needs a target, a platform and a function")
	}
	if p.api.major != 0 || p.api.minor < ffiMinMinor || p.api.minor > ffiMaxMinor {
		return ifrt.Errorf(ifrt.Unimplemented, "pjrt: registering FFI handlers with a plugin of PJRT API %d.%d is not supported (checked: 0.%d to 0.%d)", p.api.major, p.api.minor, ffiMinMinor, ffiMaxMinor)
	}
	ffiSlots.mu.Lock()
	defer ffiSlots.mu.Unlock()
	key := ffiKey{p.api, target, platform}
	if _, ok := ffiSlots.byKey[key]; ok {
		return nil
	}
	slot := len(ffiSlots.handlers)
	if slot >= maxFFIHandlers {
		return ifrt.Errorf(ifrt.ResourceExhausted, "pjrt: no room for FFI handler %s: a process registers at most %d", target, maxFFIHandlers)
	}
	// The slot is filled before the plugin can call it.
	ffiSlots.handlers = append(ffiSlots.handlers, h)
	if err := p.api.registerFFI(slot, target, platform); err != nil {
		ffiSlots.handlers = ffiSlots.handlers[:slot]
		return fmt.Errorf("pjrt: registering FFI handler %s for %s with %s: %w", target, platform, p.path, err)
	}
	if ffiSlots.byKey == nil {
		ffiSlots.byKey = map[ffiKey]int{}
	}
	ffiSlots.byKey[key] = slot
	return nil
}

// ffiHandler returns the handler of slot, or nil.
func ffiHandler(slot int) FFIHandler {
	ffiSlots.mu.Lock()
	defer ffiSlots.mu.Unlock()
	if slot < 0 || slot >= len(ffiSlots.handlers) {
		return nil
	}
	return ffiSlots.handlers[slot]
}
