package stablehlo

import "math"

// Special functions the Go math package lacks or handles differently.

// nextAfter16 steps a bf16 or f16 value one unit toward y.
func nextAfter16(e ElemType, x, y float32) float32 {
	to, from := f32ToBF16, bf16ToF32
	if e == F16 {
		to, from = f32ToF16, f16ToF32
	}
	switch {
	case x != x || y != y:
		return x + y // NaN
	case x == y:
		return y
	case x == 0:
		h := uint16(1)
		if y < 0 {
			h |= 0x8000
		}
		return from(h)
	}
	h := to(x)
	if (x < y) == (x > 0) {
		h++
	} else {
		h--
	}
	return from(h)
}

func nextAfter[T float32 | float64](x, y T) T {
	if f, ok := any(x).(float32); ok {
		return T(math.Nextafter32(f, float32(y)))
	}
	return T(math.Nextafter(float64(x), float64(y)))
}

// digamma is the derivative of lgamma: reflection for x < 0.5, recurrence
// up to x >= 6, then the asymptotic series.
func digamma(x float64) float64 {
	switch {
	case math.IsNaN(x) || math.IsInf(x, -1):
		return math.NaN()
	case x <= 0 && x == math.Floor(x):
		return math.NaN() // poles
	case x < 0.5:
		return digamma(1-x) - math.Pi/math.Tan(math.Pi*x)
	}
	r := 0.0
	for x < 6 {
		r -= 1 / x
		x++
	}
	f := 1 / (x * x)
	series := f * (1.0/12 - f*(1.0/120-f*(1.0/252-f*(1.0/240-f*(1.0/132)))))
	return r + math.Log(x) - 0.5/x - series
}
