package stablehlo

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseHloSharding(t *testing.T) {
	for _, c := range []struct {
		in      string
		want    *HloSharding
		devices []int64
	}{
		{"{replicated}", &HloSharding{Type: ShardingReplicated}, nil},
		{"{manual}", &HloSharding{Type: ShardingManual}, nil},
		{"{unknown}", &HloSharding{Type: ShardingUnknown}, nil},
		{"{maximal device=3}", &HloSharding{Type: ShardingMaximal, TileAssignmentDims: []int64{1}, TileAssignmentDevices: []int64{3}}, []int64{3}},
		{"{devices=[2,2]0,2,1,3}", &HloSharding{Type: ShardingOther, TileAssignmentDims: []int64{2, 2}, TileAssignmentDevices: []int64{0, 2, 1, 3}}, []int64{0, 2, 1, 3}},
		{"{devices=[2,1,4]<=[8] last_tile_dim_replicate}", &HloSharding{Type: ShardingOther, TileAssignmentDims: []int64{2, 1, 4},
			IotaReshapeDims: []int64{8}, ReplicateOnLastTileDim: true}, []int64{0, 1, 2, 3, 4, 5, 6, 7}},
		{"{devices=[2,2]<=[2,2]T(1,0)}", &HloSharding{Type: ShardingOther, TileAssignmentDims: []int64{2, 2},
			IotaReshapeDims: []int64{2, 2}, IotaTransposePerm: []int64{1, 0}}, []int64{0, 2, 1, 3}},
		{"{devices=[2,1,2]<=[4] last_tile_dims={manual}}", &HloSharding{Type: ShardingOther, TileAssignmentDims: []int64{2, 1, 2},
			IotaReshapeDims: []int64{4}, LastTileDims: []string{"manual"}}, []int64{0, 1, 2, 3}},
		{"{devices=[2,2,2]<=[8] last_tile_dims={manual, replicated}}", &HloSharding{Type: ShardingOther, TileAssignmentDims: []int64{2, 2, 2},
			IotaReshapeDims: []int64{8}, LastTileDims: []string{"manual", "replicated"}}, []int64{0, 1, 2, 3, 4, 5, 6, 7}},
		{"{devices=[4,2]<=[2,4]T(1,0)}", &HloSharding{Type: ShardingOther, TileAssignmentDims: []int64{4, 2},
			IotaReshapeDims: []int64{2, 4}, IotaTransposePerm: []int64{1, 0}}, []int64{0, 4, 1, 5, 2, 6, 3, 7}},
		{"{replicated metadata={op_name=\"x\"}}", &HloSharding{Type: ShardingReplicated}, nil},
	} {
		t.Run(c.in, func(t *testing.T) {
			got, err := ParseHloSharding(c.in)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(c.devices, got.Devices()); diff != "" {
				t.Errorf("Devices() (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseHloShardingErrors(t *testing.T) {
	for _, c := range []struct {
		in   string
		code int
	}{
		{"", InvalidArgument},
		{"replicated", InvalidArgument},
		{"{devices=[2,2]0,1,2}", InvalidArgument},
		{"{devices=[2,2]<=[3]}", InvalidArgument},
		{"{devices=[2,2]<=[2,2]T(0,0)}", InvalidArgument},
		{"{devices=[0]<=[0]}", InvalidArgument},
		{"{maximal device=x}", InvalidArgument},
		{"{devices=[2]<=[2] bogus}", InvalidArgument},
		{"{{replicated}, {manual}}", Unimplemented},
	} {
		if _, err := ParseHloSharding(c.in); errorCode(err) != c.code {
			t.Errorf("ParseHloSharding(%q) error = %v, want code %d", c.in, err, c.code)
		}
	}
}

// TestGoldenShardings checks that the GSPMD (mhlo.sharding) and Shardy
// (sdy.sharding) lowerings of one program report the same shardings.
func TestGoldenShardings(t *testing.T) {
	shardings := func(name string) (params, results []string) {
		src, err := os.ReadFile(filepath.Join(goldenDir, name+".mlir"))
		if err != nil {
			t.Fatal(err)
		}
		m := mustParse(t, string(src))
		if m.NumPartitions() != 8 {
			t.Errorf("%s: NumPartitions() = %d, want 8", name, m.NumPartitions())
		}
		for _, v := range m.Main().Params() {
			params = append(params, v.Sharding)
			if _, err := ParseHloSharding(v.Sharding); err != nil {
				t.Errorf("%s: %v", name, err)
			}
		}
		for _, v := range m.Main().Results() {
			results = append(results, v.Sharding)
		}
		return params, results
	}
	wantParams := []string{"{devices=[2,4]<=[8]}", "{devices=[2,1,4]<=[8] last_tile_dim_replicate}"}
	wantResults := []string{"{devices=[2,1,4]<=[8] last_tile_dim_replicate}", "{replicated}"}
	for _, name := range []string{"sharded_spmd_gspmd", "sharded_spmd_shardy"} {
		p, r := shardings(name)
		if diff := cmp.Diff(wantParams, p); diff != "" {
			t.Errorf("%s params (-want +got):\n%s", name, diff)
		}
		if diff := cmp.Diff(wantResults, r); diff != "" {
			t.Errorf("%s results (-want +got):\n%s", name, diff)
		}
	}
}
