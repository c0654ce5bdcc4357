package backend_test

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/ifrt/backend"
)

// fakeArray is the smallest ifrt.Array: a spec, an owner and a deleted flag.
type fakeArray struct {
	ifrt.UnimplementedArray
	owner   int
	spec    ifrt.ArraySpec
	deleted bool
}

func (a *fakeArray) DType() ifrt.DType                                       { return a.spec.DType }
func (a *fakeArray) Shape() ifrt.Shape                                       { return a.spec.Shape }
func (a *fakeArray) Sharding() ifrt.Sharding                                 { return a.spec.Sharding }
func (a *fakeArray) Layout() *ifrt.Layout                                    { return nil }
func (a *fakeArray) Spec() ifrt.ArraySpec                                    { return a.spec }
func (a *fakeArray) CopyToHostBuffer(context.Context, []byte, []int64) error { return nil }
func (a *fakeArray) Ready() *ifrt.Future                                     { return nil }
func (a *fakeArray) Delete() *ifrt.Future                                    { a.deleted = true; return nil }
func (a *fakeArray) IsDeleted() bool                                         { return a.deleted }
func (a *fakeArray) As(any) bool                                             { return false }

var devs = ifrt.DeviceList{{ID: 0}, {ID: 1}}

func single(d int) ifrt.Sharding { return ifrt.NewSingleDeviceSharding(devs[d], "") }

func TestObjects(t *testing.T) {
	var s backend.Objects[int]
	for i := range 3 {
		if !s.Add(i) {
			t.Fatalf("Add(%d) to an open set failed", i)
		}
	}
	if !s.Remove(1) || s.Remove(1) {
		t.Errorf("Remove(1) twice: want true then false")
	}
	if got := s.Live(); got != 2 {
		t.Errorf("Live() = %d, want 2", got)
	}
	drained := s.Drain()
	if len(drained) != 2 || s.Live() != 0 {
		t.Errorf("Drain() = %v, Live() = %d; want two objects, then none", drained, s.Live())
	}
	if s.Add(7) {
		t.Errorf("Add after Drain succeeded")
	}
}

func TestOwn(t *testing.T) {
	mine := func(a *fakeArray) bool { return a.owner == 1 }
	ok := &fakeArray{owner: 1}
	gone := &fakeArray{owner: 1, deleted: true}
	other := &fakeArray{owner: 2}
	got, err := backend.Own("test", []ifrt.Array{ok, ok}, mine)
	if err != nil || len(got) != 2 || got[0] != ok {
		t.Fatalf("Own(own arrays) = %v, %v", got, err)
	}
	for _, c := range []struct {
		name string
		x    ifrt.Array
		want error
	}{
		{"foreign", other, ifrt.ErrInvalidArgument},
		{"nil", nil, ifrt.ErrInvalidArgument},
		{"deleted", gone, ifrt.ErrArrayDeleted},
	} {
		_, err := backend.Own("test", []ifrt.Array{ok, c.x}, mine)
		if !errors.Is(err, c.want) || ifrt.CodeOf(err) != ifrt.InvalidArgument {
			t.Errorf("Own(%s) = %v (code %v), want %v", c.name, err, ifrt.CodeOf(err), c.want)
		}
		if _, err := backend.OwnOne("test", c.x, mine); !errors.Is(err, c.want) {
			t.Errorf("OwnOne(%s) = %v, want %v", c.name, err, c.want)
		}
	}
}

func TestDonation(t *testing.T) {
	a, b := &fakeArray{}, &fakeArray{}
	backend.Donate(ifrt.ReuseInput, a, b)
	if a.deleted || b.deleted {
		t.Errorf("ReuseInput deleted an input")
	}
	backend.Donate(ifrt.DonateInput, a, b)
	if !a.deleted || !b.deleted {
		t.Errorf("DonateInput left an input alive")
	}
	if got := backend.Donated([]int{0, 2, 3}, &ifrt.ExecuteOptions{NonDonatableInputs: []int{2}}); !cmp.Equal(got, []int{0, 3}) {
		t.Errorf("Donated = %v, want [0 3]", got)
	}
	if got := backend.Donated(nil, nil); got != nil {
		t.Errorf("Donated(nil) = %v, want nil", got)
	}
}

func TestCheckCodes(t *testing.T) {
	tiled, err := ifrt.NewTiledSharding(devs, 2)
	if err != nil {
		t.Fatal(err)
	}
	replicated, err := ifrt.NewHloSharding(devs, "", ifrt.Replicated())
	if err != nil {
		t.Fatal(err)
	}
	f32 := func(s ifrt.Sharding, dims ...int64) *fakeArray {
		return &fakeArray{spec: ifrt.ArraySpec{DType: ifrt.F32, Shape: ifrt.Shape(dims), Sharding: s}}
	}
	spec4 := ifrt.ArraySpec{DType: ifrt.F32, Shape: ifrt.Shape{4}, Sharding: tiled}
	_, assembleSwapped := backend.CheckAssemble("t", spec4, []ifrt.Array{f32(single(1), 2), f32(single(0), 2)})
	_, assembleShape := backend.CheckAssemble("t", spec4, []ifrt.Array{f32(single(0), 3), f32(single(1), 2)})
	_, assembleCount := backend.CheckAssemble("t", spec4, []ifrt.Array{f32(single(0), 2)})
	_, copyFewer := backend.CheckCopy("t", []ifrt.Array{f32(tiled, 4)}, devs[:1], nil)
	_, notReplicated := backend.CheckFullyReplicated("t", f32(tiled, 4))
	for _, c := range []struct {
		name string
		err  error
		want ifrt.Code
	}{
		{"Reshard count", backend.CheckReshard("t", []ifrt.Array{f32(tiled, 4)}, nil), ifrt.InvalidArgument},
		{"Reshard shape", backend.CheckReshard("t", []ifrt.Array{f32(tiled, 4)}, []ifrt.ArraySpec{{DType: ifrt.F32, Shape: ifrt.Shape{2}}}), ifrt.InvalidArgument},
		{"Assemble swapped", assembleSwapped, ifrt.InvalidArgument},
		{"Assemble shape", assembleShape, ifrt.InvalidArgument},
		{"Assemble count", assembleCount, ifrt.InvalidArgument},
		{"Copy to fewer devices", copyFewer, ifrt.InvalidArgument},
		{"FullyReplicatedShard of a tiled array", notReplicated, ifrt.FailedPrecondition},
	} {
		if got := ifrt.CodeOf(c.err); got != c.want {
			t.Errorf("%s: %v (code %v), want %v", c.name, c.err, got, c.want)
		}
	}
	spec, err := backend.CheckFullyReplicated("t", f32(replicated, 4))
	if err != nil || len(spec.Sharding.Devices()) != 1 || spec.Sharding.Devices()[0].ID != 0 {
		t.Errorf("CheckFullyReplicated(replicated) = %v, %v; want device 0 alone", spec, err)
	}
	parts, err := backend.DisassembleSpecs(spec4)
	if err != nil || len(parts) != 2 || !parts[1].Shape.Equal(ifrt.Shape{2}) || parts[1].Sharding.Devices()[0].ID != 1 {
		t.Errorf("DisassembleSpecs = %v, %v", parts, err)
	}
}

func TestDomains(t *testing.T) {
	d := func(rs ...int64) ifrt.IndexDomain {
		var out ifrt.IndexDomain
		for i := 0; i < len(rs); i += 2 {
			out = append(out, ifrt.Range{Start: rs[i], End: rs[i+1]})
		}
		return out
	}
	if got := backend.UniqueDomains([]ifrt.IndexDomain{d(0, 2), d(0, 2), d(2, 4), d(0, 2)}); !cmp.Equal(got, []int{0, 2}) {
		t.Errorf("UniqueDomains = %v, want [0 2]", got)
	}
	if got, ok := backend.Intersect(d(0, 4, 0, 4), d(2, 6, 1, 3)); !ok || !cmp.Equal(got, d(2, 4, 1, 3)) {
		t.Errorf("Intersect = %v, %v", got, ok)
	}
	if _, ok := backend.Intersect(d(0, 2), d(2, 4)); ok {
		t.Errorf("Intersect of touching domains is not empty")
	}
	if got := backend.Shift(d(2, 4), d(1, 5)); !cmp.Equal(got, d(1, 3)) {
		t.Errorf("Shift = %v, want [1:3]", got)
	}
}

func TestFuture(t *testing.T) {
	f := backend.NewFuture[int]()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := f.Await(ctx); err != context.Canceled {
		t.Errorf("Await on a cancelled context = %v", err)
	}
	f.Resolve(7, nil)
	f.Resolve(8, errors.New("late"))
	if v, err := f.Await(ctx); v != 7 || err != nil {
		t.Errorf("Await = %v, %v; want 7, nil (the first Resolve)", v, err)
	}
	<-f.Done()
}

// TestCheckerOrder: a call wrong in several ways fails with the first of
// closed client, foreign or deleted array, the operation's own condition,
// the backend's spec check, whatever the backend.
func TestCheckerOrder(t *testing.T) {
	closed := false
	specErr := ifrt.Errorf(ifrt.Unimplemented, "no such layout here")
	k := backend.Checker[*fakeArray]{
		Name: "t",
		Open: func() error {
			if closed {
				return ifrt.ErrClientClosed
			}
			return nil
		},
		Owns: func(a *fakeArray) bool { return a.owner == 1 },
		Spec: func(ifrt.ArraySpec) error { return specErr },
	}
	mine := &fakeArray{owner: 1, spec: ifrt.ArraySpec{DType: ifrt.F32, Shape: ifrt.Shape{2}, Sharding: single(0)}}
	foreign := &fakeArray{owner: 2, spec: mine.spec}
	good := []ifrt.ArraySpec{mine.spec}
	if _, err := k.Reshard([]ifrt.Array{mine}, good); !errors.Is(err, specErr) {
		t.Errorf("Reshard into a spec the backend refuses: %v, want its error", err)
	}
	if _, err := k.Reshard([]ifrt.Array{mine}, nil); ifrt.CodeOf(err) != ifrt.InvalidArgument {
		t.Errorf("Reshard with no specs: %v, want INVALID_ARGUMENT before the spec check", err)
	}
	if _, err := k.Reshard([]ifrt.Array{foreign}, nil); !errors.Is(err, ifrt.ErrInvalidArgument) {
		t.Errorf("Reshard of a foreign array: %v", err)
	}
	closed = true
	if _, err := k.Reshard([]ifrt.Array{foreign}, nil); !errors.Is(err, ifrt.ErrClientClosed) {
		t.Errorf("Reshard on a closed client: %v, want ErrClientClosed first", err)
	}
	closed = false
	strided := &ifrt.HostBufferOptions{ByteStrides: []int64{8}}
	k.Spec = nil
	dense, err := k.HostBuffer([]byte{1, 2, 3, 4, 0, 0, 0, 0, 5, 6, 7, 8}, mine.spec, strided)
	if err != nil || !cmp.Equal(dense, []byte{1, 2, 3, 4, 5, 6, 7, 8}) {
		t.Errorf("HostBuffer(strided) = %v, %v; want the dense elements", dense, err)
	}
}

func TestLifetime(t *testing.T) {
	var l backend.Lifetime[int, string]
	l.Arrays.Add(1)
	l.Arrays.Add(2)
	l.Executables.Add("e")
	if a, e := l.Live(); a != 2 || e != 1 || l.CheckOpen() != nil {
		t.Fatalf("Live() = %d, %d, CheckOpen() = %v; want 2, 1, nil", a, e, l.CheckOpen())
	}
	var freed []any
	if !l.Close(func(a int) { freed = append(freed, a) }, func(e string) { freed = append(freed, e) }) {
		t.Fatalf("first Close reported the client closed already")
	}
	if len(freed) != 3 || freed[2] != "e" {
		t.Errorf("Close freed %v, want both arrays, then the executable", freed)
	}
	if l.Close(func(int) { t.Error("second Close freed an array") }, func(string) {}) {
		t.Errorf("second Close reported a first close")
	}
	if !errors.Is(l.CheckOpen(), ifrt.ErrClientClosed) || l.Arrays.Add(3) {
		t.Errorf("after Close: CheckOpen() = %v, Add succeeded; want ErrClientClosed and no Add", l.CheckOpen())
	}
}
