package xlapb_test

import (
	"bytes"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/internal/wiretest"
	"github.com/openpathways/pathways/internal/xlapb"
)

func TestShapeAndLayout(t *testing.T) {
	s := &xlapb.ShapeProto{
		ElementType: xlapb.PrimitiveType_F32,
		Dimensions:  []int64{2, 3},
		Layout:      &xlapb.LayoutProto{MinorToMajor: []int64{1, 0}},
	}
	want := wiretest.Varint(nil, 2, 11)
	want = wiretest.LenDelim(want, 3, wiretest.PackedVarints(2, 3))
	want = wiretest.LenDelim(want, 5, wiretest.LenDelim(nil, 1, wiretest.PackedVarints(1, 0)))
	wiretest.CheckWire(t, s, want)

	l := &xlapb.LayoutProto{
		Tiles:             []*xlapb.TileProto{{Dimensions: []int64{8, 128}}},
		ElementSizeInBits: 4,
		MemorySpace:       1,
	}
	want = wiretest.LenDelim(nil, 6, wiretest.LenDelim(nil, 1, wiretest.PackedVarints(8, 128)))
	want = wiretest.Varint(want, 7, 4)
	want = wiretest.Varint(want, 8, 1)
	wiretest.CheckWire(t, l, want)
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
	want = wiretest.Varint(want, 1, 3)
	want = wiretest.LenDelim(want, 3, wiretest.PackedVarints(2, 1, 2))
	want = wiretest.LenDelim(want, 5, wiretest.LenDelim(wiretest.Varint(nil, 1, 1), 4, wiretest.PackedVarints(3)))
	want = wiretest.Varint(want, 6, 1)
	want = wiretest.LenDelim(want, 7, wiretest.LenDelim(nil, 2, []byte("x")))
	want = wiretest.LenDelim(want, 8, wiretest.PackedVarints(4))
	want = wiretest.LenDelim(want, 9, wiretest.PackedVarints(4))
	want = wiretest.LenDelim(want, 10, wiretest.PackedVarints(0))
	want = wiretest.Varint(want, 11, 1)
	want = wiretest.Varint(want, 12, 7)
	want = wiretest.Varint(want, 13, 1)
	want = wiretest.LenDelim(want, 14, nil)
	wiretest.CheckWire(t, s, want)
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
	want := wiretest.Varint(nil, 1, 1)
	want = wiretest.Varint(want, 2, 2)
	want = wiretest.LenDelim(want, 3, wiretest.LenDelim(nil, 1, wiretest.PackedVarints(0)))
	want = wiretest.LenDelim(want, 3, wiretest.LenDelim(nil, 1, wiretest.PackedVarints(1)))
	wiretest.CheckWire(t, da, want)
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
	ebo = wiretest.Varint(ebo, 1, ^uint64(0)) // -1 as int64 varint
	ebo = wiretest.LenDelim(ebo, 3, nil)
	ebo = wiretest.Varint(ebo, 4, 1)
	ebo = wiretest.Varint(ebo, 5, 2)
	ebo = wiretest.Varint(ebo, 6, 1)
	ebo = wiretest.LenDelim(ebo, 9, wiretest.Varint(nil, 1, 1))
	ebo = wiretest.Varint(ebo, 19, 1)
	ebo = wiretest.Varint(ebo, 24, 29)

	entry := wiretest.LenDelim(nil, 1, []byte("xla_cpu_enable_fast_math"))
	entry = wiretest.LenDelim(entry, 2, wiretest.Varint(nil, 2, 1))

	var want []byte
	want = wiretest.LenDelim(want, 3, ebo)
	want = wiretest.Varint(want, 4, 1)
	want = wiretest.LenDelim(want, 7, entry)
	want = wiretest.Varint(want, 10, 2)
	wiretest.CheckWire(t, opts, want)

	for _, tt := range []struct {
		o    *xlapb.OptionOverrideProto
		want []byte
	}{
		{&xlapb.OptionOverrideProto{Value: &xlapb.OptionOverrideProto_StringField{StringField: "a"}}, wiretest.LenDelim(nil, 1, []byte("a"))},
		{&xlapb.OptionOverrideProto{Value: &xlapb.OptionOverrideProto_IntField{IntField: 5}}, wiretest.Varint(nil, 3, 5)},
		{&xlapb.OptionOverrideProto{Value: &xlapb.OptionOverrideProto_DoubleField{DoubleField: 1}},
			wiretest.Fixed64(nil, 4, 0x3ff0000000000000)},
	} {
		wiretest.CheckWire(t, tt.o, tt.want)
	}
}

func TestDebugOptionsKeepsUnknownFlags(t *testing.T) {
	// DebugOptions declares no fields; flags set by a client must reach the
	// compiler unchanged after the server decodes and re-encodes the options.
	debug := wiretest.Varint(nil, 1000, 1)
	debug = wiretest.LenDelim(debug, 1001, []byte("/tmp/dump"))
	in := wiretest.LenDelim(nil, 3, wiretest.LenDelim(nil, 3, debug)) // executable_build_options.debug_options

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
	want := wiretest.Varint(nil, 1, 1)
	want = wiretest.Varint(want, 5, 5)
	want = wiretest.Varint(want, 11, 11)
	want = wiretest.Varint(want, 14, 14)
	want = wiretest.Varint(want, 15, 15)
	wiretest.CheckWire(t, s, want)
}

// TestCompiledMemoryStatsConversion: every field of ifrt's form survives the
// proto and its encoding.
func TestCompiledMemoryStatsConversion(t *testing.T) {
	in := ifrt.CompiledMemoryStats{
		GeneratedCodeSizeInBytes: 1, ArgumentSizeInBytes: 2, OutputSizeInBytes: 3, AliasSizeInBytes: 4, TempSizeInBytes: 5, PeakMemoryInBytes: 6,
		HostGeneratedCodeSizeInBytes: 7, HostArgumentSizeInBytes: 8, HostOutputSizeInBytes: 9, HostAliasSizeInBytes: 10, HostTempSizeInBytes: 11,
	}
	b, err := proto.Marshal(xlapb.NewCompiledMemoryStats(in))
	if err != nil {
		t.Fatal(err)
	}
	var p xlapb.CompiledMemoryStatsProto
	if err := proto.Unmarshal(b, &p); err != nil {
		t.Fatal(err)
	}
	if got := p.Stats(); got != in {
		t.Errorf("round trip = %+v, want %+v", got, in)
	}
}
