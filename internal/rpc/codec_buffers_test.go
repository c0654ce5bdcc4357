package rpc

import (
	"bytes"
	"testing"

	"google.golang.org/grpc/mem"
)

// viaBuffers is a message that encodes and decodes itself from gRPC's buffers.
type viaBuffers struct{ data []byte }

func (v *viaBuffers) MarshalBuffers() (mem.BufferSlice, error) {
	return mem.BufferSlice{mem.SliceBuffer(v.data)}, nil
}

func (v *viaBuffers) UnmarshalBuffers(b mem.BufferSlice) error {
	v.data = b.Materialize()
	return nil
}

// TestLenientCodecHandsOverBuffers: a message with MarshalBuffers or
// UnmarshalBuffers gets gRPC's buffers as they are, not the protobuf codec.
func TestLenientCodecHandsOverBuffers(t *testing.T) {
	c := newLenientCodec()
	payload := []byte{0xff, 0xff, 1, 2} // not a protobuf message
	out, err := c.Marshal(&viaBuffers{data: payload})
	if err != nil || !bytes.Equal(out.Materialize(), payload) {
		t.Fatalf("Marshal: %v, %v; want the bytes as they are", out.Materialize(), err)
	}
	var in viaBuffers
	if err := c.Unmarshal(mem.BufferSlice{mem.SliceBuffer(payload)}, &in); err != nil || !bytes.Equal(in.data, payload) {
		t.Errorf("Unmarshal: %v, %v; want the bytes as they are", in.data, err)
	}
}
