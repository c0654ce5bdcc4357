package rm

import (
	"context"
	"errors"
	"strings"

	"google.golang.org/grpc/status"

	"github.com/openpathways/pathways/ifrt"
)

// ErrServerClosed is returned by Serve after Close, and by Serve called after
// Shutdown or Close.
var ErrServerClosed = errors.New("rm: server closed")

// fromStatus turns an RPC error into an *ifrt.Error with the same code, so
// errors.Is(err, ifrt.ErrAlreadyExists) works on the client side. Context
// errors of ctx come back unchanged.
func fromStatus(ctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	st, ok := status.FromError(err)
	if !ok {
		return err
	}
	msg := st.Message()
	if !strings.HasPrefix(msg, "rm: ") {
		msg = "rm: " + msg
	}
	return &ifrt.Error{Code: ifrt.Code(st.Code()), Msg: msg}
}

// permanent reports whether retrying a registration cannot help: the request
// itself, or the RM's configuration, is wrong.
func permanent(err error) bool {
	switch ifrt.CodeOf(err) {
	case ifrt.InvalidArgument, ifrt.OutOfRange, ifrt.FailedPrecondition,
		ifrt.PermissionDenied, ifrt.Unauthenticated, ifrt.Unimplemented:
		return true
	}
	return false
}
