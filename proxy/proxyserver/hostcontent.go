package proxyserver

import (
	"context"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/proxy/proxypb"
)

// copyContentToHostBuffer answers a CopyToHostBufferRequest for a STRING
// array: its host buffer is the serialized StringArrayContents the backend
// reads (ifrt.ReadHostContent), whatever its size; byte strides do not apply.
func (s *session) copyContentToHostBuffer(ctx context.Context, handle uint64, a ifrt.Array) (*proxypb.IfrtResponse, error) {
	data, err := ifrt.ReadHostContent(ctx, a)
	if err != nil {
		return nil, err
	}
	size := int64(len(data))
	if err := s.checkBufferSize(size); err != nil {
		return nil, err
	}
	res, err := reserveAll(size, s.hostBytes, s.srv.hostBytes)
	if err != nil {
		return nil, err
	}
	if err := s.buffers.put(handle, data, res); err != nil {
		return nil, err
	}
	return &proxypb.IfrtResponse{Response: &proxypb.IfrtResponse_CopyToHostBufferResponse{CopyToHostBufferResponse: &proxypb.CopyToHostBufferResponse{}}}, nil
}
