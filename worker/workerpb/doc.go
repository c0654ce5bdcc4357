// Package workerpb holds the protocol buffer messages and the gRPC service that
// OpenPathways workers speak to each other (proto package openpathways.worker.v1):
// reading an array held on a worker, and gathering pieces of arrays from several
// workers into a new array, so that copies and reshards between workers move data
// worker to worker; running gangs (gang.proto); and taking a worker's trace for
// the cluster client (profile.proto). Package worker implements them.
//
// The *.pb.go and *_grpc.pb.go files are generated and checked in. After editing
// peer.proto, regenerate with
//
//	scripts/genproto.sh worker/workerpb
//
// and check that the tree is current with scripts/verify_generate.sh.
package workerpb

//go:generate bash ../../scripts/genproto.sh worker/workerpb
