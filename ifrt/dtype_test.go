package ifrt_test

import (
	"testing"

	"github.com/openpathways/pathways/ifrt"
)

func TestDTypes(t *testing.T) {
	tests := []struct {
		d        ifrt.DType
		name     string
		bits     int
		hostSize int
		pt       int32
		hasPT    bool
	}{
		{ifrt.PRED, "pred", 8, 1, 1, true},
		{ifrt.S4, "s4", 4, 1, 21, true},
		{ifrt.U2, "u2", 2, 1, 27, true},
		{ifrt.BF16, "bf16", 16, 2, 16, true},
		{ifrt.F32, "f32", 32, 4, 11, true},
		{ifrt.C128, "c128", 128, 16, 18, true},
		{ifrt.F8E4M3FN, "f8e4m3fn", 8, 1, 20, true},
		{ifrt.F4E2M1FN, "f4e2m1fn", 4, 1, 32, true},
		{ifrt.F8E8M0FNU, "f8e8m0fnu", 8, 1, 33, true},
		{ifrt.TOKEN, "token", 0, 0, 17, true},
		{ifrt.STRING, "string", 0, 0, 0, false},
	}
	for _, tc := range tests {
		if got := tc.d.String(); got != tc.name {
			t.Errorf("%d.String() = %q, want %q", tc.d, got, tc.name)
		}
		if got := tc.d.BitWidth(); got != tc.bits {
			t.Errorf("%v.BitWidth() = %d, want %d", tc.d, got, tc.bits)
		}
		if got := tc.d.HostByteSize(); got != tc.hostSize {
			t.Errorf("%v.HostByteSize() = %d, want %d", tc.d, got, tc.hostSize)
		}
		pt, ok := tc.d.PrimitiveType()
		if pt != tc.pt || ok != tc.hasPT {
			t.Errorf("%v.PrimitiveType() = %d, %t; want %d, %t", tc.d, pt, ok, tc.pt, tc.hasPT)
		}
		if ok {
			if back, _ := ifrt.DTypeFromPrimitiveType(pt); back != tc.d {
				t.Errorf("DTypeFromPrimitiveType(%d) = %v, want %v", pt, back, tc.d)
			}
		}
		if back, err := ifrt.ParseDType(tc.name); err != nil || back != tc.d {
			t.Errorf("ParseDType(%q) = %v, %v", tc.name, back, err)
		}
	}
	if n := len(ifrt.AllDTypes()); n != 30 {
		t.Errorf("AllDTypes() has %d types, want 30", n)
	}
}

func TestShapeByteSize(t *testing.T) {
	if n, err := (ifrt.Shape{2, 3}).ByteSize(ifrt.F64); err != nil || n != 48 {
		t.Errorf("ByteSize = %d, %v", n, err)
	}
	if _, err := (ifrt.Shape{1 << 40, 1 << 30}).ByteSize(ifrt.F32); !errorsIs(err, ifrt.ErrInvalidArgument) {
		t.Errorf("overflowing ByteSize error = %v", err)
	}
	if _, err := (ifrt.Shape{1 << 62}).ByteSize(ifrt.F32); !errorsIs(err, ifrt.ErrInvalidArgument) {
		t.Errorf("byte overflow error = %v", err)
	}
}
