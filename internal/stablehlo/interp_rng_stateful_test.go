package stablehlo

import (
	"math"
	"slices"
	"testing"
)

// TestRng draws from stablehlo.rng as lax.rng_uniform lowers it and checks
// what the specification promises: every number within its bounds, each
// call new numbers, and (at six standard errors, so that chance does not
// fail the test) the distributions' means and spreads.
func TestRng(t *testing.T) {
	m := mustParse(t, `func.func public @main() -> (tensor<10000xf32>, tensor<10000xf32>, tensor<600xi32>, tensor<1000xbf16>, tensor<10000xf64>) {
  %two = stablehlo.constant dense<2.0> : tensor<f32>
  %three = stablehlo.constant dense<3.0> : tensor<f32>
  %n = stablehlo.constant dense<10000> : tensor<1xi64>
  %u = stablehlo.rng %two, %three, %n, distribution = UNIFORM : (tensor<f32>, tensor<f32>, tensor<1xi64>) -> tensor<10000xf32>
  %v = stablehlo.rng %two, %three, %n, distribution = UNIFORM : (tensor<f32>, tensor<f32>, tensor<1xi64>) -> tensor<10000xf32>
  %lo = stablehlo.constant dense<3> : tensor<i32>
  %hi = stablehlo.constant dense<9> : tensor<i32>
  %n6 = stablehlo.constant dense<600> : tensor<1xi64>
  %i = stablehlo.rng %lo, %hi, %n6, distribution = UNIFORM : (tensor<i32>, tensor<i32>, tensor<1xi64>) -> tensor<600xi32>
  %z = stablehlo.constant dense<0.0> : tensor<bf16>
  %one = stablehlo.constant dense<1.0> : tensor<bf16>
  %n3 = stablehlo.constant dense<1000> : tensor<1xi64>
  %b = stablehlo.rng %z, %one, %n3, distribution = UNIFORM : (tensor<bf16>, tensor<bf16>, tensor<1xi64>) -> tensor<1000xbf16>
  %mean = stablehlo.constant dense<5.0> : tensor<f64>
  %std = stablehlo.constant dense<2.0> : tensor<f64>
  %g = stablehlo.rng %mean, %std, %n, distribution = NORMAL : (tensor<f64>, tensor<f64>, tensor<1xi64>) -> tensor<10000xf64>
  return %u, %v, %i, %b, %g : tensor<10000xf32>, tensor<10000xf32>, tensor<600xi32>, tensor<1000xbf16>, tensor<10000xf64>
}`)
	out, err := runMain(t, m)
	if err != nil {
		t.Fatal(err)
	}
	u, v := decodeTensor(out[0]).f32, decodeTensor(out[1]).f32
	if slices.Equal(u, v) {
		t.Error("two rng calls drew the same numbers")
	}
	mean := 0.0
	for _, x := range u {
		if x < 2 || x >= 3 {
			t.Fatalf("uniform [2, 3) drew %v", x)
		}
		mean += float64(x) / float64(len(u))
	}
	if se := 1 / math.Sqrt(12*float64(len(u))); math.Abs(mean-2.5) > 6*se {
		t.Errorf("uniform [2, 3) has mean %v, want 2.5 ± %v", mean, 6*se)
	}
	seen := map[int64]bool{}
	for _, x := range decodeTensor(out[2]).i {
		if x < 3 || x >= 9 {
			t.Fatalf("uniform integers [3, 9) drew %d", x)
		}
		seen[x] = true
	}
	if len(seen) != 6 {
		t.Errorf("600 integers of [3, 9) took %d of its 6 values", len(seen))
	}
	for _, x := range decodeTensor(out[3]).f32 {
		if x < 0 || x >= 1 || x != roundBF16(x) {
			t.Fatalf("bf16 uniform [0, 1) drew %v", x)
		}
	}
	g := decodeTensor(out[4]).f64
	sum, sq := 0.0, 0.0
	for _, x := range g {
		sum += x
		sq += x * x
	}
	n := float64(len(g))
	gm, gs := sum/n, math.Sqrt(sq/n-(sum/n)*(sum/n))
	if math.Abs(gm-5) > 6*2/math.Sqrt(n) || math.Abs(gs-2) > 0.1 {
		t.Errorf("normal(5, 2) has mean %v and deviation %v", gm, gs)
	}
}

// TestRngRefuses checks the bounds' type and the distributions it lacks.
func TestRngRefuses(t *testing.T) {
	for _, tc := range []struct {
		src  string
		code int
	}{
		{`func.func public @main(%a: tensor<f64>) -> tensor<2xf32> {
  %n = stablehlo.constant dense<2> : tensor<1xi64>
  %r = stablehlo.rng %a, %a, %n, distribution = UNIFORM : (tensor<f64>, tensor<f64>, tensor<1xi64>) -> tensor<2xf32>
  return %r : tensor<2xf32>
}`, InvalidArgument},
		{`func.func public @main(%a: tensor<f64>) -> tensor<2xi32> {
  %lo = stablehlo.constant dense<0> : tensor<i32>
  %n = stablehlo.constant dense<2> : tensor<1xi64>
  %r = stablehlo.rng %lo, %lo, %n, distribution = NORMAL : (tensor<i32>, tensor<i32>, tensor<1xi64>) -> tensor<2xi32>
  return %r : tensor<2xi32>
}`, Unimplemented},
	} {
		m, err := Parse([]byte(tc.src))
		if err == nil {
			_, err = runMain(t, m, literal(t, "tensor<f64>", "1.0"))
		}
		if errorCode(err) != tc.code {
			t.Errorf("%s\n: error %v, want code %d", tc.src, err, tc.code)
		}
	}
}
