package worker

import (
	"bytes"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/openpathways/pathways/worker/workerpb"
)

// TestChunkWire checks that a chunkOut encodes as the ReadArrayChunk with
// the same fields, and that chunkIn decodes it into its destination however
// the transport cuts the bytes.
func TestChunkWire(t *testing.T) {
	data := make([]byte, 70000)
	for i := range data {
		data[i] = byte(i * 3)
	}
	for _, out := range []*chunkOut{{data: data}, {data: data[:1]}, {shared: &workerpb.SharedRegion{Segment: "s", Generation: 2, Length: 3}}} {
		bufs, err := out.MarshalBuffers()
		if err != nil {
			t.Fatal(err)
		}
		wire := bufs.Materialize()
		var m workerpb.ReadArrayChunk
		if err := proto.Unmarshal(wire, &m); err != nil {
			t.Fatalf("the encoding is not a ReadArrayChunk: %v", err)
		}
		if !bytes.Equal(m.GetData(), out.data) || !proto.Equal(m.GetShared(), out.shared) {
			t.Errorf("encoded %d bytes and %v as data %d bytes and %v", len(out.data), out.shared, len(m.GetData()), m.GetShared())
		}
		for _, cut := range []int{1, 7, 16 << 10} {
			in := &chunkIn{dst: make([]byte, len(out.data))}
			in.UnmarshalBuffers(split(wire, cut))
			if in.err != nil {
				t.Fatalf("cut every %d bytes: %v", cut, in.err)
			}
			if !bytes.Equal(in.dst[:in.off], out.data) || !proto.Equal(in.shared, out.shared) {
				t.Errorf("cut every %d bytes: decoded %d bytes and %v", cut, in.off, in.shared)
			}
		}
	}
	in := &chunkIn{dst: make([]byte, 10)}
	in.UnmarshalBuffers(split(mustMarshal(t, &workerpb.ReadArrayChunk{Data: data}), 100))
	if in.err == nil {
		t.Error("a chunk larger than the piece decoded")
	}
}

// FuzzChunkIn checks that any bytes decode as the generated ReadArrayChunk
// decodes them, or fail where it fails.
func FuzzChunkIn(f *testing.F) {
	f.Add(mustMarshalF(&workerpb.ReadArrayChunk{Data: []byte{1, 2, 3}}), 2)
	f.Add(mustMarshalF(&workerpb.ReadArrayChunk{Shared: &workerpb.SharedRegion{Segment: "x", Length: 1}}), 5)
	f.Fuzz(func(t *testing.T, b []byte, cut int) {
		var m workerpb.ReadArrayChunk
		perr := proto.Unmarshal(b, &m)
		in := &chunkIn{dst: make([]byte, 64)}
		in.UnmarshalBuffers(split(b, max(1, cut%64)))
		if perr != nil || len(m.GetData()) > 64 || (m.GetShared() != nil && len(m.GetData()) > 0) {
			if in.err == nil && perr != nil {
				t.Fatalf("proto.Unmarshal: %v, chunkIn decoded", perr)
			}
			return
		}
		if in.err != nil {
			t.Fatalf("chunkIn: %v, proto.Unmarshal decoded", in.err)
		}
		if !bytes.Equal(in.dst[:in.off], m.GetData()) || !proto.Equal(in.shared, m.GetShared()) {
			t.Errorf("chunkIn decoded %x and %v, proto %x and %v", in.dst[:in.off], in.shared, m.GetData(), m.GetShared())
		}
	})
}
