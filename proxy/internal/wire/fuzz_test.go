package wire_test

import (
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/internal/xlapb"
	"github.com/openpathways/pathways/proxy/internal/wire"
	"github.com/openpathways/pathways/proxy/proxypb"
)

// Each fuzz target feeds random bytes through proto.Unmarshal into one
// decoder. Decoders must never panic; what they accept must also survive the
// ifrt calls a server makes next (IndexDomains, re-encoding).

func seed(f *testing.F, msgs ...proto.Message) {
	f.Helper()
	for _, m := range msgs {
		b, err := proto.Marshal(m)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte{})
	f.Add([]byte{0xff, 0x01, 0x02})
}

func shardingSeeds(f *testing.F) []proto.Message {
	tiled, _ := ifrt.NewTiledSharding(devs(0, 1, 2, 3, 4, 5, 6, 7), 2, 4)
	var out []proto.Message
	for _, s := range []ifrt.Sharding{
		tiled,
		ifrt.NewSingleDeviceSharding(testDevices[1], "device"),
		&ifrt.ConcreteEvenSharding{DeviceList: devs(0, 1), Shape: ifrt.Shape{4, 2}, ShardShape: ifrt.Shape{2, 2}},
		&ifrt.ConcreteSharding{DeviceList: devs(0, 1), Shape: ifrt.Shape{3}, ShardShapes: []ifrt.Shape{{1}, {2}}},
	} {
		p, err := wire.ShardingToProto(s)
		if err != nil {
			f.Fatal(err)
		}
		out = append(out, p)
	}
	b, _ := proto.Marshal(&proxypb.ShardingParamShardingProto{
		ShardingParam: &proxypb.ShardingParamProto{DimShards: []int64{2, 4}, Permutation: []int32{0, 1}, AxisSizes: []int32{2, 4}},
		Devices:       &proxypb.DeviceListProto{DeviceIds: []int32{0, 1, 2, 3, 4, 5, 6, 7}},
	})
	out = append(out, &proxypb.ShardingProto{SerializedSharding: &proxypb.Serialized{TypeName: wire.TypeShardingParamSharding, Data: b}})
	return out
}

func FuzzShardingFromProto(f *testing.F) {
	seed(f, shardingSeeds(f)...)
	f.Fuzz(func(t *testing.T, b []byte) {
		var p proxypb.ShardingProto
		if proto.Unmarshal(b, &p) != nil {
			return
		}
		s, err := wire.ShardingFromProto(&p, lookup)
		if err != nil {
			return
		}
		_, _ = s.IndexDomains(ifrt.Shape{4, 8})
		_ = s.IsFullyReplicated()
		_ = s.String()
		if _, err := wire.ShardingToProto(s); err != nil {
			t.Errorf("a decoded sharding %v does not encode: %v", s, err)
		}
	})
}

// FuzzShardingPayload fuzzes the payload of each sharding type name.
func FuzzShardingPayload(f *testing.F) {
	for _, m := range shardingSeeds(f) {
		ser := m.(*proxypb.ShardingProto).GetSerializedSharding()
		f.Add(ser.GetTypeName(), ser.GetData())
	}
	f.Add(wire.TypeOpaqueSharding, []byte{})
	f.Fuzz(func(t *testing.T, typeName string, data []byte) {
		p := &proxypb.ShardingProto{SerializedSharding: &proxypb.Serialized{TypeName: typeName, Data: data}}
		if s, err := wire.ShardingFromProto(p, lookup); err == nil {
			_, _ = s.IndexDomains(ifrt.Shape{8})
		}
	})
}

func FuzzArraySpecFromProto(f *testing.F) {
	tiled, _ := ifrt.NewTiledSharding(devs(0, 1, 2, 3), 2, 2)
	p, _ := wire.ArraySpecToProto(ifrt.ArraySpec{DType: ifrt.F32, Shape: ifrt.Shape{4, 4}, Sharding: tiled, Layout: ifrt.RowMajorLayout(2)})
	seed(f, p)
	f.Fuzz(func(t *testing.T, b []byte) {
		var p proxypb.ArraySpecProto
		if proto.Unmarshal(b, &p) != nil {
			return
		}
		s, err := wire.ArraySpecFromProto(&p, lookup)
		if err != nil {
			return
		}
		if _, err := s.Sharding.IndexDomains(s.Shape); err != nil {
			t.Errorf("a validated spec %v has no index domains: %v", s, err)
		}
		_, _ = ifrt.StridedRegionSize(s.DType, s.Shape, nil)
	})
}

func FuzzOpShardingFromProto(f *testing.F) {
	tiled, _ := ifrt.Tiled([]int64{2, 2}, 8)
	seed(f, wire.OpShardingToProto(tiled), wire.OpShardingToProto(ifrt.OpSharding{Type: ifrt.OpShardingTuple, TupleShardings: []ifrt.OpSharding{ifrt.Replicated()}}))
	f.Fuzz(func(t *testing.T, b []byte) {
		var p xlapb.OpSharding
		if proto.Unmarshal(b, &p) != nil {
			return
		}
		o, err := wire.OpShardingFromProto(&p)
		if err != nil {
			return
		}
		_ = o.String()
		if s, err := ifrt.NewHloSharding(devs(0, 1, 2, 3, 4, 5, 6, 7), "", o); err == nil {
			_, _ = s.IndexDomains(ifrt.Shape{8, 8})
		}
	})
}

func FuzzLayoutFromProto(f *testing.F) {
	p, _ := wire.LayoutToProto(ifrt.RowMajorLayout(3))
	c, _ := proto.Marshal(&proxypb.CompactLayoutProto{MajorToMinor: []int32{0, 1}})
	seed(f, p, &proxypb.LayoutProto{SerializedLayout: &proxypb.Serialized{TypeName: wire.TypeCompactLayout, Data: c}})
	f.Fuzz(func(t *testing.T, b []byte) {
		var p proxypb.LayoutProto
		if proto.Unmarshal(b, &p) != nil {
			return
		}
		if l, err := wire.LayoutFromProto(&p); err == nil && l != nil {
			_ = l.IsRowMajor()
		}
	})
}

func FuzzXLALayoutFromBytes(f *testing.F) {
	b, _ := wire.XLALayoutToBytes(ifrt.RowMajorLayout(2))
	f.Add(b)
	f.Add([]byte{})
	f.Add([]byte("{1,0:T(8,128)}"))
	pb, _ := proto.Marshal(&xlapb.LayoutProto{MinorToMajor: []int64{0}})
	f.Add(pb)
	f.Fuzz(func(t *testing.T, b []byte) {
		if l, err := wire.XLALayoutFromBytes(b); err == nil {
			_ = l.IsRowMajor()
		}
	})
}

func FuzzAttributesFromProto(f *testing.F) {
	p, _ := wire.AttributesToProto(ifrt.Attributes{"a": "b", "c": int64(1), "d": []int64{1}, "e": float32(2), "f": true})
	seed(f, p)
	f.Fuzz(func(t *testing.T, b []byte) {
		var p proxypb.AttributeMapProto
		if proto.Unmarshal(b, &p) != nil {
			return
		}
		a, err := wire.AttributesFromProto(&p)
		if err != nil {
			return
		}
		if _, err := wire.AttributesToProto(a); err != nil {
			t.Errorf("decoded attributes do not encode: %v", err)
		}
	})
}

func FuzzRemapPlanFromProto(f *testing.F) {
	in := ifrt.ArraySpec{DType: ifrt.F32, Shape: ifrt.Shape{2}, Sharding: ifrt.NewSingleDeviceSharding(testDevices[0], "")}
	p, _ := wire.RemapPlanToProto(ifrt.RemapPlan{
		InputSpecs: []ifrt.ArraySpec{in}, OutputSpecs: []ifrt.ArraySpec{in},
		Mappings: []ifrt.RemapMapping{{From: []ifrt.Interval{{Start: 0, End: 1, Step: 1}}, To: []ifrt.Interval{{Start: 0, End: 1, Step: 1}}}},
	})
	seed(f, p)
	f.Fuzz(func(t *testing.T, b []byte) {
		var p proxypb.RemapPlanProto
		if proto.Unmarshal(b, &p) != nil {
			return
		}
		_, _ = wire.RemapPlanFromProto(&p, lookup)
	})
}

func FuzzExecuteOptionsFromProto(f *testing.F) {
	seed(f, wire.ExecuteOptionsToProto(&ifrt.ExecuteOptions{NonDonatableInputs: []int{1}, FillStatus: true}))
	f.Fuzz(func(t *testing.T, b []byte) {
		var p proxypb.ExecuteOptionsProto
		if proto.Unmarshal(b, &p) != nil {
			return
		}
		_, _ = wire.ExecuteOptionsFromProto(&p)
	})
}

func FuzzStatusToError(f *testing.F) {
	seed(f, wire.ErrorToStatus(ifrt.Errorf(ifrt.NotFound, "x")))
	f.Fuzz(func(t *testing.T, b []byte) {
		var p proxypb.StatusProto
		if proto.Unmarshal(b, &p) != nil {
			return
		}
		err := wire.StatusToError(&p)
		if err != nil && ifrt.CodeOf(err) == ifrt.OK {
			t.Errorf("non-nil error %v has code OK", err)
		}
	})
}

func FuzzDTypeShapeFromProto(f *testing.F) {
	seed(f, wire.ShapeToProto(ifrt.Shape{2, 3}))
	f.Fuzz(func(t *testing.T, b []byte) {
		var d proxypb.DTypeProto
		if proto.Unmarshal(b, &d) == nil {
			_, _ = wire.DTypeFromProto(&d)
		}
		var s proxypb.ShapeProto
		if proto.Unmarshal(b, &s) == nil {
			if sh, err := wire.ShapeFromProto(&s); err == nil {
				_, _ = sh.ByteSize(ifrt.F64)
			}
		}
		var v proxypb.IfrtProxyVersion
		if proto.Unmarshal(b, &v) == nil {
			_, _ = wire.NegotiateVersion(&v, &v)
		}
	})
}
