package rpc

import (
	"context"

	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
)

// clusterClientHeader marks the calls of the Pathways cluster client to a
// worker, so that a worker can tell them from a JAX client pointed at its port
// by mistake (which bypasses the resource manager and the proxy server).
const clusterClientHeader = "openpathways-client"

const clusterClientValue = "cluster"

// ClusterClientDialOption marks every call on a connection as the cluster
// client's.
func ClusterClientDialOption() grpc.DialOption {
	return grpc.WithChainStreamInterceptor(func(ctx context.Context, desc *grpc.StreamDesc, cc *grpc.ClientConn, method string, streamer grpc.Streamer, opts ...grpc.CallOption) (grpc.ClientStream, error) {
		return streamer(metadata.AppendToOutgoingContext(ctx, clusterClientHeader, clusterClientValue), desc, cc, method, opts...)
	})
}

// FromClusterClient reports whether an incoming call carries the cluster
// client's mark.
func FromClusterClient(ctx context.Context) bool {
	md, _ := metadata.FromIncomingContext(ctx)
	for _, v := range md.Get(clusterClientHeader) {
		if v == clusterClientValue {
			return true
		}
	}
	return false
}
