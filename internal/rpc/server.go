package rpc

import (
	"log/slog"

	"google.golang.org/grpc"
)

// ServerConfig is what ServerOptions builds a server's options from.
type ServerConfig struct {
	// Auth is the cluster's authentication; the zero value has none (the IFRT
	// proxy port that JAX connects to).
	Auth Auth
	// Keepalive pings the server's clients.
	Keepalive Keepalive
	// MaxRecvMsgSize and MaxSendMsgSize bound messages; 0 leaves grpc-go's
	// defaults (4 MiB received, unlimited sent).
	MaxRecvMsgSize int
	MaxSendMsgSize int
	// Logger receives the panics of handlers. Default slog.Default().
	Logger *slog.Logger
}

// ServerOptions returns the options every server of the module starts its
// grpc.Server with, the one interceptor chain of the module: panic recovery
// outermost (a panic is INTERNAL for its call), then authentication, then the
// lenient codec with its INVALID_ARGUMENT check; keepalive, transport windows
// and buffers (transport.go), telemetry (otel.go) and message limits.
func ServerOptions(c ServerConfig) []grpc.ServerOption {
	opts := recoverInterceptors(c.Logger)
	opts = append(opts, c.Auth.ServerOptions()...)
	opts = append(opts,
		grpc.ForceServerCodecV2(newLenientCodec()),
		grpc.ChainUnaryInterceptor(decodeCheckUnary),
		grpc.ChainStreamInterceptor(decodeCheckStream),
	)
	opts = append(opts, c.Keepalive.ServerOptions()...)
	opts = append(opts, transportServerOptions()...)
	opts = append(opts, telemetryServerOptions()...)
	if c.MaxRecvMsgSize > 0 {
		opts = append(opts, grpc.MaxRecvMsgSize(c.MaxRecvMsgSize))
	}
	if c.MaxSendMsgSize > 0 {
		opts = append(opts, grpc.MaxSendMsgSize(c.MaxSendMsgSize))
	}
	return opts
}

// DialOptions returns the options every client of the module dials a member of
// the cluster with: a's credentials, keepalive and telemetry.
func DialOptions(a Auth, k Keepalive) []grpc.DialOption {
	return append(append(a.DialOptions(), k.DialOptions()...), TelemetryDialOption())
}
