package pjrtifrt_test

import (
	"encoding/base64"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"math"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/internal/golden"
	"github.com/openpathways/pathways/internal/stablehlo"
	"github.com/openpathways/pathways/internal/stablehlo/ifrtconv"
	"github.com/openpathways/pathways/internal/testenv"
	"github.com/openpathways/pathways/pjrt/pjrtifrt"
)

var mlirDTypes = map[string]ifrt.DType{
	"i1": ifrt.PRED, "i8": ifrt.S8, "i16": ifrt.S16, "i32": ifrt.S32, "i64": ifrt.S64,
	"ui8": ifrt.U8, "ui16": ifrt.U16, "ui32": ifrt.U32, "ui64": ifrt.U64,
	"f16": ifrt.F16, "bf16": ifrt.BF16, "f32": ifrt.F32, "f64": ifrt.F64,
}

// decodeTensor returns g as an ifrt array's dtype, shape and bytes.
func decodeTensor(t testing.TB, g golden.Tensor) (ifrt.DType, ifrt.Shape, []byte) {
	t.Helper()
	d, ok := mlirDTypes[g.Type]
	if !ok {
		t.Fatalf("unknown element type %q", g.Type)
	}
	data, err := base64.StdEncoding.DecodeString(g.Data)
	if err != nil {
		t.Fatal(err)
	}
	return d, ifrt.Shape(g.Shape), data
}

// opSharding parses an HLO sharding string into an ifrt.OpSharding.
func opSharding(t testing.TB, s string) ifrt.OpSharding {
	t.Helper()
	hs, err := stablehlo.ParseHloSharding(s)
	if err != nil {
		t.Fatalf("ParseHloSharding(%q): %v", s, err)
	}
	op, err := ifrtconv.OpSharding(hs)
	if err != nil {
		t.Fatalf("sharding %q: %v", s, err)
	}
	return op
}

// run compiles module for the case's devices, runs it on the case's inputs and
// compares the outputs (contents, and shardings where the case names them).
// It returns the compile error, if any, for the caller to judge.
func run(t *testing.T, c *pjrtifrt.Client, module []byte, g golden.Case) error {
	t.Helper()
	ctx := testContext(t)
	n := max(g.Devices, 1)
	devs := c.AddressableDevices()
	if len(devs) < n {
		t.Skipf("needs %d devices", n)
	}
	devs = devs[:n]
	exe, err := c.Compile(ctx, &ifrt.MLIRProgram{Module: module}, &ifrt.CompileOptions{Devices: devs})
	if err != nil {
		return err
	}
	defer exe.Delete()
	args := make([]ifrt.Array, len(g.Inputs))
	for i, in := range g.Inputs {
		d, shape, data := decodeTensor(t, in)
		var s ifrt.Sharding = ifrt.NewSingleDeviceSharding(devs[0], "")
		if n > 1 {
			op := ifrt.Replicated()
			switch params := exe.Parameters(); {
			case in.Sharding != "":
				op = opSharding(t, in.Sharding)
			case i < len(params) && params[i].OpSharding != nil:
				op = *params[i].OpSharding
			}
			hs, err := ifrt.NewHloSharding(devs, "", op)
			if err != nil {
				t.Fatal(err)
			}
			s = hs
		}
		args[i] = put(t, c, data, d, shape, s)
	}
	res, err := exe.Execute(ctx, args, &ifrt.ExecuteOptions{FillStatus: true})
	if err != nil {
		t.Fatalf("Execute: %v", err)
	}
	if err := res.Status.Await(ctx); err != nil {
		t.Fatalf("execution: %v", err)
	}
	if len(res.Outputs) != len(g.Outputs) {
		t.Fatalf("%d outputs, want %d", len(res.Outputs), len(g.Outputs))
	}
	for i, want := range g.Outputs {
		out := res.Outputs[i]
		d, shape, data := decodeTensor(t, want)
		if out.DType() != d || !out.Shape().Equal(shape) {
			t.Errorf("output %d is %v%v, want %v%v", i, out.DType(), out.Shape(), d, shape)
			continue
		}
		if n > 1 {
			op := ifrt.Replicated()
			if want.Sharding != "" {
				op = opSharding(t, want.Sharding)
			}
			ws, _ := ifrt.NewHloSharding(devs, "", op)
			if !strings.HasPrefix(g.Name, "corpus/") && !ifrt.EquivalentShardings(out.Sharding(), ws, shape) {
				t.Errorf("output %d has %v, want %v", i, out.Sharding(), ws)
			}
		}
		if msg := compare(d, get(t, out), data, g.RTol, g.ATol); msg != "" {
			t.Errorf("output %d: %s", i, msg)
		}
	}
	for _, i := range g.Donated {
		if !args[i].IsDeleted() {
			t.Errorf("donated argument %d is still alive", i)
		}
	}
	return nil
}

// compare returns "" when got matches want: integers and bools exactly, floats
// within a tolerance for the type (or the case's rtol/atol when larger).
func compare(d ifrt.DType, got, want []byte, rtol, atol float64) string {
	if len(got) != len(want) {
		return fmt.Sprintf("%d bytes, want %d", len(got), len(want))
	}
	if !d.IsFloat() {
		if string(got) != string(want) {
			return fmt.Sprintf("contents differ:\n got %v\nwant %v", clip(got), clip(want))
		}
		return ""
	}
	size := d.HostByteSize()
	defRTol, defATol := 1e-5, 1e-6
	switch d {
	case ifrt.F64:
		defRTol, defATol = 1e-12, 1e-300
	case ifrt.F16, ifrt.BF16:
		defRTol, defATol = 2e-2, 1e-3
	}
	rtol, atol = max(rtol, defRTol), max(atol, defATol)
	var bad []string
	for k := 0; k < len(got)/size; k++ {
		x, y := float(d, got[k*size:]), float(d, want[k*size:])
		ok := x == y || math.IsNaN(x) && math.IsNaN(y) || math.Abs(x-y) <= atol+rtol*math.Abs(y)
		if !ok {
			bad = append(bad, fmt.Sprintf("[%d] %g want %g", k, x, y))
		}
	}
	if len(bad) > 5 {
		bad = append(bad[:5], fmt.Sprintf("... %d more", len(bad)-5))
	}
	return strings.Join(bad, "; ")
}

func clip(b []byte) []byte { return b[:min(len(b), 48)] }

func float(d ifrt.DType, b []byte) float64 {
	switch d {
	case ifrt.F64:
		return math.Float64frombits(binary.LittleEndian.Uint64(b))
	case ifrt.F32:
		return float64(math.Float32frombits(binary.LittleEndian.Uint32(b)))
	case ifrt.BF16:
		return float64(math.Float32frombits(uint32(binary.LittleEndian.Uint16(b)) << 16))
	case ifrt.F16:
		h := binary.LittleEndian.Uint16(b)
		sign, exp, frac := float64(1), int(h>>10&0x1f), float64(h&0x3ff)
		if h&0x8000 != 0 {
			sign = -1
		}
		switch exp {
		case 0:
			return sign * math.Ldexp(frac, -24)
		case 31:
			if frac != 0 {
				return math.NaN()
			}
			return sign * math.Inf(1)
		}
		return sign * math.Ldexp(1+frac/1024, exp-15)
	}
	return math.NaN()
}

// TestJAXPrograms compiles and runs the programs of testdata/gen_programs.py,
// as StableHLO text and as jax.export bytecode, on each CPU plugin, and compares
// with JAX's results.
func TestJAXPrograms(t *testing.T) {
	files := golden.Files(t, "testdata/*.json", 1)
	forEachClient(t, 8, func(t *testing.T, c *pjrtifrt.Client) {
		for _, f := range files {
			g := golden.Load(t, f)
			for _, form := range []string{"mlir", "mlirbc"} {
				t.Run(g.Name+"."+form, func(t *testing.T) {
					module := golden.ReadFile(t, strings.TrimSuffix(f, ".json")+"."+form)
					if err := run(t, c, module, g); err != nil {
						t.Fatalf("Compile: %v", err)
					}
				})
			}
		}
	})
}

// corpusKnownDiffs lists corpus programs whose results on a plugin differ from
// the pinned JAX's beyond the tolerance, with the reason.
var corpusKnownDiffs = map[string]string{
	// XLA's default compile options make max and min ignore a NaN operand on
	// CPU; JAX compiles with its own options, under which NaN propagates.
	"xla_cpu/special_values_f32":    "max/min of NaN: the plugin's default options do not propagate NaN, JAX's do",
	"lammps_cpu/special_values_f32": "max/min of NaN: the plugin's default options do not propagate NaN, JAX's do",
	// The lammps build's XLA (jaxlib 0.11.2's) computes chlo.atan on f64
	// differently from jaxlib 0.10.2's: most elements differ in the first digit.
	"lammps_cpu/chlo_math_f64": "chlo.atan on f64 differs from jaxlib 0.10.2's XLA in this plugin build",
}

var corpusAll = flag.Bool("corpus.all", false, "TestGoldenCorpus runs the whole golden corpus, not the representative subset corpusSubset")

// corpusSubset is the part of the golden corpus TestGoldenCorpus runs by
// default (the whole corpus takes about a minute per plugin under -race): every
// sharded program, and one or two of each kind of op, element type and
// control flow.
var corpusSubset = map[string]bool{
	"sharded_spmd_gspmd": true, "sharded_spmd_shardy": true, "shard_map_psum_gspmd": true, "shard_map_psum_shardy": true,
	"add_f32": true, "bf16_matmul": true, "f16_arith": true, "f64_x64_mix": true, "int8_wrap": true, "uint32_ops": true,
	"int64_uint64": true, "bool_logic": true, "bitcast": true, "convert_from_int": true, "dot_int8_to_int32": true,
	"dot_general_batched": true, "conv2d_nhwc": true, "reduce_window_pool": true, "scatter_ops": true, "gather_rows": true,
	"sort_multi_operand": true, "top_k": true, "while_loop": true, "cond_case": true, "cumulative": true,
	"rng_bit_generator_philox": true, "threefry_partitionable": true, "mlp_train_step": true, "donated_alias": true,
	"chlo_math_f32": true, "special_values_f32": true, "composite": true,
	"linalg_cholesky_solve_inv": true, "linalg_eigh_svd": true, "linalg_batched_f64": true,
}

// jaxlibCustomCall matches custom calls whose handlers jaxlib registers in
// JAX's own CPU client (LAPACK, DUCC FFT), not in the PJRT plugins. The
// client registers the LAPACK ones the interpreter implements
// (stablehlo.LinalgTargets).
var jaxlibCustomCall = regexp.MustCompile(`custom_call @((?:lapack|ducc)_\w+)`)

// unregisteredCustomCall is the first jaxlib custom call of module that
// the client does not register, or "".
func unregisteredCustomCall(module []byte) string {
	for _, m := range jaxlibCustomCall.FindAllSubmatch(module, -1) {
		if !slices.Contains(stablehlo.LinalgTargets(), string(m[1])) {
			return string(m[1])
		}
	}
	return ""
}

var numPartitions = regexp.MustCompile(`mhlo\.num_partitions = (\d+)`)

// TestGoldenCorpus runs internal/stablehlo's golden corpus (StableHLO text from
// the pinned JAX, with JAX's outputs) through pjrtifrt on each CPU plugin:
// corpusSubset by default, everything with -corpus.all.
func TestGoldenCorpus(t *testing.T) {
	dir := filepath.Join(testenv.ModuleRoot(), "internal", "stablehlo", "testdata", "golden")
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil || len(files) == 0 {
		t.Skipf("no golden corpus in %s", dir)
	}
	sort.Strings(files)
	for _, p := range cpuPlugins {
		t.Run(p.Name, func(t *testing.T) {
			c := p.client(t, 8)
			for _, f := range files {
				name := strings.TrimSuffix(filepath.Base(f), ".json")
				if !*corpusAll && !corpusSubset[name] {
					continue
				}
				g := golden.Load(t, f)
				t.Run(g.Name, func(t *testing.T) {
					if why, ok := corpusKnownDiffs[p.Name+"/"+g.Name]; ok {
						t.Skip(why)
					}
					module := golden.ReadFile(t, strings.TrimSuffix(f, ".json")+".mlir")
					g.Devices = 1
					if m := numPartitions.FindSubmatch(module); m != nil {
						g.Devices, _ = strconv.Atoi(string(m[1]))
					}
					g.Name = "corpus/" + g.Name
					err = run(t, c, module, g)
					if target := unregisteredCustomCall(module); target != "" && errors.Is(err, ifrt.ErrNotFound) {
						// JAX's CPU client registers these handlers from jaxlib; a bare
						// plugin has none.
						t.Skipf("needs jaxlib's %s FFI handler, which the plugin lacks: %v", target, err)
					}
					if err != nil && g.Devices > 1 && errors.Is(err, ifrt.ErrUnimplemented) && p == cpuPlugin {
						t.Logf("plugin without the Shardings extension: %v", err)
					} else if err != nil {
						t.Fatalf("Compile: %v", err)
					}
				})
			}
		})
	}
}
