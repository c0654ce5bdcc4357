package wire

import (
	"encoding/binary"
	"io"

	"github.com/openpathways/pathways/ifrt"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/encoding/protowire"
)

// The two messages that carry array bytes, GrpcHostBufferStoreRequest and
// GrpcHostBufferLookupResponse, are both `bytes data = 1`. EncodeChunk and
// ChunkSink put them on and take them off the wire without the copy into (or
// out of) a generated message: the sender's slice goes to gRPC as it is, and
// received bytes go from gRPC's buffers straight into the destination.

// EncodeChunk returns the encoding of a chunk message carrying data, which it
// references rather than copies: data must stay intact until gRPC has sent it.
func EncodeChunk(data []byte) mem.BufferSlice {
	if len(data) == 0 {
		return nil // proto3 leaves an empty bytes field out
	}
	hdr := protowire.AppendTag(make([]byte, 0, 12), 1, protowire.BytesType)
	hdr = protowire.AppendVarint(hdr, uint64(len(data)))
	return mem.BufferSlice{mem.SliceBuffer(hdr), mem.SliceBuffer(data)}
}

// ChunkSink receives the data of chunk messages into Dst from Off on; Off
// advances past what each message brought, and Dst[:Off] is what came.
type ChunkSink struct {
	Dst []byte
	Off int
	// Grow makes Dst grow to fit, up to Limit (0: MaxGrownChunkBuffer), for
	// content of no fixed size or to commit memory only as bytes arrive. Dst
	// starts at 64 KiB, grows to 1 MiB, and once that much has come (the
	// sender is sending) to Limit at once: a sender that stops before has
	// cost at most 16 times what it sent, and regrowing copies and leaves
	// behind at most 1 MiB.
	Grow  bool
	Limit int
}

// MaxGrownChunkBuffer bounds what a growing ChunkSink takes by default.
const MaxGrownChunkBuffer = 1 << 30

// A growing ChunkSink starts at firstGrownChunkBuffer and jumps to its limit
// from lastGrownChunkBuffer.
const (
	firstGrownChunkBuffer = 64 << 10
	lastGrownChunkBuffer  = 1 << 20
)

func (m *ChunkSink) limit() int {
	if m.Limit > 0 {
		return m.Limit
	}
	return MaxGrownChunkBuffer
}

// grow makes room for n more bytes, which the limit allows.
func (m *ChunkSink) grow(n int) {
	next := max(m.Off+n, min(max(16*len(m.Dst), firstGrownChunkBuffer), lastGrownChunkBuffer))
	if len(m.Dst) >= lastGrownChunkBuffer {
		next = m.limit()
	}
	grown := make([]byte, min(m.limit(), next))
	copy(grown, m.Dst[:m.Off])
	m.Dst = grown
}

// ErrChunkTooLarge is Decode's error for data past the end of a fixed Dst.
var ErrChunkTooLarge = ifrt.Errorf(ifrt.Internal, "a host buffer chunk runs past the buffer's size")

// ErrBadChunk is Decode's error for bytes that are no chunk message.
var ErrBadChunk = ifrt.Errorf(ifrt.Internal, "a malformed host buffer chunk")

// Decode reads one chunk message, copying field 1 into Dst and skipping fields
// it does not know.
func (m *ChunkSink) Decode(data mem.BufferSlice) error {
	r := data.Reader()
	defer r.Close()
	for r.Remaining() > 0 {
		tag, err := binary.ReadUvarint(r)
		if err != nil {
			return ErrBadChunk
		}
		num, typ := protowire.DecodeTag(tag)
		var skip uint64
		switch typ {
		case protowire.VarintType:
			if _, err := binary.ReadUvarint(r); err != nil {
				return ErrBadChunk
			}
			continue
		case protowire.Fixed32Type:
			skip = 4
		case protowire.Fixed64Type:
			skip = 8
		case protowire.BytesType:
			n, err := binary.ReadUvarint(r)
			if err != nil || n > uint64(r.Remaining()) {
				return ErrBadChunk
			}
			if num != 1 {
				skip = n
				break
			}
			if m.Grow && n <= uint64(m.limit()-m.Off) && n > uint64(len(m.Dst)-m.Off) {
				m.grow(int(n))
			}
			if n > uint64(len(m.Dst)-m.Off) {
				return ErrChunkTooLarge
			}
			if _, err := io.ReadFull(r, m.Dst[m.Off:m.Off+int(n)]); err != nil {
				return ErrBadChunk
			}
			m.Off += int(n)
			continue
		default:
			return ErrBadChunk
		}
		if skip > uint64(r.Remaining()) {
			return ErrBadChunk
		}
		if _, err := r.Discard(int(skip)); err != nil {
			return ErrBadChunk
		}
	}
	return nil
}
