package pjrtifrt

import (
	"context"
	"errors"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/pjrt"
)

// fromPJRT gives an error from package pjrt its ifrt code: a plugin's *pjrt.Error
// carries an ifrt.Code already.
// Context errors come back unchanged; pjrt.ErrClosed (an object closed under a
// call, which happens only when the client closes) becomes ErrClientClosed; a
// build without cgo is Unimplemented.
func fromPJRT(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return err
	case errors.Is(err, pjrt.ErrClosed):
		return ifrt.ErrClientClosed
	case errors.Is(err, pjrt.ErrCgoUnavailable):
		return ifrt.WithCode(ifrt.Unimplemented, err)
	case errors.Is(err, pjrt.ErrUnsupportedVersion):
		return ifrt.WithCode(ifrt.FailedPrecondition, err)
	}
	var ie *ifrt.Error
	if errors.As(err, &ie) {
		return err
	}
	return ifrt.WithCode(ifrt.CodeOf(err), err)
}
