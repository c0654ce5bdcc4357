package cluster_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/openpathways/pathways/cluster/local"
	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/internal/golden"
	"github.com/openpathways/pathways/internal/testenv"
)

func loadGolden(t *testing.T, pattern string) map[string][]byte {
	t.Helper()
	files := golden.Files(t, "../internal/stablehlo/testdata/golden/"+pattern+".json", 1)
	out := map[string][]byte{}
	for _, f := range files {
		out[strings.TrimSuffix(f, ".json")] = golden.ReadFile(t, f)
	}
	return out
}

// runGolden compiles one golden program over devices and checks its outputs
// against JAX's, with the arguments placed as the parameters want. It returns
// the outputs.
func runGolden(ctx context.Context, t *testing.T, c ifrt.Client, devices ifrt.DeviceList, base string, js []byte) [][]byte {
	t.Helper()
	var g golden.Case
	if err := json.Unmarshal(js, &g); err != nil {
		t.Fatal(err)
	}
	exe, err := c.Compile(ctx, &ifrt.MLIRProgram{Module: golden.ReadFile(t, base+".mlirbc")}, &ifrt.CompileOptions{Devices: devices})
	if err != nil {
		t.Fatalf("Compile: %v", err)
	}
	defer exe.Delete()
	var args []ifrt.Array
	for i, p := range exe.Parameters() {
		op := ifrt.Replicated()
		if p.OpSharding != nil {
			op = *p.OpSharding
		}
		s, err := ifrt.NewHloSharding(devices, "", op)
		if err != nil {
			t.Fatal(err)
		}
		data, _ := base64.StdEncoding.DecodeString(g.Inputs[i].Data)
		a, err := c.MakeArrayFromHostBuffer(ctx, data, ifrt.ArraySpec{DType: p.DType, Shape: p.Shape, Sharding: s}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer a.Delete()
		args = append(args, a)
	}
	res, err := exe.Execute(ctx, args, nil)
	if err != nil {
		t.Fatalf("Execute: %v", err)
	}
	var outs [][]byte
	for k, out := range res.Outputs {
		want, _ := base64.StdEncoding.DecodeString(g.Outputs[k].Data)
		got := make([]byte, len(want))
		if err := out.CopyToHostBuffer(ctx, got, nil); err != nil {
			t.Fatalf("output %d: %v", k, err)
		}
		if msg := golden.Match(g.Outputs[k].Type, got, want, g.RTol, g.ATol); msg != "" {
			t.Errorf("output %d: %s", k, msg)
		}
		out.Delete()
		outs = append(outs, got)
	}
	return outs
}

// TestGangShardMap runs JAX's shard_map programs (psum, all_gather,
// ppermute, psum_scatter, all_to_all, axis_index; GSPMD and Shardy) over
// all 8 devices of clusters whose devices are on several workers: 2 slices
// of 4, one slice of 2 hosts of 4, 2 slices of 2 hosts of 2. The collectives
// cross workers; results match JAX's.
func TestGangShardMap(t *testing.T) {
	programs := loadGolden(t, "shard_map_*")
	for _, shape := range []local.Config{
		{Slices: 2, DevicesPerSlice: 4},
		{Slices: 1, HostsPerSlice: 2, DevicesPerSlice: 4},
		{Slices: 2, HostsPerSlice: 2, DevicesPerSlice: 2},
	} {
		t.Run(fmt.Sprintf("%dslices_%dhosts", shape.Slices, max(shape.HostsPerSlice, 1)), func(t *testing.T) {
			shape.NoProxy = true
			l := startLocal(t, shape)
			ctx := testenv.Context(t, defaultTestTimeout)
			for base, js := range programs {
				t.Run(filepath.Base(base), func(t *testing.T) {
					runGolden(ctx, t, l.Client, spread(t, l.Client.Devices(), base), base, js)
				})
			}
		})
	}
}

var numPartitions = regexp.MustCompile(`mhlo.num_partitions = (\d+)`)

// spread picks as many devices as the program has partitions, evenly over
// all of them (every other one for 4 of 8), so that they span workers.
func spread(t *testing.T, all ifrt.DeviceList, base string) ifrt.DeviceList {
	t.Helper()
	m := numPartitions.FindSubmatch(golden.ReadFile(t, base+".mlir"))
	if m == nil {
		t.Fatalf("%s.mlir names no mhlo.num_partitions", base)
	}
	n, _ := strconv.Atoi(string(m[1]))
	var out ifrt.DeviceList
	for i := range n {
		out = append(out, all[i*len(all)/n])
	}
	return out
}
