package wire_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/proxy/internal/wire"
)

func colocatedProgram() *ifrt.CustomCallProgram {
	spec := ifrt.ArraySpec{DType: ifrt.F32, Shape: ifrt.Shape{2, 3}, Sharding: ifrt.NewSingleDeviceSharding(testDevices[1], "")}
	return &ifrt.CustomCallProgram{
		Type: ifrt.ColocatedPythonType, Name: "add_one", Program: []byte("pickled"),
		Devices: devs(1), InputSpecs: []ifrt.ArraySpec{spec}, OutputSpecs: []ifrt.ArraySpec{spec, spec},
	}
}

func TestCustomCallProgramRoundTrip(t *testing.T) {
	want := colocatedProgram()
	b, err := wire.CustomCallProgramToBytes(want)
	if err != nil {
		t.Fatal(err)
	}
	// jaxlib writes version_number (field 7) too; it is read and ignored.
	b = protowire.AppendTag(b, 7, protowire.VarintType)
	b = protowire.AppendVarint(b, 0)
	got, err := wire.CustomCallProgramFromBytes(b, lookup)
	if err != nil {
		t.Fatal(err)
	}
	if got.Type != want.Type || got.Name != want.Name || string(got.Program) != string(want.Program) {
		t.Errorf("got %q %q %q, want %q %q %q", got.Type, got.Name, got.Program, want.Type, want.Name, want.Program)
	}
	if diff := cmp.Diff(want.Devices.IDs(), got.Devices.IDs()); diff != "" {
		t.Errorf("devices (-want +got):\n%s", diff)
	}
	if len(got.InputSpecs) != 1 || len(got.OutputSpecs) != 2 || !got.OutputSpecs[1].Shape.Equal(ifrt.Shape{2, 3}) {
		t.Errorf("specs: got %d inputs, %d outputs (%v)", len(got.InputSpecs), len(got.OutputSpecs), got.OutputSpecs)
	}
}

func TestCustomCallProgramErrors(t *testing.T) {
	good, err := wire.CustomCallProgramToBytes(colocatedProgram())
	if err != nil {
		t.Fatal(err)
	}
	for name, b := range map[string][]byte{
		"truncated":        good[:len(good)-3],
		"no devices":       protowire.AppendBytes(protowire.AppendTag(nil, 1, protowire.BytesType), []byte("t")),
		"type as a varint": protowire.AppendVarint(protowire.AppendTag(nil, 1, protowire.VarintType), 3),
		"bad tag":          {0xff},
	} {
		if _, err := wire.CustomCallProgramFromBytes(b, lookup); ifrt.CodeOf(err) != ifrt.InvalidArgument {
			t.Errorf("%s: got %v, want INVALID_ARGUMENT", name, err)
		}
	}
}

func FuzzCustomCallProgramFromBytes(f *testing.F) {
	b, err := wire.CustomCallProgramToBytes(colocatedProgram())
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := wire.CustomCallProgramFromBytes(b, lookup)
		if err != nil {
			return
		}
		if _, err := wire.CustomCallProgramToBytes(p); err != nil {
			t.Errorf("a decoded program does not encode: %v", err)
		}
	})
}
