package rpc

import "google.golang.org/grpc"

// StreamWorkers is how many goroutines a server keeps to serve incoming
// calls. grpc-go otherwise starts a goroutine per call, which regrows its
// stack each time: on a tiny JAX step (a host-buffer lookup and delete per
// read-back) that was a tenth of the proxy's CPU. A call that finds every
// worker busy (long-lived session streams hold one each) gets a goroutine of
// its own, as without workers.
const StreamWorkers = 32

func streamWorkerServerOptions() []grpc.ServerOption {
	return []grpc.ServerOption{grpc.NumStreamWorkers(StreamWorkers)}
}
