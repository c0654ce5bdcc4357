package ifrttest

import (
	"testing"

	"github.com/openpathways/pathways/ifrt"
)

// testBadArguments gives each array operation the arguments ifrt/backend's
// table lists, and wants the code it names for each.
func testBadArguments(t *testing.T, h Harness) {
	e := h.env(t, 2)
	two := e.devs[:2]
	data := values(ifrt.F32, 4, 5)
	tiled := e.put(data, ifrt.F32, ifrt.Shape{4}, e.tiled(two, 2))
	single := e.put(data[:8], ifrt.F32, ifrt.Shape{2}, e.single(0))
	gone := e.put(data[:8], ifrt.F32, ifrt.Shape{2}, e.single(0))
	gone.Delete()
	other := h.NewClient(t)
	defer other.Close()
	foreign, err := other.MakeArrayFromHostBuffer(e.ctx, data[:8], ifrt.ArraySpec{
		DType: ifrt.F32, Shape: ifrt.Shape{2}, Sharding: ifrt.NewSingleDeviceSharding(other.AddressableDevices()[0], ""),
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	spec4 := ifrt.ArraySpec{DType: ifrt.F32, Shape: ifrt.Shape{4}, Sharding: e.tiled(two, 2)}
	parts, err := e.client.DisassembleArray(e.ctx, tiled, ifrt.AlwaysCopy)
	if err != nil {
		t.Fatalf("DisassembleArray: %v", err)
	}
	// An interval reaching past the input's two shards: ifrt's guard against
	// a plan that would make a backend allocate without bound.
	pastEnd := ifrt.RemapPlan{
		InputSpecs:  []ifrt.ArraySpec{tiled.Spec()},
		OutputSpecs: []ifrt.ArraySpec{tiled.Spec()},
		Mappings: []ifrt.RemapMapping{{
			From: []ifrt.Interval{{Start: 0, End: 1 << 40, Step: 1}},
			To:   []ifrt.Interval{{Start: 0, End: 1 << 40, Step: 1}},
		}},
	}
	one := func(_ ifrt.Array, err error) error { return err }
	many := func(_ []ifrt.Array, err error) error { return err }
	cases := []struct {
		name string
		err  error
		want error
	}{
		{"Reshard with fewer specs than arrays", many(e.client.Reshard(e.ctx, []ifrt.Array{tiled, single}, []ifrt.ArraySpec{spec4}, ifrt.AlwaysCopy)), ifrt.ErrInvalidArgument},
		{"Reshard into another shape", many(e.client.Reshard(e.ctx, []ifrt.Array{single}, []ifrt.ArraySpec{spec4}, ifrt.AlwaysCopy)), ifrt.ErrInvalidArgument},
		{"Reshard of another client's array", many(e.client.Reshard(e.ctx, []ifrt.Array{foreign}, []ifrt.ArraySpec{single.Spec()}, ifrt.AlwaysCopy)), ifrt.ErrInvalidArgument},
		{"Reshard of a nil array", many(e.client.Reshard(e.ctx, []ifrt.Array{nil}, []ifrt.ArraySpec{single.Spec()}, ifrt.AlwaysCopy)), ifrt.ErrInvalidArgument},
		{"AssembleArray of one part for two devices", one(e.client.AssembleArray(e.ctx, spec4, parts[:1], ifrt.AlwaysCopy)), ifrt.ErrInvalidArgument},
		{"AssembleArray of a deleted part", one(e.client.AssembleArray(e.ctx, spec4, []ifrt.Array{gone, parts[1]}, ifrt.AlwaysCopy)), ifrt.ErrArrayDeleted},
		{"AssembleArray of another client's part", one(e.client.AssembleArray(e.ctx, spec4, []ifrt.Array{foreign, parts[1]}, ifrt.AlwaysCopy)), ifrt.ErrInvalidArgument},
		{"DisassembleArray of another client's array", many(e.client.DisassembleArray(e.ctx, foreign, ifrt.AlwaysCopy)), ifrt.ErrInvalidArgument},
		{"CopyArrays of a deleted array", many(e.client.CopyArrays(e.ctx, []ifrt.Array{gone}, e.devs[1:2], nil, ifrt.AlwaysCopy)), ifrt.ErrArrayDeleted},
		{"Remap of another client's array", many(e.client.Remap(e.ctx, pastEnd, []ifrt.Array{foreign}, ifrt.AlwaysCopy)), ifrt.ErrInvalidArgument},
		{"Remap with an interval past the shards", many(e.client.Remap(e.ctx, pastEnd, []ifrt.Array{tiled}, ifrt.AlwaysCopy)), ifrt.ErrInvalidArgument},
		{"Remap of arrays the plan does not describe", many(e.client.Remap(e.ctx, pastEnd, []ifrt.Array{single}, ifrt.AlwaysCopy)), ifrt.ErrInvalidArgument},
		{"FullyReplicatedShard of a deleted array", one(e.client.FullyReplicatedShard(e.ctx, gone, ifrt.AlwaysCopy)), ifrt.ErrArrayDeleted},
		{"FullyReplicatedShard of another client's array", one(e.client.FullyReplicatedShard(e.ctx, foreign, ifrt.AlwaysCopy)), ifrt.ErrInvalidArgument},
	}
	for _, c := range cases {
		wantCode(t, c.name, c.err, c.want)
	}
	e.wantContents(tiled, data) // no failed call touched it
}

// testClosedClient wants ErrClientClosed from every call on a closed client.
func testClosedClient(t *testing.T, h Harness) {
	e := h.env(t, 1)
	a := e.put(values(ifrt.S32, 2, 1), ifrt.S32, ifrt.Shape{2}, e.single(0))
	if err := e.client.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	spec := a.Spec()
	_, err := e.client.MakeArrayFromHostBuffer(e.ctx, make([]byte, 8), spec, nil)
	wantCode(t, "MakeArrayFromHostBuffer after Close", err, ifrt.ErrClientClosed)
	_, err = e.client.Reshard(e.ctx, []ifrt.Array{a}, []ifrt.ArraySpec{spec}, ifrt.AlwaysCopy)
	wantCode(t, "Reshard after Close", err, ifrt.ErrClientClosed)
	_, err = e.client.Compile(e.ctx, &ifrt.MLIRProgram{Module: []byte(addMul)}, &ifrt.CompileOptions{Devices: e.devs[:1]})
	wantCode(t, "Compile after Close", err, ifrt.ErrClientClosed)
	wantCode(t, "CopyToHostBuffer after Close", a.CopyToHostBuffer(e.ctx, make([]byte, 8), nil), ifrt.ErrClientClosed)
}

// testExecuteBadArguments wants the codes of the table for executions given
// arrays they cannot take, and ExecuteResult.Donated to name the donated
// argument.
func testExecuteBadArguments(t *testing.T, h Harness) {
	e, exe := h.oneDeviceProgram(t, 2, addMul)
	put := func(d int) ifrt.Array { return e.put(f32bytes(1, 2, 3, 4), ifrt.F32, ifrt.Shape{4}, e.single(d)) }
	other := h.NewClient(t)
	defer other.Close()
	foreign, err := other.MakeArrayFromHostBuffer(e.ctx, f32bytes(1, 2, 3, 4), ifrt.ArraySpec{
		DType: ifrt.F32, Shape: ifrt.Shape{4}, Sharding: ifrt.NewSingleDeviceSharding(other.AddressableDevices()[0], ""),
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	x, y := put(0), put(0)
	_, err = exe.Execute(e.ctx, []ifrt.Array{x, foreign}, nil)
	wantCode(t, "Execute with another client's array", err, ifrt.ErrInvalidArgument)
	_, err = exe.Execute(e.ctx, []ifrt.Array{x, nil}, nil)
	wantCode(t, "Execute with a nil argument", err, ifrt.ErrInvalidArgument)
	_, err = exe.Execute(e.ctx, []ifrt.Array{x, put(1)}, nil)
	wantCode(t, "Execute with an argument on a device the program does not run on", err, ifrt.ErrInvalidArgument)
	if x.IsDeleted() {
		t.Fatalf("a failed execution deleted its donatable argument")
	}
	res, err := exe.Execute(e.ctx, []ifrt.Array{x, y}, nil)
	if err != nil {
		t.Fatalf("Execute: %v", err)
	}
	if len(res.Donated) != 1 || res.Donated[0] != 0 || !x.IsDeleted() || y.IsDeleted() {
		t.Errorf("Donated = %v, x deleted %v, y deleted %v; want [0], true, false", res.Donated, x.IsDeleted(), y.IsDeleted())
	}
	res, err = exe.Execute(e.ctx, []ifrt.Array{res.Outputs[0], y}, &ifrt.ExecuteOptions{NonDonatableInputs: []int{0}})
	if err != nil {
		t.Fatalf("Execute with no donation: %v", err)
	}
	if res.Donated != nil {
		t.Errorf("Donated = %v with the donatable argument excluded, want nil", res.Donated)
	}
}
