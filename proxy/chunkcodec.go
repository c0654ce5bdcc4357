package proxy

import (
	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/proxy/internal/wire"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/proto"
)

// chunkCodec is the protobuf codec, except for the two messages that carry array
// bytes: an outChunk (a GrpcHostBufferStoreRequest) is sent from the caller's
// slice without copying it into a marshaled message, and an inChunk (a
// GrpcHostBufferLookupResponse) is decoded straight into the destination
// buffer (wire.EncodeChunk, wire.ChunkSink). The bytes on the wire are those
// of the generated messages, and the content-subtype is "proto", so servers
// see no difference.
type chunkCodec struct{}

func (chunkCodec) Name() string { return "proto" }

// outChunk is one GrpcHostBufferStoreRequest: data = 1.
type outChunk struct{ data []byte }

// inChunk receives the data of GrpcHostBufferLookupResponses.
type inChunk = wire.ChunkSink

func (chunkCodec) Marshal(v any) (mem.BufferSlice, error) {
	switch m := v.(type) {
	case *outChunk:
		return wire.EncodeChunk(m.data), nil
	case proto.Message:
		b, err := proto.Marshal(m)
		if err != nil {
			return nil, err
		}
		return mem.BufferSlice{mem.SliceBuffer(b)}, nil
	}
	return nil, ifrt.Errorf(ifrt.Internal, "proxy: chunk codec cannot encode %T", v)
}

func (chunkCodec) Unmarshal(data mem.BufferSlice, v any) error {
	switch m := v.(type) {
	case *inChunk:
		return m.Decode(data)
	case proto.Message:
		return proto.Unmarshal(data.Materialize(), m)
	}
	return ifrt.Errorf(ifrt.Internal, "proxy: chunk codec cannot decode into %T", v)
}
