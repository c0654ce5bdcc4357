// Package rpc holds what every gRPC server and client of the module shares:
//
//   - the conversion between ifrt errors and gRPC statuses (status.go), so that a
//     code survives the wire both ways and errors.Is(err, ifrt.ErrNotFound) works on
//     the client side, with messages made valid UTF-8 on the way out (a proto3
//     string that is not fails to marshal, which would end the whole stream);
//   - the server options every server builds its grpc.Server from (server.go):
//     panic recovery outermost (recover.go: a panic is INTERNAL for its call,
//     logged at Error with its stack), the cluster's authentication (auth.go),
//     a codec under which undecodable requests fail with INVALID_ARGUMENT,
//     keepalive (keepalive.go) and message limits;
//   - the matching dial options for the module's clients;
//   - telemetry (otel.go): OpenTelemetry stats handlers on every server and
//     connection (spans, with W3C trace context and baggage propagated in the
//     metadata; call durations; bytes in and out by method), through the
//     OpenTelemetry API only, so no-op unless the application installs an SDK;
//   - the Serve, Shutdown and Close of the RM, the worker and the proxy server
//     (lifecycle.go), with their one ErrServerClosed.
//
// A status also carries a reason (a google.rpc.ErrorInfo detail on gRPC, the
// same message as a payload of an IFRT Proxy StatusProto) when the error is
// one of the sentinels more specific than their code (reason.go), so that
// errors.Is(err, ifrt.ErrArrayDeleted) works across the wire too. Every
// conversion between ifrt errors and statuses is here; the proxy's wire
// package only moves the code, message and reason into its StatusProto.
//
// The numbering of ifrt codes and gRPC codes is the same (absl's); anything a
// newer peer sends beyond it is Unknown. Functions are safe for concurrent use.
package rpc

import (
	"context"
	"errors"
	"strings"
	"unicode/utf8"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
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

// CodeAndMessage is what a failed call sends for err: its ifrt code (Unknown for
// an error without one) and its message as valid UTF-8, invalid bytes replaced
// by U+FFFD. Every error that leaves a server of the module, as a gRPC status
// or as an IFRT Proxy StatusProto, goes through here.
func CodeAndMessage(err error) (ifrt.Code, string) {
	code := ifrt.CodeOf(err)
	if code == ifrt.OK {
		code = ifrt.Unknown
	}
	return code, ValidUTF8(err.Error())
}

// ValidUTF8 returns s with each run of invalid UTF-8 bytes replaced by U+FFFD.
func ValidUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}

// ToStatus converts err to a gRPC status error with its ifrt code and message
// (CodeAndMessage) and, when err wraps one of the sentinels reason.go names, a
// google.rpc.ErrorInfo detail with its reason. A gRPC status error that is not
// an ifrt error passes unchanged unless its message is not valid UTF-8; nil
// stays nil.
func ToStatus(err error) error {
	if err == nil {
		return nil
	}
	var ie *ifrt.Error
	if st, ok := status.FromError(err); ok && !errors.As(err, &ie) {
		if utf8.ValidString(st.Message()) {
			return err
		}
		return status.Error(st.Code(), ValidUTF8(st.Message()))
	}
	code, msg := CodeAndMessage(err)
	st := status.New(CodeToGRPC(code), msg)
	if reason := ReasonOf(err); reason != "" {
		if with, derr := st.WithDetails(errorInfo(reason)); derr == nil {
			st = with
		}
	}
	return st.Err()
}

// FromStatus converts a gRPC error to an *ifrt.Error with the same code and
// message, wrapping the error its ErrorInfo reason names (so errors.Is(err,
// ifrt.ErrArrayDeleted) holds on the client side). nil stays nil; context
// errors come back unchanged.
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
	reason := ""
	for _, d := range st.Details() {
		if info, ok := d.(*errdetails.ErrorInfo); ok && info.GetDomain() == ReasonDomain {
			reason = info.GetReason()
		}
	}
	return NewError(CodeFromGRPC(st.Code()), st.Message(), reason)
}

// CallError is the error of a gRPC call made under ctx, for the caller's
// caller: ctx's cause when ctx ended, otherwise FromStatus(err) with its
// message prefixed by prefix (unless it starts with it already). nil stays nil.
func CallError(ctx context.Context, prefix string, err error) error {
	if err == nil {
		return nil
	}
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	e := FromStatus(err)
	var ie *ifrt.Error
	if !errors.As(e, &ie) || strings.HasPrefix(ie.Msg, prefix) {
		return e
	}
	return &ifrt.Error{Code: ie.Code, Msg: prefix + ie.Msg, Err: ie.Err}
}

// ServerFault reports whether err, a server's error (not a gRPC status),
// says the server failed rather than the request: INTERNAL, DATA_LOSS or
// UNKNOWN. Servers log such failures at Warn, a client's mistakes
// (INVALID_ARGUMENT, NOT_FOUND, ...) at Debug.
func ServerFault(err error) bool {
	if err == nil {
		return false
	}
	switch code, _ := CodeAndMessage(err); code {
	case ifrt.Internal, ifrt.DataLoss, ifrt.Unknown:
		return true
	}
	return false
}
