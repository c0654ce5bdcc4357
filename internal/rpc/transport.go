package rpc

import "google.golang.org/grpc"

// The HTTP/2 transport settings of every server and client of the module,
// sized for array bytes (docs/dataplane.md): host buffers and shards move in
// 1 MiB messages, on loopback or a data-centre network.
const (
	// StreamWindow is the flow-control window of one stream: how much a sender
	// may have in flight on it before the receiver reads. grpc-go starts at
	// 64 KiB and grows it by probing; a fixed large window lets a transfer run
	// at full speed from its first byte.
	StreamWindow = 16 << 20
	// ConnWindow bounds the bytes in flight on one connection, all streams
	// together: what a receiver that reads slowly may have to buffer.
	ConnWindow = 64 << 20
	// TransportBuffer is the size of a connection's read and write buffers
	// (grpc-go's default is 32 KiB): data frames are at most 16 KiB, so a
	// 1 MiB message took 32 write system calls instead of 2. grpc-go returns
	// the write buffer to a pool between writes.
	TransportBuffer = 512 << 10
)

// transportServerOptions are the transport settings of a server.
func transportServerOptions() []grpc.ServerOption {
	return []grpc.ServerOption{
		grpc.InitialWindowSize(StreamWindow),
		grpc.InitialConnWindowSize(ConnWindow),
		grpc.ReadBufferSize(TransportBuffer),
		grpc.WriteBufferSize(TransportBuffer),
	}
}

// TransportDialOptions are the transport settings of a client.
func TransportDialOptions() []grpc.DialOption {
	return []grpc.DialOption{
		grpc.WithInitialWindowSize(StreamWindow),
		grpc.WithInitialConnWindowSize(ConnWindow),
		grpc.WithReadBufferSize(TransportBuffer),
		grpc.WithWriteBufferSize(TransportBuffer),
	}
}
