package stablehlo

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseErrorsNameLineAndColumn(t *testing.T) {
	for _, c := range []struct {
		name, src, want string
	}{
		{"empty", "", "module has no function @main"},
		{"garbage", "hello", "1:1: expected \"module\""},
		{"undefined_value", "func.func @main() -> tensor<f32> {\n  return %x : tensor<f32>\n}", "2:10: use of undefined value %x"},
		{"bad_type", "func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {\n  %0 = stablehlo.add %a, %a : tensor<2xf32\n}", "unterminated tensor type"},
		{"missing_arrow_generic", "func.func @main(%a: tensor<f32>) -> tensor<f32> {\n  %0 = \"stablehlo.add\"(%a, %a) : (tensor<f32>, tensor<f32>)\n  return %0 : tensor<f32>\n}", "3:3: expected \"->\""},
		{"result_count", "func.func @main(%a: tensor<f32>) -> tensor<f32> {\n  %0:2 = stablehlo.add %a, %a : tensor<f32>\n  return %a : tensor<f32>\n}", "2:10: stablehlo.add: cannot infer 2 result types"},
		{"unterminated_string", "module @m attributes {x = \"abc\n} {}", "1:27: unterminated string"},
		{"unknown_callee", "func.func @main(%a: tensor<f32>) -> tensor<f32> {\n  %0 = call @nope(%a) : (tensor<f32>) -> tensor<f32>\n  return %0 : tensor<f32>\n}", "2:8: call to unknown function @nope"},
		{"redefinition", "func.func @main(%a: tensor<f32>) -> tensor<f32> {\n  %a = stablehlo.add %a, %a : tensor<f32>\n  return %a : tensor<f32>\n}", "2:3: redefinition of %a"},
		{"deep_nesting", "module attributes {x = " + strings.Repeat("[", 100000) + "} {}", "nesting deeper than"},
		{"bad_char", "func.func @main() -> tensor<f32> {\n  ~\n}", "2:3: unexpected character"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse([]byte(c.src))
			if err == nil {
				t.Fatal("Parse succeeded")
			}
			if errorCode(err) != InvalidArgument {
				t.Errorf("code = %d, want InvalidArgument", errorCode(err))
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q does not contain %q", err, c.want)
			}
		})
	}
}

func TestParseUnimplemented(t *testing.T) {
	for _, c := range []struct{ name, src, want string }{
		{"dynamic_shape", "func.func @main(%a: tensor<?xf32>) -> tensor<?xf32> {\n  return %a : tensor<?xf32>\n}", "1:28: dynamic dimensions are not supported"},
		{"dense_resource", "func.func @main() -> tensor<2xf32> {\n  %0 = stablehlo.constant dense_resource<__elided__> : tensor<2xf32>\n  return %0 : tensor<2xf32>\n}", "2:27: dense_resource constants"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse([]byte(c.src))
			if errorCode(err) != Unimplemented || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Parse error = %v, want Unimplemented containing %q", err, c.want)
			}
		})
	}
}

func TestParseModuleAttributes(t *testing.T) {
	src := `#loc1 = loc("x")
module @jit_f attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 2 : i32} {
  func.func public @main(%arg0: tensor<4x8xf32> {mhlo.sharding = "{devices=[2,4]<=[8]}", jax.buffer_donor = true} loc("x"), %arg1: tensor<f32> {tf.aliasing_output = 0 : i32}, %arg2: tensor<bf16>) -> (tensor<4x8xf32> {jax.result_info = "result[0]", mhlo.sharding = "{replicated}"}) {
    %0 = stablehlo.multiply %arg0, %arg0 : tensor<4x8xf32> loc(#loc1)
    return %0 : tensor<4x8xf32> loc(#loc1)
  } loc(#loc1)
} loc(#loc1)
#loc2 = loc(callsite(#loc1 at "f.py":3:4 to :9))
`
	m := mustParse(t, src)
	if m.NumPartitions() != 8 || m.NumReplicas() != 2 || m.Name() != "jit_f" {
		t.Errorf("partitions, replicas, name = %d, %d, %q", m.NumPartitions(), m.NumReplicas(), m.Name())
	}
	strip := func(vs []Value) []Value {
		out := make([]Value, len(vs))
		for i, v := range vs {
			out[i] = Value{Type: v.Type, Sharding: v.Sharding, DonorOrAlias: v.DonorOrAlias}
		}
		return out
	}
	wantParams := []Value{
		{Type: TensorType{Elem: F32, Shape: []int64{4, 8}}, Sharding: "{devices=[2,4]<=[8]}", DonorOrAlias: true},
		{Type: TensorType{Elem: F32, Shape: nil}, DonorOrAlias: true},
		{Type: TensorType{Elem: BF16}},
	}
	opt := cmp.AllowUnexported(TensorType{})
	if diff := cmp.Diff(wantParams, strip(m.Main().Params()), opt); diff != "" {
		t.Errorf("params (-want +got):\n%s", diff)
	}
	wantResults := []Value{{Type: TensorType{Elem: F32, Shape: []int64{4, 8}}, Sharding: "{replicated}"}}
	if diff := cmp.Diff(wantResults, strip(m.Main().Results()), opt); diff != "" {
		t.Errorf("results (-want +got):\n%s", diff)
	}
	if got := m.Main().Results()[0].Attrs["jax.result_info"].Str; got != "result[0]" {
		t.Errorf("jax.result_info = %q", got)
	}
	if m.UsesCollectives() {
		t.Error("UsesCollectives() = true")
	}
	if err := m.Unsupported(); err != nil {
		t.Error(err)
	}
}

func TestParseShardySharding(t *testing.T) {
	src := `module @m attributes {mhlo.num_partitions = 8 : i32} {
  sdy.mesh @mesh = <["x"=2, "y"=4]>
  sdy.mesh @rev = <["a"=2, "b"=2], device_ids=[3, 2, 1, 0]>
  sdy.mesh @one = <[], device_ids=[5]>
  func.func public @main(%a: tensor<4x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {"y"}]>}, %b: tensor<4x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"y"}, {}]>}, %c: tensor<4x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %d: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"y", "x"}]>}, %e: tensor<4xf32> {sdy.sharding = #sdy.sharding<@rev, [{"b"}], replicated={"a"}>}, %f: tensor<4xf32> {sdy.sharding = #sdy.sharding<@one, [{}]>}) -> tensor<4x8xf32> {
    return %a : tensor<4x8xf32>
  }
}`
	m := mustParse(t, src)
	var got []string
	for _, p := range m.Main().Params() {
		got = append(got, p.Sharding)
	}
	want := []string{
		"{devices=[2,4]<=[8]}",
		"{devices=[4,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}",
		"{replicated}",
		"{devices=[8]<=[2,4]T(1,0)}",
		"{devices=[2,2]3,1,2,0 last_tile_dim_replicate}",
		"{maximal device=5}",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("shardings (-want +got):\n%s", diff)
	}
}

func TestUsesCollectives(t *testing.T) {
	for _, c := range []struct {
		name string
		src  string
		want bool
	}{
		{"all_reduce", `func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "stablehlo.all_reduce"(%a) <{replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}> ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %s = stablehlo.add %x, %y : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}`, true},
		{"manual_sharding", `func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.custom_call @Sharding(%a) {mhlo.sharding = "{manual}"} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}`, true},
		{"shard_to_full", `func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.custom_call @SPMDShardToFullShape(%a) {mhlo.sharding = "{devices=[4]<=[4]}"} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}`, true},
		{"manual_param", `func.func @main(%a: tensor<4xf32> {mhlo.sharding = "{manual}"}) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}`, true},
		{"sharding_annotation_only", `func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.custom_call @Sharding(%a) {mhlo.sharding = "{devices=[4]<=[4]}"} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}`, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := mustParse(t, c.src).UsesCollectives(); got != c.want {
				t.Errorf("UsesCollectives() = %v, want %v", got, c.want)
			}
		})
	}
}

// TestGenericAndPrettyAgree runs the same program written in both forms.
func TestGenericAndPrettyAgree(t *testing.T) {
	pretty := `module {
  func.func @main(%a: tensor<2x3xf32>) -> tensor<3xf32> {
    %z = stablehlo.constant dense<0.0> : tensor<f32>
    %t = stablehlo.transpose %a, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
    %r = stablehlo.reduce(%t init: %z) applies stablehlo.add across dimensions = [1] : (tensor<3x2xf32>, tensor<f32>) -> tensor<3xf32>
    %c = call @double(%r) : (tensor<3xf32>) -> tensor<3xf32>
    return %c : tensor<3xf32>
  }
  func.func private @double(%x: tensor<3xf32>) -> tensor<3xf32> {
    %y = stablehlo.add %x, %x : tensor<3xf32>
    return %y : tensor<3xf32>
  }
}`
	generic := `"builtin.module"() ({
  "func.func"() <{function_type = (tensor<2x3xf32>) -> tensor<3xf32>, sym_name = "main"}> ({
  ^bb0(%a: tensor<2x3xf32>):
    %z = "stablehlo.constant"() <{value = dense<0.0> : tensor<f32>}> : () -> tensor<f32>
    %t = "stablehlo.transpose"(%a) <{permutation = array<i64: 1, 0>}> : (tensor<2x3xf32>) -> tensor<3x2xf32>
    %r = "stablehlo.reduce"(%t, %z) <{dimensions = array<i64: 1>}> ({
    ^bb0(%p: tensor<f32>, %q: tensor<f32>):
      %s = "stablehlo.add"(%p, %q) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%s) : (tensor<f32>) -> ()
    }) : (tensor<3x2xf32>, tensor<f32>) -> tensor<3xf32>
    %c = "func.call"(%r) <{callee = @double}> : (tensor<3xf32>) -> tensor<3xf32>
    "func.return"(%c) : (tensor<3xf32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<3xf32>) -> tensor<3xf32>, sym_name = "double", sym_visibility = "private"}> ({
  ^bb0(%x: tensor<3xf32>):
    %y = "stablehlo.add"(%x, %x) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    "func.return"(%y) : (tensor<3xf32>) -> ()
  }) : () -> ()
}) : () -> ()`
	in := literal(t, "tensor<2x3xf32>", "[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]")
	want := literal(t, "tensor<3xf32>", "[10.0, 14.0, 18.0]")
	for name, src := range map[string]string{"pretty": pretty, "generic": generic} {
		got, err := runMain(t, mustParse(t, src), in)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if msg := compareTensors(got[0], want, 0, 0); msg != "" {
			t.Errorf("%s: %s", name, msg)
		}
	}
}

func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join(goldenDir, "*.mlir"))
	for _, name := range files {
		if b, err := os.ReadFile(name); err == nil && len(b) < 20000 {
			f.Add(b)
		}
	}
	f.Add([]byte(`func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> { return %a : tensor<2xf32> }`))
	f.Fuzz(fuzzParseAndRun)
}

// fuzzParseAndRun parses src and, if that works, runs @main on zero inputs:
// neither may panic or fail with Internal.
func fuzzParseAndRun(t *testing.T, src []byte) {
	m, err := Parse(src)
	if err != nil {
		if code := errorCode(err); code != InvalidArgument && code != Unimplemented {
			t.Fatalf("parse error with code %d: %v", errorCode(err), err)
		}
		return
	}
	// Running parsed programs on zero inputs must not panic either;
	// programs with huge values are skipped to keep the fuzzer fast.
	if hasLargeValues(m, 1<<16) {
		return
	}
	var args []*Tensor
	for _, p := range m.Main().Params() {
		if !p.Type.supported() || p.Type.NumElements() > 1<<16 || p.Type.NumElements() < 0 {
			return
		}
		args = append(args, &Tensor{Type: p.Type, Data: make([]byte, p.Type.NumElements()*int64(p.Type.Elem.ByteSize()))})
	}
	ctx, cancel := contextWithShortTimeout()
	defer cancel()
	if _, err := m.Run(ctx, args); errorCode(err) == Internal {
		t.Fatalf("Run: %v", err)
	}
}

func hasLargeValues(m *Module, limit int64) bool {
	var walk func(r *region) bool
	walk = func(r *region) bool {
		for _, op := range r.ops {
			for _, t := range op.resultTypes {
				if n := t.NumElements(); n > limit || n < 0 {
					return true
				}
			}
			for _, sub := range op.regions {
				if walk(sub) {
					return true
				}
			}
		}
		return false
	}
	for _, f := range m.funcs {
		if f.body != nil && walk(f.body) {
			return true
		}
	}
	return false
}
