package rm

import (
	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/internal/rpc"
)

// ErrServerClosed is returned by Serve after Close, and by Serve called after
// Shutdown or Close. It is the one value every server of the module returns.
var ErrServerClosed = rpc.ErrServerClosed

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
