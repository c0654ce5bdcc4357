package rpc

import (
	"context"
	"log/slog"
	"runtime/debug"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// recoverInterceptors turn a panic in a handler, or in an interceptor after
// them, into INTERNAL for that call, logged at Error with its stack, so that a
// bug fails one request instead of the whole process.
func recoverInterceptors(log *slog.Logger) []grpc.ServerOption {
	if log == nil {
		log = slog.Default()
	}
	recovered := func(method string, r any) error {
		log.Error("rpc handler panicked", "method", method, "panic", r, "stack", string(debug.Stack()))
		return status.Errorf(codes.Internal, "%s: internal error: %v", method, r)
	}
	return []grpc.ServerOption{
		grpc.ChainUnaryInterceptor(func(ctx context.Context, req any, info *grpc.UnaryServerInfo, h grpc.UnaryHandler) (_ any, err error) {
			defer func() {
				if r := recover(); r != nil {
					err = recovered(info.FullMethod, r)
				}
			}()
			return h(ctx, req)
		}),
		grpc.ChainStreamInterceptor(func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, h grpc.StreamHandler) (err error) {
			defer func() {
				if r := recover(); r != nil {
					err = recovered(info.FullMethod, r)
				}
			}()
			return h(srv, ss)
		}),
	}
}
