package proxy

import (
	"context"
	"errors"
	"io"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/proxy/proxypb"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/proto"
)

// hostBufferChunk is the size of the messages host buffers travel in, as in
// jaxlib.
const hostBufferChunk = 1 << 20

// storeHostBuffer uploads data under handle with a HostBufferStore stream: the
// metadata header names the session, the handle and the size, then the bytes go
// in 1 MiB chunks (none for an empty buffer).
func (c *Client) storeHostBuffer(ctx context.Context, handle uint64, data []byte) error {
	md, err := proto.Marshal(&proxypb.GrpcHostBufferStoreMetadata{
		SessionId: c.sessionID, Handle: handle, BufferSize: int64(len(data)),
	})
	if err != nil {
		return ifrt.Errorf(ifrt.Internal, "proxy: encoding host buffer metadata: %w", err)
	}
	ctx, cancel := context.WithCancel(metadata.AppendToOutgoingContext(ctx, hostBufferMetadataKey, string(md)))
	defer cancel()
	stream, err := c.hostBuffers.HostBufferStore(ctx)
	if err != nil {
		return rpcError(ctx, "HostBufferStore", err)
	}
	for off := 0; off < len(data); off += hostBufferChunk {
		end := min(off+hostBufferChunk, len(data))
		if err := stream.Send(&proxypb.GrpcHostBufferStoreRequest{Data: data[off:end]}); err != nil {
			if errors.Is(err, io.EOF) {
				break // the server ended the call; CloseAndRecv says why
			}
			return rpcError(ctx, "HostBufferStore", err)
		}
	}
	if _, err := stream.CloseAndRecv(); err != nil {
		return rpcError(ctx, "HostBufferStore", err)
	}
	return nil
}

// lookupHostBuffer downloads the host buffer handle into dst, which must be
// exactly its size.
func (c *Client) lookupHostBuffer(ctx context.Context, handle uint64, dst []byte) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stream, err := c.hostBuffers.HostBufferLookup(ctx, &proxypb.GrpcHostBufferLookupRequest{SessionId: c.sessionID, Handle: handle})
	if err != nil {
		return rpcError(ctx, "HostBufferLookup", err)
	}
	off := 0
	for {
		m, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return rpcError(ctx, "HostBufferLookup", err)
		}
		if len(m.GetData()) > len(dst)-off {
			return ifrt.Errorf(ifrt.Internal, "proxy: host buffer %d is larger than the %d bytes expected", handle, len(dst))
		}
		off += copy(dst[off:], m.GetData())
	}
	if off != len(dst) {
		return ifrt.Errorf(ifrt.Internal, "proxy: host buffer %d has %d bytes, want %d", handle, off, len(dst))
	}
	return nil
}

// deleteHostBufferAsync frees a host buffer on the server without waiting; a
// failure is only logged, as in jaxlib.
func (c *Client) deleteHostBufferAsync(handle uint64) {
	c.goBackground(func() {
		ctx, cancel := context.WithTimeout(c.bgCtx, hostBufferDeleteTimeout)
		defer cancel()
		_, err := c.hostBuffers.HostBufferDelete(ctx, &proxypb.GrpcHostBufferDeleteRequest{SessionId: c.sessionID, Handle: handle})
		if err != nil && c.checkOpen() == nil {
			c.log.Debug("proxy: deleting a host buffer failed", "handle", handle, "err", err)
		}
	})
}
