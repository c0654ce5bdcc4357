package xlapb_test

import (
	"bytes"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/testing/protocmp"

	"github.com/openpathways/pathways/internal/xlapb"
)

// Expected bytes are built by hand from upstream field numbers, so a wrong
// number or type in our .proto files fails here.

func varint(b []byte, num protowire.Number, v uint64) []byte {
	return protowire.AppendVarint(protowire.AppendTag(b, num, protowire.VarintType), v)
}

func lenDelim(b []byte, num protowire.Number, payload []byte) []byte {
	return protowire.AppendBytes(protowire.AppendTag(b, num, protowire.BytesType), payload)
}

func packed(vs ...uint64) []byte {
	var b []byte
	for _, v := range vs {
		b = protowire.AppendVarint(b, v)
	}
	return b
}

// sortedFields returns b with its top-level fields stably sorted by number;
// encoders may write oneof members last.
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

func checkWire(t *testing.T, m proto.Message, want []byte) {
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

func TestShapeAndLayout(t *testing.T) {
	s := &xlapb.ShapeProto{
		ElementType: xlapb.PrimitiveType_F32,
		Dimensions:  []int64{2, 3},
		Layout:      &xlapb.LayoutProto{MinorToMajor: []int64{1, 0}},
	}
	want := varint(nil, 2, 11)
	want = lenDelim(want, 3, packed(2, 3))
	want = lenDelim(want, 5, lenDelim(nil, 1, packed(1, 0)))
	checkWire(t, s, want)

	l := &xlapb.LayoutProto{
		Tiles:             []*xlapb.TileProto{{Dimensions: []int64{8, 128}}},
		ElementSizeInBits: 4,
		MemorySpace:       1,
	}
	want = lenDelim(nil, 6, lenDelim(nil, 1, packed(8, 128)))
	want = varint(want, 7, 4)
	want = varint(want, 8, 1)
	checkWire(t, l, want)
}

func TestPrimitiveTypeNumbers(t *testing.T) {
	for typ, want := range map[xlapb.PrimitiveType]int32{
		xlapb.PrimitiveType_PRED: 1, xlapb.PrimitiveType_S8: 2, xlapb.PrimitiveType_S32: 4,
		xlapb.PrimitiveType_U8: 6, xlapb.PrimitiveType_F16: 10, xlapb.PrimitiveType_F32: 11,
		xlapb.PrimitiveType_F64: 12, xlapb.PrimitiveType_TUPLE: 13, xlapb.PrimitiveType_C64: 15,
		xlapb.PrimitiveType_BF16: 16, xlapb.PrimitiveType_TOKEN: 17, xlapb.PrimitiveType_S1: 30,
		xlapb.PrimitiveType_U1: 31, xlapb.PrimitiveType_F4E2M1FN: 32, xlapb.PrimitiveType_F8E8M0FNU: 33,
	} {
		if int32(typ) != want {
			t.Errorf("%v = %d, want %d", typ, int32(typ), want)
		}
	}
}

func TestOpSharding(t *testing.T) {
	s := &xlapb.OpSharding{
		Type:                     xlapb.OpSharding_OTHER,
		TileAssignmentDimensions: []int64{2, 1, 2},
		ReplicateOnLastTileDim:   true,
		LastTileDims:             []xlapb.OpSharding_Type{xlapb.OpSharding_MANUAL},
		IotaReshapeDims:          []int64{4},
		IotaTransposePerm:        []int32{0},
		TupleShardings:           []*xlapb.OpSharding{{Type: xlapb.OpSharding_MAXIMAL, TileAssignmentDevices: []int64{3}}},
		Metadata:                 []*xlapb.OpMetadata{{OpName: "x"}},
		IsShardGroup:             true,
		ShardGroupId:             7,
		ShardGroupType:           xlapb.OpSharding_LIKE,
		NamedSharding:            &xlapb.NamedShardingProto{},
	}
	var want []byte
	want = varint(want, 1, 3)
	want = lenDelim(want, 3, packed(2, 1, 2))
	want = lenDelim(want, 5, lenDelim(varint(nil, 1, 1), 4, packed(3)))
	want = varint(want, 6, 1)
	want = lenDelim(want, 7, lenDelim(nil, 2, []byte("x")))
	want = lenDelim(want, 8, packed(4))
	want = lenDelim(want, 9, packed(4))
	want = lenDelim(want, 10, packed(0))
	want = varint(want, 11, 1)
	want = varint(want, 12, 7)
	want = varint(want, 13, 1)
	want = lenDelim(want, 14, nil)
	checkWire(t, s, want)
}

func TestDeviceAssignment(t *testing.T) {
	da := &xlapb.DeviceAssignmentProto{
		ReplicaCount:     1,
		ComputationCount: 2,
		ComputationDevices: []*xlapb.DeviceAssignmentProto_ComputationDevice{
			{ReplicaDeviceIds: []int64{0}},
			{ReplicaDeviceIds: []int64{1}},
		},
	}
	want := varint(nil, 1, 1)
	want = varint(want, 2, 2)
	want = lenDelim(want, 3, lenDelim(nil, 1, packed(0)))
	want = lenDelim(want, 3, lenDelim(nil, 1, packed(1)))
	checkWire(t, da, want)
}

func TestCompileOptions(t *testing.T) {
	opts := &xlapb.CompileOptionsProto{
		ExecutableBuildOptions: &xlapb.ExecutableBuildOptionsProto{
			DeviceOrdinal:        -1,
			NumReplicas:          1,
			NumPartitions:        2,
			UseSpmdPartitioning:  true,
			DeviceAssignment:     &xlapb.DeviceAssignmentProto{ReplicaCount: 1},
			UseShardyPartitioner: true,
			OptimizationLevel:    xlapb.ExecutionOptions_EFFORT_O2,
			DebugOptions:         &xlapb.DebugOptions{},
		},
		CompilePortableExecutable: true,
		EnvOptionOverrides: map[string]*xlapb.OptionOverrideProto{
			"xla_cpu_enable_fast_math": {Value: &xlapb.OptionOverrideProto_BoolField{BoolField: true}},
		},
		MatrixUnitOperandPrecision: xlapb.PrecisionConfig_HIGHEST,
	}
	var ebo []byte
	ebo = varint(ebo, 1, ^uint64(0)) // -1 as int64 varint
	ebo = lenDelim(ebo, 3, nil)
	ebo = varint(ebo, 4, 1)
	ebo = varint(ebo, 5, 2)
	ebo = varint(ebo, 6, 1)
	ebo = lenDelim(ebo, 9, varint(nil, 1, 1))
	ebo = varint(ebo, 19, 1)
	ebo = varint(ebo, 24, 29)

	entry := lenDelim(nil, 1, []byte("xla_cpu_enable_fast_math"))
	entry = lenDelim(entry, 2, varint(nil, 2, 1))

	var want []byte
	want = lenDelim(want, 3, ebo)
	want = varint(want, 4, 1)
	want = lenDelim(want, 7, entry)
	want = varint(want, 10, 2)
	checkWire(t, opts, want)

	for _, tt := range []struct {
		o    *xlapb.OptionOverrideProto
		want []byte
	}{
		{&xlapb.OptionOverrideProto{Value: &xlapb.OptionOverrideProto_StringField{StringField: "a"}}, lenDelim(nil, 1, []byte("a"))},
		{&xlapb.OptionOverrideProto{Value: &xlapb.OptionOverrideProto_IntField{IntField: 5}}, varint(nil, 3, 5)},
		{&xlapb.OptionOverrideProto{Value: &xlapb.OptionOverrideProto_DoubleField{DoubleField: 1}},
			protowire.AppendFixed64(protowire.AppendTag(nil, 4, protowire.Fixed64Type), 0x3ff0000000000000)},
	} {
		checkWire(t, tt.o, tt.want)
	}
}

func TestDebugOptionsKeepsUnknownFlags(t *testing.T) {
	// DebugOptions declares no fields; flags set by a client must reach the
	// compiler unchanged after the server decodes and re-encodes the options.
	debug := varint(nil, 1000, 1)
	debug = lenDelim(debug, 1001, []byte("/tmp/dump"))
	in := lenDelim(nil, 3, lenDelim(nil, 3, debug)) // executable_build_options.debug_options

	var opts xlapb.CompileOptionsProto
	if err := proto.Unmarshal(in, &opts); err != nil {
		t.Fatal(err)
	}
	opts.GetExecutableBuildOptions().NumPartitions = 2
	out, err := proto.Marshal(&opts)
	if err != nil {
		t.Fatal(err)
	}
	var again xlapb.CompileOptionsProto
	if err := proto.Unmarshal(out, &again); err != nil {
		t.Fatal(err)
	}
	got := again.GetExecutableBuildOptions().GetDebugOptions().ProtoReflect().GetUnknown()
	if !bytes.Equal(got, debug) {
		t.Errorf("debug options after round trip = %x, want %x", []byte(got), debug)
	}
}

func TestCompiledMemoryStats(t *testing.T) {
	s := &xlapb.CompiledMemoryStatsProto{
		GeneratedCodeSizeInBytes: 1,
		TempSizeInBytes:          5,
		HostTempSizeInBytes:      11,
		PeakMemoryInBytes:        14,
		TotalSizeInBytes:         15,
	}
	want := varint(nil, 1, 1)
	want = varint(want, 5, 5)
	want = varint(want, 11, 11)
	want = varint(want, 14, 14)
	want = varint(want, 15, 15)
	checkWire(t, s, want)
}
