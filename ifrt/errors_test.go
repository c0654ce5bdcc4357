package ifrt_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/openpathways/pathways/ifrt"
)

func errorsIs(err, target error) bool { return errors.Is(err, target) }

func TestErrorCodes(t *testing.T) {
	cause := errors.New("disk on fire")
	tests := []struct {
		name     string
		err      error
		code     ifrt.Code
		sentinel error
	}{
		{"nil", nil, ifrt.OK, nil},
		{"Errorf", ifrt.Errorf(ifrt.NotFound, "no array %d", 7), ifrt.NotFound, ifrt.ErrNotFound},
		{"wrapped twice", fmt.Errorf("outer: %w", ifrt.Errorf(ifrt.DataLoss, "worker lost")), ifrt.DataLoss, ifrt.ErrDataLoss},
		{"with cause", ifrt.Errorf(ifrt.Internal, "write: %w", cause), ifrt.Internal, cause},
		{"specific sentinel", ifrt.Errorf(ifrt.InvalidArgument, "arg 0: %w", ifrt.ErrArrayDeleted), ifrt.InvalidArgument, ifrt.ErrArrayDeleted},
		{"deleted is invalid argument", ifrt.ErrArrayDeleted, ifrt.InvalidArgument, ifrt.ErrInvalidArgument},
		{"sentinel itself", ifrt.ErrUnimplemented, ifrt.Unimplemented, ifrt.ErrUnimplemented},
		{"context canceled", fmt.Errorf("wait: %w", context.Canceled), ifrt.Canceled, context.Canceled},
		{"deadline", context.DeadlineExceeded, ifrt.DeadlineExceeded, context.DeadlineExceeded},
		{"plain error", cause, ifrt.Unknown, cause},
		{"WithCode", ifrt.WithCode(ifrt.Unavailable, cause), ifrt.Unavailable, ifrt.ErrUnavailable},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := ifrt.CodeOf(tc.err); got != tc.code {
				t.Errorf("CodeOf(%v) = %v, want %v", tc.err, got, tc.code)
			}
			if tc.sentinel != nil && !errors.Is(tc.err, tc.sentinel) {
				t.Errorf("errors.Is(%v, %v) = false", tc.err, tc.sentinel)
			}
		})
	}
	if errors.Is(ifrt.Errorf(ifrt.NotFound, "x"), ifrt.ErrInternal) {
		t.Errorf("a NOT_FOUND error matches ErrInternal")
	}
	if got := ifrt.Errorf(ifrt.Internal, "write: %w", cause).Error(); got != "write: disk on fire" {
		t.Errorf("message = %q", got)
	}
	if got := ifrt.DataLoss.String(); got != "DATA_LOSS" {
		t.Errorf("DataLoss.String() = %q", got)
	}
}
