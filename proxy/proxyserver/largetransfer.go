package proxyserver

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/internal/rpc"
	"github.com/openpathways/pathways/proxy/proxypb"
)

// HostBufferReadFromDisk stores a host buffer that the client wrote to
// Config.LargeTransferDirectory instead of streaming it: jaxlib does so, with
// protocol 17 or later, for buffers of at least
// IFRT_PROXY_GRPC_LARGE_TRANSFER_OPTIMIZATION_THRESHOLD_BYTES when
// IFRT_PROXY_GRPC_LARGE_TRANSFER_OPTIMIZATION_DIRECTORY names the same
// directory (docs/dataplane.md). The file is read and deleted; the buffer then
// serves requests as one from HostBufferStore does.
func (s *Server) HostBufferReadFromDisk(ctx context.Context, req *proxypb.GrpcHostBufferReadFromDiskRequest) (*proxypb.GrpcHostBufferReadFromDiskResponse, error) {
	dir := s.cfg.LargeTransferDirectory
	if dir == "" {
		return nil, rpc.ToStatus(ifrt.Errorf(ifrt.Unimplemented, "HostBufferReadFromDisk: this server has no large-transfer directory (Config.LargeTransferDirectory, --large_transfer_directory); unset IFRT_PROXY_GRPC_LARGE_TRANSFER_OPTIMIZATION_* in the client or give the server the client's directory"))
	}
	u, err := s.admitUpload(ctx, "HostBufferReadFromDisk", req.GetMetadata())
	if err != nil {
		return nil, err
	}
	data, err := readLargeTransfer(dir, req.GetMetadata().GetHandle(), req.GetMetadata().GetBufferSize())
	if err != nil {
		u.abort()
		return nil, rpc.ToStatus(err)
	}
	if err := u.finish(data); err != nil {
		return nil, err
	}
	return &proxypb.GrpcHostBufferReadFromDiskResponse{}, nil
}

// LargeTransferFileName is the name jaxlib gives the file of host buffer
// handle in the large-transfer directory: "lt_" and the handle in decimal, as
// a C int (its low 32 bits, signed), which is how jaxlib formats it. Only the
// handle decides the name, so a request cannot name another path.
func LargeTransferFileName(handle uint64) string {
	return "lt_" + strconv.FormatInt(int64(int32(handle)), 10)
}

// readLargeTransfer reads the file of handle in dir, which must be a plain
// file of exactly size bytes, then deletes it. A symbolic link or a file with
// other names (hard links) is refused: the directory is shared with the
// client, which must not make the server read files it cannot. It reads
// rather than maps the file: a client that truncates a mapped file would
// crash the server with SIGBUS.
func readLargeTransfer(dir string, handle uint64, size int64) ([]byte, error) {
	path := filepath.Join(dir, LargeTransferFileName(handle))
	f, err := openNoFollow(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, ifrt.Errorf(ifrt.NotFound, "host buffer %d: no file %s in the large-transfer directory (is the server's directory the client's IFRT_PROXY_GRPC_LARGE_TRANSFER_OPTIMIZATION_DIRECTORY?)", handle, path)
	}
	// The name belongs to this transfer whatever it holds: remove it so that a
	// refused file does not stay in the (usually memory-backed) directory.
	defer func() {
		// Nothing to tell the client if it fails: the buffer is read or refused.
		_ = os.Remove(path)
	}()
	if err != nil {
		return nil, ifrt.Errorf(ifrt.InvalidArgument, "host buffer %d: %s is not a plain file the server can read: %v", handle, path, err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, ifrt.Errorf(ifrt.Internal, "host buffer %d: %v", handle, err)
	}
	if !info.Mode().IsRegular() || linkCount(info) > 1 {
		return nil, ifrt.Errorf(ifrt.InvalidArgument, "host buffer %d: %s is not a plain file with one name", handle, path)
	}
	if info.Size() != size {
		return nil, ifrt.Errorf(ifrt.DataLoss, "host buffer %d: %s has %d bytes, the request announced %d", handle, path, info.Size(), size)
	}
	data := make([]byte, size)
	if _, err := io.ReadFull(f, data); err != nil {
		return nil, ifrt.Errorf(ifrt.DataLoss, "host buffer %d: reading %s: %v", handle, path, err)
	}
	return data, nil
}
