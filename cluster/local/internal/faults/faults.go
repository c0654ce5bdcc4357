// Package faults carries the fault injection of a local cluster from package
// local to package localtest, so that stopping workers and restarting the
// resource manager is no part of local's API.
package faults

import (
	"context"

	"github.com/openpathways/pathways/worker"
)

// Injector stops and starts the parts of one running local cluster.
type Injector struct {
	StopWorker  func(slice int) error
	StartWorker func(ctx context.Context, slice int) error
	RestartRM   func() error
	Worker      func(slice int) *worker.Server
	// PreemptWorker stops a worker as SIGTERM with a preemption notice does
	// (worker.Server.Terminate).
	PreemptWorker func(ctx context.Context, slice int) error
}

// Of returns the Injector of a *local.Cluster. Package local sets it when it
// is initialized; it takes any because this package cannot name local's type.
var Of func(cluster any) Injector
