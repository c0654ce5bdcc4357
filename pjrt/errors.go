package pjrt

import (
	"context"
	"errors"
	"fmt"
)

// Code is a PJRT_Error_Code. Its numbering is the absl/gRPC status numbering
// (OK = 0 … UNAUTHENTICATED = 16), so it converts to google.golang.org/grpc/codes
// and to ifrt codes without a table.
type Code int

// The PJRT error codes.
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
	"OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED",
	"NOT_FOUND", "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED",
	"FAILED_PRECONDITION", "ABORTED", "OUT_OF_RANGE", "UNIMPLEMENTED", "INTERNAL",
	"UNAVAILABLE", "DATA_LOSS", "UNAUTHENTICATED",
}

// String returns the code's canonical upper-case name, e.g. "INVALID_ARGUMENT".
func (c Code) String() string {
	if c >= 0 && int(c) < len(codeNames) {
		return codeNames[c]
	}
	return fmt.Sprintf("CODE(%d)", int(c))
}

// Error is an error reported by a PJRT plugin, or raised by this package on the
// plugin's behalf (for example UNIMPLEMENTED for a call the plugin's API version
// lacks). Code is the plugin's PJRT_Error_Code; Msg its message, unchanged.
//
// errors.Is(err, ErrInvalidArgument) (and the other code sentinels) matches an
// *Error by code, so callers never need to look at Msg.
type Error struct {
	Code Code
	Msg  string
}

func (e *Error) Error() string { return "pjrt: " + e.Code.String() + ": " + e.Msg }

// Is reports whether target is the code sentinel for e's code.
func (e *Error) Is(target error) bool {
	s, ok := target.(*codeSentinel)
	return ok && s.code == e.Code
}

// codeSentinel is the type of the Err<Code> values: it matches any *Error with
// the same code under errors.Is.
type codeSentinel struct{ code Code }

func (s *codeSentinel) Error() string { return "pjrt: " + s.code.String() }

// Code sentinels: errors.Is(err, ErrNotFound) is true for any *Error whose code
// is NOT_FOUND.
var (
	ErrCanceled           error = &codeSentinel{Canceled}
	ErrUnknown            error = &codeSentinel{Unknown}
	ErrInvalidArgument    error = &codeSentinel{InvalidArgument}
	ErrDeadlineExceeded   error = &codeSentinel{DeadlineExceeded}
	ErrNotFound           error = &codeSentinel{NotFound}
	ErrAlreadyExists      error = &codeSentinel{AlreadyExists}
	ErrPermissionDenied   error = &codeSentinel{PermissionDenied}
	ErrResourceExhausted  error = &codeSentinel{ResourceExhausted}
	ErrFailedPrecondition error = &codeSentinel{FailedPrecondition}
	ErrAborted            error = &codeSentinel{Aborted}
	ErrOutOfRange         error = &codeSentinel{OutOfRange}
	ErrUnimplemented      error = &codeSentinel{Unimplemented}
	ErrInternal           error = &codeSentinel{Internal}
	ErrUnavailable        error = &codeSentinel{Unavailable}
	ErrDataLoss           error = &codeSentinel{DataLoss}
	ErrUnauthenticated    error = &codeSentinel{Unauthenticated}
)

// Package errors that do not come from a plugin.
var (
	// ErrCgoUnavailable is returned by every entry point of a build without cgo.
	ErrCgoUnavailable = errors.New("pjrt: built without cgo (CGO_ENABLED=0); PJRT plugins cannot be loaded")
	// ErrClosed is returned when a closed object (or one whose client was closed)
	// is used.
	ErrClosed = errors.New("pjrt: object is closed")
	// ErrUnsupportedVersion is wrapped by Load when a plugin's API version is
	// outside the supported range; the message names the version found.
	ErrUnsupportedVersion = errors.New("pjrt: unsupported PJRT API version")
)

// CodeOf returns the PJRT code carried by err: the code of an *Error in its
// chain, Canceled or DeadlineExceeded for context errors, OK for nil and Unknown
// otherwise.
func CodeOf(err error) Code {
	if err == nil {
		return OK
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	var s *codeSentinel
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

func errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Msg: fmt.Sprintf(format, args...)}
}
