package worker

import (
	"errors"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/worker/workerpb"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
)

// ReadArray's chunks travel as rpc.BufferMessages, as exchange frames do
// (gang_wire.go): the server sends them from the array's contents without
// encoding them into a message, and the reader decodes them straight into
// the piece's destination, or copies them there out of the server's shared
// memory.

// chunkOut is one ReadArrayChunk to send. data is the server's own copy of
// the array's contents or the array's own memory (ifrt.HostBytes), which
// nothing changes: the transport may write from it after SendMsg returns.
type chunkOut struct {
	data   []byte
	shared *workerpb.SharedRegion // instead of data
}

func (c *chunkOut) MarshalBuffers() (mem.BufferSlice, error) {
	if c.shared != nil {
		region, err := proto.Marshal(c.shared)
		if err != nil {
			return nil, err
		}
		b := protowire.AppendTag(nil, 2, protowire.BytesType)
		return mem.BufferSlice{mem.SliceBuffer(protowire.AppendBytes(b, region))}, nil
	}
	if len(c.data) == 0 {
		return nil, nil
	}
	hdr := protowire.AppendTag(make([]byte, 0, 12), 1, protowire.BytesType)
	hdr = protowire.AppendVarint(hdr, uint64(len(c.data)))
	return mem.BufferSlice{mem.SliceBuffer(hdr), mem.SliceBuffer(c.data)}, nil
}

func (*chunkOut) UnmarshalBuffers(mem.BufferSlice) {}

func (*chunkOut) DecodeFailure() error { return errors.New("an outgoing chunk is never received") }

// chunkIn receives ReadArrayChunks: data into dst from off on (off
// advances), a shared region into shared, for the reader to copy.
type chunkIn struct {
	dst    []byte
	off    int
	shared *workerpb.SharedRegion
	err    error
}

func (c *chunkIn) UnmarshalBuffers(data mem.BufferSlice) {
	c.shared, c.err = nil, nil
	var prefix [16]byte
	n := copyPrefix(prefix[:], data)
	num, typ, k := protowire.ConsumeTag(prefix[:n])
	if k > 0 && num == 1 && typ == protowire.BytesType {
		size, m := protowire.ConsumeVarint(prefix[k:n])
		if m > 0 && size == uint64(data.Len()-k-m) {
			c.take(viewsFrom(data, k+m), int(size))
			return
		}
	}
	// Any other valid encoding.
	var chunk workerpb.ReadArrayChunk
	if err := proto.Unmarshal(data.Materialize(), &chunk); err != nil {
		c.err = ifrt.Errorf(ifrt.DataLoss, "worker: a malformed ReadArrayChunk: %v", err)
		return
	}
	c.shared = chunk.GetShared()
	if c.shared != nil && len(chunk.GetData()) > 0 {
		c.err = ifrt.Errorf(ifrt.DataLoss, "worker: a ReadArrayChunk carries data and a shared region")
		return
	}
	c.take([][]byte{chunk.GetData()}, len(chunk.GetData()))
}

// take copies size bytes, in pieces, into dst.
func (c *chunkIn) take(pieces [][]byte, size int) {
	if size > len(c.dst)-c.off {
		c.err = ifrt.Errorf(ifrt.DataLoss, "worker: the peer sent more than the %d bytes of the piece", len(c.dst))
		return
	}
	for _, p := range pieces {
		c.off += copy(c.dst[c.off:], p)
	}
}

func (*chunkIn) MarshalBuffers() (mem.BufferSlice, error) {
	return nil, errors.New("a received chunk is never sent")
}

// DecodeFailure is nil: the reader checks err itself, so that a malformed
// chunk is DATA_LOSS, not the INTERNAL grpc-go makes of a failed decode.
func (c *chunkIn) DecodeFailure() error { return nil }
