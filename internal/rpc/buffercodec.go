package rpc

import (
	"google.golang.org/grpc/encoding"
	"google.golang.org/grpc/mem"
)

// A BufferMessage is a message that encodes itself into, and decodes itself
// from, gRPC's own buffers, so that its large byte fields move without being
// copied into a marshaled message and out of a received one. Its bytes on the
// wire are those of a generated protobuf message, so a peer that decodes the
// generated message sees no difference.
//
// MarshalBuffers may return buffers that view the message's memory; the
// transport writes from them after SendMsg returns, and frees each when it
// is done (see mem.NewBuffer to learn when). UnmarshalBuffers must take a
// reference (mem.BufferSlice.Ref) on the buffers it keeps: gRPC frees its
// own once Unmarshal returns. A BufferMessage that cannot decode records why
// and reports it from DecodeFailure, which the server's stream check turns
// into INVALID_ARGUMENT.
type BufferMessage interface {
	MarshalBuffers() (mem.BufferSlice, error)
	UnmarshalBuffers(data mem.BufferSlice)
	DecodeFailure() error
}

// bufferCodec is the protobuf codec, except for BufferMessages.
type bufferCodec struct{ base encoding.CodecV2 }

// BufferCodec returns the codec a client passes (grpc.ForceCodecV2) to the
// calls that send or receive BufferMessages; every server of the module
// decodes them already. Its name is "proto", the content-subtype of every
// call.
func BufferCodec() encoding.CodecV2 { return bufferCodec{base: encoding.GetCodecV2("proto")} }

func (c bufferCodec) Name() string { return c.base.Name() }

func (c bufferCodec) Marshal(v any) (mem.BufferSlice, error) {
	if m, ok := v.(BufferMessage); ok {
		return m.MarshalBuffers()
	}
	return c.base.Marshal(v)
}

func (c bufferCodec) Unmarshal(data mem.BufferSlice, v any) error {
	if m, ok := v.(BufferMessage); ok {
		m.UnmarshalBuffers(data)
		return m.DecodeFailure()
	}
	return c.base.Unmarshal(data, v)
}
