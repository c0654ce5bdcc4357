package stablehlo

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// directWindow lists the input offsets output oi's window reads by walking
// every window position, as the StableHLO spec defines reduce_window.
func directWindow(in, oi, window, wstrides, bdil, wdil, pad []int64) []int {
	st := strides(in)
	var offs []int
	walkIndex(window, func(wi []int64) bool {
		p := 0
		for d := range in {
			c := oi[d]*wstrides[d] + wi[d]*wdil[d] - pad[2*d]
			if c < 0 || c%bdil[d] != 0 || c/bdil[d] >= in[d] {
				return true
			}
			p += int(c/bdil[d]) * st[d]
		}
		offs = append(offs, p)
		return true
	})
	return offs
}

// TestWindowPlanMatchesDirectWalk compares the planned windows with the
// spec's walk over window positions, for random sizes, strides, base and
// window dilations (both above 1 at once included) and paddings (negative
// included).
func TestWindowPlanMatchesDirectWalk(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	ev := &evaluator{ctx: context.Background()}
	for trial := range 400 {
		rank := 1 + r.IntN(2)
		in, window, ws, bd, wd := make([]int64, rank), make([]int64, rank), make([]int64, rank), make([]int64, rank), make([]int64, rank)
		pad, out := make([]int64, 2*rank), make([]int64, rank)
		for d := range rank {
			in[d] = 1 + r.Int64N(7)
			window[d] = 1 + r.Int64N(5)
			ws[d], bd[d], wd[d] = 1+r.Int64N(3), 1+r.Int64N(4), 1+r.Int64N(4)
			pad[2*d], pad[2*d+1] = r.Int64N(6)-2, r.Int64N(6)-2
			span := (in[d]-1)*bd[d] + 1 + pad[2*d] + pad[2*d+1] - ((window[d]-1)*wd[d] + 1)
			out[d] = max(0, span/ws[d]+1)
		}
		plan, err := newWindowPlan(in, out, window, ws, bd, wd, pad)
		if err != nil {
			t.Fatal(err)
		}
		var got [][]int
		if err := plan.forEach(ev, func(o int, offs []int) error {
			got = append(got, append([]int{}, offs...))
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		var want [][]int
		walkIndex(out, func(oi []int64) bool {
			want = append(want, directWindow(in, oi, window, ws, bd, wd, pad))
			return true
		})
		if diff := cmp.Diff(want, got, cmp.Comparer(func(a, b []int) bool { return len(a) == 0 && len(b) == 0 || cmp.Equal(a, b) })); diff != "" {
			t.Fatalf("trial %d: in %v window %v strides %v base dilation %v window dilation %v padding %v: windows differ (-direct +plan):\n%s",
				trial, in, window, ws, bd, wd, pad, diff)
		}
	}
}
