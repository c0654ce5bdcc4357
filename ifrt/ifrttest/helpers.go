package ifrttest

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"

	"github.com/openpathways/pathways/ifrt"
)

// values returns n elements of d in host layout, every one a valid value of d, from
// a generator seeded by seed so failures repeat.
func values(d ifrt.DType, n int64, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, uint64(d)))
	size := int64(d.HostByteSize())
	out := make([]byte, n*size)
	for i := range out {
		out[i] = byte(r.Uint32())
	}
	bits := d.BitWidth()
	switch {
	case d == ifrt.PRED:
		for i := range out {
			out[i] &= 1
		}
	case bits < 8 && d.IsSigned():
		// Sign-extended values in [-2^(bits-1), 2^(bits-1)).
		for i := range out {
			out[i] = byte(int8(out[i]<<(8-bits)) >> (8 - bits))
		}
	case bits < 8:
		for i := range out {
			out[i] &= byte(1<<bits - 1)
		}
	}
	return out
}

// iotaF32 returns n float32 values 0, 1, 2, ... in host layout.
func iotaF32(n int) []byte {
	out := make([]byte, 4*n)
	for i := range n {
		putF32(out[4*i:], float32(i))
	}
	return out
}

func putF32(b []byte, f float32) {
	u := math.Float32bits(f)
	b[0], b[1], b[2], b[3] = byte(u), byte(u>>8), byte(u>>16), byte(u>>24)
}

func (e *env) put(data []byte, d ifrt.DType, shape ifrt.Shape, s ifrt.Sharding) ifrt.Array {
	e.t.Helper()
	a, err := e.client.MakeArrayFromHostBuffer(e.ctx, data, ifrt.ArraySpec{DType: d, Shape: shape, Sharding: s}, nil)
	if err != nil {
		e.t.Fatalf("MakeArrayFromHostBuffer(%v%v, %v): %v", d, shape, s, err)
	}
	return a
}

func (e *env) get(a ifrt.Array) []byte {
	e.t.Helper()
	n, err := a.Shape().ByteSize(a.DType())
	if err != nil {
		e.t.Fatal(err)
	}
	out := make([]byte, n)
	if err := a.CopyToHostBuffer(e.ctx, out, nil); err != nil {
		e.t.Fatalf("CopyToHostBuffer(%v%v): %v", a.DType(), a.Shape(), err)
	}
	return out
}

func (e *env) wantContents(a ifrt.Array, want []byte) {
	e.t.Helper()
	if got := e.get(a); !bytes.Equal(got, want) {
		e.t.Errorf("%v%v on %v: contents differ\n got %v\nwant %v", a.DType(), a.Shape(), a.Sharding(), clip(got), clip(want))
	}
}

func clip(b []byte) []byte {
	if len(b) > 48 {
		return b[:48]
	}
	return b
}

func (e *env) tiled(devs ifrt.DeviceList, tiles ...int64) ifrt.Sharding {
	e.t.Helper()
	s, err := ifrt.NewTiledSharding(devs, tiles...)
	if err != nil {
		e.t.Fatal(err)
	}
	return s
}

func (e *env) replicated(devs ifrt.DeviceList) ifrt.Sharding {
	e.t.Helper()
	s, err := ifrt.NewHloSharding(devs, "", ifrt.Replicated())
	if err != nil {
		e.t.Fatal(err)
	}
	return s
}

func (e *env) single(i int) ifrt.Sharding { return ifrt.NewSingleDeviceSharding(e.devs[i], "") }

// wantCode checks that err is sentinel (errors.Is) and has exactly its code:
// every backend, and every backend through a proxy, must answer a bad input
// with the same code (see the table of ifrt/backend).
func wantCode(t interface {
	Helper()
	Errorf(string, ...any)
}, what string, err error, sentinel error) {
	t.Helper()
	if want := ifrt.CodeOf(sentinel); !errors.Is(err, sentinel) || ifrt.CodeOf(err) != want {
		t.Errorf("%s: got error %v (code %v), want %v (code %v)", what, err, ifrt.CodeOf(err), sentinel, want)
	}
}

func reversed(l ifrt.DeviceList) ifrt.DeviceList {
	out := make(ifrt.DeviceList, len(l))
	for i, d := range l {
		out[len(l)-1-i] = d
	}
	return out
}
