package proxy

import (
	"context"
	"errors"
	"io"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/proxy/internal/wire"
	"github.com/openpathways/pathways/proxy/proxypb"
	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/proto"
)

// hostBufferChunk is the size of the messages host buffers travel in, as in
// jaxlib.
const hostBufferChunk = 1 << 20

// storeHostBuffer uploads data under handle with a HostBufferStore stream: the
// metadata header names the session, the handle and the size, then the bytes go
// in 1 MiB chunks (none for an empty buffer), sent from data without copies.
// data must stay intact until the call returns.
func (c *Client) storeHostBuffer(ctx context.Context, handle uint64, data []byte) error {
	md, err := proto.Marshal(&proxypb.GrpcHostBufferStoreMetadata{
		SessionId: c.sessionID, Handle: handle, BufferSize: int64(len(data)),
	})
	if err != nil {
		return ifrt.Errorf(ifrt.Internal, "proxy: encoding host buffer metadata: %w", err)
	}
	ctx, cancel := context.WithCancel(metadata.AppendToOutgoingContext(c.withSessionToken(ctx), hostBufferMetadataKey, string(md)))
	defer cancel()
	stream, err := c.dataConn.NewStream(ctx, &proxypb.GrpcIfrtService_ServiceDesc.Streams[1],
		proxypb.GrpcIfrtService_HostBufferStore_FullMethodName, grpc.ForceCodecV2(chunkCodec{}))
	if err != nil {
		return rpcError(ctx, "HostBufferStore", err)
	}
	for off := 0; off < len(data); off += hostBufferChunk {
		end := min(off+hostBufferChunk, len(data))
		if err := stream.SendMsg(&outChunk{data: data[off:end]}); err != nil {
			if errors.Is(err, io.EOF) {
				break // the server ended the call; RecvMsg says why
			}
			return rpcError(ctx, "HostBufferStore", err)
		}
	}
	if err := stream.CloseSend(); err != nil {
		return rpcError(ctx, "HostBufferStore", err)
	}
	if err := stream.RecvMsg(&proxypb.GrpcHostBufferStoreResponse{}); err != nil {
		return rpcError(ctx, "HostBufferStore", err)
	}
	return nil
}

// lookupHostBuffer downloads the host buffer handle into dst, which must be
// exactly its size. The chunks are decoded straight into dst.
func (c *Client) lookupHostBuffer(ctx context.Context, handle uint64, dst []byte) error {
	in := &inChunk{Dst: dst}
	if err := c.readHostBuffer(ctx, handle, in); err != nil {
		return err
	}
	if in.Off != len(dst) {
		return ifrt.Errorf(ifrt.Internal, "proxy: host buffer %d has %d bytes, want %d", handle, in.Off, len(dst))
	}
	return nil
}

// lookupHostContent reads a host buffer of no size known in advance (a
// STRING array's).
func (c *Client) lookupHostContent(ctx context.Context, handle uint64) ([]byte, error) {
	in := &inChunk{Grow: true}
	if err := c.readHostBuffer(ctx, handle, in); err != nil {
		return nil, err
	}
	return in.Dst[:in.Off], nil
}

// readHostBuffer streams a host buffer's chunks into in.
func (c *Client) readHostBuffer(ctx context.Context, handle uint64, in *inChunk) error {
	ctx, cancel := context.WithCancel(c.withSessionToken(ctx))
	defer cancel()
	stream, err := c.dataConn.NewStream(ctx, &proxypb.GrpcIfrtService_ServiceDesc.Streams[2],
		proxypb.GrpcIfrtService_HostBufferLookup_FullMethodName, grpc.ForceCodecV2(chunkCodec{}))
	if err != nil {
		return rpcError(ctx, "HostBufferLookup", err)
	}
	if err := stream.SendMsg(&proxypb.GrpcHostBufferLookupRequest{SessionId: c.sessionID, Handle: handle}); err != nil && !errors.Is(err, io.EOF) {
		return rpcError(ctx, "HostBufferLookup", err)
	}
	if err := stream.CloseSend(); err != nil {
		return rpcError(ctx, "HostBufferLookup", err)
	}
	for {
		err := stream.RecvMsg(in)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return rpcError(ctx, "HostBufferLookup", err)
		}
	}
}

// withSessionToken adds the session's token, which shows the server that a
// host-buffer call on the data connection belongs to the session.
func (c *Client) withSessionToken(ctx context.Context) context.Context {
	if c.sessionToken == "" {
		return ctx
	}
	return metadata.AppendToOutgoingContext(ctx, wire.SessionTokenMetadataKey, c.sessionToken)
}

// deleteHostBufferAsync frees a host buffer on the server without waiting; a
// failure is only logged, as in jaxlib.
func (c *Client) deleteHostBufferAsync(handle uint64) {
	c.goBackground(func() {
		ctx, cancel := context.WithTimeout(c.withSessionToken(c.bgCtx), hostBufferDeleteTimeout)
		defer cancel()
		_, err := c.hostBuffers.HostBufferDelete(ctx, &proxypb.GrpcHostBufferDeleteRequest{SessionId: c.sessionID, Handle: handle})
		if err != nil && c.checkOpen() == nil {
			c.log.Debug("deleting a host buffer failed", "handle", handle, "error", err)
		}
	})
}
