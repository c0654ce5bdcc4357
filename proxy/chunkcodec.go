package proxy

import (
	"encoding/binary"
	"io"

	"github.com/openpathways/pathways/ifrt"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
)

// chunkCodec is the protobuf codec, except for the two messages that carry array
// bytes: an outChunk (a GrpcHostBufferStoreRequest) is sent from the caller's
// slice without copying it into a marshaled message, and an inChunk (a
// GrpcHostBufferLookupResponse) is decoded straight into the destination
// buffer. The bytes on the wire are those of the generated messages, and the
// content-subtype is "proto", so servers see no difference.
type chunkCodec struct{}

func (chunkCodec) Name() string { return "proto" }

// outChunk is one GrpcHostBufferStoreRequest: data = 1.
type outChunk struct{ data []byte }

// inChunk receives the data of GrpcHostBufferLookupResponses into dst, from off
// on; off advances past what each message brought.
type inChunk struct {
	dst  []byte
	off  int
	grow bool // dst grows to fit, up to maxGrownBuffer (content of no fixed size)
}

// maxGrownBuffer bounds a host buffer read without a known size.
const maxGrownBuffer = 1 << 30

func (chunkCodec) Marshal(v any) (mem.BufferSlice, error) {
	switch m := v.(type) {
	case *outChunk:
		if len(m.data) == 0 {
			return nil, nil // proto3 leaves an empty bytes field out
		}
		hdr := protowire.AppendTag(make([]byte, 0, 12), 1, protowire.BytesType)
		hdr = protowire.AppendVarint(hdr, uint64(len(m.data)))
		return mem.BufferSlice{mem.SliceBuffer(hdr), mem.SliceBuffer(m.data)}, nil
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
		r := data.Reader()
		defer r.Close()
		return m.decode(r)
	case proto.Message:
		return proto.Unmarshal(data.Materialize(), m)
	}
	return ifrt.Errorf(ifrt.Internal, "proxy: chunk codec cannot decode into %T", v)
}

// decode reads one GrpcHostBufferLookupResponse, copying field 1 into m.dst and
// skipping fields it does not know.
func (m *inChunk) decode(r *mem.Reader) error {
	for r.Remaining() > 0 {
		tag, err := binary.ReadUvarint(r)
		if err != nil {
			return errBadChunk
		}
		num, typ := protowire.DecodeTag(tag)
		var skip uint64
		switch typ {
		case protowire.VarintType:
			if _, err := binary.ReadUvarint(r); err != nil {
				return errBadChunk
			}
			continue
		case protowire.Fixed32Type:
			skip = 4
		case protowire.Fixed64Type:
			skip = 8
		case protowire.BytesType:
			n, err := binary.ReadUvarint(r)
			if err != nil || n > uint64(r.Remaining()) {
				return errBadChunk
			}
			if num != 1 {
				skip = n
				break
			}
			if m.grow && n <= maxGrownBuffer-uint64(m.off) && n > uint64(len(m.dst)-m.off) {
				m.dst = append(m.dst[:m.off], make([]byte, n)...)
			}
			if n > uint64(len(m.dst)-m.off) {
				return ifrt.Errorf(ifrt.Internal, "proxy: the host buffer is larger than the %d bytes expected", len(m.dst))
			}
			if _, err := io.ReadFull(r, m.dst[m.off:m.off+int(n)]); err != nil {
				return errBadChunk
			}
			m.off += int(n)
			continue
		default:
			return errBadChunk
		}
		if skip > uint64(r.Remaining()) {
			return errBadChunk
		}
		if _, err := r.Discard(int(skip)); err != nil {
			return errBadChunk
		}
	}
	return nil
}

var errBadChunk = ifrt.Errorf(ifrt.Internal, "proxy: malformed GrpcHostBufferLookupResponse")
