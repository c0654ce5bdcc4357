package proxyserver

import (
	"context"
	"io"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/internal/rpc"
	"github.com/openpathways/pathways/proxy/internal/wire"
	"github.com/openpathways/pathways/proxy/proxypb"
)

// upload is one admitted host-buffer upload: its session, and the reservation
// of its bytes, which finish hands to the session's host buffers.
type upload struct {
	s    *Server
	ss   *session
	meta *proxypb.GrpcHostBufferStoreMetadata
	res  *reservation
}

// admitUpload checks an upload announced by meta (HostBufferStore or
// HostBufferReadFromDisk) before any byte is read: its size, session and
// handle, and the upload and byte limits it takes from. The caller ends it
// with finish, or with abort if the bytes never arrive.
func (s *Server) admitUpload(ctx context.Context, method string, meta *proxypb.GrpcHostBufferStoreMetadata) (*upload, error) {
	size := meta.GetBufferSize()
	if size < 0 {
		return nil, rpc.ToStatus(ifrt.Errorf(ifrt.InvalidArgument, "%s: negative buffer size %d", method, size))
	}
	if size > s.cfg.MaxHostBufferSize {
		return nil, rpc.ToStatus(ifrt.Errorf(ifrt.ResourceExhausted, "%s: a buffer of %d bytes is over the server's limit of %d for one host buffer", method, size, s.cfg.MaxHostBufferSize))
	}
	ss, err := s.ownedSession(ctx, meta.GetSessionId())
	if err != nil {
		return nil, err
	}
	if err := checkClientHandle(meta.GetHandle()); err != nil {
		return nil, rpc.ToStatus(err)
	}
	if err := ss.uploads.reserve(1); err != nil {
		return nil, rpc.ToStatus(err)
	}
	res, err := reserveAll(size, ss.hostBytes, s.hostBytes)
	if err != nil {
		ss.uploads.release(1)
		return nil, rpc.ToStatus(err)
	}
	s.act.add()
	return &upload{s: s, ss: ss, meta: meta, res: res}, nil
}

// finish stores data, which has exactly the announced size, as the session's
// host buffer.
func (u *upload) finish(data []byte) error {
	defer u.end()
	if err := u.ss.buffers.put(u.meta.GetHandle(), data, u.res); err != nil {
		return rpc.ToStatus(err)
	}
	return nil
}

// abort gives the upload's reservations back.
func (u *upload) abort() {
	u.res.release()
	u.end()
}

func (u *upload) end() {
	u.ss.uploads.release(1)
	u.s.act.done()
}

// receiveBuffer reads exactly size bytes from the stream, each chunk decoded
// straight into the buffer (one copy from gRPC's buffers), which grows as
// bytes arrive (wire.ChunkSink), never past size.
func receiveBuffer(stream proxypb.GrpcIfrtService_HostBufferStoreServer, handle uint64, size int64) ([]byte, error) {
	sink := &wire.ChunkSink{Dst: []byte{}, Grow: true, Limit: int(size)}
	for {
		chunk := &storeChunk{GrpcHostBufferStoreRequest: &proxypb.GrpcHostBufferStoreRequest{}, sink: sink}
		err := stream.RecvMsg(chunk)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		over := chunk.err == wire.ErrChunkTooLarge // a chunk that is none failed RecvMsg
		// A server without rpc.ServerOptions' codec decoded the message itself.
		data := chunk.GetData()
		if over || int64(sink.Off)+int64(len(data)) > size {
			return nil, rpc.ToStatus(ifrt.Errorf(ifrt.DataLoss, "HostBufferStore: handle %d: received more than the announced %d bytes", handle, size))
		}
		if len(data) > len(sink.Dst)-sink.Off {
			sink.Dst = append(sink.Dst[:sink.Off], make([]byte, len(data))...)
		}
		sink.Off += copy(sink.Dst[sink.Off:], data)
	}
	if int64(sink.Off) != size {
		return nil, rpc.ToStatus(ifrt.Errorf(ifrt.DataLoss, "HostBufferStore: handle %d: received %d bytes, announced %d", handle, sink.Off, size))
	}
	return sink.Dst[:sink.Off], nil
}
