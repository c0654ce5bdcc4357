// Package rpc holds what every gRPC server and client of the module shares: the
// conversion between ifrt errors and gRPC statuses, so that a code survives the
// wire both ways and errors.Is(err, ifrt.ErrNotFound) works on the client side.
// The numbering of ifrt codes and gRPC codes is the same (absl's); anything a
// newer peer sends beyond it is Unknown. Functions are safe for concurrent use.
package rpc

import (
	"context"
	"errors"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/openpathways/pathways/ifrt"
)

// CodeToGRPC converts an ifrt code to gRPC's.
func CodeToGRPC(c ifrt.Code) codes.Code { return codes.Code(CodeFromNumber(uint32(c))) }

// CodeFromGRPC converts a gRPC code to ifrt's.
func CodeFromGRPC(c codes.Code) ifrt.Code { return CodeFromNumber(uint32(c)) }

// CodeFromNumber maps a code in absl numbering to ifrt's: the identity on the
// codes it defines, Unknown for anything else.
func CodeFromNumber(n uint32) ifrt.Code {
	if n > uint32(ifrt.Unauthenticated) {
		return ifrt.Unknown
	}
	return ifrt.Code(n)
}

// ToStatus converts err to a gRPC status error with its ifrt code (ifrt.CodeOf)
// and message. A gRPC status error that is not an ifrt error passes unchanged;
// nil stays nil.
func ToStatus(err error) error {
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

// FromStatus converts a gRPC error to an *ifrt.Error with the same code and
// message. nil stays nil; context errors come back unchanged.
func FromStatus(err error) error {
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
