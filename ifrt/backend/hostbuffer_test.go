package backend_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/ifrt/backend"
)

// TestHostBufferKeepsDenseData: strides that lay the array out densely (as
// jaxlib sends them) leave the caller's bytes as they are; others are
// gathered into a dense copy.
func TestHostBufferKeepsDenseData(t *testing.T) {
	k := backend.Checker[*fakeArray]{Name: "t", Open: func() error { return nil }, Spec: func(ifrt.ArraySpec) error { return nil }}
	spec := ifrt.ArraySpec{DType: ifrt.U8, Shape: ifrt.Shape{2, 3}, Sharding: single(0)}
	data := []byte{1, 2, 3, 4, 5, 6}
	for _, strides := range [][]int64{nil, {3, 1}} {
		got, err := k.HostBuffer(data, spec, &ifrt.HostBufferOptions{ByteStrides: strides})
		if err != nil {
			t.Fatal(err)
		}
		if &got[0] != &data[0] {
			t.Errorf("strides %v: the dense bytes were copied", strides)
		}
	}
	got, err := k.HostBuffer(data, spec, &ifrt.HostBufferOptions{ByteStrides: []int64{1, 2}}) // column-major
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]byte{1, 3, 5, 2, 4, 6}, got); diff != "" {
		t.Errorf("column-major strides (-want +got):\n%s", diff)
	}
}
