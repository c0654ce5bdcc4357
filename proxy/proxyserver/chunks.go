package proxyserver

import (
	"github.com/openpathways/pathways/proxy/internal/wire"
	"github.com/openpathways/pathways/proxy/proxypb"
	"google.golang.org/grpc/mem"
)

// The host-buffer streams move array bytes without copying them into or out
// of generated messages when the server runs with rpc.ServerOptions (as Serve
// does): its codec hands these types gRPC's buffers. They embed the generated
// message, so on a grpc.Server with the stock codec they still work, with its
// copies.

// storeChunk receives one GrpcHostBufferStoreRequest into sink.
type storeChunk struct {
	*proxypb.GrpcHostBufferStoreRequest
	sink *wire.ChunkSink
	err  error // why the message did not decode; the stream goes on to report it
}

func (c *storeChunk) UnmarshalBuffers(data mem.BufferSlice) error {
	c.err = c.sink.Decode(data)
	return nil
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
