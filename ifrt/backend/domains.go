package backend

import (
	"slices"

	"github.com/openpathways/pathways/ifrt"
)

// UniqueDomains returns the positions of the first shard of each distinct
// domain, in order: the shards to read once when replicas hold the same
// elements.
func UniqueDomains(domains []ifrt.IndexDomain) []int {
	var out []int
	for i, d := range domains {
		if !slices.ContainsFunc(out, func(j int) bool { return slices.Equal(domains[j], d) }) {
			out = append(out, i)
		}
	}
	return out
}

// Intersect returns the elements a and b (of the same rank) have in common,
// and whether there are any.
func Intersect(a, b ifrt.IndexDomain) (ifrt.IndexDomain, bool) {
	out := make(ifrt.IndexDomain, len(a))
	for i := range a {
		out[i] = ifrt.Range{Start: max(a[i].Start, b[i].Start), End: min(a[i].End, b[i].End)}
		if out[i].Start >= out[i].End {
			return nil, false
		}
	}
	return out, true
}

// Shift expresses d relative to the origin of base, which contains it.
func Shift(d, base ifrt.IndexDomain) ifrt.IndexDomain {
	out := make(ifrt.IndexDomain, len(d))
	for i, r := range d {
		out[i] = ifrt.Range{Start: r.Start - base[i].Start, End: r.End - base[i].Start}
	}
	return out
}
