// Package local runs a whole cluster in process: a resource manager, one
// worker per slice (gocpu devices by default, or any ifrt backend) and an IFRT
// Proxy server over the cluster, each serving gRPC on a loopback port, and a
// cluster.Client connected to it. It is the embedded default of the examples
// and tests, and a way to try a Go driver or a JAX program against the real
// servers on one machine.
//
// # Usage
//
//	c, err := local.Start(ctx, local.Config{Slices: 2, DevicesPerSlice: 4})
//	if err != nil { ... }
//	defer c.Close()
//	devices := c.Client.Devices() // 8 devices over 2 workers
//	// JAX: JAX_PLATFORMS=proxy JAX_BACKEND_TARGET=grpc://<c.ProxyAddress>
//
// Other clients may connect too: cluster.Connect(ctx, c.RMAddress) for Go,
// ProxyAddress for JAX (each JAX session gets a cluster client of its own).
// Package localtest starts the same cluster with handles to stop and start its
// workers and to restart its resource manager, for tests of fault handling.
//
// # Concurrency and lifetimes
//
// A Cluster's Client is safe for concurrent use. Close stops the proxy
// server, the client, the workers and the resource manager, in that order;
// clients connected from elsewhere then see their devices fail.
//
// This package links the servers and the gocpu interpreter; a program that
// only talks to a remote cluster imports package cluster alone.
package local
