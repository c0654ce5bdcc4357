package rpc_test

import (
	"errors"
	"fmt"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/internal/rpc"
)

// TestSentinelsSurviveTheWire: errors more specific than their code used to
// arrive as their code alone, so errors.Is(err, ifrt.ErrArrayDeleted) failed on
// the client side. Their reason now travels with the status.
func TestSentinelsSurviveTheWire(t *testing.T) {
	for _, sentinel := range []error{ifrt.ErrArrayDeleted, ifrt.ErrClientClosed, ifrt.ErrExecutableDeleted} {
		err := fmt.Errorf("worker: execute: %w", sentinel)
		st := rpc.ToStatus(err)
		if got, want := status.Code(st), codes.Code(ifrt.CodeOf(sentinel)); got != want {
			t.Errorf("ToStatus(%v) has code %v, want %v", err, got, want)
		}
		back := rpc.FromStatus(st)
		if !errors.Is(back, sentinel) || !errors.Is(back, ifrt.CodeOf(sentinel).Sentinel()) || back.Error() != err.Error() {
			t.Errorf("FromStatus(ToStatus(%v)) = %v: errors.Is(_, sentinel) = %v", err, back, errors.Is(back, sentinel))
		}
		payload := rpc.ReasonPayload(err)
		if e := rpc.NewError(ifrt.CodeOf(err), err.Error(), rpc.ReasonFromPayload(payload)); !errors.Is(e, sentinel) {
			t.Errorf("the payload of %v decodes to %v", err, e)
		}
	}
	plain := ifrt.Errorf(ifrt.InvalidArgument, "bad shape")
	if rpc.ReasonPayload(plain) != nil || len(status.Convert(rpc.ToStatus(plain)).Details()) != 0 {
		t.Errorf("an error without a reason got one")
	}
	if e := rpc.NewError(ifrt.InvalidArgument, "from a newer peer", "SOMETHING_NEW"); errors.Is(e, ifrt.ErrArrayDeleted) || !errors.Is(e, ifrt.ErrInvalidArgument) {
		t.Errorf("an unknown reason decodes to %v", e)
	}
	if rpc.ReasonFromPayload([]byte{0xff}) != "" {
		t.Errorf("a payload that does not decode has a reason")
	}
}
