package stablehlo

// The elementwise kernels set dst[i] = a[i] op b[i] for the first blocks*32
// bytes, eight float32 or four float64 lanes at a time; dst may be a or b
// (elementwise_amd64.s). They need AVX (haveAVX).

//go:noescape
func addVecF32(dst, a, b *float32, blocks int)

//go:noescape
func subVecF32(dst, a, b *float32, blocks int)

//go:noescape
func mulVecF32(dst, a, b *float32, blocks int)

//go:noescape
func addVecF64(dst, a, b *float64, blocks int)

//go:noescape
func subVecF64(dst, a, b *float64, blocks int)

//go:noescape
func mulVecF64(dst, a, b *float64, blocks int)
