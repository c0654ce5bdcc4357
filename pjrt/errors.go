package pjrt

import (
	"errors"
	"fmt"

	"github.com/openpathways/pathways/ifrt"
)

// Error is an error reported by a PJRT plugin, or raised by this package on the
// plugin's behalf (for example UNIMPLEMENTED for a call the plugin's API version
// lacks). Code is the plugin's PJRT_Error_Code, which numbers codes as gRPC
// does and so is an ifrt.Code; Msg is the plugin's message, unchanged.
//
// errors.Is(err, ifrt.ErrInvalidArgument) (and the other code sentinels)
// matches an *Error by code and ifrt.CodeOf returns its code, so callers never
// need to look at Msg.
type Error struct {
	Code ifrt.Code
	Msg  string
}

func (e *Error) Error() string { return "pjrt: " + e.Code.String() + ": " + e.Msg }

// Unwrap returns the sentinel of e's code.
func (e *Error) Unwrap() error { return e.Code.Sentinel() }

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

func errorf(code ifrt.Code, format string, args ...any) *Error {
	return &Error{Code: code, Msg: fmt.Sprintf(format, args...)}
}
