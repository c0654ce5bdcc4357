package cluster

import (
	"context"

	"github.com/openpathways/pathways/rm"
)

// LinkedIncarnation is the incarnation of the worker the client's link to
// slice and host is up to, or "" while it is down.
func LinkedIncarnation(c *Client, slice, host int) string {
	l := c.links[hostKey{slice, host}]
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.client == nil {
		return ""
	}
	return l.incarnation
}

// ApplyWorkerEvent hands the client an RM watch event about worker w, as the
// watch does.
func ApplyWorkerEvent(ctx context.Context, c *Client, w rm.Worker) {
	_ = c.apply(ctx, &rm.Cluster{Workers: []rm.Worker{w}}, false)
}

// Watching waits until the client's RM watch has applied its first snapshot:
// events a test hands the client after it are not undone by that snapshot.
func Watching(ctx context.Context, c *Client) error {
	select {
	case <-c.watching:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Redialing counts the client's links whose redial loop runs.
func Redialing(c *Client) int {
	n := 0
	for _, l := range c.links {
		if l.redialing.Load() {
			n++
		}
	}
	return n
}
