package wire

import (
	"context"
	"errors"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/proxy/proxypb"
)

// codeFromNumber is the one table between ifrt codes, the wire's tensorflow.error.Code
// and gRPC codes. The three numberings are identical (absl's), so the table
// is the identity on the codes all three define; anything else is UNKNOWN.
func codeFromNumber(n uint32) ifrt.Code {
	if n > uint32(ifrt.Unauthenticated) {
		return ifrt.Unknown
	}
	return ifrt.Code(n)
}

// CodeToProto converts an ifrt code to the wire's.
func CodeToProto(c ifrt.Code) proxypb.Code { return proxypb.Code(codeFromNumber(uint32(c))) }

// CodeFromProto converts a wire code to ifrt's.
func CodeFromProto(c proxypb.Code) ifrt.Code {
	if c < 0 {
		return ifrt.Unknown
	}
	return codeFromNumber(uint32(c))
}

// CodeToGRPC converts an ifrt code to gRPC's.
func CodeToGRPC(c ifrt.Code) codes.Code { return codes.Code(codeFromNumber(uint32(c))) }

// CodeFromGRPC converts a gRPC code to ifrt's.
func CodeFromGRPC(c codes.Code) ifrt.Code { return codeFromNumber(uint32(c)) }

// ErrorToStatus encodes err as a StatusProto: its ifrt code (ifrt.CodeOf) and
// its message. nil is nil (OK).
func ErrorToStatus(err error) *proxypb.StatusProto {
	if err == nil {
		return nil
	}
	code := ifrt.CodeOf(err)
	if code == ifrt.OK {
		code = ifrt.Unknown
	}
	return &proxypb.StatusProto{Code: CodeToProto(code), Message: err.Error()}
}

// StatusToError decodes p: nil or OK is nil, anything else an *ifrt.Error with
// the same code and message, so errors.Is(err, ifrt.ErrNotFound) holds for a
// NOT_FOUND status.
func StatusToError(p *proxypb.StatusProto) error {
	if p == nil || p.GetCode() == proxypb.Code_OK {
		return nil
	}
	return &ifrt.Error{Code: CodeFromProto(p.GetCode()), Msg: p.GetMessage()}
}

// ErrorToGRPC converts err to a gRPC status error with its ifrt code and
// message. nil stays nil; an error that already is a gRPC status keeps it.
func ErrorToGRPC(err error) error {
	if err == nil {
		return nil
	}
	var ie *ifrt.Error
	if _, ok := status.FromError(err); ok && !errors.As(err, &ie) {
		return err
	}
	code := ifrt.CodeOf(err)
	if code == ifrt.OK {
		code = ifrt.Unknown
	}
	return status.Error(CodeToGRPC(code), err.Error())
}

// ErrorFromGRPC converts a gRPC error to an *ifrt.Error with the same code and
// message. nil stays nil; context errors come back unchanged.
func ErrorFromGRPC(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	st, ok := status.FromError(err)
	if !ok {
		return &ifrt.Error{Code: ifrt.Unknown, Msg: err.Error(), Err: err}
	}
	if st.Code() == codes.OK {
		return nil
	}
	return &ifrt.Error{Code: CodeFromGRPC(st.Code()), Msg: st.Message()}
}
