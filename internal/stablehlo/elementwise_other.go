//go:build !amd64

package stablehlo

func addVecF32(dst, a, b *float32, blocks int) { panic("stablehlo: addVecF32 without AVX") }
func subVecF32(dst, a, b *float32, blocks int) { panic("stablehlo: subVecF32 without AVX") }
func mulVecF32(dst, a, b *float32, blocks int) { panic("stablehlo: mulVecF32 without AVX") }
func addVecF64(dst, a, b *float64, blocks int) { panic("stablehlo: addVecF64 without AVX") }
func subVecF64(dst, a, b *float64, blocks int) { panic("stablehlo: subVecF64 without AVX") }
func mulVecF64(dst, a, b *float64, blocks int) { panic("stablehlo: mulVecF64 without AVX") }
