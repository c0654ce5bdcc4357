package wire

import (
	"bytes"
	"slices"
	"testing"

	"github.com/openpathways/pathways/proxy/proxypb"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/proto"
)

func chunkMsg(t *testing.T, data []byte) mem.BufferSlice {
	b, err := proto.Marshal(&proxypb.GrpcHostBufferStoreRequest{Data: data})
	if err != nil {
		t.Fatal(err)
	}
	return mem.BufferSlice{mem.SliceBuffer(b)}
}

// TestChunkSinkGrowsToItsLimit: a growing sink takes what the first chunk
// needs, then up to 1 MiB, then its limit at once; it keeps what came and
// refuses bytes past the limit.
func TestChunkSinkGrowsToItsLimit(t *testing.T) {
	const limit = 5<<20 + 3
	want := make([]byte, limit)
	for i := range want {
		want[i] = byte(i * 13)
	}
	m := &ChunkSink{Grow: true, Limit: limit}
	var sizes []int
	for off := 0; off < limit; off += 256 << 10 {
		if err := m.Decode(chunkMsg(t, want[off:min(off+256<<10, limit)])); err != nil {
			t.Fatal(err)
		}
		if len(sizes) == 0 || sizes[len(sizes)-1] != len(m.Dst) {
			sizes = append(sizes, len(m.Dst))
		}
	}
	if !bytes.Equal(m.Dst[:m.Off], want) {
		t.Errorf("the sink holds %d bytes, equal to the %d sent: %v", m.Off, limit, bytes.Equal(m.Dst[:m.Off], want))
	}
	if wantSizes := []int{256 << 10, 1 << 20, limit}; !slices.Equal(sizes, wantSizes) {
		t.Errorf("the buffer grew through %v, want %v", sizes, wantSizes)
	}
	if err := m.Decode(chunkMsg(t, []byte{1})); err != ErrChunkTooLarge {
		t.Errorf("a byte past the limit: %v, want ErrChunkTooLarge", err)
	}
	if m.Off != limit {
		t.Errorf("the refused byte moved the offset to %d", m.Off)
	}
}
