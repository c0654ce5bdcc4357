package ifrttest

import (
	"bytes"
	"testing"

	"github.com/openpathways/pathways/ifrt"
)

func testDevices(t *testing.T, h Harness) {
	e := h.env(t, 1)
	all := e.client.Devices()
	if err := all.Validate(); err != nil {
		t.Fatalf("Devices(): %v", err)
	}
	for _, d := range e.devs {
		got, err := e.client.LookupDevice(d.ID)
		if err != nil || got.ID != d.ID {
			t.Errorf("LookupDevice(%d) = %v, %v", d.ID, got, err)
		}
		if !d.Addressable {
			t.Errorf("addressable device %d says it is not addressable", d.ID)
		}
		if d.DefaultMemory == nil {
			t.Errorf("device %d has no default memory", d.ID)
		}
	}
	_, err := e.client.LookupDevice(1 << 30)
	wantCode(t, "LookupDevice(unknown)", err, ifrt.ErrNotFound)
	if p := e.client.Platform(); p.Name == "" {
		t.Errorf("Platform() has no name: %+v", p)
	}
}

func testRoundTripAllDTypes(t *testing.T, h Harness) {
	e := h.env(t, 1)
	n := int64(len(e.devs))
	for _, d := range ifrt.AllDTypes() {
		if d == ifrt.TOKEN || d == ifrt.STRING {
			continue
		}
		t.Run(d.String(), func(t *testing.T) {
			e := *e
			e.t = t
			cases := []struct {
				name     string
				shape    ifrt.Shape
				sharding ifrt.Sharding
			}{
				{"scalar", ifrt.Shape{}, e.single(0)},
				{"single", ifrt.Shape{3, 5}, e.single(len(e.devs) - 1)},
				{"tiled", ifrt.Shape{2 * n, 3}, e.tiled(e.devs, n, 1)},
				{"replicated", ifrt.Shape{4, 2}, e.replicated(e.devs)},
				{"empty", ifrt.Shape{0, 4}, e.tiled(e.devs, 1, 1)},
			}
			for i, c := range cases {
				data := values(d, c.shape.NumElements(), uint64(i))
				a := e.put(data, d, c.shape, c.sharding)
				if a.DType() != d || !a.Shape().Equal(c.shape) {
					t.Errorf("%s: array is %v%v, want %v%v", c.name, a.DType(), a.Shape(), d, c.shape)
				}
				e.wantContents(a, data)
				a.Delete()
			}
		})
	}
}

func testStridedCopies(t *testing.T, h Harness) {
	e := h.env(t, 1)
	// A 3x4 f32 array stored column-major, with a gap of one element between columns.
	shape := ifrt.Shape{3, 4}
	strides := []int64{4, 16}
	region, err := ifrt.StridedRegionSize(ifrt.F32, shape, strides)
	if err != nil || region != 4*(3-1)+16*(4-1)+4 {
		t.Fatalf("StridedRegionSize = %d, %v", region, err)
	}
	host := make([]byte, region)
	dense := iotaF32(12)
	for i := range 3 {
		for j := range 4 {
			copy(host[4*i+16*j:], dense[4*(4*i+j):4*(4*i+j)+4])
		}
	}
	k := min(len(e.devs), 3)
	for _, s := range []ifrt.Sharding{e.single(0), e.tiled(e.devs[:k], int64(k), 1)} {
		spec := ifrt.ArraySpec{DType: ifrt.F32, Shape: shape, Sharding: s}
		a, err := e.client.MakeArrayFromHostBuffer(e.ctx, host, spec, &ifrt.HostBufferOptions{ByteStrides: strides})
		if err != nil {
			t.Fatalf("MakeArrayFromHostBuffer(strided): %v", err)
		}
		e.wantContents(a, dense)

		back := make([]byte, region)
		if err := a.CopyToHostBuffer(e.ctx, back, strides); err != nil {
			t.Fatalf("CopyToHostBuffer(strided): %v", err)
		}
		for i := range 3 {
			for j := range 4 {
				off := 4*i + 16*j
				if !bytes.Equal(back[off:off+4], host[off:off+4]) {
					t.Errorf("strided read of element (%d,%d) = %v, want %v", i, j, back[off:off+4], host[off:off+4])
				}
			}
		}
		wrong := make([]byte, region-1)
		wantCode(t, "CopyToHostBuffer into a short buffer", a.CopyToHostBuffer(e.ctx, wrong, strides), ifrt.ErrInvalidArgument)
	}
}

func testAssembleDisassemble(t *testing.T, h Harness) {
	e := h.env(t, 2)
	n := int64(len(e.devs))
	shape := ifrt.Shape{n, 4}
	data := values(ifrt.S32, shape.NumElements(), 7)
	s := e.tiled(e.devs, n, 1)
	a := e.put(data, ifrt.S32, shape, s)
	parts, err := e.client.DisassembleArray(e.ctx, a, ifrt.AlwaysCopy)
	if err != nil {
		t.Fatalf("DisassembleArray: %v", err)
	}
	if len(parts) != len(e.devs) {
		t.Fatalf("DisassembleArray gave %d arrays, want %d", len(parts), len(e.devs))
	}
	for i, p := range parts {
		if devs := p.Sharding().Devices(); len(devs) != 1 || devs[0].ID != e.devs[i].ID {
			t.Errorf("part %d is on %v, want device %d", i, devs, e.devs[i].ID)
		}
		e.wantContents(p, data[16*i:16*(i+1)])
	}
	whole, err := e.client.AssembleArray(e.ctx, ifrt.ArraySpec{DType: ifrt.S32, Shape: shape, Sharding: s}, parts, ifrt.AlwaysCopy)
	if err != nil {
		t.Fatalf("AssembleArray: %v", err)
	}
	e.wantContents(whole, data)

	// Parts in the wrong order do not fit the sharding's devices.
	swapped := append([]ifrt.Array{parts[1], parts[0]}, parts[2:]...)
	_, err = e.client.AssembleArray(e.ctx, ifrt.ArraySpec{DType: ifrt.S32, Shape: shape, Sharding: s}, swapped, ifrt.AlwaysCopy)
	wantCode(t, "AssembleArray(swapped parts)", err, ifrt.ErrInvalidArgument)
}

func testCopyAcrossDevices(t *testing.T, h Harness) {
	e := h.env(t, 2)
	n := int64(len(e.devs))
	shape := ifrt.Shape{2 * n, 3}
	data := values(ifrt.BF16, shape.NumElements(), 3)
	a := e.put(data, ifrt.BF16, shape, e.tiled(e.devs, n, 1))
	b := e.put(values(ifrt.U8, 5, 4), ifrt.U8, ifrt.Shape{5}, e.tiled(e.devs, n))
	rev := reversed(e.devs)
	out, err := e.client.CopyArrays(e.ctx, []ifrt.Array{a, b}, rev, nil, ifrt.AlwaysCopy)
	if err != nil {
		t.Fatalf("CopyArrays: %v", err)
	}
	if !out[0].Sharding().Devices().Equal(rev) {
		t.Errorf("copy is on %v, want %v", out[0].Sharding().Devices(), rev)
	}
	e.wantContents(out[0], data)
	e.wantContents(out[1], values(ifrt.U8, 5, 4))
	e.wantContents(a, data)

	single := e.put(data[:6], ifrt.BF16, ifrt.Shape{3}, e.single(0))
	moved, err := e.client.CopyArrays(e.ctx, []ifrt.Array{single}, e.devs[1:2], nil, ifrt.AlwaysCopy)
	if err != nil {
		t.Fatalf("CopyArrays(single): %v", err)
	}
	if got := moved[0].Sharding().Devices()[0].ID; got != e.devs[1].ID {
		t.Errorf("single-device copy landed on %d, want %d", got, e.devs[1].ID)
	}
	e.wantContents(moved[0], data[:6])

	_, err = e.client.CopyArrays(e.ctx, []ifrt.Array{a}, e.devs[:1], nil, ifrt.AlwaysCopy)
	wantCode(t, "CopyArrays to fewer devices", err, ifrt.ErrInvalidArgument)
}

func testCopyToMemoryKind(t *testing.T, h Harness) {
	if h.SkipMemoryKinds {
		t.Skip("the backend has only default memories")
	}
	e := h.env(t, 1)
	if _, err := e.devs[0].Memory(ifrt.MemoryKindPinnedHost); err != nil {
		t.Skipf("device %d has no pinned_host memory", e.devs[0].ID)
	}
	data := values(ifrt.F32, 6, 9)
	a := e.put(data, ifrt.F32, ifrt.Shape{2, 3}, e.single(0))
	kind := ifrt.MemoryKindPinnedHost
	out, err := e.client.CopyArrays(e.ctx, []ifrt.Array{a}, e.devs[:1], &kind, ifrt.AlwaysCopy)
	if err != nil {
		t.Fatalf("CopyArrays to pinned_host: %v", err)
	}
	if got := out[0].Sharding().MemoryKind(); got != kind {
		t.Errorf("memory kind = %q, want %q", got, kind)
	}
	e.wantContents(out[0], data)
	bogus := ifrt.MemoryKind("no_such_memory")
	_, err = e.client.CopyArrays(e.ctx, []ifrt.Array{a}, e.devs[:1], &bogus, ifrt.AlwaysCopy)
	wantCode(t, "CopyArrays to an unknown memory kind", err, ifrt.ErrInvalidArgument)
}

func testReshard(t *testing.T, h Harness) {
	e := h.env(t, 2)
	n := int64(len(e.devs))
	shape := ifrt.Shape{n + 3, 2 * n} // uneven along rows
	data := values(ifrt.F32, shape.NumElements(), 11)
	rowTiled, err := ifrt.NewTiledSharding(e.devs, n, 1)
	if err != nil {
		t.Fatal(err)
	}
	a := e.put(data, ifrt.F32, shape, rowTiled)
	var targets []ifrt.Sharding
	targets = append(targets, e.tiled(e.devs, 1, n), e.replicated(e.devs), e.single(int(n-1)))
	if n%2 == 0 {
		targets = append(targets, e.tiled(e.devs, 2, n/2), e.tiled(e.devs, n/2, 1)) // the second replicates pairs
	}
	cur := a
	for _, s := range targets {
		out, err := e.client.Reshard(e.ctx, []ifrt.Array{cur}, []ifrt.ArraySpec{{DType: ifrt.F32, Shape: shape, Sharding: s}}, ifrt.AlwaysCopy)
		if err != nil {
			t.Fatalf("Reshard to %v: %v", s, err)
		}
		if got := out[0].Sharding(); !ifrt.EquivalentShardings(got, s, shape) {
			t.Errorf("resharded array has %v, want %v", got, s)
		}
		e.wantContents(out[0], data)
		cur = out[0]
	}
	_, err = e.client.Reshard(e.ctx, []ifrt.Array{a}, []ifrt.ArraySpec{{DType: ifrt.S32, Shape: shape, Sharding: rowTiled}}, ifrt.AlwaysCopy)
	wantCode(t, "Reshard to another dtype", err, ifrt.ErrInvalidArgument)
}

func testReshardDeviceSets(t *testing.T, h Harness) {
	e := h.env(t, 4)
	half := len(e.devs) / 2
	first, second := e.devs[:half], e.devs[half:2*half]
	shape := ifrt.Shape{int64(2 * half), 5}
	data := values(ifrt.S64, shape.NumElements(), 5)
	a := e.put(data, ifrt.S64, shape, e.tiled(first, int64(half), 1))
	target := e.tiled(second, 1, 1)
	out, err := e.client.Reshard(e.ctx, []ifrt.Array{a}, []ifrt.ArraySpec{{DType: ifrt.S64, Shape: shape, Sharding: target}}, ifrt.DonateInput)
	if err != nil {
		t.Fatalf("Reshard across device sets: %v", err)
	}
	if !out[0].Sharding().Devices().Equal(second) {
		t.Errorf("resharded array is on %v, want %v", out[0].Sharding().Devices(), second)
	}
	e.wantContents(out[0], data)
	if !a.IsDeleted() {
		t.Errorf("DonateInput left the source array alive")
	}
}

func testRemap(t *testing.T, h Harness) {
	e := h.env(t, 4)
	half := len(e.devs) / 2
	first, second := e.devs[:half], e.devs[half:2*half]
	shape := ifrt.Shape{int64(half), 2}
	x := values(ifrt.S16, shape.NumElements(), 1)
	y := values(ifrt.S16, shape.NumElements(), 2)
	a := e.put(x, ifrt.S16, shape, e.tiled(first, int64(half), 1))
	b := e.put(y, ifrt.S16, shape, e.tiled(second, int64(half), 1))
	outShape := ifrt.Shape{int64(2 * half), 2}
	outSpec := ifrt.ArraySpec{DType: ifrt.S16, Shape: outShape, Sharding: e.tiled(e.devs[:2*half], int64(2*half), 1)}
	h64 := int64(half)
	plan := ifrt.RemapPlan{
		InputSpecs:  []ifrt.ArraySpec{a.Spec(), b.Spec()},
		OutputSpecs: []ifrt.ArraySpec{outSpec},
		Mappings: []ifrt.RemapMapping{
			{InArray: 0, OutArray: 0, From: []ifrt.Interval{{Start: 0, End: h64, Step: 1}}, To: []ifrt.Interval{{Start: 0, End: h64, Step: 1}}},
			{InArray: 1, OutArray: 0, From: []ifrt.Interval{{Start: 0, End: h64, Step: 1}}, To: []ifrt.Interval{{Start: h64, End: 2 * h64, Step: 1}}},
		},
	}
	out, err := e.client.Remap(e.ctx, plan, []ifrt.Array{a, b}, ifrt.AlwaysCopy)
	if err != nil {
		t.Fatalf("Remap: %v", err)
	}
	e.wantContents(out[0], append(append([]byte(nil), x...), y...))

	plan.Mappings = plan.Mappings[:1] // leaves half of the output unfilled
	_, err = e.client.Remap(e.ctx, plan, []ifrt.Array{a, b}, ifrt.AlwaysCopy)
	wantCode(t, "Remap with missing shards", err, ifrt.ErrInvalidArgument)
}

func testFullyReplicatedShard(t *testing.T, h Harness) {
	e := h.env(t, 2)
	data := values(ifrt.F64, 6, 8)
	a := e.put(data, ifrt.F64, ifrt.Shape{6}, e.replicated(e.devs))
	s, err := e.client.FullyReplicatedShard(e.ctx, a, ifrt.AlwaysCopy)
	if err != nil {
		t.Fatalf("FullyReplicatedShard: %v", err)
	}
	if devs := s.Sharding().Devices(); len(devs) != 1 || devs[0].ID != e.devs[0].ID {
		t.Errorf("shard is on %v, want the first device %d", devs, e.devs[0].ID)
	}
	e.wantContents(s, data)
	tiled := e.put(data, ifrt.F64, ifrt.Shape{6}, e.tiled(e.devs[:2], 2))
	_, err = e.client.FullyReplicatedShard(e.ctx, tiled, ifrt.AlwaysCopy)
	wantCode(t, "FullyReplicatedShard of a tiled array", err, ifrt.ErrFailedPrecondition)
}
