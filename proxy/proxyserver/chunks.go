package proxyserver

import (
	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/proxy/internal/wire"
	"github.com/openpathways/pathways/proxy/proxypb"
	"google.golang.org/grpc/mem"
)

// The host-buffer streams move array bytes without copying them into or out
// of generated messages when the server runs with rpc.ServerOptions (as Serve
// does): its codec hands these rpc.BufferMessages gRPC's buffers. They embed
// the generated message, so on a grpc.Server with the stock codec they still
// work, with its copies.

// storeChunk receives one GrpcHostBufferStoreRequest into sink.
type storeChunk struct {
	*proxypb.GrpcHostBufferStoreRequest
	sink *wire.ChunkSink
	err  error // why the message did not decode
}

func (c *storeChunk) UnmarshalBuffers(data mem.BufferSlice) { c.err = c.sink.Decode(data) }

// DecodeFailure reports a message that is no chunk (INVALID_ARGUMENT); more
// bytes than announced are the handler's to report (DATA_LOSS).
func (c *storeChunk) DecodeFailure() error {
	if c.err == wire.ErrChunkTooLarge {
		return nil
	}
	return c.err
}

func (c *storeChunk) MarshalBuffers() (mem.BufferSlice, error) {
	return wire.EncodeChunk(c.GetData()), nil
}

// lookupChunk sends one GrpcHostBufferLookupResponse carrying data, which
// must stay intact until the stream ends.
func lookupChunk(data []byte) *sentChunk {
	return &sentChunk{&proxypb.GrpcHostBufferLookupResponse{Data: data}}
}

type sentChunk struct {
	*proxypb.GrpcHostBufferLookupResponse
}

func (c *sentChunk) MarshalBuffers() (mem.BufferSlice, error) {
	return wire.EncodeChunk(c.GetData()), nil
}

func (c *sentChunk) UnmarshalBuffers(mem.BufferSlice) {}

func (c *sentChunk) DecodeFailure() error {
	return ifrt.Errorf(ifrt.Internal, "a host buffer lookup chunk is only ever sent")
}
