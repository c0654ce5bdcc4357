//go:build cgo

package pjrt

import (
	"errors"
	"strings"
	"testing"

	"github.com/openpathways/pathways/ifrt"
)

// The generated table against the C compiler's layout of PJRT_Api: slot i of
// the table sits at 40 + 8*i (after struct_size, extension_start and the
// version struct), and these slots are fixed since 0.57.
func TestFnOffsets(t *testing.T) {
	for fn := range apiFn(numFns) {
		if off := fnOffsets[fn]; off < 40 || (off-40)%8 != 0 || (fn > 0 && off <= fnOffsets[fn-1]) {
			t.Errorf("%s at offset %d: not a slot after the previous one", fnNames[fn], off)
		}
	}
	for _, c := range []struct {
		fn   apiFn
		slot int
	}{{fnErrorDestroy, 0}, {fnClientCreate, 10}, {fnClientCompile, 20}, {fnLoadedExecutableExecute, 55},
		{fnBufferToHostBuffer, 70}, {fnExecutableOutputElementTypes, 90}, {fnLoadedExecutableGetDeviceAssignment, 117},
		{fnExecutableGetCompileOptions, 124}, {fnExecutableParameterMemoryKinds, 134}} {
		if want := uintptr(40 + 8*c.slot); fnOffsets[c.fn] != want {
			t.Errorf("%s at offset %d, want %d (slot %d)", fnNames[c.fn], fnOffsets[c.fn], want, c.slot)
		}
	}
	if HeaderMinorVersion != headerAPIMinor {
		t.Errorf("HeaderMinorVersion = %d, pjrt_c_api.h says 0.%d", HeaderMinorVersion, headerAPIMinor)
	}
}

// Every generated wrapper checks the slot itself: calls the fake plugin's
// short table lacks fail with UNIMPLEMENTED before reaching C, whether the
// slot is past the table's end or inside it and NULL.
func TestWrappersCheckSlots(t *testing.T) {
	p, err := Load(buildFakePlugin(t, 60, "PJRT_Client_Destroy"))
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	for _, c := range []struct {
		fn   string
		call func() error
	}{
		{"PJRT_Client_Compile", func() error {
			_, err := p.api.compile(nil, []byte("x"), "mlir", []byte("y"))
			return err
		}},
		{"PJRT_Buffer_Destroy", func() error { return p.api.destroyBuffer(nil) }},
		{"PJRT_Event_Await", func() error { return p.api.awaitEvent(nil) }}, // NULL inside the table
	} {
		err := c.call()
		var perr *Error
		if !errors.As(err, &perr) || perr.Code != ifrt.Unimplemented || !strings.Contains(perr.Msg, c.fn) {
			t.Errorf("calling %s = %v, want UNIMPLEMENTED naming it", c.fn, err)
		}
	}
}
