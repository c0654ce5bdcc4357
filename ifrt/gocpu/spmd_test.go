package gocpu_test

import (
	"context"
	"encoding/base64"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/ifrt/gocpu"
	"github.com/openpathways/pathways/internal/golden"
	"github.com/openpathways/pathways/internal/testenv"
)

// TestShardMapPrograms runs the corpus's shard_map programs (JAX's shard_map
// with psum, all_gather, ppermute, psum_scatter, all_to_all and axis_index,
// written by GSPMD and by Shardy) on gocpu devices, one process per device:
// with arguments sharded as the parameters want and with arguments on one
// device. Outputs keep one shard per device, placed as the executable's
// output shardings say, and hold JAX's results.
func TestShardMapPrograms(t *testing.T) {
	files := golden.Files(t, "../../internal/stablehlo/testdata/golden/shard_map_*.json", 10)
	ctx := context.Background()
	c := newClient(t, gocpu.Config{Devices: 8})
	for _, f := range files {
		g := golden.Load(t, f)
		base := strings.TrimSuffix(f, ".json")
		for _, form := range []string{".mlir", ".mlirbc"} {
			t.Run(g.Name+form, func(t *testing.T) {
				exe, err := c.Compile(ctx, &ifrt.MLIRProgram{Module: golden.ReadFile(t, base+form)}, nil)
				if err != nil {
					t.Fatalf("Compile: %v", err)
				}
				defer exe.Delete()
				devices := exe.Devices()
				for _, placed := range []bool{true, false} {
					var args []ifrt.Array
					for i, p := range exe.Parameters() {
						s := ifrt.Sharding(ifrt.NewSingleDeviceSharding(devices[0], ""))
						if placed {
							op := ifrt.Replicated()
							if p.OpSharding != nil {
								op = *p.OpSharding
							}
							if s, err = ifrt.NewHloSharding(devices, "", op); err != nil {
								t.Fatal(err)
							}
						}
						data := decodeB64(t, g.Inputs[i].Data)
						a, err := c.MakeArrayFromHostBuffer(ctx, data, ifrt.ArraySpec{DType: p.DType, Shape: p.Shape, Sharding: s}, nil)
						if err != nil {
							t.Fatal(err)
						}
						args = append(args, a)
					}
					res, err := exe.Execute(ctx, args, nil)
					if err != nil {
						t.Fatalf("Execute (arguments placed as the parameters: %v): %v", placed, err)
					}
					for k, out := range res.Outputs {
						if got := out.Sharding().Devices(); len(got) != len(devices) {
							t.Errorf("output %d has shards on %d devices, want %d", k, len(got), len(devices))
						}
						if info := exe.Outputs()[k]; !out.Shape().Equal(info.Shape) {
							t.Errorf("output %d has shape %v, want %v", k, out.Shape(), info.Shape)
						}
					}
					golden.CheckOutputs(ctx, t, res.Outputs, g)
					for _, a := range args {
						a.Delete()
					}
				}
			})
		}
	}
	if a, e := c.Live(); a != 0 || e != 0 {
		t.Errorf("the client holds %d arrays and %d executables after the test", a, e)
	}
}

// A partition that never reaches its collective does not hang the
// execution: the context ends it, and no outputs are made.
func TestPartitionedExecutionHonoursContext(t *testing.T) {
	src := golden.StuckAllReduce
	c := newClient(t, gocpu.Config{Devices: 2})
	exe, err := c.Compile(context.Background(), &ifrt.MLIRProgram{Module: []byte(src)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	s, err := ifrt.NewHloSharding(c.Devices(), "", ifrt.Replicated())
	if err != nil {
		t.Fatal(err)
	}
	x, err := c.MakeArrayFromHostBuffer(context.Background(), make([]byte, 12), ifrt.ArraySpec{DType: ifrt.F32, Shape: ifrt.Shape{3}, Sharding: s}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := testenv.Context(t, 100*time.Millisecond)
	if _, err := exe.Execute(ctx, []ifrt.Array{x}, nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Execute = %v, want context.DeadlineExceeded", err)
	}
	if a, _ := c.Live(); a != 1 {
		t.Errorf("the client holds %d arrays, want only the argument", a)
	}
}

func decodeB64(t *testing.T, s string) []byte {
	t.Helper()
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
