// Package rmpb holds the protocol buffer messages and the gRPC service of the
// OpenPathways resource manager (proto package openpathways.rm.v1): worker
// registration, heartbeat streams, and the cluster view and its changes.
//
// The protocol is our own; package rm documents its semantics and offers a
// server and a client, so most code never uses this package directly.
//
// The *.pb.go and *_grpc.pb.go files are generated and checked in. After
// editing rm.proto, regenerate with
//
//	scripts/genproto.sh rm/rmpb
//
// (or go generate ./rm/rmpb) and check that the tree is current with
// scripts/verify_generate.sh.
package rmpb

//go:generate bash ../../scripts/genproto.sh rm/rmpb
