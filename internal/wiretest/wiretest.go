// Package wiretest checks protobuf messages against wire bytes built by hand
// from the upstream field numbers, so that a wrong number or type in one of
// our .proto files fails a test. The builders append one field to b and
// return the result; CheckWire compares in field-number order, since an
// encoder may write oneof members last and parsers accept any order.
//
// It is for tests only. Its functions are safe for concurrent use.
package wiretest

import (
	"bytes"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/testing/protocmp"
)

// Varint appends field num as a varint.
func Varint(b []byte, num protowire.Number, v uint64) []byte {
	return protowire.AppendVarint(protowire.AppendTag(b, num, protowire.VarintType), v)
}

// Fixed64 appends field num as a fixed64.
func Fixed64(b []byte, num protowire.Number, v uint64) []byte {
	return protowire.AppendFixed64(protowire.AppendTag(b, num, protowire.Fixed64Type), v)
}

// LenDelim appends field num as length-delimited bytes.
func LenDelim(b []byte, num protowire.Number, payload []byte) []byte {
	return protowire.AppendBytes(protowire.AppendTag(b, num, protowire.BytesType), payload)
}

// PackedVarints is the payload of a packed repeated varint field.
func PackedVarints(vs ...uint64) []byte {
	var b []byte
	for _, v := range vs {
		b = protowire.AppendVarint(b, v)
	}
	return b
}

// PackedFixed64 is the payload of a packed repeated fixed64 field.
func PackedFixed64(vs ...uint64) []byte {
	var b []byte
	for _, v := range vs {
		b = protowire.AppendFixed64(b, v)
	}
	return b
}

// CheckWire marshals m and compares the bytes with want, in field-number
// order, then decodes want into a fresh message that must equal m.
func CheckWire(t *testing.T, m proto.Message, want []byte) {
	t.Helper()
	got, err := proto.MarshalOptions{Deterministic: true}.Marshal(m)
	if err != nil {
		t.Fatalf("Marshal(%T): %v", m, err)
	}
	if !bytes.Equal(sortedFields(t, got), sortedFields(t, want)) {
		t.Errorf("Marshal(%T) =\n  %x\nwant (in any field order)\n  %x", m, got, want)
	}
	back := m.ProtoReflect().Type().New().Interface()
	if err := proto.Unmarshal(want, back); err != nil {
		t.Fatalf("Unmarshal(%T): %v", m, err)
	}
	if diff := cmp.Diff(m, back, protocmp.Transform()); diff != "" {
		t.Errorf("Unmarshal(%T) of the expected bytes differs (-want +got):\n%s", m, diff)
	}
}

// sortedFields returns b with its top-level fields stably sorted by number.
func sortedFields(t *testing.T, b []byte) []byte {
	t.Helper()
	type field struct {
		num protowire.Number
		raw []byte
	}
	var fields []field
	for len(b) > 0 {
		num, _, n := protowire.ConsumeField(b)
		if n < 0 {
			t.Fatalf("bad wire bytes %x: %v", b, protowire.ParseError(n))
		}
		fields = append(fields, field{num, b[:n]})
		b = b[n:]
	}
	sort.SliceStable(fields, func(i, j int) bool { return fields[i].num < fields[j].num })
	var out []byte
	for _, f := range fields {
		out = append(out, f.raw...)
	}
	return out
}
