// Package localtest starts in-process clusters, as package local does, whose
// parts a test can break: kill a worker as a crash would, start it again,
// restart the resource manager with no memory of the cluster. It is for tests
// and examples of fault handling; programs use package local.
//
//	c, err := localtest.Start(ctx, local.Config{Slices: 2, DevicesPerSlice: 2})
//	if err != nil { ... }
//	defer c.Close()
//	c.StopWorker(1)         // slice 1's arrays are DATA_LOSS
//	c.StartWorker(ctx, 1)   // its devices work again, under the same ids
//
// A Cluster's methods are safe for concurrent use.
package localtest

import (
	"context"

	"github.com/openpathways/pathways/cluster/local"
	"github.com/openpathways/pathways/cluster/local/internal/faults"
	"github.com/openpathways/pathways/worker"
)

// Cluster is a local.Cluster with its fault injection.
type Cluster struct {
	*local.Cluster
	faults faults.Injector
}

// Start starts a local cluster as local.Start does.
func Start(ctx context.Context, cfg local.Config) (*Cluster, error) {
	c, err := local.Start(ctx, cfg)
	if err != nil {
		return nil, err
	}
	return &Cluster{Cluster: c, faults: faults.Of(c)}, nil
}

// StopWorker kills worker i (slice i/HostsPerSlice, host i%HostsPerSlice;
// with one host per slice, the worker of slice i) at once, as a crash would: its arrays
// are gone and the resource manager reports it lost.
func (c *Cluster) StopWorker(i int) error { return c.faults.StopWorker(i) }

// StartWorker starts worker i again after StopWorker: a fresh
// backend on a new port. Its devices keep their ids.
func (c *Cluster) StartWorker(ctx context.Context, i int) error {
	return c.faults.StartWorker(ctx, i)
}

// RestartRM stops the resource manager and starts a new one, with no memory of
// the cluster, on the same address: the workers register again by themselves.
func (c *Cluster) RestartRM() error { return c.faults.RestartRM() }

// PreemptWorker stops worker i as SIGTERM with a preemption notice does
// (worker.Server.Terminate): it suspends its slice, to resume once a
// replacement (StartWorker) registers, and shuts down.
func (c *Cluster) PreemptWorker(ctx context.Context, i int) error {
	return c.faults.PreemptWorker(ctx, i)
}

// Worker returns worker i's server, nil while it is stopped.
func (c *Cluster) Worker(i int) *worker.Server { return c.faults.Worker(i) }
