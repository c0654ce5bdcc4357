package ifrt_test

import (
	"bytes"
	"testing"

	"github.com/openpathways/pathways/ifrt"
)

// TestDomainRange checks, for every part of a small 3-dimensional array,
// that DomainRange finds it contiguous exactly when ExtractDomain's bytes
// are one run of the array's, and that the run it names holds them.
func TestDomainRange(t *testing.T) {
	shape := ifrt.Shape{3, 2, 4}
	const elem = 2
	full := make([]byte, shape.NumElements()*elem)
	for i := range full {
		full[i] = byte(i)
	}
	count := 0
	var walk func(dom ifrt.IndexDomain)
	walk = func(dom ifrt.IndexDomain) {
		if len(dom) < len(shape) {
			n := shape[len(dom)]
			for s := range n {
				for e := s + 1; e <= n; e++ {
					walk(append(dom, ifrt.Range{Start: s, End: e}))
				}
			}
			return
		}
		want := ifrt.ExtractDomain(full, elem, shape, dom)
		run := bytes.Contains(full, want) // the bytes count up: a match is the run
		off, n, ok := ifrt.DomainRange(elem, shape, dom)
		if ok != run {
			t.Errorf("DomainRange(%v) ok = %v, want %v", dom, ok, run)
			return
		}
		if ok {
			count++
			if !bytes.Equal(full[off:off+n], want) {
				t.Errorf("DomainRange(%v) = [%d, %d), not the part's bytes", dom, off, off+n)
			}
		}
	}
	walk(nil)
	if count == 0 {
		t.Fatal("no part was contiguous")
	}
}
