package stablehlo

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// opCase runs ops on constants: body defines %0... and returns %r of type
// want's type; the result must equal want (bit-exact, NaNs equal).
type opCase struct {
	name     string
	body     string
	wantType string
	want     string
}

// cst spells %name = stablehlo.constant dense<lit> : typ, a line of an
// opCase body.
func cst(name, typ, lit string) string {
	return "  %" + name + " = stablehlo.constant dense<" + lit + "> : " + typ + "\n"
}

func runOpCases(t *testing.T, cases []opCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := "func.func @main() -> " + c.wantType + " {\n" + c.body + "\n  return %r : " + c.wantType + "\n}"
			m := mustParse(t, src)
			got, err := runMain(t, m)
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			want := literal(t, c.wantType, c.want)
			if msg := compareTensors(got[0], want, 1e-6, 1e-7); msg != "" {
				t.Errorf("%s\n%s", msg, src)
			}
		})
	}
}

func TestElementwiseOps(t *testing.T) {
	i32x4 := "tensor<4xi32>"
	ints := cst("a", i32x4, "[17, -17, 17, -17]") + cst("b", i32x4, "[3, 3, -3, -3]")
	f32x4 := "tensor<4xf32>"
	floats := cst("x", f32x4, "[1.5, -2.5, 0.0, 4.0]") + cst("y", f32x4, "[2.0, 0.5, -1.0, 3.0]")
	runOpCases(t, []opCase{
		{"add_spec", cst("a", "tensor<2x2xi32>", "[[1, 2], [3, 4]]") + cst("b", "tensor<2x2xi32>", "[[5, 6], [7, 8]]") +
			"  %r = stablehlo.add %a, %b : tensor<2x2xi32>", "tensor<2x2xi32>", "[[6, 8], [10, 12]]"},
		{"divide_int_truncates", ints + "  %r = stablehlo.divide %a, %b : tensor<4xi32>", i32x4, "[5, -5, -5, 5]"},
		{"remainder_int_sign_of_dividend", ints + "  %r = stablehlo.remainder %a, %b : tensor<4xi32>", i32x4, "[2, -2, 2, -2]"},
		{"divide_by_zero_and_overflow", cst("a", i32x4, "[7, -7, -2147483648, 0]") + cst("b", i32x4, "[0, 0, -1, 0]") +
			"  %r = stablehlo.divide %a, %b : tensor<4xi32>", i32x4, "[-1, -1, -2147483648, -1]"},
		{"remainder_by_zero", cst("a", i32x4, "[7, -7, -2147483648, 0]") + cst("b", i32x4, "[0, 0, -1, 0]") +
			"  %r = stablehlo.remainder %a, %b : tensor<4xi32>", i32x4, "[7, -7, 0, 0]"},
		{"divide_unsigned_by_zero", cst("a", "tensor<2xui8>", "[7, 200]") + cst("b", "tensor<2xui8>", "[0, 3]") +
			"  %r = stablehlo.divide %a, %b : tensor<2xui8>", "tensor<2xui8>", "[255, 66]"},
		{"power_int_negative_exponent", cst("a", "tensor<5xi32>", "[2, 1, -1, -1, 3]") + cst("b", "tensor<5xi32>", "[-1, -5, -3, -4, 4]") +
			"  %r = stablehlo.power %a, %b : tensor<5xi32>", "tensor<5xi32>", "[0, 1, -1, 1, 81]"},
		{"add_i8_wraps", cst("a", "tensor<2xi8>", "[127, -128]") + cst("b", "tensor<2xi8>", "[1, -1]") +
			"  %r = stablehlo.add %a, %b : tensor<2xi8>", "tensor<2xi8>", "[-128, 127]"},
		{"shift_left_past_width", cst("a", i32x4, "[1, 1, -1, 3]") + cst("b", i32x4, "[31, 32, 1, -1]") +
			"  %r = stablehlo.shift_left %a, %b : tensor<4xi32>", i32x4, "[-2147483648, 0, -2, 0]"},
		{"shift_right_arithmetic_past_width", cst("a", i32x4, "[-8, -8, 8, -1]") + cst("b", i32x4, "[1, 40, 40, 31]") +
			"  %r = stablehlo.shift_right_arithmetic %a, %b : tensor<4xi32>", i32x4, "[-4, -1, 0, -1]"},
		{"shift_right_logical_signed", cst("a", i32x4, "[-8, -8, 8, -1]") + cst("b", i32x4, "[1, 32, 2, 28]") +
			"  %r = stablehlo.shift_right_logical %a, %b : tensor<4xi32>", i32x4, "[2147483644, 0, 2, 15]"},
		{"shift_right_arithmetic_unsigned", cst("a", "tensor<2xui8>", "[128, 64]") + cst("b", "tensor<2xui8>", "[1, 1]") +
			"  %r = stablehlo.shift_right_arithmetic %a, %b : tensor<2xui8>", "tensor<2xui8>", "[192, 32]"},
		{"count_leading_zeros_spec", cst("a", "tensor<2x2xi64>", "[[0, 1], [128, -1]]") +
			"  %r = stablehlo.count_leading_zeros %a : tensor<2x2xi64>", "tensor<2x2xi64>", "[[64, 63], [56, 0]]"},
		{"popcnt_spec", cst("a", "tensor<4xi64>", "[0, 1, 2, 127]") +
			"  %r = stablehlo.popcnt %a : tensor<4xi64>", "tensor<4xi64>", "[0, 1, 1, 7]"},
		{"popcnt_negative_i8", cst("a", "tensor<1xi8>", "[-1]") + "  %r = stablehlo.popcnt %a : tensor<1xi8>", "tensor<1xi8>", "[8]"},
		{"not_bool_and_int", cst("a", "tensor<2xi1>", "[true, false]") + "  %n = stablehlo.not %a : tensor<2xi1>\n" +
			"  %r = stablehlo.convert %n : (tensor<2xi1>) -> tensor<2xi32>", "tensor<2xi32>", "[0, 1]"},
		{"xor_ui32", cst("a", "tensor<2xui32>", "[4294967295, 5]") + cst("b", "tensor<2xui32>", "[1, 3]") +
			"  %r = stablehlo.xor %a, %b : tensor<2xui32>", "tensor<2xui32>", "[4294967294, 6]"},
		{"maximum_nan_and_zeros", cst("x", f32x4, "[0x7FC00000, 1.0, -0.0, 0.0]") + cst("y", f32x4, "[1.0, 0x7FC00000, 0.0, -0.0]") +
			"  %r = stablehlo.maximum %x, %y : tensor<4xf32>", f32x4, "[0x7FC00000, 0x7FC00000, 0.0, 0.0]"},
		{"minimum_zeros", cst("x", "tensor<2xf32>", "[-0.0, 0.0]") + cst("y", "tensor<2xf32>", "[0.0, -0.0]") +
			"  %r = stablehlo.minimum %x, %y : tensor<2xf32>", "tensor<2xf32>", "[-0.0, -0.0]"},
		{"remainder_float", floats + "  %r = stablehlo.remainder %x, %y : tensor<4xf32>", f32x4, "[1.5, -0.0, 0.0, 1.0]"},
		{"atan2", floats + "  %r = stablehlo.atan2 %x, %y : tensor<4xf32>", f32x4, "[0.6435011, -1.3734008, 3.1415927, 0.9272952]"},
		{"sign_float", cst("x", f32x4, "[-2.0, -0.0, 0x7FC00000, 3.0]") + "  %r = stablehlo.sign %x : tensor<4xf32>", f32x4, "[-1.0, -0.0, 0x7FC00000, 1.0]"},
		{"round_afz_and_even", cst("x", f32x4, "[-2.5, 0.5, 1.5, 2.5]") + "  %a = stablehlo.round_nearest_afz %x : tensor<4xf32>\n" +
			"  %e = stablehlo.round_nearest_even %x : tensor<4xf32>\n  %r = stablehlo.subtract %a, %e : tensor<4xf32>", f32x4, "[-1.0, 1.0, 0.0, 1.0]"},
		{"is_finite", cst("x", f32x4, "[0x7F800000, 0xFF800000, 0x7FC00000, 1.0]") +
			"  %r = stablehlo.is_finite %x : (tensor<4xf32>) -> tensor<4xi1>", "tensor<4xi1>", "[false, false, false, true]"},
		{"logistic", cst("x", "tensor<2xf32>", "[0.0, 2.0]") + "  %r = stablehlo.logistic %x : tensor<2xf32>", "tensor<2xf32>", "[0.5, 0.880797]"},
		{"bf16_rounds_each_op", cst("x", "tensor<2xbf16>", "[1.0, 256.0]") + cst("y", "tensor<2xbf16>", "[0.00390625, 1.0]") +
			"  %r = stablehlo.add %x, %y : tensor<2xbf16>", "tensor<2xbf16>", "[1.0, 256.0]"},
		{"f16_overflow", cst("x", "tensor<2xf16>", "[60000.0, 1.0]") + "  %r = stablehlo.add %x, %x : tensor<2xf16>", "tensor<2xf16>", "[0x7C00, 2.0]"},
	})
}

func TestCompareSelectClamp(t *testing.T) {
	f := cst("x", "tensor<5xf32>", "[0xFFC00000, 0xFF800000, -0.0, 0.0, 0x7FC00000]") +
		cst("y", "tensor<5xf32>", "[0xFF800000, -0.0, 0.0, 0x7FC00000, 0x7FC00000]")
	var cases []opCase
	for _, c := range []struct{ dir, typ, want string }{
		{"LT", "FLOAT", "[false, true, false, false, false]"},
		{"EQ", "FLOAT", "[false, false, true, false, false]"},
		{"NE", "FLOAT", "[true, true, false, true, true]"},
		{"LT", "TOTALORDER", "[true, true, true, true, false]"},
		{"EQ", "TOTALORDER", "[false, false, false, false, true]"},
		{"GE", "TOTALORDER", "[false, false, false, false, true]"},
	} {
		cases = append(cases, opCase{"compare_" + c.dir + "_" + c.typ, f +
			"  %r = stablehlo.compare " + c.dir + ", %x, %y, " + c.typ + " : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xi1>",
			"tensor<5xi1>", c.want})
	}
	ints := cst("a", "tensor<3xi32>", "[-1, 0, 5]") + cst("b", "tensor<3xi32>", "[1, 0, 4]")
	cases = append(cases,
		opCase{"compare_signed", ints + "  %r = stablehlo.compare LT, %a, %b, SIGNED : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi1>", "tensor<3xi1>", "[true, false, false]"},
		opCase{"compare_generic_attrs", ints + `  %r = "stablehlo.compare"(%a, %b) {comparison_direction = #stablehlo<comparison_direction LE>} : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi1>`, "tensor<3xi1>", "[true, true, false]"},
		opCase{"compare_unsigned", cst("a", "tensor<2xui32>", "[4294967295, 1]") + cst("b", "tensor<2xui32>", "[1, 2]") +
			"  %r = stablehlo.compare GT, %a, %b, UNSIGNED : (tensor<2xui32>, tensor<2xui32>) -> tensor<2xi1>", "tensor<2xi1>", "[true, false]"},
		opCase{"select_elementwise", ints + cst("p", "tensor<3xi1>", "[true, false, true]") +
			"  %r = stablehlo.select %p, %a, %b : tensor<3xi1>, tensor<3xi32>", "tensor<3xi32>", "[-1, 0, 5]"},
		opCase{"select_scalar_pred", ints + cst("p", "tensor<i1>", "false") +
			"  %r = stablehlo.select %p, %a, %b : (tensor<i1>, tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>", "tensor<3xi32>", "[1, 0, 4]"},
		opCase{"clamp_scalar_bounds", ints + cst("lo", "tensor<i32>", "0") + cst("hi", "tensor<i32>", "3") +
			"  %r = stablehlo.clamp %lo, %a, %hi : (tensor<i32>, tensor<3xi32>, tensor<i32>) -> tensor<3xi32>", "tensor<3xi32>", "[0, 0, 3]"},
	)
	runOpCases(t, cases)
}

func TestConvertOps(t *testing.T) {
	f := cst("x", "tensor<5xf32>", "[1.0e+10, -1.0e+10, 0x7FC00000, 2.7, -2.7]")
	runOpCases(t, []opCase{
		{"f32_to_i32_saturates", f + "  %r = stablehlo.convert %x : (tensor<5xf32>) -> tensor<5xi32>", "tensor<5xi32>", "[2147483647, -2147483648, 0, 2, -2]"},
		{"f32_to_ui8_saturates", f + "  %r = stablehlo.convert %x : (tensor<5xf32>) -> tensor<5xui8>", "tensor<5xui8>", "[255, 0, 0, 2, 0]"},
		{"f64_to_i64", cst("d", "tensor<5xf64>", "[-1.0, 0.0, 1.0, 1.0e+19, -1.0e+19]") + "  %r = stablehlo.convert %d : (tensor<5xf64>) -> tensor<5xi64>",
			"tensor<5xi64>", "[-1, 0, 1, 9223372036854775807, -9223372036854775808]"},
		{"f64_to_ui64", cst("d", "tensor<3xf64>", "[-1.0, 1.0e+20, 3.5]") + "  %r = stablehlo.convert %d : (tensor<3xf64>) -> tensor<3xui64>",
			"tensor<3xui64>", "[0, 18446744073709551615, 3]"},
		{"ui64_to_ui32_wraps", cst("a", "tensor<2xui64>", "[4294967297, 7]") + "  %r = stablehlo.convert %a : (tensor<2xui64>) -> tensor<2xui32>", "tensor<2xui32>", "[1, 7]"},
		{"ui32_to_i32_negative", cst("a", "tensor<2xui32>", "[4294967295, 5]") + "  %r = stablehlo.convert %a : (tensor<2xui32>) -> tensor<2xi32>", "tensor<2xi32>", "[-1, 5]"},
		{"i8_to_ui16", cst("a", "tensor<2xi8>", "[-1, 3]") + "  %r = stablehlo.convert %a : (tensor<2xi8>) -> tensor<2xui16>", "tensor<2xui16>", "[65535, 3]"},
		{"i8_to_i64_sign_extends", cst("a", "tensor<2xi8>", "[-2, 3]") + "  %r = stablehlo.convert %a : (tensor<2xi8>) -> tensor<2xi64>", "tensor<2xi64>", "[-2, 3]"},
		{"i32_to_i8_wraps", cst("a", "tensor<3xi32>", "[300, -129, 5]") + "  %r = stablehlo.convert %a : (tensor<3xi32>) -> tensor<3xi8>", "tensor<3xi8>", "[44, 127, 5]"},
		{"f32_to_bf16_rounds_even", cst("x", "tensor<2xf32>", "[1.00390625, 1.01171875]") + "  %r = stablehlo.convert %x : (tensor<2xf32>) -> tensor<2xbf16>", "tensor<2xbf16>", "[1.0, 1.015625]"},
		{"f32_to_f16_subnormal", cst("x", "tensor<3xf32>", "[5.96046448e-08, 2.98023224e-08, 65520.0]") + "  %r = stablehlo.convert %x : (tensor<3xf32>) -> tensor<3xf16>", "tensor<3xf16>", "[0x0001, 0x0000, 0x7C00]"},
		{"to_bool", f + "  %r = stablehlo.convert %x : (tensor<5xf32>) -> tensor<5xi1>", "tensor<5xi1>", "[true, true, true, true, true]"},
		{"bitcast_f32_to_u32", cst("x", "tensor<2xf32>", "[1.0, -2.0]") + "  %r = stablehlo.bitcast_convert %x : (tensor<2xf32>) -> tensor<2xui32>", "tensor<2xui32>", "[1065353216, 3221225472]"},
		{"bitcast_u32_to_u8_adds_dim", cst("x", "tensor<1xui32>", "[16909060]") + "  %r = stablehlo.bitcast_convert %x : (tensor<1xui32>) -> tensor<1x4xui8>", "tensor<1x4xui8>", "[[4, 3, 2, 1]]"},
		{"bitcast_bits_to_ui8", cst("p", "tensor<1x8xi1>", "[[true, false, true, false, false, false, false, true]]") +
			"  %r = stablehlo.bitcast_convert %p : (tensor<1x8xi1>) -> tensor<1xui8>", "tensor<1xui8>", "[133]"},
		{"bitcast_ui8_to_bits", cst("u", "tensor<ui8>", "6") +
			"  %r = stablehlo.bitcast_convert %u : (tensor<ui8>) -> tensor<8xi1>", "tensor<8xi1>", "[false, true, true, false, false, false, false, false]"},
		{"iota_dim1", "  %r = stablehlo.iota dim = 1 : tensor<2x3xf32>", "tensor<2x3xf32>", "[[0.0, 1.0, 2.0], [0.0, 1.0, 2.0]]"},
		{"iota_middle_dim_ui32", "  %r = stablehlo.iota dim = 1 : tensor<2x3x2xui32>", "tensor<2x3x2xui32>", "[[[0, 0], [1, 1], [2, 2]], [[0, 0], [1, 1], [2, 2]]]"},
		{"iota_dim0_si64", "  %r = stablehlo.iota dim = 0 : tensor<3x2xi64>", "tensor<3x2xi64>", "[[0, 0], [1, 1], [2, 2]]"},
		{"iota_f64", "  %r = stablehlo.iota dim = 0 : tensor<3xf64>", "tensor<3xf64>", "[0.0, 1.0, 2.0]"},
		{"iota_bool", "  %r = stablehlo.iota dim = 0 : tensor<3xi1>", "tensor<3xi1>", "[false, true, true]"},
		{"iota_si8_wraps", "  %r = stablehlo.iota dim = 0 : tensor<130xi8>", "tensor<130xi8>", "[" + iotaWrapped() + "]"},
		{"iota_empty", "  %r = stablehlo.iota dim = 1 : tensor<2x0xui32>", "tensor<2x0xui32>", "[[], []]"},
	})
}

// concatLarge makes %c, a tensor<3x8192xi32> of two iotas side by side.
const concatLarge = "  %v = stablehlo.iota dim = 1 : tensor<3x4096xi32>\n  %w = stablehlo.iota dim = 0 : tensor<3x4096xi32>\n" +
	"  %c = stablehlo.concatenate %v, %w, dim = 1 : (tensor<3x4096xi32>, tensor<3x4096xi32>) -> tensor<3x8192xi32>\n"

func TestShapeOps(t *testing.T) {
	m23 := cst("a", "tensor<2x3xi32>", "[[1, 2, 3], [4, 5, 6]]")
	runOpCases(t, []opCase{
		{"pad_spec", m23 + cst("z", "tensor<i32>", "0") +
			"  %r = stablehlo.pad %a, %z, low = [0, 1], high = [2, 1], interior = [1, 2] : (tensor<2x3xi32>, tensor<i32>) -> tensor<5x9xi32>",
			"tensor<5x9xi32>", "[[0, 1, 0, 0, 2, 0, 0, 3, 0], [0, 0, 0, 0, 0, 0, 0, 0, 0], [0, 4, 0, 0, 5, 0, 0, 6, 0], [0, 0, 0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0, 0, 0]]"},
		// Larger than the constants decoded at parse: materialized per run.
		{"constant_large_splat", cst("c", "tensor<300x300xi32>", "2") + cst("z", "tensor<i32>", "0") +
			"  %r = stablehlo.reduce(%c init: %z) applies stablehlo.add across dimensions = [0, 1] : (tensor<300x300xi32>, tensor<i32>) -> tensor<i32>",
			"tensor<i32>", "180000"},
		{"pad_edges", m23 + cst("z", "tensor<i32>", "9") +
			"  %r = stablehlo.pad %a, %z, low = [1, 0], high = [0, 2], interior = [0, 0] : (tensor<2x3xi32>, tensor<i32>) -> tensor<3x5xi32>",
			"tensor<3x5xi32>", "[[9, 9, 9, 9, 9], [1, 2, 3, 9, 9], [4, 5, 6, 9, 9]]"},
		{"pad_empty_operand", cst("e", "tensor<2x0xi32>", "[]") + cst("z", "tensor<i32>", "7") +
			"  %r = stablehlo.pad %e, %z, low = [0, 1], high = [0, 1], interior = [0, 0] : (tensor<2x0xi32>, tensor<i32>) -> tensor<2x2xi32>",
			"tensor<2x2xi32>", "[[7, 7], [7, 7]]"},
		{"pad_negative", m23 + cst("z", "tensor<i32>", "9") +
			"  %r = stablehlo.pad %a, %z, low = [-1, 1], high = [0, -2], interior = [0, 0] : (tensor<2x3xi32>, tensor<i32>) -> tensor<1x2xi32>",
			"tensor<1x2xi32>", "[[9, 4]]"},
		{"slice_strided", cst("a", "tensor<3x4xi32>", "[[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]]") +
			"  %r = stablehlo.slice %a [0:3:2, 1:4:2] : (tensor<3x4xi32>) -> tensor<2x2xi32>", "tensor<2x2xi32>", "[[1, 3], [9, 11]]"},
		{"slice_generic", m23 + `  %r = "stablehlo.slice"(%a) <{start_indices = array<i64: 1, 1>, limit_indices = array<i64: 2, 3>, strides = array<i64: 1, 1>}> : (tensor<2x3xi32>) -> tensor<1x2xi32>`,
			"tensor<1x2xi32>", "[[5, 6]]"},
		{"transpose", m23 + "  %r = stablehlo.transpose %a, dims = [1, 0] : (tensor<2x3xi32>) -> tensor<3x2xi32>", "tensor<3x2xi32>", "[[1, 4], [2, 5], [3, 6]]"},
		{"reverse", m23 + "  %r = stablehlo.reverse %a, dims = [0, 1] : tensor<2x3xi32>", "tensor<2x3xi32>", "[[6, 5, 4], [3, 2, 1]]"},
		{"broadcast_in_dim", cst("v", "tensor<1x3xi32>", "[[1, 2, 3]]") +
			"  %r = stablehlo.broadcast_in_dim %v, dims = [0, 2] : (tensor<1x3xi32>) -> tensor<2x2x3xi32>", "tensor<2x2x3xi32>", "[[[1, 2, 3], [1, 2, 3]], [[1, 2, 3], [1, 2, 3]]]"},
		// The operand as the result's innermost block, repeated whole; then
		// the same sizes placed otherwise, which is not a repeat.
		{"broadcast_trailing", m23 + "  %r = stablehlo.broadcast_in_dim %a, dims = [1, 2] : (tensor<2x3xi32>) -> tensor<2x2x3xi32>",
			"tensor<2x2x3xi32>", "[[[1, 2, 3], [4, 5, 6]], [[1, 2, 3], [4, 5, 6]]]"},
		{"broadcast_leading", m23 + "  %r = stablehlo.broadcast_in_dim %a, dims = [0, 1] : (tensor<2x3xi32>) -> tensor<2x3x2xi32>",
			"tensor<2x3x2xi32>", "[[[1, 1], [2, 2], [3, 3]], [[4, 4], [5, 5], [6, 6]]]"},
		{"broadcast_transposed", cst("v", "tensor<2x2xi32>", "[[1, 2], [3, 4]]") +
			"  %r = stablehlo.broadcast_in_dim %v, dims = [2, 1] : (tensor<2x2xi32>) -> tensor<2x2x2xi32>", "tensor<2x2x2xi32>",
			"[[[1, 3], [2, 4]], [[1, 3], [2, 4]]]"},
		{"broadcast_empty", cst("v", "tensor<0xi32>", "[]") + "  %r = stablehlo.broadcast_in_dim %v, dims = [1] : (tensor<0xi32>) -> tensor<3x0xi32>",
			"tensor<3x0xi32>", "[]"},
		{"concatenate", m23 + "  %r = stablehlo.concatenate %a, %a, dim = 1 : (tensor<2x3xi32>, tensor<2x3xi32>) -> tensor<2x6xi32>", "tensor<2x6xi32>", "[[1, 2, 3, 1, 2, 3], [4, 5, 6, 4, 5, 6]]"},
		{"concatenate_middle", cst("v", "tensor<2x1x2xi32>", "[[[1, 2]], [[3, 4]]]") + cst("e", "tensor<2x0x2xi32>", "[]") + cst("w", "tensor<2x2x2xi32>", "[[[5, 6], [7, 8]], [[9, 10], [11, 12]]]") +
			"  %r = stablehlo.concatenate %w, %e, %v, dim = 1 : (tensor<2x2x2xi32>, tensor<2x0x2xi32>, tensor<2x1x2xi32>) -> tensor<2x3x2xi32>", "tensor<2x3x2xi32>",
			"[[[5, 6], [7, 8], [1, 2]], [[9, 10], [11, 12], [3, 4]]]"},
		// 3×8192 elements, whose storage comes uncleared: where the blocks
		// meet, and the sum of all (3·(4095·4096/2) + 4096·(0+1+2)).
		{"concatenate_large", concatLarge + "  %r = stablehlo.slice %c [0:3, 4094:4098] : (tensor<3x8192xi32>) -> tensor<3x4xi32>",
			"tensor<3x4xi32>", "[[4094, 4095, 0, 0], [4094, 4095, 1, 1], [4094, 4095, 2, 2]]"},
		{"concatenate_large_sum", concatLarge + cst("z", "tensor<i32>", "0") +
			"  %r = stablehlo.reduce(%c init: %z) applies stablehlo.add across dimensions = [0, 1] : (tensor<3x8192xi32>, tensor<i32>) -> tensor<i32>",
			"tensor<i32>", "25171968"},
		{"dynamic_slice_clamps", m23 + cst("i", "tensor<i64>", "5") + cst("j", "tensor<i64>", "-3") +
			"  %r = stablehlo.dynamic_slice %a, %i, %j, sizes = [1, 2] : (tensor<2x3xi32>, tensor<i64>, tensor<i64>) -> tensor<1x2xi32>", "tensor<1x2xi32>", "[[4, 5]]"},
		{"dynamic_update_slice_clamps", m23 + cst("u", "tensor<1x2xi32>", "[[7, 8]]") + cst("i", "tensor<i32>", "0") + cst("j", "tensor<i32>", "2") +
			"  %r = stablehlo.dynamic_update_slice %a, %u, %i, %j : (tensor<2x3xi32>, tensor<1x2xi32>, tensor<i32>, tensor<i32>) -> tensor<2x3xi32>", "tensor<2x3xi32>", "[[1, 7, 8], [4, 5, 6]]"},
		{"reshape", m23 + "  %r = stablehlo.reshape %a : (tensor<2x3xi32>) -> tensor<3x2xi32>", "tensor<3x2xi32>", "[[1, 2], [3, 4], [5, 6]]"},
		{"optimization_barrier", m23 + "  %r, %s = stablehlo.optimization_barrier %a, %a : tensor<2x3xi32>, tensor<2x3xi32>", "tensor<2x3xi32>", "[[1, 2, 3], [4, 5, 6]]"},
	})
}

func TestDotReduceSort(t *testing.T) {
	runOpCases(t, []opCase{
		{"dot_general_batched_spec", cst("l", "tensor<2x2x2xi64>", "[[[1, 2], [3, 4]], [[5, 6], [7, 8]]]") +
			cst("m", "tensor<2x2x2xi64>", "[[[1, 0], [0, 1]], [[1, 0], [0, 1]]]") +
			"  %r = stablehlo.dot_general %l, %m, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<2x2x2xi64>, tensor<2x2x2xi64>) -> tensor<2x2x2xi64>",
			"tensor<2x2x2xi64>", "[[[1, 2], [3, 4]], [[5, 6], [7, 8]]]"},
		{"dot_vector", cst("a", "tensor<3xf32>", "[1.0, 2.0, 3.0]") +
			"  %r = stablehlo.dot %a, %a : (tensor<3xf32>, tensor<3xf32>) -> tensor<f32>", "tensor<f32>", "14.0"},
		{"dot_nan_propagates", cst("a", "tensor<1x2xf32>", "[[0.0, 1.0]]") + cst("b", "tensor<2x1xf32>", "[[0x7F800000], [1.0]]") +
			"  %r = stablehlo.dot %a, %b : (tensor<1x2xf32>, tensor<2x1xf32>) -> tensor<1x1xf32>", "tensor<1x1xf32>", "[[0x7FC00000]]"},
		{"reduce_applies", cst("a", "tensor<2x3xi32>", "[[1, 2, 3], [4, 5, 6]]") + cst("z", "tensor<i32>", "0") +
			"  %r = stablehlo.reduce(%a init: %z) applies stablehlo.add across dimensions = [1] : (tensor<2x3xi32>, tensor<i32>) -> tensor<2xi32>", "tensor<2xi32>", "[6, 15]"},
		{"reduce_window_generic", cst("a", "tensor<3x2xi64>", "[[1, 2], [3, 4], [5, 6]]") + cst("z", "tensor<i64>", "0") +
			`  %r = "stablehlo.reduce_window"(%a, %z) ({
    ^bb0(%p: tensor<i64>, %q: tensor<i64>):
      %s = stablehlo.add %p, %q : tensor<i64>
      stablehlo.return %s : tensor<i64>
  }) {window_dimensions = array<i64: 2, 1>, window_strides = array<i64: 4, 1>, base_dilations = array<i64: 2, 1>, window_dilations = array<i64: 3, 1>, padding = dense<[[2, 1], [0, 0]]> : tensor<2x2xi64>} : (tensor<3x2xi64>, tensor<i64>) -> tensor<2x2xi64>`,
			"tensor<2x2xi64>", "[[0, 0], [3, 4]]"},
		{"sort_two_operands_spec", cst("a", "tensor<2x3xi64>", "[[1, 2, 3], [3, 2, 1]]") + cst("b", "tensor<2x3xi64>", "[[3, 2, 1], [1, 2, 3]]") +
			`  %r, %s = "stablehlo.sort"(%a, %b) ({
    ^bb0(%x: tensor<i64>, %y: tensor<i64>, %u: tensor<i64>, %v: tensor<i64>):
      %c = stablehlo.compare GT, %x, %y, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
      stablehlo.return %c : tensor<i1>
  }) {dimension = 0 : i64, is_stable = true} : (tensor<2x3xi64>, tensor<2x3xi64>) -> (tensor<2x3xi64>, tensor<2x3xi64>)`,
			"tensor<2x3xi64>", "[[3, 2, 3], [1, 2, 1]]"},
	})
}

func TestTriangularSolve(t *testing.T) {
	a := `  %a = stablehlo.constant dense<[[2.0, 9.0], [1.0, 4.0]]> : tensor<2x2xf64>` + "\n"
	solve := func(attrs, bType, resType string) string {
		return `  %r = "stablehlo.triangular_solve"(%a, %b) {` + attrs + `} : (tensor<2x2xf64>, ` + bType + `) -> ` + resType
	}
	runOpCases(t, []opCase{
		// Lower triangle [[2, 0], [1, 4]]: 2x0 = 2, x0 + 4x1 = 9.
		{"left_lower", a + `  %b = stablehlo.constant dense<[[2.0], [9.0]]> : tensor<2x1xf64>` + "\n" +
			solve(`left_side = true, lower = true, unit_diagonal = false, transpose_a = #stablehlo<transpose NO_TRANSPOSE>`, "tensor<2x1xf64>", "tensor<2x1xf64>"),
			"tensor<2x1xf64>", "[[1.0], [2.0]]"},
		// Upper triangle [[2, 9], [0, 4]] transposed is [[2, 0], [9, 4]].
		{"left_upper_transposed", a + `  %b = stablehlo.constant dense<[[2.0], [17.0]]> : tensor<2x1xf64>` + "\n" +
			solve(`left_side = true, lower = false, unit_diagonal = false, transpose_a = #stablehlo<transpose TRANSPOSE>`, "tensor<2x1xf64>", "tensor<2x1xf64>"),
			"tensor<2x1xf64>", "[[1.0], [2.0]]"},
		// x [[1, 0], [1, 1]] = [3, 2] with a unit diagonal: x1 = 2, x0 = 1.
		{"right_lower_unit", a + `  %b = stablehlo.constant dense<[[3.0, 2.0]]> : tensor<1x2xf64>` + "\n" +
			solve(`left_side = false, lower = true, unit_diagonal = true, transpose_a = #stablehlo<transpose NO_TRANSPOSE>`, "tensor<1x2xf64>", "tensor<1x2xf64>"),
			"tensor<1x2xf64>", "[[1.0, 2.0]]"},
	})
	// Complex: the lower triangle [[2, 0], [1+i, 4]]; its adjoint [[2, 1-i],
	// [0, 4]] takes x = [1+i, 2] to [4, 8], its transpose [[2, 1+i], [0, 4]]
	// takes [1-i, 2] there.
	c := `  %a = stablehlo.constant dense<[[(2.0, 0.0), (9.0, 9.0)], [(1.0, 1.0), (4.0, 0.0)]]> : tensor<2x2xcomplex<f64>>
  %b = stablehlo.constant dense<[[(4.0, 0.0)], [(8.0, 0.0)]]> : tensor<2x1xcomplex<f64>>
  %r = "stablehlo.triangular_solve"(%a, %b) {left_side = true, lower = true, unit_diagonal = false, transpose_a = #stablehlo<transpose %s>} : (tensor<2x2xcomplex<f64>>, tensor<2x1xcomplex<f64>>) -> tensor<2x1xcomplex<f64>>`
	runOpCases(t, []opCase{
		{"complex_adjoint", strings.Replace(c, "%s", "ADJOINT", 1), "tensor<2x1xcomplex<f64>>", "[[(1.0, 1.0)], [(2.0, 0.0)]]"},
		{"complex_transpose", strings.Replace(c, "%s", "TRANSPOSE", 1), "tensor<2x1xcomplex<f64>>", "[[(1.0, -1.0)], [(2.0, 0.0)]]"},
	})
}

func TestMapAndDimensionSize(t *testing.T) {
	runOpCases(t, []opCase{
		{"map", `  %a = stablehlo.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi64>
  %b = stablehlo.constant dense<[[5, 6], [7, 8]]> : tensor<2x2xi64>
  %r = "stablehlo.map"(%a, %b) ({
  ^bb0(%x: tensor<i64>, %y: tensor<i64>):
    %m = stablehlo.multiply %x, %y : tensor<i64>
    stablehlo.return %m : tensor<i64>
  }) {dimensions = array<i64: 0, 1>} : (tensor<2x2xi64>, tensor<2x2xi64>) -> tensor<2x2xi64>`,
			"tensor<2x2xi64>", "[[5, 12], [21, 32]]"},
		{"get_dimension_size", `  %a = stablehlo.constant dense<0.0> : tensor<2x7xf32>
  %r = stablehlo.get_dimension_size %a, dim = 1 : (tensor<2x7xf32>) -> tensor<i32>`, "tensor<i32>", "7"},
	})
}

func TestControlFlow(t *testing.T) {
	branches := `({
    stablehlo.return %a : tensor<i32>
  }, {
    stablehlo.return %b : tensor<i32>
  })`
	runOpCases(t, []opCase{
		{"case_out_of_range_runs_last", cst("a", "tensor<i32>", "10") + cst("b", "tensor<i32>", "20") + cst("i", "tensor<i32>", "-4") +
			`  %r = "stablehlo.case"(%i) ` + branches + ` : (tensor<i32>) -> tensor<i32>`, "tensor<i32>", "20"},
		{"if_true", cst("a", "tensor<i32>", "10") + cst("b", "tensor<i32>", "20") + cst("p", "tensor<i1>", "true") +
			`  %r = "stablehlo.if"(%p) ` + branches + ` : (tensor<i1>) -> tensor<i32>`, "tensor<i32>", "10"},
		{"while_generic", cst("n", "tensor<i32>", "0") + cst("one", "tensor<i32>", "1") + cst("lim", "tensor<i32>", "5") +
			`  %r = "stablehlo.while"(%n) ({
    ^bb0(%c: tensor<i32>):
      %p = stablehlo.compare LT, %c, %lim : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %p : tensor<i1>
  }, {
    ^bb0(%c: tensor<i32>):
      %d = stablehlo.add %c, %one : tensor<i32>
      stablehlo.return %d : tensor<i32>
  }) : (tensor<i32>) -> tensor<i32>`, "tensor<i32>", "5"},
	})
}

func TestRunContextCancelled(t *testing.T) {
	m := mustParse(t, `func.func @main(%arg0: tensor<i32>) -> tensor<i32> {
  %0 = stablehlo.while(%c = %arg0) : tensor<i32>
  cond {
    %t = stablehlo.constant dense<true> : tensor<i1>
    stablehlo.return %t : tensor<i1>
  } do {
    stablehlo.return %c : tensor<i32>
  }
  return %0 : tensor<i32>
}`)
	ctx, cancel := contextWithShortTimeout()
	defer cancel()
	_, err := m.Run(ctx, []*Tensor{literal(t, "tensor<i32>", "0")})
	if err != ctx.Err() || err == nil {
		t.Fatalf("Run error = %v, want the context's error unchanged", err)
	}
}

func TestRunErrors(t *testing.T) {
	m := mustParse(t, "func.func @main(%arg0: tensor<2xf32>) -> tensor<2xf32> {\n  return %arg0 : tensor<2xf32>\n}")
	good := literal(t, "tensor<2xf32>", "[1.0, 2.0]")
	for _, c := range []struct {
		name string
		args []*Tensor
	}{
		{"too_few", nil},
		{"too_many", []*Tensor{good, good}},
		{"wrong_type", []*Tensor{literal(t, "tensor<2xi32>", "[1, 2]")}},
		{"wrong_shape", []*Tensor{literal(t, "tensor<3xf32>", "[1.0, 2.0, 3.0]")}},
		{"short_data", []*Tensor{{Type: good.Type, Data: good.Data[:4]}}},
		{"nil", []*Tensor{nil}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, err := runMain(t, m, c.args...); errorCode(err) != InvalidArgument {
				t.Errorf("Run error = %v, want InvalidArgument", err)
			}
		})
	}
}

func TestUnsupported(t *testing.T) {
	for _, c := range []struct{ name, src, want string }{
		{"unknown_op", `func.func @main(%arg0: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %0 = "stablehlo.cholesky"(%arg0) {lower = true} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}`, "stablehlo.cholesky"},
		{"custom_call", `func.func @main(%arg0: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.custom_call @lapack_sgetrf(%arg0) : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}`, "custom_call @lapack_sgetrf is not supported"},
		{"lapack_unknown", `func.func @main(%arg0: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %0 = stablehlo.custom_call @lapack_sgelsd_ffi(%arg0) : (tensor<2x2xf32>) -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}`, "@lapack_sgelsd_ffi is not supported by the interpreter; no OpenPathways backend runs it, only JAX's own CPU client"},
		{"lapack_complex", `func.func @main(%arg0: tensor<2x2xcomplex<f32>>) -> tensor<2x2xcomplex<f32>> {
  %0 = stablehlo.custom_call @lapack_cgelsd_ffi(%arg0) : (tensor<2x2xcomplex<f32>>) -> tensor<2x2xcomplex<f32>>
  return %0 : tensor<2x2xcomplex<f32>>
}`, "(LAPACK gelsd of complex matrices); no OpenPathways backend runs it"},
		{"float8_e8m0_passthrough", `func.func @main(%arg0: tensor<2xf8E8M0FNU>) -> tensor<2xf8E8M0FNU> {
  return %arg0 : tensor<2xf8E8M0FNU>
}`, "f8E8M0FNU"},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := mustParse(t, c.src)
			err := m.Unsupported()
			if errorCode(err) != Unimplemented || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Unsupported() = %v, want Unimplemented naming %q", err, c.want)
			}
			if _, err := runMain(t, m, &Tensor{}); errorCode(err) != Unimplemented {
				t.Fatalf("Run error = %v, want Unimplemented", err)
			}
		})
	}
}

// windowSum is reduce_window(add) of an n-vector with one window size,
// padding and window dilation.
func windowSum(t *testing.T, n, out int, window, padLo, padHi, dilation int64) *Module {
	return mustParse(t, fmt.Sprintf(`func.func @main(%%x: tensor<%[1]dxf32>) -> tensor<%[2]dxf32> {
  %%z = stablehlo.constant dense<0.0> : tensor<f32>
  %%r = "stablehlo.reduce_window"(%%x, %%z) ({
  ^bb0(%%a: tensor<f32>, %%b: tensor<f32>):
    %%s = stablehlo.add %%a, %%b : tensor<f32>
    stablehlo.return %%s : tensor<f32>
  }) {window_dimensions = array<i64: %[3]d>, padding = dense<[[%[4]d, %[5]d]]> : tensor<1x2xi64>,
      window_dilations = array<i64: %[6]d>} : (tensor<%[1]dxf32>, tensor<f32>) -> tensor<%[2]dxf32>
  return %%r : tensor<%[2]dxf32>
}`, n, out, window, padLo, padHi, dilation))
}

// TestHugeWindowCoversOnlyItsInput: a window of 10^12 over four elements
// costs the four elements it covers, not the window's length.
func TestHugeWindowCoversOnlyItsInput(t *testing.T) {
	out, err := runMain(t, windowSum(t, 4, 1, 1_000_000_000_000, 0, 0, 1), literal(t, "tensor<4xf32>", "[1.0, 2.0, 3.0, 4.0]"))
	if err != nil {
		t.Fatal(err)
	}
	if got := floats(out[0]); !cmp.Equal(got, []float64{10}) {
		t.Errorf("sum = %v, want [10]", got)
	}
}

// TestWindowAttributesOverflow: a window whose dilated length overflows
// int64 arithmetic is refused, not wrapped around.
func TestWindowAttributesOverflow(t *testing.T) {
	_, err := runMain(t, windowSum(t, 4, 1, 1<<40, 0, 0, 1<<40), literal(t, "tensor<4xf32>", "[1.0, 2.0, 3.0, 4.0]"))
	if errorCode(err) != InvalidArgument {
		t.Fatalf("Run error = %v, want InvalidArgument", err)
	}
}

// TestLongWindowsHonourContext: sliding windows that together read 4·10^10
// elements stop at the context's deadline.
func TestLongWindowsHonourContext(t *testing.T) {
	const n = 200_000
	m := windowSum(t, n, 2*n-1, n, n-1, n-1, 1)
	x, err := NewTensor(TensorType{Elem: F32, Shape: []int64{n}}, make([]byte, 4*n))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := contextWithShortTimeout()
	defer cancel()
	if _, err := m.Run(ctx, []*Tensor{x}); err == nil || err != ctx.Err() {
		t.Fatalf("Run error = %v, want %v", err, ctx.Err())
	}
}

// TestFloat32SumStaysNearExact sums 4096 values whose float32 running sum
// drifts: the result must be the exact sum rounded once, as close as XLA's
// blocked sums get (a sequential float32 loop is off by hundreds of ulps).
func TestFloat32SumStaysNearExact(t *testing.T) {
	const n = 4096
	data := make([]byte, 4*n)
	exact := 0.0
	for i := range n {
		v := float32(0.1) + float32(i%7)*float32(0.013)
		binary.LittleEndian.PutUint32(data[4*i:], math.Float32bits(v))
		exact += float64(v)
	}
	in, err := NewTensor(TensorType{Elem: F32, Shape: []int64{2, n / 2}}, data)
	if err != nil {
		t.Fatal(err)
	}
	m := mustParse(t, `func.func @main(%a: tensor<2x2048xf32>) -> tensor<f32> {
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %r = stablehlo.reduce(%a init: %z) applies stablehlo.add across dimensions = [0, 1] : (tensor<2x2048xf32>, tensor<f32>) -> tensor<f32>
  return %r : tensor<f32>
}`)
	out, err := runMain(t, m, in)
	if err != nil {
		t.Fatal(err)
	}
	got := math.Float32frombits(binary.LittleEndian.Uint32(out[0].Data))
	if want := float32(exact); got != want {
		t.Errorf("sum of %d float32 values = %v, want the exact sum rounded once, %v", n, got, want)
	}
}

// TestFloat64SumStaysNearExact sums 50,000 float64 0.1s in each of two rows,
// which a sequential sum gets wrong by some 10,000 ulps, and rows holding
// +Inf and NaN: each output is the exact sum rounded once, or Inf, or NaN.
func TestFloat64SumStaysNearExact(t *testing.T) {
	const n = 50000
	rows := [][]float64{make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)}
	for i := range n {
		rows[0][i], rows[1][i], rows[2][i], rows[3][i] = 0.1, float64(i%13)*0.37, 1, 1
	}
	rows[2][7], rows[3][9], rows[3][11] = math.Inf(1), math.NaN(), math.Inf(-1)
	data := make([]byte, 0, 8*4*n)
	for _, r := range rows {
		for _, v := range r {
			data = binary.LittleEndian.AppendUint64(data, math.Float64bits(v))
		}
	}
	in, err := NewTensor(TensorType{Elem: F64, Shape: []int64{4, n}}, data)
	if err != nil {
		t.Fatal(err)
	}
	m := mustParse(t, `func.func @main(%a: tensor<4x50000xf64>) -> tensor<4xf64> {
  %z = stablehlo.constant dense<0.0> : tensor<f64>
  %r = stablehlo.reduce(%a init: %z) applies stablehlo.add across dimensions = [1] : (tensor<4x50000xf64>, tensor<f64>) -> tensor<4xf64>
  return %r : tensor<4xf64>
}`)
	out, err := runMain(t, m, in)
	if err != nil {
		t.Fatal(err)
	}
	for k, r := range rows[:2] {
		exact := new(big.Float).SetPrec(2000)
		for _, v := range r {
			exact.Add(exact, big.NewFloat(v))
		}
		want, _ := exact.Float64()
		if got := math.Float64frombits(binary.LittleEndian.Uint64(out[0].Data[8*k:])); got != want {
			t.Errorf("row %d: sum = %v, want the exact sum rounded once, %v", k, got, want)
		}
	}
	if got := math.Float64frombits(binary.LittleEndian.Uint64(out[0].Data[16:])); !math.IsInf(got, 1) {
		t.Errorf("a sum with +Inf = %v, want +Inf", got)
	}
	if got := math.Float64frombits(binary.LittleEndian.Uint64(out[0].Data[24:])); !math.IsNaN(got) {
		t.Errorf("a sum with NaN and -Inf = %v, want NaN", got)
	}
}

// reduceWindowOp spells a reduce_window of %a with init %z whose body is
// one binary op, over element type elem.
func reduceWindowOp(op, elem, attrs, inType, outType string) string {
	return `  %r = "stablehlo.reduce_window"(%a, %z) ({
    ^bb0(%p: tensor<` + elem + `>, %q: tensor<` + elem + `>):
      %s = stablehlo.` + op + ` %p, %q : tensor<` + elem + `>
      stablehlo.return %s : tensor<` + elem + `>
  }) {` + attrs + `} : (` + inType + `, tensor<` + elem + `>) -> ` + outType
}

// TestCumulativeWindows runs the reduce_windows JAX lowers cumsum, cumprod,
// cummax and cummin to (a window as long as the axis, padded before it, or
// after it when reversed) and windows close to them that are not cumulative.
func TestCumulativeWindows(t *testing.T) {
	ints := cst("a", "tensor<2x3xi64>", "[[1, 2, 3], [4, 5, 6]]") + cst("z", "tensor<i64>", "10")
	floats := cst("a", "tensor<2x3xf32>", "[[1.0, -2.0, 3.0], [0.5, 0x7FC00000, -1.0]]") + cst("z", "tensor<f32>", "0xFF800000")
	i64, f32 := "tensor<2x3xi64>", "tensor<2x3xf32>"
	runOpCases(t, []opCase{
		{"cumsum_axis1_with_init", ints + reduceWindowOp("add", "i64", `window_dimensions = array<i64: 1, 3>, padding = dense<[[0, 0], [2, 0]]> : tensor<2x2xi64>`, i64, i64),
			i64, "[[11, 13, 16], [14, 19, 25]]"},
		{"cumsum_axis0_reverse", ints + reduceWindowOp("add", "i64", `window_dimensions = array<i64: 2, 1>, padding = dense<[[0, 1], [0, 0]]> : tensor<2x2xi64>`, i64, i64),
			i64, "[[15, 17, 19], [14, 15, 16]]"},
		{"cumprod_reverse", ints + reduceWindowOp("multiply", "i64", `window_dimensions = array<i64: 1, 3>, padding = dense<[[0, 0], [0, 2]]> : tensor<2x2xi64>`, i64, i64),
			i64, "[[60, 60, 30], [1200, 300, 60]]"},
		{"cummax_nan_sticks", floats + reduceWindowOp("maximum", "f32", `window_dimensions = array<i64: 1, 3>, padding = dense<[[0, 0], [2, 0]]> : tensor<2x2xi64>`, f32, f32),
			f32, "[[1.0, 1.0, 3.0], [0.5, 0x7FC00000, 0x7FC00000]]"},
		{"window_shorter_than_axis", ints + reduceWindowOp("add", "i64", `window_dimensions = array<i64: 1, 2>, padding = dense<[[0, 0], [1, 0]]> : tensor<2x2xi64>`, i64, i64),
			i64, "[[11, 13, 15], [14, 19, 21]]"},
		{"padded_both_sides", ints + reduceWindowOp("add", "i64", `window_dimensions = array<i64: 1, 3>, padding = dense<[[0, 0], [1, 1]]> : tensor<2x2xi64>`, i64, i64),
			i64, "[[13, 16, 15], [19, 25, 21]]"},
	})
}

// TestLongCumsumIsARunningSum: each output of a 20,000-element float32
// cumsum is the float64 running sum rounded once (a window per output took
// n² steps, and summed each window in float32).
func TestLongCumsumIsARunningSum(t *testing.T) {
	const n = 20000
	data := make([]byte, 4*n)
	want := make([]float32, n)
	run := 0.0
	for i := range n {
		v := float32(i%13) * 0.37
		binary.LittleEndian.PutUint32(data[4*i:], math.Float32bits(v))
		run += float64(v)
		want[i] = float32(run)
	}
	in, err := NewTensor(TensorType{Elem: F32, Shape: []int64{n}}, data)
	if err != nil {
		t.Fatal(err)
	}
	m := mustParse(t, "func.func @main(%a: tensor<20000xf32>) -> tensor<20000xf32> {\n"+
		"  %z = stablehlo.constant dense<0.0> : tensor<f32>\n"+
		reduceWindowOp("add", "f32", `window_dimensions = array<i64: 20000>, padding = dense<[[19999, 0]]> : tensor<1x2xi64>`, "tensor<20000xf32>", "tensor<20000xf32>")+
		"\n  return %r : tensor<20000xf32>\n}")
	out, err := runMain(t, m, in)
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		if got := math.Float32frombits(binary.LittleEndian.Uint32(out[0].Data[4*i:])); got != want[i] {
			t.Fatalf("cumsum[%d] = %v, want the running sum rounded once, %v", i, got, want[i])
		}
	}
}

// TestSixteenBitReductionsRoundOnce: bf16 and f16 sums, by reduce and by
// reduce_window, accumulate in float32 and round once, as XLA computes
// them; rounding after every add stalled 65,536 × 0.01 at 4.
func TestSixteenBitReductionsRoundOnce(t *testing.T) {
	runOpCases(t, []opCase{
		// bf16(0.01) is 0.010009765625; 65,536 of them are 656.
		{"bf16_reduce", cst("a", "tensor<65536xbf16>", "0.01") + cst("z", "tensor<bf16>", "0.0") +
			"  %r = stablehlo.reduce(%a init: %z) applies stablehlo.add across dimensions = [0] : (tensor<65536xbf16>, tensor<bf16>) -> tensor<bf16>",
			"tensor<bf16>", "656.0"},
		// f16(0.01) is 0.0099945068359375; 8,192 of them are 81.875 to f16.
		{"f16_reduce", cst("a", "tensor<8192xf16>", "0.01") + cst("z", "tensor<f16>", "0.0") +
			"  %r = stablehlo.reduce(%a init: %z) applies stablehlo.add across dimensions = [0] : (tensor<8192xf16>, tensor<f16>) -> tensor<f16>",
			"tensor<f16>", "81.875"},
		{"bf16_reduce_window", cst("a", "tensor<4096xbf16>", "0.01") + cst("z", "tensor<bf16>", "0.0") +
			reduceWindowOp("add", "bf16", `window_dimensions = array<i64: 2048>, window_strides = array<i64: 2048>`, "tensor<4096xbf16>", "tensor<2xbf16>"),
			"tensor<2xbf16>", "[20.5, 20.5]"},
		{"bf16_cumsum", cst("a", "tensor<4096xbf16>", "0.01") + cst("z", "tensor<bf16>", "0.0") +
			strings.Replace(reduceWindowOp("add", "bf16", `window_dimensions = array<i64: 4096>, padding = dense<[[4095, 0]]> : tensor<1x2xi64>`, "tensor<4096xbf16>", "tensor<4096xbf16>"), "%r =", "%w =", 1) +
			"\n  %r = stablehlo.slice %w [4095:4096] : (tensor<4096xbf16>) -> tensor<1xbf16>",
			"tensor<1xbf16>", "[41.0]"},
	})
}

// TestLongDotStaysNearExact: a float32 dot over 65,536 products stays within
// 1e-6 of the exact sum, as XLA's does (a float32 running sum drifted by
// 1e-5).
func TestLongDotStaysNearExact(t *testing.T) {
	const k = 65536
	lhs, rhs := make([]byte, 4*k), make([]byte, 4*k)
	exact := 0.0
	for i := range k {
		a, b := float32(0.1)+float32(i%7)*0.013, 1+float32(i%5)*0.1
		binary.LittleEndian.PutUint32(lhs[4*i:], math.Float32bits(a))
		binary.LittleEndian.PutUint32(rhs[4*i:], math.Float32bits(b))
		exact += float64(a) * float64(b)
	}
	l, err := NewTensor(TensorType{Elem: F32, Shape: []int64{1, k}}, lhs)
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewTensor(TensorType{Elem: F32, Shape: []int64{k, 1}}, rhs)
	if err != nil {
		t.Fatal(err)
	}
	m := mustParse(t, `func.func @main(%a: tensor<1x65536xf32>, %b: tensor<65536x1xf32>) -> tensor<1x1xf32> {
  %r = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<1x65536xf32>, tensor<65536x1xf32>) -> tensor<1x1xf32>
  return %r : tensor<1x1xf32>
}`)
	out, err := runMain(t, m, l, r)
	if err != nil {
		t.Fatal(err)
	}
	got := float64(math.Float32frombits(binary.LittleEndian.Uint32(out[0].Data)))
	if rel := math.Abs(got-exact) / exact; rel > 1e-6 {
		t.Errorf("dot over %d products = %v, exact %v: relative error %.2g, want at most 1e-6", k, got, exact, rel)
	}
}

// TestSelectAndScatterTypedSelect: a select body that is one compare runs as
// a typed comparison; it must pick what the interpreter picks running the
// same body with a no-op after it, over ties, NaNs, infinities and padding,
// for each direction, comparison type and argument order.
func TestSelectAndScatterTypedSelect(t *testing.T) {
	operand := "[[1.0, 0x7FC00000, 3.0, 3.0], [0xFF800000, 2.0, 2.0, -0.0], [0.0, 5.0, 0x7FC00000, 5.0], [4.0, 4.0, -1.0, 0x7F800000]]"
	source := "[[1.0, 2.0, 4.0, 8.0], [16.0, 32.0, 64.0, 128.0], [256.0, 512.0, 1024.0, 2048.0], [4096.0, 8192.0, 16384.0, 32768.0]]"
	program := func(compare string, noop bool) string {
		ret := "%c"
		extra := ""
		if noop {
			extra = "      %t = stablehlo.constant dense<true> : tensor<i1>\n      %d = stablehlo.and %c, %t : tensor<i1>\n"
			ret = "%d"
		}
		return `func.func @main() -> tensor<4x4xf32> {
  %a = stablehlo.constant dense<` + operand + `> : tensor<4x4xf32>
  %s = stablehlo.constant dense<` + source + `> : tensor<4x4xf32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %r = "stablehlo.select_and_scatter"(%a, %s, %z) <{padding = dense<[[1, 0], [0, 1]]> : tensor<2x2xi64>, window_dimensions = array<i64: 2, 2>, window_strides = array<i64: 1, 1>}> ({
    ^bb0(%x: tensor<f32>, %y: tensor<f32>):
      %c = stablehlo.compare ` + compare + ` : (tensor<f32>, tensor<f32>) -> tensor<i1>
` + extra + `      stablehlo.return ` + ret + ` : tensor<i1>
    }, {
    ^bb0(%x: tensor<f32>, %y: tensor<f32>):
      %u = stablehlo.add %x, %y : tensor<f32>
      stablehlo.return %u : tensor<f32>
    }) : (tensor<4x4xf32>, tensor<4x4xf32>, tensor<f32>) -> tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}`
	}
	for _, compare := range []string{"GE, %x, %y, FLOAT", "GT, %x, %y, FLOAT", "LE, %y, %x, FLOAT", "GE, %x, %y, TOTALORDER", "LT, %x, %y, TOTALORDER"} {
		t.Run(compare, func(t *testing.T) {
			typed, err := runMain(t, mustParse(t, program(compare, false)))
			if err != nil {
				t.Fatal(err)
			}
			interpreted, err := runMain(t, mustParse(t, program(compare, true)))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(typed[0].Data, interpreted[0].Data) {
				t.Errorf("typed select scattered\n%v\nthe interpreted body\n%v", typed[0].Data, interpreted[0].Data)
			}
		})
	}
}

// iotaWrapped is 0..129 as int8 values: 128 and 129 wrap to -128 and -127.
func iotaWrapped() string {
	parts := make([]string, 130)
	for i := range parts {
		parts[i] = strconv.Itoa(int(int8(i)))
	}
	return strings.Join(parts, ", ")
}
