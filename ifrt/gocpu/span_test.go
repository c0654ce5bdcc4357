package gocpu_test

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/ifrt/gocpu"
	"github.com/openpathways/pathways/internal/golden"
	"github.com/openpathways/pathways/internal/stablehlo/communicatortest"
)

// TestSpanExecution runs the corpus's SPMD programs (shard_map with
// collectives, and auto-sharded GSPMD and Shardy ones) as two clients that
// each hold half of the devices, as two workers of a gang do, connected by
// byte streams: every block of every output equals the one a single client
// computes over all the devices.
func TestSpanExecution(t *testing.T) {
	files := golden.Files(t, "../../internal/stablehlo/testdata/golden/shard*_*.json", 12)
	ctx := context.Background()
	for _, f := range files {
		g := golden.Load(t, f)
		src := golden.ReadFile(t, strings.TrimSuffix(f, ".json")+".mlirbc")
		t.Run(g.Name, func(t *testing.T) {
			ref := newClient(t, gocpu.Config{Devices: 8})
			exe, err := ref.Compile(ctx, &ifrt.MLIRProgram{Module: src}, nil)
			if err != nil {
				t.Fatal(err)
			}
			n := len(exe.Devices())
			if n < 2 {
				t.Skipf("%d partition", n)
			}
			var refArgs []ifrt.Array
			argBlocks := make([][][]byte, len(exe.Parameters())) // by argument, partition
			for i, p := range exe.Parameters() {
				op := ifrt.Replicated()
				if p.OpSharding != nil {
					op = *p.OpSharding
				}
				s, err := ifrt.NewHloSharding(exe.Devices(), "", op)
				if err != nil {
					t.Fatal(err)
				}
				a, err := ref.MakeArrayFromHostBuffer(ctx, decodeB64(t, g.Inputs[i].Data), ifrt.ArraySpec{DType: p.DType, Shape: p.Shape, Sharding: s}, nil)
				if err != nil {
					t.Fatal(err)
				}
				refArgs = append(refArgs, a)
				argBlocks[i] = blocksOf(t, ref, a)
			}
			res, err := exe.Execute(ctx, refArgs, nil)
			if err != nil {
				t.Fatal(err)
			}

			half := n / 2
			clients := []*gocpu.Client{
				newClient(t, gocpu.Config{Devices: half}),
				newClient(t, gocpu.Config{Devices: n - half, FirstDeviceID: half}),
			}
			devices := exe.Devices().IDs()
			streams := communicatortest.Pipes(n)
			remote := func(p int) gocpu.Communicator { return streams[p] }
			outs := make([][][]ifrt.Array, len(clients))
			errs := make([]error, len(clients))
			var wg sync.WaitGroup
			for w, c := range clients {
				span, err := c.CompileSpan(ctx, &ifrt.MLIRProgram{Module: src}, devices)
				if err != nil {
					t.Fatal(err)
				}
				args := make([][]ifrt.Array, len(argBlocks))
				for i, blocks := range argBlocks {
					for _, p := range span.LocalPartitions() {
						d, err := c.LookupDevice(devices[p])
						if err != nil {
							t.Fatal(err)
						}
						info := span.Parameters()[i]
						spec := ifrt.ArraySpec{DType: info.DType, Shape: span.BlockShape(i, false, p), Sharding: ifrt.NewSingleDeviceSharding(d, "")}
						a, err := c.MakeArrayFromHostBuffer(ctx, blocks[p], spec, nil)
						if err != nil {
							t.Fatal(err)
						}
						args[i] = append(args[i], a)
					}
				}
				wg.Add(1)
				go func() {
					defer wg.Done()
					outs[w], errs[w] = span.Execute(ctx, args, remote)
				}()
			}
			wg.Wait()
			for w := range clients {
				if errs[w] != nil {
					t.Fatalf("client %d: %v", w, errs[w])
				}
				for k, out := range res.Outputs {
					want := blocksOf(t, ref, out)
					for j, block := range outs[w][k] {
						p := w*half + j
						got := make([]byte, len(want[p]))
						if err := block.CopyToHostBuffer(ctx, got, nil); err != nil {
							t.Fatal(err)
						}
						if !bytes.Equal(got, want[p]) {
							t.Errorf("output %d partition %d on client %d differs from a single client's", k, p, w)
						}
					}
				}
			}
		})
	}
}

func newClient(t *testing.T, cfg gocpu.Config) *gocpu.Client {
	t.Helper()
	c, err := gocpu.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// blocksOf returns each shard of a, in the order of its sharding's devices.
func blocksOf(t *testing.T, c *gocpu.Client, a ifrt.Array) [][]byte {
	t.Helper()
	parts, err := c.DisassembleArray(context.Background(), a, ifrt.AlwaysCopy)
	if err != nil {
		t.Fatal(err)
	}
	out := make([][]byte, len(parts))
	for i, p := range parts {
		out[i] = make([]byte, p.Shape().NumElements()*int64(p.DType().HostByteSize()))
		if err := p.CopyToHostBuffer(context.Background(), out[i], nil); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// A client refusing its arguments fails the other clients' part too,
// through the Communicators, instead of leaving them waiting.
func TestSpanExecutionFailureReachesOtherClients(t *testing.T) {
	ctx := context.Background()
	streams := communicatortest.Pipes(2)
	remote := func(p int) gocpu.Communicator { return streams[p] }
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for w, shape := range []ifrt.Shape{{3}, {2}} {
		c := newClient(t, gocpu.Config{Devices: 1, FirstDeviceID: w})
		span, err := c.CompileSpan(ctx, &ifrt.MLIRProgram{Module: []byte(golden.PsumTwo)}, []ifrt.DeviceID{0, 1})
		if err != nil {
			t.Fatal(err)
		}
		spec := ifrt.ArraySpec{DType: ifrt.F32, Shape: shape, Sharding: ifrt.NewSingleDeviceSharding(c.Devices()[0], "")}
		a, err := c.MakeArrayFromHostBuffer(ctx, make([]byte, 4*shape.NumElements()), spec, nil)
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[w] = span.Execute(ctx, [][]ifrt.Array{{a}}, remote)
		}()
	}
	wg.Wait()
	if ifrt.CodeOf(errs[1]) != ifrt.InvalidArgument {
		t.Errorf("client with the bad block: %v, want InvalidArgument", errs[1])
	}
	if ifrt.CodeOf(errs[0]) != ifrt.Aborted {
		t.Errorf("the other client: %v, want Aborted", errs[0])
	}
}
