package ifrttest

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/openpathways/pathways/ifrt"
)

// testTypedSlices checks the front-door helpers over the backend: every Element
// type goes to a sharded array and back, the bytes it puts are the host layout
// MakeArrayFromHostBuffer takes, and Reshard, CopyArray and NewReplicatedSharding
// move it without naming its dtype and shape again.
func testTypedSlices(t *testing.T, h Harness) {
	e := h.env(t, 1)
	n := int64(len(e.devs))
	shape := ifrt.Shape{2 * n, 3}
	rows := e.tiled(e.devs, n, 1)
	k := int(shape.NumElements())
	roundTrip(t, e, shape, rows, seq(k, func(i int) bool { return i%3 == 1 }))
	roundTrip(t, e, shape, rows, seq(k, func(i int) int8 { return int8(i - 64) }))
	roundTrip(t, e, shape, rows, seq(k, func(i int) int16 { return int16(-300 * i) }))
	roundTrip(t, e, shape, rows, seq(k, func(i int) int32 { return int32(-70000 * i) }))
	roundTrip(t, e, shape, rows, seq(k, func(i int) int64 { return -1 << 40 * int64(i) }))
	roundTrip(t, e, shape, rows, seq(k, func(i int) uint8 { return uint8(250 - i) }))
	roundTrip(t, e, shape, rows, seq(k, func(i int) uint16 { return uint16(65000 - i) }))
	roundTrip(t, e, shape, rows, seq(k, func(i int) uint32 { return 1<<31 + uint32(i) }))
	roundTrip(t, e, shape, rows, seq(k, func(i int) uint64 { return 1<<63 + uint64(i) }))
	roundTrip(t, e, shape, rows, seq(k, func(i int) ifrt.Float16 { return ifrt.Float16(0x3c00 + i) })) // 1.0, then up by one ulp
	roundTrip(t, e, shape, rows, seq(k, func(i int) ifrt.BFloat16 { return ifrt.BFloat16(0xbf80 - i) }))
	roundTrip(t, e, shape, rows, seq(k, func(i int) float32 { return float32(i) / 8 }))
	roundTrip(t, e, shape, rows, seq(k, func(i int) float64 { return -float64(i) / 3 }))
	roundTrip(t, e, shape, rows, seq(k, func(i int) complex64 { return complex(float32(i), -0.5) }))
	roundTrip(t, e, shape, rows, seq(k, func(i int) complex128 { return complex(0.25, float64(i)) }))

	// The bytes are the host layout: 1.5 and -2 as little-endian float32.
	a, err := ifrt.MakeArrayFromSlice(e.ctx, e.client, []float32{1.5, -2}, ifrt.Shape{2}, e.single(0))
	if err != nil {
		t.Fatalf("MakeArrayFromSlice: %v", err)
	}
	e.wantContents(a, []byte{0, 0, 0xc0, 0x3f, 0, 0, 0, 0xc0})
	_, err = ifrt.ArrayToSlice[int32](e.ctx, a)
	wantCode(t, "ArrayToSlice[int32] of an f32 array", err, ifrt.ErrInvalidArgument)
	_, err = ifrt.MakeArrayFromSlice(e.ctx, e.client, []float32{1, 2, 3}, ifrt.Shape{2}, e.single(0))
	wantCode(t, "MakeArrayFromSlice of 3 values for shape [2]", err, ifrt.ErrInvalidArgument)

	values := seq(k, func(i int) float32 { return float32(i) })
	x, err := ifrt.MakeArrayFromSlice(e.ctx, e.client, values, shape, rows)
	if err != nil {
		t.Fatalf("MakeArrayFromSlice: %v", err)
	}
	all, err := ifrt.NewReplicatedSharding(e.devs)
	if err != nil {
		t.Fatalf("NewReplicatedSharding: %v", err)
	}
	if !all.IsFullyReplicated() {
		t.Errorf("NewReplicatedSharding(%v) = %v, not fully replicated", e.devs, all)
	}
	y, err := ifrt.Reshard(e.ctx, e.client, x, all, ifrt.AlwaysCopy)
	if err != nil {
		t.Fatalf("Reshard to %v: %v", all, err)
	}
	if !ifrt.EquivalentShardings(y.Sharding(), all, shape) || y.DType() != ifrt.F32 || !y.Shape().Equal(shape) {
		t.Errorf("Reshard made %v%v with %v, want f32%v with %v", y.DType(), y.Shape(), y.Sharding(), shape, all)
	}
	wantSlice(t, e, y, values)
	rev := reversed(e.devs)
	z, err := ifrt.CopyArray(e.ctx, e.client, x, rev, ifrt.DonateInput)
	if err != nil {
		t.Fatalf("CopyArray to %v: %v", rev, err)
	}
	if !z.Sharding().Devices().Equal(rev) {
		t.Errorf("CopyArray put the copy on %v, want %v", z.Sharding().Devices(), rev)
	}
	wantSlice(t, e, z, values)
	if !x.IsDeleted() {
		t.Error("CopyArray with DonateInput left its input alive")
	}
	_, err = ifrt.Reshard(e.ctx, e.client, z, e.tiled(e.devs[:1], 1), ifrt.AlwaysCopy)
	wantCode(t, "Reshard to a sharding of another rank", err, ifrt.ErrInvalidArgument)
}

func seq[T ifrt.Element](n int, f func(i int) T) []T {
	out := make([]T, n)
	for i := range out {
		out[i] = f(i)
	}
	return out
}

func roundTrip[T ifrt.Element](t *testing.T, e *env, shape ifrt.Shape, s ifrt.Sharding, values []T) {
	t.Helper()
	a, err := ifrt.MakeArrayFromSlice(e.ctx, e.client, values, shape, s)
	if err != nil {
		t.Fatalf("MakeArrayFromSlice[%v]: %v", ifrt.DTypeOf[T](), err)
	}
	defer a.Delete()
	if a.DType() != ifrt.DTypeOf[T]() {
		t.Errorf("MakeArrayFromSlice of %T made a %v array, want %v", values, a.DType(), ifrt.DTypeOf[T]())
	}
	wantSlice(t, e, a, values)
}

func wantSlice[T ifrt.Element](t *testing.T, e *env, a ifrt.Array, want []T) {
	t.Helper()
	got, err := ifrt.ArrayToSlice[T](e.ctx, a)
	if err != nil {
		t.Fatalf("ArrayToSlice[%v]: %v", ifrt.DTypeOf[T](), err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ArrayToSlice[%v] of %v (-put +got):\n%s", ifrt.DTypeOf[T](), a.Sharding(), diff)
	}
}
