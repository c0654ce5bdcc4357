package backend_test

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/ifrt/backend"
)

func TestDerive(t *testing.T) {
	specs := []ifrt.ArraySpec{{DType: ifrt.F32, Sharding: single(0)}, {DType: ifrt.S32, Sharding: single(1)}}
	newArray := func(spec ifrt.ArraySpec, shards []string) *fakeArray { return &fakeArray{spec: spec} }
	build := func(i int) ([]string, error) { return []string{specs[i].DType.String()}, nil }

	in := &fakeArray{}
	out, err := backend.Derive([]*fakeArray{in}, specs, ifrt.DonateInput, build, nil, newArray)
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 2 || out[1].DType() != ifrt.S32 || !in.deleted {
		t.Errorf("Derive made %d arrays (second %v), input deleted %v; want 2 (S32), deleted", len(out), out[1].DType(), in.deleted)
	}

	// The second build fails: the first one's shards are discarded, nothing
	// is made and the input is not donated.
	in = &fakeArray{}
	var discarded [][]string
	fails := func(i int) ([]string, error) {
		if i == 1 {
			return nil, ifrt.ErrResourceExhausted
		}
		return build(i)
	}
	made := 0
	count := func(spec ifrt.ArraySpec, shards []string) *fakeArray { made++; return newArray(spec, shards) }
	_, err = backend.Derive([]*fakeArray{in}, specs, ifrt.DonateInput, fails, func(s []string) { discarded = append(discarded, s) }, count)
	if !errors.Is(err, ifrt.ErrResourceExhausted) {
		t.Fatalf("Derive with a failing build: %v, want RESOURCE_EXHAUSTED", err)
	}
	if diff := cmp.Diff([][]string{{"f32"}}, discarded); diff != "" || made != 0 || in.deleted {
		t.Errorf("after a failed build: discarded (-want +got):\n%s made %d arrays, input deleted %v; want none made, not deleted", diff, made, in.deleted)
	}
}

func TestShards(t *testing.T) {
	var s backend.Shards[int]
	s.Hold([]int{4, 5})
	var seen []int
	if err := s.Read(func(shards []int) { seen = shards }); err != nil || !cmp.Equal(seen, []int{4, 5}) || s.IsDeleted() {
		t.Errorf("Read = %v (saw %v), IsDeleted %v; want the shards, not deleted", err, seen, s.IsDeleted())
	}
	if got := s.Take(); !cmp.Equal(got, []int{4, 5}) {
		t.Errorf("Take() = %v, want the shards", got)
	}
	if got := s.Take(); got != nil {
		t.Errorf("second Take() = %v, want nil: the shards are freed once", got)
	}
	if err := s.Read(func([]int) { t.Error("Read ran after Take") }); !errors.Is(err, ifrt.ErrArrayDeleted) || !s.IsDeleted() {
		t.Errorf("Read after Take = %v, IsDeleted %v; want ErrArrayDeleted, deleted", err, s.IsDeleted())
	}
}
