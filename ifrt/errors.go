package ifrt

import (
	"context"
	"errors"
	"fmt"
)

// Code classifies an error. The numbering is gRPC's (and absl's, and PJRT's), so a
// code crosses every layer — plugin, ifrt, the wire — without translation.
type Code uint32

// The codes, numbered as in google.golang.org/grpc/codes.
const (
	OK                 Code = 0
	Canceled           Code = 1
	Unknown            Code = 2
	InvalidArgument    Code = 3
	DeadlineExceeded   Code = 4
	NotFound           Code = 5
	AlreadyExists      Code = 6
	PermissionDenied   Code = 7
	ResourceExhausted  Code = 8
	FailedPrecondition Code = 9
	Aborted            Code = 10
	OutOfRange         Code = 11
	Unimplemented      Code = 12
	Internal           Code = 13
	Unavailable        Code = 14
	DataLoss           Code = 15
	Unauthenticated    Code = 16
)

var codeNames = [...]string{
	"OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND",
	"ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION",
	"ABORTED", "OUT_OF_RANGE", "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS",
	"UNAUTHENTICATED",
}

// String returns the canonical upper-case name, e.g. "NOT_FOUND".
func (c Code) String() string {
	if int(c) < len(codeNames) {
		return codeNames[c]
	}
	return fmt.Sprintf("CODE(%d)", uint32(c))
}

// codeError is the sentinel for one code: errors.Is(err, ErrNotFound) is true for every
// error whose code is NotFound.
type codeError struct {
	code Code
	msg  string
}

func (e *codeError) Error() string { return e.msg }

// Sentinels, one per code. Test with errors.Is; never compare messages.
var (
	ErrCanceled           error = &codeError{Canceled, "ifrt: canceled"}
	ErrUnknown            error = &codeError{Unknown, "ifrt: unknown"}
	ErrInvalidArgument    error = &codeError{InvalidArgument, "ifrt: invalid argument"}
	ErrDeadlineExceeded   error = &codeError{DeadlineExceeded, "ifrt: deadline exceeded"}
	ErrNotFound           error = &codeError{NotFound, "ifrt: not found"}
	ErrAlreadyExists      error = &codeError{AlreadyExists, "ifrt: already exists"}
	ErrPermissionDenied   error = &codeError{PermissionDenied, "ifrt: permission denied"}
	ErrResourceExhausted  error = &codeError{ResourceExhausted, "ifrt: resource exhausted"}
	ErrFailedPrecondition error = &codeError{FailedPrecondition, "ifrt: failed precondition"}
	ErrAborted            error = &codeError{Aborted, "ifrt: aborted"}
	ErrOutOfRange         error = &codeError{OutOfRange, "ifrt: out of range"}
	ErrUnimplemented      error = &codeError{Unimplemented, "ifrt: unimplemented"}
	ErrInternal           error = &codeError{Internal, "ifrt: internal"}
	ErrUnavailable        error = &codeError{Unavailable, "ifrt: unavailable"}
	ErrDataLoss           error = &codeError{DataLoss, "ifrt: data loss"}
	ErrUnauthenticated    error = &codeError{Unauthenticated, "ifrt: unauthenticated"}
)

var sentinels = [...]error{
	nil, ErrCanceled, ErrUnknown, ErrInvalidArgument, ErrDeadlineExceeded, ErrNotFound,
	ErrAlreadyExists, ErrPermissionDenied, ErrResourceExhausted, ErrFailedPrecondition,
	ErrAborted, ErrOutOfRange, ErrUnimplemented, ErrInternal, ErrUnavailable, ErrDataLoss,
	ErrUnauthenticated,
}

// Errors with a more specific meaning than their code. Each also matches its code's
// sentinel: errors.Is(err, ErrArrayDeleted) implies errors.Is(err, ErrInvalidArgument).
var (
	// ErrArrayDeleted is returned when a deleted or donated array is used.
	ErrArrayDeleted error = &Error{Code: InvalidArgument, Msg: "ifrt: array has been deleted or donated"}
	// ErrClientClosed is returned by every method of a closed Client.
	ErrClientClosed error = &Error{Code: FailedPrecondition, Msg: "ifrt: client is closed"}
	// ErrExecutableDeleted is returned when a deleted executable is used.
	ErrExecutableDeleted error = &Error{Code: InvalidArgument, Msg: "ifrt: executable has been deleted"}
)

// Error is an error with a Code. Its Unwrap returns both the cause and the sentinel
// of its code, so errors.Is matches either.
type Error struct {
	Code Code
	Msg  string // the whole message; the cause's text is not appended
	Err  error  // the cause, if any
}

func (e *Error) Error() string {
	if e.Msg == "" && e.Err != nil {
		return e.Err.Error()
	}
	return e.Msg
}

// Unwrap returns the cause and the code's sentinel.
func (e *Error) Unwrap() []error {
	s := e.Code.Sentinel()
	switch {
	case e.Err == nil && s == nil:
		return nil
	case e.Err == nil:
		return []error{s}
	case s == nil:
		return []error{e.Err}
	}
	return []error{e.Err, s}
}

// Sentinel returns the sentinel error for c (nil for OK and unknown numbers).
func (c Code) Sentinel() error {
	if int(c) < len(sentinels) {
		return sentinels[c]
	}
	return nil
}

// Errorf returns an *Error with the given code and the formatted message. A %w verb
// records the wrapped error as the cause, so errors.Is and errors.As see through it.
func Errorf(code Code, format string, args ...any) error {
	wrapped := fmt.Errorf(format, args...)
	return &Error{Code: code, Msg: wrapped.Error(), Err: errors.Unwrap(wrapped)}
}

// WithCode returns err with its code set to code, keeping err as the cause. A nil err
// stays nil.
func WithCode(code Code, err error) error {
	if err == nil {
		return nil
	}
	return &Error{Code: code, Err: err}
}

// CodeOf returns the code of err: OK for nil, Canceled and DeadlineExceeded for the
// context errors, the code of the first *Error or sentinel in the chain, otherwise
// Unknown.
func CodeOf(err error) Code {
	if err == nil {
		return OK
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	var s *codeError
	if errors.As(err, &s) {
		return s.code
	}
	switch {
	case errors.Is(err, context.Canceled):
		return Canceled
	case errors.Is(err, context.DeadlineExceeded):
		return DeadlineExceeded
	}
	return Unknown
}
