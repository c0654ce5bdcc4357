package ifrt_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/openpathways/pathways/ifrt"
)

func devices(n int) ifrt.DeviceList {
	out := make(ifrt.DeviceList, n)
	for i := range out {
		out[i] = &ifrt.Device{ID: ifrt.DeviceID(10 + i)}
	}
	return out
}

func dom(rs ...int64) ifrt.IndexDomain {
	d := make(ifrt.IndexDomain, len(rs)/2)
	for i := range d {
		d[i] = ifrt.Range{Start: rs[2*i], End: rs[2*i+1]}
	}
	return d
}

func TestIndexDomains(t *testing.T) {
	tests := []struct {
		name       string
		sharding   ifrt.Sharding
		shape      ifrt.Shape
		want       []ifrt.IndexDomain
		replicated bool
	}{{
		name:       "single device",
		sharding:   ifrt.NewSingleDeviceSharding(devices(1)[0], ""),
		shape:      ifrt.Shape{3, 4},
		want:       []ifrt.IndexDomain{dom(0, 3, 0, 4)},
		replicated: true,
	}, {
		name:     "rows over 2",
		sharding: &ifrt.HloSharding{DeviceList: devices(2), Spec: ifrt.OpSharding{Type: ifrt.OpShardingOther, TileAssignmentDimensions: []int64{2, 1}, TileAssignmentDevices: []int64{0, 1}}},
		shape:    ifrt.Shape{4, 3},
		want:     []ifrt.IndexDomain{dom(0, 2, 0, 3), dom(2, 4, 0, 3)},
	}, {
		name:     "uneven: 5 rows over 2 devices",
		sharding: &ifrt.HloSharding{DeviceList: devices(2), Spec: ifrt.OpSharding{Type: ifrt.OpShardingOther, TileAssignmentDimensions: []int64{2}, TileAssignmentDevices: []int64{0, 1}}},
		shape:    ifrt.Shape{5},
		want:     []ifrt.IndexDomain{dom(0, 3), dom(3, 5)},
	}, {
		name:     "uneven: 2 rows over 4 devices leaves empty shards",
		sharding: &ifrt.HloSharding{DeviceList: devices(4), Spec: ifrt.OpSharding{Type: ifrt.OpShardingOther, TileAssignmentDimensions: []int64{4}, IotaReshapeDims: []int64{4}}},
		shape:    ifrt.Shape{2},
		want:     []ifrt.IndexDomain{dom(0, 1), dom(1, 2), dom(2, 2), dom(2, 2)},
	}, {
		name:     "explicit device order",
		sharding: &ifrt.HloSharding{DeviceList: devices(2), Spec: ifrt.OpSharding{Type: ifrt.OpShardingOther, TileAssignmentDimensions: []int64{2}, TileAssignmentDevices: []int64{1, 0}}},
		shape:    ifrt.Shape{4},
		want:     []ifrt.IndexDomain{dom(2, 4), dom(0, 2)},
	}, {
		name:     "2x2 grid, iota transposed",
		sharding: &ifrt.HloSharding{DeviceList: devices(4), Spec: ifrt.OpSharding{Type: ifrt.OpShardingOther, TileAssignmentDimensions: []int64{2, 2}, IotaReshapeDims: []int64{2, 2}, IotaTransposePerm: []int32{1, 0}}},
		shape:    ifrt.Shape{4, 6},
		// Tiles in row-major order hold devices 0,2,1,3.
		want: []ifrt.IndexDomain{dom(0, 2, 0, 3), dom(2, 4, 0, 3), dom(0, 2, 3, 6), dom(2, 4, 3, 6)},
	}, {
		name:     "partial replication on the last tile dim",
		sharding: &ifrt.HloSharding{DeviceList: devices(4), Spec: ifrt.OpSharding{Type: ifrt.OpShardingOther, TileAssignmentDimensions: []int64{2, 2}, IotaReshapeDims: []int64{4}, ReplicateOnLastTileDim: true}},
		shape:    ifrt.Shape{6},
		want:     []ifrt.IndexDomain{dom(0, 3), dom(0, 3), dom(3, 6), dom(3, 6)},
	}, {
		name:     "replicated subgroup",
		sharding: &ifrt.HloSharding{DeviceList: devices(4), Spec: ifrt.OpSharding{Type: ifrt.OpShardingOther, TileAssignmentDimensions: []int64{1, 2, 2}, IotaReshapeDims: []int64{4}, LastTileDims: []ifrt.OpShardingType{ifrt.OpShardingReplicated}}},
		shape:    ifrt.Shape{2, 4},
		want:     []ifrt.IndexDomain{dom(0, 2, 0, 2), dom(0, 2, 0, 2), dom(0, 2, 2, 4), dom(0, 2, 2, 4)},
	}, {
		name:       "fully replicated",
		sharding:   &ifrt.HloSharding{DeviceList: devices(3), Spec: ifrt.Replicated()},
		shape:      ifrt.Shape{2},
		want:       []ifrt.IndexDomain{dom(0, 2), dom(0, 2), dom(0, 2)},
		replicated: true,
	}, {
		name:       "tiled with one tile per dim is replicated",
		sharding:   &ifrt.HloSharding{DeviceList: devices(2), Spec: ifrt.OpSharding{Type: ifrt.OpShardingOther, TileAssignmentDimensions: []int64{1, 2}, IotaReshapeDims: []int64{2}, ReplicateOnLastTileDim: true}},
		shape:      ifrt.Shape{3},
		want:       []ifrt.IndexDomain{dom(0, 3), dom(0, 3)},
		replicated: true,
	}, {
		name:     "concrete even",
		sharding: &ifrt.ConcreteEvenSharding{DeviceList: devices(4), Shape: ifrt.Shape{4, 6}, ShardShape: ifrt.Shape{2, 3}},
		shape:    ifrt.Shape{4, 6},
		want:     []ifrt.IndexDomain{dom(0, 2, 0, 3), dom(0, 2, 3, 6), dom(2, 4, 0, 3), dom(2, 4, 3, 6)},
	}, {
		name:       "concrete even replicated",
		sharding:   &ifrt.ConcreteEvenSharding{DeviceList: devices(2), Shape: ifrt.Shape{4}, ShardShape: ifrt.Shape{4}, FullyReplicated: true},
		shape:      ifrt.Shape{4},
		want:       []ifrt.IndexDomain{dom(0, 4), dom(0, 4)},
		replicated: true,
	}, {
		name:     "concrete stacks uneven rows",
		sharding: &ifrt.ConcreteSharding{DeviceList: devices(3), Shape: ifrt.Shape{6, 2}, ShardShapes: []ifrt.Shape{{1, 2}, {3, 2}, {2, 2}}},
		shape:    ifrt.Shape{6, 2},
		want:     []ifrt.IndexDomain{dom(0, 1, 0, 2), dom(1, 4, 0, 2), dom(4, 6, 0, 2)},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.sharding.IndexDomains(tc.shape)
			if err != nil {
				t.Fatalf("IndexDomains(%v): %v", tc.shape, err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("IndexDomains(%v) (-want +got):\n%s", tc.shape, diff)
			}
			if r := tc.sharding.IsFullyReplicated(); r != tc.replicated {
				t.Errorf("IsFullyReplicated() = %t, want %t", r, tc.replicated)
			}
		})
	}
}

func TestIndexDomainsErrors(t *testing.T) {
	tests := []struct {
		name     string
		sharding ifrt.Sharding
		shape    ifrt.Shape
		want     error
	}{
		{"rank mismatch", &ifrt.HloSharding{DeviceList: devices(2), Spec: ifrt.OpSharding{Type: ifrt.OpShardingOther, TileAssignmentDimensions: []int64{2}, IotaReshapeDims: []int64{2}}}, ifrt.Shape{2, 2}, ifrt.ErrInvalidArgument},
		{"too few devices", &ifrt.HloSharding{DeviceList: devices(2), Spec: ifrt.OpSharding{Type: ifrt.OpShardingOther, TileAssignmentDimensions: []int64{4}, IotaReshapeDims: []int64{4}}}, ifrt.Shape{4}, ifrt.ErrInvalidArgument},
		{"duplicate position", &ifrt.HloSharding{DeviceList: devices(2), Spec: ifrt.OpSharding{Type: ifrt.OpShardingOther, TileAssignmentDimensions: []int64{2}, TileAssignmentDevices: []int64{0, 0}}}, ifrt.Shape{4}, ifrt.ErrInvalidArgument},
		{"bad iota permutation", &ifrt.HloSharding{DeviceList: devices(4), Spec: ifrt.OpSharding{Type: ifrt.OpShardingOther, TileAssignmentDimensions: []int64{4}, IotaReshapeDims: []int64{2, 2}, IotaTransposePerm: []int32{0, 0}}}, ifrt.Shape{4}, ifrt.ErrInvalidArgument},
		{"manual", &ifrt.HloSharding{DeviceList: devices(2), Spec: ifrt.OpSharding{Type: ifrt.OpShardingManual}}, ifrt.Shape{4}, ifrt.ErrUnimplemented},
		{"huge tile assignment", &ifrt.HloSharding{DeviceList: devices(2), Spec: ifrt.OpSharding{Type: ifrt.OpShardingOther, TileAssignmentDimensions: []int64{1 << 40, 1 << 40}}}, ifrt.Shape{4, 4}, ifrt.ErrInvalidArgument},
		{"uneven concrete even", &ifrt.ConcreteEvenSharding{DeviceList: devices(2), Shape: ifrt.Shape{5}, ShardShape: ifrt.Shape{2}}, ifrt.Shape{5}, ifrt.ErrInvalidArgument},
		{"concrete rows do not add up", &ifrt.ConcreteSharding{DeviceList: devices(2), Shape: ifrt.Shape{5}, ShardShapes: []ifrt.Shape{{2}, {2}}}, ifrt.Shape{5}, ifrt.ErrInvalidArgument},
		{"negative dimension", ifrt.NewSingleDeviceSharding(devices(1)[0], ""), ifrt.Shape{-2}, ifrt.ErrInvalidArgument},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.sharding.IndexDomains(tc.shape)
			if !errorsIs(err, tc.want) {
				t.Errorf("IndexDomains(%v) = %v, want %v", tc.shape, err, tc.want)
			}
		})
	}
}

func TestTiledAndString(t *testing.T) {
	s, err := ifrt.NewTiledSharding(devices(8), 2, 2)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := s.Spec.String(), "{devices=[2,2,2]<=[8] last_tile_dim_replicate}"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	shard, err := ifrt.ShardShape(s, ifrt.Shape{4, 6})
	if err != nil || !shard.Equal(ifrt.Shape{2, 3}) {
		t.Errorf("ShardShape = %v, %v; want [2,3]", shard, err)
	}
	if _, err := ifrt.NewTiledSharding(devices(8), 3); err == nil {
		t.Errorf("3 tiles over 8 devices succeeded")
	}
	if _, err := ifrt.ShardShape(&ifrt.HloSharding{DeviceList: devices(2), Spec: ifrt.OpSharding{Type: ifrt.OpShardingOther, TileAssignmentDimensions: []int64{2}, IotaReshapeDims: []int64{2}}}, ifrt.Shape{3}); err == nil {
		t.Errorf("ShardShape of an uneven split succeeded")
	}
	perm := ifrt.OpSharding{Type: ifrt.OpShardingOther, TileAssignmentDimensions: []int64{2, 2}, IotaReshapeDims: []int64{2, 2}, IotaTransposePerm: []int32{1, 0}}
	if got, want := perm.String(), "{devices=[2,2]<=[2,2]T(1,0)}"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}

// TestTileShape: a device's shard is each dimension over its tile count,
// rounded up; subgroups replicate; what does not tile keeps the shape.
func TestTileShape(t *testing.T) {
	for _, c := range []struct {
		name  string
		spec  ifrt.OpSharding
		shape ifrt.Shape
		want  ifrt.Shape
	}{
		{"even", ifrt.OpSharding{Type: ifrt.OpShardingOther, TileAssignmentDimensions: []int64{4, 2}}, ifrt.Shape{8, 6}, ifrt.Shape{2, 3}},
		{"padded", ifrt.OpSharding{Type: ifrt.OpShardingOther, TileAssignmentDimensions: []int64{4, 1}}, ifrt.Shape{10, 3}, ifrt.Shape{3, 3}},
		{"replicated subgroup", ifrt.OpSharding{Type: ifrt.OpShardingOther, TileAssignmentDimensions: []int64{2, 4}, ReplicateOnLastTileDim: true}, ifrt.Shape{8}, ifrt.Shape{4}},
		{"replicated", ifrt.Replicated(), ifrt.Shape{8, 6}, ifrt.Shape{8, 6}},
		{"other rank", ifrt.OpSharding{Type: ifrt.OpShardingOther, TileAssignmentDimensions: []int64{2, 2}}, ifrt.Shape{8}, ifrt.Shape{8}},
	} {
		if got := c.spec.TileShape(c.shape); !cmp.Equal(got, c.want) {
			t.Errorf("%s: TileShape(%v) = %v, want %v", c.name, c.shape, got, c.want)
		}
	}
}
