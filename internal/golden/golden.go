// Package golden reads the programs with JAX's results that tests of more
// than one package run: the interpreter's corpus
// (internal/stablehlo/testdata/golden, scripts/gen_stablehlo_corpus.py) and
// the jax.export programs of pjrt/pjrtifrt/testdata (gen_programs.py). Each
// program NAME has NAME.mlir, often NAME.mlirbc, and NAME.json, a Case.
//
// Load and ReadFile fail the test on a missing or malformed file; Match
// compares outputs the way the corpus's tolerances mean. It is for tests
// only; its functions are safe for concurrent use.
package golden

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/openpathways/pathways/ifrt"
)

// Tensor is one input or output of a Case.
type Tensor struct {
	Type     string  `json:"type"`  // MLIR element type: "f32", "i1", "ui8", ...
	Shape    []int64 `json:"shape"` // nil for a scalar
	Data     string  `json:"data"`  // little-endian bytes, base64
	Sharding string  `json:"sharding"`
}

// Case is a program's JSON file: JAX's inputs and outputs, the tolerances
// for floating-point outputs, and for jax.export programs the devices and
// the donated parameters.
type Case struct {
	Name    string   `json:"name"`
	Devices int      `json:"devices"`
	Inputs  []Tensor `json:"inputs"`
	Outputs []Tensor `json:"outputs"`
	RTol    float64  `json:"rtol"`
	ATol    float64  `json:"atol"`
	Donated []int    `json:"donated"`
}

// ReadFile returns the file's contents or fails t.
func ReadFile(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Files returns the files pattern matches (a filepath.Glob pattern) or
// fails t when they are fewer than atLeast.
func Files(t testing.TB, pattern string, atLeast int) []string {
	t.Helper()
	files, err := filepath.Glob(pattern)
	if err != nil || len(files) < atLeast {
		t.Fatalf("%s: %d programs, want at least %d (%v)", pattern, len(files), atLeast, err)
	}
	return files
}

// Load reads the Case at path (a NAME.json) or fails t.
func Load(t testing.TB, path string) Case {
	t.Helper()
	var c Case
	if err := json.Unmarshal(ReadFile(t, path), &c); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return c
}

// Match compares an output's bytes with JAX's: f32 within atol + rtol*|want|
// (and a millionth, for the last bit of float32 rounding), every other type
// exactly. It returns "" when they match, else what differs.
func Match(typ string, got, want []byte, rtol, atol float64) string {
	if typ != "f32" {
		if string(got) != string(want) {
			return "differs from JAX's"
		}
		return ""
	}
	for i := 0; i+4 <= len(want); i += 4 {
		g := float64(math.Float32frombits(binary.LittleEndian.Uint32(got[i:])))
		w := float64(math.Float32frombits(binary.LittleEndian.Uint32(want[i:])))
		if math.Abs(g-w) > atol+rtol*math.Abs(w)+1e-6 {
			return fmt.Sprintf("element %d = %g, JAX's is %g", i/4, g, w)
		}
	}
	return ""
}

// CheckOutputs reads each output to the host, reports on t where it does
// not Match c's, and deletes it.
func CheckOutputs(ctx context.Context, t testing.TB, outs []ifrt.Array, c Case) {
	t.Helper()
	if len(outs) != len(c.Outputs) {
		t.Fatalf("%d outputs, JAX's program has %d", len(outs), len(c.Outputs))
	}
	for i, out := range outs {
		want, err := base64.StdEncoding.DecodeString(c.Outputs[i].Data)
		if err != nil {
			t.Fatal(err)
		}
		got := make([]byte, len(want))
		if err := out.CopyToHostBuffer(ctx, got, nil); err != nil {
			t.Fatalf("output %d: %v", i, err)
		}
		if msg := Match(c.Outputs[i].Type, got, want, c.RTol, c.ATol); msg != "" {
			t.Errorf("output %d: %s", i, msg)
		}
		out.Delete()
	}
}

// PsumTwo sums f32[3] over two partitions with all_reduce.
const PsumTwo = `module attributes {mhlo.num_partitions = 2 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%a: tensor<3xf32>) -> tensor<3xf32> {
    %r = "stablehlo.all_reduce"(%a) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, use_global_device_ids}> ({
    ^bb0(%x: tensor<f32>, %y: tensor<f32>):
      %s = stablehlo.add %x, %y : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) : (tensor<3xf32>) -> tensor<3xf32>
    return %r : tensor<3xf32>
  }
}`

// StuckAllReduce never finishes on partition 1 (a while loop that does not
// end), so partition 0 waits in its all_reduce for ever: the program for a
// test that a context's end reaches every participant.
const StuckAllReduce = `module attributes {mhlo.num_partitions = 2 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%a: tensor<3xf32>) -> tensor<3xf32> {
    %p = stablehlo.partition_id : tensor<ui32>
    %one = stablehlo.constant dense<1> : tensor<ui32>
    %w = stablehlo.while(%i = %p) : tensor<ui32>
     cond {
      %c = stablehlo.compare EQ, %i, %one : (tensor<ui32>, tensor<ui32>) -> tensor<i1>
      stablehlo.return %c : tensor<i1>
    } do {
      stablehlo.return %i : tensor<ui32>
    }
    %r = "stablehlo.all_reduce"(%a) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, use_global_device_ids}> ({
    ^bb0(%x: tensor<f32>, %y: tensor<f32>):
      %t = stablehlo.add %x, %y : tensor<f32>
      stablehlo.return %t : tensor<f32>
    }) : (tensor<3xf32>) -> tensor<3xf32>
    return %r : tensor<3xf32>
  }
}`
