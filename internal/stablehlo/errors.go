package stablehlo

import "fmt"

// Error codes use the gRPC/absl numbering so callers map them 1:1.
const (
	InvalidArgument   = 3
	ResourceExhausted = 8  // a value over the interpreter's size limit
	Aborted           = 10 // a participant of an SPMD execution failed or disagreed
	Unimplemented     = 12
	Internal          = 13
)

// Error is the error type this package returns; context errors from Run are
// returned unchanged instead. Code reports a gRPC status code.
type Error struct {
	code    int
	Msg     string
	wrapped bool // Msg already names the op and its position
}

// NewError returns an *Error with the given gRPC code and message.
func NewError(code int, msg string) *Error { return &Error{code: code, Msg: msg} }

func (e *Error) Error() string { return "stablehlo: " + e.Msg }

// Code returns the gRPC status code: InvalidArgument, ResourceExhausted,
// Aborted, Unimplemented or Internal.
func (e *Error) Code() int { return e.code }

func errorf(code int, format string, args ...any) *Error {
	return &Error{code: code, Msg: fmt.Sprintf(format, args...)}
}

func invalidf(format string, args ...any) *Error { return errorf(InvalidArgument, format, args...) }

func unimplementedf(format string, args ...any) *Error {
	return errorf(Unimplemented, format, args...)
}

func internalf(format string, args ...any) *Error { return errorf(Internal, format, args...) }
