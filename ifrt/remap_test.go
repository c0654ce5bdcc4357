package ifrt_test

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/openpathways/pathways/ifrt"
)

func TestRemapSources(t *testing.T) {
	devs := devices(4)
	spec := func(d ifrt.DType, n int64, ds ifrt.DeviceList) ifrt.ArraySpec {
		s, err := ifrt.NewTiledSharding(ds, int64(len(ds)))
		if err != nil {
			t.Fatal(err)
		}
		return ifrt.ArraySpec{DType: d, Shape: ifrt.Shape{n}, Sharding: s}
	}
	iv := func(start, end int64) []ifrt.Interval { return []ifrt.Interval{{Start: start, End: end, Step: 1}} }
	plan := ifrt.RemapPlan{
		InputSpecs:  []ifrt.ArraySpec{spec(ifrt.F32, 4, devs[:2]), spec(ifrt.F32, 4, devs[2:])},
		OutputSpecs: []ifrt.ArraySpec{spec(ifrt.F32, 8, devs)},
		Mappings: []ifrt.RemapMapping{
			{InArray: 1, OutArray: 0, From: iv(0, 2), To: iv(0, 2)},
			{InArray: 0, OutArray: 0, From: iv(0, 2), To: iv(2, 4)},
		},
	}
	got, err := plan.Sources()
	if err != nil {
		t.Fatalf("Sources: %v", err)
	}
	want := [][]ifrt.ShardSource{{{Array: 1, Shard: 0}, {Array: 1, Shard: 1}, {Array: 0, Shard: 0}, {Array: 0, Shard: 1}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Sources (-want +got):\n%s", diff)
	}

	bad := func(name string, edit func(p *ifrt.RemapPlan)) {
		p := plan
		p.Mappings = append([]ifrt.RemapMapping(nil), plan.Mappings...)
		p.InputSpecs = append([]ifrt.ArraySpec(nil), plan.InputSpecs...)
		edit(&p)
		if _, err := p.Sources(); !errors.Is(err, ifrt.ErrInvalidArgument) {
			t.Errorf("%s: Sources = %v, want InvalidArgument", name, err)
		}
	}
	bad("a shard filled twice", func(p *ifrt.RemapPlan) { p.Mappings[1].To = iv(0, 2) })
	bad("a shard left empty", func(p *ifrt.RemapPlan) { p.Mappings = p.Mappings[:1] })
	bad("an interval past the shards", func(p *ifrt.RemapPlan) { p.Mappings[0].From = iv(0, 1<<40) })
	bad("counts differ", func(p *ifrt.RemapPlan) { p.Mappings[0].From = iv(0, 1) })
	bad("another dtype", func(p *ifrt.RemapPlan) { p.InputSpecs[1] = spec(ifrt.S32, 4, devs[2:]) })
	bad("an unknown array", func(p *ifrt.RemapPlan) { p.Mappings[0].InArray = 5 })
}
