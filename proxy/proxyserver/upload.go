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
	if err := ss.takeUploadSlot(ctx, meta.GetHandle()); err != nil {
		return nil, err
	}
	res, err := reserveAll(size, ss.hostBytes, s.hostBytes)
	if err != nil {
		ss.giveUploadSlot()
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
	u.ss.giveUploadSlot()
	u.s.act.done()
}

// takeUploadSlot waits until the session has fewer than max_inflight_uploads
// uploads open. It waits rather than refuses because jaxlib sends every
// device_put's bytes on a call of its own, all at once, and ends the whole
// session when one fails: a loop of 10 000 small device_puts must slow down,
// not break. A waiting call holds no bytes; it ends with its stream or its
// session.
func (ss *session) takeUploadSlot(ctx context.Context, handle uint64) error {
	if ss.uploads == nil {
		return nil
	}
	select {
	case ss.uploads <- struct{}{}:
		return nil
	default:
	}
	ss.log.Debug("ifrt proxy upload waits for a slot", "handle", handle, "max_inflight_uploads", cap(ss.uploads))
	select {
	case ss.uploads <- struct{}{}:
		return nil
	case <-ctx.Done():
		return rpc.ToStatus(ifrt.Errorf(ifrt.Canceled, "HostBufferStore: the call ended while it waited for one of the session's %d upload slots (max_inflight_uploads)", cap(ss.uploads)))
	case <-ss.ctx.Done():
		return rpc.ToStatus(ifrt.Errorf(ifrt.Canceled, "HostBufferStore: the session ended while the call waited for an upload slot"))
	}
}

func (ss *session) giveUploadSlot() {
	if ss.uploads != nil {
		<-ss.uploads
	}
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
