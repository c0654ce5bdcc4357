package wire_test

import (
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/internal/rpc"
	"github.com/openpathways/pathways/internal/xlapb"
	"github.com/openpathways/pathways/proxy/internal/wire"
	"github.com/openpathways/pathways/proxy/proxypb"
)

// testDevices are eight devices with ids 0..7, each with a "device" memory.
var testDevices = func() ifrt.DeviceList {
	out := make(ifrt.DeviceList, 8)
	for i := range out {
		m := &ifrt.Memory{ID: ifrt.MemoryID(i), Kind: ifrt.MemoryKindDevice, Devices: []ifrt.DeviceID{ifrt.DeviceID(i)}}
		out[i] = &ifrt.Device{ID: ifrt.DeviceID(i), Platform: "cpu", Kind: "cpu", Addressable: true, Memories: []*ifrt.Memory{m}, DefaultMemory: m}
	}
	return out
}()

func lookup(id ifrt.DeviceID) (*ifrt.Device, error) {
	if id < 0 || int(id) >= len(testDevices) {
		return nil, ifrt.Errorf(ifrt.NotFound, "no device %d", id)
	}
	return testDevices[id], nil
}

func devs(ids ...int) ifrt.DeviceList {
	out := make(ifrt.DeviceList, len(ids))
	for i, id := range ids {
		out[i] = testDevices[id]
	}
	return out
}

// cmpOpts compares devices by id only.
var cmpOpts = cmp.Options{cmp.Comparer(func(a, b *ifrt.Device) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.ID == b.ID
})}

func TestDTypeRoundTrip(t *testing.T) {
	for _, d := range ifrt.AllDTypes() {
		p, err := wire.DTypeToProto(d)
		if err != nil {
			t.Fatalf("DTypeToProto(%v): %v", d, err)
		}
		if p.GetVersionNumber() != 0 {
			t.Errorf("DTypeToProto(%v) sets version_number", d)
		}
		back, err := wire.DTypeFromProto(p)
		if err != nil || back != d {
			t.Errorf("DTypeFromProto(DTypeToProto(%v)) = %v, %v", d, back, err)
		}
	}
	// The kinds whose numbers differ from xla.PrimitiveType.
	for d, kind := range map[ifrt.DType]proxypb.DTypeProto_Kind{
		ifrt.F4E2M1FN:  30,
		ifrt.F8E8M0FNU: 31,
		ifrt.STRING:    99,
		ifrt.BF16:      16,
	} {
		p, _ := wire.DTypeToProto(d)
		if p.GetKind() != kind {
			t.Errorf("DTypeToProto(%v).Kind = %d, want %d", d, p.GetKind(), kind)
		}
	}
	for _, tc := range []struct {
		p    *proxypb.DTypeProto
		want error
	}{
		{nil, ifrt.ErrInvalidArgument},
		{&proxypb.DTypeProto{}, ifrt.ErrInvalidArgument},
		{&proxypb.DTypeProto{Kind: proxypb.DTypeProto_KIND_OPAQUE}, ifrt.ErrUnimplemented},
		{&proxypb.DTypeProto{Kind: 77}, ifrt.ErrInvalidArgument},
	} {
		if _, err := wire.DTypeFromProto(tc.p); !errors.Is(err, tc.want) {
			t.Errorf("DTypeFromProto(%v) error = %v, want %v", tc.p, err, tc.want)
		}
	}
	if _, err := wire.DTypeToProto(ifrt.DType(77)); !errors.Is(err, ifrt.ErrInvalidArgument) {
		t.Errorf("DTypeToProto(77) error = %v", err)
	}
}

func TestShapeRoundTrip(t *testing.T) {
	for _, s := range []ifrt.Shape{{}, {0}, {3}, {2, 3, 4}, {1 << 20, 1 << 20}} {
		back, err := wire.ShapeFromProto(wire.ShapeToProto(s))
		if err != nil || !back.Equal(s) {
			t.Errorf("round trip of %v = %v, %v", s, back, err)
		}
	}
	for _, dims := range [][]int64{{-1}, {1 << 40, 1 << 40}, make([]int64, wire.MaxRank+1)} {
		if _, err := wire.ShapeFromProto(&proxypb.ShapeProto{Dims: dims}); !errors.Is(err, ifrt.ErrInvalidArgument) {
			t.Errorf("ShapeFromProto(%v) error = %v, want InvalidArgument", dims, err)
		}
	}
}

func TestDeviceList(t *testing.T) {
	l, err := wire.DeviceListFromProto(wire.DeviceListToProto(devs(3, 1, 2)), lookup)
	if err != nil || !l.Equal(devs(3, 1, 2)) {
		t.Errorf("round trip = %v, %v", l, err)
	}
	for _, tc := range []struct {
		ids  []int32
		want error
	}{
		{nil, ifrt.ErrInvalidArgument},
		{[]int32{1, 1}, ifrt.ErrInvalidArgument},
		{[]int32{1, 42}, ifrt.ErrNotFound},
	} {
		if _, err := wire.DeviceListFromIDs(tc.ids, lookup); !errors.Is(err, tc.want) {
			t.Errorf("DeviceListFromIDs(%v) error = %v, want %v", tc.ids, err, tc.want)
		}
	}
}

func mustHlo(t *testing.T, d ifrt.DeviceList, kind ifrt.MemoryKind, spec ifrt.OpSharding) *ifrt.HloSharding {
	t.Helper()
	s, err := ifrt.NewHloSharding(d, kind, spec)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestShardingRoundTrip(t *testing.T) {
	tiled, _ := ifrt.Tiled([]int64{2, 4}, 8)
	partial, _ := ifrt.Tiled([]int64{2}, 8)
	tests := []struct {
		name string
		s    ifrt.Sharding
	}{
		{"single device", ifrt.NewSingleDeviceSharding(testDevices[5], "")},
		{"single device pinned host", ifrt.NewSingleDeviceSharding(testDevices[0], ifrt.MemoryKindPinnedHost)},
		{"hlo replicated", mustHlo(t, devs(0, 1, 2, 3), "", ifrt.Replicated())},
		{"hlo tiled 2x4", mustHlo(t, devs(0, 1, 2, 3, 4, 5, 6, 7), ifrt.MemoryKindDevice, tiled)},
		{"hlo partial replication", mustHlo(t, devs(7, 6, 5, 4, 3, 2, 1, 0), "", partial)},
		{"hlo explicit devices", mustHlo(t, devs(2, 3), "", ifrt.OpSharding{Type: ifrt.OpShardingOther, TileAssignmentDimensions: []int64{2, 1}, TileAssignmentDevices: []int64{1, 0}})},
		{"hlo maximal", mustHlo(t, devs(4), "", ifrt.OpSharding{Type: ifrt.OpShardingMaximal, TileAssignmentDevices: []int64{0}})},
		{"concrete even", &ifrt.ConcreteEvenSharding{DeviceList: devs(0, 1), Shape: ifrt.Shape{4, 2}, ShardShape: ifrt.Shape{2, 2}}},
		{"concrete even replicated", &ifrt.ConcreteEvenSharding{DeviceList: devs(0, 1), Shape: ifrt.Shape{4}, ShardShape: ifrt.Shape{4}, FullyReplicated: true}},
		{"concrete", &ifrt.ConcreteSharding{DeviceList: devs(0, 1, 2), Kind: "device", Shape: ifrt.Shape{6, 2}, ShardShapes: []ifrt.Shape{{1, 2}, {3, 2}, {2, 2}}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := wire.ShardingToProto(tc.s)
			if err != nil {
				t.Fatalf("ShardingToProto: %v", err)
			}
			back, err := wire.ShardingFromProto(p, lookup)
			if err != nil {
				t.Fatalf("ShardingFromProto: %v", err)
			}
			if diff := cmp.Diff(tc.s, back, cmpOpts); diff != "" {
				t.Errorf("round trip (-want +got):\n%s", diff)
			}
		})
	}
}

func serialized(t *testing.T, typeName string, m proto.Message) *proxypb.ShardingProto {
	t.Helper()
	b, err := proto.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return &proxypb.ShardingProto{SerializedSharding: &proxypb.Serialized{TypeName: typeName, Data: b}}
}

func TestShardingParamSharding(t *testing.T) {
	tests := []struct {
		name  string
		param *proxypb.ShardingParamProto
		ndev  int
		shape ifrt.Shape
		want  []ifrt.IndexDomain
	}{{
		// A 2x4 mesh in device order: device i holds tile (i/4, i%4).
		name:  "2x4 iota",
		param: &proxypb.ShardingParamProto{DimShards: []int64{2, 4}, Permutation: []int32{0, 1}, AxisSizes: []int32{2, 4}},
		ndev:  8, shape: ifrt.Shape{4, 8},
		want: func() []ifrt.IndexDomain {
			var out []ifrt.IndexDomain
			for i := range int64(8) {
				r, c := i/4, i%4
				out = append(out, ifrt.IndexDomain{{Start: 2 * r, End: 2*r + 2}, {Start: 2 * c, End: 2*c + 2}})
			}
			return out
		}(),
	}, {
		name:  "replicated over 2",
		param: &proxypb.ShardingParamProto{DimShards: []int64{1}, Permutation: []int32{0}, AxisSizes: []int32{2}},
		ndev:  2, shape: ifrt.Shape{3},
		want: []ifrt.IndexDomain{{{Start: 0, End: 3}}, {{Start: 0, End: 3}}},
	}, {
		name:  "single device",
		param: &proxypb.ShardingParamProto{DimShards: []int64{1, 1}, Permutation: []int32{0}, AxisSizes: []int32{1}},
		ndev:  1, shape: ifrt.Shape{2, 2},
		want: []ifrt.IndexDomain{{{Start: 0, End: 2}, {Start: 0, End: 2}}},
	}, {
		name:  "half split, half replicated",
		param: &proxypb.ShardingParamProto{DimShards: []int64{2}, Permutation: []int32{0, 1}, AxisSizes: []int32{2, 2}},
		ndev:  4, shape: ifrt.Shape{4},
		// The data dimension takes the major mesh axis, the other one replicates:
		// devices 0,1 hold rows 0:2 and devices 2,3 rows 2:4.
		want: []ifrt.IndexDomain{{{Start: 0, End: 2}}, {{Start: 0, End: 2}}, {{Start: 2, End: 4}}, {{Start: 2, End: 4}}},
	}, {
		// The transposed 2x4 mesh: the flattened iota [2,4] transposed, [0,4,1,5,2,6,3,7],
		// fills the 2x4 tile grid row by row, so device 4 holds tile (0,1).
		name:  "2x4 transposed",
		param: &proxypb.ShardingParamProto{DimShards: []int64{2, 4}, Permutation: []int32{1, 0}, AxisSizes: []int32{4, 2}},
		ndev:  8, shape: ifrt.Shape{2, 4},
		want: []ifrt.IndexDomain{
			{{Start: 0, End: 1}, {Start: 0, End: 1}}, {{Start: 0, End: 1}, {Start: 2, End: 3}},
			{{Start: 1, End: 2}, {Start: 0, End: 1}}, {{Start: 1, End: 2}, {Start: 2, End: 3}},
			{{Start: 0, End: 1}, {Start: 1, End: 2}}, {{Start: 0, End: 1}, {Start: 3, End: 4}},
			{{Start: 1, End: 2}, {Start: 1, End: 2}}, {{Start: 1, End: 2}, {Start: 3, End: 4}},
		},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ids := make([]int32, tc.ndev)
			for i := range ids {
				ids[i] = int32(i)
			}
			p := serialized(t, wire.TypeShardingParamSharding, &proxypb.ShardingParamShardingProto{
				ShardingParam: tc.param, Devices: &proxypb.DeviceListProto{DeviceIds: ids},
			})
			s, err := wire.ShardingFromProto(p, lookup)
			if err != nil {
				t.Fatalf("ShardingFromProto: %v", err)
			}
			got, err := s.IndexDomains(tc.shape)
			if err != nil {
				t.Fatalf("IndexDomains: %v", err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%v domains (-want +got):\n%s", s, diff)
			}
		})
	}
}

func TestShardingErrors(t *testing.T) {
	tests := []struct {
		name string
		p    *proxypb.ShardingProto
		want error
	}{
		{"nil", nil, ifrt.ErrInvalidArgument},
		{"unknown type", &proxypb.ShardingProto{SerializedSharding: &proxypb.Serialized{TypeName: "xla::ifrt::Nope"}}, ifrt.ErrUnimplemented},
		{"opaque", serialized(t, wire.TypeOpaqueSharding, &proxypb.OpaqueShardingProto{Devices: &proxypb.DeviceListProto{DeviceIds: []int32{0}}}), ifrt.ErrUnimplemented},
		{"malformed", &proxypb.ShardingProto{SerializedSharding: &proxypb.Serialized{TypeName: wire.TypeHloSharding, Data: []byte{0xff, 0xff}}}, ifrt.ErrInvalidArgument},
		{"unknown device", serialized(t, wire.TypeSingleDeviceSharding, &proxypb.SingleDeviceShardingProto{DeviceId: 99}), ifrt.ErrNotFound},
		{"hlo tiles do not match devices", serialized(t, wire.TypeHloSharding, &proxypb.HloShardingProto{
			Devices:       &proxypb.DeviceListProto{DeviceIds: []int32{0, 1}},
			XlaOpSharding: wire.OpShardingToProto(ifrt.OpSharding{Type: ifrt.OpShardingOther, TileAssignmentDimensions: []int64{4}}),
		}), ifrt.ErrInvalidArgument},
		{"hlo huge tiles", serialized(t, wire.TypeHloSharding, &proxypb.HloShardingProto{
			Devices:       &proxypb.DeviceListProto{DeviceIds: []int32{0, 1}},
			XlaOpSharding: wire.OpShardingToProto(ifrt.OpSharding{Type: ifrt.OpShardingOther, TileAssignmentDimensions: []int64{1 << 40, 1 << 40}}),
		}), ifrt.ErrInvalidArgument},
		{"concrete even uneven", serialized(t, wire.TypeConcreteEvenSharding, &proxypb.ConcreteEvenShardingProto{
			Devices: &proxypb.DeviceListProto{DeviceIds: []int32{0, 1}}, Shape: &proxypb.ShapeProto{Dims: []int64{5}}, ShardShape: &proxypb.ShapeProto{Dims: []int64{2}},
		}), ifrt.ErrInvalidArgument},
		{"concrete even overflowing grid", serialized(t, wire.TypeConcreteEvenSharding, &proxypb.ConcreteEvenShardingProto{
			Devices: &proxypb.DeviceListProto{DeviceIds: []int32{0, 1}}, Shape: &proxypb.ShapeProto{Dims: []int64{1 << 40, 1 << 40}}, ShardShape: &proxypb.ShapeProto{Dims: []int64{1, 1}},
		}), ifrt.ErrInvalidArgument},
		{"sharding param bad permutation", serialized(t, wire.TypeShardingParamSharding, &proxypb.ShardingParamShardingProto{
			ShardingParam: &proxypb.ShardingParamProto{DimShards: []int64{2}, Permutation: []int32{0, 0}, AxisSizes: []int32{1, 2}},
			Devices:       &proxypb.DeviceListProto{DeviceIds: []int32{0, 1}},
		}), ifrt.ErrInvalidArgument},
		{"sharding param wrong device count", serialized(t, wire.TypeShardingParamSharding, &proxypb.ShardingParamShardingProto{
			ShardingParam: &proxypb.ShardingParamProto{DimShards: []int64{2}, Permutation: []int32{0}, AxisSizes: []int32{4}},
			Devices:       &proxypb.DeviceListProto{DeviceIds: []int32{0, 1}},
		}), ifrt.ErrInvalidArgument},
	}
	// A newer client's unreduced axes (field 5 of ShardingParamProto).
	param := &proxypb.ShardingParamProto{DimShards: []int64{2}, Permutation: []int32{0}, AxisSizes: []int32{2}}
	param.ProtoReflect().SetUnknown(protowire.AppendVarint(protowire.AppendTag(nil, 5, protowire.VarintType), 0))
	tests = append(tests, struct {
		name string
		p    *proxypb.ShardingProto
		want error
	}{"sharding param with unreduced axes", serialized(t, wire.TypeShardingParamSharding, &proxypb.ShardingParamShardingProto{
		ShardingParam: param, Devices: &proxypb.DeviceListProto{DeviceIds: []int32{0, 1}},
	}), ifrt.ErrUnimplemented})
	// jaxlib 0.12.1's index domains (field 8 of ConcreteShardingProto).
	concrete, err := wire.ShardingToProto(&ifrt.ConcreteSharding{DeviceList: devs(0, 1), Shape: ifrt.Shape{3}, ShardShapes: []ifrt.Shape{{1}, {2}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := wire.ShardingFromProto(concrete, lookup); err != nil {
		t.Fatalf("the concrete sharding without index domains: %v", err)
	}
	data := concrete.GetSerializedSharding().GetData()
	concrete.GetSerializedSharding().Data = protowire.AppendBytes(protowire.AppendTag(data, 8, protowire.BytesType), nil)
	tests = append(tests, struct {
		name string
		p    *proxypb.ShardingProto
		want error
	}{"concrete sharding with index domains", concrete, ifrt.ErrUnimplemented})
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := wire.ShardingFromProto(tc.p, lookup); !errors.Is(err, tc.want) {
				t.Errorf("ShardingFromProto error = %v, want %v", err, tc.want)
			}
		})
	}
}

func TestOpShardingRoundTrip(t *testing.T) {
	for _, o := range []ifrt.OpSharding{
		ifrt.Replicated(),
		{Type: ifrt.OpShardingMaximal, TileAssignmentDevices: []int64{3}},
		{Type: ifrt.OpShardingOther, TileAssignmentDimensions: []int64{2, 2, 2}, IotaReshapeDims: []int64{2, 4}, IotaTransposePerm: []int32{1, 0}, ReplicateOnLastTileDim: true},
		{Type: ifrt.OpShardingOther, TileAssignmentDimensions: []int64{1, 2, 2}, TileAssignmentDevices: []int64{0, 1, 2, 3}, LastTileDims: []ifrt.OpShardingType{ifrt.OpShardingReplicated}},
		{Type: ifrt.OpShardingTuple, TupleShardings: []ifrt.OpSharding{ifrt.Replicated(), {Type: ifrt.OpShardingManual}}},
	} {
		back, err := wire.OpShardingFromProto(wire.OpShardingToProto(o))
		if err != nil {
			t.Fatalf("OpShardingFromProto(%v): %v", o, err)
		}
		if diff := cmp.Diff(o, back); diff != "" {
			t.Errorf("round trip of %v (-want +got):\n%s", o, diff)
		}
	}
}

func TestArraySpecRoundTrip(t *testing.T) {
	tiled, _ := ifrt.NewTiledSharding(devs(0, 1, 2, 3, 4, 5, 6, 7), 2, 4)
	for _, s := range []ifrt.ArraySpec{
		{DType: ifrt.F32, Shape: ifrt.Shape{8, 8}, Sharding: tiled},
		{DType: ifrt.BF16, Shape: ifrt.Shape{3, 5}, Sharding: ifrt.NewSingleDeviceSharding(testDevices[2], ""), Layout: ifrt.RowMajorLayout(2)},
		{DType: ifrt.S8, Shape: ifrt.Shape{}, Sharding: ifrt.NewSingleDeviceSharding(testDevices[0], "")},
		{DType: ifrt.F64, Shape: ifrt.Shape{2, 3}, Sharding: ifrt.NewSingleDeviceSharding(testDevices[0], ""), Layout: &ifrt.Layout{MinorToMajor: []int64{0, 1}}},
	} {
		p, err := wire.ArraySpecToProto(s)
		if err != nil {
			t.Fatalf("ArraySpecToProto(%v): %v", s, err)
		}
		back, err := wire.ArraySpecFromProto(p, lookup)
		if err != nil {
			t.Fatalf("ArraySpecFromProto: %v", err)
		}
		if diff := cmp.Diff(s, back, cmpOpts); diff != "" {
			t.Errorf("round trip (-want +got):\n%s", diff)
		}
	}
	// A sharding that does not split the shape.
	p, _ := wire.ArraySpecToProto(ifrt.ArraySpec{DType: ifrt.F32, Shape: ifrt.Shape{8, 8}, Sharding: tiled})
	p.Shape.Dims = []int64{8}
	if _, err := wire.ArraySpecFromProto(p, lookup); !errors.Is(err, ifrt.ErrInvalidArgument) {
		t.Errorf("rank mismatch error = %v", err)
	}
}

func TestLayouts(t *testing.T) {
	for _, l := range []*ifrt.Layout{ifrt.RowMajorLayout(0), ifrt.RowMajorLayout(3), {MinorToMajor: []int64{0, 2, 1}}} {
		p, err := wire.LayoutToProto(l)
		if err != nil {
			t.Fatal(err)
		}
		back, err := wire.LayoutFromProto(p)
		if err != nil || !cmp.Equal(l, back) {
			t.Errorf("LayoutFromProto(LayoutToProto(%v)) = %v, %v", l, back, err)
		}
		b, err := wire.XLALayoutToBytes(l)
		if err != nil {
			t.Fatal(err)
		}
		back, err = wire.XLALayoutFromBytes(b)
		if err != nil || !cmp.Equal(l, back) {
			t.Errorf("XLALayoutFromBytes(XLALayoutToBytes(%v)) = %v, %v", l, back, err)
		}
	}
	// Layout bytes: text as jaxlib 0.10.2 writes it, or an xla.LayoutProto.
	if b, _ := wire.XLALayoutToBytes(ifrt.RowMajorLayout(2)); string(b) != "{1,0}" {
		t.Errorf("XLALayoutToBytes(row-major rank 2) = %q, want {1,0}", b)
	}
	for text, want := range map[string][]int64{"{}": {}, "{0}": {0}, "{0,1}": {0, 1}, "{1,0:T(8,128)}": {1, 0}} {
		l, err := wire.XLALayoutFromBytes([]byte(text))
		if err != nil || !cmp.Equal(l.MinorToMajor, want) {
			t.Errorf("XLALayoutFromBytes(%q) = %v, %v; want %v", text, l, err, want)
		}
	}
	pb, _ := proto.Marshal(&xlapb.LayoutProto{MinorToMajor: []int64{1, 0}})
	if l, err := wire.XLALayoutFromBytes(pb); err != nil || !cmp.Equal(l, ifrt.RowMajorLayout(2)) {
		t.Errorf("XLALayoutFromBytes(proto) = %v, %v", l, err)
	}
	for _, bad := range []string{"{0,0}", "{a}", "{1", "{2,0}"} {
		if _, err := wire.XLALayoutFromBytes([]byte(bad)); !errors.Is(err, ifrt.ErrInvalidArgument) {
			t.Errorf("XLALayoutFromBytes(%q) error = %v", bad, err)
		}
	}
	// CompactLayout lists dimensions major to minor.
	b, _ := proto.Marshal(&proxypb.CompactLayoutProto{MajorToMinor: []int32{0, 1, 2}})
	l, err := wire.LayoutFromProto(&proxypb.LayoutProto{SerializedLayout: &proxypb.Serialized{TypeName: wire.TypeCompactLayout, Data: b}})
	if err != nil || !cmp.Equal(l, ifrt.RowMajorLayout(3)) {
		t.Errorf("compact layout = %v, %v", l, err)
	}
	if l, err := wire.LayoutFromProto(nil); l != nil || err != nil {
		t.Errorf("LayoutFromProto(nil) = %v, %v", l, err)
	}
	if p, err := wire.LayoutToProto(nil); p != nil || err != nil {
		t.Errorf("LayoutToProto(nil) = %v, %v", p, err)
	}
	bad, _ := proto.Marshal(&proxypb.CompactLayoutProto{MajorToMinor: []int32{0, 0}})
	if _, err := wire.LayoutFromProto(&proxypb.LayoutProto{SerializedLayout: &proxypb.Serialized{TypeName: wire.TypeCompactLayout, Data: bad}}); !errors.Is(err, ifrt.ErrInvalidArgument) {
		t.Errorf("bad compact layout error = %v", err)
	}
	if _, err := wire.LayoutFromProto(&proxypb.LayoutProto{SerializedLayout: &proxypb.Serialized{TypeName: "x"}}); !errors.Is(err, ifrt.ErrUnimplemented) {
		t.Errorf("unknown layout type error = %v", err)
	}
}

func TestAttributesRoundTrip(t *testing.T) {
	a := ifrt.Attributes{"s": "slice", "b": true, "i": int64(-3), "l": []int64{1, 2, 3}, "f": float32(1.5), "empty": []int64{}}
	p, err := wire.AttributesToProto(a)
	if err != nil {
		t.Fatal(err)
	}
	back, err := wire.AttributesFromProto(p)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(a, back); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
	if _, err := wire.AttributesToProto(ifrt.Attributes{"x": struct{}{}}); !errors.Is(err, ifrt.ErrInvalidArgument) {
		t.Errorf("unsupported value error = %v", err)
	}
	empty := &proxypb.AttributeMapProto{Attributes: map[string]*proxypb.AttributeMapProto_Value{"x": {}}}
	if _, err := wire.AttributesFromProto(empty); !errors.Is(err, ifrt.ErrInvalidArgument) {
		t.Errorf("empty value error = %v", err)
	}
}

func TestCopyAndShardSemantics(t *testing.T) {
	for _, s := range []ifrt.CopySemantics{ifrt.AlwaysCopy, ifrt.ReuseInput, ifrt.DonateInput} {
		back, err := wire.CopySemanticsFromProto(wire.CopySemanticsToProto(s))
		if err != nil || back != s {
			t.Errorf("round trip of %v = %v, %v", s, back, err)
		}
	}
	if _, err := wire.CopySemanticsFromProto(proxypb.ArrayCopySemantics_ARRAY_COPY_SEMANTICS_UNSPECIFIED); !errors.Is(err, ifrt.ErrInvalidArgument) {
		t.Errorf("unspecified error = %v", err)
	}
	for _, s := range []wire.ShardSemantics{wire.AllShards, wire.AddressableShards} {
		back, err := wire.ShardSemanticsFromProto(wire.ShardSemanticsToProto(s))
		if err != nil || back != s {
			t.Errorf("round trip of %v = %v, %v", s, back, err)
		}
	}
	if s, err := wire.ShardSemanticsFromProto(nil); s != wire.AllShards || err != nil {
		t.Errorf("absent = %v, %v", s, err)
	}
}

func TestByteStrides(t *testing.T) {
	if wire.ByteStridesToProto(nil) != nil || wire.ByteStridesFromProto(nil) != nil {
		t.Error("nil strides must stay nil")
	}
	if got := wire.ByteStridesFromProto(wire.ByteStridesToProto([]int64{})); got == nil || len(got) != 0 {
		t.Errorf("empty strides = %#v", got)
	}
	if got := wire.ByteStridesFromProto(wire.ByteStridesToProto([]int64{16, 4})); !cmp.Equal(got, []int64{16, 4}) {
		t.Errorf("strides = %v", got)
	}
}

func TestRemapPlanRoundTrip(t *testing.T) {
	in := ifrt.ArraySpec{DType: ifrt.F32, Shape: ifrt.Shape{2}, Sharding: ifrt.NewSingleDeviceSharding(testDevices[0], "")}
	out, _ := ifrt.NewTiledSharding(devs(0, 1), 2)
	plan := ifrt.RemapPlan{
		InputSpecs:  []ifrt.ArraySpec{in, in},
		OutputSpecs: []ifrt.ArraySpec{{DType: ifrt.F32, Shape: ifrt.Shape{4}, Sharding: out}},
		Mappings: []ifrt.RemapMapping{
			{InArray: 0, OutArray: 0, From: []ifrt.Interval{{Start: 0, End: 1, Step: 1}}, To: []ifrt.Interval{{Start: 0, End: 1, Step: 1}}},
			{InArray: 1, OutArray: 0, From: []ifrt.Interval{{Start: 0, End: 1, Step: 1}}, To: []ifrt.Interval{{Start: 1, End: 2, Step: 1}}},
		},
	}
	p, err := wire.RemapPlanToProto(plan)
	if err != nil {
		t.Fatal(err)
	}
	back, err := wire.RemapPlanFromProto(p, lookup)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(plan, back, cmpOpts); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
	p.Mappings[0].InArray = 5
	if _, err := wire.RemapPlanFromProto(p, lookup); !errors.Is(err, ifrt.ErrInvalidArgument) {
		t.Errorf("out of range mapping error = %v", err)
	}
	p.Mappings[0].InArray = 0
	p.Mappings[0].FromStep = nil
	if _, err := wire.RemapPlanFromProto(p, lookup); !errors.Is(err, ifrt.ErrInvalidArgument) {
		t.Errorf("ragged intervals error = %v", err)
	}
}

func TestExecuteOptionsRoundTrip(t *testing.T) {
	o := &ifrt.ExecuteOptions{NonDonatableInputs: []int{0, 3}, FillStatus: true, LaunchID: 7}
	back, err := wire.ExecuteOptionsFromProto(wire.ExecuteOptionsToProto(o))
	if err != nil || !cmp.Equal(o, back) {
		t.Errorf("round trip = %+v, %v", back, err)
	}
	if d, err := wire.ExecuteOptionsFromProto(nil); err != nil || d.FillStatus {
		t.Errorf("nil options = %+v, %v", d, err)
	}
	if _, err := wire.ExecuteOptionsFromProto(&proxypb.ExecuteOptionsProto{NonDonatableInputIndices: []int32{-1}}); !errors.Is(err, ifrt.ErrInvalidArgument) {
		t.Errorf("negative index error = %v", err)
	}
}

func TestErrors(t *testing.T) {
	sentinels := map[ifrt.Code]error{
		ifrt.Canceled: ifrt.ErrCanceled, ifrt.Unknown: ifrt.ErrUnknown, ifrt.InvalidArgument: ifrt.ErrInvalidArgument,
		ifrt.DeadlineExceeded: ifrt.ErrDeadlineExceeded, ifrt.NotFound: ifrt.ErrNotFound, ifrt.AlreadyExists: ifrt.ErrAlreadyExists,
		ifrt.PermissionDenied: ifrt.ErrPermissionDenied, ifrt.ResourceExhausted: ifrt.ErrResourceExhausted,
		ifrt.FailedPrecondition: ifrt.ErrFailedPrecondition, ifrt.Aborted: ifrt.ErrAborted, ifrt.OutOfRange: ifrt.ErrOutOfRange,
		ifrt.Unimplemented: ifrt.ErrUnimplemented, ifrt.Internal: ifrt.ErrInternal, ifrt.Unavailable: ifrt.ErrUnavailable,
		ifrt.DataLoss: ifrt.ErrDataLoss, ifrt.Unauthenticated: ifrt.ErrUnauthenticated,
	}
	for code, sentinel := range sentinels {
		t.Run(code.String(), func(t *testing.T) {
			orig := ifrt.Errorf(code, "boom %d", code)
			st := wire.ErrorToStatus(orig)
			if int32(st.GetCode()) != int32(code) || st.GetMessage() != orig.Error() {
				t.Errorf("ErrorToStatus = %v", st)
			}
			back := wire.StatusToError(st)
			if !errors.Is(back, sentinel) || back.Error() != orig.Error() {
				t.Errorf("StatusToError = %v, not %v", back, sentinel)
			}
			g := rpc.ToStatus(orig)
			if status.Code(g) != codes.Code(code) {
				t.Errorf("ErrorToGRPC code = %v", status.Code(g))
			}
			back = rpc.FromStatus(g)
			if !errors.Is(back, sentinel) || back.Error() != orig.Error() {
				t.Errorf("ErrorFromGRPC = %v, not %v", back, sentinel)
			}
		})
	}
	if wire.ErrorToStatus(nil) != nil || wire.StatusToError(nil) != nil || wire.StatusToError(&proxypb.StatusProto{}) != nil {
		t.Error("nil and OK must map to nil")
	}
	if rpc.ToStatus(nil) != nil || rpc.FromStatus(nil) != nil {
		t.Error("nil must stay nil")
	}
	if st := wire.ErrorToStatus(fmt.Errorf("plain")); st.GetCode() != proxypb.Code_UNKNOWN {
		t.Errorf("plain error code = %v", st.GetCode())
	}
	if err := wire.StatusToError(&proxypb.StatusProto{Code: 55, Message: "odd"}); !errors.Is(err, ifrt.ErrUnknown) {
		t.Errorf("out-of-range code = %v", err)
	}
	if g := status.Error(codes.NotFound, "x"); rpc.ToStatus(g) != g {
		t.Error("a gRPC status error must pass through")
	}
}

func TestNegotiateVersion(t *testing.T) {
	v := func(p, s int32) *proxypb.IfrtProxyVersion {
		return &proxypb.IfrtProxyVersion{ProtocolVersion: p, IfrtSerdesVersionNumber: s}
	}
	tests := []struct {
		name     string
		min, max *proxypb.IfrtProxyVersion
		want     *proxypb.IfrtProxyVersion
	}{
		{"jaxlib 0.10.2", v(16, 0), v(25, 3), v(25, 3)},
		{"older client", v(16, 0), v(23, 2), v(23, 2)},
		{"newer client", v(16, 0), v(wire.ProtocolMax+5, 9), v(wire.ProtocolMax, wire.SerDesMax)},
		{"exact", v(wire.ProtocolMin, 0), v(wire.ProtocolMin, 0), v(wire.ProtocolMin, 0)},
		// Issue 11: [INT_MIN, INT_MAX] negotiated SerDes 2147483647.
		{"widest range", v(math.MinInt32, math.MinInt32), v(math.MaxInt32, math.MaxInt32), v(wire.ProtocolMax, wire.SerDesMax)},
	}
	for _, tc := range tests {
		got, err := wire.NegotiateVersion(tc.min, tc.max)
		if err != nil || !proto.Equal(got, tc.want) {
			t.Errorf("%s: NegotiateVersion = %v, %v; want %v", tc.name, got, err, tc.want)
		}
		if got.GetProtocolVersion() < tc.min.GetProtocolVersion() || got.GetProtocolVersion() > tc.max.GetProtocolVersion() ||
			got.GetIfrtSerdesVersionNumber() < tc.min.GetIfrtSerdesVersionNumber() || got.GetIfrtSerdesVersionNumber() > tc.max.GetIfrtSerdesVersionNumber() {
			t.Errorf("%s: answer %v outside the client's range", tc.name, got)
		}
		if got.GetIfrtSerdesVersionNumber() > wire.SerDesMax {
			t.Errorf("%s: SerDes %d is newer than this module's %d", tc.name, got.GetIfrtSerdesVersionNumber(), wire.SerDesMax)
		}
	}
	for _, bad := range [][2]*proxypb.IfrtProxyVersion{
		{v(3, 0), v(wire.ProtocolMin-1, 0)},
		{v(wire.ProtocolMax+1, 0), v(wire.ProtocolMax+3, 0)},
		{v(20, 0), v(18, 0)},
		{nil, v(20, 0)},
		{v(16, 3), v(20, 1)},
		{v(16, wire.SerDesMax+1), v(20, wire.SerDesMax+4)},
	} {
		if _, err := wire.NegotiateVersion(bad[0], bad[1]); !errors.Is(err, ifrt.ErrInvalidArgument) {
			t.Errorf("NegotiateVersion(%v, %v) error = %v, want InvalidArgument", bad[0], bad[1], err)
		}
	}
	if !wire.StatusPolledWithCheckFuture(20) || wire.StatusPolledWithCheckFuture(21) {
		t.Error("StatusPolledWithCheckFuture branches at 21")
	}
	if wire.HostBufferLayoutAllowed(22) || !wire.HostBufferLayoutAllowed(23) || wire.BitcastAllowed(23) || !wire.BitcastAllowed(24) {
		t.Error("version branches are wrong")
	}
	if wire.ServerHandleMin != 1<<48 {
		t.Error("ServerHandleMin")
	}
}
