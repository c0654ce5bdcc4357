package rpc

import (
	"context"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/encoding"
	"google.golang.org/grpc/mem"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
)

// grpc-go answers a request it cannot decode with INTERNAL, as if the server
// had failed, and on a stream it writes that status before the handler learns
// anything. The lenient codec instead hands the handler an empty message that
// records why it did not decode, and the interceptors turn that record into an
// INVALID_ARGUMENT status: the client sent garbage, the server is fine.

// decodeFailureField is the field number under which a message that failed to
// decode carries the reason, as an unknown field: the largest field number
// protobuf allows, which no message of ours (or upstream's) uses.
const decodeFailureField protowire.Number = protowire.MaxValidNumber

// lenientCodec is the protobuf codec whose Unmarshal never fails on bad bytes;
// it encodes and decodes BufferMessages as BufferCodec does.
type lenientCodec struct{ base encoding.CodecV2 }

func newLenientCodec() encoding.CodecV2 {
	return lenientCodec{base: BufferCodec()}
}

func (c lenientCodec) Name() string { return c.base.Name() }

func (c lenientCodec) Marshal(v any) (mem.BufferSlice, error) { return c.base.Marshal(v) }

func (c lenientCodec) Unmarshal(data mem.BufferSlice, v any) error {
	if m, ok := v.(BufferMessage); ok {
		m.UnmarshalBuffers(data) // its failure is checked with DecodeError
		return nil
	}
	err := c.base.Unmarshal(data, v)
	m, ok := v.(proto.Message)
	if err == nil || !ok {
		return err
	}
	proto.Reset(m)
	rec := protowire.AppendTag(nil, decodeFailureField, protowire.BytesType)
	rec = protowire.AppendString(rec, err.Error())
	m.ProtoReflect().SetUnknown(rec)
	return nil
}

// DecodeError returns the INVALID_ARGUMENT status of a request that the lenient
// codec could not decode, or nil.
func DecodeError(v any) error {
	if bm, ok := v.(BufferMessage); ok {
		if err := bm.DecodeFailure(); err != nil {
			return status.Errorf(codes.InvalidArgument, "the request does not decode: %s", ValidUTF8(err.Error()))
		}
		return nil
	}
	m, ok := v.(proto.Message)
	if !ok {
		return nil
	}
	b := m.ProtoReflect().GetUnknown()
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return nil
		}
		b = b[n:]
		if num == decodeFailureField && typ == protowire.BytesType {
			reason, _ := protowire.ConsumeString(b)
			return status.Errorf(codes.InvalidArgument, "the request is not a valid %s: %s",
				m.ProtoReflect().Descriptor().FullName(), ValidUTF8(reason))
		}
		n = protowire.ConsumeFieldValue(num, typ, b)
		if n < 0 {
			return nil
		}
		b = b[n:]
	}
	return nil
}

func decodeCheckUnary(ctx context.Context, req any, _ *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	if err := DecodeError(req); err != nil {
		return nil, err
	}
	return handler(ctx, req)
}

func decodeCheckStream(srv any, ss grpc.ServerStream, _ *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
	return handler(srv, decodeCheckedStream{ss})
}

// decodeCheckedStream fails RecvMsg with INVALID_ARGUMENT for a message that
// did not decode; the handler then ends the stream with that status.
type decodeCheckedStream struct{ grpc.ServerStream }

func (s decodeCheckedStream) RecvMsg(m any) error {
	if err := s.ServerStream.RecvMsg(m); err != nil {
		return err
	}
	return DecodeError(m)
}
