package rpc_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"unicode/utf8"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/internal/rpc"
)

func TestStatusRoundTrip(t *testing.T) {
	for _, code := range []ifrt.Code{ifrt.NotFound, ifrt.InvalidArgument, ifrt.DataLoss, ifrt.Unavailable, ifrt.Unauthenticated} {
		err := fmt.Errorf("worker: %w", ifrt.Errorf(code, "reason %d", code))
		st := rpc.ToStatus(err)
		if got := status.Code(st); got != codes.Code(code) {
			t.Errorf("ToStatus(%v) has code %v, want %v", err, got, codes.Code(code))
		}
		back := rpc.FromStatus(st)
		if !errors.Is(back, code.Sentinel()) || back.Error() != err.Error() {
			t.Errorf("FromStatus(ToStatus(%v)) = %v (code %v)", err, back, ifrt.CodeOf(back))
		}
	}
	if rpc.ToStatus(nil) != nil || rpc.FromStatus(nil) != nil {
		t.Errorf("nil does not stay nil")
	}
	if got := status.Code(rpc.ToStatus(errors.New("plain"))); got != codes.Unknown {
		t.Errorf("a plain error has code %v, want Unknown", got)
	}
	if got := rpc.FromStatus(context.Canceled); got != context.Canceled {
		t.Errorf("FromStatus(context.Canceled) = %v", got)
	}
	if got := ifrt.CodeOf(rpc.FromStatus(status.Error(codes.Code(99), "from a newer peer"))); got != ifrt.Unknown {
		t.Errorf("an unknown gRPC code maps to %v, want Unknown", got)
	}
	passthrough := status.Error(codes.ResourceExhausted, "grpc's own")
	if rpc.ToStatus(passthrough) != passthrough {
		t.Errorf("a gRPC status error was rewritten")
	}
}

func TestMessagesAreValidUTF8(t *testing.T) {
	bad := ifrt.Errorf(ifrt.InvalidArgument, "plugin: cannot parse \xff\xfe bytecode")
	st, _ := status.FromError(rpc.ToStatus(bad))
	if !utf8.ValidString(st.Message()) || st.Code() != codes.InvalidArgument {
		t.Errorf("ToStatus(%q) = %v %q: want INVALID_ARGUMENT with a valid UTF-8 message", bad.Error(), st.Code(), st.Message())
	}
	if _, err := proto.Marshal(st.Proto()); err != nil {
		t.Errorf("the status does not marshal: %v", err)
	}
	code, msg := rpc.CodeAndMessage(bad)
	if code != ifrt.InvalidArgument || msg != "plugin: cannot parse \uFFFD bytecode" {
		t.Errorf("CodeAndMessage = %v %q", code, msg)
	}
	grpcOwn := status.Error(codes.Internal, "grpc \xc3")
	if st, _ := status.FromError(rpc.ToStatus(grpcOwn)); !utf8.ValidString(st.Message()) {
		t.Errorf("a gRPC status with invalid UTF-8 kept it: %q", st.Message())
	}
}

func TestServerFault(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{nil, false},
		{ifrt.Errorf(ifrt.Internal, "x"), true},
		{ifrt.Errorf(ifrt.DataLoss, "x"), true},
		{errors.New("no code"), true},
		{ifrt.Errorf(ifrt.InvalidArgument, "x"), false},
		{ifrt.ErrArrayDeleted, false},
	} {
		if got := rpc.ServerFault(tc.err); got != tc.want {
			t.Errorf("ServerFault(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}
