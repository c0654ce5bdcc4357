package proxy

import (
	"bytes"
	"testing"

	"github.com/openpathways/pathways/proxy/proxypb"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
)

func TestChunkCodecMatchesTheGeneratedMessages(t *testing.T) {
	data := bytes.Repeat([]byte{1, 2, 3, 250}, 1000)
	out, err := chunkCodec{}.Marshal(&outChunk{data: data})
	if err != nil {
		t.Fatal(err)
	}
	want, _ := proto.Marshal(&proxypb.GrpcHostBufferStoreRequest{Data: data})
	if got := out.Materialize(); !bytes.Equal(got, want) {
		t.Errorf("outChunk encodes as %d bytes, the generated message as %d", len(got), len(want))
	}
	if empty, _ := (chunkCodec{}).Marshal(&outChunk{}); empty.Len() != 0 {
		t.Errorf("an empty chunk encodes as %d bytes", empty.Len())
	}

	// A lookup response split over several buffers, with a field the client
	// does not know around the data.
	msg, _ := proto.Marshal(&proxypb.GrpcHostBufferLookupResponse{Data: data})
	msg = protowire.AppendVarint(protowire.AppendTag(msg, 7, protowire.VarintType), 300)
	msg = append(protowire.AppendBytes(protowire.AppendTag(nil, 9, protowire.BytesType), []byte("x")), msg...)
	split := mem.BufferSlice{mem.SliceBuffer(msg[:5]), mem.SliceBuffer(msg[5:1001]), mem.SliceBuffer(msg[1001:])}
	in := &inChunk{Dst: make([]byte, len(data)+4), Off: 4}
	if err := (chunkCodec{}).Unmarshal(split, in); err != nil {
		t.Fatal(err)
	}
	if in.Off != len(data)+4 || !bytes.Equal(in.Dst[4:], data) {
		t.Errorf("decoded %d bytes, contents equal: %v", in.Off-4, bytes.Equal(in.Dst[4:], data))
	}

	var req proxypb.GrpcHostBufferLookupRequest
	enc, _ := proto.Marshal(&proxypb.GrpcHostBufferLookupRequest{SessionId: 3, Handle: 9})
	if err := (chunkCodec{}).Unmarshal(mem.BufferSlice{mem.SliceBuffer(enc)}, &req); err != nil || req.GetHandle() != 9 {
		t.Errorf("proto messages: %v, %v", &req, err)
	}
}

func TestChunkCodecRejectsBadChunks(t *testing.T) {
	big, _ := proto.Marshal(&proxypb.GrpcHostBufferLookupResponse{Data: make([]byte, 9)})
	for name, msg := range map[string][]byte{
		"truncated length": {0x0a},
		"length past end":  {0x0a, 5, 1, 2},
		"group wire type":  {0x0b},
		"too large":        big,
	} {
		in := &inChunk{Dst: make([]byte, 8)}
		if err := (chunkCodec{}).Unmarshal(mem.BufferSlice{mem.SliceBuffer(msg)}, in); err == nil {
			t.Errorf("%s: decoded without error", name)
		}
	}
}

// FuzzChunkDecode feeds the lookup decoder what a broken or hostile server
// could send: it must fail cleanly, never panic or write out of bounds.
func FuzzChunkDecode(f *testing.F) {
	ok, _ := proto.Marshal(&proxypb.GrpcHostBufferLookupResponse{Data: []byte{1, 2, 3}})
	f.Add(ok)
	f.Add([]byte{0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f})
	f.Add([]byte{0x09, 1, 2, 3, 4, 5, 6, 7, 8})
	f.Fuzz(func(t *testing.T, msg []byte) {
		in := &inChunk{Dst: make([]byte, 8)}
		_ = (chunkCodec{}).Unmarshal(mem.BufferSlice{mem.SliceBuffer(msg)}, in)
		if in.Off < 0 || in.Off > len(in.Dst) {
			t.Fatalf("offset %d out of range", in.Off)
		}
	})
}
